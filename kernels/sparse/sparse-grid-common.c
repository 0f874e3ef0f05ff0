/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sparse grid: the layout of the topology in one block */
#include "sparse-grid.h"

#define ALIGN(n) (((n) + (size_t)15) & ~(size_t)15)
#define SCAN_TILE 1024

static size_t
blocks_of (int nx, int ny, int b)
{
  return (size_t)((nx + b - 1) / b) * (size_t)((ny + b - 1) / b);
}

size_t
accel_sparse_grid_size (int nx, int ny, int b, int max_blocks)
{
  size_t nb = blocks_of (nx, ny, b);

  return ALIGN (sizeof (AccelSparseGridCounts)) + ALIGN (nb)
         + ALIGN (nb * sizeof (int32_t))
         + ALIGN ((size_t)max_blocks * sizeof (int32_t))
         + ALIGN ((nb / SCAN_TILE + 1) * sizeof (int32_t));
}

int
accel_sparse_grid_init (
    AccelSparseGrid *g, void *block, int nx, int ny, int b, int max_blocks)
{
  char *p = block;
  size_t nb;

  if (nx < 1 || ny < 1 || b < 1 || b > 32 || max_blocks < 1)
    return -1;
  nb = blocks_of (nx, ny, b);
  /* block indices and slot numbers are int32 */
  if (nb > INT32_MAX || (size_t)max_blocks > nb)
    return -1;
  g->nx = nx;
  g->ny = ny;
  g->b = b;
  g->bx = (nx + b - 1) / b;
  g->by = (ny + b - 1) / b;
  g->max_blocks = max_blocks;
  g->counts = (AccelSparseGridCounts *)p;
  p += ALIGN (sizeof (AccelSparseGridCounts));
  g->mask = (uint8_t *)p;
  p += ALIGN (nb);
  g->table = (int32_t *)p;
  p += ALIGN (nb * sizeof (int32_t));
  g->list = (int32_t *)p;
  p += ALIGN ((size_t)max_blocks * sizeof (int32_t));
  g->scan = (int32_t *)p;
  return 0;
}

size_t
accel_sparse_grid_storage_floats (const AccelSparseGrid *g)
{
  return (size_t)g->max_blocks * g->b * g->b;
}
