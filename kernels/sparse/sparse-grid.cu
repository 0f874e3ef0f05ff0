/* SPDX-License-Identifier: LGPL-2.1-or-later */
// sparse grid on the GPU: the rebuild is a three-pass stream compaction of
// the mask (tile counts, their scan, placement), so the list comes out in
// ascending block index as on the host; the cell kernels run one thread per
// storage cell of the listed blocks
#include <cuda_runtime.h>

#include "sparse-grid-cell.h"
#include "sparse-grid.h"

#define TILE 1024
#define THREADS 256

static size_t
n_blocks (const AccelSparseGrid *g)
{
  return (size_t)g->bx * g->by;
}

// exclusive prefix sum over a block of TILE threads; *total gets the sum
__device__ static int
scan_tile (int v, int *total)
{
  __shared__ int warp_sums[32];
  __shared__ int sum;
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, x = v;

  for (int d = 1; d < 32; d <<= 1)
    {
      int y = __shfl_up_sync (0xffffffffu, x, d);
      if (lane >= d)
        x += y;
    }
  if (lane == 31)
    warp_sums[warp] = x;
  __syncthreads ();
  if (warp == 0)
    {
      int w = warp_sums[lane], s = w;

      for (int d = 1; d < 32; d <<= 1)
        {
          int y = __shfl_up_sync (0xffffffffu, s, d);
          if (lane >= d)
            s += y;
        }
      warp_sums[lane] = s - w;
      if (lane == 31)
        sum = s;
    }
  __syncthreads ();
  x = warp_sums[warp] + x - v;
  *total = sum;
  // the shared words are reused by the caller's next tile
  __syncthreads ();
  return x;
}

__global__ static void
k_set (AccelSparseGrid g, const int32_t *coords, size_t n, uint8_t on)
{
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    {
      int32_t x = coords[2 * i], y = coords[2 * i + 1];

      if (x >= 0 && y >= 0 && x < g.bx && y < g.by)
        g.mask[(size_t)y * g.bx + x] = on;
    }
}

__global__ static void
k_count (AccelSparseGrid g, size_t nb)
{
  size_t i = (size_t)blockIdx.x * TILE + threadIdx.x;
  int n = __syncthreads_count (i < nb && g.mask[i] != 0);

  if (threadIdx.x == 0)
    g.scan[blockIdx.x] = n;
}

// one block turns the tile counts into tile offsets
__global__ static void
k_offsets (AccelSparseGrid g, int tiles)
{
  int carry = 0;

  for (int base = 0; base < tiles; base += TILE)
    {
      int i = base + threadIdx.x, v = i < tiles ? g.scan[i] : 0, total;
      int x = scan_tile (v, &total);

      if (i < tiles)
        g.scan[i] = carry + x;
      carry += total;
    }
  if (threadIdx.x == 0)
    {
      g.counts->active = carry < g.max_blocks ? carry : g.max_blocks;
      g.counts->dropped = carry - g.counts->active;
    }
}

__global__ static void
k_place (AccelSparseGrid g, size_t nb)
{
  size_t i = (size_t)blockIdx.x * TILE + threadIdx.x;
  int on = i < nb && g.mask[i] != 0, total;
  int rank = g.scan[blockIdx.x] + scan_tile (on, &total);

  if (i >= nb)
    return;
  if (on && rank < g.max_blocks)
    {
      g.table[i] = rank;
      g.list[rank] = (int32_t)i;
    }
  else
    g.table[i] = -1;
}

// one thread per storage cell of the listed blocks; the count is known on
// the device only, so the grid covers max_blocks and threads past the list
// leave
#define FOR_LISTED                                                             \
  size_t end = (size_t)g.counts->active * g.b * g.b;                           \
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < end;      \
       i += (size_t)gridDim.x * blockDim.x)

__global__ static void
k_gather (AccelSparseGrid g, const float *dense, float *storage)
{
  FOR_LISTED
  {
    int x, y;

    storage[i]
        = sparse_grid_cell (&g, i, &x, &y) ? dense[(size_t)y * g.nx + x] : 0.0f;
  }
}

