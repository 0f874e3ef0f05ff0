/* SPDX-License-Identifier: LGPL-2.1-or-later */
// two-input blends on the GPU: both inputs and the output 16 bytes per
// thread where the rows allow it
#include <cuda_runtime.h>

#include "effects-device.cuh"
#include "effects-pixel.h"

using namespace accel_effects;

namespace
{

template <int MODE>
__global__ void
__launch_bounds__ (BLOCK) blend (const uint8_t *__restrict__ a, size_t a_pitch,
    const uint8_t *__restrict__ b, size_t b_pitch, uint8_t *__restrict__ dst,
    size_t dst_pitch, int width, int height, float scale, int access)
{
  const int x0 = (blockIdx.x * BLOCK + threadIdx.x) * 4;
  int n;

  if (x0 >= width)
    return;
  n = min (4, width - x0);
  for (int y = blockIdx.y; y < height; y += gridDim.y)
    {
      uint32_t wa[4], wb[4];

      load4 (a + (size_t)y * a_pitch, x0, n, access, wa);
      load4 (b + (size_t)y * b_pitch, x0, n, access, wb);
#pragma unroll
      for (int i = 0; i < 4; i++)
        {
          float va[4], vb[4], out[4];
          unpack (wa[i], va);
          unpack (wb[i], vb);
          accel_fx_blend (MODE, scale, va, vb, out);
          wa[i] = pack (out);
        }
      store4 (dst + (size_t)y * dst_pitch, x0, n, access, wa);
    }
}

template <int MODE>
int
launch (cudaStream_t stream, const void *a, size_t a_pitch, const void *b,
    size_t b_pitch, void *dst, size_t dst_pitch, int width, int height,
    float scale, int access)
{
  blend<MODE><<<grid_for (width, height), BLOCK, 0, stream>>> (
      (const uint8_t *)a, a_pitch, (const uint8_t *)b, b_pitch, (uint8_t *)dst,
      dst_pitch, width, height, scale, access);
  return cudaGetLastError ();
}

} // namespace

extern "C" int
accel_blend (void *stream, int format, const void *a, size_t a_pitch,
    const void *b, size_t b_pitch, void *dst, size_t dst_pitch, int width,
    int height, int mode, float opacity)
{
  cudaStream_t s = (cudaStream_t)stream;
  float scale = accel_fx_blend_scale (opacity);
  int access;

  if ((format != ACCEL_IMAGE_RGBA8 && format != ACCEL_IMAGE_BGRA8)
      || !accel_image_args_valid (format, a, a_pitch, width, height)
      || !accel_image_args_valid (format, b, b_pitch, width, height)
      || !accel_image_args_valid (format, dst, dst_pitch, width, height)
      || !(opacity >= 0.0f && opacity <= 1.0f))
    return cudaErrorInvalidValue;
  access = access_min (access_of (a, a_pitch),
      access_min (access_of (b, b_pitch), access_of (dst, dst_pitch)));
  switch (mode)
    {
    case ACCEL_BLEND_OVER:
      return launch<ACCEL_BLEND_OVER> (s, a, a_pitch, b, b_pitch, dst,
          dst_pitch, width, height, scale, access);
    case ACCEL_BLEND_ADD:
      return launch<ACCEL_BLEND_ADD> (s, a, a_pitch, b, b_pitch, dst, dst_pitch,
          width, height, scale, access);
    case ACCEL_BLEND_MULTIPLY:
      return launch<ACCEL_BLEND_MULTIPLY> (s, a, a_pitch, b, b_pitch, dst,
          dst_pitch, width, height, scale, access);
    case ACCEL_BLEND_SCREEN:
      return launch<ACCEL_BLEND_SCREEN> (s, a, a_pitch, b, b_pitch, dst,
          dst_pitch, width, height, scale, access);
    default:
      return cudaErrorInvalidValue;
    }
}
