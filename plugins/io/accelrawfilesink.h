/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: io.raw-file-sink */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_RAW_FILE_SINK (accel_raw_file_sink_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelRawFileSink, accel_raw_file_sink, ACCEL, RAW_FILE_SINK, AccelStage)

G_END_DECLS
