/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.effects */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_EFFECTS (accel_effects_get_type ())
G_DECLARE_FINAL_TYPE (AccelEffects, accel_effects, ACCEL, EFFECTS, AccelStage)

G_END_DECLS
