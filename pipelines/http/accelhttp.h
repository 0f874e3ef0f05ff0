/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: a graph's metrics over HTTP (libsoup 3); built with -Dhttp, linked
 * into accel-run, not installed: see docs/metrics.md */
#pragma once

#include <accel/accel.h>
#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _AccelHttpServer AccelHttpServer;

GInetAddress *accel_http_parse_address (const char *address, GError **error);
AccelHttpServer *accel_graph_serve_http (
    AccelGraph *graph, const char *address, guint port, GError **error);
guint accel_http_server_get_port (AccelHttpServer *server);
void accel_http_server_free (AccelHttpServer *server);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AccelHttpServer, accel_http_server_free)

G_END_DECLS
