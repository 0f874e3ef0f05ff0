/* SPDX-License-Identifier: LGPL-2.1-or-later */
// frame analysis on the GPU: one pass of per-block (per warp pair)
// privatised shared-memory histograms and motion sums, merged with integer
// atomics; a one-block pass for the statistics; equalisation with the
// lookup tables built in each block from the histogram
#include <atomic>
#include <cuda_runtime.h>

#include "analysis.h"
#include "core/resident.cuh"
#include "effects-device.cuh"
#include "effects-pixel.h"

using namespace accel_effects;

static_assert (
    sizeof (unsigned long long) == sizeof (uint64_t), "motion sums are 64-bit");

namespace
{

constexpr int NCH = ACCEL_ANALYSIS_CHANNELS;
constexpr int NBINS = ACCEL_ANALYSIS_BINS;
// sub-histograms per block, each shared by BLOCK / 32 / COPIES warps
constexpr int COPIES = 4;
// rows each block takes at least, to repay its setup
constexpr int MIN_ROWS = 4;
constexpr unsigned FULL = 0xffffffffu;

// one wave of blocks that loop over rows: grid.x covers a row, grid.y what
// is left of @resident (one block where the runtime could not say), each
// block MIN_ROWS rows at least
static dim3
persistent_grid (int width, int height, int resident)
{
  dim3 g = grid_for (width, height);
  int rows = (resident > 1 ? resident : 1) / (int)g.x;
  int most = (height + MIN_ROWS - 1) / MIN_ROWS;

  rows = rows < most ? rows : most;
  g.y = (unsigned)(rows < 1 ? 1 : (rows > 65535 ? 65535 : rows));
  return g;
}

// the channel (R, G, B, A) at byte @c of a pixel
template <bool BGRA>
__device__ __forceinline__ constexpr int
channel_of (int c)
{
  return BGRA && c != 1 && c != 3 ? 2 - c : c;
}

// counts the first @n of @v (levels) into @bins: a warp on one level (a
// flat region, opaque alpha) with one atomic, otherwise one per run of a
// level within the thread's pixels. Every lane of the warp calls it
__device__ __forceinline__ void
count_levels (uint32_t *bins, const uint32_t *v, int n, int lane)
{
  const bool flat = n == 4 && v[1] == v[0] && v[2] == v[0] && v[3] == v[0];
  const uint32_t lead = __shfl_sync (FULL, v[0], 0);
  uint32_t cur = v[0], run = n > 0 ? 1u : 0u;

  if (__all_sync (FULL, flat && v[0] == lead))
    {
      if (lane == 0)
        atomicAdd (&bins[lead], 4u * 32u);
      return;
    }
#pragma unroll
  for (int i = 1; i < 4; i++)
    if (i < n)
      {
        if (v[i] == cur)
          run++;
        else
          {
            atomicAdd (&bins[cur], run);
            cur = v[i];
            run = 1;
          }
      }
  if (run)
    atomicAdd (&bins[cur], run);
}

template <bool BGRA>
__device__ __forceinline__ uint32_t
luma_of (uint32_t w)
{
  return accel_px_luma_u8 (byte_to_f (w, channel_of<BGRA> (0)),
      byte_to_f (w, 1), byte_to_f (w, channel_of<BGRA> (2)));
}

template <bool BGRA, bool LUMA, bool MOTION, bool KEEP>
__global__ void
__launch_bounds__ (BLOCK)
    accumulate (const uint8_t *__restrict__ src, size_t src_pitch, int width,
        int height, uint8_t *__restrict__ prev, size_t prev_pitch, int access,
        uint32_t *__restrict__ hist, unsigned long long *__restrict__ motion)
{
  __shared__ uint32_t sh[COPIES][NCH][NBINS];
  uint32_t *flat = &sh[0][0][0];
  const int lane = threadIdx.x & 31;
  uint32_t (*mine)[NBINS] = sh[(threadIdx.x / 32) % COPIES];
  const int x0 = (blockIdx.x * BLOCK + threadIdx.x) * 4;
  // 0: past the row's end, the thread only takes part in the warp's votes
  const int n = max (0, min (4, width - x0));
  uint32_t msum[NCH] = { 0 };
  uint32_t w[4] = { 0 }, next[4] = { 0 };

  for (int i = threadIdx.x; i < COPIES * NCH * NBINS; i += BLOCK)
    flat[i] = 0;
  __syncthreads ();

  if (n > 0 && (int)blockIdx.y < height)
    load4 (src + (size_t)blockIdx.y * src_pitch, x0, n, access, w);
  for (int y = blockIdx.y; y < height; y += gridDim.y)
    {
      const int yn = y + gridDim.y;
      uint32_t pw[4] = { 0 };

      // the next row's pixels are on their way while these are counted
      if (n > 0 && yn < height)
        load4 (src + (size_t)yn * src_pitch, x0, n, access, next);
      if ((MOTION || KEEP) && n > 0)
        {
          uint8_t *prow = prev + (size_t)y * prev_pitch;
          if (MOTION)
            load4 (prow, x0, n, access, pw);
          if (KEEP)
            store4 (prow, x0, n, access, w);
        }

#pragma unroll
      for (int c = 0; c < 4; c++)
        {
          uint32_t v[4];
#pragma unroll
          for (int i = 0; i < 4; i++)
            v[i] = (w[i] >> (8 * c)) & 0xffu;
          count_levels (mine[channel_of<BGRA> (c)], v, n, lane);
        }
      if (LUMA)
        {
          uint32_t v[4];
#pragma unroll
          for (int i = 0; i < 4; i++)
            v[i] = luma_of<BGRA> (w[i]);
          count_levels (mine[ACCEL_ANALYSIS_LUMA_CHANNEL], v, n, lane);
        }
      if (MOTION)
#pragma unroll
        for (int i = 0; i < 4; i++)
          if (i < n)
            {
              uint32_t d = __vabsdiffu4 (w[i], pw[i]);
#pragma unroll
              for (int c = 0; c < 4; c++)
                msum[channel_of<BGRA> (c)] += (d >> (8 * c)) & 0xffu;
              if (LUMA)
                msum[ACCEL_ANALYSIS_LUMA_CHANNEL] += (uint32_t)abs (
                    (int)luma_of<BGRA> (w[i]) - (int)luma_of<BGRA> (pw[i]));
            }
#pragma unroll
      for (int i = 0; i < 4; i++)
        w[i] = next[i];
    }

  __syncthreads ();
  for (int i = threadIdx.x; i < NCH * NBINS; i += BLOCK)
    {
      uint32_t s = 0;
#pragma unroll
      for (int k = 0; k < COPIES; k++)
        s += flat[k * NCH * NBINS + i];
      if (s)
        atomicAdd (&hist[i], s);
    }
  if (MOTION)
#pragma unroll
    for (int c = 0; c < NCH; c++)
      {
        uint32_t s = __reduce_add_sync (FULL, msum[c]);
        if (lane == 0 && s)
          atomicAdd (&motion[c], (unsigned long long)s);
      }
}

// the sums an accumulate adds to, zeroed in one launch
__global__ void
__launch_bounds__ (BLOCK) zero_sums (
    uint32_t *__restrict__ hist, unsigned long long *__restrict__ motion)
{
  for (int i = threadIdx.x; i < NCH * NBINS; i += BLOCK)
    hist[i] = 0;
  if (motion && threadIdx.x < NCH)
    motion[threadIdx.x] = 0;
}

struct AccArgs
{
  cudaStream_t stream;
  const uint8_t *src;
  size_t src_pitch;
  int width, height;
  uint8_t *prev;
  size_t prev_pitch;
  int access;
  uint32_t *hist;
  unsigned long long *motion;
  int flags;
};

template <bool BGRA, bool LUMA, bool MOTION, bool KEEP>
int
launch_accumulate (const AccArgs &a)
{
  static std::atomic<int> per_sm;
  const void *kernel
      = reinterpret_cast<const void *> (accumulate<BGRA, LUMA, MOTION, KEEP>);
  dim3 grid = persistent_grid (
      a.width, a.height, resident_blocks (kernel, BLOCK, 0, per_sm));

  accumulate<BGRA, LUMA, MOTION, KEEP><<<grid, BLOCK, 0, a.stream>>> (a.src,
      a.src_pitch, a.width, a.height, a.prev, a.prev_pitch, a.access, a.hist,
      a.motion);
  return cudaGetLastError ();
}

template <bool BGRA, bool LUMA, bool MOTION>
int
pick_keep (const AccArgs &a)
{
  return (a.flags & ACCEL_ANALYSIS_KEEP)
             ? launch_accumulate<BGRA, LUMA, MOTION, true> (a)
             : launch_accumulate<BGRA, LUMA, MOTION, false> (a);
}

template <bool BGRA, bool LUMA>
int
pick_motion (const AccArgs &a)
{
  return (a.flags & ACCEL_ANALYSIS_MOTION) ? pick_keep<BGRA, LUMA, true> (a)
                                           : pick_keep<BGRA, LUMA, false> (a);
}

template <bool BGRA>
int
pick_luma (const AccArgs &a)
{
  return (a.flags & ACCEL_ANALYSIS_LUMA) ? pick_motion<BGRA, true> (a)
                                         : pick_motion<BGRA, false> (a);
}

// one block of NBINS threads, a channel at a time
__global__ void
__launch_bounds__ (NBINS) stats (const uint32_t *__restrict__ hist,
    const unsigned long long *__restrict__ motion, float *__restrict__ out)
{
  constexpr int WARPS = NBINS / 32;
  __shared__ unsigned long long s_count[WARPS], s_sum[WARPS], s_sq[WARPS];
  __shared__ int s_lo[WARPS], s_hi[WARPS];
  const int t = threadIdx.x, lane = t & 31, warp = t / 32;
  unsigned long long pixels = 0;

  for (int c = 0; c < NCH; c++)
    {
      const unsigned long long h = hist[c * NBINS + t];
      unsigned long long count = h, sum = h * (unsigned long long)t,
                         sq = h * (unsigned long long)(t * t);
      int lo = h ? t : NBINS, hi = h ? t : -1;

#pragma unroll
      for (int off = 16; off > 0; off /= 2)
        {
          count += __shfl_down_sync (FULL, count, off);
          sum += __shfl_down_sync (FULL, sum, off);
          sq += __shfl_down_sync (FULL, sq, off);
          lo = min (lo, __shfl_down_sync (FULL, lo, off));
          hi = max (hi, __shfl_down_sync (FULL, hi, off));
        }
      if (lane == 0)
        {
          s_count[warp] = count;
          s_sum[warp] = sum;
          s_sq[warp] = sq;
          s_lo[warp] = lo;
          s_hi[warp] = hi;
        }
      __syncthreads ();
      if (t == 0)
        {
          for (int k = 1; k < WARPS; k++)
            {
              count += s_count[k];
              sum += s_sum[k];
              sq += s_sq[k];
              lo = min (lo, s_lo[k]);
              hi = max (hi, s_hi[k]);
            }
          if (c == 0)
            pixels = count;
          accel_fx_stats (count, sum, sq, lo, hi, motion ? motion[c] : 0,
              pixels, out + c * ACCEL_ANALYSIS_STATS);
        }
      __syncthreads ();
    }
}

// the equalisation table of histogram row @bins into @lut, by the block's
// NBINS threads (threads past NBINS idle); every thread calls it
__device__ void
build_lut (const uint32_t *__restrict__ bins, uint8_t *lut, uint32_t *warp_sum,
    int *first)
{
  const int t = threadIdx.x, lane = t & 31, warp = t / 32;
  uint32_t v = t < NBINS ? bins[t] : 0, x = v;
  uint32_t before = 0, n = 0;

  if (t == 0)
    *first = NBINS;
#pragma unroll
  for (int off = 1; off < 32; off *= 2)
    {
      uint32_t up = __shfl_up_sync (FULL, x, off);
      if (lane >= off)
        x += up;
    }
  if (lane == 31 && t < NBINS)
    warp_sum[warp] = x;
  __syncthreads ();
  if (t < NBINS && v)
    atomicMin (first, t);
  for (int k = 0; k < NBINS / 32; k++)
    {
      if (k < warp)
        before += warp_sum[k];
      n += warp_sum[k];
    }
  __syncthreads ();
  if (t < NBINS)
    lut[t] = accel_fx_equalize_level (
        (uint64_t)x + before, *first < NBINS ? bins[*first] : 0, n, t);
  __syncthreads ();
}

template <bool BGRA, int MODE>
__global__ void
__launch_bounds__ (BLOCK) equalize (const uint8_t *__restrict__ src,
    size_t src_pitch, uint8_t *__restrict__ dst, size_t dst_pitch, int width,
    int height, const uint32_t *__restrict__ hist, int access)
{
  static_assert (BLOCK >= NBINS, "a thread per bin");
  constexpr int R = BGRA ? 2 : 0, B = BGRA ? 0 : 2;
  __shared__ uint8_t lut[3][NBINS];
  __shared__ uint32_t warp_sum[NBINS / 32];
  __shared__ int first;
  const int x0 = (blockIdx.x * BLOCK + threadIdx.x) * 4;
  int n;

  if (MODE == ACCEL_EQUALIZE_LUMA)
    build_lut (
        hist + ACCEL_ANALYSIS_LUMA_CHANNEL * NBINS, lut[0], warp_sum, &first);
  else
    for (int c = 0; c < 3; c++)
      build_lut (hist + c * NBINS, lut[c], warp_sum, &first);

  if (x0 >= width)
    return;
  n = min (4, width - x0);
  for (int y = blockIdx.y; y < height; y += gridDim.y)
    {
      uint32_t w[4];

      load4 (src + (size_t)y * src_pitch, x0, n, access, w);
#pragma unroll
      for (int i = 0; i < 4; i++)
        {
          if (MODE == ACCEL_EQUALIZE_LUMA)
            {
              float r = byte_to_f (w[i], R), g = byte_to_f (w[i], 1),
                    b = byte_to_f (w[i], B);
              accel_fx_equalize_luma (lut[0], &r, &g, &b);
              w[i] = (w[i] & 0xff000000u)
                     | ((uint32_t)accel_px_to_u8 (r) << (8 * R))
                     | ((uint32_t)accel_px_to_u8 (g) << 8)
                     | ((uint32_t)accel_px_to_u8 (b) << (8 * B));
            }
          else
            {
              uint32_t o = w[i] & 0xff000000u;
#pragma unroll
              for (int c = 0; c < 3; c++)
                o |= (uint32_t)
                         lut[channel_of<BGRA> (c)][(w[i] >> (8 * c)) & 0xffu]
                     << (8 * c);
              w[i] = o;
            }
        }
      store4 (dst + (size_t)y * dst_pitch, x0, n, access, w);
    }
}

template <bool BGRA, int MODE>
int
launch_equalize (cudaStream_t stream, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, const uint32_t *hist,
    int access)
{
  static std::atomic<int> per_sm;
  const void *kernel = reinterpret_cast<const void *> (equalize<BGRA, MODE>);
  dim3 grid = persistent_grid (
      width, height, resident_blocks (kernel, BLOCK, 0, per_sm));

  equalize<BGRA, MODE><<<grid, BLOCK, 0, stream>>> ((const uint8_t *)src,
      src_pitch, (uint8_t *)dst, dst_pitch, width, height, hist, access);
  return cudaGetLastError ();
}

bool
format_ok (int format)
{
  return format == ACCEL_IMAGE_RGBA8 || format == ACCEL_IMAGE_BGRA8;
}

} // namespace

