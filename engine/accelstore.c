/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the rendezvous store's client. Each request is a connection of
 * its own, one line each way: a request that waits for a key never holds
 * up another thread's request (two ranks' threads each waiting for a key
 * the other is about to set would otherwise wait for each other). The
 * coordinator may start after a rank, so connecting is retried until the
 * request's deadline. A request gives up at once when the thread's current
 * cancellable is cancelled: a stage's start () runs with one that its
 * graph's interrupted start cancels. G_MESSAGES_DEBUG=accel-store */
#define G_LOG_DOMAIN "accel-store"

#include "accel-private.h"

#include <gio/gio.h>
#include <unistd.h>

/* how long a refused connection waits before the next try */
#define RETRY_MS 100

/* the thread's start was interrupted (see accel_stage_is_interrupted ()) */
static gboolean
set_if_interrupted (
    GCancellable *cancellable, const char *address, GError **error)
{
  if (!g_cancellable_is_cancelled (cancellable))
    return FALSE;
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED,
      "interrupted while waiting for the world's coordinator at %s", address);
  return TRUE;
}

static GSocketConnection *
connect_until (const char *address, gint64 deadline, GCancellable *cancellable,
    GError **error)
{
  g_autoptr (GSocketClient) client = g_socket_client_new ();
  g_autoptr (GSocketConnectable) where = NULL;
  g_autoptr (GError) last = NULL;
  g_autofree gchar *host = NULL;
  guint16 port;

  if (!accel_store_parse_address (address, &host, &port, error))
    return NULL;
  /* the host as parsed: the address itself, an IPv6 one unbracketed,
   * could not be resolved */
  where = g_network_address_new (host, port);
  g_socket_client_set_timeout (client, 5);
  for (;;)
    {
      GSocketConnection *c;

      g_clear_error (&last);
      c = g_socket_client_connect (client, where, cancellable, &last);
      if (c)
        return c;
      if (set_if_interrupted (cancellable, address, error))
        return NULL;
      if (g_get_monotonic_time () + RETRY_MS * 1000 >= deadline)
        break;
      g_usleep (RETRY_MS * 1000);
    }
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT,
      "cannot reach the world's coordinator at %s: %s", address, last->message);
  return NULL;
}

/**
 * accel_store_read_line:
 * @in: a connection's input
 * @socket: (nullable): @in's socket, for @deadline
 * @deadline: with @socket, the monotonic time by which the whole line has
 *   to have come (a peer sending a byte at a time held a server's thread
 *   as long as it went on); -1: each read waits up to the socket's timeout
 * @too_long: (out): set when the peer sent more than ACCEL_STORE_MAX_LINE
 *   bytes without a newline
 * @cancellable: (nullable): stops the wait
 * @error: return location for a #GError from @in, or %NULL
 *
 * Reads one line of the store's protocol, a request or a reply. What a
 * peer sends is never held whole before it is known to be short, so a
 * client (or a server that is no accel store) sending endless bytes costs
 * ACCEL_STORE_MAX_LINE of memory, not all of it.
 *
 * Returns: (transfer full): the line without its newline, or %NULL when
 * the peer closed or went quiet first, or sent too much. MT safe; blocks
 * up to the socket's timeout.
 */
gchar *
accel_store_read_line (GInputStream *in, GSocket *socket, gint64 deadline,
    gboolean *too_long, GCancellable *cancellable, GError **error)
{
  g_autoptr (GString) line = g_string_new (NULL);
  char chunk[4096];

  *too_long = FALSE;
  for (;;)
    {
      gint64 left = deadline - g_get_monotonic_time ();
      const char *end;
      gssize got;

      if (socket && deadline >= 0
          && (left <= 0
              || !g_socket_condition_timed_wait (
                  socket, G_IO_IN, left, cancellable, error)))
        {
          if (error && !*error)
            g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                "the line did not come in time");
          return NULL;
        }
      got = g_input_stream_read (in, chunk, sizeof (chunk), cancellable, error);
      if (got <= 0)
        return NULL;
      end = memchr (chunk, '\n', (gsize)got);
      g_string_append_len (line, chunk, end ? end - chunk : got);
      if (line->len > ACCEL_STORE_MAX_LINE)
        {
          *too_long = TRUE;
          return NULL;
        }
      if (end)
        return g_string_free (g_steal_pointer (&line), FALSE);
    }
}

/* sends @request, returns the reply line; the connection in @keep where
 * given */
