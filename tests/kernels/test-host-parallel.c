/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the host pool that splits the host references' frames into row bands:
 * every row runs once, whatever the row count, band size and number of
 * callers at once; a band may split its own rows again; the thread count
 * follows ACCEL_HOST_THREADS (this test runs with it unset and set to 3) */
#include "accel-test.h"
#include "host/parallel.h"

typedef struct
{
  int rows;
  gint *count; /* per row, atomic */
  gint calls;  /* bands run, atomic */
} Rows;

static void
count_rows (void *data, int y0, int y1)
{
  Rows *r = data;

  g_assert_cmpint (y0, >=, 0);
  g_assert_cmpint (y0, <, y1);
  g_assert_cmpint (y1, <=, r->rows);
  for (int y = y0; y < y1; y++)
    g_atomic_int_inc (&r->count[y]);
  g_atomic_int_inc (&r->calls);
}

/* runs @rows rows in bands of at least @min_rows, checks each ran once */
static void
check_once (int rows, int min_rows)
{
  Rows r = { rows, g_new0 (gint, MAX (rows, 1)), 0 };

  accel_host_parallel_rows (rows, min_rows, count_rows, &r);
  for (int y = 0; y < rows; y++)
    if (r.count[y] != 1)
      {
        g_test_message ("%d rows in bands of %d: row %d", rows, min_rows, y);
        g_assert_cmpint (r.count[y], ==, 1);
      }
  /* no band is smaller than asked, but a frame of fewer rows is one band */
  if (rows > 0)
    g_assert_cmpint (r.calls, <=, MAX (rows / MAX (min_rows, 1), 1));
  else
    g_assert_cmpint (r.calls, ==, 0);
  g_free (r.count);
}

static void
test_each_row_once (void)
{
  static const int rows[] = { 0, 1, 2, 3, 7, 64, 100, 359, 360, 1081 };
  static const int min_rows[] = { 0, 1, 2, 5, 24, 1000 };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    for (guint j = 0; j < G_N_ELEMENTS (min_rows); j++)
      check_once (rows[i], min_rows[j]);
}

static gpointer
caller (gpointer unused)
{
  (void)unused;
  for (int i = 0; i < 200; i++)
    check_once (97 + i % 13, 1 + i % 5);
  return NULL;
}

/* stages split their frames at the same time: each call still runs each of
 * its rows once, and all of them finish (the meson timeout bounds it) */
static void
test_concurrent_callers (void)
{
  GThread *threads[8];

  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("caller", caller, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (threads[i]);
}

typedef struct
{
  Rows outer;
  Rows *inner; /* one per outer row */
} Nested;

static void
nested_rows (void *data, int y0, int y1)
{
  Nested *n = data;

  count_rows (&n->outer, y0, y1);
  for (int y = y0; y < y1; y++)
    accel_host_parallel_rows (n->inner[y].rows, 1, count_rows, &n->inner[y]);
}

/* a band that splits its rows again runs on a pool thread or the caller;
 * either way the inner call finishes, on its own thread if need be */
static void
test_nested (void)
{
  Nested n = { { 16, g_new0 (gint, 16), 0 }, g_new0 (Rows, 16) };

  for (int y = 0; y < 16; y++)
    {
      n.inner[y].rows = 50;
      n.inner[y].count = g_new0 (gint, 50);
    }
  accel_host_parallel_rows (16, 1, nested_rows, &n);
  for (int y = 0; y < 16; y++)
    {
      g_assert_cmpint (n.outer.count[y], ==, 1);
      for (int i = 0; i < 50; i++)
        g_assert_cmpint (n.inner[y].count[i], ==, 1);
      g_free (n.inner[y].count);
    }
  g_free (n.inner);
  g_free (n.outer.count);
}

static void
test_threads (void)
{
  const char *env = g_getenv ("ACCEL_HOST_THREADS");

  if (env)
    g_assert_cmpint (accel_host_threads (), ==, atoi (env));
  else
    g_assert_cmpint (accel_host_threads (), ==, g_get_num_processors ());
  g_assert_cmpint (accel_host_min_rows (1), ==, 64 * 1024);
  g_assert_cmpint (accel_host_min_rows (0), ==, 64 * 1024);
  g_assert_cmpint (accel_host_min_rows (1 << 20), ==, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/host-parallel/each-row-once", test_each_row_once);
  g_test_add_func (
      "/host-parallel/concurrent-callers", test_concurrent_callers);
  g_test_add_func ("/host-parallel/nested", test_nested);
  g_test_add_func ("/host-parallel/threads", test_threads);
  return g_test_run ();
}
