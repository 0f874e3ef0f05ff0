/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* two-input blends: the host reference, a band of rows at a time */
#include "effects-pixel.h"
#include "host/parallel.h"
#include "host/simd.h"

typedef struct
{
  const uint8_t *a;
  size_t a_pitch;
  const uint8_t *b;
  size_t b_pitch;
  uint8_t *dst;
  size_t dst_pitch;
  int width;
  int mode;
  float scale;
} Blend;

ACCEL_HOST_SIMD static void
blend_rows (void *data, int y0, int y1)
{
  const Blend *bl = data;

  for (int y = y0; y < y1; y++)
    {
      const uint8_t *ra = bl->a + (size_t)y * bl->a_pitch;
      const uint8_t *rb = bl->b + (size_t)y * bl->b_pitch;
      uint8_t *ro = bl->dst + (size_t)y * bl->dst_pitch;

      for (int x = 0; x < bl->width; x++)
        {
          float va[4], vb[4], out[4];
          for (int c = 0; c < 4; c++)
            {
              va[c] = (float)ra[4 * x + c];
              vb[c] = (float)rb[4 * x + c];
            }
          accel_fx_blend (bl->mode, bl->scale, va, vb, out);
          for (int c = 0; c < 4; c++)
            ro[4 * x + c] = accel_px_to_u8 (out[c]);
        }
    }
}

int
accel_blend_host (int format, const void *a, size_t a_pitch, const void *b,
    size_t b_pitch, void *dst, size_t dst_pitch, int width, int height,
    int mode, float opacity)
{
  Blend bl = { a, a_pitch, b, b_pitch, dst, dst_pitch, width, mode,
    accel_fx_blend_scale (opacity) };

  if ((format != ACCEL_IMAGE_RGBA8 && format != ACCEL_IMAGE_BGRA8)
      || !accel_image_args_valid (format, a, a_pitch, width, height)
      || !accel_image_args_valid (format, b, b_pitch, width, height)
      || !accel_image_args_valid (format, dst, dst_pitch, width, height)
      || !(opacity >= 0.0f && opacity <= 1.0f) || mode < ACCEL_BLEND_OVER
      || mode > ACCEL_BLEND_SCREEN)
    return ACCEL_IMAGE_INVALID_VALUE;
  accel_host_parallel_rows (
      height, accel_host_min_rows ((size_t)width * 4), blend_rows, &bl);
  return ACCEL_IMAGE_OK;
}
