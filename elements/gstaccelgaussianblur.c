/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: Gaussian blur element; its parameters, its caps, memory and
 * per-frame story (logged in this element's category) live in the base
 * class */
#include "gstaccelgaussianblur.h"

#include "image/blur.h"

GST_DEBUG_CATEGORY_STATIC (gst_accel_gaussian_blur_debug);
#define GST_CAT_DEFAULT gst_accel_gaussian_blur_debug

enum
{
  PROP_0,
  PROP_SIGMA,
};

struct _GstAccelGaussianBlur
{
  GstAccelFilter parent;
};

G_DEFINE_TYPE_WITH_CODE (GstAccelGaussianBlur, gst_accel_gaussian_blur,
    GST_TYPE_ACCEL_FILTER,
    GST_DEBUG_CATEGORY_INIT (gst_accel_gaussian_blur_debug, "accelgaussianblur",
        0, "accel Gaussian blur"));
GST_ELEMENT_REGISTER_DEFINE (accelgaussianblur, "accelgaussianblur",
    GST_RANK_NONE, GST_TYPE_ACCEL_GAUSSIAN_BLUR);

static int
gst_accel_gaussian_blur_filter (GstAccelFilter *filter, void *stream,
    int format, const void *src, size_t src_pitch, void *dst, size_t dst_pitch,
    int width, int height)
{
  gfloat sigma = gst_accel_filter_get_float (filter, PROP_SIGMA);

  GST_LOG_OBJECT (filter, "sigma %g over %dx%d", sigma, width, height);
  if (stream)
    return accel_gaussian_blur (
        stream, format, src, src_pitch, dst, dst_pitch, width, height, sigma);
  return accel_gaussian_blur_host (
      format, src, src_pitch, dst, dst_pitch, width, height, sigma);
}

static void
gst_accel_gaussian_blur_class_init (GstAccelGaussianBlurClass *klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAccelFilterClass *filter_class = GST_ACCEL_FILTER_CLASS (klass);

  gst_accel_filter_class_install_param (filter_class, PROP_SIGMA,
      g_param_spec_float ("sigma", "Sigma",
          "Standard deviation of the Gaussian in pixels (radius ceil (3 "
          "sigma), at most 32)",
          0.1f, 10.0f, 1.0f,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_set_static_metadata (element_class, "accel Gaussian blur",
      "Filter/Effect/Video",
      "Separable Gaussian blur of RGBA, BGRA or GRAY8 frames",
      ACCEL_ELEMENT_AUTHOR);

  filter_class->filter = gst_accel_gaussian_blur_filter;
  filter_class->debug_category = gst_accel_gaussian_blur_debug;
  filter_class->neighbourhood = TRUE;
}

static void
gst_accel_gaussian_blur_init (GstAccelGaussianBlur *self)
{
}
