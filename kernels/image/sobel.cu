/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Sobel edge magnitude on the GPU: a luma tile with a one pixel halo in
// shared memory, then the 3x3 stencil out of it. RGBA8 and BGRA8 rows on 16
// bytes need no tile: each thread walks down a strip four pixels wide,
// one 16-byte load and one 16-byte store a row
#include <math.h>

#include <cuda_runtime.h>

#include "sobel.h"
#include "image-device.cuh"

using namespace accel_image;

namespace
{

constexpr int TILE_W = 32;
constexpr int TILE_H = 32;
constexpr int BLOCK_Y = 8;

template <int F>
constexpr int kind_for
    = F == ACCEL_IMAGE_GRAY8
          ? KIND_U8X1
          : (F == ACCEL_IMAGE_RGBAF32 ? KIND_F32X4 : KIND_U8X4);

template <int F, bool A>
__device__ __forceinline__ float
luma_at (const uint8_t *row, int x)
{
  float v[4];

  if constexpr (F == ACCEL_IMAGE_GRAY8)
    {
      return u8_to_f (row[x]);
    }
  else
    {
      load_px<kind_for<F>, A> (row, x, v);
      if constexpr (F == ACCEL_IMAGE_BGRA8)
        {
          float t = v[0];
          v[0] = v[2];
          v[2] = t;
        }
      if constexpr (F == ACCEL_IMAGE_RGBAF32)
        return accel_px_luma (v[0], v[1], v[2]);
      else
        return u8_to_f (accel_px_luma_u8 (v[0], v[1], v[2]));
    }
}

// the 3x3 window at column @x of rows @rows[0 .. 2], row major, as
// accel_px_sobel () takes it. @p is the caller's: with the array local to a
// helper, nvcc compiled the fast kernel to longer code
template <int W>
__device__ __forceinline__ void
sobel_window (const float (*rows)[W], int x, float *p)
{
#pragma unroll
  for (int j = 0; j < 3; j++)
#pragma unroll
    for (int i = 0; i < 3; i++)
      p[j * 3 + i] = rows[j][x + i];
}

// the gradients of window @p and their magnitude times @scale, as
// sobel-host.c computes them
__device__ __forceinline__ float
sobel_magnitude (const float *p, float scale, float *gx, float *gy)
{
  accel_px_sobel (p, gx, gy);
  return accel_px_magnitude (*gx, *gy) * scale;
}

template <int F, bool A>
__global__ void
__launch_bounds__ (TILE_W *BLOCK_Y)
    sobel (const uint8_t *__restrict__ src, size_t src_pitch,
        uint8_t *__restrict__ dst, size_t dst_pitch, float *__restrict__ dir,
        size_t dir_pitch, int width, int height, float scale)
{
  constexpr int K = kind_for<F>;
  constexpr int LW = TILE_W + 2, LH = TILE_H + 2;
  __shared__ float luma[LH][LW];
  const int x0 = blockIdx.x * TILE_W, y0 = blockIdx.y * TILE_H;
  const int tid = threadIdx.y * TILE_W + threadIdx.x;

  for (int i = tid; i < LW * LH; i += TILE_W * BLOCK_Y)
    {
      int ly = i / LW, lx = i % LW;
      int y = clampi (y0 - 1 + ly, 0, height - 1);
      int x = clampi (x0 - 1 + lx, 0, width - 1);
      luma[ly][lx] = luma_at<F, A> (src + (size_t)y * src_pitch, x);
    }
  __syncthreads ();

  const int tx = threadIdx.x, x = x0 + tx;
  if (x >= width)
    return;
  for (int oy = threadIdx.y; oy < TILE_H && y0 + oy < height; oy += BLOCK_Y)
    {
      const int y = y0 + oy;
      float p[9], gx, gy, m;
      sobel_window (&luma[oy], tx, p);
      m = sobel_magnitude (p, scale, &gx, &gy);
      if constexpr (K == KIND_U8X1)
        {
          dst[(size_t)y * dst_pitch + x] = accel_px_to_u8 (m);
        }
      else
        {
          float v[4];
          load_px<K, A> (src + (size_t)y * src_pitch, x, v);
          v[0] = v[1] = v[2] = m;
          store_px<K, A> (dst + (size_t)y * dst_pitch, x, v);
        }
      if (dir)
        dir[(size_t)y * (dir_pitch / 4) + x] = atan2f (gy, gx);
    }
}

// luma of an RGBA8 or BGRA8 word as a float, as luma_at () takes it
template <int F>
__device__ __forceinline__ float
luma_of_word_f (uint32_t w)
{
  return __uint2float_rn (luma_of_word<F == ACCEL_IMAGE_BGRA8> (w));
}

// the byte of gradients @gx and @gy that sobel_magnitude () gives where
// @scale is a power of two, from the approximate square root, which has no
// range check to branch on: @gx and @gy are whole (from lumas of bytes), so
// g = gx^2 + gy^2 is a whole number below 2^24, exact. A byte's rounding
// edge, (k + 1/2) / scale, is then a whole number, or half of one where that
// is below 256, or a multiple of a smaller power of two below 128: the root
// of a g that is not a square lies farther from every edge than the
// approximation errs (two units in the last place), and a square's root is
// set exact. Every g was checked at every scale from 2^-12 to 2^12 on an
// H200: the same bytes as the correctly rounded root's
__device__ __forceinline__ uint32_t
sobel_byte_pow2 (float gx, float gy, float scale)
{
  float g, r, q;

  g = fmaf (gx, gx, gy * gy);
  asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(g));
  q = rintf (r);
  r = q * q == g ? q : r;
  return to_u8_converted (r * scale);
}

