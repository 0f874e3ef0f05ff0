/* SPDX-License-Identifier: LGPL-2.1-or-later */
// spatial index on the GPU: cell per point and histogram, scan, scatter,
// then each cell's entries sorted by index so the order is the host's
#include <cuda_runtime.h>

#include "spatial-grid.h"
#include "spatial.h"

#define BLOCK 256

static unsigned
blocks_for (size_t n)
{
  return (unsigned)((n + BLOCK - 1) / BLOCK);
}

__device__ static size_t
point_count (const uint32_t *count, size_t capacity)
{
  size_t n = count ? *count : capacity;
  return n < capacity ? n : capacity;
}

__global__ static void
k_cells (AccelSpatialGrid g, const float *x, const float *y, const float *z,
    size_t capacity, const uint32_t *count, uint32_t *cell_of,
    uint32_t *cell_count)
{
  size_t i = (size_t)blockIdx.x * BLOCK + threadIdx.x;
  uint32_t c;

  if (i >= point_count (count, capacity))
    return;
  c = spatial_cell_of (&g, x[i], y[i], spatial_z (z, (uint32_t)i));
  cell_of[i] = c;
  atomicAdd (&cell_count[c], 1u);
}

__global__ static void
k_scatter (size_t capacity, const uint32_t *count, const uint32_t *cell_of,
    const uint32_t *cell_start, uint32_t *cursor, uint32_t *sorted)
{
  size_t i = (size_t)blockIdx.x * BLOCK + threadIdx.x;
  uint32_t c;

  if (i >= point_count (count, capacity))
    return;
  c = cell_of[i];
  sorted[cell_start[c] + atomicAdd (&cursor[c], 1u)] = (uint32_t)i;
}

/* the scatter's order within a cell depends on scheduling; an insertion
 * sort of the (few) entries restores index order */
__global__ static void
k_sort_cells (size_t cells, const uint32_t *cell_start, uint32_t *sorted)
{
  size_t c = (size_t)blockIdx.x * BLOCK + threadIdx.x;
  uint32_t lo, hi;

  if (c >= cells)
    return;
  lo = cell_start[c];
  hi = cell_start[c + 1];
  for (uint32_t a = lo + 1; a < hi; a++)
    {
      uint32_t v = sorted[a], b = a;
      while (b > lo && sorted[b - 1] > v)
        {
          sorted[b] = sorted[b - 1];
          b--;
        }
      sorted[b] = v;
    }
}

__global__ static void
k_count (AccelSpatialGrid g, AccelSpatialIndex ix, const float *x,
    const float *y, const float *z, const float *qx, const float *qy,
    const float *qz, size_t n, float radius, uint32_t *counts)
{
  size_t q = (size_t)blockIdx.x * BLOCK + threadIdx.x;

  if (q >= n)
    return;
  counts[q] = spatial_count_within (
      &g, &ix, x, y, z, qx[q], qy[q], spatial_z (qz, (uint32_t)q), radius);
}

/* every indexed point's neighbours but itself; 0 past the count */
__global__ static void
k_count_indexed (AccelSpatialGrid g, AccelSpatialIndex ix, const float *x,
    const float *y, const float *z, size_t capacity, const uint32_t *count,
    float radius, uint32_t *counts)
{
  size_t i = (size_t)blockIdx.x * BLOCK + threadIdx.x;
  uint32_t n;

  if (i >= capacity)
    return;
  if (i >= point_count (count, capacity))
    {
      counts[i] = 0;
      return;
    }
  n = spatial_count_within (
      &g, &ix, x, y, z, x[i], y[i], spatial_z (z, (uint32_t)i), radius);
  counts[i] = n > 0 ? n - 1 : 0;
}

extern "C" int
accel_spatial_build (void *stream, const AccelSpatialGrid *g, const float *x,
    const float *y, const float *z, size_t capacity, const uint32_t *count,
    const AccelSpatialIndex *ix)
{
  cudaStream_t s = (cudaStream_t)stream;
  size_t cells = accel_spatial_grid_n_cells (g);
  size_t bytes = (cells + 1) * sizeof (uint32_t);
  int status;

  if ((status = cudaMemsetAsync (ix->cell_count, 0, bytes, s)) != cudaSuccess)
    return status;
  if (capacity > 0)
    k_cells<<<blocks_for (capacity), BLOCK, 0, s>>> (
        *g, x, y, z, capacity, count, ix->cell_of, ix->cell_count);
  status = accel_spatial_exclusive_scan (
      stream, ix->cell_count, ix->cell_start, cells + 1, ix->scan_tmp);
  if (status != cudaSuccess)
    return status;
  if ((status = cudaMemsetAsync (ix->cell_count, 0, bytes, s)) != cudaSuccess)
    return status;
  if (capacity > 0)
    k_scatter<<<blocks_for (capacity), BLOCK, 0, s>>> (capacity, count,
        ix->cell_of, ix->cell_start, ix->cell_count, ix->sorted);
  k_sort_cells<<<blocks_for (cells), BLOCK, 0, s>>> (
      cells, ix->cell_start, ix->sorted);
  return cudaGetLastError ();
}

extern "C" int
accel_spatial_count_neighbours (void *stream, const AccelSpatialGrid *g,
    const AccelSpatialIndex *ix, const float *x, const float *y, const float *z,
    const float *qx, const float *qy, const float *qz, size_t n_queries,
    float radius, uint32_t *counts)
{
  if (n_queries == 0)
    return cudaSuccess;
  k_count<<<blocks_for (n_queries), BLOCK, 0, (cudaStream_t)stream>>> (
      *g, *ix, x, y, z, qx, qy, qz, n_queries, radius, counts);
  return cudaGetLastError ();
}

extern "C" int
accel_spatial_count_indexed_neighbours (void *stream, const AccelSpatialGrid *g,
    const AccelSpatialIndex *ix, const float *x, const float *y, const float *z,
    size_t capacity, const uint32_t *count, float radius, uint32_t *counts)
{
  if (capacity == 0)
    return cudaSuccess;
  k_count_indexed<<<blocks_for (capacity), BLOCK, 0, (cudaStream_t)stream>>> (
      *g, *ix, x, y, z, capacity, count, radius, counts);
  return cudaGetLastError ();
}
