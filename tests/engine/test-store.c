/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the world's store in one process: two ranks join generation 1; one is
 * started again and joins anew, which begins generation 2; the rank left
 * in generation 1 learns so (accel_world_is_left(), what a collective that
 * waits for a restarted peer asks) and joins generation 2 too, where keys
 * of generation 1 are not seen */
#include "accel-test.h"

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

static void
test_generation_left (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelStoreServer) server
      = accel_store_server_new (NULL, 2, &error);
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
  g_assert_true (accel_world_set (r0, "comm/id", value, &error));
  g_assert_no_error (error);

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
  accel_world_set_timeout_ms (r1_again, 200);
  got = accel_world_get (r1_again, "comm/id", &error);
  g_assert_null (got);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/store/generation-left", test_generation_left);
  return g_test_run ();
}
