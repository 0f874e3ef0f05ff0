/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stages on two GPUs of one process: the copies the engine inserts between
 * them (peer to peer where the pair allows it) give the host's bytes in
 * both directions and there and back; the waits on both devices are what
 * makes that exact (skipping them must break it); a YAML pipeline placed
 * round-robin spreads its stages over both GPUs with the same result.
 * Needs two GPUs (exits 77 with fewer). */
#include "accel-test.h"

/* 2 ms: far longer than launching the next stage's work */
#define SLOW_NS G_GUINT64_CONSTANT (2000000)

typedef struct
{
  const char *shape;
  const char *dtype;
  gint64 frames;
  gint src_dev, scale_dev, back_dev; /* GPUs; back_dev -1: no back stage */
  guint64 writer_spin_ns;            /* source's fill waits this long */
  guint64 reader_spin_ns;            /* the scale waits before reading */
  gboolean host;                     /* every stage on the host backend */
} Run;

static AccelDevice *
cuda (gint index)
{
  g_autoptr (GError) error = NULL;
  AccelDevice *dev = accel_device_get_cuda (index, &error);

  g_assert_no_error (error);
  return dev;
}

static void
place (AccelStage *stage, const Run *r, gint index)
{
  g_object_set (
      stage, "device", r->host ? accel_device_get_host () : cuda (index), NULL);
}

/* src -> scale [-> back] -> checksum-sink, each stage on its own thread and
 * stream, the sink on the last stage's GPU; returns the sink's digest and
 * the number of copies the engine inserted */
