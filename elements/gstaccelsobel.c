/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: Sobel edge magnitude element; its parameters, its caps, memory
 * and per-frame story (logged in this element's category) live in the base
 * class */
#include "gstaccelsobel.h"

#include "image/sobel.h"

GST_DEBUG_CATEGORY_STATIC (gst_accel_sobel_debug);
#define GST_CAT_DEFAULT gst_accel_sobel_debug

enum
{
  PROP_0,
  PROP_SCALE,
};

struct _GstAccelSobel
{
  GstAccelFilter parent;
};

G_DEFINE_TYPE_WITH_CODE (GstAccelSobel, gst_accel_sobel, GST_TYPE_ACCEL_FILTER,
    GST_DEBUG_CATEGORY_INIT (
        gst_accel_sobel_debug, "accelsobel", 0, "accel Sobel"));
GST_ELEMENT_REGISTER_DEFINE (
    accelsobel, "accelsobel", GST_RANK_NONE, GST_TYPE_ACCEL_SOBEL);

static int
gst_accel_sobel_filter (GstAccelFilter *filter, void *stream, int format,
    const void *src, size_t src_pitch, void *dst, size_t dst_pitch, int width,
    int height)
{
  gfloat scale = gst_accel_filter_get_float (filter, PROP_SCALE);

  GST_LOG_OBJECT (filter, "scale %g over %dx%d", scale, width, height);
  if (stream)
    return accel_sobel (stream, format, src, src_pitch, dst, dst_pitch, NULL, 0,
        width, height, scale);
  return accel_sobel_host (
      format, src, src_pitch, dst, dst_pitch, NULL, 0, width, height, scale);
}

static void
gst_accel_sobel_class_init (GstAccelSobelClass *klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAccelFilterClass *filter_class = GST_ACCEL_FILTER_CLASS (klass);

  gst_accel_filter_class_install_param (filter_class, PROP_SCALE,
      g_param_spec_float ("scale", "Scale",
          "Factor applied to the gradient magnitude before clamping", 0.0f,
          16.0f, 1.0f,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_set_static_metadata (element_class, "accel Sobel",
      "Filter/Effect/Video",
      "Sobel gradient magnitude of the luma of RGBA, BGRA or GRAY8 frames",
      ACCEL_ELEMENT_AUTHOR);

  filter_class->filter = gst_accel_sobel_filter;
  filter_class->debug_category = gst_accel_sobel_debug;
  filter_class->neighbourhood = TRUE;
}

static void
gst_accel_sobel_init (GstAccelSobel *self)
{
}
