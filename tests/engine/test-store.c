/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the world's store in one process: two ranks join generation 1; one is
 * started again and joins anew, which begins generation 2; the rank left
 * in generation 1 learns so (accel_world_is_left(), what a collective that
 * waits for a restarted peer asks) and joins generation 2 too, where keys
 * of generation 1 are not seen. And what the store's server makes of
 * requests that are not its protocol's, and its client of a server that
 * is no store */
#include "accel-test.h"

#include <gio/gio.h>
#include <string.h>

typedef struct
{
  AccelWorld *world;
  gboolean joined;
  GError *error;
} Joining;

static gpointer
join_thread (gpointer data)
{
  Joining *j = data;

  j->joined = accel_world_join (j->world, "store", &j->error);
  return NULL;
}

static AccelWorld *
world_of (AccelStoreServer *server, guint rank)
{
  AccelWorld *world
      = accel_world_new (accel_store_server_get_address (server), rank, 2);

  accel_world_set_timeout_ms (world, 10000);
  return world;
}

/* joins @a and @b at once, as two ranks do */
static void
join_both (AccelWorld *a, AccelWorld *b)
{
  Joining ja = { a }, jb = { b };
  GThread *ta = g_thread_new ("rank-a", join_thread, &ja);
  GThread *tb = g_thread_new ("rank-b", join_thread, &jb);

  g_thread_join (ta);
  g_thread_join (tb);
  g_assert_no_error (ja.error);
  g_assert_no_error (jb.error);
  g_assert_true (ja.joined && jb.joined);
}

/* whether @world learns within 5 s that its generation was left */
static gboolean
learns_left (AccelWorld *world)
{
  gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  while (g_get_monotonic_time () < end)
    {
      if (accel_world_is_left (world))
        return TRUE;
      g_usleep (10 * 1000);
    }
  return FALSE;
}

/* a store served on a name is served on each of its addresses: on
 * "localhost" it listened on ::1 alone, and a rank that reached it as
 * 127.0.0.1 was refused */
static void
test_serves_every_address (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GSocketListener) probe = g_socket_listener_new ();
  g_autoptr (AccelStoreServer) server = NULL;
  g_autofree gchar *v4 = NULL, *named = NULL;
  g_autoptr (AccelWorld) r0 = NULL;
  g_autoptr (AccelWorld) r1 = NULL;
  guint16 port;

  /* a free port: a store on a name is given its port */
  port = g_socket_listener_add_any_inet_port (probe, NULL, &error);
  g_assert_no_error (error);
  g_socket_listener_close (probe);
  named = g_strdup_printf ("localhost:%u", port);
  server = accel_store_server_new (named, 2, NULL, &error);
  g_assert_no_error (error);
  v4 = g_strdup_printf ("127.0.0.1:%u", port);
  r0 = accel_world_new (v4, 0, 2);
  r1 = accel_world_new (named, 1, 2);
  accel_world_set_timeout_ms (r0, 10000);
  accel_world_set_timeout_ms (r1, 10000);
  join_both (r0, r1);
}

/* a rank that joins twice (started again while its first join still
 * waits), both joins timing out with the other rank late, leaves the round
 * once: the two ranks then form the world (the count of joined ranks went
 * below zero, and no later join could complete) */
static void
test_join_twice_timed_out (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelStoreServer) server
      = accel_store_server_new (NULL, 2, NULL, &error);
  g_autoptr (AccelWorld) first = world_of (server, 1);
  g_autoptr (AccelWorld) again = world_of (server, 1);
  g_autoptr (AccelWorld) r0 = world_of (server, 0);
  g_autoptr (AccelWorld) r1 = world_of (server, 1);
  Joining a = { first }, b = { again };
  GThread *ta, *tb;

  g_assert_no_error (error);
  accel_world_set_timeout_ms (first, 300);
  accel_world_set_timeout_ms (again, 300);
  ta = g_thread_new ("rank-1", join_thread, &a);
  tb = g_thread_new ("rank-1-again", join_thread, &b);
  g_thread_join (ta);
  g_thread_join (tb);
  g_assert_false (a.joined || b.joined);
  g_assert_error (a.error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT);
  g_assert_error (b.error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT);
  g_clear_error (&a.error);
  g_clear_error (&b.error);
  join_both (r0, r1);
}

