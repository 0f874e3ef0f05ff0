/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the engine's built-in stages (kind names "core.*") */
#pragma once

#include <accel/accelstage.h>

G_BEGIN_DECLS

/* core.test-source: deterministic tensors or images */
#define ACCEL_TYPE_TEST_SOURCE (accel_test_source_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelTestSource, accel_test_source, ACCEL, TEST_SOURCE, AccelStage)

/* core.scale: out = in * scale + offset */
#define ACCEL_TYPE_SCALE (accel_scale_get_type ())
G_DECLARE_FINAL_TYPE (AccelScale, accel_scale, ACCEL, SCALE, AccelStage)

/* core.checksum-sink: records a checksum of every buffer */
#define ACCEL_TYPE_CHECKSUM_SINK (accel_checksum_sink_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelChecksumSink, accel_checksum_sink, ACCEL, CHECKSUM_SINK, AccelStage)

guint64 accel_checksum_sink_get_n_received (AccelChecksumSink *sink);
GArray *accel_checksum_sink_get_sequences (AccelChecksumSink *sink);
GStrv accel_checksum_sink_dup_checksums (AccelChecksumSink *sink);
gchar *accel_checksum_sink_dup_digest (AccelChecksumSink *sink);

/* core.null-sink: takes buffers and drops them */
#define ACCEL_TYPE_NULL_SINK (accel_null_sink_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelNullSink, accel_null_sink, ACCEL, NULL_SINK, AccelStage)

/* core.memcpy: copies between memory kinds and devices; the graph inserts it */
#define ACCEL_TYPE_MEMCPY (accel_memcpy_get_type ())
G_DECLARE_FINAL_TYPE (AccelMemcpy, accel_memcpy, ACCEL, MEMCPY, AccelStage)

#define ACCEL_TYPE_MEMORY (accel_memory_get_type ())
GType accel_memory_get_type (void);

G_END_DECLS
