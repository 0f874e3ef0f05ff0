/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bilinear resize: the host reference */
#include "resize.h"
#include "image-host.h"

int
accel_resize_host (int format, const void *src, size_t src_pitch, int src_width,
    int src_height, void *dst, size_t dst_pitch, int dst_width, int dst_height)
{
  const uint8_t *in = src;
  uint8_t *out = dst;
  int nc = accel_image_host_channels (format);
  float sx = (float)src_width / (float)dst_width;
  float sy = (float)src_height / (float)dst_height;

  if (!accel_image_format_is_packed (format)
      || !accel_image_args_valid (format, src, src_pitch, src_width, src_height)
      || !accel_image_args_valid (
          format, dst, dst_pitch, dst_width, dst_height))
    return ACCEL_IMAGE_INVALID_VALUE;

  for (int y = 0; y < dst_height; y++)
    {
      int y0, y1;
      float ty;
      const uint8_t *r0, *r1;
      uint8_t *orow = out + (size_t)y * dst_pitch;

      accel_px_resize_tap (y, sy, src_height, &y0, &y1, &ty);
      r0 = in + (size_t)y0 * src_pitch;
      r1 = in + (size_t)y1 * src_pitch;
      for (int x = 0; x < dst_width; x++)
        {
          int x0, x1;
          float tx;

          accel_px_resize_tap (x, sx, src_width, &x0, &x1, &tx);
          for (int c = 0; c < nc; c++)
            {
              float top
                  = accel_px_lerp (accel_image_host_load (format, r0, x0, c),
                      accel_image_host_load (format, r0, x1, c), tx);
              float bottom
                  = accel_px_lerp (accel_image_host_load (format, r1, x0, c),
                      accel_image_host_load (format, r1, x1, c), tx);
              accel_image_host_store (
                  format, orow, x, c, accel_px_lerp (top, bottom, ty));
            }
        }
    }
  return ACCEL_IMAGE_OK;
}
