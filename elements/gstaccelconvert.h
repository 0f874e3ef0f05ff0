/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: colour conversion and scaling */
#pragma once

#include "gstaccelfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_ACCEL_CONVERT (gst_accel_convert_get_type ())
G_DECLARE_FINAL_TYPE (
    GstAccelConvert, gst_accel_convert, GST, ACCEL_CONVERT, GstAccelFilter)

GST_ELEMENT_REGISTER_DECLARE (accelconvert);

G_END_DECLS
