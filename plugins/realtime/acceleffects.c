/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.effects, a chain of video effects from a
 * description, run as one fused pass over each frame */
#define G_LOG_DOMAIN "accel-effects"

#include <cuda_runtime_api.h>
#include <string.h>

#include "acceleffects.h"
#include "accelrealtime-private.h"
#include "effects/effects.h"

/* what a snapshot starts with */
typedef struct
{
  guint32 magic;
  guint32 temporal; /* the temporal effects the history belongs to */
  gint32 width, height;
  guint32 valid;
  guint32 reserved;
} HistoryHeader;

#define HISTORY_MAGIC 0x31584641u /* "AFX1" */

struct _AccelEffects
{
  AccelStage parent;

  gchar *description;
  /* the description's parameters, or the last good ones if it failed; set
   * from any thread, under lock */
  GMutex lock;
  AccelEffectsParams params;
  gchar *parse_error; /* NULL when the description parsed */

  /* stage thread only, between start() and stop() */
  AccelEffectsParams running; /* this frame's copy of params */
  gboolean running_taken;     /* taken by can_capture () for the frame */
  gboolean started;
  int width, height;
  AccelBuffer *history; /* NULL without temporal effects */
  unsigned history_temporal;
  gboolean history_valid;
};

G_DEFINE_FINAL_TYPE (AccelEffects, accel_effects, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_EFFECTS,
};

static gboolean
accel_effects_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelEffects *self = ACCEL_EFFECTS (stage);

  if (self->parse_error)
    {
      /* naming the parameter, which also puts a YAML file's message at it */
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "stage '%s' (realtime.effects): effects: %s",
          accel_stage_get_name (stage), self->parse_error);
      return FALSE;
    }
  if (!accel_realtime_check_format (
          stage, &in_types[0], ACCEL_REALTIME_RGBA_FORMATS, error))
    return FALSE;
  out_types[0] = in_types[0];
  out_types[0].memory = ACCEL_MEMORY_DEVICE;
  return TRUE;
}

/* zeroes the history and marks it empty */
static gboolean
clear_history (AccelEffects *self, GError **error)
{
  AccelStage *stage = ACCEL_STAGE (self);

  self->history_valid = FALSE;
  if (!self->history)
    return TRUE;
  if (accel_stage_is_host (stage))
    {
      memset (accel_buffer_get_data (self->history), 0,
          accel_buffer_get_size (self->history));
      return TRUE;
    }
  return accel_cuda_check (
      cudaMemsetAsync (accel_buffer_get_data (self->history), 0,
          accel_buffer_get_size (self->history),
          accel_stream_get_handle (accel_stage_get_stream (stage))),
      error);
}

/* this frame's parameters: the history is sized and the kernel run from
 * one copy, whatever another thread sets meanwhile */
static void
take_params (AccelEffects *self)
{
  g_mutex_lock (&self->lock);
  self->running = self->params;
  g_mutex_unlock (&self->lock);
}

/* a history that suits the current effects: (re)allocated when their
 * temporal effects changed, empty then */
static gboolean
ensure_history (AccelEffects *self, GError **error)
{
  AccelStage *stage = ACCEL_STAGE (self);
  unsigned temporal = self->running.flags & ACCEL_EFFECTS_TEMPORAL;
  gsize size
      = accel_effects_history_size (&self->running, self->width, self->height);
  AccelType bytes;

  if (self->history && temporal == self->history_temporal)
    return TRUE;
  g_clear_pointer (&self->history, accel_buffer_unref);
  self->history_temporal = temporal;
  self->history_valid = FALSE;
  if (size == 0)
    return TRUE;
  accel_type_init_bytes (&bytes, ACCEL_MEMORY_DEVICE, (gint64)size);
  self->history
      = accel_buffer_new (accel_stage_get_device (stage), &bytes, error);
  if (!self->history)
    return FALSE;
  return clear_history (self, error);
}

/* the history is allocated here, before the first frame */
static gboolean
accel_effects_start (AccelStage *stage, GError **error)
{
  AccelEffects *self = ACCEL_EFFECTS (stage);
  const AccelType *in = accel_stage_get_input_type (stage, 0);

  self->height = (int)in->dims[0];
  self->width = (int)in->dims[1];
  self->started = TRUE;
  take_params (self);
  return ensure_history (self, error);
}

