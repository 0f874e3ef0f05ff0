/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the fused effects pass: the host reference, a band of rows at a time */
#include <string.h>

#include "effects-pixel.h"
#include "host/parallel.h"
#include "host/simd.h"

typedef struct
{
  const uint8_t *in;
  size_t src_pitch;
  uint8_t *out;
  size_t dst_pitch;
  int width;
  int ri;
  AccelEffectsPass pass;
  float *prev_plane;
  float *trail_plane;
  int history_valid;
} Effects;

/* rows [y0, y1): each pixel through the fused pass, its history too */
ACCEL_HOST_SIMD static void
effects_rows (void *data, int y0, int y1)
{
  const Effects *e = data;
  int ri = e->ri, bi = 2 - ri;

  for (int y = y0; y < y1; y++)
    {
      const uint8_t *row = e->in + (size_t)y * e->src_pitch;
      uint8_t *orow = e->out + (size_t)y * e->dst_pitch;
      float ny2 = accel_fx_vignette_row (&e->pass, y);

      for (int x = 0; x < e->width; x++)
        {
          const uint8_t *p = row + 4 * (size_t)x;
          uint8_t *q = orow + 4 * (size_t)x;
          size_t at = 4 * ((size_t)y * (size_t)e->width + (size_t)x);
          float px[4];

          px[0] = (float)p[ri];
          px[1] = (float)p[1];
          px[2] = (float)p[bi];
          px[3] = (float)p[3];
          accel_fx_pixel (&e->pass, e->pass.flags, px, (float)x, ny2,
              e->prev_plane ? e->prev_plane + at : NULL,
              e->trail_plane ? e->trail_plane + at : NULL,
              e->history_valid != 0);
          q[ri] = accel_px_to_u8 (px[0]);
          q[1] = accel_px_to_u8 (px[1]);
          q[bi] = accel_px_to_u8 (px[2]);
          q[3] = accel_px_to_u8 (px[3]);
        }
    }
}

int
accel_effects_apply_host (int format, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height,
    const AccelEffectsParams *effects, float *history, int history_valid)
{
  const uint8_t *in = src;
  uint8_t *out = dst;
  size_t plane = (size_t)width * (size_t)height;
  Effects e;

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

  e.in = in;
  e.src_pitch = src_pitch;
  e.out = out;
  e.dst_pitch = dst_pitch;
  e.width = width;
  e.ri = format == ACCEL_IMAGE_BGRA8 ? 2 : 0;
  accel_effects_pass_init (effects, width, height, &e.pass);
  e.prev_plane = history;
  e.trail_plane = history && (effects->flags & ACCEL_EFFECTS_DIFFERENCE)
                      ? history + 4 * plane
                      : history;
  e.history_valid = history_valid;
  accel_host_parallel_rows (
      height, accel_host_min_rows ((size_t)width * 4), effects_rows, &e);
  return ACCEL_IMAGE_OK;
}
