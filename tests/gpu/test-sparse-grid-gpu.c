/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the sparse grid on the GPU against the host reference, exactly: the list
 * and table after switching blocks on and off, gather, both scatters and
 * the stencil, at sizes from one cell up, odd ones among them */
#include <cuda_runtime_api.h>

#include "accel-test.h"
#include "sparse/sparse-grid.h"

static void
check (int status)
{
  g_assert_cmpstr (
      cudaGetErrorString (status), ==, cudaGetErrorString (cudaSuccess));
}

typedef struct
{
  int nx, ny, b, max_blocks; /* max_blocks 0: every block */
} Size;

#define POISON 0xcd

static void
compare (gconstpointer data)
{
  const Size *z = data;
  int nx = z->nx, ny = z->ny, b = z->b;
  int nb = ((nx + b - 1) / b) * ((ny + b - 1) / b);
  int max_blocks = z->max_blocks ? z->max_blocks : nb;
  gsize topo = accel_sparse_grid_size (nx, ny, b, max_blocks);
  gsize n = (gsize)nx * ny, cells, bytes;
  AccelSparseGrid dg, hg, bg;
  cudaStream_t s;
  float *d_field, *d_dense, *d_store, *d_next;
  gint32 *d_coords;
  g_autofree gpointer d_topo_back = g_malloc (topo);
  g_autofree gpointer h_topo = g_malloc (topo);
  gpointer d_topo;
  g_autofree float *field = g_new (float, n);
  g_autofree float *h_dense = g_new (float, n), *g_dense = g_new (float, n);
  g_autofree float *h_store = NULL, *h_next = NULL, *g_store = NULL;
  g_autofree gint32 *coords = g_new (gint32, 2 * nb);

  check (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  check (cudaMalloc (&d_topo, topo));
  check (cudaMemset (d_topo, POISON, topo));
  memset (h_topo, POISON, topo);
  g_assert_cmpint (
      accel_sparse_grid_init (&dg, d_topo, nx, ny, b, max_blocks), ==, 0);
  accel_sparse_grid_init (&hg, h_topo, nx, ny, b, max_blocks);
  accel_sparse_grid_init (&bg, d_topo_back, nx, ny, b, max_blocks);
  cells = accel_sparse_grid_storage_floats (&hg);
  bytes = cells * sizeof (float);
  h_store = g_malloc (bytes);
  h_next = g_malloc (bytes);
  g_store = g_malloc (bytes);
  check (cudaMalloc ((void **)&d_field, n * sizeof (float)));
  check (cudaMalloc ((void **)&d_dense, n * sizeof (float)));
  check (cudaMalloc ((void **)&d_store, bytes));
  check (cudaMalloc ((void **)&d_next, bytes));
  check (cudaMalloc ((void **)&d_coords, 2 * nb * sizeof (gint32)));
  for (gsize i = 0; i < n; i++)
    field[i] = (float)g_test_rand_double_range (-1.0, 1.0);
  check (
      cudaMemcpy (d_field, field, n * sizeof (float), cudaMemcpyHostToDevice));
  /* the legacy stream's copies and fills done before the grid's stream
   * (non-blocking) starts */
  check (cudaDeviceSynchronize ());
  check (accel_sparse_grid_clear (s, &dg));
  accel_sparse_grid_clear_host (&hg);

  for (int round = 0; round < 6; round++)
    {
      gboolean on = round % 3 != 2;
      int k = 0, active;

      for (int i = 0; i < nb; i++)
        if (g_test_rand_int_range (0, 100) < (on ? 40 : 30))
          {
            coords[2 * k] = i % hg.bx;
            coords[2 * k + 1] = i / hg.bx;
            k++;
          }
      check (cudaMemcpy (
          d_coords, coords, 2 * k * sizeof (gint32), cudaMemcpyHostToDevice));
      check (cudaDeviceSynchronize ());
      check (accel_sparse_grid_set_blocks (s, &dg, d_coords, k, on));
      check (accel_sparse_grid_rebuild (s, &dg));
      accel_sparse_grid_set_blocks_host (&hg, coords, k, on);
      accel_sparse_grid_rebuild_host (&hg);

      /* poisoned outputs: a cell not written shows */
      check (cudaMemsetAsync (d_store, POISON, bytes, s));
      check (cudaMemsetAsync (d_next, POISON, bytes, s));
      memset (h_store, POISON, bytes);
      memset (h_next, POISON, bytes);
      check (accel_sparse_grid_gather (s, &dg, d_field, d_store));
      check (accel_sparse_grid_diffuse (s, &dg, d_store, d_next, 0.15f));
      accel_sparse_grid_gather_host (&hg, field, h_store);
      accel_sparse_grid_diffuse_host (&hg, h_store, h_next, 0.15f);
      check (cudaMemcpyAsync (
          d_topo_back, d_topo, topo, cudaMemcpyDeviceToHost, s));
      check (cudaStreamSynchronize (s));

      active = hg.counts->active;
      g_assert_cmpint (bg.counts->active, ==, active);
      g_assert_cmpint (bg.counts->dropped, ==, hg.counts->dropped);
      g_assert_cmpmem (bg.mask, nb, hg.mask, nb);
      g_assert_cmpmem (bg.table, nb * 4, hg.table, nb * 4);
      g_assert_cmpmem (bg.list, active * 4, hg.list, active * 4);
      /* the whole storage: slots past the list untouched on both sides */
      check (cudaMemcpy (g_store, d_store, bytes, cudaMemcpyDeviceToHost));
      g_assert_cmpmem (g_store, bytes, h_store, bytes);
      check (cudaMemcpy (g_store, d_next, bytes, cudaMemcpyDeviceToHost));
      g_assert_cmpmem (g_store, bytes, h_next, bytes);

      /* scatter over the field leaves the other blocks' cells */
      memcpy (h_dense, field, n * sizeof (float));
      /* everything on the grid's stream: it does not wait for the
       * legacy default stream, nor that stream for it */
      check (cudaMemcpyAsync (
          d_dense, field, n * sizeof (float), cudaMemcpyHostToDevice, s));
      check (accel_sparse_grid_scatter (s, &dg, d_next, d_dense, FALSE));
      accel_sparse_grid_scatter_host (&hg, h_next, h_dense, FALSE);
      check (cudaMemcpyAsync (
          g_dense, d_dense, n * sizeof (float), cudaMemcpyDeviceToHost, s));
      check (cudaStreamSynchronize (s));
      g_assert_cmpmem (g_dense, n * 4, h_dense, n * 4);
      /* or zeroes them */
      check (cudaMemsetAsync (d_dense, POISON, n * sizeof (float), s));
      memset (h_dense, POISON, n * sizeof (float));
      check (accel_sparse_grid_scatter (s, &dg, d_next, d_dense, TRUE));
      accel_sparse_grid_scatter_host (&hg, h_next, h_dense, TRUE);
      check (cudaMemcpyAsync (
          g_dense, d_dense, n * sizeof (float), cudaMemcpyDeviceToHost, s));
      check (cudaStreamSynchronize (s));
      g_assert_cmpmem (g_dense, n * 4, h_dense, n * 4);
    }

  cudaFree (d_topo);
  cudaFree (d_field);
  cudaFree (d_dense);
  cudaFree (d_store);
  cudaFree (d_next);
  cudaFree (d_coords);
  cudaStreamDestroy (s);
}

int
main (int argc, char **argv)
{
  /* past 1024 blocks the rebuild scans more than one tile */
  static const Size sizes[]
      = { { 1, 1, 1, 0 }, { 1, 7, 4, 0 }, { 37, 23, 8, 0 }, { 333, 129, 1, 0 },
          { 1000, 999, 8, 0 }, { 2048, 2048, 16, 0 }, { 513, 511, 32, 0 },
          { 200, 200, 4, 100 }, { 4096, 4000, 2, 5000 } };

  g_test_init (&argc, &argv, NULL);
  accel_test_require_gpu ();
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      g_autofree char *path
          = g_strdup_printf ("/gpu/sparse-grid/%dx%d/b=%d/max=%d", sizes[i].nx,
              sizes[i].ny, sizes[i].b, sizes[i].max_blocks);

      g_test_add_data_func (path, &sizes[i], compare);
    }
  return g_test_run ();
}
