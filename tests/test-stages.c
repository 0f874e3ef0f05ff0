/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stage kinds that exist only in the tests */
#include "test-stages.h"

#include <cuda_runtime_api.h>
#include <string.h>

/* test.image-sink: accepts RGBA8 images only */
struct _TestImageSink
{
  AccelStage parent;
};
G_DEFINE_FINAL_TYPE (TestImageSink, test_image_sink, ACCEL_TYPE_STAGE)

static AccelFlow
image_sink_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  return ACCEL_FLOW_OK;
}

static void
test_image_sink_class_init (TestImageSinkClass *klass)
{
  AccelStageClass *sc = ACCEL_STAGE_CLASS (klass);
  AccelType in;

  sc->process = image_sink_process;
  accel_stage_class_set_metadata (sc, "test.image-sink", "RGBA8 images only");
  accel_type_init_image (
      &in, ACCEL_FORMAT_RGBA8, ACCEL_MEMORY_ANY, ACCEL_DIM_ANY, ACCEL_DIM_ANY);
  accel_stage_class_add_port (sc, ACCEL_PORT_INPUT, "frames", &in, NULL);
}

static void
test_image_sink_init (TestImageSink *self)
{
}

/* test.pair-sink: two inputs, records the sequences it was given together */
struct _TestPairSink
{
  AccelStage parent;
  GMutex lock;
  GArray *pairs;
};
G_DEFINE_FINAL_TYPE (TestPairSink, test_pair_sink, ACCEL_TYPE_STAGE)

static AccelFlow
pair_sink_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  TestPairSink *self = TEST_PAIR_SINK (stage);
  guint64 pair[2] = {
    accel_buffer_get_sequence (frame->inputs[0]),
    accel_buffer_get_sequence (frame->inputs[1]),
  };

  g_mutex_lock (&self->lock);
  g_array_append_vals (self->pairs, pair, 2);
  g_mutex_unlock (&self->lock);
  return ACCEL_FLOW_OK;
}

GArray *
test_pair_sink_get_pairs (TestPairSink *sink)
{
  GArray *copy;

  g_mutex_lock (&sink->lock);
  copy = g_array_copy (sink->pairs);
  g_mutex_unlock (&sink->lock);
  return copy;
}

static void
pair_sink_finalize (GObject *object)
{
  TestPairSink *self = TEST_PAIR_SINK (object);

  g_array_unref (self->pairs);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (test_pair_sink_parent_class)->finalize (object);
}

static void
test_pair_sink_class_init (TestPairSinkClass *klass)
{
  AccelStageClass *sc = ACCEL_STAGE_CLASS (klass);
  AccelType in;

  G_OBJECT_CLASS (klass)->finalize = pair_sink_finalize;
  sc->process = pair_sink_process;
  accel_stage_class_set_metadata (sc, "test.pair-sink", "Two inputs");
  accel_type_init_any (&in);
  accel_stage_class_add_port (sc, ACCEL_PORT_INPUT, "a", &in, NULL);
  accel_stage_class_add_port (sc, ACCEL_PORT_INPUT, "b", &in, NULL);
}

static void
test_pair_sink_init (TestPairSink *self)
{
  g_mutex_init (&self->lock);
  self->pairs = g_array_new (FALSE, FALSE, sizeof (guint64));
}

/* test.slow-sink: its host part takes 2 ms per buffer */
struct _TestSlowSink
{
  AccelStage parent;
};
G_DEFINE_FINAL_TYPE (TestSlowSink, test_slow_sink, ACCEL_TYPE_STAGE)

static AccelFlow
slow_sink_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  return ACCEL_FLOW_OK;
}

static AccelFlow
slow_sink_render (AccelStage *stage, AccelFrame *frame, GError **error)
{
  g_usleep (2000);
  return ACCEL_FLOW_OK;
}

static void
test_slow_sink_class_init (TestSlowSinkClass *klass)
{
  AccelStageClass *sc = ACCEL_STAGE_CLASS (klass);
  AccelType in;

  sc->process = slow_sink_process;
  sc->render = slow_sink_render;
  accel_stage_class_set_metadata (sc, "test.slow-sink", "2 ms per buffer");
  accel_type_init_any (&in);
  accel_stage_class_add_port (sc, ACCEL_PORT_INPUT, "in", &in, NULL);
}

