/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* colour conversion between RGBA8, BGRA8, GRAY8, NV12, I420 and RGBAF32
 *
 * Conventions:
 * - RGB <-> YUV is BT.601 full range (JFIF): Y = 0.299 R + 0.587 G +
 *   0.114 B, U = 128 - 0.168736 R - 0.331264 G + 0.5 B, V = 128 + 0.5 R -
 *   0.418688 G - 0.081312 B, with R, G, B, Y, U, V all 0..255; back:
 *   R = Y + 1.402 (V - 128), G = Y - 0.344136 (U - 128) - 0.714136 (V - 128),
 *   B = Y + 1.772 (U - 128), clamped to 0..255.
 * - 4:2:0 chroma is sited at the centre of each 2x2 block: encoding averages
 *   the block's R, G, B (the pixels inside the frame, for odd sizes) and
 *   converts the mean; decoding gives each pixel of a block its chroma.
 * - RGBAF32 channels map 0..1 to 0..255 (x 255 in, / 255 out; no clamp on
 *   the way to floats from 8-bit data, which cannot leave the range).
 * - GRAY8 is luma: from colour formats Y rounded, to colour formats
 *   R = G = B = Y; from NV12 and I420 the Y plane as it is. From 8-bit
 *   pixels (RGBA8, BGRA8) Y is exact: (299 R + 587 G + 114 B + 500) / 1000
 *   rounded down, in GRAY8 and in the Y plane alike (accel_px_luma_u8 ()).
 * - accel_convert_yuv () decodes NV12 and I420 with another matrix
 *   (BT.709, BT.2020) or at limited range (Y 16..235, U and V 16..240):
 *   Y' = (Y - 16) 255 / 219 and the chroma scaled by 255 / 224, then the
 *   matrix's own coefficients; GRAY8 from a limited range frame is Y'
 *   rounded. The encoders always write BT.601 full range.
 * - Alpha is lost in GRAY8, NV12 and I420 and comes back opaque (255, 1.0).
 * - Converting to the same format copies.
 *
 * Round trips: RGBA8 <-> BGRA8 <-> RGBAF32 and NV12 <-> I420 are exact;
 * RGBA8 -> NV12/I420 -> RGBA8 stays within 2 for a colour that is constant
 * over each 2x2 block. See image.h for the frame layout and the return
 * codes. */
#pragma once

#include "image.h"

#ifdef __cplusplus
extern "C"
{
#endif

  /* the matrices accel_convert_yuv () decodes with */
  typedef enum
  {
    ACCEL_YUV_BT601,
    ACCEL_YUV_BT709,
    ACCEL_YUV_BT2020,
  } AccelYuvMatrix;

  int accel_convert (void *stream, int src_format, const void *src,
      size_t src_pitch, int dst_format, void *dst, size_t dst_pitch, int width,
      int height);

  int accel_convert_host (int src_format, const void *src, size_t src_pitch,
      int dst_format, void *dst, size_t dst_pitch, int width, int height);

  /* as accel_convert () and accel_convert_host (), NV12 and I420 sources
   * decoded with @matrix (AccelYuvMatrix) at full or limited range; an
   * unknown matrix is an invalid value */
  int accel_convert_yuv (void *stream, int matrix, int full_range,
      int src_format, const void *src, size_t src_pitch, int dst_format,
      void *dst, size_t dst_pitch, int width, int height);

  int accel_convert_yuv_host (int matrix, int full_range, int src_format,
      const void *src, size_t src_pitch, int dst_format, void *dst,
      size_t dst_pitch, int width, int height);

#ifdef __cplusplus
}
#endif
