/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: binary threshold element */
#pragma once

#include "gstaccelfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_ACCEL_THRESHOLD (gst_accel_threshold_get_type ())
G_DECLARE_FINAL_TYPE (GstAccelThreshold, gst_accel_threshold, GST,
    ACCEL_THRESHOLD, GstAccelFilter)

GST_ELEMENT_REGISTER_DECLARE (accelthreshold);

G_END_DECLS
