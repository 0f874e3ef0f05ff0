/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the rendezvous store's server. It runs in rank 0's supervisor
 * (accel-run), which outlives its workers, so a world rebuilt after a
 * crash finds its store where it was. One request per connection, one line
 * each way (see accelstore.c); a connection waits on a thread of its own,
 * every wait bounded by the deadline the request carries.
 * G_MESSAGES_DEBUG=accel-store tells each request and each world round */
#define G_LOG_DOMAIN "accel-store"

#include "accel-private.h"

#include <errno.h>
#include <gio/gio.h>

/* threads for connections that wait: every rank waits in its join until
 * the world is complete, and may wait on a few keys besides */
#define THREADS_PER_RANK 4
#define MIN_THREADS 256

/* how long a client has to send its request, in all */
#define REQUEST_SECONDS 10

/* a join that waits for the world */
typedef struct
{
  guint rank, generation;
  const char *token; /* made by its process at start; NULL from a client
                        that sends none */
  const char *who;   /* "process PID on HOST" */
  GSocket *socket;
  gboolean gone; /* its process is gone: it left the round */
} Join;

/* the process that holds a rank of the world's current generation: the
 * connection of its join stays open while it runs */
typedef struct
{
  guint generation;
  gchar *token, *who;
  GSocketConnection *connection;
} Holder;

struct _AccelStoreServer
{
  GThreadedSocketService *service;
  GMainContext *context;
  GMainLoop *loop;
  GThread *thread;
  gchar *address;
  guint16 port;

  GMutex lock;
  GCond changed;
  GHashTable *values; /* key -> GBytes */
  guint world_size;
  gchar *pipeline; /* the world's, or of the first rank that joined */
  guint generation;
  gboolean complete; /* every rank joined this generation */
  gboolean *joined;  /* [world_size], this round */
  guint *waiting;    /* [world_size], joins of this round still waiting */
  GPtrArray *joins;  /* of Join, every join still waiting */
  Holder *holders;   /* [world_size] */
  guint n_joined;
  guint first_workers;  /* joins of workers of an earlier generation are
                           refused: their supervisor gave up on them */
  guint n_active;       /* connections taken and not yet answered */
  gboolean closing;     /* waits end at once */
  GCancellable *cancel; /* the reads of requests, when closing */
};

static gchar *
missing_ranks_unlocked (AccelStoreServer *server)
{
  g_autoptr (GString) s = g_string_new (NULL);

  for (guint r = 0; r < server->world_size; r++)
    if (!server->joined[r])
      g_string_append_printf (s, "%s%u", s->len ? ", " : "", r);
  return g_strdup (s->str);
}

/* of the ranks missing from round @mine, those that finished their run in
 * an earlier generation, as a sentence to add to a join that timed out;
 * "" when none did */