/* a rank that refused its pipeline ends the other's join at once, before
 * or while it waits, naming why; joining again withdraws the refusal, and
 * the two form the world */
static void
test_refusal_ends_join (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelStoreServer) server
      = accel_store_server_new (NULL, 2, NULL, &error);
  g_autoptr (AccelWorld) r0 = world_of (server, 0);
  g_autoptr (AccelWorld) r1 = world_of (server, 1);
  Joining waits = { r0 };
  GThread *t;
  gint64 t0 = g_get_monotonic_time ();

  g_assert_no_error (error);
  t = g_thread_new ("rank-0", join_thread, &waits);
  g_usleep (100 * 1000);
  accel_world_refuse (r1, "p.yaml:2:3: no\nsecond line");
  g_thread_join (t);
  g_assert_false (waits.joined);
  g_assert_error (waits.error, ACCEL_ERROR, ACCEL_ERROR_FAILED);
  g_assert_nonnull (strstr (waits.error->message, ": rank 1 on "));
  g_assert_nonnull (strstr (waits.error->message,
      " refused its pipeline: p.yaml:2:3: no (and more: see that rank's "
      "output)"));
  /* not the 10 s of the world's timeout */
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 5 * G_USEC_PER_SEC);
  g_clear_error (&waits.error);

  /* told before it joins */
  g_assert_false (accel_world_join (r0, "store", &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED);
  g_clear_error (&error);
  /* rank 1 started again withdraws it as it joins */
  waits = (Joining){ r1 };
  t = g_thread_new ("rank-1", join_thread, &waits);
  g_usleep (100 * 1000);
  g_assert_true (accel_world_join (r0, "store", &error));
  g_assert_no_error (error);
  g_thread_join (t);
  g_assert_no_error (waits.error);
  g_assert_true (waits.joined);
}

/* a rank that died while its join waited (its process gone, its request
 * still counted), then both ranks started again: the first new rank's
 * join completed the old round with the dead one, and the other began a
 * round alone that never completed. Once the supervisor forgets the
 * round, the two new ranks form the world */
static void
test_dead_join_forgotten (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelStoreServer) server
      = accel_store_server_new (NULL, 2, NULL, &error);
  g_autoptr (AccelWorld) dead = world_of (server, 1);
  g_autoptr (AccelWorld) r0 = world_of (server, 0);
  g_autoptr (AccelWorld) r1 = world_of (server, 1);
  g_autoptr (AccelWorld) late = world_of (server, 1);
  g_autoptr (AccelWorld) r0_next = world_of (server, 0);
  g_autoptr (AccelWorld) r1_next = world_of (server, 1);
  Joining waiting = { dead };
  GThread *t;

  g_assert_no_error (error);
  t = g_thread_new ("rank-1-dies", join_thread, &waiting);
  /* its join waits in the server (for rank 0): a connection on this
   * machine's loopback takes far less */
  g_usleep (G_USEC_PER_SEC);
  accel_store_server_forget_round (server, 1);
  g_thread_join (t);
  g_assert_false (waiting.joined);
  g_clear_error (&waiting.error);
  join_both (r0, r1);
  g_assert_cmpuint (
      accel_world_get_generation (r0), ==, accel_world_get_generation (r1));

  /* a join sent by workers given up on, that the server reads only after
   * the round was forgotten, is refused at once; the next workers join */
  accel_store_server_forget_round (server, 2);
  g_assert_false (accel_world_join (late, "store", &error));
  g_assert_nonnull (strstr (error->message,
      "rank 1 of workers 1 joins after its supervisor gave up on them"));
  g_clear_error (&error);
  g_setenv ("ACCEL_GENERATION", "2", TRUE);
  join_both (r0_next, r1_next);
  g_unsetenv ("ACCEL_GENERATION");
}

