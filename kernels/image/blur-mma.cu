/* SPDX-License-Identifier: LGPL-2.1-or-later */
// the Gaussian and the unsharp mask of RGBA8 rows on the tensor cores. Both
// passes are products of bytes with banded matrices of the whole taps, in
// 8-bit integer matrix products (mma m16n8k32, u8 x u8 into s32): exact,
// so the bytes are the host's. Each warp walks down a strip of 16 pixels,
// 16 rows a step, one channel at a time:
// - horizontal: h[s][n] = sum_k band[s][k] in[n][k], 16 output pixels s
//   against 8 rows n and the 32 input pixels k from 8 left of them (so
//   radius up to 8), of one channel: each lane loads 8 pixels of a row and
//   sorts their bytes by channel (by_channel ()), so that one band serves
//   all four channels. Two such products, of rows chosen so that each lane
//   ends with four consecutive rows of each of its columns, make a half
//   window of 16 rows (half_window ());
// - each sum, at most 255 x 256, splits into its low and high bytes, four
//   rows a word: the layout of the vertical product's right operand as it
//   stands, with no shuffle or shared memory;
// - vertical: out[m][c] = sum_k taps[m][k] h[k][c], 16 output rows m
//   against the 32 rows k from 8 above them and 8 pixels c of a channel,
//   once for the low bytes and once for the high, their sum the low one's
//   plus 256 times the high one's; each lane ends with all four channels of
//   its pixels.
// The products do many times the multiply-adds of the sums themselves, but
// on units the integer pipes never reach: a step costs a lane a few
// instructions a pixel, where the integer tiles (blur-gauss.cu) spend tens on
// the dot products of large radii. A block of strips side by side copies
// its rows into shared memory at once (segment ()) and stores its output
// rows whole from there (flush_rows ())
#include "blur-mma.h"
#include "image-device.cuh"

using namespace accel_image;

namespace
{

// a block's warps, side by side, and the blocks an SM keeps, with up to 128
// registers a thread (on an H200 at 4K: five blocks, whose registers then
// spill, 8-9 % slower; blocks of two warps 6-7 % slower)
constexpr int MMA_WARPS = 4, MMA_BLOCKS = 4;
// a warp's strip of pixels and a block's, and the rows a block makes in
// steps of 16
constexpr int STRIP_PX = 16, BLOCK_PX = STRIP_PX * MMA_WARPS;
constexpr int SEG_ROWS = 64;

// the input pixels a warp's horizontal pass reads: 32 from HALO_PX before
// its strip, for radius up to 8 (FIRST in bytes). Lane t's k 4 t + j is
// pixel 8 t + j of them, k 16 + 4 t + j pixel 8 t + 4 + j: two 16-byte
// loads a lane, their bytes sorted by channel
constexpr int HALO_PX = 8, FIRST = -4 * HALO_PX;

// the taps by their offset from the centre, zero beyond the radius: a
// table built by accel_gauss_mma () and copied into shared memory, where
// the lanes look their bands up in at once. The radius lives only there,
// so one kernel serves every radius
constexpr int TAP_TABLE = 64, TAP_CENTRE = 32;

struct MmaParams
{
  uint8_t taps[TAP_TABLE];
  float amount;
};

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

// the taps at offsets @d to @d + 3 from the centre, a byte each
__device__ __forceinline__ uint32_t
tap_word (const uint8_t *taps, int d)
{
  const uint8_t *at = taps + TAP_CENTRE + d;

  return at[0] | at[1] << 8 | at[2] << 16 | (uint32_t)at[3] << 24;
}

// the horizontal band of lane (g, t), the same for every channel: output
// pixel s (g, g + 8) against input pixel k as the lanes place them
__device__ __forceinline__ void
horizontal_band (const uint8_t *taps, int g, int t, uint32_t band[4])
{
#pragma unroll
  for (int r = 0; r < 4; r++)
    {
      band[r]
          = tap_word (taps, 8 * t + 4 * (r >> 1) - HALO_PX - (g + 8 * (r & 1)));
    }
}

// the vertical band of lane (g, t): output row m against input row k - 8
__device__ __forceinline__ void
vertical_band (const uint8_t *taps, int g, int t, uint32_t band[4])
{
#pragma unroll
  for (int r = 0; r < 4; r++)
    {
      band[r] = tap_word (taps, 4 * t + 16 * (r >> 1) - 8 - (g + 8 * (r & 1)));
    }
}

// a block's input in shared memory, copied there asynchronously
// (cp.async) as soon as the block starts, so that every load of its
// segment is in flight at once and no register waits for one: the HALVES
// half windows of rows, each of its warps' windows, from FIRST
// bytes before the block's first pixel (SPAN bytes a row, rows an odd
// number of 16-byte chunks apart so that the lanes' 16-byte reads of two
// rows at a time take different banks)
constexpr int STEPS = SEG_ROWS / 16, HALVES = STEPS + 1;
constexpr int SPAN = 4 * BLOCK_PX - 2 * FIRST;
constexpr int ROW_CHUNKS = SPAN / 16 | 1;
static_assert (SPAN % 16 == 0, "a row is whole 16-byte chunks");

struct Staged
{
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

// a thread's chunks of each half window's copies: chunk threadIdx.x + j
// 32 MMA_WARPS of the 16 rows of CHUNKS, the same in every half, so that
// the division is done once, not for each chunk of each half
struct StageLanes
{
  static constexpr int CHUNKS = SPAN / 16;
  static constexpr int PER
      = (16 * CHUNKS + 32 * MMA_WARPS - 1) / (32 * MMA_WARPS);
  int r[PER], k[PER]; // r 16 or more: no chunk j

