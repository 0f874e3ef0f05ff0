/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the engine on a GPU: cross-stream correctness that can fail, GPU results
 * equal host results, stream policies, completion strategies, inserted
 * copies, the device metrics. Skips without a GPU. */
#include <cuda_runtime_api.h>

#include "accel-test.h"
#include "test-stages.h"

/* 2 ms: far longer than launching the next stage's work */
#define SLOW_NS G_GUINT64_CONSTANT (2000000)

typedef struct
{
  const char *shape;
  const char *dtype;
  gint64 frames;
  guint64 writer_spin_ns; /* source's fill waits this long */
  guint64 reader_spin_ns; /* scale waits this long before reading */
  guint source_pool;      /* 0: default */
  AccelStreamPolicy policy;
  AccelCompletion completion;
  gboolean host;            /* run on the host backend */
  gboolean source_on_host;  /* source on the host device, rest on GPU */
  const char *thread;       /* every stage on this thread; NULL: own threads */
  gboolean segments;        /* the default; off, every stage has a thread and a
                               stream of its own, so the waits between them show */
  AccelCaptureMode capture; /* graph mode: auto (the default) or off */
} Run;

/* source -> scale -> checksum-sink; returns the sink's digest */
static gchar *
run_chain (const Run *r, GPtrArray **notes)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("chain");
  AccelStage *src, *scale, *sink;
  gchar *digest;

  if (r->host)
    accel_graph_set_device (g, accel_device_get_host ());
  accel_graph_set_stream_policy (g, r->policy, 3);
  accel_graph_set_segments (g, r->segments);
  accel_graph_set_capture_mode (g, r->capture);
  src = accel_test_stage (g, "core.test-source", "src");
  scale = accel_test_stage (g, "core.scale", "scale");
  sink = accel_test_stage (g, "core.checksum-sink", "sink");
  g_object_set (src, "shape", r->shape, "dtype", r->dtype, "num-buffers",
      r->frames, "spin-ns", r->writer_spin_ns, NULL);
  if (r->source_pool)
    g_object_set (src, "pool-size", r->source_pool, NULL);
  if (r->source_on_host)
    g_object_set (src, "device", accel_device_get_host (), NULL);
  g_object_set (scale, "scale", 3.0f, "offset", -2.0f, "spin-ns",
      r->reader_spin_ns, NULL);
  g_object_set (sink, "completion", r->completion, NULL);
  g_object_set (src, "thread", r->thread, NULL);
  g_object_set (scale, "thread", r->thread, NULL);
  g_object_set (sink, "thread", r->thread, NULL);
  g_assert_true (accel_graph_link (g, "src", "scale", &error));
  g_assert_true (accel_graph_link (g, "scale", "sink", &error));

  g_assert_true (accel_graph_run (g, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (
      accel_checksum_sink_get_n_received (sink), ==, (guint64)r->frames);
  /* in graph mode the scale's work is a replayed graph after its first
   * frames; off, or on a stream other threads share, never */
  if (r->host || r->capture == ACCEL_CAPTURE_OFF || r->frames < 4
      || r->policy != ACCEL_STREAM_POLICY_PER_STAGE)
    g_assert_cmpuint (accel_stage_get_n_replayed (scale), ==, 0);
  else
    g_assert_cmpuint (accel_stage_get_n_replayed (scale), >, 0);
  if (notes)
    *notes = g_ptr_array_ref (accel_graph_get_notes (g));
  digest = accel_checksum_sink_dup_digest (sink);
  return digest;
}

static gchar *
host_digest (const Run *r)
{
  Run h = *r;

  h.host = TRUE;
  h.source_on_host = FALSE;
  return run_chain (&h, NULL);
}

static void
test_gpu_equals_host (void)
{
  const char *shapes[] = { "1", "7x3", "1921x1079", "1048576" };
  const char *dtypes[] = { "f32", "u8" };

  for (guint s = 0; s < G_N_ELEMENTS (shapes); s++)
    for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
      {
        Run r = { shapes[s], dtypes[d], 12 };
        g_autofree gchar *gpu = run_chain (&r, NULL);
        g_autofree gchar *host = host_digest (&r);
        g_test_message ("%s %s: %s", shapes[s], dtypes[d], gpu);
        g_assert_cmpstr (gpu, ==, host);
      }
}

static gchar *
digest_of (gconstpointer run)
{
  return run_chain (run, NULL);
}

/* the waits make @r exact (accel_test_assert_waits_matter ()), with stream
 * launches and in graph mode, where the waits come before each replay */
static void
assert_waits_matter (const Run *r, AccelDebugFlags skip)
{
  g_autofree gchar *host = host_digest (r);
  AccelCaptureMode modes[] = { ACCEL_CAPTURE_OFF, ACCEL_CAPTURE_AUTO };

  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      Run run = *r;

      run.capture = modes[m];
      g_test_message ("graph mode %s", m ? "auto" : "off");
      accel_test_assert_waits_matter (digest_of, &run, host, skip);
    }
}

