/* SPDX-License-Identifier: LGPL-2.1-or-later */
// test patterns and scale/offset, on the GPU
#include <cuda_runtime.h>

#include "pattern.h"

// holds every thread until @ns have passed on the GPU clock
__device__ static void
spin (uint64_t ns)
{
  uint64_t start, now;

  if (ns == 0)
    return;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do
    {
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    }
  while (now - start < ns);
}

__device__ static inline uint8_t
to_u8 (float v)
{
  v = fminf (fmaxf (v + 0.5f, 0.0f), 255.0f);
  return (uint8_t)v;
}

__global__ static void
fill_f32 (float *out, size_t n, uint64_t seq, uint64_t spin_ns)
{
  spin (spin_ns);
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    out[i] = ACCEL_PATTERN_F32 (seq, i);
}

__global__ static void
fill_u8 (uint8_t *out, size_t n, uint64_t seq, uint64_t spin_ns)
{
  spin (spin_ns);
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    out[i] = ACCEL_PATTERN_U8 (seq, i);
}

__global__ static void
scale_f32 (const float *in, float *out, size_t n, float scale, float offset,
    uint64_t spin_ns)
{
  spin (spin_ns);
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    out[i] = in[i] * scale + offset;
}

__global__ static void
scale_u8 (const uint8_t *in, uint8_t *out, size_t n, float scale, float offset,
    uint64_t spin_ns)
{
  spin (spin_ns);
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    out[i] = to_u8 (in[i] * scale + offset);
}

// enough blocks to fill the GPU, grid-stride beyond that
static unsigned
blocks_for (size_t n)
{
  size_t b = (n + 255) / 256;
  return (unsigned)(b < 4096 ? (b ? b : 1) : 4096);
}

extern "C" int
accel_pattern_fill_f32 (
    void *stream, float *out, size_t n, uint64_t seq, uint64_t spin_ns)
{
  fill_f32<<<blocks_for (n), 256, 0, (cudaStream_t)stream>>> (
      out, n, seq, spin_ns);
  return cudaGetLastError ();
}

extern "C" int
accel_pattern_fill_u8 (
    void *stream, uint8_t *out, size_t n, uint64_t seq, uint64_t spin_ns)
{
  fill_u8<<<blocks_for (n), 256, 0, (cudaStream_t)stream>>> (
      out, n, seq, spin_ns);
  return cudaGetLastError ();
}

extern "C" int
accel_scale_f32 (void *stream, const float *in, float *out, size_t n,
    float scale, float offset, uint64_t spin_ns)
{
  scale_f32<<<blocks_for (n), 256, 0, (cudaStream_t)stream>>> (
      in, out, n, scale, offset, spin_ns);
  return cudaGetLastError ();
}

extern "C" int
accel_scale_u8 (void *stream, const uint8_t *in, uint8_t *out, size_t n,
    float scale, float offset, uint64_t spin_ns)
{
  scale_u8<<<blocks_for (n), 256, 0, (cudaStream_t)stream>>> (
      in, out, n, scale, offset, spin_ns);
  return cudaGetLastError ();
}
