/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: Gaussian blur element */
#pragma once

#include "gstaccelfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_ACCEL_GAUSSIAN_BLUR (gst_accel_gaussian_blur_get_type ())
G_DECLARE_FINAL_TYPE (GstAccelGaussianBlur, gst_accel_gaussian_blur, GST,
    ACCEL_GAUSSIAN_BLUR, GstAccelFilter)

GST_ELEMENT_REGISTER_DECLARE (accelgaussianblur);

G_END_DECLS
