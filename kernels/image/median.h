/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* median filter over a 3x3 or 5x5 window
 *
 * Formats RGBA8, BGRA8, GRAY8 and RGBAF32; every channel, alpha included,
 * takes the median of its own values; borders clamp to the edge. The
 * median is one of the window's values, so GPU and host agree to the bit
 * for every format. See image.h for the frame layout and the return codes.
 */
#pragma once

#include "image.h"

#ifdef __cplusplus
extern "C"
{
#endif

  /* @size: 3 or 5 */
  int accel_median (void *stream, int format, const void *src, size_t src_pitch,
      void *dst, size_t dst_pitch, int width, int height, int size);

  int accel_median_host (int format, const void *src, size_t src_pitch,
      void *dst, size_t dst_pitch, int width, int height, int size);

#ifdef __cplusplus
}
#endif
