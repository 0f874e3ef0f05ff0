/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the fused video effects element */
#pragma once

#include "gstaccelfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_ACCEL_EFFECTS (gst_accel_effects_get_type ())
G_DECLARE_FINAL_TYPE (
    GstAccelEffects, gst_accel_effects, GST, ACCEL_EFFECTS, GstAccelFilter)

GST_ELEMENT_REGISTER_DECLARE (acceleffects);

G_END_DECLS
