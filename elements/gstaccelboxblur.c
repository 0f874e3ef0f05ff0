/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: box blur element; its parameters, its caps, memory and per-frame
 * story (logged in this element's category) live in the base class */
#include "gstaccelboxblur.h"

#include "image/blur.h"

GST_DEBUG_CATEGORY_STATIC (gst_accel_box_blur_debug);
#define GST_CAT_DEFAULT gst_accel_box_blur_debug

enum
{
  PROP_0,
  PROP_RADIUS,
};

struct _GstAccelBoxBlur
{
  GstAccelFilter parent;
};

G_DEFINE_TYPE_WITH_CODE (GstAccelBoxBlur, gst_accel_box_blur,
    GST_TYPE_ACCEL_FILTER,
    GST_DEBUG_CATEGORY_INIT (
        gst_accel_box_blur_debug, "accelboxblur", 0, "accel box blur"));
GST_ELEMENT_REGISTER_DEFINE (
    accelboxblur, "accelboxblur", GST_RANK_NONE, GST_TYPE_ACCEL_BOX_BLUR);

static int
gst_accel_box_blur_filter (GstAccelFilter *filter, void *stream, int format,
    const void *src, size_t src_pitch, void *dst, size_t dst_pitch, int width,
    int height)
{
  int radius = (int)gst_accel_filter_get_float (filter, PROP_RADIUS);

  GST_LOG_OBJECT (filter, "radius %d over %dx%d", radius, width, height);
  if (stream)
    return accel_box_blur (
        stream, format, src, src_pitch, dst, dst_pitch, width, height, radius);
  return accel_box_blur_host (
      format, src, src_pitch, dst, dst_pitch, width, height, radius);
}

static void
gst_accel_box_blur_class_init (GstAccelBoxBlurClass *klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAccelFilterClass *filter_class = GST_ACCEL_FILTER_CLASS (klass);

  gst_accel_filter_class_install_param (filter_class, PROP_RADIUS,
      g_param_spec_int ("radius", "Radius",
          "Half width of the square window in pixels (window 2 radius + 1)", 1,
          ACCEL_IMAGE_MAX_RADIUS, 1,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_set_static_metadata (element_class, "accel box blur",
      "Filter/Effect/Video",
      "Mean over a square window of RGBA, BGRA or GRAY8 frames",
      ACCEL_ELEMENT_AUTHOR);

  filter_class->filter = gst_accel_box_blur_filter;
  filter_class->debug_category = gst_accel_box_blur_debug;
  filter_class->neighbourhood = TRUE;
}

static void
gst_accel_box_blur_init (GstAccelBoxBlur *self)
{
}
