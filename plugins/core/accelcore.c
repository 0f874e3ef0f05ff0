/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel core plugin: a core.checksum-sink's results, read through its
 * properties */
#define G_LOG_DOMAIN "accel-core"

#include "accelcore.h"

static gboolean
is_checksum_sink (AccelStage *stage)
{
  return ACCEL_IS_STAGE (stage)
         && g_strcmp0 (accel_stage_get_kind_name (stage), "core.checksum-sink")
                == 0;
}

/**
 * accel_checksum_sink_get_n_received:
 * @sink: a core.checksum-sink stage
 *
 * Returns: buffers checksummed so far. MT safe.
 */
guint64
accel_checksum_sink_get_n_received (AccelStage *sink)
{
  guint64 n = 0;

  g_return_val_if_fail (is_checksum_sink (sink), 0);
  g_object_get (sink, "n-received", &n, NULL);
  return n;
}

/**
 * accel_checksum_sink_get_sequences:
 * @sink: a core.checksum-sink stage
 *
 * Returns: (transfer full) (element-type guint64): the sequence numbers of
 * the last 4096 buffers of the run, in arrival order (the sink's file has
 * them all). MT safe.
 */
GArray *
accel_checksum_sink_get_sequences (AccelStage *sink)
{
  g_autoptr (GVariant) sequences = NULL;
  gconstpointer data;
  gsize n = 0;

  g_return_val_if_fail (is_checksum_sink (sink), NULL);
  g_object_get (sink, "sequences", &sequences, NULL);
  data = g_variant_get_fixed_array (sequences, &n, sizeof (guint64));
  return g_array_append_vals (
      g_array_sized_new (FALSE, FALSE, sizeof (guint64), n), data, n);
}

/**
 * accel_checksum_sink_dup_checksums:
 * @sink: a core.checksum-sink stage
 *
 * Returns: (transfer full): the SHA-256 of each of the last 4096 buffers
 * of the run, in arrival order. MT safe.
 */
GStrv
accel_checksum_sink_dup_checksums (AccelStage *sink)
{
  GStrv sums = NULL;

  g_return_val_if_fail (is_checksum_sink (sink), NULL);
  g_object_get (sink, "checksums", &sums, NULL);
  return sums;
}

/**
 * accel_checksum_sink_dup_digest:
 * @sink: a core.checksum-sink stage
 *
 * Returns: (transfer full): one SHA-256 over every buffer's line
 * "sequence sha256\n" of the run, in arrival order (what its location
 * holds): equal digests mean equal runs. MT safe.
 */
gchar *
accel_checksum_sink_dup_digest (AccelStage *sink)
{
  gchar *digest = NULL;

  g_return_val_if_fail (is_checksum_sink (sink), NULL);
  g_object_get (sink, "digest", &digest, NULL);
  return digest;
}
