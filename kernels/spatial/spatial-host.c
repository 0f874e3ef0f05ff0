/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spatial index: the host reference, a stable counting sort */
#include <string.h>

#include "spatial-grid.h"
#include "spatial.h"

int
accel_spatial_build_host (const AccelSpatialGrid *g, const float *x,
    const float *y, const float *z, size_t capacity, const uint32_t *count,
    const AccelSpatialIndex *ix)
{
  size_t cells = accel_spatial_grid_n_cells (g);
  size_t n = count ? *count : capacity;

  if (n > capacity)
    n = capacity;
  memset (ix->cell_count, 0, (cells + 1) * sizeof (uint32_t));
  for (size_t i = 0; i < n; i++)
    {
      uint32_t c = spatial_cell_of (g, x[i], y[i], spatial_z (z, i));
      ix->cell_of[i] = c;
      ix->cell_count[c]++;
    }
  accel_spatial_exclusive_scan_host (ix->cell_count, ix->cell_start, cells + 1);
  /* in index order: each cell's points come out ascending */
  memset (ix->cell_count, 0, (cells + 1) * sizeof (uint32_t));
  for (size_t i = 0; i < n; i++)
    {
      uint32_t c = ix->cell_of[i];
      ix->sorted[ix->cell_start[c] + ix->cell_count[c]++] = (uint32_t)i;
    }
  return 0;
}

int
accel_spatial_count_neighbours_host (const AccelSpatialGrid *g,
    const AccelSpatialIndex *ix, const float *x, const float *y, const float *z,
    const float *qx, const float *qy, const float *qz, size_t n_queries,
    float radius, uint32_t *counts)
{
  for (size_t q = 0; q < n_queries; q++)
    counts[q] = spatial_count_within (
        g, ix, x, y, z, qx[q], qy[q], spatial_z (qz, (uint32_t)q), radius);
  return 0;
}

int
accel_spatial_count_indexed_neighbours_host (const AccelSpatialGrid *g,
    const AccelSpatialIndex *ix, const float *x, const float *y, const float *z,
    size_t capacity, const uint32_t *count, float radius, uint32_t *counts)
{
  size_t n = count && *count < capacity ? *count : capacity;

  /* a point is within @radius of itself (unless NaN or @radius < 0): the
   * - 1 leaves it out */
  for (size_t i = 0; i < n; i++)
    {
      uint32_t within = spatial_count_within (
          g, ix, x, y, z, x[i], y[i], spatial_z (z, i), radius);
      counts[i] = within > 0 ? within - 1 : 0;
    }
  for (size_t i = n; i < capacity; i++)
    counts[i] = 0;
  return 0;
}