/* a slow writer on one stream, a reader on another: exact only because
 * the reader's stream waits for the write event */
static void
test_read_after_write (void)
{
  Run r = { "1048576", "f32", 16, SLOW_NS };

  assert_waits_matter (&r, ACCEL_DEBUG_SKIP_READ_WAIT);
}

/* a slow reader and a one-buffer source pool: the source reuses the buffer
 * while the reader may still be reading; exact only because the writer's
 * stream waits for the reader's fence */
static void
test_write_after_read (void)
{
  Run r = { "1048576", "f32", 16, 0, SLOW_NS, 1 };

  assert_waits_matter (&r, ACCEL_DEBUG_SKIP_WRITE_WAIT);
}

/* with segments (the default) the source and the scale share a thread and
 * a stream and need no event between them; the sink stands alone (it hands
 * frames to the host), so the scale's output crosses to its stream: exact
 * only because the sink waits for the segment's write event */
static void
test_segment_boundary (void)
{
  Run r = { "1048576", "f32", 16, SLOW_NS };

  r.segments = TRUE;
  assert_waits_matter (&r, ACCEL_DEBUG_SKIP_READ_WAIT);
}

/* the partition: source and scale in one segment, drawn as one cluster;
 * the sink alone, with its reason */
static void
test_segment_partition (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("parts");
  g_autofree gchar *dot = NULL;

  accel_test_stage (g, "core.test-source", "src");
  accel_test_stage (g, "core.scale", "scale");
  accel_test_stage (g, "core.checksum-sink", "sink");
  g_assert_true (accel_graph_link (g, "src", "scale", &error));
  g_assert_true (accel_graph_link (g, "scale", "sink", &error));
  g_assert_true (accel_graph_prepare (g, &error));
  dot = accel_graph_to_dot (g);
  g_test_message ("%s", dot);
  g_assert_nonnull (strstr (dot, "subgraph \"cluster_src\""));
  g_assert_nonnull (strstr (dot, "own thread: hands frames to the host"));
  g_assert_null (strstr (dot, "cluster_sink"));
  g_assert_null (strstr (dot, "cluster_scale"));
}

static void
test_stream_policies (void)
{
  Run r = { "65536", "f32", 20, SLOW_NS / 4, SLOW_NS / 4, 2 };
  g_autofree gchar *host = host_digest (&r);
  AccelStreamPolicy policies[] = { ACCEL_STREAM_POLICY_PER_STAGE,
    ACCEL_STREAM_POLICY_SINGLE, ACCEL_STREAM_POLICY_POOLED };

  for (guint i = 0; i < G_N_ELEMENTS (policies); i++)
    {
      g_autofree gchar *d = NULL;
      r.policy = policies[i];
      d = run_chain (&r, NULL);
      g_assert_cmpstr (d, ==, host);
    }
}

/* co-located stages on streams of their own still need the engine's waits:
 * a slow writer read on another stream, a slow reader written after */
static void
test_one_thread_races (void)
{
  Run raw = { "1048576", "f32", 16, SLOW_NS };
  Run war = { "1048576", "f32", 16, 0, SLOW_NS, 1 };
  g_autofree gchar *host = NULL, *b = NULL;

  raw.thread = war.thread = "shared";
  host = host_digest (&raw);
  b = run_chain (&war, NULL);
  g_assert_cmpstr (b, ==, host);
  accel_test_assert_waits_matter (
      digest_of, &raw, host, ACCEL_DEBUG_SKIP_READ_WAIT);
}