static gchar *
call_keep (const char *address, const char *request, guint timeout_ms,
    GSocketConnection **keep, GError **error)
{
  gint64 deadline
      = g_get_monotonic_time () + (gint64)timeout_ms * G_TIME_SPAN_MILLISECOND;
  GCancellable *cancellable = g_cancellable_get_current ();
  g_autoptr (GSocketConnection) c
      = connect_until (address, deadline, cancellable, error);
  g_autofree gchar *line = g_strconcat (request, "\n", NULL);
  g_autoptr (GError) io_error = NULL;
  gboolean too_long = FALSE;
  gchar *reply;

  if (!c)
    return NULL;
  /* the server answers by the request's own deadline; a little more for
   * the way back */
  g_socket_set_timeout (
      g_socket_connection_get_socket (c), timeout_ms / 1000 + 5);
  if (!g_output_stream_write_all (
          g_io_stream_get_output_stream (G_IO_STREAM (c)), line, strlen (line),
          NULL, cancellable, &io_error))
    goto io_failed;
  reply = accel_store_read_line (g_io_stream_get_input_stream (G_IO_STREAM (c)),
      NULL, -1, &too_long, cancellable, &io_error);
  if (!reply)
    goto io_failed;
  if (keep)
    *keep = g_steal_pointer (&c);
  return reply;

  /* ERRORS */
io_failed:
  {
    if (set_if_interrupted (cancellable, address, error))
      return NULL;
    if (too_long)
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "the world's coordinator at %s answered with more than %d bytes "
          "on a line: is an accel-run serving that address?",
          address, ACCEL_STORE_MAX_LINE);
    else
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "the world's coordinator at %s did not answer: %s", address,
          io_error ? io_error->message : "it closed the connection");
    return NULL;
  }
}

static gchar *
call (
    const char *address, const char *request, guint timeout_ms, GError **error)
{
  return call_keep (address, request, timeout_ms, NULL, error);
}

/* a joined rank's connection, open while its process runs: the store
 * tells a process given the same rank by it. One per coordinator and rank
 * (a process that joins again lets its last one go) */
static void
keep_joined (const char *address, guint rank, GSocketConnection *c)
{
  static GMutex lock;
  static GHashTable *kept;

  g_mutex_lock (&lock);
  if (!kept)
    kept = g_hash_table_new_full (
        g_str_hash, g_str_equal, g_free, g_object_unref);
  g_hash_table_replace (kept, g_strdup_printf ("%s %u", address, rank), c);
  g_mutex_unlock (&lock);
}

/* @reply is no line of the store's protocol: whatever serves @address
 * (a web server, another service) is no world's store */
static void
set_not_a_store (GError **error, const char *address, const char *reply)
{
  g_autofree gchar *line = g_strchomp (g_strdup (reply));

  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
      "the world's coordinator at %s answered '%s', which is no reply of a "
      "world's store: is an accel-run serving that address?",
      address, line);
}

static gboolean
check_key (const char *key, GError **error)
{
  if (!*key || strpbrk (key, " \n\r"))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "a store key may not be empty or hold spaces: '%s'", key);
      return FALSE;
    }
  return TRUE;
}

/**
 * accel_store_set:
 * @address: the coordinator, `HOST:PORT`
 * @key: the key (no spaces)
 * @value: the value
 * @timeout_ms: how long to try to reach the coordinator
 * @error: return location for a #GError, or %NULL
 *
 * Sets @key to @value, waking every rank that waits for it.
 *
 * Returns: %TRUE when stored. MT safe; blocks up to @timeout_ms, or until the
 * thread's current cancellable (g_cancellable_get_current ()) is cancelled
 * (%ACCEL_ERROR_STOPPED).
 */
gboolean
accel_store_set (const char *address, const char *key, GBytes *value,
    guint timeout_ms, GError **error)
{
  gsize n;
  const guchar *data = g_bytes_get_data (value, &n);
  g_autofree gchar *text = g_base64_encode (data, n);
  g_autofree gchar *request = NULL, *reply = NULL;

  if (!check_key (key, error))
    return FALSE;
  request = g_strdup_printf ("SET %s %s", key, text);
  if (!(reply = call (address, request, timeout_ms, error)))
    return FALSE;
  if (!g_str_equal (reply, "OK") && !g_str_has_prefix (reply, "ERROR "))
    {
      set_not_a_store (error, address, reply);
      return FALSE;
    }
  if (!g_str_equal (reply, "OK"))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "the world's coordinator at %s did not store '%s': %s", address, key,
          reply + strlen ("ERROR "));
      return FALSE;
    }
  return TRUE;
}

/**
 * accel_store_get:
 * @address: the coordinator, `HOST:PORT`
 * @key: the key
 * @timeout_ms: how long to wait for the key to be set
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full): the value of @key, waiting for a rank to set
 * it; %NULL with %ACCEL_ERROR_TIMEOUT when none does within @timeout_ms.
 * MT safe; blocks up to @timeout_ms, or until the
 * thread's current cancellable (g_cancellable_get_current ()) is cancelled
 * (%ACCEL_ERROR_STOPPED).
 */
