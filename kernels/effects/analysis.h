/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* frame analysis of RGBA8 and BGRA8 frames, in passes:
 *
 * 1. accumulate: one pass over the frame gives a 256-bin histogram of
 *    each channel, R, G, B, A (in this order for BGRA8 too) and, on
 *    request, of the BT.601 luma Y (rounded as every uint8 result); and,
 *    with the previous frame, the sum of |this - previous| of each
 *    channel (motion). It may also copy the frame over the previous one,
 *    for the next call.
 * 2. stats: from those sums, per channel: min, max, mean, standard
 *    deviation (population) and motion energy (the mean absolute
 *    difference to the previous frame), as floats.
 * 3. equalize: histogram equalisation of the frame, from its histogram:
 *    - ACCEL_EQUALIZE_LUMA: the luma histogram is equalised and each
 *      pixel's R, G, B move by the same amount, to its new luma: its
 *      chroma (U, V) stays, so hues do not shift;
 *    - ACCEL_EQUALIZE_CHANNELS: R, G and B are equalised independently
 *      (this stretches each channel, and shifts colours).
 *    Alpha is kept. The occupied range of levels is stretched over 0..255:
 *    level v becomes round (255 (cdf (v) - cdf_min) / (n - cdf_min)), with
 *    cdf_min the count of the lowest occupied level; a frame of a single
 *    level is kept as it is.
 *
 * Everything here is exact and deterministic: the GPU counts with integer
 * atomics, the statistics are computed in double from the integer sums in
 * one fixed order on both sides, and equalisation uses integer levels; GPU
 * and host results are equal to the bit. See image.h for the frame layout
 * and the return codes. */
#pragma once

#include "image/image.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* channels of the sums and statistics: R, G, B, A, luma */
#define ACCEL_ANALYSIS_CHANNELS 5
#define ACCEL_ANALYSIS_LUMA_CHANNEL 4
#define ACCEL_ANALYSIS_BINS 256
/* statistics of a channel: min, max, mean, stddev, motion energy */
#define ACCEL_ANALYSIS_STATS 5

/* accumulate flags */
#define ACCEL_ANALYSIS_LUMA (1 << 0)   /* the luma histogram (and motion) */
#define ACCEL_ANALYSIS_MOTION (1 << 1) /* compare with @previous */
#define ACCEL_ANALYSIS_KEEP (1 << 2)   /* then copy the frame to @previous */

  /* whether the arguments of accel_analysis_accumulate () (and of its host
   * reference) are sane */
  static inline int accel_analysis_accumulate_args_valid (int format,
      const void *src, size_t src_pitch, int width, int height, int flags,
      const void *previous, size_t previous_pitch, const uint32_t *histogram,
      const uint64_t *motion)
  {
    return (format == ACCEL_IMAGE_RGBA8 || format == ACCEL_IMAGE_BGRA8)
           && histogram
           && accel_image_args_valid (format, src, src_pitch, width, height)
           && !(flags
                & ~(ACCEL_ANALYSIS_LUMA | ACCEL_ANALYSIS_MOTION
                    | ACCEL_ANALYSIS_KEEP))
           && (!(flags & (ACCEL_ANALYSIS_MOTION | ACCEL_ANALYSIS_KEEP))
               || accel_image_args_valid (
                   format, previous, previous_pitch, width, height))
           && (!(flags & ACCEL_ANALYSIS_MOTION) || motion);
  }

  typedef enum
  {
    ACCEL_EQUALIZE_NONE,
    ACCEL_EQUALIZE_LUMA,
    ACCEL_EQUALIZE_CHANNELS,
  } AccelEqualizeMode;

  /**
   * accel_analysis_accumulate:
   * @histogram: ACCEL_ANALYSIS_CHANNELS x ACCEL_ANALYSIS_BINS counts,
   *   overwritten (the luma row stays 0 without ACCEL_ANALYSIS_LUMA)
   * @motion: (nullable): ACCEL_ANALYSIS_CHANNELS sums, overwritten (0
   *   without ACCEL_ANALYSIS_MOTION)
   * @previous: (nullable): the previous frame, same format and size, read
   *   with ACCEL_ANALYSIS_MOTION, written with ACCEL_ANALYSIS_KEEP
   *
   * Device pointers for the launcher, host pointers for the reference.
   */
  int accel_analysis_accumulate (void *stream, int format, const void *src,
      size_t src_pitch, int width, int height, int flags, void *previous,
      size_t previous_pitch, uint32_t *histogram, uint64_t *motion);

  /* @stats: ACCEL_ANALYSIS_CHANNELS x ACCEL_ANALYSIS_STATS floats from the
   * sums of one accumulate (@motion may be NULL: motion 0); a channel
   * without counts (luma, when not asked for) gets zeros */
  int accel_analysis_stats (void *stream, const uint32_t *histogram,
      const uint64_t *motion, float *stats);

  /* equalises @src into @dst by @mode, from @histogram, the accumulate
   * sums of @src (the luma row for ACCEL_EQUALIZE_LUMA) */
  int accel_equalize (void *stream, int format, const void *src,
      size_t src_pitch, void *dst, size_t dst_pitch, int width, int height,
      const uint32_t *histogram, int mode);

  int accel_analysis_accumulate_host (int format, const void *src,
      size_t src_pitch, int width, int height, int flags, void *previous,
      size_t previous_pitch, uint32_t *histogram, uint64_t *motion);
  int accel_analysis_stats_host (
      const uint32_t *histogram, const uint64_t *motion, float *stats);
  int accel_equalize_host (int format, const void *src, size_t src_pitch,
      void *dst, size_t dst_pitch, int width, int height,
      const uint32_t *histogram, int mode);

#ifdef __cplusplus
}
#endif
