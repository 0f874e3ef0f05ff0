/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the sequence numbers a sink has finished, kept on disk */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _AccelCommitLog AccelCommitLog;

AccelCommitLog *accel_commit_log_open (const char *path, GError **error);
void accel_commit_log_close (AccelCommitLog *log);
gboolean accel_commit_log_contains (AccelCommitLog *log, guint64 sequence);
guint64 accel_commit_log_first_uncommitted (AccelCommitLog *log);
const char *accel_commit_log_get_path (AccelCommitLog *log);
guint accel_commit_log_get_n_committed (AccelCommitLog *log);
gboolean accel_commit_log_commit (
    AccelCommitLog *log, guint64 sequence, GError **error);
void accel_commit_log_set_sync_interval (
    AccelCommitLog *log, gint64 interval_us);
gboolean accel_commit_log_sync (AccelCommitLog *log, GError **error);
GArray *accel_commit_log_dup_sequences (AccelCommitLog *log);
gboolean accel_commit_log_forget (AccelCommitLog *log, const guint64 *sequences,
    guint n_sequences, GError **error);
gboolean accel_commit_log_forget_from (
    AccelCommitLog *log, guint64 first, GError **error);
void accel_commit_log_hold_lock (AccelCommitLog *log, int lock_fd);
gboolean accel_commit_log_write_digest (
    AccelCommitLog *log, guint64 place, guint64 digest, GError **error);
gboolean accel_commit_log_find_digest (
    AccelCommitLog *log, guint64 n, guint64 *place, guint64 *digest);
gboolean accel_commit_log_has_digests (AccelCommitLog *log);
gboolean accel_commit_log_file_is_fingerprinted (const char *path);
gboolean accel_commit_log_forget_undigested (AccelCommitLog *log, guint64 from,
    guint64 to, const char *places, gchar **what, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AccelCommitLog, accel_commit_log_close)

G_END_DECLS