extern "C" int
accel_analysis_accumulate (void *stream, int format, const void *src,
    size_t src_pitch, int width, int height, int flags, void *previous,
    size_t previous_pitch, uint32_t *histogram, uint64_t *motion)
{
  AccArgs a;
  int err;

  if (!accel_analysis_accumulate_args_valid (format, src, src_pitch, width,
          height, flags, previous, previous_pitch, histogram, motion))
    return cudaErrorInvalidValue;

  a.stream = (cudaStream_t)stream;
  a.src = (const uint8_t *)src;
  a.src_pitch = src_pitch;
  a.width = width;
  a.height = height;
  a.prev = (uint8_t *)previous;
  a.prev_pitch = previous_pitch;
  a.access = access_of (src, src_pitch);
  if (flags & (ACCEL_ANALYSIS_MOTION | ACCEL_ANALYSIS_KEEP))
    a.access = access_min (a.access, access_of (previous, previous_pitch));
  a.hist = histogram;
  a.motion = reinterpret_cast<unsigned long long *> (motion);
  a.flags = flags;

  zero_sums<<<1, BLOCK, 0, a.stream>>> (histogram, a.motion);
  err = cudaGetLastError ();
  if (err != cudaSuccess)
    return err;
  return format == ACCEL_IMAGE_BGRA8 ? pick_luma<true> (a)
                                     : pick_luma<false> (a);
}

