/* SPDX-License-Identifier: LGPL-2.1-or-later */
// the 8-bit Gaussian of radius 1 to 4 of RGBA8 rows on 16 bytes, streamed
// down strips with no tile: for blur-gauss.cu's launcher, where the tiles
// are more than a wave
#include <cuda_runtime.h>

#include "gauss-device.cuh"
#include "image-device.cuh"

using namespace accel_image;

namespace
{

// the output rows of a lane of gauss_rgba_run ()
constexpr int GAUSS_RUN_STRIP = 5;

// the sums down a gauss_rgba_run () lane's columns, of output row o and
// pixel k in col[o][k] (symmetric_taps ()): each row's channels split once
template <int R>
__device__ __forceinline__ void
gauss_down (const RunStrip<R, GAUSS_RUN_STRIP> &strip, const GaussParams &p,
    uint2 col[GAUSS_RUN_STRIP][4])
{
  constexpr int ROWS = RunStrip<R, GAUSS_RUN_STRIP>::ROWS;
  uint2 split[ROWS][4];

#pragma unroll
  for (int i = 0; i < ROWS; i++)
#pragma unroll
    for (int k = 0; k < 4; k++)
      split[i][k] = split_channels (strip.w[i][k]);
#pragma unroll
  for (int o = 0; o < GAUSS_RUN_STRIP; o++)
#pragma unroll
    for (int k = 0; k < 4; k++)
      col[o][k]
          = symmetric_taps<R> (p, [&] (int j) { return split[o + j][k]; });
}

// pixels -4 to 7 of a gauss_rgba_run () lane's output row, which hold
// those from -R to 3 + R, as pairs of neighbouring pixels a word a channel
// (channel_pairs ()) from its sums down @col: its own two pairs, and its
// neighbours' by shuffles. Against shuffling the neighbours' sums and
// pairing the R either side, 8 permutes and 4 shuffles fewer a row at
// radius 3 (sigma 1 at 4K 82 % of the frame copy against 81 % on an H200)
__device__ __forceinline__ void
gauss_lane_pairs (const uint2 col[4], uint4 pairs[6])
{
  const uint4 own[2]
      = { channel_pairs (col[0], col[1]), channel_pairs (col[2], col[3]) };

#pragma unroll
  for (int m = 0; m < 2; m++)
    {
      pairs[2 + m] = own[m];
      pairs[m] = make_uint4 (__shfl_up_sync (~0u, own[m].x, 1),
          __shfl_up_sync (~0u, own[m].y, 1), __shfl_up_sync (~0u, own[m].z, 1),
          __shfl_up_sync (~0u, own[m].w, 1));
      pairs[4 + m] = make_uint4 (__shfl_down_sync (~0u, own[m].x, 1),
          __shfl_down_sync (~0u, own[m].y, 1),
          __shfl_down_sync (~0u, own[m].z, 1),
          __shfl_down_sync (~0u, own[m].w, 1));
    }
}

// the Gaussian of radius 1 to 4 streamed down strips of GAUSS_RUN_STRIP
// rows (RunStrip, as the box blur's): each lane loads its four pixels of
// every row its strip needs before it sums the first, sums them down its
// columns (gauss_down ()), pairs its and its neighbours' column sums
// (gauss_lane_pairs ()) and sums across them in 16-by-8-bit dot products
// as gauss_columns () sums down. No shared tile and no barrier; the sums
// are the tile kernels', exact integers added in another order. On an
// H200, sigma 1 at 4K, % of the frame copy in one call: 79-80 % against
// 73-74 % for the tiles by tensor copies that it replaces there
// (gauss_rgba_copied ()), 78-79 % for strips of 4 rows, 76-77 % of 6,
// 74-75 % of 8 (70-71 % in another call adding each row into every window
// without the pairs summed first). At 1080p, where gauss_rgba ()'s grid is
// one wave, 76-77 % against its 77-78 %: launch_gauss_radius () takes the
// strips where that grid is more than a wave
template <int R>
__global__ void __launch_bounds__ (32 * STRIP_WARPS)
    gauss_rgba_run (const uint8_t *__restrict__ src, size_t src_pitch,
        uint8_t *__restrict__ dst, size_t dst_pitch, int width, int height,
        const __grid_constant__ GaussParams p)
{
  static_assert (run_halo_lanes (R) == 1, "the pairs come from one lane");
  RunStrip<R, GAUSS_RUN_STRIP> strip;
  uint2 col[GAUSS_RUN_STRIP][4];

  if (!strip.load (src, src_pitch, width, height))
    return;
  gauss_down<R> (strip, p, col);
#pragma unroll
  for (int o = 0; o < GAUSS_RUN_STRIP; o++)
    {
      const int y = strip.y0 + o;
      uint4 pairs[6];
      uint32_t out[4];

      if (y >= height)
        break;
      gauss_lane_pairs (col[o], pairs);
#pragma unroll
      for (int i = 0; i < 4; i++)
        {
          // the window of output pixel i starts at pixel i - R: in pair
          // (i - R + 4) / 2, its high half where that is odd
          constexpr uint32_t bias = GAUSS_SUM_BIAS;
          const int at = i - R + 4;
          uint32_t acc[4] = { bias, bias, bias, bias };

          if (at % 2)
            gauss_window<R, true> (pairs + at / 2, p, acc);
          else
            gauss_window<R, false> (pairs + at / 2, p, acc);
          out[i] = gauss_pixel<false> (acc, 0, 0.0f);
        }
      if (strip.writes)
        store_words4 (dst + (size_t)y * dst_pitch, strip.x, width, out);
    }
}

} // namespace

template <int R>
int
accel_image::launch_gauss_run (cudaStream_t stream, const void *src,
    size_t src_pitch, void *dst, size_t dst_pitch, int width, int height,
    const GaussParams &p)
{
  gauss_rgba_run<R><<<RunStrip<R, GAUSS_RUN_STRIP>::grid (width, height),
      dim3 (32, STRIP_WARPS), 0, stream>>> ((const uint8_t *)src, src_pitch,
      (uint8_t *)dst, dst_pitch, width, height, p);
  return cudaGetLastError ();
}

template int accel_image::launch_gauss_run<1> (cudaStream_t, const void *,
    size_t, void *, size_t, int, int, const GaussParams &);
template int accel_image::launch_gauss_run<2> (cudaStream_t, const void *,
    size_t, void *, size_t, int, int, const GaussParams &);
template int accel_image::launch_gauss_run<3> (cudaStream_t, const void *,
    size_t, void *, size_t, int, int, const GaussParams &);
template int accel_image::launch_gauss_run<4> (cudaStream_t, const void *,
    size_t, void *, size_t, int, int, const GaussParams &);
