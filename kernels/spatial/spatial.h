/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spatial index: a uniform grid over a box, built by a counting sort of
 * each point's cell, and neighbour queries within a radius
 *
 * Points are structure-of-arrays floats (x, y, z; z may be NULL for points
 * in the plane z = 0). A point outside the box counts in the nearest border
 * cell, so every point is indexed and a query still finds every neighbour
 * (clamping never moves two cells further apart).
 *
 * The sort is stable: within a cell the points keep their index order. The
 * GPU scatters with atomics and then sorts each cell's few entries, the
 * host reference scatters in index order; both give the same arrays, so a
 * sum over a point's neighbours in iteration order (spatial-grid.h) is the
 * same to the bit on both sides.
 *
 * The number of points may live in device memory (@count), so a pipeline
 * whose point count changes on the GPU builds without a host sync: launches
 * cover @capacity points and skip those at or past *@count. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

  typedef struct
  {
    float origin[3]; /* the box's lower corner */
    float cell;      /* edge of a cubic cell */
    int dims[3];     /* cells along x, y and z (1 along z for 2D) */
  } AccelSpatialGrid;

  /* device or host memory, laid out by accel_spatial_index_init */
  typedef struct
  {
    uint32_t *cell_of;    /* capacity: the cell of each point */
    uint32_t *sorted;     /* capacity: point indices, by cell then index */
    uint32_t *cell_start; /* n_cells + 1: cell c holds sorted[cell_start[c]]
                             up to sorted[cell_start[c + 1]] */
    uint32_t *cell_count; /* n_cells + 1: histogram, then scatter cursor */
    uint32_t *scan_tmp;   /* the scan's partial sums */
  } AccelSpatialIndex;

  size_t accel_spatial_grid_n_cells (const AccelSpatialGrid *g);
  /* a grid of cells of edge @cell covering [lo, hi] on each axis */
  void accel_spatial_grid_init (
      AccelSpatialGrid *g, const float lo[3], const float hi[3], float cell);

  /* bytes of an index of up to @capacity points, laid out as in
   * accel_spatial_index_init */
  size_t accel_spatial_index_size (const AccelSpatialGrid *g, size_t capacity);
  void accel_spatial_index_init (AccelSpatialIndex *ix, void *block,
      const AccelSpatialGrid *g, size_t capacity);

  /* builds the index of the first *@count of @capacity points (@count NULL:
   * all @capacity); @count is device memory for the launcher, host memory
   * for the reference. Launcher returns a cudaError_t, host reference 0 */
  int accel_spatial_build (void *stream, const AccelSpatialGrid *g,
      const float *x, const float *y, const float *z, size_t capacity,
      const uint32_t *count, const AccelSpatialIndex *ix);
  int accel_spatial_build_host (const AccelSpatialGrid *g, const float *x,
      const float *y, const float *z, size_t capacity, const uint32_t *count,
      const AccelSpatialIndex *ix);

  /* for each of @n_queries points (qx, qy, qz), the number of indexed points
   * (x, y, z) at a distance of at most @radius (a query that is itself
   * indexed counts itself) */
  int accel_spatial_count_neighbours (void *stream, const AccelSpatialGrid *g,
      const AccelSpatialIndex *ix, const float *x, const float *y,
      const float *z, const float *qx, const float *qy, const float *qz,
      size_t n_queries, float radius, uint32_t *counts);
  int accel_spatial_count_neighbours_host (const AccelSpatialGrid *g,
      const AccelSpatialIndex *ix, const float *x, const float *y,
      const float *z, const float *qx, const float *qy, const float *qz,
      size_t n_queries, float radius, uint32_t *counts);

  /* exclusive prefix sum of @n words into @out (which may be @in), with
   * accel_spatial_scan_tmp_words (@n) words of @tmp; deterministic */
  size_t accel_spatial_scan_tmp_words (size_t n);
  int accel_spatial_exclusive_scan (
      void *stream, const uint32_t *in, uint32_t *out, size_t n, uint32_t *tmp);
  void accel_spatial_exclusive_scan_host (
      const uint32_t *in, uint32_t *out, size_t n);

#ifdef __cplusplus
}
#endif
