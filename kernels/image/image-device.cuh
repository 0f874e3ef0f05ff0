/* SPDX-License-Identifier: LGPL-2.1-or-later */
// device side helpers of the image kernels: how a kernel reads and writes
// the pixels of a packed format at any alignment (included by .cu files only)
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

#include <type_traits>

#include "image.h"
#include "pixel.h"

namespace accel_image
{

// what a kernel sees of a packed format: RGBA8 and BGRA8 are the same to a
// filter that treats channels alike
enum Kind
{
  KIND_U8X1,
  KIND_U8X4,
  KIND_F32X4,
};

template <int K> struct Traits;
template <> struct Traits<KIND_U8X1>
{
  static constexpr int C = 1;
  static constexpr int BPP = 1;
};
template <> struct Traits<KIND_U8X4>
{
  static constexpr int C = 4;
  static constexpr int BPP = 4;
};
template <> struct Traits<KIND_F32X4>
{
  static constexpr int C = 4;
  static constexpr int BPP = 16;
};

static inline int
kind_of (int format)
{
  switch (format)
    {
    case ACCEL_IMAGE_GRAY8:
      return KIND_U8X1;
    case ACCEL_IMAGE_RGBAF32:
      return KIND_F32X4;
    default:
      return KIND_U8X4;
    }
}

// whether pixels of @kind at @data with rows @pitch apart can be read with
// the kind's native vector type (uchar4, float4)
static inline bool
aligned_for (int kind, const void *data, size_t pitch)
{
  size_t a = kind == KIND_F32X4 ? 16 : (kind == KIND_U8X4 ? 4 : 1);

  return ((uintptr_t)data % a) == 0 && pitch % a == 0;
}

// whether every row at @data, @pitch apart, starts on 16 bytes
static inline bool
aligned16 (const void *data, size_t pitch)
{
  return ((uintptr_t)data % 16) == 0 && pitch % 16 == 0;
}

// a kernel template's radius from a run-time one: @f (an
// std::integral_constant<int, R>) for @r from LO to HI, else for FALLBACK
template <int LO, int HI, int FALLBACK, typename F>
static inline int
with_radius (int r, F &&f)
{
  if constexpr (LO <= HI)
    {
      if (r == LO)
        return f (std::integral_constant<int, LO> ());
      return with_radius<LO + 1, HI, FALLBACK> (r, f);
    }
  else
    {
      return f (std::integral_constant<int, FALLBACK> ());
    }
}

// a byte as a float without the slow integer to float unit: 2^23 + b has
// b in its low mantissa bits
__device__ __forceinline__ float
u8_to_f (uint32_t b)
{
  return __uint_as_float (0x4b000000u | b) - 8388608.0f;
}

// byte @i of @w as a float
__device__ __forceinline__ float
byte_to_f (uint32_t w, int i)
{
  return __uint_as_float (__byte_perm (w, 0x4b000000u, 0x7440u | i))
         - 8388608.0f;
}

// byte @i of @w plus one half, as a float: 2^23 - 0.5 is a float, so the
// one subtraction is exact
__device__ __forceinline__ float
byte_to_f_half_up (uint32_t w, int i)
{
  return __uint_as_float (__byte_perm (w, 0x4b000000u, 0x7440u | i))
         - 8388607.5f;
}

// channels 0 and 2 of RGBA8 word @w in the 16-bit halves of one word, 1
// and 3 in another: to sum two channels in one integer add
__device__ __forceinline__ uint2
split_channels (uint32_t w)
{
  return make_uint2 (__byte_perm (w, 0, 0x4240), __byte_perm (w, 0, 0x4341));
}

// half @h (0 low, 1 high) of @w, a whole number, as a float divided by 4:
// 2^23 + the half is its float, times 1/4 less 2^21 exact in one multiply-add
__device__ __forceinline__ float
quarter_of_half (uint32_t w, int h)
{
  const float f
      = __uint_as_float (__byte_perm (w, 0x4b000000u, h ? 0x7632 : 0x7610));

  return fmaf (f, 0.25f, -2097152.0f);
}

// accel_px_luma_u8 () of the R, G, B bytes of an RGBA8 word @w (of a BGRA8
// one with BGR), in integers: the same whole sum 299 r + 587 g + 114 b +
// 500 from two byte dot products (the weights' high bytes, then their low
// bytes on top of the first sum times 256), and its division by 1000 one
// multiply-high (M = ceil (2^32 / 1000): exact for every sum below 2^20).
// 4 instructions a pixel against 12 in floats
template <bool BGR>
__device__ __forceinline__ uint32_t
luma_of_word (uint32_t w)
{
  // 299 = 0x12b, 587 = 0x24b, 114 = 0x72 in the bytes of R, G, B
  constexpr uint32_t HI = BGR ? 0x010200u : 0x000201u;
  constexpr uint32_t LO = BGR ? 0x2b4b72u : 0x724b2bu;

  return __umulhi (__dp4a (w, LO, __dp4a (w, HI, 0u) * 256u + 500u), 4294968u);
}

__device__ __forceinline__ float
load_f32_bytes (const uint8_t *p)
{
  uint32_t v = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16)
               | ((uint32_t)p[3] << 24);
  return __uint_as_float (v);
}

