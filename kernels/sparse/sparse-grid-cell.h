/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* per-cell arithmetic of the sparse grid, shared by the kernels and the
 * host reference */
#pragma once

#include "sparse-grid.h"

#ifdef __CUDACC__
#define SPARSE_FN __host__ __device__ static inline
#else
#define SPARSE_FN static inline
#endif

/* the domain cell of storage cell @i of the listed blocks; 0 for a cell of
 * an edge block outside the domain */
SPARSE_FN int
sparse_grid_cell (const AccelSparseGrid *g, size_t i, int *x, int *y)
{
  int bb = g->b * g->b, local = (int)(i % (size_t)bb);
  int32_t block = g->list[i / (size_t)bb];

  *x = (block % g->bx) * g->b + local % g->b;
  *y = (block / g->bx) * g->b + local / g->b;
  return *x < g->nx && *y < g->ny;
}

/* the value at domain cell (x, y): 0 outside the domain or the listed
 * blocks */
SPARSE_FN float
sparse_grid_at (const AccelSparseGrid *g, const float *s, int x, int y)
{
  int32_t slot;

  if (x < 0 || y < 0 || x >= g->nx || y >= g->ny)
    return 0.0f;
  slot = g->table[(y / g->b) * g->bx + x / g->b];
  if (slot < 0)
    return 0.0f;
  return s[(size_t)slot * g->b * g->b + (y % g->b) * g->b + x % g->b];
}

/* explicit sums in a fixed order: no contraction on either side */
SPARSE_FN float
sparse_grid_diffuse_cell (
    const AccelSparseGrid *g, const float *s, float c, int x, int y, float k)
{
  float lap = sparse_grid_at (g, s, x - 1, y) + sparse_grid_at (g, s, x + 1, y);

  lap = lap + sparse_grid_at (g, s, x, y - 1);
  lap = lap + sparse_grid_at (g, s, x, y + 1);
  lap = lap - 4.0f * c;
  return c + k * lap;
}
