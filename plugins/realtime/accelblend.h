/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.blend */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_BLEND (accel_blend_get_type ())
G_DECLARE_FINAL_TYPE (AccelBlend, accel_blend, ACCEL, BLEND, AccelStage)

G_END_DECLS
