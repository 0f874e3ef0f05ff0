/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.fluid, a 2D stable-fluids simulation */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_FLUID (accel_fluid_get_type ())
G_DECLARE_FINAL_TYPE (AccelFluid, accel_fluid, ACCEL, FLUID, AccelStage)

G_END_DECLS
