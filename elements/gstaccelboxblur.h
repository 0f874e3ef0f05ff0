/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: box blur element */
#pragma once

#include "gstaccelfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_ACCEL_BOX_BLUR (gst_accel_box_blur_get_type ())
G_DECLARE_FINAL_TYPE (
    GstAccelBoxBlur, gst_accel_box_blur, GST, ACCEL_BOX_BLUR, GstAccelFilter)

GST_ELEMENT_REGISTER_DECLARE (accelboxblur);

G_END_DECLS
