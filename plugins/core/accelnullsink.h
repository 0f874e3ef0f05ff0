/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel core plugin: core.null-sink, takes buffers and drops them */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_NULL_SINK (accel_null_sink_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelNullSink, accel_null_sink, ACCEL, NULL_SINK, AccelStage)

G_END_DECLS