static void
test_completion_modes (void)
{
  Run r = { "65536", "u8", 20, SLOW_NS / 4 };
  g_autofree gchar *host = host_digest (&r);
  AccelCompletion modes[] = { ACCEL_COMPLETION_POLL, ACCEL_COMPLETION_HOSTFN,
    ACCEL_COMPLETION_SYNC };

  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      g_autofree gchar *d = NULL;
      r.completion = modes[i];
      d = run_chain (&r, NULL);
      g_assert_cmpstr (d, ==, host);
    }
}

static void
test_inserted_copy (void)
{
  Run r = { "4096", "f32", 10 };
  g_autoptr (GPtrArray) notes = NULL;
  g_autofree gchar *host = host_digest (&r);
  g_autofree gchar *d = NULL;

  r.source_on_host = TRUE;
  d = run_chain (&r, &notes);
  g_assert_cmpstr (d, ==, host);
  g_assert_cmpuint (notes->len, ==, 1);
  g_assert_true (g_str_has_prefix (notes->pdata[0],
      "inserted a copy src.out->scale.in from device memory on host to "
      "device memory on "));
}

static void
test_stale_on_gpu (void)
{
  AccelDevice *dev = accel_device_get_default ();
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelStream) stream = accel_stream_new (dev, &error);
  g_autoptr (AccelBuffer) buf = NULL;
  AccelType t;

  g_assert_false (accel_device_is_host (dev));
  accel_type_init_bytes (&t, ACCEL_MEMORY_DEVICE, 1 << 20);
  buf = accel_buffer_new (dev, &t, &error);
  g_assert_no_error (error);
  g_assert_true (accel_buffer_acquire_write (buf, stream, &error));
  g_assert_true (accel_buffer_release_write (buf, stream, &error));
  g_assert_true (accel_buffer_get_last_write_stream (buf) == stream);
  g_assert_true (accel_buffer_release_read (buf, stream, &error));
  g_assert_cmpuint (accel_buffer_get_n_read_fences (buf), ==, 1);
  g_assert_true (accel_buffer_acquire_write (buf, stream, &error));
  g_assert_cmpuint (accel_buffer_get_n_read_fences (buf), ==, 0);

  accel_device_bump_generation (dev);
  g_assert_false (accel_buffer_acquire_read (buf, stream, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_STALE_BUFFER);
}

/* a pool's buffer starts its first frame zeroed on the GPU, though the
 * memory was freed dirty */
static void
test_buffers_start_zeroed (void)
{
  g_assert_cmpuint (
      test_blank_source_count_unzeroed (accel_device_get_default (), 12), ==,
      0);
}

/* an output larger than the GPU's memory fails the graph at once, naming
 * the device: cudaMalloc's out-of-memory there is no transient one to
 * retry (no message) or restart for */
static void
test_output_larger_than_memory (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("huge");
  AccelDevice *gpu = accel_device_get_default ();
  g_autofree gchar *want
      = g_strdup_printf ("bytes %s has", accel_device_get_name (gpu));
  AccelStage *src, *sink;

  src = accel_test_stage (g, "core.test-source", "src");
  sink = accel_test_stage (g, "core.null-sink", "sink");
  g_object_set (src, "shape", "65536x65536x64", "num-buffers", (gint64)1, NULL);
  g_assert_true (accel_graph_link (g, "src", "sink", &error));
  g_assert_false (accel_graph_run (g, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (error->message,
      "cannot allocate 1099511627776 bytes of device memory: more than the "));
  g_assert_nonnull (strstr (error->message, want));
  g_assert_cmpuint (accel_stage_get_n_processed (sink), ==, 0);
}

/* a real illegal address poisons the context: the stage escalates with
 * CONTEXT_POISONED, whatever its strategy (in a child: the context is gone) */
static void
test_illegal_address_poisons (void)
{
  if (accel_test_skip_under_sanitizer (ACCEL_TEST_FAULT_WHY))
    return;
  if (g_test_subprocess ())
    {
      Run r = { "4096", "f32", 10 };
      g_autoptr (GError) error = NULL;
      g_autoptr (AccelGraph) g = accel_graph_new ("poisoned");
      AccelStage *src, *scale;

      src = accel_test_stage (g, "core.test-source", "src");
      scale = accel_test_stage (g, "core.scale", "scale");
      accel_test_stage (g, "core.null-sink", "sink");
      g_object_set (src, "shape", r.shape, "num-buffers", r.frames, NULL);
      g_object_set (scale, "on-fault", ACCEL_SUPERVISION_RESUME, NULL);
      g_assert_true (accel_graph_link (g, "src", "scale", &error));
      g_assert_true (accel_graph_link (g, "scale", "sink", &error));
      accel_fault_inject ("scale", ACCEL_FAULT_ILLEGAL_ADDRESS, 3);
      g_assert_false (accel_graph_run (g, &error));
      g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_CONTEXT_POISONED);
      g_printerr ("%s\n", error->message);
      return;
    }
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, 0);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*stage 'scale'*cudaErrorIllegalAddress*");
}