static void
test_slow_sink_init (TestSlowSink *self)
{
}

/* test.render-failer: a sink whose host part fails frame 2, saying why
 * or, with "silent", not; with "file-error", with an error of another
 * domain (G_FILE_ERROR_NOSPC) */
struct _TestRenderFailer
{
  AccelStage parent;
  gboolean silent, file_error;
};
G_DEFINE_FINAL_TYPE (TestRenderFailer, test_render_failer, ACCEL_TYPE_STAGE)

static AccelFlow
render_failer_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  return ACCEL_FLOW_OK;
}

static AccelFlow
render_failer_render (AccelStage *stage, AccelFrame *frame, GError **error)
{
  if (frame->sequence != 2)
    return ACCEL_FLOW_OK;
  if (TEST_RENDER_FAILER (stage)->file_error)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOSPC,
        "no room for frame %" G_GUINT64_FORMAT, frame->sequence);
  else if (!TEST_RENDER_FAILER (stage)->silent)
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT,
        "render refuses frame %" G_GUINT64_FORMAT, frame->sequence);
  return ACCEL_FLOW_ERROR;
}

static void
render_failer_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  TestRenderFailer *self = TEST_RENDER_FAILER (object);

  if (prop_id == 1)
    self->silent = g_value_get_boolean (value);
  else
    self->file_error = g_value_get_boolean (value);
}

static void
render_failer_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  TestRenderFailer *self = TEST_RENDER_FAILER (object);

  g_value_set_boolean (value, prop_id == 1 ? self->silent : self->file_error);
}

static void
test_render_failer_class_init (TestRenderFailerClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *sc = ACCEL_STAGE_CLASS (klass);
  AccelType in;

  gobject_class->set_property = render_failer_set_property;
  gobject_class->get_property = render_failer_get_property;
  g_object_class_install_property (gobject_class, 1,
      g_param_spec_boolean ("silent", "Silent",
          "Fail without setting the error", FALSE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, 2,
      g_param_spec_boolean ("file-error", "File error",
          "Fail with G_FILE_ERROR_NOSPC", FALSE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  sc->process = render_failer_process;
  sc->render = render_failer_render;
  accel_stage_class_set_metadata (
      sc, "test.render-failer", "Its host part fails frame 2");
  accel_type_init_any (&in);
  accel_stage_class_add_port (sc, ACCEL_PORT_INPUT, "in", &in, NULL);
}

static void
test_render_failer_init (TestRenderFailer *self)
{
}

/* test.failer: passes buffers on, fails at sequence 3 */
struct _TestFailer
{
  AccelStage parent;
};
G_DEFINE_FINAL_TYPE (TestFailer, test_failer, ACCEL_TYPE_STAGE)

static AccelFlow
failer_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  if (frame->sequence == 3)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT,
          "sequence %" G_GUINT64_FORMAT " is not welcome", frame->sequence);
      return ACCEL_FLOW_ERROR;
    }
  return ACCEL_FLOW_SKIP;
}

static void
test_failer_class_init (TestFailerClass *klass)
{
  AccelStageClass *sc = ACCEL_STAGE_CLASS (klass);
  AccelType any;

  sc->process = failer_process;
  accel_stage_class_set_metadata (sc, "test.failer", "Fails at sequence 3");
  accel_type_init_any (&any);
  accel_stage_class_add_port (sc, ACCEL_PORT_INPUT, "in", &any, NULL);
  accel_stage_class_add_port (sc, ACCEL_PORT_OUTPUT, "out", &any, NULL);
}

static void
test_failer_init (TestFailer *self)
{
}

/* test.misbehaver: passes frames on, but at sequence 2 (or from 2 on,
 * with "every") returns "flow" from process (), with an error set when
 * "set-error" is: the mistakes of a stage's author, or faults that come
 * "sleep-ms" apart */
struct _TestMisbehaver
{
  AccelStage parent;
  gint flow;
  gboolean set_error;
  gboolean every;
  gint sleep_ms;
};
G_DEFINE_FINAL_TYPE (TestMisbehaver, test_misbehaver, ACCEL_TYPE_STAGE)

