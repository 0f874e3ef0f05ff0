/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* binary threshold, channel by channel
 *
 * Formats RGBA8, BGRA8, GRAY8 and RGBAF32. Each colour channel (or the
 * gray value) becomes the channel's maximum (255, or 1.0 for floats) where
 * it is greater than @value and 0 elsewhere; alpha is kept. @value is in
 * the channel's own units (0..255 for uint8). See image.h for the frame
 * layout and the return codes. */
#pragma once

#include "image.h"

#ifdef __cplusplus
extern "C"
{
#endif

  int accel_threshold (void *stream, int format, const void *src,
      size_t src_pitch, void *dst, size_t dst_pitch, int width, int height,
      float value);

  int accel_threshold_host (int format, const void *src, size_t src_pitch,
      void *dst, size_t dst_pitch, int width, int height, float value);

#ifdef __cplusplus
}
#endif
