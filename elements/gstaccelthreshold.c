/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: binary threshold element; its parameters, its caps, memory and
 * per-frame story (logged in this element's category) live in the base
 * class */
#include "gstaccelthreshold.h"

#include "image/threshold.h"

GST_DEBUG_CATEGORY_STATIC (gst_accel_threshold_debug);
#define GST_CAT_DEFAULT gst_accel_threshold_debug

enum
{
  PROP_0,
  PROP_VALUE,
};

struct _GstAccelThreshold
{
  GstAccelFilter parent;
};

G_DEFINE_TYPE_WITH_CODE (GstAccelThreshold, gst_accel_threshold,
    GST_TYPE_ACCEL_FILTER,
    GST_DEBUG_CATEGORY_INIT (
        gst_accel_threshold_debug, "accelthreshold", 0, "accel threshold"));
GST_ELEMENT_REGISTER_DEFINE (
    accelthreshold, "accelthreshold", GST_RANK_NONE, GST_TYPE_ACCEL_THRESHOLD);

static int
gst_accel_threshold_filter (GstAccelFilter *filter, void *stream, int format,
    const void *src, size_t src_pitch, void *dst, size_t dst_pitch, int width,
    int height)
{
  gfloat value = gst_accel_filter_get_float (filter, PROP_VALUE);

  GST_LOG_OBJECT (filter, "value %g over %dx%d", value, width, height);
  if (stream)
    return accel_threshold (
        stream, format, src, src_pitch, dst, dst_pitch, width, height, value);
  return accel_threshold_host (
      format, src, src_pitch, dst, dst_pitch, width, height, value);
}

static void
gst_accel_threshold_class_init (GstAccelThresholdClass *klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAccelFilterClass *filter_class = GST_ACCEL_FILTER_CLASS (klass);

  gst_accel_filter_class_install_param (filter_class, PROP_VALUE,
      g_param_spec_float ("value", "Value",
          "Channel values above it become 255, the others 0 (alpha is kept)",
          0.0f, 255.0f, 127.0f,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_set_static_metadata (element_class, "accel threshold",
      "Filter/Effect/Video",
      "Binary threshold of every colour channel of RGBA, BGRA or GRAY8 frames",
      ACCEL_ELEMENT_AUTHOR);

  filter_class->filter = gst_accel_threshold_filter;
  filter_class->debug_category = gst_accel_threshold_debug;
}

static void
gst_accel_threshold_init (GstAccelThreshold *self)
{
}
