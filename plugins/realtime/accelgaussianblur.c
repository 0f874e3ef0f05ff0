/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.gaussian-blur, a separable Gaussian blur */
#define G_LOG_DOMAIN "accel-gaussian-blur"

#include "accelgaussianblur.h"
#include "accelrealtime-private.h"
#include "image/blur.h"

struct _AccelGaussianBlur
{
  AccelStage parent;

  gfloat sigma;
};

G_DEFINE_FINAL_TYPE (AccelGaussianBlur, accel_gaussian_blur, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_SIGMA,
};

static gboolean
accel_gaussian_blur_negotiate (AccelStage *stage, const AccelType *in_types,
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
accel_gaussian_blur_process (
    AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelGaussianBlur *self = ACCEL_GAUSSIAN_BLUR (stage);
  AccelRealtimeImage in, out;

  accel_realtime_image_init (&in, frame->inputs[0]);
  accel_realtime_image_init (&out, frame->outputs[0]);
  if (accel_stage_is_host (stage))
    {
      if (!accel_realtime_host_check (stage,
              accel_gaussian_blur_host (in.format, in.data, in.pitch, out.data,
                  out.pitch, in.width, in.height, self->sigma),
              error))
        return ACCEL_FLOW_ERROR;
      return ACCEL_FLOW_OK;
    }
  if (!accel_cuda_check (
          accel_gaussian_blur (accel_stream_get_handle (frame->stream),
              in.format, in.data, in.pitch, out.data, out.pitch, in.width,
              in.height, self->sigma),
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_gaussian_blur_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelGaussianBlur *self = ACCEL_GAUSSIAN_BLUR (object);

  switch (prop_id)
    {
    case PROP_SIGMA:
      self->sigma = g_value_get_float (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_gaussian_blur_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelGaussianBlur *self = ACCEL_GAUSSIAN_BLUR (object);

  switch (prop_id)
    {
    case PROP_SIGMA:
      g_value_set_float (value, self->sigma);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_gaussian_blur_class_init (AccelGaussianBlurClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = accel_gaussian_blur_set_property;
  gobject_class->get_property = accel_gaussian_blur_get_property;
  stage_class->negotiate = accel_gaussian_blur_negotiate;
  stage_class->process = accel_gaussian_blur_process;
  stage_class->can_capture = accel_stage_can_capture_always;

  /* radius ceil (3 sigma) reaches the kernels' widest stencil at the top */
  g_object_class_install_property (gobject_class, PROP_SIGMA,
      g_param_spec_float ("sigma", "Sigma",
          "Standard deviation in pixels; the stencil reaches "
          "ceil (3 sigma) pixels each way",
          0.1f, ACCEL_IMAGE_MAX_RADIUS / 3.0f, 1.0f, flags));

  accel_stage_class_set_metadata (stage_class, "realtime.gaussian-blur",
      "Separable Gaussian blur of every channel, edges clamped");
  accel_realtime_class_add_image_ports (
      stage_class, "RGBA8, BGRA8, GRAY8 or RGBAF32 image", "the blurred image");
}

static void
accel_gaussian_blur_init (AccelGaussianBlur *self)
{
}
