/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the cloth simulation source */
#pragma once

#include "gstaccelsimsrc.h"

G_BEGIN_DECLS

#define GST_TYPE_ACCEL_CLOTH (gst_accel_cloth_get_type ())
G_DECLARE_FINAL_TYPE (
    GstAccelCloth, gst_accel_cloth, GST, ACCEL_CLOTH, GstAccelSimSrc)

GST_ELEMENT_REGISTER_DECLARE (accelcloth);

G_END_DECLS