__device__ __forceinline__ void
store_f32_bytes (uint8_t *p, float f)
{
  uint32_t v = __float_as_uint (f);
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

// pixel @x of @row as C floats; A: the row suits the native vector type;
// ONCE: the frame is read once, so an aligned load is evict-first
// (ld.global.cs). Each form addresses the pixel as the kernels that take
// it were measured with
template <int K, bool A, bool ONCE = false>
__device__ __forceinline__ void
load_px (const uint8_t *__restrict__ row, int x, float *v)
{
  if constexpr (K == KIND_U8X1)
    {
      v[0] = u8_to_f (row[x]);
    }
  else if constexpr (K == KIND_U8X4)
    {
      if constexpr (A)
        {
          const uint32_t w
              = ONCE
                    ? __ldcs (reinterpret_cast<const unsigned int *> (row) + x)
                    : *reinterpret_cast<const uint32_t *> (row + 4 * (size_t)x);
#pragma unroll
          for (int c = 0; c < 4; c++)
            v[c] = byte_to_f (w, c);
        }
      else
        {
          const uint8_t *p = row + 4 * (size_t)x;
#pragma unroll
          for (int c = 0; c < 4; c++)
            v[c] = u8_to_f (p[c]);
        }
    }
  else
    {
      if constexpr (A)
        {
          const float4 p
              = ONCE ? __ldcs (reinterpret_cast<const float4 *> (row) + x)
                     : *reinterpret_cast<const float4 *> (row + 16 * (size_t)x);
          v[0] = p.x;
          v[1] = p.y;
          v[2] = p.z;
          v[3] = p.w;
        }
      else
        {
          const uint8_t *p = row + 16 * (size_t)x;
#pragma unroll
          for (int c = 0; c < 4; c++)
            v[c] = load_f32_bytes (p + 4 * c);
        }
    }
}

// stores C floats into pixel @x of @row; uint8 kinds round and clamp
template <int K, bool A>
__device__ __forceinline__ void
store_px (uint8_t *__restrict__ row, int x, const float *v)
{
  if constexpr (K == KIND_U8X1)
    {
      row[x] = accel_px_to_u8 (v[0]);
    }
  else if constexpr (K == KIND_U8X4)
    {
      uchar4 p = make_uchar4 (accel_px_to_u8 (v[0]), accel_px_to_u8 (v[1]),
          accel_px_to_u8 (v[2]), accel_px_to_u8 (v[3]));
      if constexpr (A)
        {
          *reinterpret_cast<uchar4 *> (row + 4 * (size_t)x) = p;
        }
      else
        {
          uint8_t *q = row + 4 * (size_t)x;
          q[0] = p.x;
          q[1] = p.y;
          q[2] = p.z;
          q[3] = p.w;
        }
    }
  else
    {
      if constexpr (A)
        {
          *reinterpret_cast<float4 *> (row + 16 * (size_t)x)
              = make_float4 (v[0], v[1], v[2], v[3]);
        }
      else
        {
          uint8_t *q = row + 16 * (size_t)x;
#pragma unroll
          for (int c = 0; c < 4; c++)
            store_f32_bytes (q + 4 * c, v[c]);
        }
    }
}

// four pixels from @x on (a multiple of 4) of a row that starts on 16
// bytes, in one 16-byte access for uint8 kinds
template <int K>
__device__ __forceinline__ void
load_px4 (const uint8_t *__restrict__ row, int x, float (*v)[4])
{
  if constexpr (K == KIND_U8X1)
    {
      uint32_t w = reinterpret_cast<const uint32_t *> (row)[x / 4];
#pragma unroll
      for (int i = 0; i < 4; i++)
        v[i][0] = byte_to_f (w, i);
    }
  else if constexpr (K == KIND_U8X4)
    {
      uint4 p = reinterpret_cast<const uint4 *> (row)[x / 4];
      uint32_t w[4] = { p.x, p.y, p.z, p.w };
#pragma unroll
      for (int i = 0; i < 4; i++)
#pragma unroll
        for (int c = 0; c < 4; c++)
          v[i][c] = byte_to_f (w[i], c);
    }
  else
    {
#pragma unroll
      for (int i = 0; i < 4; i++)
        load_px<K, true> (row, x + i, v[i]);
    }
}

template <int K>
__device__ __forceinline__ void
store_px4 (uint8_t *__restrict__ row, int x, const float (*v)[4])
{
  if constexpr (K == KIND_U8X1)
    {
      reinterpret_cast<uchar4 *> (row)[x / 4]
          = make_uchar4 (accel_px_to_u8 (v[0][0]), accel_px_to_u8 (v[1][0]),
              accel_px_to_u8 (v[2][0]), accel_px_to_u8 (v[3][0]));
    }
  else if constexpr (K == KIND_U8X4)
    {
      uint32_t w[4];
#pragma unroll
      for (int i = 0; i < 4; i++)
        w[i] = (uint32_t)accel_px_to_u8 (v[i][0])
               | ((uint32_t)accel_px_to_u8 (v[i][1]) << 8)
               | ((uint32_t)accel_px_to_u8 (v[i][2]) << 16)
               | ((uint32_t)accel_px_to_u8 (v[i][3]) << 24);
      reinterpret_cast<uint4 *> (row)[x / 4]
          = make_uint4 (w[0], w[1], w[2], w[3]);
    }
  else
    {
#pragma unroll
      for (int i = 0; i < 4; i++)
        store_px<K, true> (row, x + i, v[i]);
    }
}

// float to uint8 for a value known to lie in (-0.5, 255.5): in the low
// byte of the word (for pack_u8x4 (); the others are not zero), the same
// byte as accel_px_to_u8 () there, without its clamp
__device__ __forceinline__ uint32_t
to_u8_in_range (float v)
{
  return __float_as_uint (__fadd_rd (v + 0.5f, 8388608.0f));
}

// @v rounded down to an 8-bit integer in one instruction of the
// conversion unit, which clamps it to [0, 255] and takes NaN to 0. Into a
// 32-bit register, which the conversion fills zero-extended: from a
// 16-bit one each byte was masked again
__device__ __forceinline__ uint32_t
floor_to_u8 (float v)
{
  uint32_t b;

  asm("cvt.rmi.u8.f32 %0, %1;" : "=r"(b) : "f"(v));
  return b;
}

// accel_px_to_u8 () in two instructions instead of two compares and two
// adds, which kernels short of ALU or issue slots feel
__device__ __forceinline__ uint32_t
to_u8_converted (float v)
{
  return floor_to_u8 (v + 0.5f);
}

// @v / 255 for a byte value @v, without the division: the reciprocal's
// product corrected by one residual step equals the correctly rounded
// quotient for each of the 256 values (checked for all of them)
__device__ __forceinline__ float
byte_to_unit (float v)
{
  const float r = 1.0f / 255.0f;
  const float q = v * r;

  return fmaf (fmaf (-q, 255.0f, v), r, q);
}

// four channel bytes (each in the low byte of its word) into one RGBA word
__device__ __forceinline__ uint32_t
pack_u8x4 (uint32_t r, uint32_t g, uint32_t b, uint32_t a)
{
  return __byte_perm (
      __byte_perm (r, g, 0x0040), __byte_perm (b, a, 0x0040), 0x5410);
}

// the bytes of channel 0, 1, 2 and 3 of four RGBA8 pixels (one 16-byte
// chunk), a word each: a 4 x 4 byte transposition
__device__ __forceinline__ void
by_channel (uint4 v, uint32_t c[4])
{
  const uint32_t t0 = __byte_perm (v.x, v.y, 0x5140);
  const uint32_t t1 = __byte_perm (v.x, v.y, 0x7362);
  const uint32_t t2 = __byte_perm (v.z, v.w, 0x5140);
  const uint32_t t3 = __byte_perm (v.z, v.w, 0x7362);

  c[0] = __byte_perm (t0, t2, 0x5410);
  c[1] = __byte_perm (t0, t2, 0x7632);
  c[2] = __byte_perm (t1, t3, 0x5410);
  c[3] = __byte_perm (t1, t3, 0x7632);
}

// what the 8-bit Gaussian's channel sums start at for gauss_pixel (): one
// half of the blur's unit, the Gaussian's rounding half up and the half
// the unsharp mask's bytes round with
constexpr uint32_t GAUSS_SUM_BIAS = 1u << 15;

// an RGBA8 pixel from the 8-bit Gaussian's whole-tap channel sums (2^16
// times the blur, plus GAUSS_SUM_BIAS): the Gaussian's bytes (byte 2 of
// each sum), or with UNSHARP the unsharp mask of @centre with alpha kept:
// accel_px_unsharp_u8 ()'s byte, floor (fmaf (amount, c - blur, c + 0.5)).
// The centre plus a half less the biased sum / 2^16 is the centre less its
// blur, exactly, in one multiply-add where the host multiplies and
// subtracts; the half carried in the centre rounds the byte with no add
template <bool UNSHARP>
__device__ __forceinline__ uint32_t
gauss_pixel (const uint32_t sum[4], uint32_t centre, float amount)
{
  if constexpr (!UNSHARP)
    {
      return __byte_perm (__byte_perm (sum[0], sum[1], 0x0062),
          __byte_perm (sum[2], sum[3], 0x0062), 0x5410);
    }
  else
    {
      uint32_t b[3];

#pragma unroll
      for (int c = 0; c < 3; c++)
        {
          const float v = byte_to_f_half_up (centre, c);
          const float detail
              = fmaf (__uint2float_rn (sum[c]), -1.0f / 65536.0f, v);

          b[c] = floor_to_u8 (fmaf (amount, detail, v));
        }
      // the third byte and the centre's alpha in one byte permute
      return __byte_perm (__byte_perm (b[0], b[1], 0x0040),
          __byte_perm (b[2], centre, 0x0070), 0x5410);
    }
}

__device__ __forceinline__ int
clampi (int v, int lo, int hi)
{
  return min (max (v, lo), hi);
}

// the words of the CHUNKS 16-byte chunks from @at, in order
template <int CHUNKS>
__device__ __forceinline__ void
chunk_words (const uint4 *at, uint32_t raw[4 * CHUNKS])
{
#pragma unroll
  for (int c = 0; c < CHUNKS; c++)
    {
      const uint4 w = at[c];
      raw[4 * c] = w.x;
      raw[4 * c + 1] = w.y;
      raw[4 * c + 2] = w.z;
      raw[4 * c + 3] = w.w;
    }
}

// the four RGBA8 pixels from x of a row that starts on 16 bytes, as words:
// one 16-byte load inside the row, clamped to its ends outside it
__device__ __forceinline__ void
load_words4_clamped (const uint8_t *row, int x, int width, uint32_t w[4])
{
  if (x >= 0 && x + 4 <= width)
    {
      chunk_words<1> (reinterpret_cast<const uint4 *> (row) + x / 4, w);
    }
  else
    {
#pragma unroll
      for (int j = 0; j < 4; j++)
        w[j] = reinterpret_cast<const uint32_t *> (
            row)[clampi (x + j, 0, width - 1)];
    }
}

// strip kernels: each warp covers 128 pixels of a row, four a lane, and
// walks down a strip of rows; a block holds STRIP_WARPS strips, one above
// the other
constexpr int STRIP_WARPS = 4;

// the grid of a strip kernel with strips of @strip rows over a frame
static inline dim3
strip_grid (int width, int height, int strip)
{
  return dim3 ((width + 127) / 128,
      (height + strip * STRIP_WARPS - 1) / (strip * STRIP_WARPS));
}

// a row's four RGBA8 words of the lane from @x and, on the warp's edge
// lanes, pixel @ex beyond them (x - 1 on lane 0, x + 4 on lane 31, clamped
// to the row) into @edge, all clamped to the row
__device__ __forceinline__ void
load_strip_row (
    const uint8_t *row, int x, int ex, int width, uint32_t w[4], uint32_t &edge)
{
  const int lane = threadIdx.x & 31;

  load_words4_clamped (row, x, width, w);
  if (lane == 0 || lane == 31)
    edge = reinterpret_cast<const uint32_t *> (row)[ex];
}

// the RGBA8 pixel @x of rows from @y on, a row at a time: a pointer
// stepped by the pitch, where y * pitch a row cost the vertical passes
// that make a pixel a row 9 instructions a pixel instead of 2
template <typename T> struct ColumnCursor
{
  T *p;
  size_t pitch;

  __device__ ColumnCursor (T *data, size_t pitch_, int x, int y)
      : p (data + (size_t)y * pitch_ + 4 * (size_t)x), pitch (pitch_)
  {
  }

  __device__ uint32_t next ()
  {
    const uint32_t v = *reinterpret_cast<const uint32_t *> (p);

    p += pitch;
    return v;
  }

  __device__ void put (uint32_t v)
  {
    *reinterpret_cast<uint32_t *> (p) = v;
    p += pitch;
  }
};

// @each (i, row) for each of rows @first to @first + ROWS - 1 of the frame
// at @base, clamped to its @height (a row above or below the frame is its
// edge row): the strip kernels' loops over the rows they load
template <int ROWS, class Each>
__device__ __forceinline__ void
each_clamped_row (
    const uint8_t *base, size_t pitch, int first, int height, Each each)
{
#pragma unroll
  for (int i = 0; i < ROWS; i++)
    each (i, base + (size_t)clampi (first + i, 0, height - 1) * pitch);
}

// a strip kernel lane's rows: its four RGBA8 words of the strip's STRIP
// rows and of the row either side (clamped to the frame), with the pixel
// beyond them on the warp's edge lanes, as load_strip_row () loads them
template <int STRIP> struct Strip
{
  static constexpr int ROWS = STRIP + 2;
  int x, y0; // the lane's first pixel, the strip's first row
  uint32_t w[ROWS][4], edge[ROWS];

  // every row loaded; false, with nothing loaded, where the strip starts
  // below the frame
  __device__ __forceinline__ bool load (
      const uint8_t *__restrict__ src, size_t pitch, int width, int height)
  {
    // from locals, not the members: reading those back cost the 3x3
    // median 6 % at 4K (its row clamps were no longer folded)
    const int lx = 4 * (blockIdx.x * 32 + threadIdx.x);
    const int ly = (blockIdx.y * STRIP_WARPS + threadIdx.y) * STRIP;
    const int lane = threadIdx.x & 31;
    const int ex = clampi (lane ? lx + 4 : lx - 1, 0, width - 1);
    x = lx;
    y0 = ly;
    if (ly >= height)
      return false;
    if (lx + 4 <= width)
      {
        // the lane's four pixels inside the row: one 16-byte load a row,
        // where both of load_words4_clamped ()'s paths were issued,
        // predicated. Branching on the rows too (first and last strips
        // clamped, the rest stepped down by the pitch) left those strips
        // slower, and at 1080p, all in one wave, they set the time: the 3x3
        // median 75 % of a copy at 1080p and 71 % at 4K this way, 71 % and
        // 71 % that way, 75 % and 65 % before (H200)
        const int e = 4 * (ex - lx);

        each_clamped_row<ROWS> (src + 4 * (size_t)lx, pitch, ly - 1, height,
            [&] (int i, const uint8_t *row) {
              chunk_words<1> (reinterpret_cast<const uint4 *> (row), w[i]);
              if (lane == 0 || lane == 31)
                edge[i] = *reinterpret_cast<const uint32_t *> (row + e);
            });
        return true;
      }
    each_clamped_row<ROWS> (
        src, pitch, ly - 1, height, [&] (int i, const uint8_t *row) {
          load_strip_row (row, lx, ex, width, w[i], edge[i]);
        });
    return true;
  }
};

// the values of the pixels either side of a strip kernel lane's four, from
// the neighbouring lanes' @first and @last (pixels x and x + 3) or, on the
// warp's edge lanes, @edge: what they made of the pixel load_strip_row ()
// gave them
template <class T>
__device__ __forceinline__ void
strip_neighbours (T first, T last, T edge, T &left, T &right)
{
  const int lane = threadIdx.x & 31;
  const T l = __shfl_up_sync (~0u, last, 1);
  const T r = __shfl_down_sync (~0u, first, 1);

  left = lane == 0 ? edge : l;
  right = lane == 31 ? edge : r;
}

// the lanes at either edge of a run kernel's warp (box_rgba_run (),
// gauss_rgba_run ()) that carry sums for their neighbours only, at radius
// @R
constexpr int
run_halo_lanes (int R)
{
  return (R + 3) / 4;
}

// a lane of a run kernel: its four RGBA8 words of each row that a strip
// of S output rows needs at radius R (R above to R below, clamped to the
// frame), every row loaded before the first is used; a warp makes OUT_W
// pixels of a row. Inside the row a lane takes its rows in one 16-byte load
// each: through load_words4_clamped () both of its paths were issued,
// predicated, and the box blur at radius 3 took 46 instructions a pixel
// against 38.5 now, 82 % / 85 % of a frame copy at 1080p / 4K against
// 84 % / 88-89 % (H200, strips of 6)
template <int R, int S> struct RunStrip
{
  static constexpr int H = run_halo_lanes (R);
  static constexpr int OUT_W = 4 * (32 - 2 * H);
  static constexpr int ROWS = S + 2 * R;
  int x, y0; // the lane's first pixel, the strip's first output row
  bool writes;
  uint32_t w[ROWS][4];

  // false, with nothing loaded, where the strip starts below the frame
  __device__ __forceinline__ bool load (
      const uint8_t *__restrict__ src, size_t pitch, int width, int height)
  {
    const int lane = threadIdx.x;
    const int lx = blockIdx.x * OUT_W + 4 * (lane - H);
    const int ly = (blockIdx.y * STRIP_WARPS + threadIdx.y) * S;

    x = lx;
    y0 = ly;
    writes = lane >= H && lane < 32 - H && lx < width;
    if (ly >= height)
      return false;
    if (lx >= 0 && lx + 4 <= width)
      {
        // the lane's four pixels inside the row: one 16-byte load a row,
        // not both of load_words4_clamped ()'s paths issued, predicated
        // (as Strip's)
        each_clamped_row<ROWS> (src + 4 * (size_t)lx, pitch, ly - R, height,
            [&] (int i, const uint8_t *row) {
              chunk_words<1> (reinterpret_cast<const uint4 *> (row), w[i]);
            });
        return true;
      }
    each_clamped_row<ROWS> (
        src, pitch, ly - R, height, [&] (int i, const uint8_t *row) {
          load_words4_clamped (row, lx, width, w[i]);
        });
    return true;
  }

  static dim3 grid (int width, int height)
  {
    return dim3 ((width + OUT_W - 1) / OUT_W,
        (height + S * STRIP_WARPS - 1) / (S * STRIP_WARPS));
  }
};

// the first pixels of the four RGBA8 words @w into a row that starts on
// 16 bytes, from x on: one 16-byte store, or as many pixels as the row has
__device__ __forceinline__ void
store_words4 (uint8_t *row, int x, int width, const uint32_t w[4])
{
  if (x + 4 <= width)
    reinterpret_cast<uint4 *> (row)[x / 4]
        = make_uint4 (w[0], w[1], w[2], w[3]);
  else
#pragma unroll
    for (int j = 0; j < 3; j++)
      if (x + j < width)
        reinterpret_cast<uint32_t *> (row)[x + j] = w[j];
}

// a block's tile of ROWS x CHUNKS chunks of four RGBA8 pixels, chunk (0, 0)
// at pixel (x0, y0) (x0 a multiple of 4), from rows that start on 16 bytes,
// clamped to the frame; @put (ly, c, w) stores chunk c of tile row ly. Each
// thread keeps one chunk column and takes every STEP-th row of it, so its
// addresses step by a constant; the THREADS threads issue every load before
// their first store, so a block waits for memory once
template <int ROWS, int CHUNKS, int THREADS, class Put>
__device__ __forceinline__ void
load_tile_words4 (const uint8_t *__restrict__ src, size_t pitch, int x0, int y0,
    int width, int height, Put put)
{
  // rows a round of the threads covers, and rounds
  constexpr int STEP = THREADS / CHUNKS, PER = (ROWS + STEP - 1) / STEP;
  static_assert (STEP > 0, "a tile row takes more chunks than threads");
  // the THREADS % CHUNKS threads left over take the first columns of the
  // round's last row again: the same chunks, the same bytes
  const int c = threadIdx.x % CHUNKS,
            ly = min ((int)threadIdx.x / CHUNKS, STEP - 1);
  uint32_t w[PER][4];

  // a tile inside the frame: one 16-byte load a chunk, no clamp and not
  // both of load_words4_clamped ()'s paths issued (the 5x5 median 1-2 %
  // faster on an H200)
  if (x0 >= 0 && x0 + 4 * CHUNKS <= width && y0 >= 0 && y0 + ROWS <= height)
    {
      const uint4 *at
          = reinterpret_cast<const uint4 *> (src + (size_t)(y0 + ly) * pitch)
            + x0 / 4 + c;
      const size_t step = STEP * pitch / sizeof (uint4);
#pragma unroll
      for (int k = 0; k < PER; k++, at += step)
        if ((k + 1) * STEP <= ROWS || ly + k * STEP < ROWS)
          chunk_words<1> (at, w[k]);
    }
  else
#pragma unroll
    for (int k = 0; k < PER; k++)
      if ((k + 1) * STEP <= ROWS || ly + k * STEP < ROWS)
        load_words4_clamped (
            src + (size_t)clampi (y0 + ly + k * STEP, 0, height - 1) * pitch,
            x0 + 4 * c, width, w[k]);
#pragma unroll
  for (int k = 0; k < PER; k++)
    if ((k + 1) * STEP <= ROWS || ly + k * STEP < ROWS)
      put (ly + k * STEP, c, w[k]);
}

// rows a grid covers in y: the y dimension is at most 65535 blocks
static inline unsigned
grid_rows (long long n)
{
  return (unsigned)(n < 65535 ? (n > 0 ? n : 1) : 65535);
}

} // namespace accel_image
