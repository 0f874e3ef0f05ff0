/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: serves a running graph's metrics: /metrics (Prometheus text),
 * /stats.json, and / (a live page: the graph drawn by graphviz when it is
 * installed, and a table page.js updates once a second from /stats.json).
 * Requests are answered on the main context of the thread that started the
 * server. G_MESSAGES_DEBUG=accel-http tells each request */
#define G_LOG_DOMAIN "accel-http"

#include "accelhttp.h"

#include <libsoup/soup.h>
#include <string.h>

#include "accelhttp-resources.h"

struct _AccelHttpServer
{
  SoupServer *server;
  AccelGraph *graph;
  gchar *page; /* the page, with the graph drawn in */
  guint port;
};

/* the graph as inline SVG from graphviz's dot, or NULL without dot */
static gchar *
dot_to_svg (const char *dot)
{
  g_autoptr (GSubprocess) proc = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree gchar *out = NULL;
  const char *svg;

  proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE
                               | G_SUBPROCESS_FLAGS_STDOUT_PIPE
                               | G_SUBPROCESS_FLAGS_STDERR_SILENCE,
      &error, "dot", "-Tsvg", NULL);
  if (!proc
      || !g_subprocess_communicate_utf8 (proc, dot, NULL, &out, NULL, &error))
    goto failed;
  if (!g_subprocess_get_if_exited (proc)
      || g_subprocess_get_exit_status (proc) != 0)
    goto failed;
  /* inline: without the XML declaration and doctype */
  svg = out ? strstr (out, "<svg") : NULL;
  if (!svg)
    goto failed;
  return g_strdup (svg);

  /* ERRORS */
failed:
  {
    g_debug ("the graph is shown as text: dot -Tsvg failed%s%s",
        error ? ": " : "", error ? error->message : "");
    return NULL;
  }
}

static gchar *
make_page (AccelGraph *graph)
{
  g_autoptr (GBytes) html = NULL;
  g_autofree gchar *dot = accel_graph_to_dot (graph);
  g_autofree gchar *drawn = dot_to_svg (dot);
  g_autofree gchar *title
      = g_markup_escape_text (accel_graph_get_name (graph), -1);
  g_auto (GStrv) parts = NULL;
  GString *page;

  html = g_resource_lookup_data (accel_http_get_resource (),
      "/org/accel/http/page.html", G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  g_assert (html);
  if (!drawn)
    {
      g_autofree gchar *text = g_markup_escape_text (dot, -1);
      drawn = g_strdup_printf ("<pre>%s</pre>", text);
    }
  page = g_string_new_len (
      g_bytes_get_data (html, NULL), (gssize)g_bytes_get_size (html));
  g_string_replace (page, "@TITLE@", title, 0);
  g_string_replace (page, "@GRAPH@", drawn, 0);
  return g_string_free (page, FALSE);
}

static void
reply (SoupServerMessage *msg, const char *type, gchar *body)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);

  soup_message_headers_replace (headers, "Cache-Control", "no-store");
  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_server_message_set_response (
      msg, type, SOUP_MEMORY_TAKE, body, strlen (body));
}

static void
on_request (SoupServer *server, SoupServerMessage *msg, const char *path,
    GHashTable *query, gpointer user_data)
{
  AccelHttpServer *self = user_data;
  const char *method = soup_server_message_get_method (msg);

  g_debug ("%s %s", method, path);
  if (!g_str_equal (method, "GET") && !g_str_equal (method, "HEAD"))
    {
      soup_server_message_set_status (
          msg, SOUP_STATUS_METHOD_NOT_ALLOWED, NULL);
      return;
    }
  if (g_str_equal (path, "/metrics"))
    reply (msg, "text/plain; version=0.0.4; charset=utf-8",
        accel_graph_metrics_to_prometheus (self->graph));
  else if (g_str_equal (path, "/stats.json"))
    reply (msg, "application/json", accel_graph_metrics_to_json (self->graph));
  else if (g_str_equal (path, "/"))
    reply (msg, "text/html; charset=utf-8", g_strdup (self->page));
  else if (g_str_equal (path, "/page.js"))
    {
      g_autoptr (GBytes) js
          = g_resource_lookup_data (accel_http_get_resource (),
              "/org/accel/http/page.js", G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
      reply (msg, "text/javascript; charset=utf-8",
          g_strndup (g_bytes_get_data (js, NULL), g_bytes_get_size (js)));
    }
  else
    soup_server_message_set_status (msg, SOUP_STATUS_NOT_FOUND, NULL);
}

/**
 * accel_graph_serve_http:
 * @graph: a prepared or running graph
 * @address: (nullable): the address to listen on; %NULL: 127.0.0.1
 * @port: the TCP port, or 0 for one the system picks
 *   (accel_http_server_get_port() tells which)
 * @error: return location for a #GError, or %NULL
 *
 * Serves @graph's metrics until accel_http_server_free(): `/metrics`
 * (accel_graph_metrics_to_prometheus()), `/stats.json`
 * (accel_graph_metrics_to_json()) and `/`, the live page. Requests are
 * answered by the thread-default main context of the calling thread, which
 * must run; free the server before accel_graph_stop().
 *
 * Returns: (transfer full): the server, or %NULL when the address cannot be
 * bound. Called from the thread whose main context serves it.
 */
AccelHttpServer *
accel_graph_serve_http (
    AccelGraph *graph, const char *address, guint port, GError **error)
{
  g_autoptr (AccelHttpServer) self = NULL;
  g_autoptr (GInetAddress) inet = NULL;
  g_autoptr (GSocketAddress) sockaddr = NULL;
  GSList *uris;

  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), NULL);
  g_return_val_if_fail (port <= G_MAXUINT16, NULL);

  inet = g_inet_address_new_from_string (address ? address : "127.0.0.1");
  if (!inet)
    goto bad_address;
  self = g_new0 (AccelHttpServer, 1);
  self->graph = g_object_ref (graph);
  self->page = make_page (graph);
  self->server = soup_server_new ("server-header", "accel ", NULL);
  soup_server_add_handler (self->server, NULL, on_request, self, NULL);
  sockaddr = g_inet_socket_address_new (inet, (guint16)port);
  if (!soup_server_listen (self->server, sockaddr, 0, error))
    return NULL;
  uris = soup_server_get_uris (self->server);
  if (uris)
    self->port = (guint)g_uri_get_port (uris->data);
  g_slist_free_full (uris, (GDestroyNotify)g_uri_unref);
  return g_steal_pointer (&self);

  /* ERRORS */
bad_address:
  {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
        "'%s' is not an IP address", address);
    return NULL;
  }
}

/**
 * accel_http_server_get_port:
 * @server: a server
 *
 * Returns: the TCP port it listens on. MT safe.
 */
guint
accel_http_server_get_port (AccelHttpServer *server)
{
  g_return_val_if_fail (server != NULL, 0);
  return server->port;
}

/**
 * accel_http_server_free:
 * @server: (transfer full): a server
 *
 * Stops listening, closes the connections and frees @server. Called from the
 * thread that started it.
 */
void
accel_http_server_free (AccelHttpServer *server)
{
  if (!server)
    return;
  if (server->server)
    {
      soup_server_disconnect (server->server);
      g_object_unref (server->server);
    }
  g_clear_object (&server->graph);
  g_free (server->page);
  g_free (server);
}