// RGBA8 and BGRA8 rows on 16 bytes stream down strips: each thread makes
// four pixels of STRIP rows from one 16-byte load a row, all of its rows
// loaded before the first luma is taken. The luma either side comes from
// the neighbouring lane (the warp's edge lanes read that pixel) and the
// last three rows' lumas stay in registers: no shared tile, no barrier,
// each pixel's luma taken once but for two halo rows a strip. Strips of
// four rows, four pixels wide, measured fastest: 75 % of a copy at 4K on
// an H200, against 70 % and 66 % for strips of eight and two rows, 69 %
// for eight pixels a thread and 68 % for the shared tile this replaced
constexpr int STRIP = 4;

template <int F, bool DIR, bool POW2>
__global__ void __launch_bounds__ (32 * STRIP_WARPS)
    sobel_rgba_stream (const uint8_t *__restrict__ src, size_t src_pitch,
        uint8_t *__restrict__ dst, size_t dst_pitch, float *__restrict__ dir,
        size_t dir_pitch, int width, int height, float scale)
{
  const int lane = threadIdx.x;
  Strip<STRIP> strip;
  // columns x - 1 .. x + 4 (x: strip.x) of the last three rows
  float l[3][6];

  if (!strip.load (src, src_pitch, width, height))
    return;
#pragma unroll
  for (int i = 0; i < strip.ROWS; i++)
    {
      const int y = strip.y0 + i - 2;
      float (&c)[6] = l[i % 3];

      if (y >= height)
        break;
#pragma unroll
      for (int j = 0; j < 4; j++)
        c[1 + j] = luma_of_word_f<F> (strip.w[i][j]);
      strip_neighbours (c[1], c[4],
          lane == 0 || lane == 31 ? luma_of_word_f<F> (strip.edge[i]) : 0.0f,
          c[0], c[5]);
      if (i < 2 || strip.x >= width)
        continue;

      const float (&a)[6] = l[(i + 1) % 3], (&b)[6] = l[(i + 2) % 3];
      // the lumas are whole, so accel_px_sobel ()'s sums are exact in any
      // order: each column's vertical smoothing and difference are made
      // once for the three windows that hold it
      float smooth[6], diff[6];
      uint32_t out[4];
#pragma unroll
      for (int j = 0; j < 6; j++)
        {
          smooth[j] = fmaf (2.0f, b[j], a[j]) + c[j];
          diff[j] = c[j] - a[j];
        }
#pragma unroll
      for (int k = 0; k < 4; k++)
        {
          const float gx = smooth[k + 2] - smooth[k];
          const float gy = fmaf (2.0f, diff[k + 1], diff[k]) + diff[k + 2];
          const uint32_t m
              = POW2 && !DIR
                    ? sobel_byte_pow2 (gx, gy, scale)
                    : to_u8_converted (accel_px_magnitude (gx, gy) * scale);

          // the byte in channels 0 to 2, alpha from the centre pixel
          out[k] = __byte_perm (m, strip.w[i - 1][k], 0x7000);
          if (DIR && strip.x + k < width)
            dir[(size_t)y * (dir_pitch / 4) + strip.x + k] = atan2f (gy, gx);
        }
      store_words4 (dst + (size_t)y * dst_pitch, strip.x, width, out);
    }
}

