/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.unsharp, sharpening by an unsharp mask */
#define G_LOG_DOMAIN "accel-unsharp"

#include "accelunsharp.h"
#include "accelrealtime-private.h"
#include "image/blur.h"

struct _AccelUnsharp
{
  AccelStage parent;

  gfloat amount;
  gfloat sigma;
};

G_DEFINE_FINAL_TYPE (AccelUnsharp, accel_unsharp, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_AMOUNT,
  PROP_SIGMA,
};

static gboolean
accel_unsharp_negotiate (AccelStage *stage, const AccelType *in_types,
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
accel_unsharp_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelUnsharp *self = ACCEL_UNSHARP (stage);
  AccelRealtimeImage in, out;

  accel_realtime_image_init (&in, frame->inputs[0]);
  accel_realtime_image_init (&out, frame->outputs[0]);
  if (accel_stage_is_host (stage))
    {
      if (!accel_realtime_host_check (stage,
              accel_unsharp_mask_host (in.format, in.data, in.pitch, out.data,
                  out.pitch, in.width, in.height, self->amount, self->sigma),
              error))
        return ACCEL_FLOW_ERROR;
      return ACCEL_FLOW_OK;
    }
  if (!accel_cuda_check (
          accel_unsharp_mask (accel_stream_get_handle (frame->stream),
              in.format, in.data, in.pitch, out.data, out.pitch, in.width,
              in.height, self->amount, self->sigma),
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_unsharp_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelUnsharp *self = ACCEL_UNSHARP (object);

  switch (prop_id)
    {
    case PROP_AMOUNT:
      self->amount = g_value_get_float (value);
      break;
    case PROP_SIGMA:
      self->sigma = g_value_get_float (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_unsharp_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelUnsharp *self = ACCEL_UNSHARP (object);

  switch (prop_id)
    {
    case PROP_AMOUNT:
      g_value_set_float (value, self->amount);
      break;
    case PROP_SIGMA:
      g_value_set_float (value, self->sigma);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_unsharp_class_init (AccelUnsharpClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = accel_unsharp_set_property;
  gobject_class->get_property = accel_unsharp_get_property;
  stage_class->negotiate = accel_unsharp_negotiate;
  stage_class->process = accel_unsharp_process;
  stage_class->can_capture = accel_stage_can_capture_always;

  g_object_class_install_property (gobject_class, PROP_AMOUNT,
      g_param_spec_float ("amount", "Amount",
          "How much of the detail (image minus its blur) is added back; 0 "
          "leaves the image as it is",
          0.0f, 20.0f, 1.0f, flags));
  g_object_class_install_property (gobject_class, PROP_SIGMA,
      g_param_spec_float ("sigma", "Sigma",
          "Standard deviation in pixels of the Gaussian blur that defines "
          "detail",
          0.1f, ACCEL_IMAGE_MAX_RADIUS / 3.0f, 1.0f, flags));

  accel_stage_class_set_metadata (stage_class, "realtime.unsharp",
      "Unsharp mask: out = in + amount (in - blur (in)) on the colour "
      "channels, alpha kept");
  accel_realtime_class_add_image_ports (stage_class,
      "RGBA8, BGRA8, GRAY8 or RGBAF32 image", "the sharpened image");
}

static void
accel_unsharp_init (AccelUnsharp *self)
{
}
