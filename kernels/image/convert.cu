/* SPDX-License-Identifier: LGPL-2.1-or-later */
// colour conversion on the GPU: packed formats pixel by pixel, or four
// pixels per thread on rows that start on 16 bytes (each of a warp's loads
// and stores side by side) and, between 8-bit RGBA and RGBAF32, on rows
// aligned for both (four pixels 32 apart); 4:2:0 formats one 2x2 block per
// thread, or, from and to RGBA8 and BGRA8 rows on 16 bytes, two blocks side
// by side (decoding) and four (encoding)
#include <cuda_runtime.h>
#include <string.h>

#include "convert.h"
#include "image-device.cuh"

using namespace accel_image;

namespace
{

constexpr int BLOCK_X = 32;
constexpr int BLOCK_Y = 8;

template <int F>
constexpr int kind_for
    = F == ACCEL_IMAGE_GRAY8
          ? KIND_U8X1
          : (F == ACCEL_IMAGE_RGBAF32 ? KIND_F32X4 : KIND_U8X4);

// the channels of a pixel of packed format F, as loaded (GRAY8: px[0]),
// to R, G, B, A on the 0..255 scale, in place
template <int F>
__device__ __forceinline__ void
to_rgba (float *px)
{
  if constexpr (F == ACCEL_IMAGE_GRAY8)
    {
      px[1] = px[2] = px[0];
      px[3] = 255.0f;
    }
  else if constexpr (F == ACCEL_IMAGE_RGBAF32)
    {
#pragma unroll
      for (int c = 0; c < 4; c++)
        px[c] = accel_px_unit_to_255 (px[c]);
    }
  else if constexpr (F == ACCEL_IMAGE_BGRA8)
    {
      float t = px[0];
      px[0] = px[2];
      px[2] = t;
    }
}

// whether format F holds whole bytes
template <int F> constexpr bool is_bytes = F != ACCEL_IMAGE_RGBAF32;

// the luma byte of pixel @px decoded from format SF: exact from bytes
// (accel_px_luma_u8 ()), the float luma rounded from RGBAF32
template <int SF>
__device__ __forceinline__ uint32_t
luma_byte (const float *px)
{
  if constexpr (is_bytes<SF>)
    return accel_px_luma_u8 (px[0], px[1], px[2]);
  else
    return accel_px_to_u8 (accel_px_luma (px[0], px[1], px[2]));
}

// R, G, B, A on the 0..255 scale to the channels format F stores; BYTES:
// the values are whole bytes
template <int F, bool BYTES = false>
__device__ __forceinline__ void
from_rgba (const float *px, float *v)
{
  if constexpr (F == ACCEL_IMAGE_GRAY8)
    {
      v[0] = BYTES ? (float)accel_px_luma_u8 (px[0], px[1], px[2])
                   : accel_px_luma (px[0], px[1], px[2]);
    }
  else if constexpr (F == ACCEL_IMAGE_RGBAF32)
    {
#pragma unroll
      for (int c = 0; c < 4; c++)
        v[c] = BYTES ? byte_to_unit (px[c]) : accel_px_255_to_unit (px[c]);
    }
  else if constexpr (F == ACCEL_IMAGE_BGRA8)
    {
      v[0] = px[2];
      v[1] = px[1];
      v[2] = px[0];
      v[3] = px[3];
    }
  else
    {
#pragma unroll
      for (int c = 0; c < 4; c++)
        v[c] = px[c];
    }
}

template <int F, bool A>
__device__ __forceinline__ void
decode (const uint8_t *__restrict__ row, int x, float *px)
{
  load_px<kind_for<F>, A> (row, x, px);
  to_rgba<F> (px);
}

template <int F, bool A, bool BYTES = false>
__device__ __forceinline__ void
encode (uint8_t *__restrict__ row, int x, const float *px)
{
  float v[4];

  from_rgba<F, BYTES> (px, v);
  store_px<kind_for<F>, A> (row, x, v);
}

template <int SF, int DF, bool A>
__global__ void
__launch_bounds__ (BLOCK_X *BLOCK_Y)
    packed_to_packed (const uint8_t *__restrict__ src, size_t src_pitch,
        uint8_t *__restrict__ dst, size_t dst_pitch, int width, int height)
{
  const int x = blockIdx.x * BLOCK_X + threadIdx.x;

  if (x >= width)
    return;
  for (int y = blockIdx.y * BLOCK_Y + threadIdx.y; y < height;
       y += gridDim.y * BLOCK_Y)
    {
      float px[4];
      decode<SF, A> (src + (size_t)y * src_pitch, x, px);
      encode<DF, A, is_bytes<SF>> (dst + (size_t)y * dst_pitch, x, px);
    }
}

// the skeleton of a conversion four pixels a thread in blocks of 256:
// ROWS rows at a time, every row's @load (its row, the thread's first
// pixel) before the first row's @store (the row, the pixel, the load's
// value); a row's last pixels, fewer than four, one @tail (row, pixel)
// each
template <int ROWS, typename Load, typename Store, typename Tail>
__device__ __forceinline__ void
rows_of_four (int width, int height, Load load, Store store, Tail tail)
{
  const int x = 4 * (blockIdx.x * 256 + threadIdx.x);

  if (x >= width)
    return;
  for (int y0 = blockIdx.y * ROWS; y0 < height; y0 += gridDim.y * ROWS)
    {
      decltype (load (0, 0)) v[ROWS];

      if (x + 4 > width)
        {
          for (int y = y0; y < y0 + ROWS && y < height; y++)
            for (int i = x; i < width; i++)
              tail (y, i);
          continue;
        }
#pragma unroll
      for (int r = 0; r < ROWS; r++)
        if (y0 + r < height)
          v[r] = load (y0 + r, x);
#pragma unroll
      for (int r = 0; r < ROWS; r++)
        if (y0 + r < height)
          store (y0 + r, x, v[r]);
    }
}

// RGBA8 or BGRA8 rows on 16 bytes to GRAY8 in integers (luma_of_word ()):
// four pixels of GRAY_ROWS rows a thread. On an H200, % of a frame copy at
// 1080p / 4K: 72 % / 85 % with two rows, 71 % / 84-85 % with four, 65-66 % /
// 82-83 % with eight (three rounds in one call); before the loads were
// evict-first, 76 % at 4K with one row
constexpr int GRAY_ROWS = 2;

template <bool BGR>
__global__ void __launch_bounds__ (256)
    rgba_to_gray4 (const uint8_t *__restrict__ src, size_t src_pitch,
        uint8_t *__restrict__ dst, size_t dst_pitch, int width, int height)
{
  // the frame is read once: its loads are evict-first (ld.global.cs),
  // which took this kernel from 81 % to 85 % of a frame copy at 4K on an
  // H200 (the 4:2:0 encoders and the exact 1/2 downscale gained as much;
  // the filters, whose halos are read twice, did not)
  rows_of_four<GRAY_ROWS> (
      width, height,
      [&] (int y, int x) {
        return __ldcs (
            reinterpret_cast<const uint4 *> (src + (size_t)y * src_pitch)
            + x / 4);
      },
      [&] (int y, int x, uint4 w) {
        reinterpret_cast<uint32_t *> (dst + (size_t)y * dst_pitch)[x / 4]
            = pack_u8x4 (luma_of_word<BGR> (w.x), luma_of_word<BGR> (w.y),
                luma_of_word<BGR> (w.z), luma_of_word<BGR> (w.w));
      },
      [&] (int y, int i) {
        dst[(size_t)y * dst_pitch + i]
            = luma_of_word<BGR> (reinterpret_cast<const uint32_t *> (
                src + (size_t)y * src_pitch)[i]);
      });
}

// GRAY8 rows to RGBA8 or BGRA8 rows on 16 bytes, (g, g, g, 255) a pixel
// as the float path makes it: four pixels of G2R_ROWS rows a thread, one
// 4-byte load and one 16-byte store a row. On an H200, % of a frame copy
// at 1080p / 4K: 81-82 % / 88 % against 75 % / 85 % on the float path,
// 76-80 % / 87-89 % with one, two or eight rows or with the evict-first
// loads that rgba_to_gray4 () gained from
constexpr int G2R_ROWS = 4;

__global__ void __launch_bounds__ (256)
    gray_to_rgba4 (const uint8_t *__restrict__ src, size_t src_pitch,
        uint8_t *__restrict__ dst, size_t dst_pitch, int width, int height)
{
  rows_of_four<G2R_ROWS> (
      width, height,
      [&] (int y, int x) {
        return reinterpret_cast<const uint32_t *> (
            src + (size_t)y * src_pitch)[x / 4];
      },
      [&] (int y, int x, uint32_t g) {
        reinterpret_cast<uint4 *> (dst + (size_t)y * dst_pitch)[x / 4]
            = make_uint4 (__byte_perm (g, 0xffu, 0x4000),
                __byte_perm (g, 0xffu, 0x4111), __byte_perm (g, 0xffu, 0x4222),
                __byte_perm (g, 0xffu, 0x4333));
      },
      [&] (int y, int i) {
        reinterpret_cast<uint32_t *> (dst + (size_t)y * dst_pitch)[i]
            = __byte_perm (src[(size_t)y * src_pitch + i], 0xffu, 0x4000);
      });
}

// between byte formats on rows that start on 16 bytes, four pixels per
// thread: each of a warp's accesses side by side (16 bytes a thread on the
// RGBA8 side, 4 on the GRAY8 side)
template <int SF, int DF>
__global__ void __launch_bounds__ (256)
    packed_to_packed4 (const uint8_t *__restrict__ src, size_t src_pitch,
        uint8_t *__restrict__ dst, size_t dst_pitch, int width, int height)
{
  const int x = 4 * (blockIdx.x * 256 + threadIdx.x);

  if (x >= width)
    return;
  for (int y = blockIdx.y; y < height; y += gridDim.y)
    {
      const uint8_t *in = src + (size_t)y * src_pitch;
      uint8_t *out = dst + (size_t)y * dst_pitch;
      if (x + 4 <= width)
        {
          float px[4][4], v[4][4];
          load_px4<kind_for<SF>> (in, x, px);
#pragma unroll
          for (int i = 0; i < 4; i++)
            {
              to_rgba<SF> (px[i]);
              from_rgba<DF, is_bytes<SF>> (px[i], v[i]);
            }
          store_px4<kind_for<DF>> (out, x, v);
        }
      else
        {
          for (int i = x; i < width; i++)
            {
              float px[4];
              decode<SF, true> (in, i, px);
              encode<DF, true, is_bytes<SF>> (out, i, px);
            }
        }
    }
}

// RGBA8 <-> BGRA8 on rows that start on 16 bytes: four pixels per thread
__global__ void __launch_bounds__ (256)
    swap_rb16 (const uint8_t *__restrict__ src, size_t src_pitch,
        uint8_t *__restrict__ dst, size_t dst_pitch, int width, int height)
{
  const int q = blockIdx.x * 256 + threadIdx.x;

  if (4 * q >= width)
    return;
  for (int y = blockIdx.y; y < height; y += gridDim.y)
    {
      const uint8_t *in = src + (size_t)y * src_pitch;
      uint8_t *out = dst + (size_t)y * dst_pitch;
      if (4 * q + 4 <= width)
        {
          uint4 v = reinterpret_cast<const uint4 *> (in)[q];
          v.x = __byte_perm (v.x, 0, 0x3012);
          v.y = __byte_perm (v.y, 0, 0x3012);
          v.z = __byte_perm (v.z, 0, 0x3012);
          v.w = __byte_perm (v.w, 0, 0x3012);
          reinterpret_cast<uint4 *> (out)[q] = v;
        }
      else
        {
          for (int x = 4 * q; x < width; x++)
            {
              uint32_t v = reinterpret_cast<const uint32_t *> (in)[x];
              reinterpret_cast<uint32_t *> (out)[x]
                  = __byte_perm (v, 0, 0x3012);
            }
        }
    }
}

// between RGBA8 or BGRA8 and RGBAF32 on rows aligned for both: four pixels
// of a row a thread, 32 pixels apart, so that each of a warp's accesses
// lies side by side on both sides (128 bytes of bytes, 512 of floats), and
// every load before the first store; the frame is read once, evict-first.
// On an H200, % of a frame copy at 1080p / 4K, three rounds in each of
// three calls: RGBA8 to RGBAF32 149-152 % / 112-114 % against 140-142 % /
// 110-113 % a pixel a thread, RGBAF32 to RGBA8 140-143 % / 113-115 %
// against 125-127 % / 103-106 %; two or four rows a thread measured no
// faster, and warps along one row, plain loads or evict-first stores
// slower
template <int SF, int DF>
__global__ void
__launch_bounds__ (BLOCK_X *BLOCK_Y)
    widen_or_narrow4 (const uint8_t *__restrict__ src, size_t src_pitch,
        uint8_t *__restrict__ dst, size_t dst_pitch, int width, int height)
{
  const int x0 = blockIdx.x * 4 * BLOCK_X + threadIdx.x;
  const int y = blockIdx.y * BLOCK_Y + threadIdx.y;
  const uint8_t *in = src + (size_t)y * src_pitch;
  float px[4][4];

  // no early return for the rows below the frame: with one, the compiler
  // waited for each load before issuing the next (15.1 us against 13.6 at
  // 1080p, RGBA8 to RGBAF32)
#pragma unroll
  for (int k = 0; k < 4; k++)
    {
      const int x = x0 + BLOCK_X * k;
      if (x >= width || y >= height)
        continue;
      load_px<kind_for<SF>, true, true> (in, x, px[k]);
    }
#pragma unroll
  for (int k = 0; k < 4; k++)
    {
      const int x = x0 + BLOCK_X * k;
      float v[4];
      if (x >= width || y >= height)
        continue;
      to_rgba<SF> (px[k]);
      from_rgba<DF, is_bytes<SF>> (px[k], v);
      store_px<kind_for<DF>, true> (dst + (size_t)y * dst_pitch, x, v);
    }
}

struct Chroma
{
  uint8_t *u, *v;
  size_t pitch, step;
};

// one 2x2 block: four lumas (those inside the frame), one mean chroma
template <int SF, bool A>
__device__ __forceinline__ void
yuv_block (const uint8_t *__restrict__ src, size_t src_pitch,
    uint8_t *__restrict__ luma, size_t luma_pitch, const Chroma &ch, int width,
    int height, int bx, int by)
{
  float sum[3] = { 0.0f, 0.0f, 0.0f }, n = 0.0f;
#pragma unroll
  for (int j = 0; j < 2; j++)
    {
      const int y = 2 * by + j;
      if (y >= height)
        break;
#pragma unroll
      for (int i = 0; i < 2; i++)
        {
          const int x = 2 * bx + i;
          float px[4];
          if (x >= width)
            break;
          decode<SF, A> (src + (size_t)y * src_pitch, x, px);
          luma[(size_t)y * luma_pitch + x] = luma_byte<SF> (px);
#pragma unroll
          for (int c = 0; c < 3; c++)
            sum[c] = sum[c] + px[c];
          n = n + 1.0f;
        }
    }
  const float r = sum[0] / n, g = sum[1] / n, b = sum[2] / n;
  const size_t at = (size_t)by * ch.pitch + (size_t)bx * ch.step;
  ch.u[at] = accel_px_to_u8 (accel_px_u (r, g, b));
  ch.v[at] = accel_px_to_u8 (accel_px_v (r, g, b));
}

// one 2x2 block per thread
template <int SF, bool A>
__global__ void
__launch_bounds__ (BLOCK_X *BLOCK_Y)
    packed_to_yuv (const uint8_t *__restrict__ src, size_t src_pitch,
        uint8_t *__restrict__ luma, size_t luma_pitch, Chroma ch, int width,
        int height)
{
  const int bx = blockIdx.x * BLOCK_X + threadIdx.x;

  if (2 * bx >= width)
    return;
  for (int by = blockIdx.y * BLOCK_Y + threadIdx.y; 2 * by < height;
       by += gridDim.y * BLOCK_Y)
    yuv_block<SF, A> (
        src, src_pitch, luma, luma_pitch, ch, width, height, bx, by);
}

// the 2x2 blocks side by side a thread of packed_to_yuv_n () makes. Measured
// on an H200: four (8-byte luma stores) made NV12 4 % faster at 4K than
// two; I420 took two until its loads were evict-first, then four was 4 %
// faster than two
constexpr int YUV_BLOCKS = 4;

// RGBA8 or BGRA8 rows on 16 bytes, luma rows and chroma planes on 8 bytes:
// YUV_BLOCKS blocks side by side per thread (8 x 2 pixels), 16-byte loads,
// 8-byte luma and NV12 chroma stores, 4-byte I420 chroma stores
template <int SF, bool NV12>
__global__ void __launch_bounds__ (256)
    packed_to_yuv_n (const uint8_t *__restrict__ src, size_t src_pitch,
        uint8_t *__restrict__ luma, size_t luma_pitch, Chroma ch, int width,
        int height)
{
  constexpr int B = YUV_BLOCKS, W = 2 * B; // pixels of a row per thread
  static_assert (B == 4, "the luma and chroma stores pack four blocks");
  const int g = blockIdx.x * 256 + threadIdx.x;

  if (W * g >= width)
    return;
  for (int by = blockIdx.y; 2 * by < height; by += gridDim.y)
    {
      if (W * g + W > width || 2 * by + 2 > height)
        {
          for (int bx = B * g; 2 * bx < width && bx < B * g + B; bx++)
            yuv_block<SF, true> (
                src, src_pitch, luma, luma_pitch, ch, width, height, bx, by);
          continue;
        }
      constexpr bool BGR = SF == ACCEL_IMAGE_BGRA8;
      // each block's channel sums, 0 and 2 in the halves of .x, 1 and 3 in
      // those of .y: whole numbers, which the reference's floats sum
      // exactly in its order too
      uint2 sum[B];
#pragma unroll
      for (int j = 0; j < 2; j++)
        {
          const uint4 *row = reinterpret_cast<const uint4 *> (
              src + (size_t)(2 * by + j) * src_pitch);
          uint32_t w[W], yw[W / 4];
#pragma unroll
          for (int q = 0; q < W / 4; q++)
            {
              // read once: evict-first (see rgba_to_gray4 ())
              const uint4 p = __ldcs (row + W / 4 * g + q);
              w[4 * q] = p.x;
              w[4 * q + 1] = p.y;
              w[4 * q + 2] = p.z;
              w[4 * q + 3] = p.w;
            }
#pragma unroll
          for (int q = 0; q < W / 4; q++)
            yw[q] = pack_u8x4 (luma_of_word<BGR> (w[4 * q]),
                luma_of_word<BGR> (w[4 * q + 1]),
                luma_of_word<BGR> (w[4 * q + 2]),
                luma_of_word<BGR> (w[4 * q + 3]));
          *reinterpret_cast<uint2 *> (
              luma + (size_t)(2 * by + j) * luma_pitch + (size_t)W * g)
              = make_uint2 (yw[0], yw[1]);
#pragma unroll
          for (int b = 0; b < B; b++)
            {
              const uint2 p0 = split_channels (w[2 * b]);
              const uint2 p1 = split_channels (w[2 * b + 1]);
              sum[b].x = (j == 0 ? 0u : sum[b].x) + p0.x + p1.x;
              sum[b].y = (j == 0 ? 0u : sum[b].y) + p0.y + p1.y;
            }
        }
      uint32_t u[B], v[B];
#pragma unroll
      for (int b = 0; b < B; b++)
        {
          // the block's mean R, G, B: its sums / 4, exact
          const float r = quarter_of_half (sum[b].x, BGR ? 1 : 0),
                      gg = quarter_of_half (sum[b].y, 0),
                      bb = quarter_of_half (sum[b].x, BGR ? 0 : 1);
          u[b] = accel_px_to_u8 (accel_px_u (r, gg, bb));
          v[b] = accel_px_to_u8 (accel_px_v (r, gg, bb));
        }
      uint8_t *crow = ch.u + (size_t)by * ch.pitch;
      if constexpr (NV12)
        {
          *reinterpret_cast<uint2 *> (crow + (size_t)W * g)
              = make_uint2 (pack_u8x4 (u[0], v[0], u[1], v[1]),
                  pack_u8x4 (u[2], v[2], u[3], v[3]));
        }
      else
        {
          *reinterpret_cast<uint32_t *> (crow + (size_t)B * g)
              = pack_u8x4 (u[0], u[1], u[2], u[3]);
          *reinterpret_cast<uint32_t *> (
              ch.v + (size_t)by * ch.pitch + (size_t)B * g)
              = pack_u8x4 (v[0], v[1], v[2], v[3]);
        }
    }
}

template <int DF, bool A>
__global__ void
__launch_bounds__ (BLOCK_X *BLOCK_Y)
    yuv_to_packed (const uint8_t *__restrict__ luma, size_t luma_pitch,
        const Chroma ch, uint8_t *__restrict__ dst, size_t dst_pitch, int width,
        int height, const AccelPxYuv m)
{
  const int bx = blockIdx.x * BLOCK_X + threadIdx.x;

  if (2 * bx >= width)
    return;
  for (int by = blockIdx.y * BLOCK_Y + threadIdx.y; 2 * by < height;
       by += gridDim.y * BLOCK_Y)
    {
      const size_t at = (size_t)by * ch.pitch + (size_t)bx * ch.step;
      const float u = u8_to_f (ch.u[at]), v = u8_to_f (ch.v[at]);
#pragma unroll
      for (int j = 0; j < 2; j++)
        {
          const int y = 2 * by + j;
          if (y >= height)
            break;
#pragma unroll
          for (int i = 0; i < 2; i++)
            {
              const int x = 2 * bx + i;
              float px[4];
              if (x >= width)
                break;
              accel_px_yuv_to_rgb (&m,
                  u8_to_f (luma[(size_t)y * luma_pitch + x]), u, v, &px[0],
                  &px[1], &px[2]);
#pragma unroll
              for (int c = 0; c < 3; c++)
                px[c] = accel_px_clamp_255 (px[c]);
              px[3] = 255.0f;
              encode<DF, A> (dst + (size_t)y * dst_pitch, x, px);
            }
        }
    }
}

// the row pairs of a yuv4_to_packed () block, a warp each. Blocks of 256
// threads across the rows left 32 of each 1080p row's 512 threads idle and
// made its grid 1.02 waves; warps of 128 pixels fill the row, four to a
// block 0.96 waves. On an H200, % of a frame copy at 1080p / 4K: 85-88 % /
// 87-89 % against 82-84 % / 89-90 % (blocks of eight warps 84-87 % / 87-88
// %)
constexpr int YUV4_ROW_PAIRS = 4;

// blocks of yuv4_to_packed () an SM holds, so 32 registers a thread: at
// limited range ptxas took 40, 12 blocks an SM, and 1080p's grid went from
// 0.96 of a wave to 1.28 (77-78 % of a frame copy against 86-88 % on an
// H200)
constexpr int YUV4_BLOCKS_PER_SM = 16;

// how yuv4_rows () decodes: BT.601 at full range in constants the
// compiler folds (with the coefficients as parameters ptxas spilled 4
// bytes, and the decoders at 1080p measured 82 % of a frame copy against
// 86-88 % on an H200), another matrix at full range, or at limited range
// with each block's chroma terms shared by its four pixels
enum
{
  YUV_JFIF,
  YUV_FULL,
  YUV_LIMITED,
};

template <int MODE>
__device__ __forceinline__ AccelPxYuv
decoding (const AccelPxYuv &m)
{
  AccelPxYuv d
      = MODE == YUV_JFIF ? accel_px_yuv_matrix (ACCEL_YUV_BT601, 1) : m;

  /* the range known when compiled: no branch a pixel */
  d.full_range = MODE != YUV_LIMITED;
  return d;
}

// 4:2:0 to RGBA8 or BGRA8 rows on 16 bytes, luma rows and chroma planes
// on 4 bytes: 4 x 2 pixels per thread, so that each of a warp's luma and
// chroma loads and 16-byte stores lie side by side. Both luma rows are
// loaded before either is converted: left to the compiler, a build that
// changed only how the thread's index was computed loaded the second after
// converting the first, and measured 71 % of a frame copy at 1080p
// against 82 % (H200)
template <int DF, bool NV12, int MODE>
__device__ __forceinline__ void
yuv4_rows (const uint8_t *__restrict__ luma, size_t luma_pitch,
    const Chroma &ch, uint8_t *__restrict__ dst, size_t dst_pitch, int width,
    int height, const AccelPxYuv &m)
{
  static_assert (DF == ACCEL_IMAGE_RGBA8 || DF == ACCEL_IMAGE_BGRA8,
      "four bytes a pixel out");
  const AccelPxYuv d = decoding<MODE> (m);
  const int g = blockIdx.x * 32 + threadIdx.x;

  if (4 * g >= width)
    return;
  for (int by = blockIdx.y * YUV4_ROW_PAIRS + threadIdx.y; 2 * by < height;
       by += gridDim.y * YUV4_ROW_PAIRS)
    {
      if (4 * g + 4 > width || 2 * by + 2 > height)
        {
          // the frame's edge: pixel by pixel, as the reference
          for (int y = 2 * by; y < min (2 * by + 2, height); y++)
            for (int x = 4 * g; x < min (4 * g + 4, width); x++)
              {
                const size_t at
                    = (size_t)by * ch.pitch + (size_t)(x / 2) * ch.step;
                float px[4];
                accel_px_yuv_to_rgb (&d,
                    u8_to_f (luma[(size_t)y * luma_pitch + x]),
                    u8_to_f (ch.u[at]), u8_to_f (ch.v[at]), &px[0], &px[1],
                    &px[2]);
#pragma unroll
                for (int c = 0; c < 3; c++)
                  px[c] = accel_px_clamp_255 (px[c]);
                px[3] = 255.0f;
                encode<DF, true> (dst + (size_t)y * dst_pitch, x, px);
              }
          continue;
        }
      uint32_t lw[2];
#pragma unroll
      for (int j = 0; j < 2; j++)
        lw[j] = reinterpret_cast<const uint32_t *> (
            luma + (size_t)(2 * by + j) * luma_pitch)[g];
      // the two blocks' chroma: U V U V (NV12), or two U and two V bytes
      uint32_t wu, wv;
      const uint8_t *crow = ch.u + (size_t)by * ch.pitch;
      if constexpr (NV12)
        {
          wu = reinterpret_cast<const uint32_t *> (crow)[g];
          wv = wu >> 8;
        }
      else
        {
          const uint8_t *vrow = ch.v + (size_t)by * ch.pitch;
          wu = reinterpret_cast<const uint16_t *> (crow)[g];
          wv = reinterpret_cast<const uint16_t *> (vrow)[g];
        }
      const int step = NV12 ? 2 : 1;
      const float u[2] = { byte_to_f (wu, 0), byte_to_f (wu, step) };
      const float v[2] = { byte_to_f (wv, 0), byte_to_f (wv, step) };
      float c[2][3];
      if constexpr (MODE == YUV_LIMITED)
        for (int k = 0; k < 2; k++)
          accel_px_yuv_chroma_limited (&d, u[k], v[k], c[k]);
#pragma unroll
      for (int j = 0; j < 2; j++)
        {
          const int y = 2 * by + j;
          uint32_t out[4];
#pragma unroll
          for (int i = 0; i < 4; i++)
            {
              float r, gg, b;
              if constexpr (MODE == YUV_LIMITED)
                accel_px_yuv_luma_limited (
                    &d, byte_to_f (lw[j], i), c[i / 2], &r, &gg, &b);
              else
                accel_px_yuv_to_rgb (
                    &d, byte_to_f (lw[j], i), u[i / 2], v[i / 2], &r, &gg, &b);
              // one conversion a byte clamps as accel_px_clamp_255 () and
              // accel_px_to_u8 () do between them (NaN to 0 included)
              const uint32_t rb = to_u8_converted (r),
                             gb = to_u8_converted (gg),
                             bb = to_u8_converted (b);
              out[i] = DF == ACCEL_IMAGE_BGRA8 ? pack_u8x4 (bb, gb, rb, 255)
                                               : pack_u8x4 (rb, gb, bb, 255);
            }
          reinterpret_cast<uint4 *> (dst + (size_t)y * dst_pitch)[g]
              = make_uint4 (out[0], out[1], out[2], out[3]);
        }
    }
}

// BT.601 at full range, and another decoding held to YUV4_BLOCKS_PER_SM
// blocks an SM; that bound on this one measured 75-76 % of a frame copy at
// 1080p against 86-88 %, its registers 32 either way
template <int DF, bool NV12>
__global__ void __launch_bounds__ (32 * YUV4_ROW_PAIRS)
    yuv4_to_packed (const uint8_t *__restrict__ luma, size_t luma_pitch,
        const Chroma ch, uint8_t *__restrict__ dst, size_t dst_pitch, int width,
        int height, const AccelPxYuv m)
{
  yuv4_rows<DF, NV12, YUV_JFIF> (
      luma, luma_pitch, ch, dst, dst_pitch, width, height, m);
}

template <int DF, bool NV12, int MODE>
__global__ void __launch_bounds__ (32 * YUV4_ROW_PAIRS, YUV4_BLOCKS_PER_SM)
    yuv4_to_packed_matrix (const uint8_t *__restrict__ luma, size_t luma_pitch,
        const Chroma ch, uint8_t *__restrict__ dst, size_t dst_pitch, int width,
        int height, const AccelPxYuv m)
{
  yuv4_rows<DF, NV12, MODE> (
      luma, luma_pitch, ch, dst, dst_pitch, width, height, m);
}

// whether a 4:2:0 frame's luma rows and chroma planes start on @n bytes
static bool
yuv_aligned (int format, const void *data, size_t pitch, int height, size_t n)
{
  size_t uo, vo, cp, step;

  accel_image_chroma_layout (format, pitch, height, &uo, &vo, &cp, &step);
  return (uintptr_t)data % n == 0 && pitch % n == 0 && uo % n == 0
         && cp % n == 0 && (format == ACCEL_IMAGE_NV12 || vo % n == 0);
}

__global__ void
__launch_bounds__ (BLOCK_X *BLOCK_Y)
    chroma_copy (const Chroma from, Chroma to, int cw, int chh)
{
  const int i = blockIdx.x * BLOCK_X + threadIdx.x;

  if (i >= cw)
    return;
  for (int j = blockIdx.y * BLOCK_Y + threadIdx.y; j < chh;
       j += gridDim.y * BLOCK_Y)
    {
      to.u[(size_t)j * to.pitch + (size_t)i * to.step]
          = from.u[(size_t)j * from.pitch + (size_t)i * from.step];
      to.v[(size_t)j * to.pitch + (size_t)i * to.step]
          = from.v[(size_t)j * from.pitch + (size_t)i * from.step];
    }
}

Chroma
chroma_of (int format, const void *data, size_t pitch, int height)
{
  size_t uo, vo;
  Chroma c;

  accel_image_chroma_layout (
      format, pitch, height, &uo, &vo, &c.pitch, &c.step);
  c.u = (uint8_t *)data + uo;
  c.v = (uint8_t *)data + vo;
  return c;
}

dim3
grid_for (int nx, int ny)
{
  return dim3 (
      (nx + BLOCK_X - 1) / BLOCK_X, grid_rows ((ny + BLOCK_Y - 1) / BLOCK_Y));
}

// the grid of a kernel with a thread for each @n pixels of a row in blocks
// of 256, and @rows rows of threads
dim3
grid_of_n (int n, int width, int rows)
{
  return dim3 ((((width + n - 1) / n) + 255) / 256, grid_rows (rows));
}

template <int SF, int DF>
int
launch_packed (cudaStream_t s, const void *src, size_t sp, void *dst, size_t dp,
    int width, int height)
{
  bool a = aligned_for (kind_for<SF>, src, sp)
           && aligned_for (kind_for<DF>, dst, dp);
  dim3 grid = grid_for (width, height), block (BLOCK_X, BLOCK_Y);

  if ((SF == ACCEL_IMAGE_RGBA8 && DF == ACCEL_IMAGE_BGRA8)
      || (SF == ACCEL_IMAGE_BGRA8 && DF == ACCEL_IMAGE_RGBA8))
    {
      if (aligned16 (src, sp) && aligned16 (dst, dp))
        {
          swap_rb16<<<grid_of_n (4, width, height), 256, 0, s>>> (
              (const uint8_t *)src, sp, (uint8_t *)dst, dp, width, height);
          return cudaGetLastError ();
        }
    }
  if ((SF == ACCEL_IMAGE_RGBA8 || SF == ACCEL_IMAGE_BGRA8)
      && DF == ACCEL_IMAGE_GRAY8 && aligned16 (src, sp) && dp % 4 == 0
      && (uintptr_t)dst % 4 == 0)
    {
      rgba_to_gray4<SF == ACCEL_IMAGE_BGRA8>
          <<<grid_of_n (4, width, (height + GRAY_ROWS - 1) / GRAY_ROWS), 256, 0,
              s>>> (
              (const uint8_t *)src, sp, (uint8_t *)dst, dp, width, height);
      return cudaGetLastError ();
    }
  if (SF == ACCEL_IMAGE_GRAY8
      && (DF == ACCEL_IMAGE_RGBA8 || DF == ACCEL_IMAGE_BGRA8)
      && aligned16 (dst, dp) && sp % 4 == 0 && (uintptr_t)src % 4 == 0)
    {
      gray_to_rgba4<<<grid_of_n (4, width, (height + G2R_ROWS - 1) / G2R_ROWS),
          256, 0, s>>> (
          (const uint8_t *)src, sp, (uint8_t *)dst, dp, width, height);
      return cudaGetLastError ();
    }
  if (aligned16 (src, sp) && aligned16 (dst, dp) && SF != ACCEL_IMAGE_RGBAF32
      && DF != ACCEL_IMAGE_RGBAF32)
    {
      packed_to_packed4<SF, DF><<<grid_of_n (4, width, height), 256, 0, s>>> (
          (const uint8_t *)src, sp, (uint8_t *)dst, dp, width, height);
      return cudaGetLastError ();
    }
  if constexpr ((SF == ACCEL_IMAGE_RGBAF32) != (DF == ACCEL_IMAGE_RGBAF32)
                && SF != ACCEL_IMAGE_GRAY8 && DF != ACCEL_IMAGE_GRAY8)
    if (a && (height + BLOCK_Y - 1) / BLOCK_Y <= 65535)
      {
        widen_or_narrow4<SF, DF>
            <<<dim3 ((width + 4 * BLOCK_X - 1) / (4 * BLOCK_X),
                   (height + BLOCK_Y - 1) / BLOCK_Y),
                block, 0, s>>> (
                (const uint8_t *)src, sp, (uint8_t *)dst, dp, width, height);
        return cudaGetLastError ();
      }
  if (a)
    packed_to_packed<SF, DF, true><<<grid, block, 0, s>>> (
        (const uint8_t *)src, sp, (uint8_t *)dst, dp, width, height);
  else
    packed_to_packed<SF, DF, false><<<grid, block, 0, s>>> (
        (const uint8_t *)src, sp, (uint8_t *)dst, dp, width, height);
  return cudaGetLastError ();
}

template <int SF>
int
launch_to_yuv_n (cudaStream_t s, const void *src, size_t sp, int df, void *dst,
    size_t dp, const Chroma &ch, int width, int height)
{
  const dim3 grid = grid_of_n (2 * YUV_BLOCKS, width, (height + 1) / 2);

  if (df == ACCEL_IMAGE_NV12)
    packed_to_yuv_n<SF, true><<<grid, 256, 0, s>>> (
        (const uint8_t *)src, sp, (uint8_t *)dst, dp, ch, width, height);
  else
    packed_to_yuv_n<SF, false><<<grid, 256, 0, s>>> (
        (const uint8_t *)src, sp, (uint8_t *)dst, dp, ch, width, height);
  return cudaGetLastError ();
}

template <int SF>
int
launch_to_yuv (cudaStream_t s, const void *src, size_t sp, int df, void *dst,
    size_t dp, int width, int height)
{
  bool a = aligned_for (kind_for<SF>, src, sp);
  dim3 grid = grid_for ((width + 1) / 2, (height + 1) / 2);
  dim3 block (BLOCK_X, BLOCK_Y);
  Chroma ch = chroma_of (df, dst, dp, height);

  if (SF != ACCEL_IMAGE_GRAY8 && SF != ACCEL_IMAGE_RGBAF32
      && aligned16 (src, sp))
    {
      if ((df == ACCEL_IMAGE_NV12 || df == ACCEL_IMAGE_I420)
          && yuv_aligned (df, dst, dp, height, 8))
        return launch_to_yuv_n<SF> (s, src, sp, df, dst, dp, ch, width, height);
    }
  if (a)
    packed_to_yuv<SF, true><<<grid, block, 0, s>>> (
        (const uint8_t *)src, sp, (uint8_t *)dst, dp, ch, width, height);
  else
    packed_to_yuv<SF, false><<<grid, block, 0, s>>> (
        (const uint8_t *)src, sp, (uint8_t *)dst, dp, ch, width, height);
  return cudaGetLastError ();
}

template <int DF>
int
launch_yuv4 (cudaStream_t s, int sf, const void *src, size_t sp,
    const Chroma &ch, void *dst, size_t dp, int width, int height,
    const AccelPxYuv &m)
{
  const dim3 block (32, YUV4_ROW_PAIRS);
  const dim3 grid ((width + 127) / 128,
      grid_rows (((height + 1) / 2 + YUV4_ROW_PAIRS - 1) / YUV4_ROW_PAIRS));

  const AccelPxYuv jfif = accel_px_yuv_matrix (ACCEL_YUV_BT601, 1);
  const int mode = !memcmp (&m, &jfif, sizeof (m)) ? YUV_JFIF
                   : m.full_range                  ? YUV_FULL
                                                   : YUV_LIMITED;

  switch (mode + 3 * (sf == ACCEL_IMAGE_NV12))
    {
    case YUV_JFIF:
      yuv4_to_packed<DF, false><<<grid, block, 0, s>>> (
          (const uint8_t *)src, sp, ch, (uint8_t *)dst, dp, width, height, m);
      break;
    case YUV_FULL:
      yuv4_to_packed_matrix<DF, false, YUV_FULL><<<grid, block, 0, s>>> (
          (const uint8_t *)src, sp, ch, (uint8_t *)dst, dp, width, height, m);
      break;
    case YUV_LIMITED:
      yuv4_to_packed_matrix<DF, false, YUV_LIMITED><<<grid, block, 0, s>>> (
          (const uint8_t *)src, sp, ch, (uint8_t *)dst, dp, width, height, m);
      break;
    case 3 + YUV_JFIF:
      yuv4_to_packed<DF, true><<<grid, block, 0, s>>> (
          (const uint8_t *)src, sp, ch, (uint8_t *)dst, dp, width, height, m);
      break;
    case 3 + YUV_FULL:
      yuv4_to_packed_matrix<DF, true, YUV_FULL><<<grid, block, 0, s>>> (
          (const uint8_t *)src, sp, ch, (uint8_t *)dst, dp, width, height, m);
      break;
    default:
      yuv4_to_packed_matrix<DF, true, YUV_LIMITED><<<grid, block, 0, s>>> (
          (const uint8_t *)src, sp, ch, (uint8_t *)dst, dp, width, height, m);
      break;
    }
  return cudaGetLastError ();
}

template <int DF>
int
launch_from_yuv (cudaStream_t s, int sf, const void *src, size_t sp, void *dst,
    size_t dp, int width, int height, const AccelPxYuv &m)
{
  bool a = aligned_for (kind_for<DF>, dst, dp);
  dim3 grid = grid_for ((width + 1) / 2, (height + 1) / 2);
  dim3 block (BLOCK_X, BLOCK_Y);
  Chroma ch = chroma_of (sf, src, sp, height);

  if constexpr (DF != ACCEL_IMAGE_RGBAF32)
    if (aligned16 (dst, dp) && yuv_aligned (sf, src, sp, height, 4))
      return launch_yuv4<DF> (s, sf, src, sp, ch, dst, dp, width, height, m);
  if (a)
    yuv_to_packed<DF, true><<<grid, block, 0, s>>> (
        (const uint8_t *)src, sp, ch, (uint8_t *)dst, dp, width, height, m);
  else
    yuv_to_packed<DF, false><<<grid, block, 0, s>>> (
        (const uint8_t *)src, sp, ch, (uint8_t *)dst, dp, width, height, m);
  return cudaGetLastError ();
}

// GRAY8 from a limited range luma plane: each byte taken to 0..255, as
// the host's luma_to_full ()
__global__ void
__launch_bounds__ (BLOCK_X *BLOCK_Y) luma_to_full (
    const uint8_t *__restrict__ src, size_t sp, uint8_t *__restrict__ dst,
    size_t dp, int width, int height, const AccelPxYuv m)
{
  const int x = blockIdx.x * BLOCK_X + threadIdx.x;

  if (x >= width)
    return;
  for (int y = blockIdx.y * BLOCK_Y + threadIdx.y; y < height;
       y += gridDim.y * BLOCK_Y)
    dst[(size_t)y * dp + x] = accel_px_to_u8 (accel_px_clamp_255 (
        accel_px_luma_full (&m, u8_to_f (src[(size_t)y * sp + x]))));
}

int
copy_plane (cudaStream_t s, void *dst, size_t dp, const void *src, size_t sp,
    size_t row_bytes, int rows)
{
  return cudaMemcpy2DAsync (
      dst, dp, src, sp, row_bytes, (size_t)rows, cudaMemcpyDeviceToDevice, s);
}

int
yuv_to_yuv (cudaStream_t s, int sf, const void *src, size_t sp, int df,
    void *dst, size_t dp, int width, int height)
{
  int err = copy_plane (s, dst, dp, src, sp, (size_t)width, height);

  if (err != cudaSuccess)
    return err;
  chroma_copy<<<grid_for ((width + 1) / 2, (height + 1) / 2),
      dim3 (BLOCK_X, BLOCK_Y), 0, s>>> (chroma_of (sf, src, sp, height),
      chroma_of (df, dst, dp, height), (width + 1) / 2, (height + 1) / 2);
  return cudaGetLastError ();
}

template <int SF>
int
from_packed (cudaStream_t s, const void *src, size_t sp, int df, void *dst,
    size_t dp, int width, int height)
{
  switch (df)
    {
    case ACCEL_IMAGE_RGBA8:
      return launch_packed<SF, ACCEL_IMAGE_RGBA8> (
          s, src, sp, dst, dp, width, height);
    case ACCEL_IMAGE_BGRA8:
      return launch_packed<SF, ACCEL_IMAGE_BGRA8> (
          s, src, sp, dst, dp, width, height);
    case ACCEL_IMAGE_GRAY8:
      return launch_packed<SF, ACCEL_IMAGE_GRAY8> (
          s, src, sp, dst, dp, width, height);
    case ACCEL_IMAGE_RGBAF32:
      return launch_packed<SF, ACCEL_IMAGE_RGBAF32> (
          s, src, sp, dst, dp, width, height);
    default:
      return launch_to_yuv<SF> (s, src, sp, df, dst, dp, width, height);
    }
}

} // namespace