GBytes *
accel_store_get (
    const char *address, const char *key, guint timeout_ms, GError **error)
{
  g_autofree gchar *request = NULL, *reply = NULL;
  g_autoptr (GError) call_error = NULL;
  gsize n;
  guchar *data;

  if (!check_key (key, error))
    return NULL;
  request = g_strdup_printf ("GET %s %u", key, timeout_ms);
  if (!(reply = call (address, request, timeout_ms, &call_error)))
    {
      /* a look (no wait) at a coordinator that does not answer: no key
       * unset, which is what its timeout would say */
      if (timeout_ms == 0
          && g_error_matches (call_error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT))
        call_error->code = ACCEL_ERROR_FAILED;
      g_propagate_error (error, g_steal_pointer (&call_error));
      return NULL;
    }
  if (g_str_equal (reply, "TIMEOUT"))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT,
          "no rank set '%s' in the world's store at %s within %u ms", key,
          address, timeout_ms);
      return NULL;
    }
  if (g_str_has_prefix (reply, "ERROR "))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "the world's coordinator at %s refused '%s': %s", address, key,
          reply + strlen ("ERROR "));
      return NULL;
    }
  if (!g_str_has_prefix (reply, "VALUE "))
    {
      set_not_a_store (error, address, reply);
      return NULL;
    }
  data = g_base64_decode (reply + strlen ("VALUE "), &n);
  return g_bytes_new_take (data, n);
}

/* this process, as its joins name it to the store: a token made once,
 * which no other process has (two machines may share a name, two
 * containers a pid), its pid and its host in base64 */
static const char *
join_identity (void)
{
  static gchar *identity;
  static gsize made;

  if (g_once_init_enter (&made))
    {
      const char *host = g_get_host_name ();
      g_autofree gchar *host64
          = g_base64_encode ((const guchar *)host, strlen (host));

      identity = g_strdup_printf ("%08x%08x %d %s", g_random_int (),
          g_random_int (), (int)getpid (), host64);
      g_once_init_leave (&made, 1);
    }
  return identity;
}

/**
 * accel_store_join:
 * @address: the coordinator, `HOST:PORT`
 * @rank: this process's rank
 * @world_size: the ranks of the world, as this process was told
 * @pipeline: the pipeline's name: every rank of a world runs the same one
 * @timeout_ms: how long to wait for the coordinator and the other ranks
 * @local_host: (out) (optional) (transfer full): this machine's address as
 *   the coordinator sees it, where the other ranks can reach this one
 * @error: return location for a #GError, or %NULL
 *
 * Joins the world: waits until every rank has joined. A rank joining a
 * world that was complete begins a new generation, which the others join
 * when they are started again. The join's connection stays open while
 * this process runs: another process that joins as @rank meanwhile, while
 * this one waits or runs, is refused (two processes given one rank).
 *
 * Returns: the world's generation (1 or more), or 0 with @error set: the
 * coordinator cannot be reached, a rank did not join in time
 * (%ACCEL_ERROR_TIMEOUT), or the world is another one (another size or
 * another pipeline). MT safe; blocks up to @timeout_ms, or until the
 * thread's current cancellable (g_cancellable_get_current ()) is cancelled
 * (%ACCEL_ERROR_STOPPED).
 */
guint
accel_store_join (const char *address, guint rank, guint world_size,
    const char *pipeline, guint timeout_ms, gchar **local_host, GError **error)
{
  gint64 deadline
      = g_get_monotonic_time () + (gint64)timeout_ms * G_TIME_SPAN_MILLISECOND;
  g_autoptr (GSocketConnection) c = NULL;
  g_autofree gchar *name
      = g_base64_encode ((const guchar *)pipeline, strlen (pipeline));
  g_autofree gchar *request = NULL, *reply = NULL;
  guint64 generation;

  /* the address this machine reaches the coordinator from is the one the
   * other ranks can reach it at */
  if (local_host)
    {
      g_autoptr (GSocketAddress) local = NULL;
      if (!(c = connect_until (
                address, deadline, g_cancellable_get_current (), error)))
        return 0;
      local = g_socket_connection_get_local_address (c, NULL);
      *local_host = local ? g_inet_address_to_string (
                        g_inet_socket_address_get_address (
                            G_INET_SOCKET_ADDRESS (local)))
                          : g_strdup ("127.0.0.1");
      g_clear_object (&c);
    }
  /* with the generation of workers it is in: a join of one its supervisor
   * has given up on is refused; and with who joins: another process's
   * process given this rank too is refused */
  request = g_strdup_printf ("JOIN %u %u %s %u %u %s", rank, world_size, name,
      (guint)MAX (0, (deadline - g_get_monotonic_time ()) / 1000),
      accel_supervisor_get_generation (), join_identity ());
  if (!(reply = call_keep (address, request, timeout_ms, &c, error)))
    return 0;
  if (g_str_has_prefix (reply, "JOINED ")
      && g_ascii_string_to_unsigned (
          reply + strlen ("JOINED "), 10, 1, G_MAXUINT, &generation, NULL))
    {
      keep_joined (address, rank, g_steal_pointer (&c));
      return (guint)generation;
    }
  if (!g_str_has_prefix (reply, "ERROR "))
    {
      set_not_a_store (error, address, reply);
      g_prefix_error (error, "rank %u cannot join the world: ", rank);
      return 0;
    }
  g_set_error (error, ACCEL_ERROR,
      strstr (reply, "did not join") ? ACCEL_ERROR_TIMEOUT : ACCEL_ERROR_FAILED,
      "rank %u cannot join the world at %s: %s", rank, address,
      g_str_has_prefix (reply, "ERROR ") ? reply + strlen ("ERROR ") : reply);
  return 0;
}
