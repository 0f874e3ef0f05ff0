/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.splat, particles drawn into a frame */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_SPLAT (accel_splat_get_type ())
G_DECLARE_FINAL_TYPE (AccelSplat, accel_splat, ACCEL, SPLAT, AccelStage)

G_END_DECLS
