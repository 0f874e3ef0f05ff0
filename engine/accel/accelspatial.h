/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the spatial index (libaccel-kernels-1.0); plain C, no GLib, so the
 * kernels include it as it is */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

  /**
   * SECTION:accelspatial
   * @title: Spatial index
   * @short_description: a uniform grid over points, and neighbour queries
   *
   * A uniform grid over a box, built by a counting sort of each point's
   * cell, and neighbour queries within a radius. Link with
   * libaccel-kernels-1.0 (in accel-1.0.pc); the stage realtime.neighbours
   * runs it on a particle state.
   *
   * Points are structure-of-arrays floats (x, y, z; z may be %NULL for
   * points in the plane z = 0). A point outside the box counts in the
   * nearest border cell, so every point is indexed and a query still finds
   * every neighbour (clamping never moves two cells further apart).
   *
   * The sort is stable: within a cell the points keep their index order.
   * The GPU scatters with atomics and then sorts each cell's few entries,
   * the host reference scatters in index order; both give the same arrays,
   * so a sum over a point's neighbours in iteration order is the same to
   * the bit on both sides.
   *
   * Each operation comes twice: a launcher that takes a CUDA stream (a
   * cudaStream_t as `void *`, such as accel_stream_get_handle() returns)
   * and device memory and returns a cudaError_t, and a host reference
   * (`_host`) that takes host memory and returns 0. Neither waits: the
   * launchers only queue work on the stream. Calls on one index run one
   * after the other (one stream); any thread may call them.
   *
   * The number of points may live in device memory (@count), so a pipeline
   * whose point count changes on the GPU builds without a host sync:
   * launches cover @capacity points and skip those at or past *@count.
   */

  /**
   * AccelSpatialGrid:
   * @origin: the box's lower corner
   * @cell: edge of a cubic cell
   * @dims: cells along x, y and z (1 along z for 2D)
   *
   * The layout of a spatial index, filled by accel_spatial_grid_init().
   */
  typedef struct
  {
    float origin[3];
    float cell;
    int dims[3];
  } AccelSpatialGrid;

  /**
   * AccelSpatialIndex:
   * @cell_of: capacity words: the cell of each point
   * @sorted: capacity words: point indices, by cell then index
   * @cell_start: n_cells + 1 words: cell c holds sorted[cell_start[c]] up
   *   to sorted[cell_start[c + 1]]
   * @cell_count: n_cells + 1 words: the histogram, then the scatter cursor
   * @scan_tmp: the scan's partial sums
   *
   * An index in one block of device or host memory, laid out by
   * accel_spatial_index_init().
   */
  typedef struct
  {
    uint32_t *cell_of;
    uint32_t *sorted;
    uint32_t *cell_start;
    uint32_t *cell_count;
    uint32_t *scan_tmp;
  } AccelSpatialIndex;

  /**
   * accel_spatial_grid_n_cells:
   * @g: a grid
   *
   * Returns: the number of cells of @g. MT safe.
   */
  size_t accel_spatial_grid_n_cells (const AccelSpatialGrid *g);

  /**
   * accel_spatial_grid_init:
   * @g: (out caller-allocates): the grid to fill
   * @lo: the box's lower corner
   * @hi: the box's upper corner
   * @cell: edge of a cell; a radius query scans the cells within the radius,
   *   so a cell about the radius scans 27 cells
   *
   * A grid of cells of edge @cell covering [@lo, @hi] on each axis. MT safe.
   */
  void accel_spatial_grid_init (
      AccelSpatialGrid *g, const float lo[3], const float hi[3], float cell);

  /**
   * accel_spatial_index_size:
   * @g: a grid
   * @capacity: the most points the index will hold
   *
   * Returns: the bytes of an index of up to @capacity points, laid out as
   * accel_spatial_index_init() does. MT safe.
   */
  size_t accel_spatial_index_size (const AccelSpatialGrid *g, size_t capacity);

  /**
   * accel_spatial_index_init:
   * @ix: (out caller-allocates): the index to point into @block
   * @block: accel_spatial_index_size() bytes of device or host memory
   * @g: a grid
   * @capacity: the most points the index will hold
   *
   * Points @ix's arrays into @block; touches no memory. MT safe.
   */
  void accel_spatial_index_init (AccelSpatialIndex *ix, void *block,
      const AccelSpatialGrid *g, size_t capacity);

  /**
   * accel_spatial_build:
   * @stream: a cudaStream_t
   * @g: the grid @ix was laid out for
   * @x: x of each point
   * @y: y of each point
   * @z: (nullable): z of each point, or %NULL for z = 0
   * @capacity: points in @x, @y and @z
   * @count: (nullable): device memory: how many of the points to index, or
   *   %NULL for all @capacity
   * @ix: the index to build
   *
   * Builds the index of the first *@count of @capacity points.
   *
   * Returns: a cudaError_t, 0 on success.
   */
  int accel_spatial_build (void *stream, const AccelSpatialGrid *g,
      const float *x, const float *y, const float *z, size_t capacity,
      const uint32_t *count, const AccelSpatialIndex *ix);

  /**
   * accel_spatial_build_host:
   * @g: the grid @ix was laid out for
   * @x: x of each point
   * @y: y of each point
   * @z: (nullable): z of each point, or %NULL for z = 0
   * @capacity: points in @x, @y and @z
   * @count: (nullable): host memory: how many of the points to index, or
   *   %NULL for all @capacity
   * @ix: the index to build, in host memory
   *
   * The host reference of accel_spatial_build().
   *
   * Returns: 0.
   */
  int accel_spatial_build_host (const AccelSpatialGrid *g, const float *x,
      const float *y, const float *z, size_t capacity, const uint32_t *count,
      const AccelSpatialIndex *ix);

  /**
   * accel_spatial_count_neighbours:
   * @stream: a cudaStream_t
   * @g: the grid of @ix
   * @ix: a built index of the points (@x, @y, @z)
   * @x: x of the indexed points
   * @y: y of the indexed points
   * @z: (nullable): z of the indexed points, or %NULL
   * @qx: x of each query
   * @qy: y of each query
   * @qz: (nullable): z of each query, or %NULL
   * @n_queries: how many queries
   * @radius: the distance within which a point counts
   * @counts: @n_queries words: the result
   *
   * For each of @n_queries points (@qx, @qy, @qz), the number of indexed
   * points at a distance of at most @radius (a query that is itself indexed
   * counts itself).
   *
   * Returns: a cudaError_t, 0 on success.
   */
  int accel_spatial_count_neighbours (void *stream, const AccelSpatialGrid *g,
      const AccelSpatialIndex *ix, const float *x, const float *y,
      const float *z, const float *qx, const float *qy, const float *qz,
      size_t n_queries, float radius, uint32_t *counts);

  /**
   * accel_spatial_count_neighbours_host:
   * @g: the grid of @ix
   * @ix: a built index of the points (@x, @y, @z)
   * @x: x of the indexed points
   * @y: y of the indexed points
   * @z: (nullable): z of the indexed points, or %NULL
   * @qx: x of each query
   * @qy: y of each query
   * @qz: (nullable): z of each query, or %NULL
   * @n_queries: how many queries
   * @radius: the distance within which a point counts
   * @counts: @n_queries words: the result
   *
   * The host reference of accel_spatial_count_neighbours().
   *
   * Returns: 0.
   */
  int accel_spatial_count_neighbours_host (const AccelSpatialGrid *g,
      const AccelSpatialIndex *ix, const float *x, const float *y,
      const float *z, const float *qx, const float *qy, const float *qz,
      size_t n_queries, float radius, uint32_t *counts);

  /**
   * accel_spatial_count_indexed_neighbours:
   * @stream: a cudaStream_t
   * @g: the grid of @ix
   * @ix: the index built from (@x, @y, @z), @capacity and @count
   * @x: x of the indexed points
   * @y: y of the indexed points
   * @z: (nullable): z of the indexed points, or %NULL
   * @capacity: points in @x, @y, @z and @counts
   * @count: (nullable): device memory: the count the index was built with,
   *   or %NULL for all @capacity
   * @radius: the distance within which a point counts
   * @counts: @capacity words: the result
   *
   * For each indexed point, the number of other indexed points at a
   * distance of at most @radius (itself left out); 0 for the points at or
   * past *@count, so the whole of @counts is written without a host sync.
   *
   * Returns: a cudaError_t, 0 on success.
   */
  int accel_spatial_count_indexed_neighbours (void *stream,
      const AccelSpatialGrid *g, const AccelSpatialIndex *ix, const float *x,
      const float *y, const float *z, size_t capacity, const uint32_t *count,
      float radius, uint32_t *counts);

  /**
   * accel_spatial_count_indexed_neighbours_host:
   * @g: the grid of @ix
   * @ix: the index built from (@x, @y, @z), @capacity and @count
   * @x: x of the indexed points
   * @y: y of the indexed points
   * @z: (nullable): z of the indexed points, or %NULL
   * @capacity: points in @x, @y, @z and @counts
   * @count: (nullable): host memory: the count the index was built with, or
   *   %NULL for all @capacity
   * @radius: the distance within which a point counts
   * @counts: @capacity words: the result
   *
   * The host reference of accel_spatial_count_indexed_neighbours().
   *
   * Returns: 0.
   */
  int accel_spatial_count_indexed_neighbours_host (const AccelSpatialGrid *g,
      const AccelSpatialIndex *ix, const float *x, const float *y,
      const float *z, size_t capacity, const uint32_t *count, float radius,
      uint32_t *counts);

  /**
   * accel_spatial_scan_tmp_words:
   * @n: words to scan
   *
   * Returns: the words of temporary memory accel_spatial_exclusive_scan()
   * needs for @n words. MT safe.
   */
  size_t accel_spatial_scan_tmp_words (size_t n);

  /**
   * accel_spatial_exclusive_scan:
   * @stream: a cudaStream_t
   * @in: @n words
   * @out: @n words, may be @in
   * @n: words to scan
   * @tmp: accel_spatial_scan_tmp_words() words
   *
   * Exclusive prefix sum of @n words into @out; deterministic.
   *
   * Returns: a cudaError_t, 0 on success.
   */
  int accel_spatial_exclusive_scan (
      void *stream, const uint32_t *in, uint32_t *out, size_t n, uint32_t *tmp);

  /**
   * accel_spatial_exclusive_scan_host:
   * @in: @n words
   * @out: @n words, may be @in
   * @n: words to scan
   *
   * The host reference of accel_spatial_exclusive_scan().
   */
  void accel_spatial_exclusive_scan_host (
      const uint32_t *in, uint32_t *out, size_t n);

#ifdef __cplusplus
}
#endif