static void
accel_effects_stop (AccelStage *stage)
{
  AccelEffects *self = ACCEL_EFFECTS (stage);

  g_clear_pointer (&self->history, accel_buffer_unref);
  self->history_temporal = 0;
  self->history_valid = FALSE;
  self->started = FALSE;
}

/* once the history of the temporal effects in use is there and valid, a
 * frame changes nothing on the host */
static gboolean
accel_effects_can_capture (AccelStage *stage, const AccelFrame *frame)
{
  AccelEffects *self = ACCEL_EFFECTS (stage);
  unsigned temporal;

  /* the frame then runs on the copy its capture was decided on */
  take_params (self);
  self->running_taken = TRUE;
  temporal = self->running.flags & ACCEL_EFFECTS_TEMPORAL;

  if (temporal == 0)
    return self->history == NULL;
  return self->history && temporal == self->history_temporal
         && self->history_valid;
}

static AccelFlow
accel_effects_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelEffects *self = ACCEL_EFFECTS (stage);
  AccelRealtimeImage in, out;
  float *history;

  /* a parameter change may have brought other temporal effects */
  if (!self->running_taken)
    take_params (self);
  self->running_taken = FALSE;
  if (!ensure_history (self, error))
    return ACCEL_FLOW_ERROR;
  history = self->history ? accel_buffer_get_data (self->history) : NULL;
  accel_realtime_image_init (&in, frame->inputs[0]);
  accel_realtime_image_init (&out, frame->outputs[0]);
  if (accel_stage_is_host (stage))
    {
      if (!accel_realtime_host_check (stage,
              accel_effects_apply_host (in.format, in.data, in.pitch, out.data,
                  out.pitch, in.width, in.height, &self->running, history,
                  self->history_valid),
              error))
        return ACCEL_FLOW_ERROR;
    }
  else if (!accel_cuda_check (
               accel_effects_apply (accel_stream_get_handle (frame->stream),
                   in.format, in.data, in.pitch, out.data, out.pitch, in.width,
                   in.height, &self->running, history, self->history_valid),
               error))
    return ACCEL_FLOW_ERROR;
  self->history_valid = self->history != NULL;
  return ACCEL_FLOW_OK;
}

static void
accel_effects_flush (AccelStage *stage)
{
  g_autoptr (GError) error = NULL;

  if (!clear_history (ACCEL_EFFECTS (stage), &error))
    g_warning ("stage '%s': clearing the history failed: %s",
        accel_stage_get_name (stage), error->message);
}

/* the history, behind a header saying what it belongs to; a copy to the
 * host (a sync, every snapshot-interval frames). NULL without temporal
 * effects: there is nothing to keep */
static GBytes *
accel_effects_snapshot (AccelStage *stage)
{
  AccelEffects *self = ACCEL_EFFECTS (stage);
  HistoryHeader header = { HISTORY_MAGIC, self->history_temporal, self->width,
    self->height, self->history_valid, 0 };
  gsize size;
  guint8 *copy;

  if (!self->history)
    return NULL;
  size = accel_buffer_get_size (self->history);
  copy = g_malloc (sizeof (header) + size);
  memcpy (copy, &header, sizeof (header));
  if (accel_stage_is_host (stage))
    memcpy (
        copy + sizeof (header), accel_buffer_get_data (self->history), size);
  else if (!accel_cuda_check (
               cudaMemcpyAsync (copy + sizeof (header),
                   accel_buffer_get_data (self->history), size,
                   cudaMemcpyDeviceToHost,
                   accel_stream_get_handle (accel_stage_get_stream (stage))),
               NULL)
           || !accel_stream_synchronize (accel_stage_get_stream (stage), NULL))
    {
      g_free (copy);
      return NULL;
    }
  return g_bytes_new_take (copy, sizeof (header) + size);
}

