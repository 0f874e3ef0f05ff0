/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Sobel edge magnitude: the host reference */
#include <math.h>
#include <stdlib.h>

#include "sobel.h"
#include "image-host.h"

/* the luma the gradient runs on, as the GPU kernel computes it */
static float
luma_at (int format, const uint8_t *row, int x)
{
  float r, g, b;

  if (format == ACCEL_IMAGE_GRAY8)
    return (float)row[x];
  r = accel_image_host_load (format, row, x, 0);
  g = accel_image_host_load (format, row, x, 1);
  b = accel_image_host_load (format, row, x, 2);
  if (format == ACCEL_IMAGE_BGRA8)
    {
      float t = r;
      r = b;
      b = t;
    }
  if (format == ACCEL_IMAGE_RGBAF32)
    return accel_px_luma (r, g, b);
  return (float)accel_px_to_u8 (accel_px_luma (r, g, b));
}

int
accel_sobel_host (int format, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, float *direction, size_t direction_pitch, int width,
    int height, float scale)
{
  const uint8_t *in = src;
  uint8_t *out = dst;
  float *luma;

  if (!accel_image_format_is_packed (format)
      || !accel_image_args_valid (format, src, src_pitch, width, height)
      || !accel_image_args_valid (format, dst, dst_pitch, width, height)
      || (direction
          && (direction_pitch % 4 != 0 || direction_pitch < (size_t)width * 4)))
    return ACCEL_IMAGE_INVALID_VALUE;
  luma = malloc ((size_t)width * (size_t)height * sizeof (float));
  if (!luma)
    return ACCEL_IMAGE_NO_MEMORY;
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      luma[(size_t)y * width + x]
          = luma_at (format, in + (size_t)y * src_pitch, x);

  for (int y = 0; y < height; y++)
    {
      uint8_t *orow = out + (size_t)y * dst_pitch;
      for (int x = 0; x < width; x++)
        {
          float p[9], gx, gy, m;
          for (int j = 0; j < 3; j++)
            for (int i = 0; i < 3; i++)
              {
                int yy = accel_image_host_clamp (y + j - 1, 0, height - 1);
                int xx = accel_image_host_clamp (x + i - 1, 0, width - 1);
                p[j * 3 + i] = luma[(size_t)yy * width + xx];
              }
          accel_px_sobel (p, &gx, &gy);
          m = accel_px_magnitude (gx, gy) * scale;
          if (format == ACCEL_IMAGE_GRAY8)
            {
              orow[x] = accel_px_to_u8 (m);
            }
          else
            {
              float a = accel_image_host_load (
                  format, in + (size_t)y * src_pitch, x, 3);
              for (int c = 0; c < 3; c++)
                accel_image_host_store (format, orow, x, c, m);
              accel_image_host_store (format, orow, x, 3, a);
            }
          if (direction)
            direction[(size_t)y * (direction_pitch / 4) + x] = atan2f (gy, gx);
        }
    }
  free (luma);
  return ACCEL_IMAGE_OK;
}
