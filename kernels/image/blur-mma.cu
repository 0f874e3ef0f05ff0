/* SPDX-License-Identifier: LGPL-2.1-or-later */
// the Gaussian and the unsharp mask of RGBA8 rows on the tensor cores. Both
// passes are products of bytes with banded matrices of the whole taps, in
// 8-bit integer matrix products (mma m16n8k32, u8 x u8 into s32): exact,
// so the bytes are the host's. Each warp walks down a strip of 8 pixels
// (32 byte columns, one a channel of a pixel), 16 rows a step:
// - horizontal: h[s][n] = sum_k band[s][k] in[n][k], 16 output columns s
//   against 8 rows n, a band (the taps where input and output are the same
//   channel) for each 32 input bytes k. Two such products, of rows chosen
//   so that each lane ends with four consecutive rows of each of its
//   columns, make a half window of 16 rows (half_window ());
// - each sum, at most 255 x 256, splits into its low and high bytes, four
//   rows a word: the layout of the vertical product's right operand as it
//   stands, with no shuffle or shared memory;
// - vertical: out[m][c] = sum_k taps[m][k] h[k][c], 16 output rows m
//   against the 32 rows k from 8 above them (so radius up to 8) and 8 byte
//   columns c, once for the low bytes and once for the high, their sum the
//   low one's plus 256 times the high one's.
// The products do many times the multiply-adds of the sums themselves, but
// on units the integer pipes never reach: a step costs a lane a few
// instructions a pixel, where the integer kernels (blur.cu) spend tens on
// the dot products of large radii. A block of strips side by side copies
// its rows into shared memory at once (segment ()) and stores its output
// rows whole from there (flush_rows ())
#include "blur-mma.h"
#include "image-device.cuh"

using namespace accel_image;

