/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* binary threshold: the host reference */
#include "threshold.h"
#include "image-host.h"

int
accel_threshold_host (int format, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, float value)
{
  const uint8_t *in = src;
  uint8_t *out = dst;
  int nc = accel_image_host_channels (format);
  float high = format == ACCEL_IMAGE_RGBAF32 ? 1.0f : 255.0f;

  if (!accel_image_format_is_packed (format)
      || !accel_image_args_valid (format, src, src_pitch, width, height)
      || !accel_image_args_valid (format, dst, dst_pitch, width, height))
    return ACCEL_IMAGE_INVALID_VALUE;

  for (int y = 0; y < height; y++)
    {
      const uint8_t *row = in + (size_t)y * src_pitch;
      uint8_t *orow = out + (size_t)y * dst_pitch;
      for (int x = 0; x < width; x++)
        for (int c = 0; c < nc; c++)
          {
            float v = accel_image_host_load (format, row, x, c);
            if (c != 3)
              v = v > value ? high : 0.0f;
            accel_image_host_store (format, orow, x, c, v);
          }
    }
  return ACCEL_IMAGE_OK;
}
