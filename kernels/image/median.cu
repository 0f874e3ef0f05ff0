/* SPDX-License-Identifier: LGPL-2.1-or-later */
// median filter on the GPU: the window's values come out of a shared tile
// and a forgetful selection finds the median with min/max steps only, so
// RGBA8 runs all four channels at once in 16-bit SIMD lanes. RGBA8 and BGRA8
// rows on 16 bytes fill the tile from 16-byte loads and make four pixels
// of a row per thread in one 16-byte store; 3x3 sorts each column once for
// the four
#include <cuda_runtime.h>

#include "median.h"
#include "image-device.cuh"

using namespace accel_image;

namespace
{

constexpr int TILE_W = 32;
constexpr int TILE_H = 32;
constexpr int BLOCK_Y = 8;

// a pixel as the tile holds it, with min and max taken channel by channel
template <int K> struct Ops;
template <> struct Ops<KIND_U8X1>
{
  typedef uint32_t T;
  static __device__ __forceinline__ T mn (T a, T b)
  {
    return min (a, b);
  }
  static __device__ __forceinline__ T mx (T a, T b)
  {
    return max (a, b);
  }
};
// RGBA8 and BGRA8 as two registers of 16-bit lanes, channels 0 and 2 in
// x, 1 and 3 in y: min and max of all four channels in two instructions
template <> struct Ops<KIND_U8X4>
{
  typedef uint2 T;
  static __device__ __forceinline__ T mn (T a, T b)
  {
    return make_uint2 (__vminu2 (a.x, b.x), __vminu2 (a.y, b.y));
  }
  static __device__ __forceinline__ T mx (T a, T b)
  {
    return make_uint2 (__vmaxu2 (a.x, b.x), __vmaxu2 (a.y, b.y));
  }
};
template <> struct Ops<KIND_F32X4>
{
  typedef float4 T;
  static __device__ __forceinline__ T mn (T a, T b)
  {
    return make_float4 (
        fminf (a.x, b.x), fminf (a.y, b.y), fminf (a.z, b.z), fminf (a.w, b.w));
  }
  static __device__ __forceinline__ T mx (T a, T b)
  {
    return make_float4 (
        fmaxf (a.x, b.x), fmaxf (a.y, b.y), fmaxf (a.z, b.z), fmaxf (a.w, b.w));
  }
};

template <int K, bool A>
__device__ __forceinline__ typename Ops<K>::T
load_raw (const uint8_t *__restrict__ row, int x)
{
  if constexpr (K == KIND_U8X1)
    {
      return row[x];
    }
  else if constexpr (K == KIND_U8X4)
    {
      const uint8_t *p = row + 4 * (size_t)x;
      uint32_t w;
      if constexpr (A)
        w = *reinterpret_cast<const uint32_t *> (p);
      else
        w = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16)
            | ((uint32_t)p[3] << 24);
      return make_uint2 (w & 0x00ff00ffu, (w >> 8) & 0x00ff00ffu);
    }
  else
    {
      float v[4];
      load_px<K, A> (row, x, v);
      return make_float4 (v[0], v[1], v[2], v[3]);
    }
}

template <int K, bool A>
__device__ __forceinline__ void
store_raw (uint8_t *__restrict__ row, int x, typename Ops<K>::T v)
{
  if constexpr (K == KIND_U8X1)
    {
      row[x] = (uint8_t)v;
    }
  else if constexpr (K == KIND_U8X4)
    {
      uint8_t *p = row + 4 * (size_t)x;
      uint32_t w = v.x | (v.y << 8);
      if constexpr (A)
        {
          *reinterpret_cast<uint32_t *> (p) = w;
        }
      else
        {
          p[0] = (uint8_t)w;
          p[1] = (uint8_t)(w >> 8);
          p[2] = (uint8_t)(w >> 16);
          p[3] = (uint8_t)(w >> 24);
        }
    }
  else
    {
      float f[4] = { v.x, v.y, v.z, v.w };
      store_px<K, A> (row, x, f);
    }
}

template <int K>
__device__ __forceinline__ typename Ops<K>::T
median3 (typename Ops<K>::T a, typename Ops<K>::T b, typename Ops<K>::T c)
{
  return Ops<K>::mx (Ops<K>::mn (a, b), Ops<K>::mn (Ops<K>::mx (a, b), c));
}

