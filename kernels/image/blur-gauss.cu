/* SPDX-License-Identifier: LGPL-2.1-or-later */
// the Gaussian and the unsharp mask of RGBA8 rows on 16 bytes in integers,
// a tile of output a block: 16-byte loads, each thread four pixels of a row
// in the horizontal pass and a column of them in the vertical one, both
// summing whole taps exactly. The unsharp mask of radius 1 to 4 takes its
// rows by tensor copies (tile-copy.cuh); the Gaussian of radius 1 to 4 on
// frames of more than a wave of tiles streams down strips instead, with
// no tile (blur-gauss-run.cu). For blur.cu's launcher
#include <cuda_runtime.h>

#include <type_traits>

#include "blur-gauss.h"
#include "core/resident.cuh"
#include "gauss-device.cuh"
#include "image-device.cuh"
#include "tile-copy.cuh"

using namespace accel_image;

namespace
{

enum
{
  OP_GAUSSIAN,
  OP_UNSHARP,
};

// the fast tile kernels of RGBA8 and BGRA8 rows on 16 bytes: blocks make
// gauss_w () columns of output (FAST_W for the unsharp mask), four threads
// a column, their horizontal pass four pixels of a row a thread from
// 16-byte loads (load_row_chunks ()), their vertical pass a column of
// pixels a thread, both in integers
constexpr int FAST_W = 64;

// the tiled integer kernels' output rows at radius R: as many as fill
// @rows with the halo, in steps of 8, so that their horizontal passes (16
// rows or row pairs at a time) leave almost no thread idle. Against 32-row
// tiles, whose last pass was mostly idle: the box blur's tile (since
// replaced by strips) at radius 3 5-6 % faster on 64 rows, and 5-6 %
// slower again on 96
constexpr int
fast_h (int R, int rows)
{
  return (rows - 2 * R) / 8 * 8;
}

// the RGBA8 words of the OWN chunks of four pixels from @xq (a multiple of
// 4) of a row on 16 bytes and LEFT chunks either side: 16-byte loads inside
// the row, each word clamped to the row's ends near them. Its own loop,
// not chunk_words (): through that the tile Gaussian's address arithmetic
// changed, and one form for both it and copied_row_chunks () measured 1 %
// slower (below)
template <int LEFT, int OWN>
__device__ __forceinline__ void
load_row_chunks (
    const uint8_t *row, int xq, int width, uint32_t raw[4 * (2 * LEFT + OWN)])
{
  constexpr int CHUNKS = 2 * LEFT + OWN;

  if (xq - 4 * LEFT >= 0 && xq + 4 * (OWN + LEFT) <= width)
    {
#pragma unroll
      for (int c = 0; c < CHUNKS; c++)
        {
          uint4 w = reinterpret_cast<const uint4 *> (row)[xq / 4 - LEFT + c];
          raw[4 * c] = w.x;
          raw[4 * c + 1] = w.y;
          raw[4 * c + 2] = w.z;
          raw[4 * c + 3] = w.w;
        }
    }
  else
    {
#pragma unroll
      for (int j = 0; j < 4 * CHUNKS; j++)
        raw[j] = reinterpret_cast<const uint32_t *> (
            row)[clampi (xq - 4 * LEFT + j, 0, width - 1)];
    }
}

// the Gaussian's output rows a block makes: tiles of 96 rows from radius
// 5, which leaves radius 9 since the tensor cores took 5 to 8 (sigma 3 at
// 4K was 7 % faster than on 64 rows, the same at 1080p), of 64 below
// (sigma 1 and the unsharp mask 1-11 % slower on 96)
constexpr int
gauss_h (int R)
{
  return fast_h (R, R > 4 ? 96 : 64);
}

// the Gaussian's columns a block makes, with four threads a column (a
// thread four pixels of a row pair in the horizontal pass, a quarter of a
// column in the vertical one): 32 for the Gaussian, 64 for the unsharp
// mask. Measured on an H200, 32 against 64: sigma 1 0.5-2 % faster and
// sigma 3 5-8 %, the unsharp mask 7-9 % slower (the box blur's tiles, 13-20 %
// slower at radius 3 on 32 columns, keep 64)
constexpr int
gauss_w (int OP)
{
  return OP == OP_GAUSSIAN ? 32 : FAST_W;
}

// where column @c of a tile of 16-byte row pairs lies: group c / 4 rotated
// by c / 8, so that neither pass's 16-byte accesses conflict
__device__ __forceinline__ int
pair_column (int c)
{
  return 4 * (c >> 2) + (((c & 3) + (c >> 3)) & 3);
}

// the horizontal sums of four pixels of a row from xq, two channels a
// multiply-add: channels 0, 2 in the halves of .x, 1, 3 in those of .y
template <int R> struct SplitRow
{
  typedef uint2 Sums[4];
  static constexpr int LEFT = (R + 3) / 4, CHUNKS = gauss_chunks (R);

  static __device__ __forceinline__ void sum (
      const uint8_t *row, int xq, int width, const GaussParams &p, Sums sum)
  {
    uint32_t raw[4 * CHUNKS];

    load_row_chunks<LEFT, 1> (row, xq, width, raw);
    sum_words (raw, p, sum);
  }

  // the same from the row's words as load_row_chunks () leaves them
  static __device__ __forceinline__ void sum_words (
      const uint32_t raw[4 * CHUNKS], const GaussParams &p, Sums sum)
  {
    constexpr int FIRST = 4 * LEFT - R, N = 4 + 2 * R;
    uint2 px[N];

#pragma unroll
    for (int j = 0; j < N; j++)
      px[j] = split_channels (raw[FIRST + j]);
#pragma unroll
    for (int i = 0; i < 4; i++)
      sum[i] = symmetric_taps<R> (p, [&] (int j) { return px[i + j]; });
  }

  // pixel @i's channels of rows @a and @b, a word a channel
  static __device__ __forceinline__ uint4 pair (
      const Sums a, const Sums b, int i)
  {
    return channel_pairs (a[i], b[i]);
  }
};

// the horizontal sums of four pixels of a row from xq, channel c of
// pixel i in sum[i][c]: each chunk of four pixels transposed into a word a
// channel, then four taps a byte dot product (__dp4a ()) against the taps
// row_taps[i] puts under its bytes
template <int R> struct DotRow
{
  typedef uint32_t Sums[4][4];

  static __device__ __forceinline__ void sum (
      const uint8_t *row, int xq, int width, const GaussParams &p, Sums sum)
  {
    constexpr int LEFT = (R + 3) / 4, CHUNKS = gauss_chunks (R);
    constexpr int FIRST = 4 * LEFT - R;
    uint32_t raw[4 * CHUNKS], ch[4][CHUNKS];

    load_row_chunks<LEFT, 1> (row, xq, width, raw);
#pragma unroll
    for (int j = 0; j < CHUNKS; j++)
      {
        const uint32_t *w = raw + 4 * j;
        uint32_t c[4];

        by_channel (make_uint4 (w[0], w[1], w[2], w[3]), c);
#pragma unroll
        for (int k = 0; k < 4; k++)
          ch[k][j] = c[k];
      }
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
      for (int c = 0; c < 4; c++)
        {
          sum[i][c] = 0;
#pragma unroll
          for (int j = (FIRST + i) / 4; j <= (FIRST + i + 2 * R) / 4; j++)
            sum[i][c] = __dp4a (ch[c][j], p.row_taps[i][j], sum[i][c]);
        }
  }

  static __device__ __forceinline__ uint4 pair (
      const Sums a, const Sums b, int i)
  {
    return make_uint4 (__byte_perm (a[i][0], b[i][0], 0x5410),
        __byte_perm (a[i][1], b[i][1], 0x5410),
        __byte_perm (a[i][2], b[i][2], 0x5410),
        __byte_perm (a[i][3], b[i][3], 0x5410));
  }
};

// the radius from which the horizontal pass takes DotRow (only radius 9
// since the tensor cores' kernel took 5 to 8): on an H200,
// sigma 2 (radius 5) 9-11 % faster than SplitRow and sigma 3 15-16 %,
// sigma 1.5 (radius 4) 2-6 % slower and sigma 1 7-11 % (its registers: 63
// against 48)
constexpr int GAUSS_DOT_RADIUS = 5;

// the horizontal sums of four pixels from xq of rows @ya and ya + 1
// (clamped to the frame) as the tile holds them: channel c of both in word
// c, row ya's in the low half
template <int R>
__device__ __forceinline__ void
gauss_rows (const uint8_t *src, size_t src_pitch, int ya, int height, int xq,
    int width, const GaussParams &p, uint4 pair[4])
{
  typedef typename std::conditional<(R < GAUSS_DOT_RADIUS), SplitRow<R>,
      DotRow<R>>::type Row;
  typename Row::Sums a, b;

  Row::sum (
      src + (size_t)clampi (ya, 0, height - 1) * src_pitch, xq, width, p, a);
  Row::sum (src + (size_t)clampi (ya + 1, 0, height - 1) * src_pitch, xq, width,
      p, b);
#pragma unroll
  for (int i = 0; i < 4; i++)
    pair[i] = Row::pair (a, b, i);
}

// where the unsharp mask's centre pixels come from: the frame
struct FrameCentres
{
  const uint8_t *src;
  size_t pitch;

