/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: unsharp mask element; its parameters, its caps, memory and
 * per-frame story (logged in this element's category) live in the base
 * class */
#include "gstaccelunsharp.h"

#include "image/blur.h"

GST_DEBUG_CATEGORY_STATIC (gst_accel_unsharp_debug);
#define GST_CAT_DEFAULT gst_accel_unsharp_debug

enum
{
  PROP_0,
  PROP_AMOUNT,
  PROP_SIGMA,
};

struct _GstAccelUnsharp
{
  GstAccelFilter parent;
};

G_DEFINE_TYPE_WITH_CODE (GstAccelUnsharp, gst_accel_unsharp,
    GST_TYPE_ACCEL_FILTER,
    GST_DEBUG_CATEGORY_INIT (
        gst_accel_unsharp_debug, "accelunsharp", 0, "accel unsharp mask"));
GST_ELEMENT_REGISTER_DEFINE (
    accelunsharp, "accelunsharp", GST_RANK_NONE, GST_TYPE_ACCEL_UNSHARP);

static int
gst_accel_unsharp_filter (GstAccelFilter *filter, void *stream, int format,
    const void *src, size_t src_pitch, void *dst, size_t dst_pitch, int width,
    int height)
{
  gfloat amount = gst_accel_filter_get_float (filter, PROP_AMOUNT);
  gfloat sigma = gst_accel_filter_get_float (filter, PROP_SIGMA);

  GST_LOG_OBJECT (
      filter, "amount %g, sigma %g over %dx%d", amount, sigma, width, height);
  if (stream)
    return accel_unsharp_mask (stream, format, src, src_pitch, dst, dst_pitch,
        width, height, amount, sigma);
  return accel_unsharp_mask_host (
      format, src, src_pitch, dst, dst_pitch, width, height, amount, sigma);
}

static void
gst_accel_unsharp_class_init (GstAccelUnsharpClass *klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAccelFilterClass *filter_class = GST_ACCEL_FILTER_CLASS (klass);

  gst_accel_filter_class_install_param (filter_class, PROP_AMOUNT,
      g_param_spec_float ("amount", "Amount",
          "Strength: out = in + amount * (in - blurred)", 0.0f, 10.0f, 1.0f,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));
  gst_accel_filter_class_install_param (filter_class, PROP_SIGMA,
      g_param_spec_float ("sigma", "Sigma",
          "Standard deviation in pixels of the Gaussian the detail is "
          "measured against",
          0.1f, 10.0f, 1.0f,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_set_static_metadata (element_class, "accel unsharp mask",
      "Filter/Effect/Video",
      "Sharpens RGBA, BGRA or GRAY8 frames by adding back their difference "
      "from a Gaussian blur (alpha is kept)",
      ACCEL_ELEMENT_AUTHOR);

  filter_class->filter = gst_accel_unsharp_filter;
  filter_class->debug_category = gst_accel_unsharp_debug;
  filter_class->neighbourhood = TRUE;
}

static void
gst_accel_unsharp_init (GstAccelUnsharp *self)
{
}