extern "C" int
accel_convert (void *stream, int src_format, const void *src, size_t src_pitch,
    int dst_format, void *dst, size_t dst_pitch, int width, int height)
{
  return accel_convert_yuv (stream, ACCEL_YUV_BT601, 1, src_format, src,
      src_pitch, dst_format, dst, dst_pitch, width, height);
}

extern "C" int
accel_convert_yuv (void *stream, int matrix, int full_range, int src_format,
    const void *src, size_t src_pitch, int dst_format, void *dst,
    size_t dst_pitch, int width, int height)
{
  cudaStream_t s = (cudaStream_t)stream;
  bool src_yuv = !accel_image_format_is_packed (src_format);
  bool dst_yuv = !accel_image_format_is_packed (dst_format);
  const AccelPxYuv m = accel_px_yuv_matrix (matrix, full_range);

  if (!accel_image_args_valid (src_format, src, src_pitch, width, height)
      || !accel_image_args_valid (dst_format, dst, dst_pitch, width, height)
      || matrix < ACCEL_YUV_BT601 || matrix > ACCEL_YUV_BT2020)
    return cudaErrorInvalidValue;

  if (src_yuv && dst_yuv)
    return yuv_to_yuv (s, src_format, src, src_pitch, dst_format, dst,
        dst_pitch, width, height);
  if (src_format == dst_format)
    return copy_plane (s, dst, dst_pitch, src, src_pitch,
        (size_t)width * accel_image_bytes_per_pixel (src_format), height);
  if (src_yuv)
    {
      switch (dst_format)
        {
        case ACCEL_IMAGE_GRAY8:
          if (full_range)
            return copy_plane (
                s, dst, dst_pitch, src, src_pitch, (size_t)width, height);
          luma_to_full<<<grid_for (width, height), dim3 (BLOCK_X, BLOCK_Y), 0,
              s>>> ((const uint8_t *)src, src_pitch, (uint8_t *)dst, dst_pitch,
              width, height, m);
          return cudaGetLastError ();
        case ACCEL_IMAGE_RGBA8:
          return launch_from_yuv<ACCEL_IMAGE_RGBA8> (
              s, src_format, src, src_pitch, dst, dst_pitch, width, height, m);
        case ACCEL_IMAGE_BGRA8:
          return launch_from_yuv<ACCEL_IMAGE_BGRA8> (
              s, src_format, src, src_pitch, dst, dst_pitch, width, height, m);
        default:
          return launch_from_yuv<ACCEL_IMAGE_RGBAF32> (
              s, src_format, src, src_pitch, dst, dst_pitch, width, height, m);
        }
    }
  switch (src_format)
    {
    case ACCEL_IMAGE_RGBA8:
      return from_packed<ACCEL_IMAGE_RGBA8> (
          s, src, src_pitch, dst_format, dst, dst_pitch, width, height);
    case ACCEL_IMAGE_BGRA8:
      return from_packed<ACCEL_IMAGE_BGRA8> (
          s, src, src_pitch, dst_format, dst, dst_pitch, width, height);
    case ACCEL_IMAGE_GRAY8:
      return from_packed<ACCEL_IMAGE_GRAY8> (
          s, src, src_pitch, dst_format, dst, dst_pitch, width, height);
    default:
      return from_packed<ACCEL_IMAGE_RGBAF32> (
          s, src, src_pitch, dst_format, dst, dst_pitch, width, height);
    }
}