/* a server told its world's pipeline refuses a rank of another pipeline
 * that joins before any of the world's own (it took the first joiner's
 * pipeline for the world's, and then refused the world's own ranks) */
static void
test_stranger_joins_first (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelStoreServer) server
      = accel_store_server_new (NULL, 2, "store", &error);
  g_autoptr (AccelWorld) stranger = world_of (server, 1);
  g_autoptr (AccelWorld) r0 = world_of (server, 0);
  g_autoptr (AccelWorld) r1 = world_of (server, 1);

  g_assert_no_error (error);
  g_assert_false (accel_world_join (stranger, "other", &error));
  g_assert_nonnull (strstr (error->message,
      "rank 1 runs pipeline 'other', the coordinator's world runs 'store'"));
  g_clear_error (&error);
  join_both (r0, r1);
}

static void
test_generation_left (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelStoreServer) server
      = accel_store_server_new (NULL, 2, NULL, &error);
  g_autoptr (AccelWorld) r0 = NULL, r1 = NULL, r1_again = NULL;
  g_autoptr (AccelWorld) r0_again = NULL;
  g_autoptr (GBytes) value = g_bytes_new_static ("id", 2);
  g_autoptr (GBytes) got = NULL;
  Joining restart;
  GThread *t;

  g_assert_no_error (error);
  r0 = world_of (server, 0);
  r1 = world_of (server, 1);
  join_both (r0, r1);
  g_assert_cmpuint (accel_world_get_generation (r0), ==, 1);
  g_assert_cmpuint (accel_world_get_generation (r1), ==, 1);
  g_assert_false (accel_world_is_left (r0));
  /* a peek does not wait for a key no rank set */
  g_assert_null (accel_world_peek (r1, "comm/id", NULL));
  g_assert_true (accel_world_set (r0, "comm/id", value, &error));
  g_assert_no_error (error);
  got = accel_world_peek (r1, "comm/id", NULL);
  g_assert_nonnull (got);
  g_assert_true (g_bytes_equal (got, value));
  g_clear_pointer (&got, g_bytes_unref);

  /* rank 1 is started again: its join begins generation 2 and waits for
   * rank 0, which meanwhile learns that generation 1 was left */
  r1_again = world_of (server, 1);
  restart = (Joining){ r1_again };
  t = g_thread_new ("rank-1-again", join_thread, &restart);
  g_assert_true (learns_left (r0));
  g_assert_true (accel_world_is_left (r1));

  r0_again = world_of (server, 0);
  g_assert_true (accel_world_join (r0_again, "store", &error));
  g_assert_no_error (error);
  g_thread_join (t);
  g_assert_no_error (restart.error);
  g_assert_true (restart.joined);
  g_assert_cmpuint (accel_world_get_generation (r0_again), ==, 2);
  g_assert_cmpuint (accel_world_get_generation (r1_again), ==, 2);
  g_assert_false (accel_world_is_left (r0_again));

  /* generation 2 sees none of generation 1's keys */
  g_assert_null (accel_world_peek (r1_again, "comm/id", NULL));
  accel_world_set_timeout_ms (r1_again, 200);
  got = accel_world_get (r1_again, "comm/id", &error);
  g_assert_null (got);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT);
  g_clear_error (&error);

  /* a peek at a coordinator gone is a failure, not a key unset */
  g_clear_pointer (&server, accel_store_server_free);
  g_assert_null (accel_world_peek (r1_again, "comm/id", &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED);
}

/* sends @len bytes of @request on a connection of its own to @server and
 * returns its reply line, or NULL when it closed without one */