// median of the (2 R + 1)^2 values @at (i) gives, row by row.
// 3x3: sort each column; the median is the median of the greatest column
// minimum, the median of the column medians and the least column maximum.
// 5x5: a forgetful selection: keep R + 2 more than half of the values, drop
// the least and the greatest (neither can be the median), take the next
// value in, until three are left
template <int K, int R, class At>
__device__ __forceinline__ typename Ops<K>::T
median_of (At at)
{
  typedef typename Ops<K>::T T;

  if constexpr (R == 1)
    {
      T lo[3], mid[3], hi[3];
#pragma unroll
      for (int j = 0; j < 3; j++)
        {
          T a = at (j), b = at (3 + j), c = at (6 + j);
          T l = Ops<K>::mn (a, b), h = Ops<K>::mx (a, b);
          lo[j] = Ops<K>::mn (l, c);
          hi[j] = Ops<K>::mx (h, c);
          mid[j] = Ops<K>::mx (l, Ops<K>::mn (h, c));
        }
      return median3<K> (Ops<K>::mx (lo[0], Ops<K>::mx (lo[1], lo[2])),
          median3<K> (mid[0], mid[1], mid[2]),
          Ops<K>::mn (hi[0], Ops<K>::mn (hi[1], hi[2])));
    }
  else
    {
      constexpr int N = (2 * R + 1) * (2 * R + 1), HALF = N / 2, W = HALF + 2;
      T w[W];

#pragma unroll
      for (int i = 0; i < W; i++)
        w[i] = at (i);
#pragma unroll
      for (int step = 0; step < HALF - 1; step++)
        {
          const int size = W - step;
#pragma unroll
          for (int i = 1; i < size; i++)
            {
              T a = w[0], b = w[i];
              w[0] = Ops<K>::mn (a, b);
              w[i] = Ops<K>::mx (a, b);
            }
#pragma unroll
          for (int i = 1; i < size - 1; i++)
            {
              T a = w[i], b = w[size - 1];
              w[i] = Ops<K>::mn (a, b);
              w[size - 1] = Ops<K>::mx (a, b);
            }
          w[0] = at (W + step);
        }
      return median3<K> (w[0], w[1], w[2]);
    }
}

template <int K, bool A, int R>
__global__ void
__launch_bounds__ (TILE_W *BLOCK_Y)
    median (const uint8_t *__restrict__ src, size_t src_pitch,
        uint8_t *__restrict__ dst, size_t dst_pitch, int width, int height)
{
  typedef typename Ops<K>::T T;
  constexpr int S = 2 * R + 1, LW = TILE_W + 2 * R, LH = TILE_H + 2 * R;
  __shared__ T tile[LH][LW];
  const int x0 = blockIdx.x * TILE_W, y0 = blockIdx.y * TILE_H;
  const int tid = threadIdx.y * TILE_W + threadIdx.x;

  for (int i = tid; i < LW * LH; i += TILE_W * BLOCK_Y)
    {
      int ly = i / LW, lx = i % LW;
      int y = clampi (y0 - R + ly, 0, height - 1);
      int x = clampi (x0 - R + lx, 0, width - 1);
      tile[ly][lx] = load_raw<K, A> (src + (size_t)y * src_pitch, x);
    }
  __syncthreads ();

  const int tx = threadIdx.x, x = x0 + tx;
  if (x >= width)
    return;
  for (int oy = threadIdx.y; oy < TILE_H && y0 + oy < height; oy += BLOCK_Y)
    {
      T m = median_of<K, R> (
          [&] (int i) { return tile[oy + i / S][tx + i % S]; });
      store_raw<K, A> (dst + (size_t)(y0 + oy) * dst_pitch, x, m);
    }
}

constexpr int FAST_W = 64;
constexpr int FAST_H = 16;
constexpr int FAST_THREADS = 256;
// a tile row holds the pixels from x0 - 4 on, whole chunks of four
constexpr int FAST_LW = FAST_W + 8;