static gboolean
accel_effects_restore (AccelStage *stage, GBytes *state, GError **error)
{
  AccelEffects *self = ACCEL_EFFECTS (stage);
  gsize size;
  const guint8 *data = g_bytes_get_data (state, &size);
  HistoryHeader header;

  if (!ensure_history (self, error))
    return FALSE;
  if (size >= sizeof (header))
    memcpy (&header, data, sizeof (header));
  /* the effects changed since the snapshot: a change of the temporal
   * effects starts their history afresh, a restart after it too */
  if (size >= sizeof (header) && header.magic == HISTORY_MAGIC
      && header.temporal != self->history_temporal)
    {
      g_debug ("stage '%s': the saved history is of other temporal effects: "
               "they start afresh",
          accel_stage_get_name (stage));
      self->history_valid = FALSE;
      return TRUE;
    }
  if (size < sizeof (header) || header.magic != HISTORY_MAGIC || !self->history
      || header.temporal != self->history_temporal
      || header.width != self->width || header.height != self->height
      || size - sizeof (header) != accel_buffer_get_size (self->history))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT,
          "stage '%s': the saved history is of another frame size or other "
          "temporal effects",
          accel_stage_get_name (stage));
      return FALSE;
    }
  size -= sizeof (header);
  if (accel_stage_is_host (stage))
    memcpy (
        accel_buffer_get_data (self->history), data + sizeof (header), size);
  /* synchronous on purpose: @state is the caller's memory */
  else if (!accel_cuda_check (
               cudaMemcpyAsync (accel_buffer_get_data (self->history),
                   data + sizeof (header), size, cudaMemcpyHostToDevice,
                   accel_stream_get_handle (accel_stage_get_stream (stage))),
               error)
           || !accel_stream_synchronize (accel_stage_get_stream (stage), error))
    return FALSE;
  self->history_valid = header.valid != 0;
  return TRUE;
}

/* a description that does not parse keeps the last good parameters; before
 * the graph runs negotiate() reports it, while it runs it is logged */
static void
set_description (AccelEffects *self, const char *description)
{
  AccelEffectsParams params;
  char message[256];

  g_free (self->description);
  self->description = g_strdup (description ? description : "");
  g_clear_pointer (&self->parse_error, g_free);
  if (accel_effects_parse (
          self->description, &params, message, sizeof (message))
      != ACCEL_IMAGE_OK)
    {
      self->parse_error = g_strdup (message);
      if (self->started)
        g_warning ("stage '%s' (realtime.effects) keeps its effects: %s",
            accel_stage_get_name (ACCEL_STAGE (self)), message);
      return;
    }
  g_mutex_lock (&self->lock);
  self->params = params;
  g_mutex_unlock (&self->lock);
}

static void
accel_effects_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelEffects *self = ACCEL_EFFECTS (object);

  switch (prop_id)
    {
    case PROP_EFFECTS:
      set_description (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_effects_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelEffects *self = ACCEL_EFFECTS (object);

  switch (prop_id)
    {
    case PROP_EFFECTS:
      g_value_set_string (value, self->description);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_effects_finalize (GObject *object)
{
  AccelEffects *self = ACCEL_EFFECTS (object);

  g_free (self->description);
  g_free (self->parse_error);
  g_clear_pointer (&self->history, accel_buffer_unref);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (accel_effects_parent_class)->finalize (object);
}

static void
accel_effects_class_init (AccelEffectsClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);

  gobject_class->set_property = accel_effects_set_property;
  gobject_class->get_property = accel_effects_get_property;
  gobject_class->finalize = accel_effects_finalize;
  stage_class->negotiate = accel_effects_negotiate;
  stage_class->start = accel_effects_start;
  stage_class->stop = accel_effects_stop;
  stage_class->process = accel_effects_process;
  stage_class->can_capture = accel_effects_can_capture;
  stage_class->flush = accel_effects_flush;
  stage_class->snapshot = accel_effects_snapshot;
  stage_class->restore = accel_effects_restore;

  g_object_class_install_property (gobject_class, PROP_EFFECTS,
      g_param_spec_string ("effects", "Effects",
          "The effects, e.g. \"contrast=1.2 saturation=0.8 vignette=0.4\": "
          "brightness, contrast, saturation, hue, sepia, invert, gamma, "
          "vignette, chroma-key=#rrggbb/tolerance/softness, difference, echo",
          "", G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS));

  accel_stage_class_set_metadata (stage_class, "realtime.effects",
      "Video effects (colour matrix, gamma, vignette, chroma key, frame "
      "difference, echo) fused into one pass over each frame");
  accel_realtime_class_add_image_ports (
      stage_class, "RGBA8 or BGRA8 image", "the image with the effects");
}

static void
accel_effects_init (AccelEffects *self)
{
  g_mutex_init (&self->lock);
  accel_effects_params_init (&self->params);
}