static gchar *
raw_request (AccelStoreServer *server, const char *request, gsize len)
{
  g_autoptr (GSocketClient) client = g_socket_client_new ();
  g_autoptr (GSocketConnection) c = NULL;
  g_autoptr (GDataInputStream) in = NULL;
  g_autoptr (GError) error = NULL;

  g_socket_client_set_timeout (client, 20);
  c = g_socket_client_connect_to_host (
      client, accel_store_server_get_address (server), 0, NULL, &error);
  g_assert_no_error (error);
  /* a server that stops reading early may reset the rest: not an error */
  g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (c)),
      request, len, NULL, NULL, NULL);
  /* and says no more: the server sees the end at once */
  g_socket_shutdown (g_socket_connection_get_socket (c), FALSE, TRUE, NULL);
  in = g_data_input_stream_new (g_io_stream_get_input_stream (G_IO_STREAM (c)));
  return g_data_input_stream_read_line (in, NULL, NULL, NULL);
}

static void
assert_reply (AccelStoreServer *server, const char *request, gsize len,
    const char *expected)
{
  g_autofree gchar *reply = raw_request (server, request, len);

  g_assert_cmpstr (reply, ==, expected);
}

/* each answered with an error, and the server goes on serving a world */
static void
test_bad_requests (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelStoreServer) server
      = accel_store_server_new (NULL, 2, NULL, &error);
  g_autoptr (AccelWorld) r0 = NULL, r1 = NULL;
  gsize huge = 4 << 20;
  g_autofree gchar *endless = g_malloc (huge);
  static const char binary[] = "\xff\xfe\0JOIN 0 2 \x01\n";

  g_assert_no_error (error);
  assert_reply (server, "HELLO\n", 6, "ERROR not a request of the accel store");
  assert_reply (server, binary, sizeof (binary) - 1,
      "ERROR not a request of the accel store");
  assert_reply (server, "GET k 99999999999\n", 18,
      "ERROR not a request of the accel store");
  assert_reply (server, "JOIN 5 2 cA== 100\n", 18,
      "ERROR rank 5 is not in a world of 2 ranks");
  assert_reply (server, "JOIN 0 3 cA== 100\n", 18,
      "ERROR rank 0 was started for a world of 3 ranks, the coordinator's "
      "world has 2");
  /* megabytes without a newline: refused after the first 64 KiB */
  memset (endless, 'A', huge);
  assert_reply (server, endless, huge,
      "ERROR a request of the accel store is at most 65536 bytes");
  /* a client that ends without a whole request gets no reply, and holds
   * nothing */
  g_assert_null (raw_request (server, "", 0));

  r0 = world_of (server, 0);
  r1 = world_of (server, 1);
  join_both (r0, r1);
  g_assert_cmpuint (accel_world_get_generation (r0), ==, 1);
}

typedef struct
{
  GSocketConnection *c;
  gint stop;
} Drip;

/* sends a request a byte every 100 ms, never its newline, until told to
 * stop or the server closes the connection */
static gpointer
drip_thread (gpointer data)
{
  Drip *d = data;
  GOutputStream *out = g_io_stream_get_output_stream (G_IO_STREAM (d->c));

  while (!g_atomic_int_get (&d->stop)
         && g_output_stream_write_all (out, "G", 1, NULL, NULL, NULL))
    g_usleep (100 * 1000);
  return NULL;
}

/* a client that sends its request a byte at a time holds neither a thread
 * nor the store's close: each byte came within the read's timeout, and
 * freeing the store (rank 0's accel-run ending) waited for it as long as it
 * went on, past SIGTERM and SIGINT */
static void
test_dripping_client (void)
{
  g_autoptr (GError) error = NULL;
  AccelStoreServer *server = accel_store_server_new (NULL, 2, NULL, &error);
  g_autoptr (GSocketClient) client = g_socket_client_new ();
  Drip d = { 0 };
  GThread *t;
  gint64 t0;

  g_assert_no_error (error);
  d.c = g_socket_client_connect_to_host (
      client, accel_store_server_get_address (server), 0, NULL, &error);
  g_assert_no_error (error);
  t = g_thread_new ("drip", drip_thread, &d);
  g_usleep (500 * 1000);
  t0 = g_get_monotonic_time ();
  accel_store_server_free (server);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 2 * G_USEC_PER_SEC);
  g_atomic_int_set (&d.stop, 1);
  g_thread_join (t);
  g_object_unref (d.c);
}

