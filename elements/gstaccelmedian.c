/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: median filter element; its parameters, its caps, memory and
 * per-frame story (logged in this element's category) live in the base
 * class */
#include "gstaccelmedian.h"

#include "image/median.h"

GST_DEBUG_CATEGORY_STATIC (gst_accel_median_debug);
#define GST_CAT_DEFAULT gst_accel_median_debug

typedef enum
{
  GST_ACCEL_MEDIAN_3X3 = 3,
  GST_ACCEL_MEDIAN_5X5 = 5,
} GstAccelMedianSize;

#define GST_TYPE_ACCEL_MEDIAN_SIZE (gst_accel_median_size_get_type ())
static GType gst_accel_median_size_get_type (void);
G_DEFINE_ENUM_TYPE (GstAccelMedianSize, gst_accel_median_size,
    G_DEFINE_ENUM_VALUE (GST_ACCEL_MEDIAN_3X3, "3x3"),
    G_DEFINE_ENUM_VALUE (GST_ACCEL_MEDIAN_5X5, "5x5"))

enum
{
  PROP_0,
  PROP_SIZE,
};

struct _GstAccelMedian
{
  GstAccelFilter parent;
};

G_DEFINE_TYPE_WITH_CODE (GstAccelMedian, gst_accel_median,
    GST_TYPE_ACCEL_FILTER,
    GST_DEBUG_CATEGORY_INIT (
        gst_accel_median_debug, "accelmedian", 0, "accel median"));
GST_ELEMENT_REGISTER_DEFINE (
    accelmedian, "accelmedian", GST_RANK_NONE, GST_TYPE_ACCEL_MEDIAN);

static int
gst_accel_median_filter (GstAccelFilter *filter, void *stream, int format,
    const void *src, size_t src_pitch, void *dst, size_t dst_pitch, int width,
    int height)
{
  int size = (int)gst_accel_filter_get_float (filter, PROP_SIZE);

  GST_LOG_OBJECT (filter, "%dx%d window over %dx%d", size, size, width, height);
  if (stream)
    return accel_median (
        stream, format, src, src_pitch, dst, dst_pitch, width, height, size);
  return accel_median_host (
      format, src, src_pitch, dst, dst_pitch, width, height, size);
}

static void
gst_accel_median_class_init (GstAccelMedianClass *klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAccelFilterClass *filter_class = GST_ACCEL_FILTER_CLASS (klass);

  gst_accel_filter_class_install_param (filter_class, PROP_SIZE,
      g_param_spec_enum ("size", "Size", "Window of the median: 3x3 or 5x5",
          GST_TYPE_ACCEL_MEDIAN_SIZE, GST_ACCEL_MEDIAN_3X3,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));
  gst_type_mark_as_plugin_api (GST_TYPE_ACCEL_MEDIAN_SIZE, 0);

  gst_element_class_set_static_metadata (element_class, "accel median",
      "Filter/Effect/Video",
      "Median of every channel over a 3x3 or 5x5 window of RGBA, BGRA or GRAY8 "
      "frames (removes salt-and-pepper noise, keeps edges)",
      ACCEL_ELEMENT_AUTHOR);

  filter_class->filter = gst_accel_median_filter;
  filter_class->debug_category = gst_accel_median_debug;
  filter_class->neighbourhood = TRUE;
}

static void
gst_accel_median_init (GstAccelMedian *self)
{
}