static gchar *
finished_ranks_unlocked (AccelStoreServer *server, guint mine)
{
  g_autoptr (GString) s = g_string_new (NULL);

  for (guint r = 0; r < server->world_size; r++)
    for (guint g = mine - 1; g > 0 && !server->joined[r]; g--)
      {
        g_autofree gchar *key = g_strdup_printf ("g%u/world/finished/%u", g, r);

        if (!g_hash_table_contains (server->values, key))
          continue;
        g_string_append_printf (s,
            "%srank %u finished its run in generation %u", s->len ? ", " : ": ",
            r, g);
        break;
      }
  if (s->len)
    g_string_append (s, " (a rank started on its own leaves with its "
                        "supervisor once it finishes, and a world is rebuilt "
                        "only while every rank runs: run every rank again "
                        "with its --state-dir to resume)");
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* the refusal of a rank other than @rank, as accel_world_refuse () told
 * it ("rank 1 on node1 refused its pipeline: ..."); NULL when none did. A
 * rank's refusal holds until it joins again */
static gchar *
refusal_unlocked (AccelStoreServer *server, guint rank)
{
  for (guint r = 0; r < server->world_size; r++)
    {
      g_autofree gchar *key = g_strdup_printf ("world/refused/%u", r);
      GBytes *value
          = r != rank ? g_hash_table_lookup (server->values, key) : NULL;
      gsize n;
      const char *text = value ? g_bytes_get_data (value, &n) : NULL;

      /* a reply is one line */
      if (text)
        return g_strdelimit (g_strndup (text, n), "\r\n", ' ');
    }
  return NULL;
}

/* whether the process at the other end of @socket is still there: one
 * that is gone had its socket closed by its kernel (our client sends
 * nothing after its request, so an end read there is its process's) */
static gboolean
socket_alive (GSocket *socket)
{
  GIOCondition ready
      = g_socket_condition_check (socket, G_IO_IN | G_IO_HUP | G_IO_ERR);
  GInputVector peek;
  char byte;
  gint flags = G_SOCKET_MSG_PEEK;

  if (ready & (G_IO_HUP | G_IO_ERR))
    return FALSE;
  if (!(ready & G_IO_IN))
    return TRUE;
  peek = (GInputVector){ &byte, 1 };
  return g_socket_receive_message (
             socket, NULL, &peek, 1, NULL, NULL, &flags, NULL, NULL)
         > 0;
}

static void
holder_clear (Holder *h)
{
  g_clear_pointer (&h->token, g_free);
  g_clear_pointer (&h->who, g_free);
  g_clear_object (&h->connection);
}

/* another process that holds @rank while it runs: its join waits in this
 * round, or it joined the current generation, which is complete. Two
 * processes were given one rank: a rank started again joins while its
 * predecessor's join may still wait, or after it joined, but that process
 * is gone. Returns what the refusal says of it, and its connection in
 * @socket */
static gchar *
live_rival_unlocked (
    AccelStoreServer *server, guint rank, const char *token, GSocket **socket)
{
  Holder *h = &server->holders[rank];

  for (guint i = 0; token && !server->complete && i < server->joins->len; i++)
    {
      Join *j = g_ptr_array_index (server->joins, i);

      if (j->rank == rank && j->generation == server->generation && j->token
          && !g_str_equal (j->token, token) && socket_alive (j->socket))
        {
          *socket = j->socket;
          return g_strdup_printf (
              "%s, which joined first and waits for the other ranks", j->who);
        }
    }
  if (token && server->complete && h->connection
      && h->generation == server->generation && !g_str_equal (h->token, token)
      && socket_alive (g_socket_connection_get_socket (h->connection)))
    {
      *socket = g_socket_connection_get_socket (h->connection);
      return g_strdup_printf ("%s, which joined generation %u of the world "
                              "and still runs",
          h->who, h->generation);
    }
  return NULL;
}

/* the process of @rank's join @join, which got its generation, holds the
 * rank while the connection lives (where the process that held it is
 * gone: two joins of a rank may complete a round, one of a process gone) */
static void
hold_unlocked (AccelStoreServer *server, guint rank, const Join *join,
    GSocketConnection *connection)
{
  Holder *h = &server->holders[rank];

  if (!join->token || !socket_alive (join->socket))
    return;
  if (h->connection && h->generation == join->generation
      && socket_alive (g_socket_connection_get_socket (h->connection)))
    return;
  holder_clear (h);
  h->generation = join->generation;
  h->token = g_strdup (join->token);
  h->who = g_strdup (join->who);
  h->connection = g_object_ref (connection);
}

/* the process at the other end of @socket, taken for another process of
 * the same rank, may be gone with its end still on the way (a lost packet
 * is sent again within a second): waited for, up to a second, unlocked */
static void
wait_rival_gone_unlocked (AccelStoreServer *server, GSocket *socket)
{
  g_autoptr (GSocket) held = g_object_ref (socket);

  g_mutex_unlock (&server->lock);
  g_socket_condition_timed_wait (
      held, G_IO_IN | G_IO_HUP | G_IO_ERR, G_USEC_PER_SEC, NULL, NULL);
  g_mutex_lock (&server->lock);
}

/* the joins of round @mine whose process is gone (its kernel closed
 * its connection) leave it, as they would at their deadline: a rank
 * killed as it waited counted as joined, completed the round, and the
 * others waited in vain for it in a world that never formed */
static void
forget_gone_joins_unlocked (AccelStoreServer *server, guint mine)
{
  for (guint i = 0; i < server->joins->len; i++)
    {
      Join *j = g_ptr_array_index (server->joins, i);
      gboolean live = FALSE;

      if (j->generation != mine || j->gone || socket_alive (j->socket))
        continue;
      j->gone = TRUE;
      for (guint k = 0; k < server->joins->len; k++)
        {
          Join *other = g_ptr_array_index (server->joins, k);

          live |= other->rank == j->rank && other->generation == mine
                  && !other->gone;
        }
      if (!live && server->joined[j->rank])
        {
          g_debug ("rank %u left round %u: its process is gone", j->rank, mine);
          server->joined[j->rank] = FALSE;
          server->n_joined--;
        }
    }
  g_cond_broadcast (&server->changed);
}

/* a rank joins the current round; a rank that joins a round that is
 * complete has been started again: the world starts a new generation.
 * @token and @who say which process joins (NULL when its client did not
 * say), @connection is its connection */
static gchar *
handle_join (AccelStoreServer *server, guint rank, guint size,
    const char *pipeline, guint workers, const char *token, const char *who,
    GSocketConnection *connection, gint64 deadline)
{
  gchar *reply = NULL;
  Join join
      = { rank, 0, token, who, g_socket_connection_get_socket (connection) };
  g_autofree gchar *rival = NULL, *key = NULL, *refusal = NULL;
  GSocket *rival_socket = NULL;
  guint mine;

  g_mutex_lock (&server->lock);
  /* sent by a rank that was gone before the server read it */
  if (workers < server->first_workers)
    {
      reply = g_strdup_printf ("ERROR rank %u of workers %u joins after its "
                               "supervisor gave up on them",
          rank, workers);
      goto out;
    }
  if (size != server->world_size)
    {
      reply = g_strdup_printf ("ERROR rank %u was started for a world of %u "
                               "ranks, the coordinator's world has %u",
          rank, size, server->world_size);
      goto out;
    }
  if (rank >= size)
    {
      reply = g_strdup_printf (
          "ERROR rank %u is not in a world of %u ranks", rank, size);
      goto out;
    }
  if (!server->pipeline)
    server->pipeline = g_strdup (pipeline);
  else if (!g_str_equal (server->pipeline, pipeline))
    {
      reply = g_strdup_printf ("ERROR rank %u runs pipeline '%s', the "
                               "coordinator's world runs '%s': two worlds "
                               "on one coordinator",
          rank, pipeline, server->pipeline);
      goto out;
    }
  if ((rival = live_rival_unlocked (server, rank, token, &rival_socket)))
    {
      g_clear_pointer (&rival, g_free);
      wait_rival_gone_unlocked (server, rival_socket);
      rival = live_rival_unlocked (server, rank, token, &rival_socket);
    }
  if (rival)
    {
      reply = g_strdup_printf ("ERROR rank %u is taken by %s; %s was given "
                               "rank %u too: each process of a world needs a "
                               "--rank of its own",
          rank, rival, who, rank);
      goto out;
    }
  /* a rank started again has its refusal withdrawn; another rank's
   * refusal ends the join at once */
  key = g_strdup_printf ("world/refused/%u", rank);
  g_hash_table_remove (server->values, key);
  if ((refusal = refusal_unlocked (server, rank)))
    {
      reply = g_strdup_printf ("ERROR %s", refusal);
      goto out;
    }
  if (server->complete)
    {
      /* the ranks still in the old generation learn that it was left
       * (accel_world_is_left()): their communicators cannot complete */
      gchar *next = g_strdup_printf ("%u", server->generation + 1);

      g_hash_table_replace (server->values,
          g_strdup_printf ("g%u/world/left", server->generation),
          g_bytes_new_take (next, strlen (next)));
      server->generation++;
      server->complete = FALSE;
      server->n_joined = 0;
      memset (server->joined, 0, server->world_size * sizeof (gboolean));
      memset (server->waiting, 0, server->world_size * sizeof (guint));
      g_debug ("world round %u begins with rank %u", server->generation, rank);
    }
  if (!server->joined[rank])
    {
      server->joined[rank] = TRUE;
      server->n_joined++;
    }
  /* a rank started again may join while its old request still waits */
  server->waiting[rank]++;
  mine = server->generation;
  join.generation = mine;
  g_ptr_array_add (server->joins, &join);
  g_debug ("rank %u joined generation %u (%u of %u)", rank, mine,
      server->n_joined, server->world_size);
  if (server->n_joined == server->world_size)
    forget_gone_joins_unlocked (server, mine);
  if (server->n_joined == server->world_size)
    {
      server->complete = TRUE;
      g_cond_broadcast (&server->changed);
    }
  while (server->generation == mine && !server->complete && !server->closing
         && !join.gone && !(refusal = refusal_unlocked (server, rank)))
    if (!g_cond_wait_until (&server->changed, &server->lock, deadline))
      break;
  /* told just before the server closed (rank 0's own refusal) */
  if (!refusal)
    refusal = refusal_unlocked (server, rank);
  g_ptr_array_remove_fast (server->joins, &join);
  if (server->generation == mine)
    server->waiting[rank]--;
  if (server->generation == mine && server->complete)
    {
      hold_unlocked (server, rank, &join, connection);
      reply = g_strdup_printf ("JOINED %u", mine);
    }
  else if (server->generation == mine)
    {
      g_autofree gchar *missing = missing_ranks_unlocked (server);
      g_autofree gchar *finished = finished_ranks_unlocked (server, mine);
      /* the rank leaves the round with its last waiting join */
      if (server->waiting[rank] == 0 && server->joined[rank])
        {
          server->joined[rank] = FALSE;
          server->n_joined--;
        }
      reply = refusal ? g_strdup_printf ("ERROR %s", refusal)
                      : g_strdup_printf (
                          "ERROR rank%s %s of %u did not join in time%s",
                          strchr (missing, ',') ? "s" : "", missing,
                          server->world_size, finished);
    }
  else
    reply = g_strdup_printf ("ERROR generation %u was left for %u before "
                             "every rank joined",
        mine, server->generation);
out:
  g_mutex_unlock (&server->lock);
  return reply;
}

static gchar *
handle_get (AccelStoreServer *server, const char *key, gint64 deadline)
{
  GBytes *value;
  gchar *reply;

  g_mutex_lock (&server->lock);
  while (
      !(value = g_hash_table_lookup (server->values, key)) && !server->closing)
    if (!g_cond_wait_until (&server->changed, &server->lock, deadline))
      break;
  if (value)
    {
      gsize n;
      const guchar *data = g_bytes_get_data (value, &n);
      g_autofree gchar *text = g_base64_encode (data, n);
      reply = g_strdup_printf ("VALUE %s", text);
    }
  else
    reply = g_strdup ("TIMEOUT");
  g_mutex_unlock (&server->lock);
  return reply;
}

static gchar *
handle_set (AccelStoreServer *server, const char *key, const char *text)
{
  gsize n;
  guchar *data = g_base64_decode (text, &n);

  g_mutex_lock (&server->lock);
  g_hash_table_replace (
      server->values, g_strdup (key), g_bytes_new_take (data, n));
  g_cond_broadcast (&server->changed);
  g_mutex_unlock (&server->lock);
  return g_strdup ("OK");
}

static gchar *
decode_text (const char *base64)
{
  gsize len;
  g_autofree guchar *data = g_base64_decode (base64, &len);

  return g_strndup ((const char *)data, len);
}

/* "SET key base64", "GET key timeout_ms", "JOIN rank size name timeout_ms
 * [workers [token pid host]]" (the name and the host in base64; workers:
 * the generation of workers the rank's supervisor started it in; token,
 * pid and host: the joining process) from the client at @socket */
static gchar *
handle_line (
    AccelStoreServer *server, const char *line, GSocketConnection *connection)
{
  g_auto (GStrv) w = g_strsplit (line, " ", 9);
  guint n = g_strv_length (w);
  guint64 a = 0, b = 0, timeout = 0, workers = 1, pid = 0;

  if (n == 3 && g_str_equal (w[0], "SET"))
    return handle_set (server, w[1], w[2]);
  if (n == 3 && g_str_equal (w[0], "GET")
      && g_ascii_string_to_unsigned (w[2], 10, 0, G_MAXUINT, &timeout, NULL))
    return handle_get (server, w[1],
        g_get_monotonic_time () + (gint64)timeout * G_TIME_SPAN_MILLISECOND);
  if ((n == 5 || n == 6 || n == 9) && g_str_equal (w[0], "JOIN")
      && g_ascii_string_to_unsigned (w[1], 10, 0, G_MAXUINT, &a, NULL)
      && g_ascii_string_to_unsigned (w[2], 10, 1, G_MAXUINT, &b, NULL)
      && g_ascii_string_to_unsigned (w[4], 10, 0, G_MAXUINT, &timeout, NULL)
      && (n == 5
          || g_ascii_string_to_unsigned (
              w[5], 10, 1, G_MAXUINT, &workers, NULL))
      && (n < 9
          || g_ascii_string_to_unsigned (w[7], 10, 0, G_MAXUINT, &pid, NULL)))
    {
      g_autofree gchar *text = decode_text (w[3]);
      g_autofree gchar *host = n == 9 ? decode_text (w[8]) : NULL;
      g_autofree gchar *who
          = host ? g_strdup_printf ("process %u on %s", (guint)pid, host)
                 : NULL;

      return handle_join (server, (guint)a, (guint)b, text, (guint)workers,
          n == 9 ? w[6] : NULL, who, connection,
          g_get_monotonic_time () + (gint64)timeout * G_TIME_SPAN_MILLISECOND);
    }
  return g_strdup ("ERROR not a request of the accel store");
}

/* a connection taken, before its request waits for a thread: counted
 * now, so that freeing the server waits for it too (counted as its thread
 * began, one queued behind busy threads ran on a server freed) */
static gboolean
on_incoming (GSocketService *service, GSocketConnection *connection,
    GObject *source, gpointer data)
{
  AccelStoreServer *server = data;

  g_mutex_lock (&server->lock);
  server->n_active++;
  g_mutex_unlock (&server->lock);
  return FALSE; /* on to the service's own handler, which queues it */
}

static gboolean
on_run (GThreadedSocketService *service, GSocketConnection *connection,
    GObject *source, gpointer data)
{
  AccelStoreServer *server = data;
  GOutputStream *out = g_io_stream_get_output_stream (G_IO_STREAM (connection));
  GSocket *socket = g_socket_connection_get_socket (connection);
  g_autofree gchar *line = NULL, *reply = NULL, *sent = NULL;
  gboolean too_long;

  /* a client that connects and says nothing, or says it a byte at a time,
   * does not keep a thread long, nor the server from closing (counted
   * in n_active since on_incoming ()) */
  g_socket_set_timeout (socket, REQUEST_SECONDS);
  line = accel_store_read_line (
      g_io_stream_get_input_stream (G_IO_STREAM (connection)), socket,
      g_get_monotonic_time () + REQUEST_SECONDS * G_USEC_PER_SEC, &too_long,
      server->cancel, NULL);
  if (line)
    reply = handle_line (server, line, connection);
  else if (too_long)
    reply = g_strdup_printf (
        "ERROR a request of the accel store is at most %d bytes",
        ACCEL_STORE_MAX_LINE);
  g_mutex_lock (&server->lock);
  server->n_active--;
  g_cond_broadcast (&server->changed);
  g_mutex_unlock (&server->lock);
  if (!reply)
    return TRUE;
  g_debug ("%.40s -> %.40s", line ? line : "(too long)", reply);
  sent = g_strconcat (reply, "\n", NULL);
  g_output_stream_write_all (out, sent, strlen (sent), NULL, NULL, NULL);
  return TRUE;
}

static gpointer
serve (gpointer data)
{
  AccelStoreServer *server = data;

  g_main_context_push_thread_default (server->context);
  g_main_loop_run (server->loop);
  g_main_context_pop_thread_default (server->context);
  return NULL;
}

/**
 * accel_store_parse_address:
 * @address: `HOST:PORT` (`[ADDR]:PORT` for an IPv6 address)
 * @host: (out) (transfer full): the host
 * @port: (out): the port
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE when @address is a host and a port, else %FALSE with
 * %ACCEL_ERROR_INVALID_PIPELINE saying what is wrong. MT safe.
 */
gboolean
accel_store_parse_address (
    const char *address, gchar **host, guint16 *port, GError **error)
{
  const char *colon = address ? strrchr (address, ':') : NULL;
  guint64 p;

  if (!colon || colon == address
      || !g_ascii_string_to_unsigned (colon + 1, 10, 1, 65535, &p, NULL))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "the coordinator must be HOST:PORT with a port from 1 to 65535, "
          "not '%s'",
          address ? address : "");
      return FALSE;
    }
  if (address[0] == '[' && colon[-1] == ']')
    *host = g_strndup (address + 1, colon - address - 2);
  else
    *host = g_strndup (address, colon - address);
  *port = (guint16)p;
  return TRUE;
}

