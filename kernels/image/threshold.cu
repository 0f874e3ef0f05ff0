/* SPDX-License-Identifier: LGPL-2.1-or-later */
// binary threshold on the GPU: 16 bytes per thread where rows allow it
#include <cuda_runtime.h>

#include "threshold.h"
#include "image-device.cuh"

using namespace accel_image;

namespace
{

constexpr int BLOCK = 256;

__device__ __forceinline__ uint32_t
threshold_word (uint32_t w, float value, uint32_t keep)
{
  uint32_t out = 0;

#pragma unroll
  for (int b = 0; b < 4; b++)
    {
      uint32_t v = (w >> (8 * b)) & 0xffu;
      if (keep & (1u << b))
        out |= v << (8 * b);
      else if (u8_to_f (v) > value)
        out |= 0xffu << (8 * b);
    }
  return out;
}

// MODE 2: rows start on 16 bytes, whole chunks go as uint4; MODE 1: pixels
// are aligned for their vector type; MODE 0: any alignment
template <int K, int MODE>
__global__ void
__launch_bounds__ (BLOCK) threshold (const uint8_t *__restrict__ src,
    size_t src_pitch, uint8_t *__restrict__ dst, size_t dst_pitch, int width,
    int height, float value)
{
  constexpr int BPP = Traits<K>::BPP, C = Traits<K>::C;
  constexpr bool A = MODE > 0;
  const long long row_bytes = (long long)width * BPP;
  const long long chunk = blockIdx.x * (long long)BLOCK + threadIdx.x;

  if (chunk * 16 >= row_bytes)
    return;
  for (int y = blockIdx.y; y < height; y += gridDim.y)
    {
      const uint8_t *in = src + (size_t)y * src_pitch;
      uint8_t *out = dst + (size_t)y * dst_pitch;

      if (MODE == 2 && (chunk + 1) * 16 <= row_bytes)
        {
          uint4 v = reinterpret_cast<const uint4 *> (in)[chunk];
          if constexpr (K == KIND_F32X4)
            {
              float4 f
                  = make_float4 (__uint_as_float (v.x) > value ? 1.0f : 0.0f,
                      __uint_as_float (v.y) > value ? 1.0f : 0.0f,
                      __uint_as_float (v.z) > value ? 1.0f : 0.0f,
                      __uint_as_float (v.w));
              reinterpret_cast<float4 *> (out)[chunk] = f;
            }
          else
            {
              // RGBA8 and BGRA8 keep the top byte of each word: alpha
              uint32_t keep = K == KIND_U8X4 ? 0x8u : 0x0u;
              v.x = threshold_word (v.x, value, keep);
              v.y = threshold_word (v.y, value, keep);
              v.z = threshold_word (v.z, value, keep);
              v.w = threshold_word (v.w, value, keep);
              reinterpret_cast<uint4 *> (out)[chunk] = v;
            }
          continue;
        }
      // a row's tail, or rows that do not allow 16 byte access
      const int first = (int)(chunk * 16 / BPP);
      const int last = min ((int)((chunk + 1) * 16 / BPP), width);
      for (int x = first; x < last; x++)
        {
          float v[C];
          load_px<K, A> (in, x, v);
#pragma unroll
          for (int c = 0; c < C; c++)
            if (c != 3)
              v[c] = v[c] > value ? (K == KIND_F32X4 ? 1.0f : 255.0f) : 0.0f;
          store_px<K, A> (out, x, v);
        }
    }
}

template <int K, int MODE>
int
launch (cudaStream_t stream, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, float value)
{
  long long chunks = ((long long)width * Traits<K>::BPP + 15) / 16;
  dim3 grid ((unsigned)((chunks + BLOCK - 1) / BLOCK), grid_rows (height));

  threshold<K, MODE><<<grid, BLOCK, 0, stream>>> ((const uint8_t *)src,
      src_pitch, (uint8_t *)dst, dst_pitch, width, height, value);
  return cudaGetLastError ();
}

template <int K>
int
launch_mode (cudaStream_t stream, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, float value)
{
  if (aligned16 (src, src_pitch) && aligned16 (dst, dst_pitch))
    return launch<K, 2> (
        stream, src, src_pitch, dst, dst_pitch, width, height, value);
  if (aligned_for (K, src, src_pitch) && aligned_for (K, dst, dst_pitch))
    return launch<K, 1> (
        stream, src, src_pitch, dst, dst_pitch, width, height, value);
  return launch<K, 0> (
      stream, src, src_pitch, dst, dst_pitch, width, height, value);
}

} // namespace

extern "C" int
accel_threshold (void *stream, int format, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, float value)
{
  cudaStream_t s = (cudaStream_t)stream;

  if (!accel_image_format_is_packed (format)
      || !accel_image_args_valid (format, src, src_pitch, width, height)
      || !accel_image_args_valid (format, dst, dst_pitch, width, height))
    return cudaErrorInvalidValue;
  switch (kind_of (format))
    {
    case KIND_U8X1:
      return launch_mode<KIND_U8X1> (
          s, src, src_pitch, dst, dst_pitch, width, height, value);
    case KIND_U8X4:
      return launch_mode<KIND_U8X4> (
          s, src, src_pitch, dst, dst_pitch, width, height, value);
    default:
      return launch_mode<KIND_F32X4> (
          s, src, src_pitch, dst, dst_pitch, width, height, value);
    }
}
