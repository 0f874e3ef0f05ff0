/* SPDX-License-Identifier: LGPL-2.1-or-later */
// accel solver plugin: NaN and infinities in an input, found on the GPU
#include <cuda_runtime.h>

#include "accelsolverfinite.h"

template <typename T>
__global__ static void
find_nonfinite (const T *data, size_t count, unsigned long long *first)
{
  size_t stride = (size_t)gridDim.x * blockDim.x;

  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += stride)
    if (!isfinite (data[i]))
      atomicMin (first, (unsigned long long)i);
}

template <typename T>
static int
launch (void *stream, const T *data, size_t count, unsigned long long *first)
{
  const unsigned threads = 256;
  // enough blocks to fill the GPU; the loop strides over the rest
  size_t blocks = (count + threads - 1) / threads;

  if (count == 0)
    return cudaSuccess;
  find_nonfinite<T><<<(unsigned)(blocks < 4096 ? blocks : 4096), threads, 0,
      (cudaStream_t)stream>>> (data, count, first);
  return cudaGetLastError ();
}

extern "C" int
accel_solver_find_nonfinite_f32 (
    void *stream, const float *data, size_t count, unsigned long long *first)
{
  return launch<float> (stream, data, count, first);
}

extern "C" int
accel_solver_find_nonfinite_f64 (
    void *stream, const double *data, size_t count, unsigned long long *first)
{
  return launch<double> (stream, data, count, first);
}