/* why a store's address cannot be listened on, as its user may have
 * caused it: a second rank 0 (of this world or another), or a rank 0 on a
 * machine that is not the coordinator's. GLib has no code of its own for
 * an address of another machine */
static const char *
listen_hint (const GError *listen_error)
{
  if (g_error_matches (listen_error, G_IO_ERROR, G_IO_ERROR_ADDRESS_IN_USE))
    return " (is another world's coordinator on this port, or another "
           "process of this world given --rank 0?)";
  if (strstr (listen_error->message, g_strerror (EADDRNOTAVAIL)))
    return " (that address is not one of this machine's: rank 0 serves the "
           "world's store, so it runs on the coordinator's machine)";
  return "";
}

/* listens on the first of @inets at @port (0: any), then on the others at
 * the port it got; one of those that cannot be had (no IPv6 here) is left
 * out, the first is needed */
static gboolean
listen_on (AccelStoreServer *server, GList *inets, guint16 port,
    GSocketAddress **bound, GError **error)
{
  for (GList *l = inets; l; l = l->next)
    {
      g_autoptr (GSocketAddress) sa = g_inet_socket_address_new (l->data, port);
      g_autoptr (GError) other_error = NULL;
      g_autofree gchar *name = NULL;

      if (g_socket_listener_add_address (G_SOCKET_LISTENER (server->service),
              sa, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL,
              l == inets ? bound : NULL, l == inets ? error : &other_error))
        {
          if (l == inets)
            port = g_inet_socket_address_get_port (
                G_INET_SOCKET_ADDRESS (*bound));
          continue;
        }
      if (l == inets)
        return FALSE;
      name = g_inet_address_to_string (l->data);
      g_debug ("the world's store is not served on %s too: %s", name,
          other_error->message);
    }
  return TRUE;
}

