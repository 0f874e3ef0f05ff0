/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: io.raw-file-source */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_RAW_FILE_SOURCE (accel_raw_file_source_get_type ())
G_DECLARE_FINAL_TYPE (AccelRawFileSource, accel_raw_file_source, ACCEL,
    RAW_FILE_SOURCE, AccelStage)

G_END_DECLS
