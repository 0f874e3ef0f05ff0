/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.threshold, a binary threshold per
 * channel */
#define G_LOG_DOMAIN "accel-threshold"

#include "accelthreshold.h"
#include "accelrealtime-private.h"
#include "image/threshold.h"

struct _AccelThreshold
{
  AccelStage parent;

  gfloat value;
};

G_DEFINE_FINAL_TYPE (AccelThreshold, accel_threshold, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_VALUE,
};

static gboolean
accel_threshold_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  if (!accel_realtime_check_format (
          stage, &in_types[0], ACCEL_REALTIME_FILTER_FORMATS, error))
    return FALSE;
  out_types[0] = in_types[0];
  out_types[0].memory = ACCEL_MEMORY_DEVICE;
  return TRUE;
}

static AccelFlow
accel_threshold_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelThreshold *self = ACCEL_THRESHOLD (stage);
  AccelRealtimeImage in, out;
  gfloat value;

  accel_realtime_image_init (&in, frame->inputs[0]);
  accel_realtime_image_init (&out, frame->outputs[0]);
  /* the kernels compare in the channel's own units */
  value
      = in.format == ACCEL_FORMAT_RGBAF32 ? self->value : self->value * 255.0f;
  if (accel_stage_is_host (stage))
    {
      if (!accel_realtime_host_check (stage,
              accel_threshold_host (in.format, in.data, in.pitch, out.data,
                  out.pitch, in.width, in.height, value),
              error))
        return ACCEL_FLOW_ERROR;
      return ACCEL_FLOW_OK;
    }
  if (!accel_cuda_check (
          accel_threshold (accel_stream_get_handle (frame->stream), in.format,
              in.data, in.pitch, out.data, out.pitch, in.width, in.height,
              value),
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_threshold_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelThreshold *self = ACCEL_THRESHOLD (object);

  switch (prop_id)
    {
    case PROP_VALUE:
      self->value = g_value_get_float (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_threshold_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelThreshold *self = ACCEL_THRESHOLD (object);

  switch (prop_id)
    {
    case PROP_VALUE:
      g_value_set_float (value, self->value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_threshold_class_init (AccelThresholdClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = accel_threshold_set_property;
  gobject_class->get_property = accel_threshold_get_property;
  stage_class->negotiate = accel_threshold_negotiate;
  stage_class->process = accel_threshold_process;
  stage_class->can_capture = accel_stage_can_capture_always;

  g_object_class_install_property (gobject_class, PROP_VALUE,
      g_param_spec_float ("value", "Value",
          "Threshold as a fraction of the channel's full scale (x 255 for "
          "8-bit formats); channels above it become full, the rest 0",
          0.0f, 1.0f, 0.5f, flags));

  accel_stage_class_set_metadata (stage_class, "realtime.threshold",
      "Binary threshold of each colour channel (or gray), alpha kept");
  accel_realtime_class_add_image_ports (stage_class,
      "RGBA8, BGRA8, GRAY8 or RGBAF32 image",
      "the thresholded image, same format");
}

static void
accel_threshold_init (AccelThreshold *self)
{
}
