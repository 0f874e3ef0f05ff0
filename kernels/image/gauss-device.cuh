/* SPDX-License-Identifier: LGPL-2.1-or-later */
// what the 8-bit Gaussian's kernels share (blur-gauss.cu, blur-gauss-run.cu):
// their parameters, the symmetric sums of whole taps two channels a
// multiply-add, and the 16-by-8-bit dot products over pairs of neighbouring
// sums (included by .cu files only)
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

#include "blur-gauss.h"

namespace accel_image
{

constexpr int GAUSS_MAX_RADIUS = ACCEL_GAUSS_TILES_MAX_RADIUS;

// the chunks of four pixels a thread's horizontal pass reads at radius
// @R: its own and (R + 3) / 4 either side
constexpr int
gauss_chunks (int R)
{
  return 2 * ((R + 3) / 4) + 1;
}

constexpr int GAUSS_ROW_WORDS = gauss_chunks (GAUSS_MAX_RADIUS);

struct GaussParams
{
  uint32_t tap[2 * GAUSS_MAX_RADIUS + 1];
  // taps 2 i and 2 i + 1 in bytes 0 and 1 of even[i], taps 2 i + 1 and
  // 2 i + 2 in those of odd[i]
  uint32_t even[GAUSS_MAX_RADIUS];
  uint32_t odd[GAUSS_MAX_RADIUS];
  // the taps of output pixel i of a thread's four against the bytes of
  // word j of a channel's row (gauss_row ())
  uint32_t row_taps[4][GAUSS_ROW_WORDS];
  float amount;
};

// the 2 R + 1 whole taps against pixels @px (0) to px (2 R), two channels
// a multiply-add (channels 0, 2 in the halves of .x, 1, 3 in those of
// .y). The whole taps are symmetric (accel_gaussian_weights_u8 ()): each
// pair of pixels as far either side summed first, at most 510 a half,
// turns R of the 2 R + 1 multiply-adds, which queue for their pipe, into
// adds (sigma 1 3-4 % faster on an H200). Every partial sum stays within
// the whole, at most 255 x 256 a half
template <int R, class Px>
__device__ __forceinline__ uint2
symmetric_taps (const GaussParams &p, Px px)
{
  uint2 sum = make_uint2 (p.tap[R] * px (R).x, p.tap[R] * px (R).y);

#pragma unroll
  for (int k = 0; k < R; k++)
    {
      sum.x += p.tap[k] * (px (k).x + px (2 * R - k).x);
      sum.y += p.tap[k] * (px (k).y + px (2 * R - k).y);
    }
  return sum;
}

// pixels @a and @b's channels, a word a channel, @a's in the low halves:
// from channels 0, 2 in the halves of .x and 1, 3 in those of .y
__device__ __forceinline__ uint4
channel_pairs (uint2 a, uint2 b)
{
  return make_uint4 (__byte_perm (a.x, b.x, 0x5410),
      __byte_perm (a.y, b.y, 0x5410), __byte_perm (a.x, b.x, 0x7632),
      __byte_perm (a.y, b.y, 0x7632));
}

// adds each channel's two positions in @pair (channel c in the halves of
// its word c) against the two taps in bytes 0 and 1 of @taps
__device__ __forceinline__ void
gauss_dot (uint4 pair, uint32_t taps, uint32_t acc[4])
{
  acc[0] = __dp2a_lo (pair.x, taps, acc[0]);
  acc[1] = __dp2a_lo (pair.y, taps, acc[1]);
  acc[2] = __dp2a_lo (pair.z, taps, acc[2]);
  acc[3] = __dp2a_lo (pair.w, taps, acc[3]);
}

// adds the 2 R + 1 taps of a window over the pairs from @pair: from the
// low half of pair[0], or with ODD from its high half. An even window is R
// pairs and the last tap alone in a low half, an odd one the first tap
// alone in a high half and R pairs with the taps shifted by one
template <int R, bool ODD>
__device__ __forceinline__ void
gauss_window (const uint4 *pair, const GaussParams &p, uint32_t acc[4])
{
  if constexpr (ODD)
    {
      gauss_dot (pair[0], p.tap[0] << 8, acc);
#pragma unroll
      for (int i = 0; i < R; i++)
        gauss_dot (pair[1 + i], p.odd[i], acc);
    }
  else
    {
#pragma unroll
      for (int i = 0; i < R; i++)
        gauss_dot (pair[i], p.even[i], acc);
      gauss_dot (pair[R], p.tap[2 * R], acc);
    }
}

// the Gaussian of radius R (1 to 4) down strips (gauss_rgba_run () in
// blur-gauss-run.cu), for frames where its tiles are more than a wave
template <int R>
int launch_gauss_run (cudaStream_t stream, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, const GaussParams &p);

} // namespace accel_image