/* a connection to @server that sent @request and waits for its reply */
static GSocketConnection *
raw_send (AccelStoreServer *server, const char *request)
{
  g_autoptr (GSocketClient) client = g_socket_client_new ();
  g_autoptr (GError) error = NULL;
  GSocketConnection *c;

  g_socket_client_set_timeout (client, 20);
  c = g_socket_client_connect_to_host (
      client, accel_store_server_get_address (server), 0, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (c)),
      request, strlen (request), NULL, NULL, &error);
  g_assert_no_error (error);
  return c;
}

static gchar *
raw_reply (GSocketConnection *c)
{
  g_autoptr (GDataInputStream) in = g_data_input_stream_new (
      g_io_stream_get_input_stream (G_IO_STREAM (c)));

  return g_data_input_stream_read_line (in, NULL, NULL, NULL);
}

/* a join of rank 1 to pipeline "store" (c3RvcmU=) by process @pid on host
 * "node1" (bm9kZTE=), token @token */
static gchar *
join_as (const char *token, int pid)
{
  return g_strdup_printf (
      "JOIN 1 2 c3RvcmU= 20000 1 %s %d bm9kZTE=\n", token, pid);
}

/* two processes given rank 1: the second's join, while the first's
 * waits, is refused at once naming both (it waited beside it, and both
 * took the world's one rank 1), and so is one while the first's world
 * runs (it began a generation of its own). A rank started again joins
 * while its predecessor's join waits too, or after it joined, but that
 * process is gone, its connection closed: the new one takes its place */
static void
test_rank_given_twice (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelStoreServer) server
      = accel_store_server_new (NULL, 2, NULL, &error);
  g_autofree gchar *first = join_as ("aaaa", 11),
                   *second = join_as ("bbbb", 22);
  g_autofree gchar *again = join_as ("cccc", 33);
  g_autofree gchar *refused = NULL, *joined = NULL;
  g_autoptr (GSocketConnection) waits = NULL, twice = NULL, restarted = NULL;
  g_autoptr (AccelWorld) r0 = NULL;
  gint64 t0;

  g_assert_no_error (error);
  waits = raw_send (server, first);
  /* its join waits in the server (for rank 0): a connection on this
   * machine's loopback takes far less */
  g_usleep (G_USEC_PER_SEC);
  t0 = g_get_monotonic_time ();
  twice = raw_send (server, second);
  refused = raw_reply (twice);
  g_assert_cmpstr (refused, ==,
      "ERROR rank 1 is taken by process 11 on node1, which joined first and "
      "waits for the other ranks; process 22 on node1 was given rank 1 too: "
      "each process of a world needs a --rank of its own");
  /* at once, not at the join's 20 s timeout */
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 10 * G_USEC_PER_SEC);

  /* the first process is gone: its successor joins, and the world forms */
  g_io_stream_close (G_IO_STREAM (waits), NULL, NULL);
  restarted = raw_send (server, again);
  r0 = world_of (server, 0);
  g_assert_true (accel_world_join (r0, "store", &error));
  g_assert_no_error (error);
  joined = raw_reply (restarted);
  g_assert_cmpstr (joined, ==, "JOINED 1");

  /* the world runs, its rank 1's connection open: a process given rank 1
   * is refused, and once that process is gone, its successor begins
   * generation 2 */
  g_clear_object (&twice);
  g_clear_pointer (&refused, g_free);
  twice = raw_send (server, second);
  refused = raw_reply (twice);
  g_assert_cmpstr (refused, ==,
      "ERROR rank 1 is taken by process 33 on node1, which joined generation "
      "1 of the world and still runs; process 22 on node1 was given rank 1 "
      "too: each process of a world needs a --rank of its own");
  g_assert_false (accel_world_is_left (r0));
  g_io_stream_close (G_IO_STREAM (restarted), NULL, NULL);
  g_clear_object (&twice);
  twice = raw_send (server, second);
  g_assert_true (learns_left (r0));
}

