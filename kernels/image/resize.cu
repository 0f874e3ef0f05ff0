/* SPDX-License-Identifier: LGPL-2.1-or-later */
// bilinear resize on the GPU: one output pixel per thread, the four taps
// through the read-only cache
#include <cuda_runtime.h>

#include "resize.h"
#include "image-device.cuh"

using namespace accel_image;

namespace
{

constexpr int BLOCK_X = 32;
constexpr int BLOCK_Y = 8;

template <int K, bool A>
__global__ void
__launch_bounds__ (BLOCK_X *BLOCK_Y) resize (const uint8_t *__restrict__ src,
    size_t src_pitch, int src_width, int src_height, uint8_t *__restrict__ dst,
    size_t dst_pitch, int dst_width, int dst_height, float sx, float sy)
{
  constexpr int C = Traits<K>::C;
  const int x = blockIdx.x * BLOCK_X + threadIdx.x;
  int x0, x1;
  float tx;

  if (x >= dst_width)
    return;
  accel_px_resize_tap (x, sx, src_width, &x0, &x1, &tx);
  for (int y = blockIdx.y * BLOCK_Y + threadIdx.y; y < dst_height;
       y += gridDim.y * BLOCK_Y)
    {
      int y0, y1;
      float ty, p00[C], p01[C], p10[C], p11[C], out[C];

      accel_px_resize_tap (y, sy, src_height, &y0, &y1, &ty);
      load_px<K, A> (src + (size_t)y0 * src_pitch, x0, p00);
      load_px<K, A> (src + (size_t)y0 * src_pitch, x1, p01);
      load_px<K, A> (src + (size_t)y1 * src_pitch, x0, p10);
      load_px<K, A> (src + (size_t)y1 * src_pitch, x1, p11);
#pragma unroll
      for (int c = 0; c < C; c++)
        out[c] = accel_px_lerp (accel_px_lerp (p00[c], p01[c], tx),
            accel_px_lerp (p10[c], p11[c], tx), ty);
      store_px<K, A> (dst + (size_t)y * dst_pitch, x, out);
    }
}

template <int K, bool A>
int
launch (cudaStream_t stream, const void *src, size_t src_pitch, int src_width,
    int src_height, void *dst, size_t dst_pitch, int dst_width, int dst_height)
{
  dim3 grid ((dst_width + BLOCK_X - 1) / BLOCK_X,
      grid_rows ((dst_height + BLOCK_Y - 1) / BLOCK_Y));

  resize<K, A><<<grid, dim3 (BLOCK_X, BLOCK_Y), 0, stream>>> (
      (const uint8_t *)src, src_pitch, src_width, src_height, (uint8_t *)dst,
      dst_pitch, dst_width, dst_height, (float)src_width / (float)dst_width,
      (float)src_height / (float)dst_height);
  return cudaGetLastError ();
}

} // namespace

extern "C" int
accel_resize (void *stream, int format, const void *src, size_t src_pitch,
    int src_width, int src_height, void *dst, size_t dst_pitch, int dst_width,
    int dst_height)
{
  cudaStream_t s = (cudaStream_t)stream;
  int kind = kind_of (format);
  bool a = aligned_for (kind, src, src_pitch)
           && aligned_for (kind, dst, dst_pitch);

  if (!accel_image_format_is_packed (format)
      || !accel_image_args_valid (format, src, src_pitch, src_width, src_height)
      || !accel_image_args_valid (
          format, dst, dst_pitch, dst_width, dst_height))
    return cudaErrorInvalidValue;
  switch (kind)
    {
    case KIND_U8X1:
      return launch<KIND_U8X1, true> (s, src, src_pitch, src_width, src_height,
          dst, dst_pitch, dst_width, dst_height);
    case KIND_U8X4:
      return a ? launch<KIND_U8X4, true> (s, src, src_pitch, src_width,
                 src_height, dst, dst_pitch, dst_width, dst_height)
               : launch<KIND_U8X4, false> (s, src, src_pitch, src_width,
                   src_height, dst, dst_pitch, dst_width, dst_height);
    default:
      return a ? launch<KIND_F32X4, true> (s, src, src_pitch, src_width,
                 src_height, dst, dst_pitch, dst_width, dst_height)
               : launch<KIND_F32X4, false> (s, src, src_pitch, src_width,
                   src_height, dst, dst_pitch, dst_width, dst_height);
    }
}