__global__ static void
k_scatter (AccelSparseGrid g, const float *storage, float *dense)
{
  FOR_LISTED
  {
    int x, y;

    if (sparse_grid_cell (&g, i, &x, &y))
      dense[(size_t)y * g.nx + x] = storage[i];
  }
}

__global__ static void
k_scatter_all (AccelSparseGrid g, const float *storage, float *dense)
{
  size_t n = (size_t)g.nx * g.ny;

  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    dense[i] = sparse_grid_at (&g, storage, (int)(i % g.nx), (int)(i / g.nx));
}

__global__ static void
k_diffuse (AccelSparseGrid g, const float *src, float *dst, float k)
{
  FOR_LISTED
  {
    int x, y;

    dst[i] = sparse_grid_cell (&g, i, &x, &y)
                 ? sparse_grid_diffuse_cell (&g, src, src[i], x, y, k)
                 : 0.0f;
  }
}

static unsigned
blocks_for (size_t n)
{
  size_t b = (n + THREADS - 1) / THREADS;

  return b < 1 ? 1 : b > 65536 ? 65536 : (unsigned)b;
}

extern "C" int
accel_sparse_grid_clear (void *stream, const AccelSparseGrid *g)
{
  cudaStream_t s = (cudaStream_t)stream;
  cudaError_t e;

  e = cudaMemsetAsync (g->mask, 0, n_blocks (g), s);
  if (e == cudaSuccess)
    e = cudaMemsetAsync (g->table, 0xff, n_blocks (g) * sizeof (int32_t), s);
  if (e == cudaSuccess)
    e = cudaMemsetAsync (g->counts, 0, sizeof (AccelSparseGridCounts), s);
  return e;
}

extern "C" int
accel_sparse_grid_set_blocks (void *stream, const AccelSparseGrid *g,
    const int32_t *coords, size_t n, int on)
{
  if (n == 0)
    return cudaSuccess;
  k_set<<<blocks_for (n), THREADS, 0, (cudaStream_t)stream>>> (
      *g, coords, n, on != 0);
  return cudaGetLastError ();
}

extern "C" int
accel_sparse_grid_rebuild (void *stream, const AccelSparseGrid *g)
{
  cudaStream_t s = (cudaStream_t)stream;
  size_t nb = n_blocks (g);
  unsigned tiles = (unsigned)((nb + TILE - 1) / TILE);

  k_count<<<tiles, TILE, 0, s>>> (*g, nb);
  k_offsets<<<1, TILE, 0, s>>> (*g, (int)tiles);
  k_place<<<tiles, TILE, 0, s>>> (*g, nb);
  return cudaGetLastError ();
}

extern "C" int
accel_sparse_grid_gather (
    void *stream, const AccelSparseGrid *g, const float *dense, float *storage)
{
  k_gather<<<blocks_for (accel_sparse_grid_storage_floats (g)), THREADS, 0,
      (cudaStream_t)stream>>> (*g, dense, storage);
  return cudaGetLastError ();
}

extern "C" int
accel_sparse_grid_scatter (void *stream, const AccelSparseGrid *g,
    const float *storage, float *dense, int zero_inactive)
{
  if (zero_inactive)
    k_scatter_all<<<blocks_for ((size_t)g->nx * g->ny), THREADS, 0,
        (cudaStream_t)stream>>> (*g, storage, dense);
  else
    k_scatter<<<blocks_for (accel_sparse_grid_storage_floats (g)), THREADS, 0,
        (cudaStream_t)stream>>> (*g, storage, dense);
  return cudaGetLastError ();
}

extern "C" int
accel_sparse_grid_diffuse (void *stream, const AccelSparseGrid *g,
    const float *src, float *dst, float k)
{
  k_diffuse<<<blocks_for (accel_sparse_grid_storage_floats (g)), THREADS, 0,
      (cudaStream_t)stream>>> (*g, src, dst, k);
  return cudaGetLastError ();
}