/* a server that is no accel store: answers whatever comes with endless
 * bytes */
static gpointer
babble (gpointer data)
{
  GSocketListener *listener = data;
  g_autoptr (GSocketConnection) c
      = g_socket_listener_accept (listener, NULL, NULL, NULL);
  g_autofree gchar *noise = g_malloc (1 << 20);

  g_assert_nonnull (c);
  memset (noise, 'x', 1 << 20);
  g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (c)),
      noise, 1 << 20, NULL, NULL, NULL);
  return NULL;
}

static void
test_not_a_store (void)
{
  g_autoptr (GSocketListener) listener = g_socket_listener_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) got = NULL;
  g_autofree gchar *address = NULL;
  guint16 port;
  GThread *t;

  port = g_socket_listener_add_any_inet_port (listener, NULL, &error);
  g_assert_no_error (error);
  address = g_strdup_printf ("127.0.0.1:%u", port);
  t = g_thread_new ("babble", babble, listener);
  got = accel_store_get (address, "comm/id", 2000, &error);
  g_assert_null (got);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED);
  g_assert_nonnull (
      strstr (error->message, "is an accel-run serving that address?"));
  g_thread_join (t);
}

/* a server that is no accel store, an HTTP one say: answers whatever
 * comes with one line of its own and closes */
static gpointer
answer_http (gpointer data)
{
  GSocketListener *listener = data;
  g_autoptr (GSocketConnection) c
      = g_socket_listener_accept (listener, NULL, NULL, NULL);
  static const char reply[] = "HTTP/1.1 400 Bad Request\r\n\r\n";

  g_assert_nonnull (c);
  g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (c)),
      reply, strlen (reply), NULL, NULL, NULL);
  return NULL;
}

/* a rank joining there is told that no store answered, with what did; it
 * said only "rank 1 cannot join the world at ...: HTTP/1.1 400 Bad
 * Request", as if the world had refused it */
static void
test_join_not_a_store (void)
{
  g_autoptr (GSocketListener) listener = g_socket_listener_new ();
  g_autoptr (GError) error = NULL;
  g_autofree gchar *address = NULL;
  guint16 port;
  GThread *t;

  port = g_socket_listener_add_any_inet_port (listener, NULL, &error);
  g_assert_no_error (error);
  address = g_strdup_printf ("127.0.0.1:%u", port);
  t = g_thread_new ("http", answer_http, listener);
  g_assert_cmpuint (
      accel_store_join (address, 1, 2, "p", 2000, NULL, &error), ==, 0);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "'HTTP/1.1 400 Bad Request'"));
  g_assert_nonnull (
      strstr (error->message, "is an accel-run serving that address?"));
  g_thread_join (t);
}

static gboolean
cancel_now (gpointer data)
{
  g_cancellable_cancel (data);
  return G_SOURCE_REMOVE;
}

static gpointer
run_context (gpointer data)
{
  GMainContext *context = data;

  g_main_context_iteration (context, TRUE);
  return NULL;
}

/* a request made with a cancellable current on the thread (a stage's
 * start () has its own) gives up when it is cancelled, from another
 * thread: a key no rank sets, and a coordinator that is not there yet.
 * Both used to wait out their timeout */