static AccelFlow
misbehaver_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  TestMisbehaver *self = TEST_MISBEHAVER (stage);

  g_usleep ((gulong)self->sleep_ms * 1000);
  if (frame->sequence < 2 || (frame->sequence > 2 && !self->every))
    return ACCEL_FLOW_OK;
  if (self->set_error)
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT,
        "frame %" G_GUINT64_FORMAT " is odd", frame->sequence);
  return (AccelFlow)self->flow;
}

static void
misbehaver_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  TestMisbehaver *self = TEST_MISBEHAVER (object);

  if (prop_id == 1)
    self->flow = g_value_get_int (value);
  else if (prop_id == 2)
    self->set_error = g_value_get_boolean (value);
  else if (prop_id == 3)
    self->every = g_value_get_boolean (value);
  else
    self->sleep_ms = g_value_get_int (value);
}

static void
misbehaver_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  TestMisbehaver *self = TEST_MISBEHAVER (object);

  if (prop_id == 1)
    g_value_set_int (value, self->flow);
  else if (prop_id == 2)
    g_value_set_boolean (value, self->set_error);
  else if (prop_id == 3)
    g_value_set_boolean (value, self->every);
  else
    g_value_set_int (value, self->sleep_ms);
}

static void
test_misbehaver_class_init (TestMisbehaverClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *sc = ACCEL_STAGE_CLASS (klass);
  AccelType any;

  gobject_class->set_property = misbehaver_set_property;
  gobject_class->get_property = misbehaver_get_property;
  g_object_class_install_property (gobject_class, 1,
      g_param_spec_int ("flow", "Flow", "What frame 2's process () returns",
          G_MININT, G_MAXINT, ACCEL_FLOW_OK,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, 2,
      g_param_spec_boolean ("set-error", "Set error",
          "Whether frame 2's process () sets an error", FALSE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, 3,
      g_param_spec_boolean ("every", "Every",
          "Whether every frame from 2 on does as frame 2", FALSE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, 4,
      g_param_spec_int ("sleep-ms", "Sleep", "How long each frame takes", 0,
          10000, 0, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  sc->process = misbehaver_process;
  accel_stage_class_set_metadata (
      sc, "test.misbehaver", "Returns what it is told at sequence 2");
  accel_type_init_any (&any);
  accel_stage_class_add_port (sc, ACCEL_PORT_INPUT, "in", &any, NULL);
  accel_stage_class_add_port (sc, ACCEL_PORT_OUTPUT, "out", &any, NULL);
}

static void
test_misbehaver_init (TestMisbehaver *self)
{
}

/* test.skip-sink: takes the even frames and withholds the odd ones
 * (ACCEL_FLOW_SKIP) */
struct _TestSkipSink
{
  AccelStage parent;
};
G_DEFINE_FINAL_TYPE (TestSkipSink, test_skip_sink, ACCEL_TYPE_STAGE)

static AccelFlow
skip_sink_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  return frame->sequence % 2 ? ACCEL_FLOW_SKIP : ACCEL_FLOW_OK;
}

static void
test_skip_sink_class_init (TestSkipSinkClass *klass)
{
  AccelStageClass *sc = ACCEL_STAGE_CLASS (klass);
  AccelType any;

  sc->process = skip_sink_process;
  accel_stage_class_set_metadata (
      sc, "test.skip-sink", "Withholds the odd frames");
  accel_type_init_any (&any);
  accel_stage_class_add_port (sc, ACCEL_PORT_INPUT, "in", &any, NULL);
}

static void
test_skip_sink_init (TestSkipSink *self)
{
}

/* test.counter: stateful; copies its input and writes the number of frames
 * it has seen (mod 256) into the first byte, so its output depends on its
 * state and a restart without that state shows */
struct _TestCounter
{
  AccelStage parent;
  guint64 count;
};
G_DEFINE_FINAL_TYPE (TestCounter, test_counter, ACCEL_TYPE_STAGE)

static AccelFlow
counter_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  TestCounter *self = TEST_COUNTER (stage);
  AccelBuffer *in = frame->inputs[0], *out = frame->outputs[0];
  guint8 mark = (guint8)(self->count++ & 0xff);

  if (accel_stage_is_host (stage))
    {
      memcpy (accel_buffer_get_data (out), accel_buffer_get_data (in),
          accel_buffer_get_size (in));
      *(guint8 *)accel_buffer_get_data (out) = mark;
      return ACCEL_FLOW_OK;
    }
  if (!accel_cuda_check (
          cudaMemcpyAsync (accel_buffer_get_data (out),
              accel_buffer_get_data (in), accel_buffer_get_size (in),
              cudaMemcpyDefault, accel_stream_get_handle (frame->stream)),
          error)
      || !accel_cuda_check (cudaMemsetAsync (accel_buffer_get_data (out), mark,
                                1, accel_stream_get_handle (frame->stream)),
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static GBytes *
counter_snapshot (AccelStage *stage)
{
  return g_bytes_new (&TEST_COUNTER (stage)->count, sizeof (guint64));
}

static gboolean
counter_restore (AccelStage *stage, GBytes *state, GError **error)
{
  gsize len;
  const guint64 *count = g_bytes_get_data (state, &len);

  if (len != sizeof (guint64))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED, "bad state");
      return FALSE;
    }
  TEST_COUNTER (stage)->count = *count;
  return TRUE;
}

static void
test_counter_class_init (TestCounterClass *klass)
{
  AccelStageClass *sc = ACCEL_STAGE_CLASS (klass);
  AccelType any;

  sc->process = counter_process;
  sc->snapshot = counter_snapshot;
  sc->restore = counter_restore;
  accel_stage_class_set_metadata (sc, "test.counter", "Counts frames");
  accel_type_init_any (&any);
  accel_stage_class_add_port (sc, ACCEL_PORT_INPUT, "in", &any, NULL);
  accel_stage_class_add_port (sc, ACCEL_PORT_OUTPUT, "out", &any, NULL);
}

static void
test_counter_init (TestCounter *self)
{
}

/* test.live-source: f32 [512] frames whose bytes are the number of frames
 * this process has produced (mod 256), not a function of the sequence: as a
 * camera, it cannot produce a frame again */
struct _TestLiveSource
{
  AccelStage parent;
  guint64 count;
  guint64 num_buffers;
};
G_DEFINE_FINAL_TYPE (TestLiveSource, test_live_source, ACCEL_TYPE_STAGE)

void
test_live_source_set_num_buffers (TestLiveSource *self, guint64 n)
{
  self->num_buffers = n;
}

static AccelFlow
live_source_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  TestLiveSource *self = TEST_LIVE_SOURCE (stage);
  AccelBuffer *out = frame->outputs[0];
  int mark = (int)(self->count++ & 0xff);

  if (frame->sequence >= self->num_buffers)
    return ACCEL_FLOW_EOS;
  if (accel_stage_is_host (stage))
    {
      memset (accel_buffer_get_data (out), mark, accel_buffer_get_size (out));
      return ACCEL_FLOW_OK;
    }
  if (!accel_cuda_check (cudaMemsetAsync (accel_buffer_get_data (out), mark,
                             accel_buffer_get_size (out),
                             accel_stream_get_handle (frame->stream)),
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

/* the sources' output: f32 [512] frames in device memory */
static void
add_frames_output (AccelStageClass *sc)
{
  AccelType out;
  gint64 n = 512;

  accel_type_init_tensor (&out, ACCEL_DTYPE_F32, ACCEL_MEMORY_DEVICE, 1, &n);
  accel_stage_class_add_port (sc, ACCEL_PORT_OUTPUT, "out", &out, NULL);
}

static void
test_live_source_class_init (TestLiveSourceClass *klass)
{
  AccelStageClass *sc = ACCEL_STAGE_CLASS (klass);

  sc->process = live_source_process;
  accel_stage_class_set_metadata (sc, "test.live-source", "A live source");
  accel_stage_class_set_live (sc, TRUE);
  add_frames_output (sc);
}

static void
test_live_source_init (TestLiveSource *self)
{
  self->num_buffers = G_MAXUINT64;
}

/* test.blank-source: f32 [512] frames it never writes; it counts those
 * whose bytes were not all zero when it had them */
struct _TestBlankSource
{
  AccelStage parent;
  guint num_buffers;
  guint n_unzeroed;
};
G_DEFINE_FINAL_TYPE (TestBlankSource, test_blank_source, ACCEL_TYPE_STAGE)

static AccelFlow
blank_source_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  TestBlankSource *self = TEST_BLANK_SOURCE (stage);
  AccelBuffer *out = frame->outputs[0];
  gsize size = accel_buffer_get_size (out);
  g_autofree guint8 *bytes = g_malloc (size);
  g_autofree guint8 *zeros = g_malloc0 (size);

  if (frame->sequence >= self->num_buffers)
    return ACCEL_FLOW_EOS;
  if (accel_stage_is_host (stage))
    memcpy (bytes, accel_buffer_get_data (out), size);
  else if (!accel_cuda_check (
               cudaMemcpyAsync (bytes, accel_buffer_get_data (out), size,
                   cudaMemcpyDeviceToHost,
                   accel_stream_get_handle (frame->stream)),
               error)
           || !accel_stream_synchronize (frame->stream, error))
    return ACCEL_FLOW_ERROR;
  if (memcmp (bytes, zeros, size) != 0)
    self->n_unzeroed++;
  return ACCEL_FLOW_OK;
}

static void
test_blank_source_class_init (TestBlankSourceClass *klass)
{
  AccelStageClass *sc = ACCEL_STAGE_CLASS (klass);

  sc->process = blank_source_process;
  accel_stage_class_set_metadata (
      sc, "test.blank-source", "Frames it never writes");
  add_frames_output (sc);
}

static void
test_blank_source_init (TestBlankSource *self)
{
}

guint
test_blank_source_count_unzeroed (AccelDevice *device, guint frames)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) graph = accel_graph_new ("blank");
  g_autoptr (AccelStage) src = NULL;
  g_autoptr (AccelStage) sink = NULL;
  AccelType t;

  /* memory freed dirty, which the pool's allocations are likely to get */
  accel_type_init_bytes (&t, ACCEL_MEMORY_DEVICE, 512 * sizeof (float));
  for (guint i = 0; i < 2 * frames; i++)
    {
      AccelBuffer *buf = accel_buffer_new (device, &t, &error);

      g_assert_no_error (error);
      if (accel_device_is_host (device))
        memset (accel_buffer_get_data (buf), 0xab, accel_buffer_get_size (buf));
      else
        g_assert_cmpint (cudaMemset (accel_buffer_get_data (buf), 0xab,
                             accel_buffer_get_size (buf)),
            ==, cudaSuccess);
      accel_buffer_unref (buf);
    }
  if (!accel_device_is_host (device))
    g_assert_cmpint (cudaDeviceSynchronize (), ==, cudaSuccess);
  src = accel_stage_new ("test.blank-source", "src", &error);
  g_assert_no_error (error);
  sink = accel_stage_new ("core.null-sink", "sink", &error);
  g_assert_no_error (error);
  TEST_BLANK_SOURCE (src)->num_buffers = frames;
  accel_graph_set_device (graph, device);
  g_assert_true (accel_graph_add (graph, src, &error));
  g_assert_true (accel_graph_add (graph, sink, &error));
  g_assert_true (accel_graph_link (graph, "src", "sink", &error));
  g_assert_true (accel_graph_run (graph, &error));
  g_assert_no_error (error);
  return TEST_BLANK_SOURCE (src)->n_unzeroed;
}

void
test_stages_register (void)
{
  AccelRegistry *registry = accel_registry_get_default ();

  accel_registry_register (registry, TEST_TYPE_IMAGE_SINK);
  accel_registry_register (registry, TEST_TYPE_PAIR_SINK);
  accel_registry_register (registry, TEST_TYPE_SLOW_SINK);
  accel_registry_register (registry, TEST_TYPE_FAILER);
  accel_registry_register (registry, TEST_TYPE_MISBEHAVER);
  accel_registry_register (registry, TEST_TYPE_SKIP_SINK);
  accel_registry_register (registry, TEST_TYPE_RENDER_FAILER);
  accel_registry_register (registry, TEST_TYPE_COUNTER);
  accel_registry_register (registry, TEST_TYPE_LIVE_SOURCE);
  accel_registry_register (registry, TEST_TYPE_BLANK_SOURCE);
}
