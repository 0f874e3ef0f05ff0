/* SPDX-License-Identifier: LGPL-2.1-or-later */
// accel solver plugin: transposes on the GPU, through a shared tile so that
// both the reads and the writes are coalesced
#include <cuda_runtime.h>

#include "accelsolvertranspose.h"

#define TILE 32
#define ROWS 8

template <typename T>
__global__ static void
transpose (const T *in, size_t in_ld, T *out, size_t out_rows, size_t out_cols,
    size_t out_ld, int upper)
{
  // +1: no shared memory bank conflicts on the column reads
  __shared__ T tile[TILE][TILE + 1];
  size_t c0 = (size_t)blockIdx.x * TILE;

  // a grid is at most 65535 tiles tall: taller matrices take more tiles a
  // block, each block striding down its column of tiles
  for (size_t r0 = (size_t)blockIdx.y * TILE; r0 < out_rows;
       r0 += (size_t)gridDim.y * TILE)
    {
      // read: in[c * in_ld + r], consecutive threads along r
      for (unsigned j = threadIdx.y; j < TILE; j += ROWS)
        {
          size_t c = c0 + j, r = r0 + threadIdx.x;
          if (r < out_rows && c < out_cols)
            tile[j][threadIdx.x] = in[c * in_ld + r];
        }
      __syncthreads ();
      // write: out[r * out_ld + c], consecutive threads along c
      for (unsigned j = threadIdx.y; j < TILE; j += ROWS)
        {
          size_t r = r0 + j, c = c0 + threadIdx.x;
          if (r < out_rows && c < out_cols)
            out[r * out_ld + c] = upper && r > c ? T (0) : tile[threadIdx.x][j];
        }
      // the next tile's reads wait for this one's writes
      __syncthreads ();
    }
}

template <typename T>
static int
launch (void *stream, const T *in, size_t in_ld, T *out, size_t out_rows,
    size_t out_cols, size_t out_ld, int upper)
{
  dim3 block (TILE, ROWS);
  size_t tiles_down = (out_rows + TILE - 1) / TILE;
  dim3 grid ((unsigned)((out_cols + TILE - 1) / TILE),
      (unsigned)(tiles_down < 65535 ? tiles_down : 65535));

  if (out_rows == 0 || out_cols == 0)
    return cudaSuccess;
  transpose<T><<<grid, block, 0, (cudaStream_t)stream>>> (
      in, in_ld, out, out_rows, out_cols, out_ld, upper);
  return cudaGetLastError ();
}

extern "C" int
accel_solver_transpose_f32 (void *stream, const float *in, size_t in_ld,
    float *out, size_t out_rows, size_t out_cols, size_t out_ld, int upper)
{
  return launch<float> (
      stream, in, in_ld, out, out_rows, out_cols, out_ld, upper);
}

extern "C" int
accel_solver_transpose_f64 (void *stream, const double *in, size_t in_ld,
    double *out, size_t out_rows, size_t out_cols, size_t out_ld, int upper)
{
  return launch<double> (
      stream, in, in_ld, out, out_rows, out_cols, out_ld, upper);
}