/**
 * accel_store_server_new: (skip)
 * @address: (nullable): `HOST:PORT` to listen on, or %NULL for a free port
 *   of 127.0.0.1
 * @world_size: the number of ranks of the world
 * @pipeline: (nullable): the name of the pipeline the world runs, or %NULL
 *   to take the first joining rank's
 * @error: return location for a #GError, or %NULL
 *
 * Serves a world's rendezvous store on a thread of its own until
 * accel_store_server_free(). A rank that joins running another pipeline
 * is refused, naming both: two worlds given one coordinator. With
 * @pipeline set, a stranger that joins before the world's own ranks is
 * refused too, rather than taking the world over.
 *
 * Returns: (transfer full): the server, or %NULL when it cannot listen
 * (another world serving on the port, an address of another machine) or
 * its thread cannot be made.
 * Called from the supervising process's main thread.
 */
AccelStoreServer *
accel_store_server_new (
    const char *address, guint world_size, const char *pipeline, GError **error)
{
  g_autoptr (GError) listen_error = NULL;
  g_autoptr (GSocketAddress) bound = NULL;
  g_autofree gchar *host = NULL;
  GInetAddress *literal;
  GList *inets = NULL;
  guint16 port = 0;
  AccelStoreServer *server;

  g_return_val_if_fail (world_size > 0, NULL);
  if (address && !accel_store_parse_address (address, &host, &port, error))
    return NULL;
  if (!host)
    host = g_strdup ("127.0.0.1");
  /* a name is served on each of its addresses: "localhost" on ::1 alone
   * refused the ranks that reached it as 127.0.0.1 */
  if ((literal = g_inet_address_new_from_string (host)))
    inets = g_list_prepend (NULL, literal);
  else
    {
      g_autoptr (GResolver) resolver = g_resolver_get_default ();

      inets = g_resolver_lookup_by_name (resolver, host, NULL, error);
      if (!inets)
        {
          g_prefix_error (
              error, "cannot serve the world's store on %s: ", address);
          return NULL;
        }
    }

  server = g_new0 (AccelStoreServer, 1);
  g_mutex_init (&server->lock);
  g_cond_init (&server->changed);
  server->values = g_hash_table_new_full (
      g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_bytes_unref);
  server->world_size = world_size;
  server->pipeline = g_strdup (pipeline);
  server->joined = g_new0 (gboolean, world_size);
  server->waiting = g_new0 (guint, world_size);
  server->joins = g_ptr_array_new ();
  server->holders = g_new0 (Holder, world_size);
  server->complete = TRUE; /* the first join begins generation 1 */
  server->context = g_main_context_new ();
  server->loop = g_main_loop_new (server->context, FALSE);

  g_main_context_push_thread_default (server->context);
  server->service = G_THREADED_SOCKET_SERVICE (g_threaded_socket_service_new (
      (int)MAX (MIN_THREADS, THREADS_PER_RANK * world_size)));
  server->cancel = g_cancellable_new ();
  g_signal_connect (
      server->service, "incoming", G_CALLBACK (on_incoming), server);
  g_signal_connect (server->service, "run", G_CALLBACK (on_run), server);
  if (!listen_on (server, inets, port, &bound, &listen_error))
    {
      g_main_context_pop_thread_default (server->context);
      g_resolver_free_addresses (inets);
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "cannot serve the world's store on %s:%u: %s%s", host, port,
          listen_error->message, listen_hint (listen_error));
      accel_store_server_free (server);
      return NULL;
    }
  g_resolver_free_addresses (inets);
  g_socket_service_start (G_SOCKET_SERVICE (server->service));
  g_main_context_pop_thread_default (server->context);
  server->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  server->address = g_strdup_printf (
      strchr (host, ':') ? "[%s]:%u" : "%s:%u", host, server->port);
  server->thread = accel_thread_try_new ("accel-store", serve, server, error);
  if (!server->thread)
    {
      accel_store_server_free (server);
      return NULL;
    }
  g_debug ("serving a world of %u ranks on %s", world_size, server->address);
  return server;
}

