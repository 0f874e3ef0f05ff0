/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* per-point functions of the spatial index, shared by the kernels and the
 * host reference: a point's cell, and iteration over its neighbours */
#pragma once

#include <math.h>
#include <stdint.h>

#include "spatial.h"

#ifdef __CUDACC__
#define SPATIAL_FN __host__ __device__ static inline
#else
#define SPATIAL_FN static inline
#endif

/* the cell coordinate of @v along @axis, clamped into the grid (NaN lands
 * in cell 0) */
SPATIAL_FN int
spatial_coord (const AccelSpatialGrid *g, int axis, float v)
{
  float f = floorf ((v - g->origin[axis]) / g->cell);
  float last = (float)(g->dims[axis] - 1);

  if (!(f > 0.0f))
    return 0;
  return f >= last ? g->dims[axis] - 1 : (int)f;
}

SPATIAL_FN uint32_t
spatial_cell (const AccelSpatialGrid *g, int cx, int cy, int cz)
{
  return ((uint32_t)cz * (uint32_t)g->dims[1] + (uint32_t)cy)
             * (uint32_t)g->dims[0]
         + (uint32_t)cx;
}

SPATIAL_FN uint32_t
spatial_cell_of (const AccelSpatialGrid *g, float x, float y, float z)
{
  return spatial_cell (g, spatial_coord (g, 0, x), spatial_coord (g, 1, y),
      spatial_coord (g, 2, z));
}

SPATIAL_FN float
spatial_z (const float *z, uint32_t i)
{
  return z ? z[i] : 0.0f;
}

/* the squared distance, summed in a fixed order */
SPATIAL_FN float
spatial_dist2 (float dx, float dy, float dz)
{
  float s = dx * dx + dy * dy;
  return s + dz * dz;
}

/* the points of the cells within @radius of a point: cells z, then y, then
 * x ascending, each cell's points in index order. Use:
 *   AccelSpatialIter it;
 *   spatial_iter_begin (&it, g, x, y, z, radius);
 *   while (spatial_iter_next (&it, g, ix->cell_start, ix->sorted, &j)) ...
 * The candidates still need a distance test. */
typedef struct
{
  int lo[3], hi[3];
  int cx, cy, cz;
  uint32_t k, end;
} AccelSpatialIter;

SPATIAL_FN void
spatial_iter_begin (AccelSpatialIter *it, const AccelSpatialGrid *g, float x,
    float y, float z, float radius)
{
  float p[3] = { x, y, z };

  for (int a = 0; a < 3; a++)
    {
      it->lo[a] = spatial_coord (g, a, p[a] - radius);
      it->hi[a] = spatial_coord (g, a, p[a] + radius);
    }
  it->cx = it->lo[0] - 1; /* the first next () moves to lo */
  it->cy = it->lo[1];
  it->cz = it->lo[2];
  it->k = it->end = 0;
}

/* as spatial_iter_next, but the candidate's place in the index's order
 * (where a copy of the points sorted by cell holds it) */
SPATIAL_FN int
spatial_iter_next_slot (AccelSpatialIter *it, const AccelSpatialGrid *g,
    const uint32_t *cell_start, uint32_t *slot)
{
  while (it->k == it->end)
    {
      uint32_t c;
      if (++it->cx > it->hi[0])
        {
          it->cx = it->lo[0];
          if (++it->cy > it->hi[1])
            {
              it->cy = it->lo[1];
              if (++it->cz > it->hi[2])
                return 0;
            }
        }
      c = spatial_cell (g, it->cx, it->cy, it->cz);
      it->k = cell_start[c];
      it->end = cell_start[c + 1];
    }
  *slot = it->k++;
  return 1;
}

SPATIAL_FN int
spatial_iter_next (AccelSpatialIter *it, const AccelSpatialGrid *g,
    const uint32_t *cell_start, const uint32_t *sorted, uint32_t *j)
{
  uint32_t slot;

  if (!spatial_iter_next_slot (it, g, cell_start, &slot))
    return 0;
  *j = sorted[slot];
  return 1;
}

/* neighbours of (x, y, z) within @radius */
SPATIAL_FN uint32_t
spatial_count_within (const AccelSpatialGrid *g, const AccelSpatialIndex *ix,
    const float *px, const float *py, const float *pz, float x, float y,
    float z, float radius)
{
  AccelSpatialIter it;
  float r2 = radius * radius;
  uint32_t j, n = 0;

  spatial_iter_begin (&it, g, x, y, z, radius);
  while (spatial_iter_next (&it, g, ix->cell_start, ix->sorted, &j))
    n += spatial_dist2 (px[j] - x, py[j] - y, spatial_z (pz, j) - z) <= r2;
  return n;
}
