/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: accelhistogram, accelanalysis with the histograms in its
 * messages by default */
#pragma once

#include "gstaccelanalysis.h"

G_BEGIN_DECLS

#define GST_TYPE_ACCEL_HISTOGRAM (gst_accel_histogram_get_type ())
G_DECLARE_FINAL_TYPE (GstAccelHistogram, gst_accel_histogram, GST,
    ACCEL_HISTOGRAM, GstAccelAnalysis)

GST_ELEMENT_REGISTER_DECLARE (accelhistogram);

G_END_DECLS
