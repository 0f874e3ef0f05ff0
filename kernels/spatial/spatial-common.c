/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spatial index: grid sizes, the layout of an index in one block, and the
 * host scan */
#include <math.h>

#include "spatial.h"

#define SCAN_TILE 1024

size_t
accel_spatial_grid_n_cells (const AccelSpatialGrid *g)
{
  return (size_t)g->dims[0] * (size_t)g->dims[1] * (size_t)g->dims[2];
}

void
accel_spatial_grid_init (
    AccelSpatialGrid *g, const float lo[3], const float hi[3], float cell)
{
  g->cell = cell;
  for (int a = 0; a < 3; a++)
    {
      int d = (int)ceilf ((hi[a] - lo[a]) / cell);
      g->origin[a] = lo[a];
      g->dims[a] = d < 1 ? 1 : d;
    }
}

size_t
accel_spatial_scan_tmp_words (size_t n)
{
  size_t tiles = (n + SCAN_TILE - 1) / SCAN_TILE;

  return tiles <= 1 ? 0 : tiles + accel_spatial_scan_tmp_words (tiles);
}

void
accel_spatial_exclusive_scan_host (const uint32_t *in, uint32_t *out, size_t n)
{
  uint32_t sum = 0;

  for (size_t i = 0; i < n; i++)
    {
      uint32_t v = in[i];
      out[i] = sum;
      sum += v;
    }
}

/* words of each array, each rounded up to 64 words (256 bytes) so every
 * array starts aligned */
static size_t
round_words (size_t w)
{
  return (w + 63) & ~(size_t)63;
}

size_t
accel_spatial_index_size (const AccelSpatialGrid *g, size_t capacity)
{
  size_t cells = accel_spatial_grid_n_cells (g) + 1;

  return (2 * round_words (capacity) + 2 * round_words (cells)
             + round_words (accel_spatial_scan_tmp_words (cells)))
         * sizeof (uint32_t);
}

void
accel_spatial_index_init (AccelSpatialIndex *ix, void *block,
    const AccelSpatialGrid *g, size_t capacity)
{
  uint32_t *b = block;
  size_t cells = accel_spatial_grid_n_cells (g) + 1;

  ix->cell_of = b;
  b += round_words (capacity);
  ix->sorted = b;
  b += round_words (capacity);
  ix->cell_start = b;
  b += round_words (cells);
  ix->cell_count = b;
  b += round_words (cells);
  ix->scan_tmp = b;
}
