/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: accelhistogram: accelanalysis whose messages carry the histograms
 * unless told otherwise; everything else is accelanalysis's, which logs in
 * this element's own category */
#include "gstaccelhistogram.h"

GST_DEBUG_CATEGORY_STATIC (gst_accel_histogram_debug);
#define GST_CAT_DEFAULT gst_accel_histogram_debug

struct _GstAccelHistogram
{
  GstAccelAnalysis parent;
};

G_DEFINE_TYPE_WITH_CODE (GstAccelHistogram, gst_accel_histogram,
    GST_TYPE_ACCEL_ANALYSIS,
    GST_DEBUG_CATEGORY_INIT (
        gst_accel_histogram_debug, "accelhistogram", 0, "accel histogram"));
GST_ELEMENT_REGISTER_DEFINE (
    accelhistogram, "accelhistogram", GST_RANK_NONE, GST_TYPE_ACCEL_HISTOGRAM);

/* here, not in init: a property set in g_object_new() comes after this
 * and wins */
static void
gst_accel_histogram_constructed (GObject *object)
{
  G_OBJECT_CLASS (gst_accel_histogram_parent_class)->constructed (object);
  g_object_set (object, "histogram", TRUE, NULL);
}

static void
gst_accel_histogram_class_init (GstAccelHistogramClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->constructed = gst_accel_histogram_constructed;
  GST_ACCEL_FILTER_CLASS (klass)->debug_category = gst_accel_histogram_debug;
  gst_element_class_set_static_metadata (element_class, "accel histogram",
      "Filter/Analyzer/Video",
      "Posts the 256-bin histograms of RGBA or BGRA frames (and their "
      "statistics and motion energy) as element messages; accelanalysis "
      "with histogram=true by default",
      ACCEL_ELEMENT_AUTHOR);
}

static void
gst_accel_histogram_init (GstAccelHistogram *self)
{
}
