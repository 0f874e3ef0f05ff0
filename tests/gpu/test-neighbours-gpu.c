/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the spatial index's neighbour counts on the GPU (libaccel-kernels-1.0)
 * against the host reference, to the word, with the count in device
 * memory; realtime.neighbours on the GPU against brute force */
#include <cuda_runtime_api.h>
#include <string.h>

#include <accel/accelspatial.h>

#include "test-neighbours.h"

#define N_POINTS 5000

static void
check (int status)
{
  g_assert_cmpstr (
      cudaGetErrorString (status), ==, cudaGetErrorString (cudaSuccess));
}

static void *
upload (const void *host, size_t size)
{
  void *p;

  check (cudaMalloc (&p, size));
  check (cudaMemcpy (p, host, size, cudaMemcpyHostToDevice));
  return p;
}

static void
test_indexed_gpu_equals_host (void)
{
  static const float lo[3] = { -1, -1, -1 }, hi[3] = { 1, 1, 1 };
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  g_autofree float *x = g_new (float, N_POINTS), *y = g_new (float, N_POINTS);
  g_autofree float *z = g_new (float, N_POINTS);
  g_autofree guint32 *want = g_new (guint32, N_POINTS);
  g_autofree guint32 *got = g_new (guint32, N_POINTS);
  g_autofree void *hblock = NULL;
  guint32 count = N_POINTS - 321;
  AccelSpatialGrid grid;
  AccelSpatialIndex hix, dix;
  float *dx, *dy, *dz;
  guint32 *dcount, *dcounts;
  void *dblock;
  size_t size;

  for (size_t i = 0; i < N_POINTS; i++)
    {
      x[i] = (float)g_rand_double_range (rand, -1.1, 1.1);
      y[i] = (float)g_rand_double_range (rand, -1.1, 1.1);
      z[i] = (float)g_rand_double_range (rand, -0.2, 0.2);
    }
  accel_spatial_grid_init (&grid, lo, hi, 0.08f);
  size = accel_spatial_index_size (&grid, N_POINTS);
  hblock = g_malloc (size);
  accel_spatial_index_init (&hix, hblock, &grid, N_POINTS);
  accel_spatial_build_host (&grid, x, y, z, N_POINTS, &count, &hix);
  accel_spatial_count_indexed_neighbours_host (
      &grid, &hix, x, y, z, N_POINTS, &count, 0.08f, want);

  dx = upload (x, N_POINTS * 4);
  dy = upload (y, N_POINTS * 4);
  dz = upload (z, N_POINTS * 4);
  dcount = upload (&count, 4);
  check (cudaMalloc (&dblock, size));
  check (cudaMalloc ((void **)&dcounts, N_POINTS * 4));
  /* poison: a word the kernel should have written and did not shows */
  check (cudaMemset (dcounts, 0xcd, N_POINTS * 4));
  accel_spatial_index_init (&dix, dblock, &grid, N_POINTS);
  check (accel_spatial_build (NULL, &grid, dx, dy, dz, N_POINTS, dcount, &dix));
  check (accel_spatial_count_indexed_neighbours (
      NULL, &grid, &dix, dx, dy, dz, N_POINTS, dcount, 0.08f, dcounts));
  check (cudaMemcpy (got, dcounts, N_POINTS * 4, cudaMemcpyDeviceToHost));
  g_assert_cmpmem (got, N_POINTS * 4, want, N_POINTS * 4);
  cudaFree (dx);
  cudaFree (dy);
  cudaFree (dz);
  cudaFree (dcount);
  cudaFree (dblock);
  cudaFree (dcounts);
}

static void
test_stage_gpu (void)
{
  g_assert_cmpuint (test_neighbours_stage_run (), >, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  accel_test_require_gpu ();
  g_test_add_func (
      "/neighbours-gpu/indexed-equals-host", test_indexed_gpu_equals_host);
  g_test_add_func ("/neighbours-gpu/stage", test_stage_gpu);
  return g_test_run ();
}