  __device__ ColumnCursor<const uint8_t> at (int x, int y) const
  {
    return ColumnCursor<const uint8_t> (src, pitch, x, y);
  }
};

// the vertical pass of gauss_rgba () and gauss_rgba_copied (): each
// thread a quarter of a column of the block's W x H outputs from @gs, the
// tile of the horizontal sums' row pairs (pair_column ()), the
// unsharp mask's centre pixels from @centres (their at ())
template <int R, int OP, int W, int H, typename Centres>
__device__ __forceinline__ void
gauss_columns (const uint4 *gs, const Centres &centres,
    uint8_t *__restrict__ dst, size_t dst_pitch, int x0, int y0, int width,
    int height, const GaussParams &p)
{
  constexpr int ROWS = H / 4;
  const int col = threadIdx.x & (W - 1), x = x0 + col;
  const int r0 = (threadIdx.x / W) * ROWS;
  const int pc = pair_column (col);
  const int rows = min (ROWS, height - (y0 + r0));
  ColumnCursor<uint8_t> out (dst, dst_pitch, x, y0 + r0);
  auto centre_at = centres.at (x, y0 + r0);
  // channels 0 to 3 of rows r0 + 2 j and r0 + 2 j + 1
  uint4 win[ROWS / 2 + R];

  if (x >= width)
    return;
#pragma unroll
  for (int j = 0; j < ROWS / 2 + R; j++)
    win[j] = gs[(r0 / 2 + j) * W + pc];
#pragma unroll
  for (int m = 0; m < ROWS; m++)
    {
      constexpr uint32_t bias = GAUSS_SUM_BIAS;
      uint32_t acc[4] = { bias, bias, bias, bias };
      uint32_t centre = 0;

      if (m >= rows)
        break;
      if (m % 2)
        gauss_window<R, true> (win + m / 2, p, acc);
      else
        gauss_window<R, false> (win + m / 2, p, acc);
      if constexpr (OP == OP_UNSHARP)
        centre = centre_at.next ();
      out.put (gauss_pixel<OP == OP_UNSHARP> (acc, centre, p.amount));
    }
}

// the Gaussian and the unsharp mask of RGBA8 rows on 16 bytes, in
// integers: with whole taps of sum 256 (accel_gaussian_weights_u8 ()) both
// passes sum exact integers, as the host's floats do. The horizontal pass
// (gauss_rows ()) sums each channel to at most 255 x 256, either two
// channels a multiply-add or, from GAUSS_DOT_RADIUS, four taps a dot
// product; a thread makes two rows and stores each channel of both in the
// halves of one word. The vertical pass
// then takes two rows of a channel against two taps in one 16-by-8-bit dot
// product (__dp2a_lo ()) with no repacking: an even output row starts on
// such a pair, an odd one takes its first row alone from the high half,
// then pairs with the taps shifted by one. Each sum stays below 2^24.
template <int R, int OP>
__global__ void __launch_bounds__ (4 * gauss_w (OP))
    gauss_rgba (const uint8_t *__restrict__ src, size_t src_pitch,
        uint8_t *__restrict__ dst, size_t dst_pitch, int width, int height,
        const __grid_constant__ GaussParams p)
{
  constexpr int W = gauss_w (OP);
  constexpr int H = gauss_h (R), PAIRS = H / 2 + R;
  constexpr int STEP = 4 * W / (W / 4);
  extern __shared__ uint4 gs[];
  const int x0 = blockIdx.x * W, y0 = blockIdx.y * H;
  const int q = threadIdx.x & (W / 4 - 1);
  const int xq = x0 + 4 * q;

#pragma unroll
  for (int pass = 0; pass < (PAIRS + STEP - 1) / STEP; pass++)
    {
      const int pr = threadIdx.x / (W / 4) + pass * STEP;
      const int ya = y0 - R + 2 * pr;
      uint4 pair[4];

      if (pr >= PAIRS)
        break;
      gauss_rows<R> (src, src_pitch, ya, height, xq, width, p, pair);
#pragma unroll
      for (int i = 0; i < 4; i++)
        gs[pr * W + pair_column (4 * q + i)] = pair[i];
    }
  __syncthreads ();
  gauss_columns<R, OP, W, H> (gs, FrameCentres{ src, src_pitch }, dst,
      dst_pitch, x0, y0, width, height, p);
}

// the unsharp mask of gauss_rgba () with its source rows copied into
// shared memory by the tensor memory accelerator (tile-copy.cuh), a copy a
// pass of row pairs started as the block starts: the horizontal pass reads
// no global memory and no register waits for a load, and the centre
// pixels come from the copies. Radius 1 to 4, tiles of the Gaussian's 32
// columns. On an H200, % of the frame copy against gauss_rgba ()
// (docs/image-kernels.md): 66-67 % / 56-57 % at 4K and 65-66 % / 59-60 % at
// 1080p. (The Gaussian took it too where its tiles were more than a wave,
// 73-76 % / 67-69 % at 4K, until gauss_rgba_run ())
template <int R> struct CopiedTile
{
  static constexpr int W = gauss_w (OP_GAUSSIAN), H = gauss_h (R);
  static constexpr int PAIRS = H / 2 + R;
  // a pass's row pairs, 16 a pass as in gauss_rgba (), and a copy of
  // their rows, BOX_W pixels wide (the tile's and R either side, rounded
  // to whole 16-byte chunks)
  static constexpr int STEP = 16, PASSES = (PAIRS + STEP - 1) / STEP;
  static constexpr int BOX_W = W + 8 * ((R + 3) / 4), BOX_H = 2 * STEP;
  static constexpr int BOX_BYTES = 4 * BOX_W * BOX_H;
  static constexpr int PAIR_BYTES = sizeof (uint4) * W * PAIRS;
  static constexpr int ROWS_AT = (PAIR_BYTES + 127) / 128 * 128;
  // the last copy brings only the rows left (its own map)
  static constexpr int LAST_H = 2 * PAIRS - BOX_H * (PASSES - 1);
  static_assert (LAST_H > 0 && LAST_H <= BOX_H, "the last copy's rows");
  static constexpr int LAST_BYTES = 4 * BOX_W * LAST_H;
  static constexpr int ROWS_END
      = ROWS_AT + BOX_BYTES * (PASSES - 1) + LAST_BYTES;
  static constexpr int BARS_AT
      = ((ROWS_END > PAIR_BYTES ? ROWS_END : PAIR_BYTES) + 7) / 8 * 8;
  static constexpr size_t SMEM = BARS_AT + sizeof (uint64_t) * PASSES;
  static_assert (ROWS_AT % 128 == 0 && BOX_BYTES % 128 == 0,
      "the copies land on 128 bytes");
};

// the copied rows' words of the OWN chunks of four pixels from @xq and
// LEFT either side, as load_row_chunks () loads them from the frame: @row
// is the copy's row, which starts at pixel @bx of the frame's. One
// function for both, the frame's rows addressed as the copies' are, left
// the copied kernels' code as it is and made the tile Gaussian 1 % slower
// (sigma 1 at 1080p 10.7-10.8 us against 10.6-10.7 on an H200; the box
// blur's tile, since replaced, 0.7-1 % at radius 5 and 7): the two stay
// apart
template <int LEFT>
__device__ __forceinline__ void
copied_row_chunks (const uint32_t *row, int xq, int bx, int width,
    uint32_t raw[4 * (2 * LEFT + 1)])
{
  constexpr int CHUNKS = 2 * LEFT + 1;

  if (xq - 4 * LEFT >= 0 && xq + 4 * (1 + LEFT) <= width)
    {
      chunk_words<CHUNKS> (
          reinterpret_cast<const uint4 *> (row + xq - 4 * LEFT - bx), raw);
    }
  else
    {
#pragma unroll
      for (int j = 0; j < 4 * CHUNKS; j++)
        raw[j] = row[clampi (xq - 4 * LEFT + j, 0, width - 1) - bx];
    }
}

// the unsharp mask's centre pixels from the copies, which start at pixel
// @bx of row @by of the frame
template <int BOX_W> struct CopiedCentres
{
  const uint32_t *rows;
  int bx, by;

  struct Cursor
  {
    const uint32_t *p;
    __device__ uint32_t next ()
    {
      const uint32_t v = *p;

      p += BOX_W;
      return v;
    }
  };

  __device__ Cursor at (int x, int y) const
  {
    return Cursor{ rows + (y - by) * BOX_W + x - bx };
  }
};

// the horizontal passes of gauss_rgba_copied (), from the copies into the
// pairs at @gs. INSIDE, for a tile whose copies start R rows above it and
// a chunk left of it with no pixel clamped (all but the frame's edge
// tiles), each thread reads its rows at offsets fixed at compile time
// from one address: no address, edge test or wait for a further copy a row
// (on an H200 the unsharp mask at sigma 1 and 4K 66-67 % of the frame copy
// against 63 %, the Gaussian the same)
template <int R, bool INSIDE>
__device__ __forceinline__ void
copied_passes (uint4 *gs, uint64_t *bars, int x0, int y0, int bx, int by,
    int width, int height, const GaussParams &p)
{
  typedef CopiedTile<R> T;
  typedef SplitRow<R> Row;
  constexpr int W = T::W, STEP = T::STEP, CHUNK_ROW = T::BOX_W / 4;
  const uint32_t *rows = reinterpret_cast<const uint32_t *> (gs)
                         + T::ROWS_AT / sizeof (uint32_t);
  const int q = threadIdx.x & (W / 4 - 1);
  const int xq = x0 + 4 * q;
  // INSIDE: the thread's first chunk of its first row
  const uint4 *chunks = reinterpret_cast<const uint4 *> (gs)
                        + T::ROWS_AT / sizeof (uint4)
                        + 2 * (threadIdx.x / (W / 4)) * CHUNK_ROW + q;

#pragma unroll
  for (int pass = 0; pass < T::PASSES; pass++)
    {
      const int pr = threadIdx.x / (W / 4) + pass * STEP;
      const int ya = y0 - R + 2 * pr;
      typename Row::Sums a, b;
      uint32_t raw[2][4 * Row::CHUNKS];

      if constexpr (INSIDE)
        {
          tile_copy_wait (bars + pass);
        }
      else
        {
          // the bottom tile's copies start above its rows: its passes
          // read into the next pass's copy
          const int last = min (T::PASSES - 1,
              (y0 - R - by + T::BOX_H * (pass + 1) - 1) / T::BOX_H);

          for (int k = pass; k <= last; k++)
            tile_copy_wait (bars + k);
        }
      if (pr < T::PAIRS)
        {
#pragma unroll
          for (int h = 0; h < 2; h++)
            {
              if constexpr (INSIDE)
                chunk_words<Row::CHUNKS> (
                    chunks + (2 * pass * STEP + h) * CHUNK_ROW, raw[h]);
              else
                {
                  copied_row_chunks<Row::LEFT> (
                      rows + (clampi (ya + h, 0, height - 1) - by) * T::BOX_W,
                      xq, bx, width, raw[h]);
                }
            }
          Row::sum_words (raw[0], p, a);
          Row::sum_words (raw[1], p, b);
        }
      if (pr < T::PAIRS)
        {
#pragma unroll
          for (int i = 0; i < 4; i++)
            gs[pr * W + pair_column (4 * q + i)] = Row::pair (a, b, i);
        }
    }
}

template <int R>
__global__ void __launch_bounds__ (4 * gauss_w (OP_GAUSSIAN))
    gauss_rgba_copied (const uint8_t *__restrict__ src, size_t src_pitch,
        uint8_t *__restrict__ dst, size_t dst_pitch, int width, int height,
        const __grid_constant__ CUtensorMap copies,
        const __grid_constant__ CUtensorMap last_copy,
        const __grid_constant__ GaussParams p)
{
  typedef CopiedTile<R> T;
  typedef SplitRow<R> Row;
  constexpr int W = T::W, H = T::H;
  extern __shared__ __align__ (128) uint4 gs[];
  const uint32_t *rows = reinterpret_cast<const uint32_t *> (gs)
                         + T::ROWS_AT / sizeof (uint32_t);
  uint64_t *bars = reinterpret_cast<uint64_t *> (gs) + T::BARS_AT / 8;
  const int x0 = blockIdx.x * W, y0 = blockIdx.y * H;
  // the copies' first pixel and row, moved inside the frame at its edges
  // (the clamped pixels then lie within them)
  const int bx = clampi (x0 - 4 * Row::LEFT, 0, width - T::BOX_W);
  const int by = clampi (y0 - R, 0, height - 2 * T::PAIRS);

  if (threadIdx.x == 0)
    {
      tile_copy_init (bars, T::PASSES);
      for (int k = 0; k < T::PASSES; k++)
        tile_copy_start ((char *)gs + T::ROWS_AT + T::BOX_BYTES * k,
            k + 1 < T::PASSES ? &copies : &last_copy, bx, by + T::BOX_H * k,
            bars + k, k + 1 < T::PASSES ? T::BOX_BYTES : T::LAST_BYTES);
    }
  __syncthreads ();

  if (x0 - 4 * Row::LEFT >= 0 && x0 + W + 4 * Row::LEFT <= width && y0 - R >= 0
      && y0 + H + R <= height)
    copied_passes<R, true> (gs, bars, x0, y0, bx, by, width, height, p);
  else
    copied_passes<R, false> (gs, bars, x0, y0, bx, by, width, height, p);
  __syncthreads ();
  gauss_columns<R, OP_UNSHARP, W, H> (gs,
      CopiedCentres<T::BOX_W>{ rows, bx, by }, dst, dst_pitch, x0, y0, width,
      height, p);
}

// whether the Gaussian's gauss_rgba () grid of @tiles blocks fills more
// than one wave of the device's SMs: blocks then start as others end,
// where the strips are faster (gauss_rgba_run ())
template <int R>
static bool
gauss_more_than_a_wave (int tiles)
{
  static std::atomic<int> per_sm;
  const int resident = resident_blocks (
      reinterpret_cast<const void *> (gauss_rgba<R, OP_GAUSSIAN>),
      4 * gauss_w (OP_GAUSSIAN),
      sizeof (uint4) * gauss_w (OP_GAUSSIAN) * (gauss_h (R) / 2 + R), per_sm);

  return resident > 0 && tiles > resident;
}

// gauss_rgba_copied () for the unsharp mask where the frame takes it (on
// an H200 at sigma 1 65-66 % of the frame copy at 1080p against 59-60 %,
// 67 % against 65-66 % at 4K): rows of whole words of four pixels (so that
// a copy starts on 16 bytes and the 16-byte reads of its rows line up), no
// narrower or shorter than a copy
template <int R>
static bool
launch_gauss_copied (cudaStream_t stream, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, const GaussParams &p,
    dim3 grid)
{
  typedef CopiedTile<R> T;
  CUtensorMap map, last;

  if (width % 4 || width < T::BOX_W || height < 2 * T::PAIRS
      || !tile_copy_map (
          &map, src, src_pitch, width, height, T::BOX_W, T::BOX_H)
      || !tile_copy_map (
          &last, src, src_pitch, width, height, T::BOX_W, T::LAST_H))
    return false;
  gauss_rgba_copied<R><<<dim3 ((width + T::W - 1) / T::W, grid.y), 4 * T::W,
      T::SMEM, stream>>> ((const uint8_t *)src, src_pitch, (uint8_t *)dst,
      dst_pitch, width, height, map, last, p);
  return true;
}

template <int R, int OP>
int
launch_gauss_radius (cudaStream_t stream, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, const GaussParams &p)
{
  constexpr int H = gauss_h (R), W = gauss_w (OP);
  const size_t smem = sizeof (uint4) * W * (H / 2 + R);
  dim3 grid ((width + W - 1) / W, (height + H - 1) / H);

  if constexpr (R < GAUSS_DOT_RADIUS && OP == OP_GAUSSIAN)
    {
      if (gauss_more_than_a_wave<R> (grid.x * grid.y))
        return launch_gauss_run<R> (
            stream, src, src_pitch, dst, dst_pitch, width, height, p);
    }
  else if constexpr (R < GAUSS_DOT_RADIUS)
    {
      if (launch_gauss_copied<R> (
              stream, src, src_pitch, dst, dst_pitch, width, height, p, grid))
        return cudaGetLastError ();
    }
  gauss_rgba<R, OP><<<grid, 4 * W, smem, stream>>> ((const uint8_t *)src,
      src_pitch, (uint8_t *)dst, dst_pitch, width, height, p);
  return cudaGetLastError ();
}

template <int OP>
int
launch_gauss (cudaStream_t s, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int r, const uint32_t *taps,
    float amount)
{
  GaussParams p = {};

  for (int k = 0; k <= 2 * r; k++)
    p.tap[k] = taps[k];
  for (int i = 0; i < r; i++)
    {
      p.even[i] = p.tap[2 * i] | p.tap[2 * i + 1] << 8;
      p.odd[i] = p.tap[2 * i + 1] | p.tap[2 * i + 2] << 8;
    }
  // for DotRow only: byte b of word j is pixel 4 j + b of the chunks from
  // 4 ((r + 3) / 4) left of the thread's first, where output pixel i's
  // taps start at 4 ((r + 3) / 4) - r + i
  for (int i = 0; i < 4 && r >= GAUSS_DOT_RADIUS; i++)
    for (int j = 0; j < gauss_chunks (r); j++)
      for (int b = 0; b < 4; b++)
        {
          const int k = 4 * j + b - (4 * ((r + 3) / 4) - r + i);

          if (k >= 0 && k <= 2 * r)
            p.row_taps[i][j] |= p.tap[k] << (8 * b);
        }
  p.amount = amount;
  return with_radius<1, 4, GAUSS_MAX_RADIUS> (r, [&] (auto R) {
    return launch_gauss_radius<decltype (R)::value, OP> (
        s, src, src_pitch, dst, dst_pitch, width, height, p);
  });
}

} // namespace

int
accel_gauss_tiles (cudaStream_t stream, bool unsharp, const void *src,
    size_t src_pitch, void *dst, size_t dst_pitch, int width, int height,
    int radius, const uint32_t *taps, float amount)
{
  return unsharp ? launch_gauss<OP_UNSHARP> (stream, src, src_pitch, dst,
             dst_pitch, width, height, radius, taps, amount)
                 : launch_gauss<OP_GAUSSIAN> (stream, src, src_pitch, dst,
                     dst_pitch, width, height, radius, taps, amount);
}
