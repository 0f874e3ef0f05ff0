/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* median filter: the host reference, by sorting each window */
#include "median.h"
#include "image-host.h"

static float
median_of (float *v, int n)
{
  /* insertion sort: windows are at most 25 values */
  for (int i = 1; i < n; i++)
    {
      float t = v[i];
      int j = i - 1;
      while (j >= 0 && v[j] > t)
        {
          v[j + 1] = v[j];
          j--;
        }
      v[j + 1] = t;
    }
  return v[n / 2];
}

int
accel_median_host (int format, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int size)
{
  const uint8_t *in = src;
  uint8_t *out = dst;
  int nc = accel_image_host_channels (format);
  int r = size / 2;

  if (!accel_image_format_is_packed (format)
      || !accel_image_args_valid (format, src, src_pitch, width, height)
      || !accel_image_args_valid (format, dst, dst_pitch, width, height)
      || (size != 3 && size != 5))
    return ACCEL_IMAGE_INVALID_VALUE;

  for (int y = 0; y < height; y++)
    {
      uint8_t *orow = out + (size_t)y * dst_pitch;
      for (int x = 0; x < width; x++)
        for (int c = 0; c < nc; c++)
          {
            float v[25];
            int n = 0;
            for (int j = -r; j <= r; j++)
              {
                int yy = accel_image_host_clamp (y + j, 0, height - 1);
                const uint8_t *row = in + (size_t)yy * src_pitch;
                for (int i = -r; i <= r; i++)
                  v[n++] = accel_image_host_load (format, row,
                      accel_image_host_clamp (x + i, 0, width - 1), c);
              }
            accel_image_host_store (format, orow, x, c, median_of (v, n));
          }
    }
  return ACCEL_IMAGE_OK;
}
