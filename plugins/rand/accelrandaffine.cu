/* SPDX-License-Identifier: LGPL-2.1-or-later */
// accel rand plugin: uniform values moved from (0, 1] to (low, high]
#include <cuda_runtime.h>

#include "accelrandhost.h"

template <typename T>
__global__ static void
affine (T *data, size_t n, T a, T b)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    data[i] = a + b * data[i];
}

// enough blocks to fill the GPU, grid-stride beyond that
static unsigned
blocks_for (size_t n)
{
  size_t b = (n + 255) / 256;
  return (unsigned)(b < 4096 ? (b ? b : 1) : 4096);
}

extern "C" int
accel_rand_affine_f32 (void *stream, float *data, size_t n, float a, float b)
{
  affine<float>
      <<<blocks_for (n), 256, 0, (cudaStream_t)stream>>> (data, n, a, b);
  return cudaGetLastError ();
}

extern "C" int
accel_rand_affine_f64 (void *stream, double *data, size_t n, double a, double b)
{
  affine<double>
      <<<blocks_for (n), 256, 0, (cudaStream_t)stream>>> (data, n, a, b);
  return cudaGetLastError ();
}
