/* SPDX-License-Identifier: LGPL-2.1-or-later */
// the box blur of RGBA8 rows on 16 bytes in integers, streamed down strips
// of rows with no shared tile: radius 1 in box3_rgba_stream (), radius 2
// to 7 in running sums (box_rgba_run ()). For blur.cu's launcher, which
// takes the float kernel for other formats and radii
#include <cuda_runtime.h>

#include "blur-box.h"
#include "image-device.cuh"

using namespace accel_image;

namespace
{

// the host's sums of a box are exact in floats, so summing its bytes
// instead changes no output. Channels 0, 2 and 1, 3 sum in the 16-bit
// halves of two words; a sum of (2 radius + 1)^2 bytes fits 16 bits up to
// BOX_MAX_RADIUS
constexpr int BOX_MAX_RADIUS = ACCEL_BOX_STRIPS_MAX_RADIUS;

// the mean of a box of radius R's integer sums, rounded to the nearest
// byte (no sum lies half way): with h = (area - 1) / 2 already added to
// each sum by the caller (BoxMean::BIAS in each half), (sum + h) * M >> 24
// for M = ceil (2^24 / area). It equals the host's s / area in floats,
// rounded, for every sum up to 255 x area at every radius up to
// BOX_MAX_RADIUS (checked for all of them), and (sum + h) * M stays
// below 2^32
template <int R> struct BoxMean
{
  static constexpr uint32_t AREA = (2 * R + 1) * (2 * R + 1);
  static constexpr uint32_t BIAS = (AREA - 1) / 2 * 0x10001u;
  static constexpr uint32_t M = ((1u << 24) + AREA - 1) / AREA;

  // channels 0 and 2 in the halves of @sum.x, 1 and 3 in those of @sum.y,
  // into an RGBA8 word: each quotient is the top byte of its product
  static __device__ __forceinline__ uint32_t of (uint2 sum)
  {
    const uint32_t c0 = (sum.x & 0xffffu) * M, c2 = (sum.x >> 16) * M;
    const uint32_t c1 = (sum.y & 0xffffu) * M, c3 = (sum.y >> 16) * M;

    return __byte_perm (
        __byte_perm (c0, c1, 0x0073), __byte_perm (c2, c3, 0x0073), 0x5410);
  }
};

// the box blur of radius 1 streamed down strips: each thread makes four
// pixels of BOX_STRIP rows from one 16-byte load a row, all of its rows
// loaded before the first is summed. The pixel either side comes from the
// neighbouring lane (the warp's edge lanes read it), the vertical sums stay
// in registers: no shared tile, no barrier, and each byte is read once but
// for two halo rows a strip. Measured faster than the tiled kernel at
// radius 1 only (88 % / 89 % of a copy at 1080p / 4K against 86 % / 78 %,
// H200); at radius 3 its halo rows and registers made it slower, and
// box_rgba_run () sums down the strip instead
constexpr int BOX_STRIP = 8;

__global__ void __launch_bounds__ (32 * STRIP_WARPS)
    box3_rgba_stream (const uint8_t *__restrict__ src, size_t src_pitch,
        uint8_t *__restrict__ dst, size_t dst_pitch, int width, int height)
{
  Strip<BOX_STRIP> strip;
  // the last three rows' horizontal sums, and their sums down
  uint2 h[3][4], v[4];

  if (!strip.load (src, src_pitch, width, height))
    return;
#pragma unroll
  for (int i = 0; i < strip.ROWS; i++)
    {
      const int y = strip.y0 + i - 2;
      uint32_t left, right;
      uint2 px[6];

      if (y >= height)
        break;
      strip_neighbours (
          strip.w[i][0], strip.w[i][3], strip.edge[i], left, right);
      px[0] = split_channels (left);
      px[5] = split_channels (right);
#pragma unroll
      for (int j = 0; j < 4; j++)
        px[1 + j] = split_channels (strip.w[i][j]);
#pragma unroll
      for (int k = 0; k < 4; k++)
        {
          // this row's horizontal sums slide into the vertical window;
          // each half stays at least the sum it drops: no borrow crosses
          const uint2 s = make_uint2 (px[k].x + px[k + 1].x + px[k + 2].x,
              px[k].y + px[k + 1].y + px[k + 2].y);

          if (i == 0)
            v[k] = make_uint2 (BoxMean<1>::BIAS + s.x, BoxMean<1>::BIAS + s.y);
          else if (i < 3)
            v[k] = make_uint2 (v[k].x + s.x, v[k].y + s.y);
          else
            v[k] = make_uint2 (
                v[k].x + s.x - h[i % 3][k].x, v[k].y + s.y - h[i % 3][k].y);
          h[i % 3][k] = s;
        }
      if (i >= 2 && strip.x < width)
        {
          uint32_t out[4];
#pragma unroll
          for (int k = 0; k < 4; k++)
            out[k] = BoxMean<1>::of (v[k]);
          store_words4 (dst + (size_t)y * dst_pitch, strip.x, width, out);
        }
    }
}

// the box blur of radius 2 to BOX_MAX_RADIUS streamed down strips of
// box_run_strip () rows in running sums: each lane loads its four pixels of
// every row its strip needs before it sums the first, keeps the sums down
// its four columns (a row added as it comes, the row 2 R + 1 above taken
// off) and sums those across with its neighbours' by shuffles
// (run_across ()): no shared tile, no barrier; a strip's 2 R halo rows
// and its edge lanes' columns are read again by its neighbours.
// Against the shared-memory tile they replace (H200, % of a frame copy at
// 1080p / 4K): 84 % / 88-89 % against 80-81 % / 75-76 % at radius 3, 75-76
// % / 78 % against 74-75 % / 67-70 % at radius 5, 66-67 % / 67 % against
// 66-67 % / 63-64 % at radius 7. Strips of box_run_strip () rows in blocks
// of 4 warps: at radius 3 strips of 5 (84-85 % / 89-90 % against 84 % /
// 88 %), elsewhere of 6, against 78-85 % / 81-92 % for strips of 5, 7 and 8
// rows at radius 2 and 4, 73-83 % / 72-85 % for blocks of 2 or 8 warps
// (before RunStrip's 16-byte loads), and 77-85 % / 79-91 % for blocks of 1
// or 2 warps at 88 registers, which fit 1080p in one wave, or of 2 at 96
constexpr int
box_run_strip (int R)
{
  return R == 3 ? 5 : 6;
}

// pixels -R to 3 + R of a box_rgba_run () lane's, from its sums @col of its
// four and its neighbours': pixel o from the lane floor (o / 4) along
template <int R>
__device__ __forceinline__ void
run_across (const uint2 col[4], uint2 across[4 + 2 * R])
{
  constexpr int H = run_halo_lanes (R);
  const int lane = threadIdx.x;

#pragma unroll
  for (int j = 0; j < 4 + 2 * R; j++)
    {
      const int o = j - R, d = (o + 4 * H) / 4 - H;
      const uint2 c = col[o - 4 * d];

      across[j] = d == 0 ? c
                         : make_uint2 (__shfl_sync (~0u, c.x, lane + d),
                             __shfl_sync (~0u, c.y, lane + d));
    }
}

template <int R>
__global__ void __launch_bounds__ (32 * STRIP_WARPS)
    box_rgba_run (const uint8_t *__restrict__ src, size_t src_pitch,
        uint8_t *__restrict__ dst, size_t dst_pitch, int width, int height)
{
  RunStrip<R, box_run_strip (R)> strip;
  uint2 col[4];

  if (!strip.load (src, src_pitch, width, height))
    return;
#pragma unroll
  for (int i = 0; i < strip.ROWS; i++)
    {
      const int y = strip.y0 + i - 2 * R;
      uint2 across[4 + 2 * R];

      if (y >= height)
        break;
#pragma unroll
      for (int k = 0; k < 4; k++)
        {
          // each half stays at least the byte it drops: no borrow crosses
          const uint2 in = split_channels (strip.w[i][k]);
          if (i == 0)
            col[k] = in;
          else if (i <= 2 * R)
            col[k] = make_uint2 (col[k].x + in.x, col[k].y + in.y);
          else
            {
              const uint2 out = split_channels (strip.w[i - 2 * R - 1][k]);
              col[k] = make_uint2 (
                  col[k].x + in.x - out.x, col[k].y + in.y - out.y);
            }
        }
      if (i < 2 * R)
        continue;
      run_across<R> (col, across);
      uint2 sum = make_uint2 (BoxMean<R>::BIAS, BoxMean<R>::BIAS);
      uint32_t out[4];
#pragma unroll
      for (int j = 0; j <= 2 * R; j++)
        sum = make_uint2 (sum.x + across[j].x, sum.y + across[j].y);
#pragma unroll
      for (int k = 0; k < 4; k++)
        {
          if (k > 0)
            sum = make_uint2 (sum.x + across[k + 2 * R].x - across[k - 1].x,
                sum.y + across[k + 2 * R].y - across[k - 1].y);
          out[k] = BoxMean<R>::of (sum);
        }
      if (strip.writes)
        store_words4 (dst + (size_t)y * dst_pitch, strip.x, width, out);
    }
}

template <int R>
int
launch_box_run (cudaStream_t stream, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height)
{
  box_rgba_run<R><<<RunStrip<R, box_run_strip (R)>::grid (width, height),
      dim3 (32, STRIP_WARPS), 0, stream>>> ((const uint8_t *)src, src_pitch,
      (uint8_t *)dst, dst_pitch, width, height);
  return cudaGetLastError ();
}

} // namespace

int
accel_box_strips (cudaStream_t s, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int radius)
{
  if (radius == 1)
    {
      box3_rgba_stream<<<strip_grid (width, height, BOX_STRIP),
          dim3 (32, STRIP_WARPS), 0, s>>> ((const uint8_t *)src, src_pitch,
          (uint8_t *)dst, dst_pitch, width, height);
      return cudaGetLastError ();
    }
  return with_radius<2, BOX_MAX_RADIUS - 1, BOX_MAX_RADIUS> (
      radius, [&] (auto R) {
        return launch_box_run<decltype (R)::value> (
            s, src, src_pitch, dst, dst_pitch, width, height);
      });
}