static void
test_get_interrupted (gconstpointer data)
{
  gboolean served = GPOINTER_TO_INT (data);
  g_autoptr (AccelStoreServer) server = NULL;
  g_autoptr (GSocketListener) listener = g_socket_listener_new ();
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GMainContext) context = g_main_context_new ();
  g_autoptr (GSource) timer = g_timeout_source_new (200);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) got = NULL;
  g_autofree gchar *address = NULL;
  gint64 t0 = g_get_monotonic_time ();
  GThread *t;

  if (served)
    {
      server = accel_store_server_new (NULL, 2, NULL, &error);
      g_assert_no_error (error);
      address = g_strdup (accel_store_server_get_address (server));
    }
  else
    {
      /* a port that refuses: nothing listens on it once it is closed */
      guint16 port
          = g_socket_listener_add_any_inet_port (listener, NULL, &error);
      g_assert_no_error (error);
      g_socket_listener_close (listener);
      address = g_strdup_printf ("127.0.0.1:%u", port);
    }
  g_source_set_callback (timer, cancel_now, cancellable, NULL);
  g_source_attach (timer, context);
  t = g_thread_new ("canceller", run_context, context);
  g_cancellable_push_current (cancellable);
  got = accel_store_get (address, "never/set", 30000, &error);
  g_cancellable_pop_current (cancellable);
  g_thread_join (t);
  g_assert_null (got);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED);
  g_assert_nonnull (strstr (error->message, "interrupted while waiting"));
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 5 * G_USEC_PER_SEC);
}

static gpointer
join_flagged (gpointer data)
{
  Joining *j = data;

  join_thread (j);
  return GINT_TO_POINTER (1);
}

/* a rank whose process is gone while its join waits (killed) leaves the
 * round: it counted as joined, the next rank completed the round with
 * it, and the rank started again began a generation of its own that the
 * others, run off in the first, never joined */
static void
test_gone_join_leaves_round (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelStoreServer) server
      = accel_store_server_new (NULL, 2, NULL, &error);
  g_autoptr (AccelWorld) r0 = NULL, r1 = NULL;
  GSocketConnection *gone;
  Joining j0 = { 0 }, j1 = { 0 };
  GThread *t0, *t1;

  g_assert_no_error (error);
  /* rank 1's first process: its join waits, then its process is gone */
  gone = raw_send (server, "JOIN 1 2 c3RvcmU= 20000 1 aaaa 11 bm9kZQ==\n");
  g_usleep (200 * 1000);
  g_object_unref (gone);
  j0.world = r0 = world_of (server, 0);
  t0 = g_thread_new ("rank-0", join_flagged, &j0);
  g_usleep (500 * 1000);
  /* the round waits for rank 1 */
  g_assert_false (j0.joined);
  g_assert_null (j0.error);
  j1.world = r1 = world_of (server, 1);
  t1 = g_thread_new ("rank-1", join_flagged, &j1);
  g_thread_join (t0);
  g_thread_join (t1);
  g_assert_no_error (j0.error);
  g_assert_no_error (j1.error);
  g_assert_true (j0.joined && j1.joined);
  g_assert_cmpuint (
      accel_world_get_generation (r0), ==, accel_world_get_generation (r1));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/store/generation-left", test_generation_left);
  g_test_add_func ("/store/dead-join-forgotten", test_dead_join_forgotten);
  g_test_add_func ("/store/join-twice-timed-out", test_join_twice_timed_out);
  g_test_add_func ("/store/refusal-ends-join", test_refusal_ends_join);
  g_test_add_func ("/store/serves-every-address", test_serves_every_address);
  g_test_add_func ("/store/stranger-joins-first", test_stranger_joins_first);
  g_test_add_func ("/store/rank-given-twice", test_rank_given_twice);
  g_test_add_func ("/store/bad-requests", test_bad_requests);
  g_test_add_func ("/store/dripping-client", test_dripping_client);
  g_test_add_func (
      "/store/gone-join-leaves-round", test_gone_join_leaves_round);
  g_test_add_func ("/store/not-a-store", test_not_a_store);
  g_test_add_func ("/store/join-not-a-store", test_join_not_a_store);
  g_test_add_data_func ("/store/get-interrupted/waiting-for-key",
      GINT_TO_POINTER (TRUE), test_get_interrupted);
  g_test_add_data_func ("/store/get-interrupted/no-coordinator",
      GINT_TO_POINTER (FALSE), test_get_interrupted);
  return g_test_run ();
}
