/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.analysis */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_ANALYSIS (accel_analysis_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelAnalysis, accel_analysis, ACCEL, ANALYSIS, AccelStage)

G_END_DECLS
