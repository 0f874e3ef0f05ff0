/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the spatial index through its installed header and library
 * (accel/accelspatial.h, libaccel-kernels-1.0) against brute force, and
 * realtime.neighbours on the host backend */
#include <accel/accelspatial.h>

#include "test-neighbours.h"

#define N_POINTS 700

/* points in and around the [-1, 1] box: the ones outside land in border
 * cells and must still be found */
static void
random_points (GRand *rand, float *x, float *y, float *z, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      x[i] = (float)g_rand_double_range (rand, -1.2, 1.2);
      y[i] = (float)g_rand_double_range (rand, -1.2, 1.2);
      z[i] = (float)g_rand_double_range (rand, -0.3, 0.3);
    }
}

static void
test_indexed_brute_force (void)
{
  static const float lo[3] = { -1, -1, -1 }, hi[3] = { 1, 1, 1 };
  static const float radii[] = { 0.05f, 0.13f, 0.4f };
  g_autoptr (GRand) rand = g_rand_new_with_seed (19);
  g_autofree float *x = g_new (float, N_POINTS), *y = g_new (float, N_POINTS);
  g_autofree float *z = g_new (float, N_POINTS);
  g_autofree guint32 *counts = g_new (guint32, N_POINTS);
  guint64 total = 0;

  random_points (rand, x, y, z, N_POINTS);
  for (guint r = 0; r < G_N_ELEMENTS (radii); r++)
    {
      /* the cells smaller and larger than the radius: the same counts */
      for (guint k = 0; k < 2; k++)
        {
          AccelSpatialGrid grid;
          AccelSpatialIndex ix;
          g_autofree void *block = NULL;
          guint32 count = N_POINTS - 100; /* the rest are not indexed */
          float cell = k ? radii[r] * 2.5f : radii[r] * 0.5f;

          accel_spatial_grid_init (&grid, lo, hi, cell);
          block = g_malloc (accel_spatial_index_size (&grid, N_POINTS));
          accel_spatial_index_init (&ix, block, &grid, N_POINTS);
          g_assert_cmpint (
              accel_spatial_build_host (&grid, x, y, z, N_POINTS, &count, &ix),
              ==, 0);
          memset (counts, 0xcd, N_POINTS * sizeof (guint32));
          g_assert_cmpint (
              accel_spatial_count_indexed_neighbours_host (
                  &grid, &ix, x, y, z, N_POINTS, &count, radii[r], counts),
              ==, 0);
          for (guint32 i = 0; i < count; i++)
            {
              guint32 want = 0;
              for (guint32 j = 0; j < count; j++)
                {
                  volatile float dx = x[j] - x[i], dy = y[j] - y[i],
                                 dz = z[j] - z[i];
                  volatile float xy = dx * dx + dy * dy;
                  volatile float d2 = xy + dz * dz;
                  want += j != i && d2 <= radii[r] * radii[r];
                }
              g_assert_cmpuint (counts[i], ==, want);
              total += want;
            }
          for (guint32 i = count; i < N_POINTS; i++)
            g_assert_cmpuint (counts[i], ==, 0);
        }
    }
  /* the points are close enough for some neighbours */
  g_assert_cmpuint (total, >, N_POINTS);
}

static void
test_stage (void)
{
  g_assert_cmpuint (test_neighbours_stage_run (), >, 0);
}

static void
test_refuses_images (void)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("wrong");
  g_autoptr (GError) error = NULL;

  accel_test_stage (g, "core.test-source", "src");
  accel_test_stage (g, "realtime.neighbours", "nb");
  accel_test_stage (g, "core.null-sink", "sink");
  if (accel_graph_link (g, "src", "nb", &error)
      && accel_graph_link (g, "nb", "sink", &error))
    accel_graph_run (g, &error);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH);
  g_assert_nonnull (strstr (error->message, "nb"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  accel_backend_set_default (ACCEL_BACKEND_HOST, NULL);
  g_test_add_func ("/neighbours/indexed-brute-force", test_indexed_brute_force);
  g_test_add_func ("/neighbours/stage", test_stage);
  g_test_add_func ("/neighbours/refuses-images", test_refuses_images);
  return g_test_run ();
}
