/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the fused effects pass: the host reference */
#include <string.h>

#include "effects-pixel.h"

int
accel_effects_apply_host (int format, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height,
    const AccelEffectsParams *effects, float *history, int history_valid)
{
  const uint8_t *in = src;
  uint8_t *out = dst;
  int ri = format == ACCEL_IMAGE_BGRA8 ? 2 : 0, bi = 2 - ri;
  size_t plane = (size_t)width * (size_t)height;
  float *prev_plane, *trail_plane;
  AccelEffectsPass pass;

  if ((format != ACCEL_IMAGE_RGBA8 && format != ACCEL_IMAGE_BGRA8) || !effects
      || !accel_image_args_valid (format, src, src_pitch, width, height)
      || !accel_image_args_valid (format, dst, dst_pitch, width, height)
      || (accel_effects_history_planes (effects) > 0 && !history))
    return ACCEL_IMAGE_INVALID_VALUE;
  if (effects->flags == 0)
    {
      for (int y = 0; y < height; y++)
        memcpy (out + (size_t)y * dst_pitch, in + (size_t)y * src_pitch,
            (size_t)width * 4);
      return ACCEL_IMAGE_OK;
    }

  accel_effects_pass_init (effects, width, height, &pass);
  prev_plane = history;
  trail_plane = history && (effects->flags & ACCEL_EFFECTS_DIFFERENCE)
                    ? history + 4 * plane
                    : history;
  for (int y = 0; y < height; y++)
    {
      const uint8_t *row = in + (size_t)y * src_pitch;
      uint8_t *orow = out + (size_t)y * dst_pitch;
      float ny2 = accel_fx_vignette_row (&pass, y);

      for (int x = 0; x < width; x++)
        {
          const uint8_t *p = row + 4 * (size_t)x;
          uint8_t *q = orow + 4 * (size_t)x;
          size_t at = 4 * ((size_t)y * (size_t)width + (size_t)x);
          float px[4];

          px[0] = (float)p[ri];
          px[1] = (float)p[1];
          px[2] = (float)p[bi];
          px[3] = (float)p[3];
          accel_fx_pixel (&pass, pass.flags, px, (float)x, ny2,
              prev_plane ? prev_plane + at : NULL,
              trail_plane ? trail_plane + at : NULL, history_valid != 0);
          q[ri] = accel_px_to_u8 (px[0]);
          q[1] = accel_px_to_u8 (px[1]);
          q[bi] = accel_px_to_u8 (px[2]);
          q[3] = accel_px_to_u8 (px[3]);
        }
    }
  return ACCEL_IMAGE_OK;
}
