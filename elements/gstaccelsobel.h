/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: Sobel edge magnitude element */
#pragma once

#include "gstaccelfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_ACCEL_SOBEL (gst_accel_sobel_get_type ())
G_DECLARE_FINAL_TYPE (
    GstAccelSobel, gst_accel_sobel, GST, ACCEL_SOBEL, GstAccelFilter)

GST_ELEMENT_REGISTER_DECLARE (accelsobel);

G_END_DECLS
