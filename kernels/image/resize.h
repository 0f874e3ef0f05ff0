/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bilinear resize to any size
 *
 * Formats RGBA8, BGRA8, GRAY8 and RGBAF32, every channel alike. Pixel
 * centres align: output pixel x samples the input at
 * (x + 0.5) * (src_width / dst_width) - 0.5, clamped to the edge (the
 * scale is computed once in float); the two taps of each axis blend as
 * a + t (b - a) with one fmaf(), horizontally first. Resizing finite values
 * to the same size gives them back unchanged. See image.h for the frame
 * layout and the return codes. */
#pragma once

#include "image.h"

#ifdef __cplusplus
extern "C"
{
#endif

  int accel_resize (void *stream, int format, const void *src, size_t src_pitch,
      int src_width, int src_height, void *dst, size_t dst_pitch, int dst_width,
      int dst_height);

  int accel_resize_host (int format, const void *src, size_t src_pitch,
      int src_width, int src_height, void *dst, size_t dst_pitch, int dst_width,
      int dst_height);

#ifdef __cplusplus
}
#endif
