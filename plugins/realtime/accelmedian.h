/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.median */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_MEDIAN (accel_median_get_type ())
G_DECLARE_FINAL_TYPE (AccelMedian, accel_median, ACCEL, MEDIAN, AccelStage)

G_END_DECLS
