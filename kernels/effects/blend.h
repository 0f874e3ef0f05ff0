/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* two-input blends of RGBA8 or BGRA8 frames: a layer over a base
 *
 * Each colour channel of the result is f (a, b), the mode's blend of the
 * base a and the layer b (0..255), mixed into the base by the layer's
 * coverage t = alpha_b / 255 * opacity: a + t (f - a). Alpha becomes
 * alpha_a + t (255 - alpha_a). Straight (not premultiplied) alpha; over an
 * opaque base this is Porter-Duff "over".
 *
 *   over      f = b
 *   add       f = min (a + b, 255)
 *   multiply  f = a b / 255
 *   screen    f = 255 - (255 - a) (255 - b) / 255
 *
 * Base, layer and result share one format and size (pitches may differ).
 * The GPU kernel and the host reference compute each pixel with the same
 * function (effects-pixel.h): outputs are equal to the bit. See image.h
 * for the frame layout and the return codes. */
#pragma once

#include "image/image.h"

#ifdef __cplusplus
extern "C"
{
#endif

  typedef enum
  {
    ACCEL_BLEND_OVER,
    ACCEL_BLEND_ADD,
    ACCEL_BLEND_MULTIPLY,
    ACCEL_BLEND_SCREEN,
  } AccelBlendMode;

  /* @opacity in [0, 1] */
  int accel_blend (void *stream, int format, const void *a, size_t a_pitch,
      const void *b, size_t b_pitch, void *dst, size_t dst_pitch, int width,
      int height, int mode, float opacity);

  int accel_blend_host (int format, const void *a, size_t a_pitch,
      const void *b, size_t b_pitch, void *dst, size_t dst_pitch, int width,
      int height, int mode, float opacity);

#ifdef __cplusplus
}
#endif
