/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Sobel edge magnitude
 *
 * Formats RGBA8, BGRA8, GRAY8 and RGBAF32; borders clamp to the edge. The
 * gradient runs on luma: GRAY8 as it is, RGBA8 and BGRA8 on the BT.601
 * luma of each pixel rounded to uint8 (so the gradients are exact
 * integers), RGBAF32 on the float luma. The output has the input's format:
 * R = G = B = magnitude * scale (uint8 outputs clamp and round), alpha kept.
 *
 * @direction, when not NULL, receives atan2f (gy, gx) in radians, one
 * float per pixel, rows @direction_pitch bytes apart (a multiple of 4; x
 * grows to the right, y downwards). See image.h for the frame layout and
 * the return codes. */
#pragma once

#include "image.h"

#ifdef __cplusplus
extern "C"
{
#endif

  int accel_sobel (void *stream, int format, const void *src, size_t src_pitch,
      void *dst, size_t dst_pitch, float *direction, size_t direction_pitch,
      int width, int height, float scale);

  int accel_sobel_host (int format, const void *src, size_t src_pitch,
      void *dst, size_t dst_pitch, float *direction, size_t direction_pitch,
      int width, int height, float scale);

#ifdef __cplusplus
}
#endif
