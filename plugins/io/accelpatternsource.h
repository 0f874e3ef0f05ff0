/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: io.pattern-source */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_PATTERN_SOURCE (accel_pattern_source_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelPatternSource, accel_pattern_source, ACCEL, PATTERN_SOURCE, AccelStage)

G_END_DECLS
