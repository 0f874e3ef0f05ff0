/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the fused video effects element: an effects description becomes
 * one per-pixel pass over each frame; the temporal effects (difference,
 * echo) keep their history on the GPU, or on the host without one */
#include "gstacceleffects.h"

#include <cuda_runtime_api.h>

#include "effects/effects.h"
#include "gstaccelcuda.h"

#include <gst/cuda/gstcudamemory.h>

GST_DEBUG_CATEGORY_STATIC (gst_accel_effects_debug);
#define GST_CAT_DEFAULT gst_accel_effects_debug

#define EFFECTS_CAPS                                                           \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES (                                          \
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, "{ RGBA, BGRA }")                   \
  ";" GST_VIDEO_CAPS_MAKE ("{ RGBA, BGRA }")

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE (
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (EFFECTS_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE (
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (EFFECTS_CAPS));

enum
{
  PROP_0,
  PROP_EFFECTS,
};

struct _GstAccelEffects
{
  GstAccelFilter parent;

  /* under the object lock */
  gchar *description;
  AccelEffectsParams params;
  /* why the last description set was not taken, until one is: the start
   * fails with it (the element ran with no effects, and gst-launch-1.0
   * exited 0 after a warning) */
  gchar *refused;

  /* streaming thread */
  float *history; /* device memory on a GPU, host memory without */
  gboolean history_on_gpu;
  size_t history_size;
  int history_width, history_height; /* the frames it holds the past of */
  unsigned history_temporal; /* the temporal effects it holds the past of */
  gboolean history_valid;
};

G_DEFINE_TYPE_WITH_CODE (GstAccelEffects, gst_accel_effects,
    GST_TYPE_ACCEL_FILTER,
    GST_DEBUG_CATEGORY_INIT (
        gst_accel_effects_debug, "acceleffects", 0, "accel effects"));
GST_ELEMENT_REGISTER_DEFINE (
    acceleffects, "acceleffects", GST_RANK_NONE, GST_TYPE_ACCEL_EFFECTS);

static void
free_history (GstAccelEffects *self)
{
  if (self->history_on_gpu)
    cudaFree (self->history);
  else
    g_free (self->history);
  self->history = NULL;
  self->history_size = 0;
  self->history_valid = FALSE;
}

static int
gst_accel_effects_filter (GstAccelFilter *filter, void *stream, int format,
    const void *src, size_t src_pitch, void *dst, size_t dst_pitch, int width,
    int height)
{
  GstAccelEffects *self = GST_ACCEL_EFFECTS (filter);
  AccelEffectsParams params;
  size_t size;
  int ret;

  GST_OBJECT_LOCK (self);
  params = self->params;
  GST_OBJECT_UNLOCK (self);

  /* a history of the size the effects need, started afresh when it
   * changes (size, effects, or where it lives): echo's trail and the
   * difference's last frame take the same bytes, not the same content */
  size = accel_effects_history_size (&params, width, height);
  /* 64x48 then 48x64 take the same bytes, not the same pixels */
  if ((params.flags & ACCEL_EFFECTS_TEMPORAL) != self->history_temporal
      || width != self->history_width || height != self->history_height)
    self->history_valid = FALSE;
  self->history_width = width;
  self->history_height = height;
  self->history_temporal = params.flags & ACCEL_EFFECTS_TEMPORAL;
  if (size != self->history_size || (stream != NULL) != self->history_on_gpu)
    {
      free_history (self);
      self->history_on_gpu = stream != NULL;
      if (size > 0 && stream
          && (ret = cudaMalloc ((void **)&self->history, size)))
        return ret;
      if (size > 0 && !stream && !(self->history = g_try_malloc (size)))
        {
          GST_ERROR_OBJECT (self,
              "cannot allocate %" G_GSIZE_FORMAT " bytes of history", size);
          return ACCEL_IMAGE_NO_MEMORY;
        }
      self->history_size = size;
      GST_DEBUG_OBJECT (self,
          "history of %" G_GSIZE_FORMAT " bytes on the %s, started afresh",
          size, stream ? "GPU" : "host");
    }
  GST_LOG_OBJECT (self, "one pass over %dx%d%s", width, height,
      size == 0             ? ""
      : self->history_valid ? ", with the previous frames' history"
                            : ", the history starts with this frame");

  if (stream)
    ret = accel_effects_apply (stream, format, src, src_pitch, dst, dst_pitch,
        width, height, &params, self->history, self->history_valid);
  else
    ret = accel_effects_apply_host (format, src, src_pitch, dst, dst_pitch,
        width, height, &params, self->history, self->history_valid);
  self->history_valid = ret == ACCEL_IMAGE_OK && size > 0;
  return ret;
}

/* a seek or flush starts the temporal effects afresh */
static gboolean
gst_accel_effects_sink_event (GstBaseTransform *trans, GstEvent *event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    {
      GST_DEBUG_OBJECT (trans, "flushed: the temporal effects start afresh");
      GST_ACCEL_EFFECTS (trans)->history_valid = FALSE;
    }
  return GST_BASE_TRANSFORM_CLASS (gst_accel_effects_parent_class)
      ->sink_event (trans, event);
}

static gboolean
gst_accel_effects_stop (GstBaseTransform *trans)
{
  GstAccelEffects *self = GST_ACCEL_EFFECTS (trans);
  GstCudaContext *context
      = gst_accel_filter_get_context (GST_ACCEL_FILTER (trans));

  if (self->history_on_gpu && context)
    {
      gst_accel_cuda_scope_enter (context);
      free_history (self);
      gst_accel_cuda_scope_leave ();
    }
  else
    free_history (self);
  return GST_BASE_TRANSFORM_CLASS (gst_accel_effects_parent_class)
      ->stop (trans);
}

/* a description that does not parse changes nothing: while the element
 * runs it says so on the bus and goes on with the effects it has; before,
 * it keeps why, and its start fails with it */
static void
refuse_description (
    GstAccelEffects *self, const gchar *description, const gchar *why)
{
  g_autofree gchar *said
      = g_strdup_printf ("effects \"%s\" not taken: %s", description, why);

  if (GST_STATE (self) >= GST_STATE_PAUSED)
    {
      GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS, ("%s", said),
          ("the effects \"%s\" go on", self->description));
      return;
    }
  GST_WARNING_OBJECT (self, "%s", said);
  GST_OBJECT_LOCK (self);
  g_free (self->refused);
  self->refused = g_steal_pointer (&said);
  GST_OBJECT_UNLOCK (self);
}

static gboolean
gst_accel_effects_start (GstBaseTransform *trans)
{
  GstAccelEffects *self = GST_ACCEL_EFFECTS (trans);
  g_autofree gchar *refused = NULL;

  GST_OBJECT_LOCK (self);
  refused = g_strdup (self->refused);
  GST_OBJECT_UNLOCK (self);
  if (refused)
    {
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", refused), (NULL));
      return FALSE;
    }
  return GST_BASE_TRANSFORM_CLASS (gst_accel_effects_parent_class)
      ->start (trans);
}

static void
gst_accel_effects_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstAccelEffects *self = GST_ACCEL_EFFECTS (object);
  const gchar *description;
  AccelEffectsParams params;
  gchar message[256];

  switch (prop_id)
    {
    case PROP_EFFECTS:
      description = g_value_get_string (value);
      /* a description that does not parse changes nothing */
      if (accel_effects_parse (
              description ? description : "", &params, message, sizeof message))
        {
          refuse_description (self, description, message);
          break;
        }
      GST_OBJECT_LOCK (self);
      g_free (self->description);
      self->description = g_strdup (description ? description : "");
      self->params = params;
      g_clear_pointer (&self->refused, g_free);
      GST_OBJECT_UNLOCK (self);
      GST_DEBUG_OBJECT (self, "effects \"%s\"", description ? description : "");
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
    }
}