namespace
{

// a block's warps, side by side, and the blocks an SM keeps: 96 registers a
// thread hold each lane's bands (5 blocks measured 5-6 % faster at 4K than
// 4 blocks of 104 registers, the same at 1080p)
constexpr int MMA_WARPS = 4, MMA_BLOCKS = 5;
// a warp's strip of pixels, and the rows it makes in steps of 16
constexpr int STRIP_PX = 8;
constexpr int SEG_ROWS = 64;

struct MmaParams
{
  uint32_t tap[2 * ACCEL_GAUSS_MMA_MAX_RADIUS + 1];
  float amount;
};

// the input bytes a warp's horizontal pass reads: three windows of 32 from
// FIRST before its strip, for radius up to 8
constexpr int WINDOWS = 3, FIRST = -32;

// where lane t's bytes of window w lie from the first: windows 0 and 1 in
// one 16-byte load a lane (its first 8 bytes window 0's), window 2 in an
// 8-byte one. Lane t's k 4 t + j of a window is its byte j there, k 16 +
// 4 t + j its byte 4 + j
__device__ __forceinline__ int
lane_bytes (int w, int t)
{
  return w < 2 ? 16 * t + 8 * w : 64 + 8 * t;
}

// the taps by their offset from the centre, zero beyond the radius: a
// shared table the lanes look their bands up in at once
constexpr int TAP_TABLE = 64, TAP_CENTRE = 32;

// @d += @a @b: a 16 x 32 by 32 x 8 product of bytes (the PTX fragment
// layouts: lane (g, t) holds rows g, g + 8 of a and d, column g of b)
__device__ __forceinline__ void
mma_u8 (uint32_t d[4], const uint32_t a[4], uint32_t b0, uint32_t b1)
{
  asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// which of the strip's byte columns slot @s of horizontal block @a makes:
// slots 0-7 feed vertical block 2 a, 8-15 block 2 a + 1, and vertical block
// b's column 2 t + i is byte 8 t + 2 b + i, so that each lane ends with 8
// consecutive bytes (two pixels) of a row to store
__device__ __forceinline__ int
out_column (int a, int s)
{
  return 8 * ((s & 7) >> 1) + 4 * a + 2 * (s >> 3) + (s & 1);
}

// the horizontal band of lane (g, t), block a, window w, its bytes as
// lane_bytes () places them; of each word's four bytes only the one of its
// output column's channel, j = column % 4, is a tap
template <int R>
__device__ __forceinline__ uint4
horizontal_band (const uint8_t *taps, int a, int w, int g, int t)
{
  uint32_t v[4];

#pragma unroll
  for (int r = 0; r < 4; r++)
    {
      const int oc = out_column (a, g + 8 * (r & 1)), j = oc & 3;
      const int d = FIRST + lane_bytes (w, t) + 4 * (r >> 1) + j - oc;

      v[r] = (uint32_t)taps[TAP_CENTRE + (d >> 2)] << (8 * j);
    }
  return make_uint4 (v[0], v[1], v[2], v[3]);
}

// the vertical band of lane (g, t): output row m against input row k - 8
__device__ __forceinline__ void
vertical_band (const uint8_t *taps, int g, int t, uint32_t band[4])
{
#pragma unroll
  for (int r = 0; r < 4; r++)
    {
      const int d = TAP_CENTRE + 4 * t + 16 * (r >> 1) - 8 - (g + 8 * (r & 1));

      band[r] = taps[d] | taps[d + 1] << 8 | taps[d + 2] << 16
                | (uint32_t)taps[d + 3] << 24;
    }
}

// a block's input in shared memory, copied there asynchronously
// (cp.async) as soon as the block starts, so that every load of its
// segment is in flight at once and no register waits for one: the HALVES
// half windows of rows, each of its warps' windows, from FIRST
// bytes before the block's first pixel (SPAN bytes a row, rows ROW_CHUNKS
// 16-byte chunks apart so that the lanes' 16-byte reads of two rows at a
// time take different banks)
constexpr int STEPS = SEG_ROWS / 16, HALVES = STEPS + 1;
constexpr int ROW_CHUNKS = 2 * MMA_WARPS + 4;

template <int R> struct Staged
{
  static constexpr int SPAN = 32 * MMA_WARPS - 2 * FIRST;
  static_assert (SPAN <= 16 * ROW_CHUNKS, "a row's bytes fit its chunks");
  uint4 rows[HALVES][16][ROW_CHUNKS];
};

// copies @BYTES (4 or 16) from @from to @to without waiting
template <int BYTES>
__device__ __forceinline__ void
copy_async (void *to, const void *from)
{
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(
                   (uint32_t)__cvta_generic_to_shared (to)),
               "l"(from), "n"(BYTES)
               : "memory");
}

__device__ __forceinline__ void
copies_commit ()
{
  asm volatile("cp.async.commit_group;" ::: "memory");
}

// waits until at most @N of the thread's groups of copies are in flight
template <int N>
__device__ __forceinline__ void
copies_wait ()
{
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

// the same for @n, at most N, known only once the step loop is unrolled
template <int N = STEPS - 1>
__device__ __forceinline__ void
copies_wait_unrolled (int n)
{
  if constexpr (N > 0)
    if (n < N)
      return copies_wait_unrolled<N - 1> (n);
  copies_wait<N> ();
}

// starts copying half window @i: rows w0 to w0 + 15 of the block's span
// from byte @first of each row, both clamped to the frame (with EDGE a word
// at a time)
template <int R, bool EDGE>
__device__ __forceinline__ void
stage_half (Staged<R> &st, int i, const uint8_t *src, size_t pitch, int w0,
    int height, int first, int width)
{
  constexpr int CHUNKS = Staged<R>::SPAN / 16;

  for (int c = threadIdx.x; c < 16 * CHUNKS; c += 32 * MMA_WARPS)
    {
      const int r = c / CHUNKS, k = c % CHUNKS;
      const uint8_t *row = src + (size_t)clampi (w0 + r, 0, height - 1) * pitch;

      if constexpr (EDGE)
        {
          const uint32_t *words = reinterpret_cast<const uint32_t *> (row);

#pragma unroll
          for (int q = 0; q < 4; q++)
            copy_async<4> (reinterpret_cast<uint32_t *> (&st.rows[i][r][k]) + q,
                words + clampi ((first >> 2) + 4 * k + q, 0, width - 1));
        }
      else
        {
          copy_async<16> (&st.rows[i][r][k], row + first + 16 * k);
        }
    }
}

// the horizontal sums of a half window's rows as the vertical product takes
// them: lane (g, t)'s column g of vertical block b, rows w0 + 4 t to
// w0 + 4 t + 3, their low bytes in lo[b] and high bytes in hi[b]
template <int R>
__device__ __forceinline__ void
half_window (const Staged<R> &st, int i, const uint4 (&band)[2][WINDOWS],
    uint32_t lo[4], uint32_t hi[4])
{
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  // the warp's windows in the block's rows
  const uint8_t *at = reinterpret_cast<const uint8_t *> (st.rows[i])
                      + 32 * (threadIdx.x / 32);
  uint2 in[2][WINDOWS];
  uint32_t h[2][2][4] = {};

#pragma unroll
  for (int p = 0; p < 2; p++)
    {
      // row set p's lane group g reads row 4 (g / 2) + 2 p + g % 2, which
      // puts rows 4 t + 2 p and one below in lane (g, t)'s sums
      const uint8_t *row
          = at + (4 * (g >> 1) + 2 * p + (g & 1)) * 16 * ROW_CHUNKS;
      const uint4 v = *reinterpret_cast<const uint4 *> (row + 16 * t);

      in[p][0] = make_uint2 (v.x, v.y);
      in[p][1] = make_uint2 (v.z, v.w);
      in[p][2] = *reinterpret_cast<const uint2 *> (row + lane_bytes (2, t));
    }
#pragma unroll
  for (int w = 0; w < WINDOWS; w++)
#pragma unroll
    for (int a = 0; a < 2; a++)
      {
        const uint4 b4 = band[a][w];
        const uint32_t b[4] = { b4.x, b4.y, b4.z, b4.w };

#pragma unroll
        for (int p = 0; p < 2; p++)
          mma_u8 (h[p][a], b, in[p][w].x, in[p][w].y);
      }
#pragma unroll
  for (int a = 0; a < 2; a++)
#pragma unroll
    for (int e = 0; e < 2; e++)
      {
        // rows 4 t, 4 t + 1 of column g (e = 0) or g + 8, then 4 t + 2, + 3
        const uint32_t p0
            = __byte_perm (h[0][a][2 * e], h[0][a][2 * e + 1], 0x5140);
        const uint32_t p1
            = __byte_perm (h[1][a][2 * e], h[1][a][2 * e + 1], 0x5140);

        lo[2 * a + e] = __byte_perm (p0, p1, 0x5410);
        hi[2 * a + e] = __byte_perm (p0, p1, 0x7632);
      }
}

// a block's output rows of a step, staged in shared memory so that they
// leave in 16-byte stores of whole rows of the block rather than the
// lanes' 8 bytes of 8 rows each; rows OUT_PITCH bytes apart so that the
// lanes' 8-byte writes of four rows at a time take different banks
constexpr int OUT_BYTES = 4 * STRIP_PX * MMA_WARPS, OUT_PITCH = OUT_BYTES + 32;

typedef uint8_t OutRows[16][OUT_PITCH];

// stores step rows @out from row @m0 and pixel @xblk, a 16-byte chunk a
// thread (with EDGE a pixel at a time where the chunk ends past the frame)
template <bool EDGE>
__device__ __forceinline__ void
flush_rows (const OutRows &out, uint8_t *dst, size_t pitch, int m0, int xblk,
    int width, int height)
{
  constexpr int CHUNKS = OUT_BYTES / 16;
  static_assert (16 * CHUNKS == 32 * MMA_WARPS, "a chunk a thread");
  const int r = threadIdx.x / CHUNKS, c = threadIdx.x % CHUNKS;
  const int y = m0 + r, x = xblk + 4 * c;
  const uint4 v = *reinterpret_cast<const uint4 *> (&out[r][16 * c]);
  uint32_t *to = reinterpret_cast<uint32_t *> (dst + (size_t)y * pitch) + x;

  if (y >= height)
    return;
  if (!EDGE || x + 4 <= width)
    {
      *reinterpret_cast<uint4 *> (to) = v;
    }
  else
    {
      const uint32_t w[4] = { v.x, v.y, v.z, v.w };

      for (int j = 0; j < 4 && x + j < width; j++)
        to[j] = w[j];
    }
}

// a block's SEG_ROWS rows from @y0 of strips from pixel @xblk: all its
// input copied to @st at once, a group of copies for each step's half
// window below it; then in each warp the half window above the first step
// and a step at a time the half window below it and the step's rows out of
// the two
template <int R, bool UNSHARP, bool EDGE>
__device__ __forceinline__ void
segment (const uint8_t *__restrict__ src, size_t src_pitch,
    uint8_t *__restrict__ dst, size_t dst_pitch, int width, int height,
    int xblk, int y0, Staged<R> &st, OutRows *out, const uint8_t *taps,
    const uint4 (*hband)[WINDOWS][32], float amount)
{
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  const int warp = threadIdx.x / 32;
  int done = 0;
  const int px = xblk + STRIP_PX * warp + 2 * t;
  // the bands stay in registers: read from shared memory at each half
  // window they took as many of the L1's wavefronts as the rows did
  uint32_t vband[4];
  uint4 band[2][WINDOWS];
  uint32_t lo[4], hi[4], next_lo[4], next_hi[4];

#pragma unroll
  for (int i = 0; i < HALVES; i++)
    {
      // past the frame's last row only empty groups, to keep their count
      if (i == 0 || y0 + 16 * (i - 1) < height)
        stage_half<R, EDGE> (st, i, src, src_pitch, y0 - 8 + 16 * i, height,
            4 * xblk + FIRST, width);
      copies_commit ();
    }
  vertical_band (taps, g, t, vband);
  copies_wait<HALVES - 1> ();
  __syncthreads ();
#pragma unroll
  for (int a = 0; a < 2; a++)
#pragma unroll
    for (int w = 0; w < WINDOWS; w++)
      band[a][w] = hband[a][w][lane];
  half_window<R> (st, 0, band, lo, hi);
#pragma unroll
  for (int step = 0; step < STEPS; step++)
    {
      const int m0 = y0 + 16 * step;
      uint32_t sum[4][4];

      if (m0 >= height)
        break;
      copies_wait_unrolled (STEPS - 1 - step);
      __syncthreads ();
      if (step > 0)
        flush_rows<EDGE> (
            out[(step - 1) & 1], dst, dst_pitch, m0 - 16, xblk, width, height);
      half_window<R> (st, step + 1, band, next_lo, next_hi);
#pragma unroll
      for (int b = 0; b < 4; b++)
        {
          const uint32_t bias = UNSHARP ? 0u : 1u << 15;
          uint32_t l[4] = { bias, bias, bias, bias }, h[4] = {};

          mma_u8 (l, vband, lo[b], next_lo[b]);
          mma_u8 (h, vband, hi[b], next_hi[b]);
#pragma unroll
          for (int i = 0; i < 4; i++)
            sum[b][i] = l[i] + (h[i] << 8);
        }
#pragma unroll
      for (int e = 0; e < 2; e++)
        {
          // lane (g, t)'s pixels 2 t and 2 t + 1 of row g or g + 8: row
          // 8 + g of this step's upper half window or g of its lower one
          uint2 centre = make_uint2 (0, 0);
          uint2 o;

          if constexpr (UNSHARP)
            centre = *reinterpret_cast<const uint2 *> (
                reinterpret_cast<const uint8_t *> (
                    st.rows[step + e][e ? g : 8 + g])
                - FIRST + 4 * (px - xblk));
          const uint32_t first[4] = { sum[0][2 * e], sum[0][2 * e + 1],
            sum[1][2 * e], sum[1][2 * e + 1] };
          const uint32_t second[4] = { sum[2][2 * e], sum[2][2 * e + 1],
            sum[3][2 * e], sum[3][2 * e + 1] };

          o.x = gauss_pixel<UNSHARP> (first, centre.x, amount);
          o.y = gauss_pixel<UNSHARP> (second, centre.y, amount);
          *reinterpret_cast<uint2 *> (
              &out[step & 1][g + 8 * e][4 * (px - xblk)])
              = o;
        }
      done = step + 1;
#pragma unroll
      for (int b = 0; b < 4; b++)
        {
          lo[b] = next_lo[b];
          hi[b] = next_hi[b];
        }
    }
  __syncthreads ();
  flush_rows<EDGE> (out[(done - 1) & 1], dst, dst_pitch, y0 + 16 * (done - 1),
      xblk, width, height);
}

template <int R, bool UNSHARP>
__global__ void __launch_bounds__ (32 * MMA_WARPS, MMA_BLOCKS)
    gauss_mma (const uint8_t *__restrict__ src, size_t src_pitch,
        uint8_t *__restrict__ dst, size_t dst_pitch, int width, int height,
        const __grid_constant__ MmaParams p)
{
  constexpr int NW = WINDOWS;
  __shared__ uint8_t taps[TAP_TABLE];
  __shared__ uint4 hband[2][NW][32];
  __shared__ Staged<R> staged;
  __shared__ OutRows out[2];
  const int xblk = blockIdx.x * MMA_WARPS * STRIP_PX;
  const int y0 = blockIdx.y * SEG_ROWS;
  const int first = 4 * xblk + FIRST;

  if (threadIdx.x < TAP_TABLE)
    {
      const int d = (int)threadIdx.x - TAP_CENTRE;

      taps[threadIdx.x] = d >= -R && d <= R ? (uint8_t)p.tap[d + R] : 0;
    }
  __syncthreads ();
  for (int i = threadIdx.x; i < 2 * NW * 32; i += 32 * MMA_WARPS)
    {
      const int lane = i & 31, a = i / (32 * NW), w = i / 32 % NW;

      hband[a][w][lane] = horizontal_band<R> (taps, a, w, lane >> 2, lane & 3);
    }
  // (segment () waits for the block before its first product.) Blocks
  // whose input and output lie inside the rows take no clamp; in the others
  // every warp takes its part in the copies and the barriers, strips past
  // the frame's right edge storing nothing
  if (first >= 0 && first + Staged<R>::SPAN <= 4 * width
      && xblk + MMA_WARPS * STRIP_PX <= width)
    segment<R, UNSHARP, false> (src, src_pitch, dst, dst_pitch, width, height,
        xblk, y0, staged, out, taps, hband, p.amount);
  else
    segment<R, UNSHARP, true> (src, src_pitch, dst, dst_pitch, width, height,
        xblk, y0, staged, out, taps, hband, p.amount);
}

template <int R, bool UNSHARP>
int
launch_mma (cudaStream_t stream, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, const MmaParams &p)
{
  constexpr int BLOCK_PX = STRIP_PX * MMA_WARPS;
  dim3 grid (
      (width + BLOCK_PX - 1) / BLOCK_PX, (height + SEG_ROWS - 1) / SEG_ROWS);

  gauss_mma<R, UNSHARP>
      <<<grid, 32 * MMA_WARPS, 0, stream>>> ((const uint8_t *)src, src_pitch,
          (uint8_t *)dst, dst_pitch, width, height, p);
  return cudaGetLastError ();
}

} // namespace

int
accel_gauss_mma (cudaStream_t stream, bool unsharp, const void *src,
    size_t src_pitch, void *dst, size_t dst_pitch, int width, int height,
    int radius, const uint32_t *taps, float amount)
{
  MmaParams p = {};

  if (radius < ACCEL_GAUSS_MMA_MIN_RADIUS
      || radius > ACCEL_GAUSS_MMA_MAX_RADIUS)
    return cudaErrorInvalidValue;
  for (int k = 0; k <= 2 * radius; k++)
    p.tap[k] = taps[k];
  p.amount = amount;
  return with_radius<ACCEL_GAUSS_MMA_MIN_RADIUS, ACCEL_GAUSS_MMA_MAX_RADIUS - 1,
      ACCEL_GAUSS_MMA_MAX_RADIUS> (radius, [&] (auto R) {
    return unsharp ? launch_mma<decltype (R)::value, true> (
               stream, src, src_pitch, dst, dst_pitch, width, height, p)
                   : launch_mma<decltype (R)::value, false> (stream, src,
                       src_pitch, dst, dst_pitch, width, height, p);
  });
}
