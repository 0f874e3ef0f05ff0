/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* helpers of the image host references: channel access of packed formats
 * at any alignment, a row at a time or a channel at a time (not installed,
 * C only) */
#pragma once

#include <string.h>

#include "image.h"
#include "pixel.h"

/* channels a packed format holds */
static inline int
accel_image_host_channels (int format)
{
  return format == ACCEL_IMAGE_GRAY8 ? 1 : 4;
}

/* channel @c of pixel @x of @row, as a float (uint8 values are exact) */
static inline float
accel_image_host_load (int format, const uint8_t *row, int x, int c)
{
  float f;

  if (format != ACCEL_IMAGE_RGBAF32)
    return (float)row[(size_t)x * accel_image_bytes_per_pixel (format) + c];
  memcpy (&f, row + (size_t)x * 16 + (size_t)c * 4, sizeof (f));
  return f;
}

/* stores @v into channel @c of pixel @x of @row; uint8 formats round */
static inline void
accel_image_host_store (int format, uint8_t *row, int x, int c, float v)
{
  if (format != ACCEL_IMAGE_RGBAF32)
    row[(size_t)x * accel_image_bytes_per_pixel (format) + c]
        = accel_px_to_u8 (v);
  else
    memcpy (row + (size_t)x * 16 + (size_t)c * 4, &v, sizeof (v));
}

static inline int
accel_image_host_clamp (int v, int lo, int hi)
{
  return v < lo ? lo : (v > hi ? hi : v);
}

/* the @width pixels of @row as floats, channels in memory order */
static inline void
accel_image_host_load_row (
    int format, const uint8_t *row, int width, float *restrict out)
{
  size_t n = (size_t)width * (size_t)accel_image_host_channels (format);

  if (format == ACCEL_IMAGE_RGBAF32)
    memcpy (out, row, n * sizeof (float));
  else
    for (size_t i = 0; i < n; i++)
      out[i] = (float)row[i];
}

/* stores the @width pixels of @in into @row; uint8 formats round */
static inline void
accel_image_host_store_row (
    int format, uint8_t *restrict row, int width, const float *restrict in)
{
  size_t n = (size_t)width * (size_t)accel_image_host_channels (format);

  if (format == ACCEL_IMAGE_RGBAF32)
    memcpy (row, in, n * sizeof (float));
  else
    for (size_t i = 0; i < n; i++)
      row[i] = accel_px_to_u8 (in[i]);
}
