/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: median filter element */
#pragma once

#include "gstaccelfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_ACCEL_MEDIAN (gst_accel_median_get_type ())
G_DECLARE_FINAL_TYPE (
    GstAccelMedian, gst_accel_median, GST, ACCEL_MEDIAN, GstAccelFilter)

GST_ELEMENT_REGISTER_DECLARE (accelmedian);

G_END_DECLS