template <int F>
int
launch_stream (cudaStream_t stream, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, float *dir, size_t dir_pitch, int width,
    int height, float scale)
{
  // the direction's atan2f () is compiled in only where it is asked for:
  // inlined for every pixel of a thread, it made the frames without it
  // slower too
  int e;
  auto kernel = dir ? sobel_rgba_stream<F, true, false>
                : frexpf (scale, &e) == 0.5f
                    ? sobel_rgba_stream<F, false, true>
                    : sobel_rgba_stream<F, false, false>;

  kernel<<<strip_grid (width, height, STRIP), dim3 (32, STRIP_WARPS), 0,
      stream>>> ((const uint8_t *)src, src_pitch, (uint8_t *)dst, dst_pitch,
      dir, dir_pitch, width, height, scale);
  return cudaGetLastError ();
}

template <int F, bool A>
int
launch (cudaStream_t stream, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, float *dir, size_t dir_pitch, int width, int height,
    float scale)
{
  dim3 grid ((width + TILE_W - 1) / TILE_W, (height + TILE_H - 1) / TILE_H);

  sobel<F, A><<<grid, dim3 (TILE_W, BLOCK_Y), 0, stream>>> (
      (const uint8_t *)src, src_pitch, (uint8_t *)dst, dst_pitch, dir,
      dir_pitch, width, height, scale);
  return cudaGetLastError ();
}

template <int F>
int
launch_aligned (cudaStream_t stream, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, float *dir, size_t dir_pitch, int width,
    int height, float scale)
{
  int kind = kind_of (F);

  if constexpr (F != ACCEL_IMAGE_RGBAF32)
    if (aligned16 (src, src_pitch) && aligned16 (dst, dst_pitch))
      return launch_stream<F> (stream, src, src_pitch, dst, dst_pitch, dir,
          dir_pitch, width, height, scale);
  if (aligned_for (kind, src, src_pitch) && aligned_for (kind, dst, dst_pitch))
    return launch<F, true> (stream, src, src_pitch, dst, dst_pitch, dir,
        dir_pitch, width, height, scale);
  return launch<F, false> (stream, src, src_pitch, dst, dst_pitch, dir,
      dir_pitch, width, height, scale);
}

} // namespace

extern "C" int
accel_sobel (void *stream, int format, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, float *direction, size_t direction_pitch,
    int width, int height, float scale)
{
  cudaStream_t s = (cudaStream_t)stream;

  if (!accel_image_format_is_packed (format)
      || !accel_image_args_valid (format, src, src_pitch, width, height)
      || !accel_image_args_valid (format, dst, dst_pitch, width, height)
      || (direction
          && (direction_pitch % 4 != 0 || (uintptr_t)direction % 4 != 0
              || direction_pitch < (size_t)width * 4)))
    return cudaErrorInvalidValue;
  switch (format)
    {
    case ACCEL_IMAGE_RGBA8:
      return launch_aligned<ACCEL_IMAGE_RGBA8> (s, src, src_pitch, dst,
          dst_pitch, direction, direction_pitch, width, height, scale);
    case ACCEL_IMAGE_BGRA8:
      return launch_aligned<ACCEL_IMAGE_BGRA8> (s, src, src_pitch, dst,
          dst_pitch, direction, direction_pitch, width, height, scale);
    case ACCEL_IMAGE_GRAY8:
      return launch<ACCEL_IMAGE_GRAY8, true> (s, src, src_pitch, dst, dst_pitch,
          direction, direction_pitch, width, height, scale);
    default:
      return launch_aligned<ACCEL_IMAGE_RGBAF32> (s, src, src_pitch, dst,
          dst_pitch, direction, direction_pitch, width, height, scale);
    }
}
