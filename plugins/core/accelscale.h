/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel core plugin: core.scale, out = in * scale + offset */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_SCALE (accel_scale_get_type ())
G_DECLARE_FINAL_TYPE (AccelScale, accel_scale, ACCEL, SCALE, AccelStage)

G_END_DECLS
