/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: unsharp mask element */
#pragma once

#include "gstaccelfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_ACCEL_UNSHARP (gst_accel_unsharp_get_type ())
G_DECLARE_FINAL_TYPE (
    GstAccelUnsharp, gst_accel_unsharp, GST, ACCEL_UNSHARP, GstAccelFilter)

GST_ELEMENT_REGISTER_DECLARE (accelunsharp);

G_END_DECLS