/**
 * accel_store_server_get_port: (skip)
 * @server: a server
 *
 * Returns: the port it listens on (the one picked, for port 0). MT safe.
 */
guint16
accel_store_server_get_port (AccelStoreServer *server)
{
  return server->port;
}

/**
 * accel_store_server_get_address: (skip)
 * @server: a server
 *
 * Returns: (transfer none): `HOST:PORT` for the ranks. MT safe.
 */
const char *
accel_store_server_get_address (AccelStoreServer *server)
{
  return server->address;
}

/**
 * accel_store_server_forget_round:
 * @server: a server
 * @next_workers: the generation of the workers its supervisor starts next
 *   (`ACCEL_GENERATION`): joins of earlier ones are refused from now on,
 *   even those the server has yet to read
 *
 * The world's ranks are gone (its supervisor reaped them all): a round
 * of joins that did not complete is given up, so that the next
 * generation's ranks begin a round of their own. A dead rank's join
 * still waited and counted, and completed the round with the first new
 * rank, leaving the others to a round of their own that never
 * completed. Called from the supervising process's main thread.
 */
void
accel_store_server_forget_round (AccelStoreServer *server, guint next_workers)
{
  g_mutex_lock (&server->lock);
  server->first_workers = MAX (server->first_workers, next_workers);
  if (!server->complete && server->n_joined > 0)
    {
      g_debug ("world round %u given up with %u of %u ranks joined",
          server->generation, server->n_joined, server->world_size);
      /* its waiting joins end (generation left) and their ranks are gone */
      server->generation++;
      server->n_joined = 0;
      memset (server->joined, 0, server->world_size * sizeof (gboolean));
      memset (server->waiting, 0, server->world_size * sizeof (guint));
      g_cond_broadcast (&server->changed);
    }
  /* nor does any rank hold its place */
  for (guint r = 0; r < server->world_size; r++)
    holder_clear (&server->holders[r]);
  g_mutex_unlock (&server->lock);
}