static void
gst_accel_effects_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstAccelEffects *self = GST_ACCEL_EFFECTS (object);

  switch (prop_id)
    {
    case PROP_EFFECTS:
      GST_OBJECT_LOCK (self);
      g_value_set_string (value, self->description);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
    }
}

static void
gst_accel_effects_finalize (GObject *object)
{
  g_free (GST_ACCEL_EFFECTS (object)->description);
  g_free (GST_ACCEL_EFFECTS (object)->refused);
  G_OBJECT_CLASS (gst_accel_effects_parent_class)->finalize (object);
}

static void
gst_accel_effects_class_init (GstAccelEffectsClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstAccelFilterClass *filter_class = GST_ACCEL_FILTER_CLASS (klass);

  gobject_class->set_property = gst_accel_effects_set_property;
  gobject_class->get_property = gst_accel_effects_get_property;
  gobject_class->finalize = gst_accel_effects_finalize;

  g_object_class_install_property (gobject_class, PROP_EFFECTS,
      g_param_spec_string ("effects", "Effects",
          "Effects applied in one pass, e.g. \"contrast=1.2 saturation=0.8 "
          "vignette=0.4\": brightness, contrast, saturation, hue, sepia, "
          "invert, gamma, vignette, chroma-key, difference, echo (see "
          "docs/effects.md)",
          "",
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));

  /* the same names replace the filter base class's templates */
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "accel effects",
      "Filter/Effect/Video",
      "Colour, vignette, chroma key and temporal effects of RGBA or BGRA "
      "frames fused into one pass",
      ACCEL_ELEMENT_AUTHOR);

  trans_class->start = gst_accel_effects_start;
  trans_class->sink_event = gst_accel_effects_sink_event;
  trans_class->stop = gst_accel_effects_stop;
  filter_class->filter = gst_accel_effects_filter;
  filter_class->debug_category = gst_accel_effects_debug;
}

static void
gst_accel_effects_init (GstAccelEffects *self)
{
  self->description = g_strdup ("");
  accel_effects_params_init (&self->params);
}
