/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.sobel, edge magnitude on luma */
#define G_LOG_DOMAIN "accel-sobel"

#include "accelsobel.h"
#include "accelrealtime-private.h"
#include "image/sobel.h"

struct _AccelSobel
{
  AccelStage parent;

  gfloat scale;
};

G_DEFINE_FINAL_TYPE (AccelSobel, accel_sobel, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_SCALE,
};

static gboolean
accel_sobel_negotiate (AccelStage *stage, const AccelType *in_types,
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
accel_sobel_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelSobel *self = ACCEL_SOBEL (stage);
  AccelRealtimeImage in, out;

  accel_realtime_image_init (&in, frame->inputs[0]);
  accel_realtime_image_init (&out, frame->outputs[0]);
  if (accel_stage_is_host (stage))
    {
      if (!accel_realtime_host_check (stage,
              accel_sobel_host (in.format, in.data, in.pitch, out.data,
                  out.pitch, NULL, 0, in.width, in.height, self->scale),
              error))
        return ACCEL_FLOW_ERROR;
      return ACCEL_FLOW_OK;
    }
  if (!accel_cuda_check (accel_sobel (accel_stream_get_handle (frame->stream),
                             in.format, in.data, in.pitch, out.data, out.pitch,
                             NULL, 0, in.width, in.height, self->scale),
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_sobel_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelSobel *self = ACCEL_SOBEL (object);

  switch (prop_id)
    {
    case PROP_SCALE:
      self->scale = g_value_get_float (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_sobel_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelSobel *self = ACCEL_SOBEL (object);

  switch (prop_id)
    {
    case PROP_SCALE:
      g_value_set_float (value, self->scale);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_sobel_class_init (AccelSobelClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = accel_sobel_set_property;
  gobject_class->get_property = accel_sobel_get_property;
  stage_class->negotiate = accel_sobel_negotiate;
  stage_class->process = accel_sobel_process;
  stage_class->can_capture = accel_stage_can_capture_always;

  g_object_class_install_property (gobject_class, PROP_SCALE,
      g_param_spec_float ("scale", "Scale",
          "Factor on the gradient magnitude before it is stored (8-bit "
          "outputs clamp at 255)",
          0.0f, 1000.0f, 1.0f, flags));

  accel_stage_class_set_metadata (stage_class, "realtime.sobel",
      "Sobel edge magnitude of the luma: R = G = B = |gradient| x scale, "
      "alpha kept, edges clamped");
  accel_realtime_class_add_image_ports (stage_class,
      "RGBA8, BGRA8, GRAY8 or RGBAF32 image",
      "the edge magnitude, same format");
}

static void
accel_sobel_init (AccelSobel *self)
{
}