/* the value of the one series @name in @text, or -1 */
static gint64
series_value (const char *text, const char *name)
{
  g_autofree gchar *pattern = g_strdup_printf ("\n%s{", name);
  const char *line = strstr (text, pattern);
  const char *value;

  if (!line || !(value = strstr (line, "} ")))
    return -1;
  return g_ascii_strtoll (value + 2, NULL, 10);
}

/* /metrics on a GPU: the device's memory in use and free, as the driver
 * sees it around the run, and its generation */
static void
test_device_metrics (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("metrics");
  AccelStage *src = accel_test_stage (g, "core.test-source", "src");
  g_autofree gchar *text = NULL;
  size_t free_before, free_after, total;
  gint64 used, free_bytes;

  accel_test_stage (g, "core.scale", "scale");
  accel_test_stage (g, "core.null-sink", "sink");
  g_object_set (src, "shape", "1048576", "num-buffers", (gint64)20, NULL);
  g_assert_true (accel_graph_link (g, "src", "scale", &error));
  g_assert_true (accel_graph_link (g, "scale", "sink", &error));
  g_assert_cmpint (cudaMemGetInfo (&free_before, &total), ==, cudaSuccess);
  g_assert_true (accel_graph_run (g, &error));
  text = accel_graph_metrics_to_prometheus (g);
  g_assert_cmpint (cudaMemGetInfo (&free_after, &total), ==, cudaSuccess);

  used = series_value (text, "accel_device_memory_used_bytes");
  free_bytes = series_value (text, "accel_device_memory_free_bytes");
  g_test_message ("used %" G_GINT64_FORMAT ", free %" G_GINT64_FORMAT
                  " of %zu bytes",
      used, free_bytes, total);
  g_assert_cmpint (used, >, 0);
  g_assert_cmpint (used + free_bytes, ==, (gint64)total);
  g_assert_cmpint (free_bytes, >=, (gint64)MIN (free_before, free_after));
  g_assert_cmpint (free_bytes, <=, (gint64)MAX (free_before, free_after));
  g_assert_cmpint (series_value (text, "accel_device_generation"), >=, 1);
}

/* test.copy-failer: copies its input on the frame's stream, a work a
 * segment captures, and fails the frame of sequence fail-at (a parameter)
 * there: set between two steps, its next frame is captured anew and fails
 * in the capture, then again in the batch's stream launches */
#define TEST_TYPE_COPY_FAILER (test_copy_failer_get_type ())
G_DECLARE_FINAL_TYPE (
    TestCopyFailer, test_copy_failer, TEST, COPY_FAILER, AccelStage)

struct _TestCopyFailer
{
  AccelStage parent;
  gint64 fail_at;
};
G_DEFINE_FINAL_TYPE (TestCopyFailer, test_copy_failer, ACCEL_TYPE_STAGE)

static AccelFlow
copy_failer_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelBuffer *in = frame->inputs[0], *out = frame->outputs[0];

  if ((gint64)frame->sequence == TEST_COPY_FAILER (stage)->fail_at)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT,
          "sequence %" G_GUINT64_FORMAT " is not welcome", frame->sequence);
      return ACCEL_FLOW_ERROR;
    }
  g_assert_cmpint (
      cudaMemcpyAsync (accel_buffer_get_data (out), accel_buffer_get_data (in),
          accel_buffer_get_size (in), cudaMemcpyDeviceToDevice,
          accel_stream_get_handle (frame->stream)),
      ==, cudaSuccess);
  return ACCEL_FLOW_OK;
}

static void
copy_failer_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  TEST_COPY_FAILER (object)->fail_at = g_value_get_int64 (value);
}

static void
copy_failer_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  g_value_set_int64 (value, TEST_COPY_FAILER (object)->fail_at);
}

