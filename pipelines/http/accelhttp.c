/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: serves a running graph's metrics: /metrics (Prometheus text),
 * /stats.json, and / (a live page: the graph drawn by graphviz when it is
 * installed, and a table page.js updates once a second from /stats.json).
 * Requests are answered on the main context of the thread that started the
 * server. G_MESSAGES_DEBUG=accel-http tells each request */
#define G_LOG_DOMAIN "accel-http"

#include "accelhttp.h"
#include "acceldot.h"

#include <libsoup/soup.h>
#include <netinet/in.h>
#include <string.h>

#include "accelhttp-resources.h"

/* the connections open at once, at most: each holds a descriptor, which
 * the stages' files need too; past it the oldest is shut */
#define MAX_CONNECTIONS 64
/* after an accept that failed (no descriptor left), how long before the
 * next: the connection waits in the backlog, and accepting it again at
 * once would spin */
#define ACCEPT_RETRY_MS 100

/* the connections open, oldest first: on the thread that serves */
typedef struct
{
  GQueue open; /* GSocketConnection*, not owned: each leaves as it goes */
} Connections;

/* an answer built from the graph's counters, kept for the requests that
 * come while it is as recent as its own cost to build */
typedef struct
{
  gchar *body;
  gint64 built_at, cost; /* monotonic µs */
} Answer;

struct _AccelHttpServer
{
  SoupServer *server;
  AccelGraph *graph;
  gchar *page; /* the page, with the graph drawn in */
  guint port;
  guint idle_timeout_s;
  gboolean reserved; /* its descriptors, kept from the graphs' counts */
  Answer metrics, stats;
  GSocket *listener;
  GMainContext *context;
  GSource *accept_source;   /* while accepting */
  GSource *retry_source;    /* while waiting to accept again */
  Connections *connections; /* shared with the connections' weak refs */
};

/* the most a request's head (its request line and headers) may take: one
 * longer is answered 431 (414 while on its request line). libsoup's own
 * bound is the same, past which it closed the connection with no answer */
#define HEAD_LIMIT (64 * 1024)
/* RFC 6585's, which libsoup 3.2 does not know */
#define STATUS_HEADERS_TOO_LARGE 431

/* how long the page waits for dot: a graph is drawn in well under a second */
#define DOT_TIMEOUT_MS 5000

/* how long a connection may wait on its client (ACCEL_HTTP_IDLE_TIMEOUT):
 * far longer than any scraper or browser pauses within a request or between
 * kept-alive ones */
#define IDLE_TIMEOUT_S 30

/* the graph as inline SVG from graphviz's dot, or NULL without dot or
 * when it took longer than DOT_TIMEOUT_MS (accel_dot_render ()) */
static gchar *
dot_to_svg (const char *dot)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) rendered
      = accel_dot_render (dot, "svg", DOT_TIMEOUT_MS, &error);
  gsize n;
  const char *data = rendered ? g_bytes_get_data (rendered, &n) : NULL;
  const char *svg = data ? g_strstr_len (data, n, "<svg") : NULL;

  if (!svg)
    {
      g_debug ("the graph is shown as text: %s",
          error ? error->message : "dot wrote no <svg>");
      return NULL;
    }
  /* inline: without the XML declaration and doctype */
  return g_strndup (svg, n - (gsize)(svg - data));
}

/* @template with each @TITLE@ and @GRAPH@ in it replaced: markers are
 * looked for in the template only, never in what replaced one */
