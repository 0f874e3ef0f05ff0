/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* separable blurs: Gaussian, box and the unsharp mask built on the Gaussian
 *
 * Formats RGBA8, BGRA8, GRAY8 and RGBAF32; borders clamp to the edge. The
 * blurs filter every channel alike, alpha included; the unsharp mask keeps
 * alpha as it is. Both passes run horizontal first, then vertical, and
 * accumulate taps from -radius to +radius with one fmaf() each; the host
 * references keep the same order, so integer outputs match bit for bit.
 * On 8-bit formats the Gaussian's taps are whole numbers of sum 256
 * (accel_gaussian_weights_u8 ()): each pass then sums exact integers, in
 * any order, and a byte is the two passes' sum / 65536 rounded. See
 * image.h for the frame layout and the return codes. */
#pragma once

#include "image.h"

#ifdef __cplusplus
extern "C"
{
#endif

  /* radius of a Gaussian of @sigma: ceil (3 sigma), from 1 up to
   * ACCEL_IMAGE_MAX_RADIUS; 0 for a sigma that is not positive */
  int accel_gaussian_radius (float sigma);

  /* fills @weights[0 .. 2 radius] with the normalised Gaussian taps of
   * @sigma; returns the radius (0: invalid sigma, nothing written) */
  int accel_gaussian_weights (
      float sigma, float weights[2 * ACCEL_IMAGE_MAX_RADIUS + 1]);

  /* the taps of accel_gaussian_weights () times 256, rounded to whole
   * numbers that still sum to 256 and stay symmetric (largest remainder);
   * outer taps that round to 0 are dropped, down to radius 1. Returns the
   * radius (0: invalid sigma) */
  int accel_gaussian_weights_u8 (
      float sigma, float weights[2 * ACCEL_IMAGE_MAX_RADIUS + 1]);

  /* the Gaussian's taps for @format and what its two passes' sums are
   * multiplied by: accel_gaussian_weights_u8 () and 2^-16 for 8-bit
   * formats, accel_gaussian_weights () and 1 for RGBAF32; the radius */
  int accel_gaussian_taps (int format, float sigma,
      float weights[2 * ACCEL_IMAGE_MAX_RADIUS + 1], float *scale);

  /* GPU launchers */
  int accel_gaussian_blur (void *stream, int format, const void *src,
      size_t src_pitch, void *dst, size_t dst_pitch, int width, int height,
      float sigma);
  /* mean over the (2 radius + 1)^2 window; uint8 sums are exact integers */
  int accel_box_blur (void *stream, int format, const void *src,
      size_t src_pitch, void *dst, size_t dst_pitch, int width, int height,
      int radius);
  /* out = in + amount * (in - gaussian (in, sigma)), alpha kept; an 8-bit
   * channel is rounded half up once, with the multiply-add */
  int accel_unsharp_mask (void *stream, int format, const void *src,
      size_t src_pitch, void *dst, size_t dst_pitch, int width, int height,
      float amount, float sigma);

  /* host references */
  int accel_gaussian_blur_host (int format, const void *src, size_t src_pitch,
      void *dst, size_t dst_pitch, int width, int height, float sigma);
  int accel_box_blur_host (int format, const void *src, size_t src_pitch,
      void *dst, size_t dst_pitch, int width, int height, int radius);
  int accel_unsharp_mask_host (int format, const void *src, size_t src_pitch,
      void *dst, size_t dst_pitch, int width, int height, float amount,
      float sigma);

#ifdef __cplusplus
}
#endif