static void
test_copy_failer_class_init (TestCopyFailerClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *sc = ACCEL_STAGE_CLASS (klass);
  AccelType any;

  gobject_class->set_property = copy_failer_set_property;
  gobject_class->get_property = copy_failer_get_property;
  g_object_class_install_property (gobject_class, 1,
      g_param_spec_int64 ("fail-at", "Fail at", "The sequence that fails", -1,
          G_MAXINT64, -1, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  sc->process = copy_failer_process;
  sc->can_capture = accel_stage_can_capture_always;
  accel_stage_class_set_metadata (
      sc, "test.copy-failer", "Copies, and fails the frame fail-at");
  accel_type_init_any (&any);
  accel_stage_class_add_port (sc, ACCEL_PORT_INPUT, "in", &any, NULL);
  accel_stage_class_add_port (sc, ACCEL_PORT_OUTPUT, "out", &any, NULL);
}

static void
test_copy_failer_init (TestCopyFailer *self)
{
  self->fail_at = -1;
}

/* a stepped graph whose frame fails inside a captured batch: the stages
 * after the failed one in the batch skip it too, and the sink below them
 * lost one frame, not one for each stage that said so (each step from the
 * next on returned before its frame reached the sink) */
static void
test_stepped_batch_fault (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("stepped-batch");
  AccelStage *src, *copy, *scale, *sink;

  src = accel_test_stage (g, "core.test-source", "src");
  copy = accel_test_stage (g, "test.copy-failer", "copy");
  scale = accel_test_stage (g, "core.scale", "scale");
  sink = accel_test_stage (g, "core.checksum-sink", "sink");
  g_object_set (src, "shape", "4096", "num-buffers", (gint64)8, NULL);
  g_object_set (copy, "on-fault", ACCEL_SUPERVISION_RESUME, NULL);
  g_assert_true (accel_graph_link (g, "src", "copy", &error));
  g_assert_true (accel_graph_link (g, "copy", "scale", &error));
  g_assert_true (accel_graph_link (g, "scale", "sink", &error));
  accel_graph_set_stepped (g, TRUE);
  g_assert_true (accel_graph_start (g, &error));
  for (guint i = 0; i < 8; i++)
    {
      /* frame 3 is the first after the change: it runs as it comes; 4 is
       * captured anew, and fails */
      if (i == 3)
        accel_test_set_param_async (copy, "fail-at", (gint64)4);
      g_assert_true (accel_graph_step (g, 10 * G_USEC_PER_SEC, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (
          accel_stage_get_n_processed (sink), ==, i < 4 ? i + 1 : i);
    }
  g_assert_cmpuint (accel_stage_get_n_skipped (copy), ==, 1);
  /* the proof that the frame failed in a batch */
  g_assert_cmpuint (accel_stage_get_n_skipped (scale), ==, 1);
  g_assert_false (accel_graph_step (g, 10 * G_USEC_PER_SEC, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED);
  g_clear_error (&error);
  g_assert_true (accel_graph_wait (g, -1, &error));
  g_assert_no_error (error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  accel_test_require_gpu ();
  test_stages_register ();
  accel_registry_register (
      accel_registry_get_default (), TEST_TYPE_COPY_FAILER);
  g_test_add_func ("/gpu/scale-equals-host", test_gpu_equals_host);
  g_test_add_func ("/gpu/read-after-write", test_read_after_write);
  g_test_add_func ("/gpu/write-after-read", test_write_after_read);
  g_test_add_func ("/gpu/stream-policies", test_stream_policies);
  g_test_add_func ("/gpu/segment-boundary", test_segment_boundary);
  g_test_add_func ("/gpu/segment-partition", test_segment_partition);
  g_test_add_func ("/gpu/completion-modes", test_completion_modes);
  g_test_add_func ("/gpu/one-thread-races", test_one_thread_races);
  g_test_add_func ("/gpu/buffers-start-zeroed", test_buffers_start_zeroed);
  g_test_add_func (
      "/gpu/illegal-address-poisons", test_illegal_address_poisons);
  g_test_add_func ("/gpu/inserted-copy", test_inserted_copy);
  g_test_add_func ("/gpu/stale-generation", test_stale_on_gpu);
  g_test_add_func ("/gpu/device-metrics", test_device_metrics);
  g_test_add_func ("/gpu/stepped-batch-fault", test_stepped_batch_fault);
  g_test_add_func (
      "/gpu/output-larger-than-memory", test_output_larger_than_memory);
  return g_test_run ();
}