static gchar *
fill_page (
    const char *template, gsize size, const char *title, const char *graph)
{
  static const char *const markers[] = { "@TITLE@", "@GRAPH@" };
  const char *values[] = { title, graph };
  const char *p = template, *end = template + size;
  GString *page = g_string_sized_new (size + strlen (graph));

  while (p < end)
    {
      const char *next = NULL;
      guint which = 0;

      for (guint m = 0; m < G_N_ELEMENTS (markers); m++)
        {
          const char *at = g_strstr_len (p, end - p, markers[m]);
          if (at && (!next || at < next))
            {
              next = at;
              which = m;
            }
        }
      if (!next)
        {
          g_string_append_len (page, p, end - p);
          break;
        }
      g_string_append_len (page, p, next - p);
      g_string_append (page, values[which]);
      p = next + strlen (markers[which]);
    }
  return g_string_free (page, FALSE);
}

static gchar *
make_page (AccelGraph *graph)
{
  g_autoptr (GBytes) html = NULL;
  g_autofree gchar *dot = accel_graph_to_dot (graph);
  g_autofree gchar *drawn = dot_to_svg (dot);
  /* its bytes that are not UTF-8 as the metrics give them */
  g_autofree gchar *name
      = accel_utf8_escape_bytes (accel_graph_get_name (graph));
  g_autofree gchar *title = g_markup_escape_text (name, -1);

  html = g_resource_lookup_data (accel_http_get_resource (),
      "/org/accel/http/page.html", G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  g_assert (html);
  if (!drawn)
    {
      g_autofree gchar *text = g_markup_escape_text (dot, -1);
      drawn = g_strdup_printf ("<pre>%s</pre>", text);
    }
  return fill_page (
      g_bytes_get_data (html, NULL), g_bytes_get_size (html), title, drawn);
}

/* @answer's body, built again by @build unless it is younger than it took
 * to build: a burst of scrapes of a graph of a thousand stages, each
 * built in 0.1 s on the main loop, held a SIGTERM and every other client
 * for seconds. None is older than the time its client would have waited
 * for its own */
static gchar *
answer_body (Answer *answer, AccelGraph *graph, gchar *(*build) (AccelGraph *))
{
  gint64 now = g_get_monotonic_time ();

  if (!answer->body || now - answer->built_at > answer->cost)
    {
      g_free (answer->body);
      answer->body = build (graph);
      answer->built_at = g_get_monotonic_time ();
      answer->cost = answer->built_at - now;
      g_debug ("an answer built in %" G_GINT64_FORMAT " us", answer->cost);
    }
  return g_strdup (answer->body);
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

/* a refusal: the status line and headers of an answer with no body, after
 * which the connection is closed */
static gchar *
refusal (guint status)
{
  return g_strdup_printf ("HTTP/1.1 %u %s\r\n%sContent-Length: 0\r\n"
                          "Connection: close\r\n\r\n",
      status,
      status == STATUS_HEADERS_TOO_LARGE ? "Request Header Fields Too Large"
                                         : soup_status_get_phrase (status),
      status == SOUP_STATUS_METHOD_NOT_ALLOWED ? "Allow: GET, HEAD\r\n" : "");
}

/* every request, once its headers are read and before its body is: the
 * server takes GET and HEAD of a path without a body only (a Content-Length
 * of 0 at most). Anything else is answered here at once, its connection
 * taken from the server and closed: the body is never read, so a client
 * cannot make the server hold a body of any size. That includes what libsoup
 * would answer itself, reading the body first and keeping the connection:
 * the target "*" and a request it refused (400 for a path that does not
 * decode or a URI that is not http, set by its own got-headers handler,
 * which runs before this one). What passes reaches on_request() */
static void
on_got_headers (SoupServerMessage *msg, gpointer user_data)
{
  const char *method = soup_server_message_get_method (msg);
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  SoupEncoding encoding = soup_message_headers_get_encoding (headers);
  /* any transfer coding, and any length but 0, has a body: libsoup takes
   * "identity" for none (and the bytes after the head for a next request;
   * one it does not know it answers 501 without this handler), and gives a
   * length that does not fit (-1, past 2^63) as -1 */
  gboolean coded
      = soup_message_headers_get_one (headers, "Transfer-Encoding") != NULL;
  gboolean body
      = coded
        || (encoding != SOUP_ENCODING_NONE
            && (encoding != SOUP_ENCODING_CONTENT_LENGTH
                || soup_message_headers_get_content_length (headers) != 0));
  gboolean readable
      = g_str_equal (method, "GET") || g_str_equal (method, "HEAD");
  guint status = soup_server_message_get_status (msg);
  g_autoptr (GIOStream) stream = NULL;
  g_autofree gchar *target = NULL;
  g_autofree gchar *answer = NULL;

  if (status == 0)
    {
      if (!readable)
        status = SOUP_STATUS_METHOD_NOT_ALLOWED;
      else if (body)
        status = SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE;
      else if (soup_server_message_is_options_ping (msg))
        status = SOUP_STATUS_BAD_REQUEST;
      else
        return;
    }
  /* a GUri cannot hold "*" */
  target = soup_server_message_is_options_ping (msg)
               ? g_strdup ("*")
               : g_uri_to_string (soup_server_message_get_uri (msg));
  g_debug ("%s %s refused before its body: %u", method, target, status);
  answer = refusal (status);
  stream = soup_server_message_steal_connection (msg);
  g_output_stream_write_all (g_io_stream_get_output_stream (stream), answer,
      strlen (answer), NULL, NULL, NULL);
  g_io_stream_close (stream, NULL, NULL);
}

/* a connection's input as libsoup reads it, its heads measured on the way:
 * the server reads no body (on_got_headers() closes a connection whose
 * request has one), so what comes is heads, one after another, each ending
 * at an empty line. A head longer than HEAD_LIMIT is answered here, as
 * libsoup is to read its next byte, and the read fails, which closes the
 * connection: libsoup never gets to its own bound (no answer at all) */
#define ACCEL_TYPE_HTTP_HEADS (accel_http_heads_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelHttpHeads, accel_http_heads, ACCEL, HTTP_HEADS, GFilterInputStream)

struct _AccelHttpHeads
{
  GFilterInputStream parent;

  GIOStream *connection; /* the socket's: its output takes the refusal */
  gsize head;            /* bytes of the head being read */
  gsize line;            /* bytes of its line since its last newline */
  gboolean line_cr;      /* the line's first byte is a carriage return */
  gboolean past_first;   /* its request line ended */
  guint refused;         /* 0, or the status to answer at the next read */
  gboolean answered;
};

static void accel_http_heads_pollable_init (
    GPollableInputStreamInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (AccelHttpHeads, accel_http_heads,
    G_TYPE_FILTER_INPUT_STREAM,
    G_IMPLEMENT_INTERFACE (
        G_TYPE_POLLABLE_INPUT_STREAM, accel_http_heads_pollable_init))

/* how many of @n bytes read at @data belong to heads within HEAD_LIMIT;
 * past it, self->refused says how to answer. A head ends where libsoup's
 * does: at an empty line ("\n" or "\r\n") after at least 2 (3) of its
 * bytes */
static gsize
heads_scan (AccelHttpHeads *self, const guint8 *data, gsize n)
{
  for (gsize i = 0; i < n; i++)
    {
      if (self->head == HEAD_LIMIT)
        {
          self->refused = self->past_first ? STATUS_HEADERS_TOO_LARGE
                                           : SOUP_STATUS_REQUEST_URI_TOO_LONG;
          return i;
        }
      if (data[i] != '\n')
        {
          if (self->line == 0)
            self->line_cr = data[i] == '\r';
          self->line++;
          self->head++;
          continue;
        }
      if ((self->line == 0 && self->head >= 2)
          || (self->line == 1 && self->line_cr && self->head >= 4))
        {
          self->head = 0;
          self->past_first = FALSE;
        }
      else
        {
          self->head++;
          /* an empty line before a request line is skipped, as libsoup
           * does */
          self->past_first |= self->line > (self->line_cr ? 1u : 0u);
        }
      self->line = 0;
    }
  return n;
}

static gssize
heads_read (AccelHttpHeads *self, void *buffer, gsize count, gboolean blocking,
    GCancellable *cancellable, GError **error)
{
  GInputStream *base = G_FILTER_INPUT_STREAM (self)->base_stream;
  gssize n;
  gsize kept;

  if (!self->refused)
    {
      n = g_pollable_stream_read (
          base, buffer, count, blocking, cancellable, error);
      if (n <= 0)
        return n;
      kept = heads_scan (self, buffer, n);
      if (kept > 0)
        return kept;
    }
  if (!self->answered)
    {
      g_autofree gchar *answer = refusal (self->refused);
      GOutputStream *out = g_io_stream_get_output_stream (self->connection);
      guint8 rest[4096];

      self->answered = TRUE;
      g_debug ("a request's head is longer than %d bytes: %u", HEAD_LIMIT,
          self->refused);
      g_output_stream_write_all (
          out, answer, strlen (answer), NULL, NULL, NULL);
      /* the client may still be sending its head: what came already is read
       * (a head's worth at most) before libsoup closes the connection, which
       * would otherwise reset it, and the client could lose the answer */
      g_socket_shutdown (g_socket_connection_get_socket (
                             G_SOCKET_CONNECTION (self->connection)),
          FALSE, TRUE, NULL);
      for (gssize got = 1, drained = 0; got > 0 && drained < HEAD_LIMIT;
           drained += got)
        got = g_pollable_input_stream_read_nonblocking (
            G_POLLABLE_INPUT_STREAM (base), rest, sizeof (rest), NULL, NULL);
    }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
      "a request's head is longer than %d bytes", HEAD_LIMIT);
  return -1;
}

static gssize
accel_http_heads_read (GInputStream *stream, void *buffer, gsize count,
    GCancellable *cancellable, GError **error)
{
  return heads_read (
      ACCEL_HTTP_HEADS (stream), buffer, count, TRUE, cancellable, error);
}

static gssize
accel_http_heads_read_nonblocking (
    GPollableInputStream *stream, void *buffer, gsize count, GError **error)
{
  return heads_read (
      ACCEL_HTTP_HEADS (stream), buffer, count, FALSE, NULL, error);
}

static gboolean
accel_http_heads_is_readable (GPollableInputStream *stream)
{
  AccelHttpHeads *self = ACCEL_HTTP_HEADS (stream);

  return self->refused
         || g_pollable_input_stream_is_readable (G_POLLABLE_INPUT_STREAM (
             G_FILTER_INPUT_STREAM (self)->base_stream));
}

static GSource *
accel_http_heads_create_source (
    GPollableInputStream *stream, GCancellable *cancellable)
{
  GPollableInputStream *base
      = G_POLLABLE_INPUT_STREAM (G_FILTER_INPUT_STREAM (stream)->base_stream);
  g_autoptr (GSource) base_source
      = g_pollable_input_stream_create_source (base, NULL);

  return g_pollable_source_new_full (stream, base_source, cancellable);
}

static void
accel_http_heads_finalize (GObject *object)
{
  g_clear_object (&ACCEL_HTTP_HEADS (object)->connection);
  G_OBJECT_CLASS (accel_http_heads_parent_class)->finalize (object);
}

static void
accel_http_heads_class_init (AccelHttpHeadsClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = accel_http_heads_finalize;
  G_INPUT_STREAM_CLASS (klass)->read_fn = accel_http_heads_read;
}

static void
accel_http_heads_pollable_init (GPollableInputStreamInterface *iface)
{
  iface->read_nonblocking = accel_http_heads_read_nonblocking;
  iface->is_readable = accel_http_heads_is_readable;
  iface->create_source = accel_http_heads_create_source;
}

static void
accel_http_heads_init (AccelHttpHeads *self)
{
}

/* @client's connection as libsoup takes it: a GSocketConnection (the socket
 * and its timeout are found from it, and closing it closes the socket)
 * whose input is measured by an AccelHttpHeads */
static GSocketConnection *
connection_new (GSocket *client)
{
  g_autoptr (GSocketConnection) plain
      = g_socket_connection_factory_create_connection (client);
  g_autoptr (AccelHttpHeads) heads = g_object_new (ACCEL_TYPE_HTTP_HEADS,
      "base-stream", g_io_stream_get_input_stream (G_IO_STREAM (plain)), NULL);
  g_autoptr (GIOStream) measured = NULL;

  /* the heads hold the plain connection: dropped, it would close the
   * streams it made */
  heads->connection = G_IO_STREAM (g_object_ref (plain));
  measured = g_simple_io_stream_new (G_INPUT_STREAM (heads),
      g_io_stream_get_output_stream (G_IO_STREAM (plain)));
  return g_tcp_wrapper_connection_new (measured, client);
}

/* a connection's first message is started as it is accepted, before the
 * client has sent a byte (later ones as their first byte comes) */
static void
on_request_started (
    SoupServer *server, SoupServerMessage *msg, gpointer user_data)
{
  AccelHttpServer *self = user_data;
  GSocket *socket = soup_server_message_get_socket (msg);

  /* libsoup has no idle timeout of its own: with one on the socket, a wait
   * of more than that for a byte to read or room to write fails, and libsoup
   * closes the connection. Without it a client that sends nothing, or half
   * a request, would hold a descriptor for good */
  if (socket)
    g_socket_set_timeout (socket, self->idle_timeout_s);
  g_signal_connect (msg, "got-headers", G_CALLBACK (on_got_headers), NULL);
}

static void
on_request (SoupServer *server, SoupServerMessage *msg, const char *path,
    GHashTable *query, gpointer user_data)
{
  AccelHttpServer *self = user_data;

  g_debug ("%s %s", soup_server_message_get_method (msg), path);
  /* libsoup answers a Range itself, from the whole body: "bytes=0-,0-,…"
   * made a 12 KB answer 97 MB. The answers are small: always whole */
  soup_message_headers_remove (
      soup_server_message_get_request_headers (msg), "Range");
  /* libsoup before 3.3.0 never closes a kept-alive connection its client
   * closed: one socket leaked per connection, until the descriptors run
   * out. Connection: close has the server close it after the answer (every
   * other answer is on_got_headers()'s, which closes its connection) */
  if (!soup_check_version (3, 3, 0))
    soup_message_headers_replace (
        soup_server_message_get_response_headers (msg), "Connection", "close");
  if (g_str_equal (path, "/metrics"))
    reply (msg, "text/plain; version=0.0.4; charset=utf-8",
        answer_body (
            &self->metrics, self->graph, accel_graph_metrics_to_prometheus));
  else if (g_str_equal (path, "/stats.json"))
    reply (msg, "application/json",
        answer_body (&self->stats, self->graph, accel_graph_metrics_to_json));
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

/* the longest GSocket timeout: its source's deadline is the seconds times
 * 1000000 in 32 bits, so 4295 s wrapped to 0.03 s */
#define IDLE_TIMEOUT_MAX_S 4294

/* IDLE_TIMEOUT_S, or ACCEL_HTTP_IDLE_TIMEOUT's seconds: a GSocket's timeout
 * counts in whole seconds */
static guint
idle_timeout (void)
{
  const char *env = g_getenv ("ACCEL_HTTP_IDLE_TIMEOUT");
  guint64 s = IDLE_TIMEOUT_S;

  if (env
      && !g_ascii_string_to_unsigned (env, 10, 1, IDLE_TIMEOUT_MAX_S, &s, NULL))
    {
      g_warning ("ACCEL_HTTP_IDLE_TIMEOUT must be seconds from 1 to %d, not "
                 "'%s'; closing connections idle for %d s",
          IDLE_TIMEOUT_MAX_S, env, IDLE_TIMEOUT_S);
      s = IDLE_TIMEOUT_S;
    }
  return (guint)s;
}

static void arm_accept (AccelHttpServer *self);

static void
connection_gone (gpointer data, GObject *where_the_object_was)
{
  Connections *connections = data;

  g_queue_remove (&connections->open, where_the_object_was);
  g_atomic_rc_box_release (connections);
}

/* the oldest connection is shut down to make room: 64 clients that
 * connect and send nothing (or a client that keeps reconnecting) kept
 * every other out until the idle timeout; libsoup sees its end and lets
 * it go */
static void
shut_oldest (Connections *connections)
{
  GSocketConnection *oldest = g_queue_pop_head (&connections->open);

  g_debug ("%d connections open: the oldest is shut", MAX_CONNECTIONS);
  /* no longer counted: its weak reference finds it gone from the queue */
  g_socket_shutdown (g_socket_connection_get_socket (oldest), TRUE, TRUE, NULL);
}

static gboolean
retry_accept (gpointer data)
{
  AccelHttpServer *self = data;

  g_clear_pointer (&self->retry_source, g_source_unref);
  arm_accept (self);
  return G_SOURCE_REMOVE;
}

/* a client connects: its connection goes to libsoup, the oldest shut when
 * MAX_CONNECTIONS are open already. Accepting here rather than in libsoup
 * bounds the descriptors, and lives through running out of them:
 * libsoup's listener stopped for good at the first accept that failed */
static gboolean
on_incoming (GSocket *listener, GIOCondition condition, gpointer data)
{
  AccelHttpServer *self = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GSocket) client = g_socket_accept (listener, NULL, &error);
  g_autoptr (GSocketConnection) connection = NULL;
  g_autoptr (GSocketAddress) local = NULL, remote = NULL;

  if (!client)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
        return G_SOURCE_CONTINUE;
      g_debug ("cannot accept a connection: %s; again in %d ms", error->message,
          ACCEPT_RETRY_MS);
      g_clear_pointer (&self->accept_source, g_source_unref);
      self->retry_source = g_timeout_source_new (ACCEPT_RETRY_MS);
      g_source_set_callback (self->retry_source, retry_accept, self, NULL);
      g_source_attach (self->retry_source, self->context);
      return G_SOURCE_REMOVE;
    }
  if (self->connections->open.length >= MAX_CONNECTIONS)
    shut_oldest (self->connections);
  g_socket_set_timeout (client, self->idle_timeout_s);
  connection = connection_new (client);
  local = g_socket_get_local_address (client, NULL);
  remote = g_socket_get_remote_address (client, NULL);
  if (!local || !remote
      || !soup_server_accept_iostream (
          self->server, G_IO_STREAM (connection), local, remote, &error))
    {
      g_debug ("a connection dropped: %s",
          error ? error->message : "its addresses are unknown");
      g_socket_close (client, NULL);
      return G_SOURCE_CONTINUE;
    }
  g_queue_push_tail (&self->connections->open, connection);
  g_object_weak_ref (G_OBJECT (connection), connection_gone,
      g_atomic_rc_box_acquire (self->connections));
  return G_SOURCE_CONTINUE;
}

static void
arm_accept (AccelHttpServer *self)
{
  self->accept_source = g_socket_create_source (self->listener, G_IO_IN, NULL);
  g_source_set_callback (
      self->accept_source, G_SOURCE_FUNC (on_incoming), self, NULL);
  g_source_attach (self->accept_source, self->context);
}

/* a socket listening on @address; "::" takes IPv4 clients as well */
static GSocket *
listen_on (GSocketAddress *address, GError **error)
{
  g_autoptr (GSocket) socket
      = g_socket_new (g_socket_address_get_family (address),
          G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, error);

  if (!socket)
    return NULL;
  if (g_socket_address_get_family (address) == G_SOCKET_FAMILY_IPV6)
    g_socket_set_option (socket, IPPROTO_IPV6, IPV6_V6ONLY, 0, NULL);
  g_socket_set_blocking (socket, FALSE);
  /* a burst of clients waits to be accepted rather than being refused */
  g_socket_set_listen_backlog (socket, 128);
  if (!g_socket_bind (socket, address, TRUE, error)
      || !g_socket_listen (socket, error))
    return NULL;
  return g_steal_pointer (&socket);
}

/**
 * accel_http_parse_address:
 * @address: (nullable): an IP address, such as 127.0.0.1 or ::1; %NULL:
 *   127.0.0.1
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full) (nullable): the address to listen on, or %NULL
 * with %G_IO_ERROR_INVALID_ARGUMENT for anything else (a host name is not
 * looked up) and for a multicast or the broadcast address.
 */
GInetAddress *
accel_http_parse_address (const char *address, GError **error)
{
  const char *text = address ? address : "127.0.0.1";
  GInetAddress *inet = g_inet_address_new_from_string (text);

  if (!inet)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
          "'%s' is not an IP address, such as 127.0.0.1 or ::1", address);
      return NULL;
    }
  /* a group or the broadcast address binds, and no client reaches it */
  if (g_inet_address_get_is_multicast (inet)
      || g_str_equal (text, "255.255.255.255"))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
          "'%s' is a %s address, which no client connects to; give one of "
          "this machine's, or 0.0.0.0 or :: for all of them",
          address,
          g_inet_address_get_is_multicast (inet) ? "multicast" : "broadcast");
      g_object_unref (inet);
      return NULL;
    }
  return inet;
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
  g_autoptr (GSocketAddress) sockaddr = NULL, bound = NULL;

  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), NULL);
  g_return_val_if_fail (port <= G_MAXUINT16, NULL);

  inet = accel_http_parse_address (address, error);
  if (!inet)
    return NULL;
  self = g_new0 (AccelHttpServer, 1);
  self->graph = g_object_ref (graph);
  self->page = make_page (graph);
  self->idle_timeout_s = idle_timeout ();
  self->server = soup_server_new ("server-header", "accel ", NULL);
  g_signal_connect (
      self->server, "request-started", G_CALLBACK (on_request_started), self);
  soup_server_add_handler (self->server, NULL, on_request, self, NULL);
  sockaddr = g_inet_socket_address_new (inet, (guint16)port);
  if (!(self->listener = listen_on (sockaddr, error)))
    return NULL;
  bound = g_socket_get_local_address (self->listener, error);
  if (!bound)
    return NULL;
  self->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  self->connections = g_atomic_rc_box_new0 (Connections);
  self->context = g_main_context_ref_thread_default ();
  /* its connections and listener, which no graph's count of its own needs
   * would leave free */
  accel_graph_reserve_descriptors (MAX_CONNECTIONS + 1);
  self->reserved = TRUE;
  arm_accept (self);
  return g_steal_pointer (&self);
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
  if (server->accept_source)
    g_source_destroy (server->accept_source);
  g_clear_pointer (&server->accept_source, g_source_unref);
  if (server->retry_source)
    g_source_destroy (server->retry_source);
  g_clear_pointer (&server->retry_source, g_source_unref);
  if (server->listener)
    g_socket_close (server->listener, NULL);
  g_clear_object (&server->listener);
  g_clear_pointer (&server->context, g_main_context_unref);
  g_clear_pointer (&server->connections, g_atomic_rc_box_release);
  if (server->server)
    {
      soup_server_disconnect (server->server);
      g_object_unref (server->server);
    }
  g_clear_object (&server->graph);
  if (server->reserved)
    accel_graph_reserve_descriptors (-(MAX_CONNECTIONS + 1));
  g_free (server->metrics.body);
  g_free (server->stats.body);
  g_free (server->page);
  g_free (server);
}
