/* SPDX-License-Identifier: LGPL-2.1-or-later */
// accel fft plugin: in-place scaling on the GPU
#include <cuda_runtime.h>

#include "accelfftscale.h"

template <typename T>
__global__ static void
scale (T *data, size_t n, T factor)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    data[i] *= factor;
}

// enough blocks to fill the GPU, grid-stride beyond that
static unsigned
blocks_for (size_t n)
{
  size_t b = (n + 255) / 256;
  return (unsigned)(b < 4096 ? (b ? b : 1) : 4096);
}

extern "C" int
accel_fft_scale_f32 (void *stream, float *data, size_t n, float factor)
{
  scale<float>
      <<<blocks_for (n), 256, 0, (cudaStream_t)stream>>> (data, n, factor);
  return cudaGetLastError ();
}

extern "C" int
accel_fft_scale_f64 (void *stream, double *data, size_t n, double factor)
{
  scale<double>
      <<<blocks_for (n), 256, 0, (cudaStream_t)stream>>> (data, n, factor);
  return cudaGetLastError ();
}
