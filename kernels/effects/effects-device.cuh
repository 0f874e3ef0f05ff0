/* SPDX-License-Identifier: LGPL-2.1-or-later */
// device side helpers of the effects, blend and analysis kernels: rows of
// RGBA8 or BGRA8 pixels read and written four pixels (16 bytes) at a time
// (included by .cu files only)
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

#include "image/image-device.cuh"

namespace accel_effects
{

using namespace accel_image;

// how a launch may touch its rows: 16 bytes at a time (every row of every
// frame starts on 16 bytes), a pixel at a time (4 bytes), or bytes
enum Access
{
  ACCESS_BYTES,
  ACCESS_WORDS,
  ACCESS_VEC16,
};

static inline int
access_of (const void *data, size_t pitch)
{
  if (aligned16 (data, pitch))
    return ACCESS_VEC16;
  if (aligned_for (KIND_U8X4, data, pitch))
    return ACCESS_WORDS;
  return ACCESS_BYTES;
}

static inline int
access_min (int a, int b)
{
  return a < b ? a : b;
}

// threads per block of the streaming kernels; each takes 4 pixels of a row
constexpr int BLOCK = 256;

// pixels @x0 .. @x0 + 3 of @row (@x0 a multiple of 4), the first @n of
// them inside the frame; the rest read as 0
__device__ __forceinline__ void
load4 (const uint8_t *__restrict__ row, int x0, int n, int access, uint32_t *w)
{
  if (access == ACCESS_VEC16 && n == 4)
    {
      uint4 v = reinterpret_cast<const uint4 *> (row)[x0 / 4];
      w[0] = v.x;
      w[1] = v.y;
      w[2] = v.z;
      w[3] = v.w;
      return;
    }
#pragma unroll
  for (int i = 0; i < 4; i++)
    {
      const uint8_t *p = row + 4 * (size_t)(x0 + i);
      if (i >= n)
        w[i] = 0;
      else if (access != ACCESS_BYTES)
        w[i] = *reinterpret_cast<const uint32_t *> (p);
      else
        w[i] = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16)
               | ((uint32_t)p[3] << 24);
    }
}

__device__ __forceinline__ void
store4 (uint8_t *__restrict__ row, int x0, int n, int access, const uint32_t *w)
{
  if (access == ACCESS_VEC16 && n == 4)
    {
      reinterpret_cast<uint4 *> (row)[x0 / 4]
          = make_uint4 (w[0], w[1], w[2], w[3]);
      return;
    }
#pragma unroll
  for (int i = 0; i < 4; i++)
    {
      uint8_t *p = row + 4 * (size_t)(x0 + i);
      if (i >= n)
        break;
      if (access != ACCESS_BYTES)
        *reinterpret_cast<uint32_t *> (p) = w[i];
      else
        {
          p[0] = (uint8_t)w[i];
          p[1] = (uint8_t)(w[i] >> 8);
          p[2] = (uint8_t)(w[i] >> 16);
          p[3] = (uint8_t)(w[i] >> 24);
        }
    }
}

// the four channels of pixel word @w as floats, in memory order
__device__ __forceinline__ void
unpack (uint32_t w, float *v)
{
#pragma unroll
  for (int c = 0; c < 4; c++)
    v[c] = byte_to_f (w, c);
}

// four floats (memory order) rounded into a pixel word
__device__ __forceinline__ uint32_t
pack (const float *v)
{
  return (uint32_t)accel_px_to_u8 (v[0])
         | ((uint32_t)accel_px_to_u8 (v[1]) << 8)
         | ((uint32_t)accel_px_to_u8 (v[2]) << 16)
         | ((uint32_t)accel_px_to_u8 (v[3]) << 24);
}

// a grid of BLOCK-thread blocks, one thread per 4 pixels of a row
static inline dim3
grid_for (int width, int height)
{
  int chunks = (width + 3) / 4;

  return dim3 ((unsigned)((chunks + BLOCK - 1) / BLOCK), grid_rows (height));
}

} // namespace accel_effects
