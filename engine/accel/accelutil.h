/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: small utilities shared by the engine and its front ends */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

guint accel_str_edit_distance (const char *a, const char *b);
gint64 accel_deadline_after (gint64 timeout_us);
GThread *accel_thread_try_new (
    const char *name, GThreadFunc func, gpointer data, GError **error);
gchar **accel_description_locations (const char *description);
gboolean accel_file_read_capped (const char *path, gsize max_bytes,
    const char *what, gchar **contents, gsize *length, GError **error);
gchar *accel_str_escape_controls (const char *text, gboolean keep_lines);

/**
 * ACCEL_DIGEST_INIT:
 *
 * The digest of no bytes, where accel_digest_bytes() starts.
 */
#define ACCEL_DIGEST_INIT G_GUINT64_CONSTANT (14695981039346656037)
guint64 accel_digest_bytes (guint64 digest, gconstpointer data, gsize size);

G_END_DECLS