/**
 * accel_store_server_free: (skip)
 * @server: (transfer full): a server
 *
 * Stops listening and frees the store; requests still waiting are answered
 * at once (a timeout, or an error for a join).
 * Called from the thread that made @server.
 */
void
accel_store_server_free (AccelStoreServer *server)
{
  if (server->thread)
    {
      g_main_loop_quit (server->loop);
      g_thread_join (server->thread);
    }
  if (server->service)
    {
      gint64 end = g_get_monotonic_time ()
                   + (REQUEST_SECONDS + 5) * G_TIME_SPAN_SECOND;
      guint left;

      g_socket_service_stop (G_SOCKET_SERVICE (server->service));
      g_socket_listener_close (G_SOCKET_LISTENER (server->service));
      /* requests still waiting end now, and are answered before the
       * server goes */
      g_mutex_lock (&server->lock);
      server->closing = TRUE;
      g_cancellable_cancel (server->cancel);
      g_cond_broadcast (&server->changed);
      while (server->n_active > 0
             && g_cond_wait_until (&server->changed, &server->lock, end))
        ;
      left = server->n_active;
      g_mutex_unlock (&server->lock);
      g_object_unref (server->service);
      /* a connection its thread never took (none could be made) would
       * run on a server freed: it is left, and said */
      if (left > 0)
        {
          g_warning ("the world's store at %s closed with %u connections "
                     "never answered; its memory is left to them",
              server->address ? server->address : "(not listening)", left);
          return;
        }
    }
  g_clear_object (&server->cancel);
  g_main_loop_unref (server->loop);
  g_main_context_unref (server->context);
  g_hash_table_unref (server->values);
  g_free (server->joined);
  g_free (server->waiting);
  g_ptr_array_unref (server->joins);
  for (guint r = 0; r < server->world_size; r++)
    holder_clear (&server->holders[r]);
  g_free (server->holders);
  g_free (server->pipeline);
  g_free (server->address);
  g_mutex_clear (&server->lock);
  g_cond_clear (&server->changed);
  g_free (server);
}
