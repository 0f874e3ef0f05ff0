/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.threshold */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_THRESHOLD (accel_threshold_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelThreshold, accel_threshold, ACCEL, THRESHOLD, AccelStage)

G_END_DECLS
