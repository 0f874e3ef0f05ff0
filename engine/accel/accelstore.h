/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the rendezvous store of a world of processes: rank 0's
 * supervisor serves it over TCP, every rank's worker asks it for the
 * world's generation and the keys its communicators need */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _AccelStoreServer AccelStoreServer;

AccelStoreServer *accel_store_server_new (const char *address, guint world_size,
    const char *pipeline, GError **error);
guint16 accel_store_server_get_port (AccelStoreServer *server);
const char *accel_store_server_get_address (AccelStoreServer *server);
void accel_store_server_forget_round (
    AccelStoreServer *server, guint next_workers);
void accel_store_server_free (AccelStoreServer *server);

gboolean accel_store_parse_address (
    const char *address, gchar **host, guint16 *port, GError **error);
gboolean accel_store_set (const char *address, const char *key, GBytes *value,
    guint timeout_ms, GError **error);
GBytes *accel_store_get (
    const char *address, const char *key, guint timeout_ms, GError **error);
guint accel_store_join (const char *address, guint rank, guint world_size,
    const char *pipeline, guint timeout_ms, gchar **local_host, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AccelStoreServer, accel_store_server_free)

G_END_DECLS
