/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stage kinds of the plugin tests: a source of given host tensors and a
 * sink that keeps what it receives */
#include <cuda_runtime_api.h>
#include <string.h>

#include "accel-test.h"
#include "tensor-io.h"

/* test.tensor-source */

struct _TestTensorSource
{
  AccelStage parent;

  AccelType type;
  GPtrArray *frames; /* GBytes */
};

G_DEFINE_FINAL_TYPE (TestTensorSource, test_tensor_source, ACCEL_TYPE_STAGE)

void
test_tensor_source_set_type (TestTensorSource *source, const AccelType *type)
{
  source->type = *type;
  source->type.memory = ACCEL_MEMORY_DEVICE;
}

void
test_tensor_source_push (TestTensorSource *source, GBytes *data)
{
  g_ptr_array_add (source->frames, g_bytes_ref (data));
}

static gboolean
tensor_source_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  out_types[0] = TEST_TENSOR_SOURCE (stage)->type;
  return TRUE;
}

static AccelFlow
tensor_source_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  TestTensorSource *self = TEST_TENSOR_SOURCE (stage);
  gpointer out = accel_buffer_get_data (frame->outputs[0]);
  gsize size = accel_buffer_get_size (frame->outputs[0]);
  GBytes *data;

  if (frame->sequence >= self->frames->len)
    return ACCEL_FLOW_EOS;
  data = self->frames->pdata[frame->sequence];
  g_assert_cmpuint (g_bytes_get_size (data), ==, size);
  if (accel_stage_is_host (stage))
    {
      memcpy (out, g_bytes_get_data (data, NULL), size);
      return ACCEL_FLOW_OK;
    }
  if (!accel_cuda_check (
          cudaMemcpyAsync (out, g_bytes_get_data (data, NULL), size,
              cudaMemcpyHostToDevice, accel_stream_get_handle (frame->stream)),
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
tensor_source_finalize (GObject *object)
{
  g_ptr_array_unref (TEST_TENSOR_SOURCE (object)->frames);
  G_OBJECT_CLASS (test_tensor_source_parent_class)->finalize (object);
}

static void
test_tensor_source_class_init (TestTensorSourceClass *klass)
{
  AccelStageClass *sc = ACCEL_STAGE_CLASS (klass);
  AccelType out;

  G_OBJECT_CLASS (klass)->finalize = tensor_source_finalize;
  sc->negotiate = tensor_source_negotiate;
  sc->process = tensor_source_process;
  accel_stage_class_set_metadata (
      sc, "test.tensor-source", "Given host tensors, one per frame");
  accel_type_init_tensor (
      &out, ACCEL_DTYPE_ANY, ACCEL_MEMORY_DEVICE, ACCEL_RANK_ANY, NULL);
  accel_stage_class_add_port (sc, ACCEL_PORT_OUTPUT, "out", &out, NULL);
}

static void
test_tensor_source_init (TestTensorSource *self)
{
  self->frames = g_ptr_array_new_with_free_func ((GDestroyNotify)g_bytes_unref);
}

/* test.tensor-sink */

struct _TestTensorSink
{
  AccelStage parent;

  GMutex lock;
  GPtrArray *frames; /* GBytes */
  GArray *sequences;
  gpointer staging; /* the copy of the pending frame (GPU) */
};

G_DEFINE_FINAL_TYPE (TestTensorSink, test_tensor_sink, ACCEL_TYPE_STAGE)

static AccelFlow
tensor_sink_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  TestTensorSink *self = TEST_TENSOR_SINK (stage);
  AccelBuffer *in = frame->inputs[0];

  if (accel_stage_is_host (stage))
    return ACCEL_FLOW_OK;
  g_free (self->staging);
  self->staging = g_malloc (accel_buffer_get_size (in));
  if (!accel_cuda_check (
          cudaMemcpyAsync (self->staging, accel_buffer_get_data (in),
              accel_buffer_get_size (in), cudaMemcpyDefault,
              accel_stream_get_handle (frame->stream)),
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static AccelFlow
tensor_sink_render (AccelStage *stage, AccelFrame *frame, GError **error)
{
  TestTensorSink *self = TEST_TENSOR_SINK (stage);
  AccelBuffer *in = frame->inputs[0];
  GBytes *bytes;

  if (self->staging)
    bytes = g_bytes_new_take (
        g_steal_pointer (&self->staging), accel_buffer_get_size (in));
  else
    bytes
        = g_bytes_new (accel_buffer_get_data (in), accel_buffer_get_size (in));
  g_mutex_lock (&self->lock);
  g_ptr_array_add (self->frames, bytes);
  g_array_append_val (self->sequences, frame->sequence);
  g_mutex_unlock (&self->lock);
  return ACCEL_FLOW_OK;
}

static void
tensor_sink_stop (AccelStage *stage)
{
  g_clear_pointer (&TEST_TENSOR_SINK (stage)->staging, g_free);
}

GPtrArray *
test_tensor_sink_get_frames (TestTensorSink *sink)
{
  GPtrArray *copy;

  copy = g_ptr_array_new_with_free_func ((GDestroyNotify)g_bytes_unref);
  g_mutex_lock (&sink->lock);
  for (guint i = 0; i < sink->frames->len; i++)
    g_ptr_array_add (copy, g_bytes_ref (sink->frames->pdata[i]));
  g_mutex_unlock (&sink->lock);
  return copy;
}

GArray *
test_tensor_sink_get_sequences (TestTensorSink *sink)
{
  GArray *copy;

  g_mutex_lock (&sink->lock);
  copy = g_array_copy (sink->sequences);
  g_mutex_unlock (&sink->lock);
  return copy;
}

static void
tensor_sink_finalize (GObject *object)
{
  TestTensorSink *self = TEST_TENSOR_SINK (object);

  g_ptr_array_unref (self->frames);
  g_array_unref (self->sequences);
  g_free (self->staging);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (test_tensor_sink_parent_class)->finalize (object);
}

static void
test_tensor_sink_class_init (TestTensorSinkClass *klass)
{
  AccelStageClass *sc = ACCEL_STAGE_CLASS (klass);
  AccelType in;

  G_OBJECT_CLASS (klass)->finalize = tensor_sink_finalize;
  sc->process = tensor_sink_process;
  sc->render = tensor_sink_render;
  sc->stop = tensor_sink_stop;
  accel_stage_class_set_metadata (
      sc, "test.tensor-sink", "Keeps a host copy of every frame");
  accel_type_init_any (&in);
  accel_stage_class_add_port (sc, ACCEL_PORT_INPUT, "in", &in, NULL);
}

static void
test_tensor_sink_init (TestTensorSink *self)
{
  g_mutex_init (&self->lock);
  self->frames = g_ptr_array_new_with_free_func ((GDestroyNotify)g_bytes_unref);
  self->sequences = g_array_new (FALSE, FALSE, sizeof (guint64));
}

void
test_tensor_stages_register (void)
{
  AccelRegistry *registry = accel_registry_get_default ();

  accel_registry_register (registry, TEST_TYPE_TENSOR_SOURCE);
  accel_registry_register (registry, TEST_TYPE_TENSOR_SINK);
}

void
test_stage_set_enum (AccelStage *stage, const char *property, const char *nick)
{
  GParamSpec *pspec
      = g_object_class_find_property (G_OBJECT_GET_CLASS (stage), property);
  GEnumValue *v;

  g_assert_nonnull (pspec);
  g_assert_true (G_IS_PARAM_SPEC_ENUM (pspec));
  v = g_enum_get_value_by_nick (G_PARAM_SPEC_ENUM (pspec)->enum_class, nick);
  g_assert_nonnull (v);
  g_object_set (stage, property, v->value, NULL);
}

GPtrArray *
test_tensor_run (AccelGraph *graph, const char *sink_name)
{
  g_autoptr (GError) error = NULL;
  AccelStage *sink = accel_graph_get_stage (graph, sink_name);

  g_assert_true (accel_graph_run (graph, &error));
  g_assert_no_error (error);
  return test_tensor_sink_get_frames (TEST_TENSOR_SINK (sink));
}

void
test_tensor_assert_graph_mode_exact (
    AccelGraph *(*build) (gconstpointer data), gconstpointer data)
{
  const AccelCaptureMode modes[] = { ACCEL_CAPTURE_OFF, ACCEL_CAPTURE_AUTO };
  GPtrArray *frames[2];

  for (guint m = 0; m < 2; m++)
    {
      g_autoptr (AccelGraph) g = build (data);
      AccelStage *stage = accel_graph_get_stage (g, "stage");

      accel_graph_set_capture_mode (g, modes[m]);
      frames[m] = test_tensor_run (g, "sink");
      g_test_message ("graph mode %s: '%s' replayed %" G_GUINT64_FORMAT
                      " frames, captured %" G_GUINT64_FORMAT,
          m ? "auto" : "off", accel_stage_get_kind_name (stage),
          accel_stage_get_n_replayed (stage),
          accel_stage_get_n_captured (stage));
      if (m == 1)
        g_assert_cmpuint (accel_stage_get_n_replayed (stage), >, 0);
    }
  g_assert_cmpuint (frames[0]->len, ==, frames[1]->len);
  for (guint f = 0; f < frames[0]->len; f++)
    g_assert_true (g_bytes_equal (frames[0]->pdata[f], frames[1]->pdata[f]));
  g_ptr_array_unref (frames[0]);
  g_ptr_array_unref (frames[1]);
}

GPtrArray *
test_tensor_transform (const char *kind, gboolean host, const AccelType *type,
    GPtrArray *frames, const char *first_property, ...)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new (kind);
  AccelStage *src, *stage;
  va_list args;

  if (host)
    accel_graph_set_device (g, accel_device_get_host ());
  src = accel_test_stage (g, "test.tensor-source", "src");
  stage = accel_test_stage (g, kind, "stage");
  accel_test_stage (g, "test.tensor-sink", "sink");
  test_tensor_source_set_type (TEST_TENSOR_SOURCE (src), type);
  for (guint i = 0; i < frames->len; i++)
    test_tensor_source_push (TEST_TENSOR_SOURCE (src), frames->pdata[i]);
  va_start (args, first_property);
  g_object_set_valist (G_OBJECT (stage), first_property, args);
  va_end (args);
  g_assert_true (accel_graph_link (g, "src", "stage", &error));
  g_assert_no_error (error);
  g_assert_true (accel_graph_link (g, "stage", "sink", &error));
  g_assert_no_error (error);
  return test_tensor_run (g, "sink");
}

void
test_tensor_link_sources (AccelGraph *graph, AccelStage *stage, guint n_inputs,
    const char *const *ports, const AccelType *types, GPtrArray *const *inputs)
{
  for (guint p = 0; p < n_inputs; p++)
    {
      g_autoptr (GError) error = NULL;
      AccelStage *src
          = accel_test_stage (graph, "test.tensor-source", ports[p]);

      test_tensor_source_set_type (TEST_TENSOR_SOURCE (src), &types[p]);
      for (guint f = 0; f < inputs[p]->len; f++)
        test_tensor_source_push (TEST_TENSOR_SOURCE (src), inputs[p]->pdata[f]);
      g_assert_true (
          accel_graph_link_ports (graph, src, "out", stage, ports[p], &error));
      g_assert_no_error (error);
    }
}

void
test_expect_prepare_error (AccelGraph *graph, gint code, const char *message)
{
  g_autoptr (GError) error = NULL;

  g_assert_false (accel_graph_prepare (graph, &error));
  g_assert_error (error, ACCEL_ERROR, code);
  g_test_message ("%s", error->message);
  test_assert_stage_message (error->message, message);
}

void
test_assert_stage_message (const char *got, const char *message)
{
  const char *rest;

  /* the stage's own words, then, for a type it refused, the stages its
   * inputs come from */
  g_assert_true (g_str_has_prefix (got, message));
  rest = got + strlen (message);
  if (*rest)
    {
      g_assert_true (g_str_has_prefix (rest, "; its input '"));
      g_assert_nonnull (strstr (rest, "' comes from stage '"));
    }
}
