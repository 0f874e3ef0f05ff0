/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel core plugin: what programs that run core.* stages read from them.
 * The stages come from the registry by kind name (accel_stage_new
 * ("core.checksum-sink", ...)); these calls read their properties, so a
 * program links no stage code of the plugin */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

guint64 accel_checksum_sink_get_n_received (AccelStage *sink);
GArray *accel_checksum_sink_get_sequences (AccelStage *sink);
GStrv accel_checksum_sink_dup_checksums (AccelStage *sink);
gchar *accel_checksum_sink_dup_digest (AccelStage *sink);

G_END_DECLS
