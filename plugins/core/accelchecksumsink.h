/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel core plugin: core.checksum-sink, a SHA-256 of every buffer */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_CHECKSUM_SINK (accel_checksum_sink_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelChecksumSink, accel_checksum_sink, ACCEL, CHECKSUM_SINK, AccelStage)

G_END_DECLS