extern "C" int
accel_analysis_stats (
    void *stream, const uint32_t *histogram, const uint64_t *motion, float *out)
{
  if (!histogram || !out)
    return cudaErrorInvalidValue;
  stats<<<1, NBINS, 0, (cudaStream_t)stream>>> (
      histogram, reinterpret_cast<const unsigned long long *> (motion), out);
  return cudaGetLastError ();
}

extern "C" int
accel_equalize (void *stream, int format, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height,
    const uint32_t *histogram, int mode)
{
  cudaStream_t s = (cudaStream_t)stream;
  int access;

  if (!format_ok (format) || !histogram
      || !accel_image_args_valid (format, src, src_pitch, width, height)
      || !accel_image_args_valid (format, dst, dst_pitch, width, height))
    return cudaErrorInvalidValue;
  access = access_min (access_of (src, src_pitch), access_of (dst, dst_pitch));
  switch (mode)
    {
    case ACCEL_EQUALIZE_NONE:
      return cudaMemcpy2DAsync (dst, dst_pitch, src, src_pitch,
          (size_t)width * 4, (size_t)height, cudaMemcpyDeviceToDevice, s);
    case ACCEL_EQUALIZE_LUMA:
      return format == ACCEL_IMAGE_BGRA8
                 ? launch_equalize<true, ACCEL_EQUALIZE_LUMA> (s, src,
                     src_pitch, dst, dst_pitch, width, height, histogram,
                     access)
                 : launch_equalize<false, ACCEL_EQUALIZE_LUMA> (s, src,
                     src_pitch, dst, dst_pitch, width, height, histogram,
                     access);
    case ACCEL_EQUALIZE_CHANNELS:
      return format == ACCEL_IMAGE_BGRA8
                 ? launch_equalize<true, ACCEL_EQUALIZE_CHANNELS> (s, src,
                     src_pitch, dst, dst_pitch, width, height, histogram,
                     access)
                 : launch_equalize<false, ACCEL_EQUALIZE_CHANNELS> (s, src,
                     src_pitch, dst, dst_pitch, width, height, histogram,
                     access);
    default:
      return cudaErrorInvalidValue;
    }
}