  __device__ __forceinline__ StageLanes ()
  {
#pragma unroll
    for (int j = 0; j < PER; j++)
      {
        const int c = threadIdx.x + 32 * MMA_WARPS * j;

        r[j] = c / CHUNKS;
        k[j] = c % CHUNKS;
      }
  }
};

// starts copying half window @i: rows w0 to w0 + 15 of the block's span
// from byte @first of each row, both clamped to the frame (with EDGE a word
// at a time)
template <bool EDGE>
__device__ __forceinline__ void
stage_half (Staged &st, int i, const uint8_t *src, size_t pitch, int w0,
    int height, int first, int width, const StageLanes &lanes)
{
#pragma unroll
  for (int j = 0; j < StageLanes::PER; j++)
    {
      const int r = lanes.r[j], k = lanes.k[j];
      const uint8_t *row;

      if (r >= 16)
        continue;
      row = src + (size_t)clampi (w0 + r, 0, height - 1) * pitch;
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

// stage_half () of every half window of the block at pixel @xblk and row
// @y0 where its rows and its span all lie inside the frame: each chunk's
// address worked out once and moved down 16 rows a half window, no clamp
// (on an H200 the Gaussian at sigma 3 1-2 % faster at 1080p and 4K)
__device__ __forceinline__ void
stage_inside (Staged &st, const uint8_t *src, size_t src_pitch, int xblk,
    int y0, const StageLanes &lanes)
{
  const uint8_t *from[StageLanes::PER];
  const size_t down = 16 * src_pitch;

#pragma unroll
  for (int j = 0; j < StageLanes::PER; j++)
    from[j] = src + (size_t)(y0 - 8 + lanes.r[j]) * src_pitch + 4 * xblk + FIRST
              + 16 * lanes.k[j];
#pragma unroll
  for (int i = 0; i < HALVES; i++)
    {
#pragma unroll
      for (int j = 0; j < StageLanes::PER; j++)
        if (lanes.r[j] < 16)
          copy_async<16> (
              &st.rows[i][lanes.r[j]][lanes.k[j]], from[j] + i * down);
      copies_commit ();
    }
}

// the horizontal sums of a half window's rows as the vertical product takes
// them: for vertical block b = 2 c + e, lane (g, t)'s pixel 8 e + g of
// channel c, rows w0 + 4 t to w0 + 4 t + 3, their low bytes in lo[b] and
// high bytes in hi[b]
__device__ __forceinline__ void
half_window (const Staged &st, int i, const uint32_t (&band)[4], uint32_t lo[8],
    uint32_t hi[8])
{
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  // the warp's window in the block's rows
  const uint8_t *at = reinterpret_cast<const uint8_t *> (st.rows[i])
                      + 4 * STRIP_PX * (threadIdx.x / 32);
  uint32_t h[2][4][4] = {};

#pragma unroll
  for (int p = 0; p < 2; p++)
    {
      // row set p's lane group g reads row 4 (g / 2) + 2 p + g % 2, which
      // puts rows 4 t + 2 p and one below in lane (g, t)'s sums
      const uint8_t *row
          = at + (4 * (g >> 1) + 2 * p + (g & 1)) * 16 * ROW_CHUNKS;
      uint32_t c0[4], c1[4];

      by_channel (*reinterpret_cast<const uint4 *> (row + 32 * t), c0);
      by_channel (*reinterpret_cast<const uint4 *> (row + 32 * t + 16), c1);
#pragma unroll
      for (int c = 0; c < 4; c++)
        mma_u8 (h[p][c], band, c0[c], c1[c]);
    }
#pragma unroll
  for (int c = 0; c < 4; c++)
#pragma unroll
    for (int e = 0; e < 2; e++)
      {
        // rows 4 t, 4 t + 1 of pixel g (e = 0) or g + 8, then 4 t + 2, + 3
        const uint32_t p0
            = __byte_perm (h[0][c][2 * e], h[0][c][2 * e + 1], 0x5140);
        const uint32_t p1
            = __byte_perm (h[1][c][2 * e], h[1][c][2 * e + 1], 0x5140);

        lo[2 * c + e] = __byte_perm (p0, p1, 0x5410);
        hi[2 * c + e] = __byte_perm (p0, p1, 0x7632);
      }
}

// a block's output rows of a step, staged in shared memory so that they
// leave in 16-byte stores of whole rows of the block rather than as each
// lane's 8-byte pieces; rows OUT_PITCH bytes apart so that the lanes'
// 8-byte writes of four rows at a time take different banks
constexpr int OUT_BYTES = 4 * STRIP_PX * MMA_WARPS, OUT_PITCH = OUT_BYTES + 32;

typedef uint8_t OutRows[16][OUT_PITCH];

// each thread of a block stores the same 16-byte chunk of a step's output
// rows (of FLUSH_CHUNKS a row), every FLUSH_ROWS-th row
constexpr int FLUSH_CHUNKS = OUT_BYTES / 16;
constexpr int FLUSH_ROWS = 32 * MMA_WARPS / FLUSH_CHUNKS;
static_assert (32 * MMA_WARPS % FLUSH_CHUNKS == 0 && FLUSH_ROWS * 2 == 16,
    "two chunks of one column a thread and step");

// this thread's chunk: its column of 16 bytes and its first row
__device__ __forceinline__ unsigned
flush_column ()
{
  return threadIdx.x % FLUSH_CHUNKS;
}

__device__ __forceinline__ unsigned
flush_row ()
{
  return threadIdx.x / FLUSH_CHUNKS;
}

// stores step rows @out from row @m0 and pixel @xblk, 16-byte chunks of
// whole rows (with EDGE a pixel at a time where a chunk ends past the
// frame)
template <bool EDGE>
__device__ __forceinline__ void
flush_rows (const OutRows &out, uint8_t *dst, size_t pitch, int m0, int xblk,
    int width, int height)
{
  // each thread its chunk of every FLUSH_ROWS-th row: its addresses moved
  // down FLUSH_ROWS rows a store, no division or multiplication a chunk
  // (which cost about 20 instructions a chunk). A loop, not unrolled:
  // unrolled, ptxas moved the stores into the next half window's work, for
  // more registers
  const int c = flush_column (), r0 = flush_row ();
  const int x = xblk + 4 * c, end = min (m0 + 16, height);
  const uint8_t *from = &out[r0][16 * c];
  uint8_t *to = dst + (size_t)(m0 + r0) * pitch + 4 * (size_t)x;

#pragma unroll 1
  for (int y = m0 + r0; y < end; y += FLUSH_ROWS,
           from += FLUSH_ROWS * OUT_PITCH, to += FLUSH_ROWS * pitch)
    {
      const uint4 v = *reinterpret_cast<const uint4 *> (from);

      if (!EDGE || x + 4 <= width)
        {
          *reinterpret_cast<uint4 *> (to) = v;
        }
      else
        {
          const uint32_t w[4] = { v.x, v.y, v.z, v.w };

          for (int j = 0; j < 4 && x + j < width; j++)
            reinterpret_cast<uint32_t *> (to)[j] = w[j];
        }
    }
}

// flush_rows () where all of the block's SEG_ROWS rows lie inside the
// frame and its columns do: each thread stores the same chunk (byte @from
// of a row of @out) of two rows FLUSH_ROWS apart, from @to, which it moves
// down to the next step's rows (on an H200 the unsharp mask at sigma 3
// 1-2 % faster, the Gaussian the same)
__device__ __forceinline__ void
flush_whole (const OutRows &out, int from, uint8_t *&to, size_t pitch)
{
  const uint8_t *o = &out[0][0] + from;
  const uint4 a = *reinterpret_cast<const uint4 *> (o);
  const uint4 b = *reinterpret_cast<const uint4 *> (o + FLUSH_ROWS * OUT_PITCH);

  *reinterpret_cast<uint4 *> (to) = a;
  *reinterpret_cast<uint4 *> (to + FLUSH_ROWS * pitch) = b;
  to += 16 * pitch;
}

// a block's SEG_ROWS rows from @y0 of strips from pixel @xblk: all its
// input copied to @st at once, a group of copies for each step's half
// window below it; then in each warp the half window above the first step
// and a step at a time the half window below it and the step's rows out of
// the two
template <bool UNSHARP, bool EDGE>
__device__ __forceinline__ void
segment (const uint8_t *__restrict__ src, size_t src_pitch,
    uint8_t *__restrict__ dst, size_t dst_pitch, int width, int height,
    int xblk, int y0, Staged &st, OutRows *out, const uint8_t *taps,
    float amount)
{
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  // the strip's first pixel in the block's rows
  const int strip = STRIP_PX * (threadIdx.x / 32);
  int done = 0;
  uint32_t vband[4], band[4];
  uint32_t lo[8], hi[8], next_lo[8], next_hi[8];
  const StageLanes lanes;
  const bool whole = !EDGE && y0 + SEG_ROWS <= height;
  // where flush_whole () stores this thread's chunks: the address of the
  // first, and the chunk's byte in a row of out
  uint8_t *flush_to = dst + (size_t)(y0 + flush_row ()) * dst_pitch
                      + 4 * (size_t)(xblk + 4 * flush_column ());
  const int flush_from = flush_row () * OUT_PITCH + 16 * flush_column ();

  if (!EDGE && y0 >= 8 && y0 + 16 * HALVES - 8 <= height)
    stage_inside (st, src, src_pitch, xblk, y0, lanes);
  else
#pragma unroll
    for (int i = 0; i < HALVES; i++)
      {
        // past the frame's last row only empty groups, to keep their count
        if (i == 0 || y0 + 16 * (i - 1) < height)
          stage_half<EDGE> (st, i, src, src_pitch, y0 - 8 + 16 * i, height,
              4 * xblk + FIRST, width, lanes);
        copies_commit ();
      }
  copies_wait<HALVES - 1> ();
  __syncthreads ();
  vertical_band (taps, g, t, vband);
  horizontal_band (taps, g, t, band);
  half_window (st, 0, band, lo, hi);
#pragma unroll
  for (int step = 0; step < STEPS; step++)
    {
      const int m0 = y0 + 16 * step;
      uint32_t sum[8][4];

      if (m0 >= height)
        break;
      copies_wait_unrolled (STEPS - 1 - step);
      __syncthreads ();
      if (step > 0)
        {
          if (whole)
            flush_whole (out[(step - 1) & 1], flush_from, flush_to, dst_pitch);
          else
            flush_rows<EDGE> (out[(step - 1) & 1], dst, dst_pitch, m0 - 16,
                xblk, width, height);
        }
      half_window (st, step + 1, band, next_lo, next_hi);
#pragma unroll
      for (int b = 0; b < 8; b++)
        {
          const uint32_t bias = GAUSS_SUM_BIAS;
          uint32_t l[4] = { bias, bias, bias, bias }, h[4] = {};

          mma_u8 (l, vband, lo[b], next_lo[b]);
          mma_u8 (h, vband, hi[b], next_hi[b]);
#pragma unroll
          for (int i = 0; i < 4; i++)
            sum[b][i] = l[i] + (h[i] << 8);
        }
#pragma unroll
      for (int r = 0; r < 2; r++)
#pragma unroll
        for (int e = 0; e < 2; e++)
          {
            // lane (g, t)'s pixels 8 e + 2 t and one right of row g or g +
            // 8: row 8 + g of this step's upper half window or g of its
            // lower one
            const int x = strip + 8 * e + 2 * t;
            uint2 centre = make_uint2 (0, 0);
            uint2 o;

            if constexpr (UNSHARP)
              centre = *reinterpret_cast<const uint2 *> (
                  reinterpret_cast<const uint8_t *> (
                      st.rows[step + r][r ? g : 8 + g])
                  - FIRST + 4 * x);
            const uint32_t left[4] = { sum[e][2 * r], sum[2 + e][2 * r],
              sum[4 + e][2 * r], sum[6 + e][2 * r] };
            const uint32_t right[4]
                = { sum[e][2 * r + 1], sum[2 + e][2 * r + 1],
                    sum[4 + e][2 * r + 1], sum[6 + e][2 * r + 1] };

            o.x = gauss_pixel<UNSHARP> (left, centre.x, amount);
            o.y = gauss_pixel<UNSHARP> (right, centre.y, amount);
            *reinterpret_cast<uint2 *> (&out[step & 1][g + 8 * r][4 * x]) = o;
          }
      done = step + 1;
#pragma unroll
      for (int b = 0; b < 8; b++)
        {
          lo[b] = next_lo[b];
          hi[b] = next_hi[b];
        }
    }
  __syncthreads ();
  flush_rows<EDGE> (out[(done - 1) & 1], dst, dst_pitch, y0 + 16 * (done - 1),
      xblk, width, height);
}

template <bool UNSHARP>
__global__ void __launch_bounds__ (32 * MMA_WARPS, MMA_BLOCKS)
    gauss_mma (const uint8_t *__restrict__ src, size_t src_pitch,
        uint8_t *__restrict__ dst, size_t dst_pitch, int width, int height,
        const __grid_constant__ MmaParams p)
{
  __shared__ uint8_t taps[TAP_TABLE];
  __shared__ Staged staged;
  __shared__ OutRows out[2];
  const int xblk = blockIdx.x * BLOCK_PX;
  const int y0 = blockIdx.y * SEG_ROWS;
  const int first = 4 * xblk + FIRST;

  if (threadIdx.x < TAP_TABLE)
    taps[threadIdx.x] = p.taps[threadIdx.x];
  // (segment () waits for the block before it reads the taps.) Blocks
  // whose input and output lie inside the rows take no clamp; in the others
  // every warp takes its part in the copies and the barriers, strips past
  // the frame's right edge storing nothing
  if (first >= 0 && first + SPAN <= 4 * width && xblk + BLOCK_PX <= width)
    segment<UNSHARP, false> (src, src_pitch, dst, dst_pitch, width, height,
        xblk, y0, staged, out, taps, p.amount);
  else
    segment<UNSHARP, true> (src, src_pitch, dst, dst_pitch, width, height, xblk,
        y0, staged, out, taps, p.amount);
}

} // namespace

int
accel_gauss_mma (cudaStream_t stream, bool unsharp, const void *src,
    size_t src_pitch, void *dst, size_t dst_pitch, int width, int height,
    int radius, const uint32_t *taps, float amount)
{
  MmaParams p = {};
  dim3 grid (
      (width + BLOCK_PX - 1) / BLOCK_PX, (height + SEG_ROWS - 1) / SEG_ROWS);

  if (radius < ACCEL_GAUSS_MMA_MIN_RADIUS
      || radius > ACCEL_GAUSS_MMA_MAX_RADIUS)
    return cudaErrorInvalidValue;
  for (int k = 0; k <= 2 * radius; k++)
    p.taps[TAP_CENTRE - radius + k] = (uint8_t)taps[k];
  p.amount = amount;
  if (unsharp)
    gauss_mma<true><<<grid, 32 * MMA_WARPS, 0, stream>>> ((const uint8_t *)src,
        src_pitch, (uint8_t *)dst, dst_pitch, width, height, p);
  else
    gauss_mma<false><<<grid, 32 * MMA_WARPS, 0, stream>>> ((const uint8_t *)src,
        src_pitch, (uint8_t *)dst, dst_pitch, width, height, p);
  return cudaGetLastError ();
}
