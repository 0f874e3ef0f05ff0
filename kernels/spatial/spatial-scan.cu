/* SPDX-License-Identifier: LGPL-2.1-or-later */
// exclusive prefix sum of 32-bit words: tiles of 1024 scanned in shared
// memory, the tile totals scanned recursively, then added back; integer
// sums, so the result does not depend on scheduling
#include <cuda_runtime.h>

#include "spatial.h"

#define TILE 1024

__global__ static void
k_scan_tile (const uint32_t *in, uint32_t *out, size_t n, uint32_t *sums)
{
  __shared__ uint32_t warp_sums[32];
  size_t i = (size_t)blockIdx.x * TILE + threadIdx.x;
  unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  uint32_t v = i < n ? in[i] : 0, x = v;

  for (int d = 1; d < 32; d <<= 1)
    {
      uint32_t y = __shfl_up_sync (0xffffffffu, x, d);
      if (lane >= (unsigned)d)
        x += y;
    }
  if (lane == 31)
    warp_sums[warp] = x;
  __syncthreads ();
  if (warp == 0)
    {
      uint32_t w = warp_sums[lane], s = w;
      for (int d = 1; d < 32; d <<= 1)
        {
          uint32_t y = __shfl_up_sync (0xffffffffu, s, d);
          if (lane >= (unsigned)d)
            s += y;
        }
      warp_sums[lane] = s - w;
      if (lane == 31 && sums)
        sums[blockIdx.x] = s;
    }
  __syncthreads ();
  if (i < n)
    out[i] = x - v + warp_sums[warp];
}

__global__ static void
k_add_tile (uint32_t *out, size_t n, const uint32_t *sums)
{
  size_t i = (size_t)blockIdx.x * TILE + threadIdx.x;

  if (i < n)
    out[i] += sums[blockIdx.x];
}

extern "C" int
accel_spatial_exclusive_scan (
    void *stream, const uint32_t *in, uint32_t *out, size_t n, uint32_t *tmp)
{
  cudaStream_t s = (cudaStream_t)stream;
  size_t tiles = (n + TILE - 1) / TILE;
  int status;

  if (n == 0)
    return cudaSuccess;
  if (tiles == 1)
    {
      k_scan_tile<<<1, TILE, 0, s>>> (in, out, n, NULL);
      return cudaGetLastError ();
    }
  k_scan_tile<<<(unsigned)tiles, TILE, 0, s>>> (in, out, n, tmp);
  status = accel_spatial_exclusive_scan (stream, tmp, tmp, tiles, tmp + tiles);
  if (status != cudaSuccess)
    return status;
  k_add_tile<<<(unsigned)tiles, TILE, 0, s>>> (out, n, tmp);
  return cudaGetLastError ();
}
