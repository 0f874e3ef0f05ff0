/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* binary threshold: the host reference, a band of rows at a time */
#include "host/parallel.h"
#include "host/simd.h"
#include "image-host.h"
#include "threshold.h"

typedef struct
{
  int format;
  const uint8_t *in;
  size_t src_pitch;
  uint8_t *out;
  size_t dst_pitch;
  int width;
  float value;
} Threshold;

/* the colour channels become high or 0, alpha stays */
static inline float
threshold_channel (float v, int c, float value, float high)
{
  return c == 3 ? v : (v > value ? high : 0.0f);
}

ACCEL_HOST_SIMD static void
threshold_rows (void *data, int y0, int y1)
{
  const Threshold *t = data;
  int nc = accel_image_host_channels (t->format);
  size_t n = (size_t)t->width * nc;

  for (int y = y0; y < y1; y++)
    {
      const uint8_t *restrict row = t->in + (size_t)y * t->src_pitch;
      uint8_t *restrict orow = t->out + (size_t)y * t->dst_pitch;

      if (t->format == ACCEL_IMAGE_RGBAF32)
        for (size_t i = 0; i < n; i++)
          accel_image_host_store (t->format, orow, (int)(i / 4), (int)(i % 4),
              threshold_channel (accel_image_host_load (t->format, row,
                                     (int)(i / 4), (int)(i % 4)),
                  (int)(i % 4), t->value, 1.0f));
      else if (nc == 1)
        for (size_t i = 0; i < n; i++)
          orow[i] = accel_px_to_u8 (
              threshold_channel ((float)row[i], 0, t->value, 255.0f));
      else
        for (size_t x = 0; x < n; x += 4)
#pragma GCC unroll 4
          for (int c = 0; c < 4; c++)
            orow[x + c] = accel_px_to_u8 (
                threshold_channel ((float)row[x + c], c, t->value, 255.0f));
    }
}

int
accel_threshold_host (int format, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, float value)
{
  Threshold t = { format, src, src_pitch, dst, dst_pitch, width, value };

  if (!accel_image_format_is_packed (format)
      || !accel_image_args_valid (format, src, src_pitch, width, height)
      || !accel_image_args_valid (format, dst, dst_pitch, width, height))
    return ACCEL_IMAGE_INVALID_VALUE;
  accel_host_parallel_rows (height,
      accel_host_min_rows (
          (size_t)width * accel_image_bytes_per_pixel (format)),
      threshold_rows, &t);
  return ACCEL_IMAGE_OK;
}
