/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the fluid simulation source */
#pragma once

#include "gstaccelsimsrc.h"

G_BEGIN_DECLS

#define GST_TYPE_ACCEL_FLUID (gst_accel_fluid_get_type ())
G_DECLARE_FINAL_TYPE (
    GstAccelFluid, gst_accel_fluid, GST, ACCEL_FLUID, GstAccelSimSrc)

GST_ELEMENT_REGISTER_DECLARE (accelfluid);

G_END_DECLS