template <int R>
__global__ void
__launch_bounds__ (FAST_THREADS)
    median_rgba (const uint8_t *__restrict__ src, size_t src_pitch,
        uint8_t *__restrict__ dst, size_t dst_pitch, int width, int height)
{
  typedef Ops<KIND_U8X4> O;
  constexpr int CHUNKS = FAST_LW / 4, S = 2 * R + 1;
  __shared__ uint4 tile4[FAST_H + 2 * R][FAST_LW / 2];
  const uint2 (*tile)[FAST_LW]
      = reinterpret_cast<const uint2 (*)[FAST_LW]> (tile4);
  const int x0 = blockIdx.x * FAST_W, y0 = blockIdx.y * FAST_H;

  for (int i = threadIdx.x; i < (FAST_H + 2 * R) * CHUNKS; i += FAST_THREADS)
    {
      const int ly = i / CHUNKS, c = i % CHUNKS;
      const int x = x0 - 4 + 4 * c;
      const uint8_t *row
          = src + (size_t)clampi (y0 - R + ly, 0, height - 1) * src_pitch;
      uint32_t w[4];
      load_words4_clamped (row, x, width, w);
      // channels 0 and 2 in the low lanes, 1 and 3 in the high ones
      tile4[ly][2 * c]
          = make_uint4 (w[0] & 0x00ff00ffu, (w[0] >> 8) & 0x00ff00ffu,
              w[1] & 0x00ff00ffu, (w[1] >> 8) & 0x00ff00ffu);
      tile4[ly][2 * c + 1]
          = make_uint4 (w[2] & 0x00ff00ffu, (w[2] >> 8) & 0x00ff00ffu,
              w[3] & 0x00ff00ffu, (w[3] >> 8) & 0x00ff00ffu);
    }
  __syncthreads ();

  const int q = threadIdx.x % (FAST_W / 4), oy = threadIdx.x / (FAST_W / 4);
  const int x = x0 + 4 * q, y = y0 + oy;
  if (x >= width || y >= height)
    return;

  // tile column of output pixel x - R: pixel x lies at 4 q + 4
  const int first = 4 * q + 4 - R;
  uint2 m[4];
  if constexpr (R == 1)
    {
      uint2 lo[6], mid[6], hi[6];
#pragma unroll
      for (int c = 0; c < 6; c++)
        {
          const uint2 a = tile[oy][first + c], b = tile[oy + 1][first + c],
                      d = tile[oy + 2][first + c];
          const uint2 l = O::mn (a, b), h = O::mx (a, b);
          lo[c] = O::mn (l, d);
          hi[c] = O::mx (h, d);
          mid[c] = O::mx (l, O::mn (h, d));
        }
#pragma unroll
      for (int i = 0; i < 4; i++)
        m[i] = median3<KIND_U8X4> (O::mx (lo[i], O::mx (lo[i + 1], lo[i + 2])),
            median3<KIND_U8X4> (mid[i], mid[i + 1], mid[i + 2]),
            O::mn (hi[i], O::mn (hi[i + 1], hi[i + 2])));
    }
  else
    {
#pragma unroll
      for (int i = 0; i < 4; i++)
        m[i] = median_of<KIND_U8X4, R> (
            [&] (int k) { return tile[oy + k / S][first + i + k % S]; });
    }
  uint8_t *out = dst + (size_t)y * dst_pitch;
  uint32_t w[4];
#pragma unroll
  for (int i = 0; i < 4; i++)
    w[i] = m[i].x | (m[i].y << 8);
  if (x + 4 <= width)
    reinterpret_cast<uint4 *> (out)[x / 4]
        = make_uint4 (w[0], w[1], w[2], w[3]);
  else
    for (int i = 0; i < width - x; i++)
      reinterpret_cast<uint32_t *> (out)[x + i] = w[i];
}

template <int K, bool A>
int
launch (cudaStream_t stream, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int size)
{
  dim3 grid ((width + TILE_W - 1) / TILE_W, (height + TILE_H - 1) / TILE_H);
  dim3 block (TILE_W, BLOCK_Y);

  if (size == 3)
    median<K, A, 1><<<grid, block, 0, stream>>> ((const uint8_t *)src,
        src_pitch, (uint8_t *)dst, dst_pitch, width, height);
  else
    median<K, A, 2><<<grid, block, 0, stream>>> ((const uint8_t *)src,
        src_pitch, (uint8_t *)dst, dst_pitch, width, height);
  return cudaGetLastError ();
}

} // namespace

extern "C" int
accel_median (void *stream, int format, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, int size)
{
  cudaStream_t s = (cudaStream_t)stream;
  int kind = kind_of (format);
  bool a = aligned_for (kind, src, src_pitch)
           && aligned_for (kind, dst, dst_pitch);

  if (!accel_image_format_is_packed (format)
      || !accel_image_args_valid (format, src, src_pitch, width, height)
      || !accel_image_args_valid (format, dst, dst_pitch, width, height)
      || (size != 3 && size != 5))
    return cudaErrorInvalidValue;
  switch (kind)
    {
    case KIND_U8X1:
      return launch<KIND_U8X1, true> (
          s, src, src_pitch, dst, dst_pitch, width, height, size);
    case KIND_U8X4:
      if (aligned16 (src, src_pitch) && aligned16 (dst, dst_pitch))
        {
          dim3 grid (
              (width + FAST_W - 1) / FAST_W, (height + FAST_H - 1) / FAST_H);
          if (size == 3)
            median_rgba<1><<<grid, FAST_THREADS, 0, s>>> ((const uint8_t *)src,
                src_pitch, (uint8_t *)dst, dst_pitch, width, height);
          else
            median_rgba<2><<<grid, FAST_THREADS, 0, s>>> ((const uint8_t *)src,
                src_pitch, (uint8_t *)dst, dst_pitch, width, height);
          return cudaGetLastError ();
        }
      return a ? launch<KIND_U8X4, true> (
                 s, src, src_pitch, dst, dst_pitch, width, height, size)
               : launch<KIND_U8X4, false> (
                   s, src, src_pitch, dst, dst_pitch, width, height, size);
    default:
      return a ? launch<KIND_F32X4, true> (
                 s, src, src_pitch, dst, dst_pitch, width, height, size)
               : launch<KIND_F32X4, false> (
                   s, src, src_pitch, dst, dst_pitch, width, height, size);
    }
}