static gchar *
run_chain (const Run *r, guint *n_copies)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("two-gpus");
  AccelStage *src, *scale, *back = NULL, *sink;
  GPtrArray *notes;

  accel_graph_set_segments (g, FALSE);
  accel_graph_set_capture_mode (g, ACCEL_CAPTURE_OFF);
  src = accel_test_stage (g, "core.test-source", "src");
  scale = accel_test_stage (g, "core.scale", "scale");
  if (r->back_dev >= 0)
    back = accel_test_stage (g, "core.scale", "back");
  sink = accel_test_stage (g, "core.checksum-sink", "sink");
  g_object_set (src, "shape", r->shape, "dtype", r->dtype, "num-buffers",
      r->frames, "spin-ns", r->writer_spin_ns, NULL);
  g_object_set (scale, "scale", 3.0f, "offset", -2.0f, "spin-ns",
      r->reader_spin_ns, NULL);
  place (src, r, r->src_dev);
  place (scale, r, r->scale_dev);
  place (sink, r, back ? r->back_dev : r->scale_dev);
  if (back)
    {
      g_object_set (back, "scale", 0.5f, "offset", 1.0f, NULL);
      place (back, r, r->back_dev);
    }
  g_assert_true (accel_graph_link (g, "src", "scale", &error));
  g_assert_true (accel_graph_link (g, "scale", back ? "back" : "sink", &error));
  if (back)
    g_assert_true (accel_graph_link (g, "back", "sink", &error));

  g_assert_true (accel_graph_run (g, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (
      accel_checksum_sink_get_n_received (sink), ==, (guint64)r->frames);
  notes = accel_graph_get_notes (g);
  *n_copies = 0;
  for (guint i = 0; i < notes->len; i++)
    {
      g_test_message ("%s", (char *)notes->pdata[i]);
      *n_copies += g_str_has_prefix (notes->pdata[i], "inserted a copy");
    }
  return accel_checksum_sink_dup_digest (sink);
}

static gchar *
host_digest (const Run *r)
{
  Run h = *r;
  guint n;

  h.host = TRUE;
  return run_chain (&h, &n);
}

/* GPU 0 to GPU 1, GPU 1 to GPU 0, and GPU 0 to 1 and back to 0: the host's
 * bytes, with a copy per crossing */
static void
test_crossings (void)
{
  const char *shapes[] = { "7x3", "1921x1079" };
  const char *dtypes[] = { "f32", "u8" };
  const struct
  {
    gint src, scale, back;
    guint copies;
  } ways[] = { { 0, 1, -1, 1 }, { 1, 0, -1, 1 }, { 0, 1, 0, 2 } };

  g_test_message ("GPU 0 %s GPU 1's memory directly, GPU 1 %s GPU 0's",
      accel_device_can_access_peer (cuda (0), cuda (1)) ? "reads"
                                                        : "cannot read",
      accel_device_can_access_peer (cuda (1), cuda (0)) ? "reads"
                                                        : "cannot read");
  for (guint s = 0; s < G_N_ELEMENTS (shapes); s++)
    for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
      for (guint w = 0; w < G_N_ELEMENTS (ways); w++)
        {
          Run r = { shapes[s], dtypes[d], 12, ways[w].src, ways[w].scale,
            ways[w].back };
          g_autofree gchar *host = host_digest (&r);
          g_autofree gchar *gpu = NULL;
          guint n_copies;

          gpu = run_chain (&r, &n_copies);
          g_test_message ("%s %s GPU %d -> %d -> %d: %s", shapes[s], dtypes[d],
              r.src_dev, r.scale_dev, r.back_dev, gpu);
          g_assert_cmpstr (gpu, ==, host);
          g_assert_cmpuint (n_copies, ==, ways[w].copies);
        }
}

static gchar *
digest_of (gconstpointer run)
{
  guint n;

  return run_chain (run, &n);
}

/* the waits on both devices make @r exact
 * (accel_test_assert_waits_matter ()) */
static void
assert_waits_matter (const Run *r, AccelDebugFlags skip)
{
  g_autofree gchar *host = host_digest (r);

  accel_test_assert_waits_matter (digest_of, r, host, skip);
}

/* a slow writer on GPU 0: the copy to GPU 1 is exact only because its
 * stream waits for the writer's event on the other device */
static void
test_read_after_write (void)
{
  Run r = { "1048576", "f32", 16, 0, 1, -1, SLOW_NS };

  assert_waits_matter (&r, ACCEL_DEBUG_SKIP_READ_WAIT);
}

/* a slow reader on GPU 1 behind the copy from GPU 0: the copy runs ahead
 * and writes its pool's buffers again, exact only because it waits for
 * the reader's fence */
static void
test_write_after_read (void)
{
  Run r = { "1048576", "f32", 16, 0, 1, -1, 0, SLOW_NS };

  assert_waits_matter (&r, ACCEL_DEBUG_SKIP_WRITE_WAIT);
}

/* a YAML pipeline with placement round-robin: its stages land on both
 * GPUs, and its output is the one of the same file on GPU 0 alone */
static void
test_round_robin (void)
{
  static const char yaml[]
      = "pipeline: spread\n"
        "placement: %s\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, params: {shape: \"256x256\", "
        "num-buffers: 30}}\n"
        "  - {name: a, kind: core.scale, params: {scale: 2, offset: 1}}\n"
        "  - {name: b, kind: core.scale, params: {scale: 0.25, offset: -3}}\n"
        "  - {name: c, kind: core.scale, params: {scale: 5}}\n"
        "  - {name: sink, kind: core.checksum-sink}\n"
        "links:\n"
        "  - src -> a -> b -> c -> sink\n";
  const char *policies[] = { "first", "round-robin" };
  g_autofree gchar *digests[2] = { NULL, NULL };

  for (guint p = 0; p < G_N_ELEMENTS (policies); p++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree gchar *text = g_strdup_printf (yaml, policies[p]);
      g_autoptr (AccelGraph) g
          = accel_graph_new_from_yaml_string (text, "spread.yaml", &error);
      GPtrArray *stages;
      guint on[2] = { 0, 0 };

      g_assert_no_error (error);
      g_assert_true (accel_graph_run (g, &error));
      g_assert_no_error (error);
      stages = accel_graph_get_stages (g);
      for (guint i = 0; i < stages->len; i++)
        {
          AccelDevice *dev = accel_stage_get_device (stages->pdata[i]);
          if (dev == cuda (0))
            on[0]++;
          else if (dev == cuda (1))
            on[1]++;
        }
      g_test_message (
          "%s: %u stages on GPU 0, %u on GPU 1", policies[p], on[0], on[1]);
      if (p == 0)
        g_assert_cmpuint (on[1], ==, 0);
      else
        g_assert_cmpuint (on[1], >, 0);
      digests[p]
          = accel_checksum_sink_dup_digest (accel_graph_get_stage (g, "sink"));
    }
  g_assert_cmpstr (digests[1], ==, digests[0]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  accel_test_require_gpu ();
  if (accel_device_get_n_cuda () < 2)
    {
      g_print ("one GPU: skipping\n");
      return ACCEL_TEST_SKIP;
    }
  g_test_add_func ("/multi-gpu/crossings", test_crossings);
  g_test_add_func ("/multi-gpu/read-after-write", test_read_after_write);
  g_test_add_func ("/multi-gpu/write-after-read", test_write_after_read);
  g_test_add_func ("/multi-gpu/round-robin", test_round_robin);
  return g_test_run ();
}
