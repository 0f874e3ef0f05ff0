/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sparse grid: the host reference, slot for slot as on the GPU */
#include <string.h>

#include "sparse-grid-cell.h"
#include "sparse-grid.h"

static size_t
n_blocks (const AccelSparseGrid *g)
{
  return (size_t)g->bx * g->by;
}

int
accel_sparse_grid_clear_host (const AccelSparseGrid *g)
{
  memset (g->mask, 0, n_blocks (g));
  memset (g->table, 0xff, n_blocks (g) * sizeof (int32_t));
  memset (g->counts, 0, sizeof (AccelSparseGridCounts));
  return 0;
}

int
accel_sparse_grid_set_blocks_host (
    const AccelSparseGrid *g, const int32_t *coords, size_t n, int on)
{
  for (size_t i = 0; i < n; i++)
    {
      int32_t x = coords[2 * i], y = coords[2 * i + 1];

      if (x >= 0 && y >= 0 && x < g->bx && y < g->by)
        g->mask[(size_t)y * g->bx + x] = on != 0;
    }
  return 0;
}

int
accel_sparse_grid_rebuild_host (const AccelSparseGrid *g)
{
  int32_t rank = 0;

  for (size_t i = 0; i < n_blocks (g); i++)
    {
      g->table[i] = -1;
      if (!g->mask[i])
        continue;
      if (rank < g->max_blocks)
        {
          g->table[i] = rank;
          g->list[rank] = (int32_t)i;
        }
      rank++;
    }
  g->counts->active = rank < g->max_blocks ? rank : g->max_blocks;
  g->counts->dropped = rank - g->counts->active;
  return 0;
}

#define FOR_LISTED(g)                                                          \
  for (size_t i = 0, end = (size_t)(g)->counts->active * (g)->b * (g)->b;      \
       i < end; i++)

int
accel_sparse_grid_gather_host (
    const AccelSparseGrid *g, const float *dense, float *storage)
{
  FOR_LISTED (g)
  {
    int x, y;

    storage[i]
        = sparse_grid_cell (g, i, &x, &y) ? dense[(size_t)y * g->nx + x] : 0.0f;
  }
  return 0;
}

int
accel_sparse_grid_scatter_host (const AccelSparseGrid *g, const float *storage,
    float *dense, int zero_inactive)
{
  if (zero_inactive)
    {
      for (int y = 0; y < g->ny; y++)
        for (int x = 0; x < g->nx; x++)
          dense[(size_t)y * g->nx + x] = sparse_grid_at (g, storage, x, y);
      return 0;
    }
  FOR_LISTED (g)
  {
    int x, y;

    if (sparse_grid_cell (g, i, &x, &y))
      dense[(size_t)y * g->nx + x] = storage[i];
  }
  return 0;
}

int
accel_sparse_grid_diffuse_host (
    const AccelSparseGrid *g, const float *src, float *dst, float k)
{
  FOR_LISTED (g)
  {
    int x, y;

    dst[i] = sparse_grid_cell (g, i, &x, &y)
                 ? sparse_grid_diffuse_cell (g, src, src[i], x, y, k)
                 : 0.0f;
  }
  return 0;
}
