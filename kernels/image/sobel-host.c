/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Sobel edge magnitude: the host reference, a band of rows at a time over a
 * ring of three luma rows */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "host/parallel.h"
#include "host/simd.h"
#include "image-host.h"
#include "sobel.h"

typedef struct
{
  int format;
  const uint8_t *in;
  size_t src_pitch;
  uint8_t *out;
  size_t dst_pitch;
  float *direction;
  size_t direction_pitch;
  int width;
  int height;
  float scale;
  atomic_int no_memory;
} Sobel;

/* the luma the gradient runs on, as the GPU kernel computes it, of source
 * row @sy into @luma[1 .. width], with the edge pixels repeated at
 * luma[0] and luma[width + 1] */
static inline void
sobel_luma_row (const Sobel *s, int sy, float *restrict luma)
{
  const uint8_t *row = s->in + (size_t)sy * s->src_pitch;
  int w = s->width;

  if (s->format == ACCEL_IMAGE_GRAY8)
    for (int x = 0; x < w; x++)
      luma[x + 1] = (float)row[x];
  else if (s->format == ACCEL_IMAGE_RGBAF32)
    for (int x = 0; x < w; x++)
      {
        float px[4];
        memcpy (px, row + (size_t)x * 16, sizeof (px));
        luma[x + 1] = accel_px_luma (px[0], px[1], px[2]);
      }
  else
    {
      /* BGRA8 holds blue first */
      int ri = s->format == ACCEL_IMAGE_BGRA8 ? 2 : 0, bi = 2 - ri;
      for (int x = 0; x < w; x++)
        {
          const uint8_t *p = row + (size_t)x * 4;
          luma[x + 1] = (float)accel_px_luma_u8 (
              (float)p[ri], (float)p[1], (float)p[bi]);
        }
    }
  luma[0] = luma[1];
  luma[w + 1] = luma[w];
}

/* output row @y from the luma rows above, at and below it */
static inline void
sobel_row (const Sobel *s, int y, const float *restrict up,
    const float *restrict mid, const float *restrict down, float *restrict gx,
    float *restrict gy)
{
  const uint8_t *row = s->in + (size_t)y * s->src_pitch;
  uint8_t *orow = s->out + (size_t)y * s->dst_pitch;
  int w = s->width;

  for (int x = 0; x < w; x++)
    {
      float p[9] = { up[x], up[x + 1], up[x + 2], mid[x], mid[x + 1],
        mid[x + 2], down[x], down[x + 1], down[x + 2] };
      accel_px_sobel (p, &gx[x], &gy[x]);
    }
  if (s->format == ACCEL_IMAGE_GRAY8)
    for (int x = 0; x < w; x++)
      orow[x] = accel_px_to_u8 (accel_px_magnitude (gx[x], gy[x]) * s->scale);
  else if (s->format == ACCEL_IMAGE_RGBAF32)
    for (int x = 0; x < w; x++)
      {
        float m = accel_px_magnitude (gx[x], gy[x]) * s->scale;
        float px[3] = { m, m, m };
        memcpy (orow + (size_t)x * 16, px, sizeof (px));
        memcpy (orow + (size_t)x * 16 + 12, row + (size_t)x * 16 + 12, 4);
      }
  else
    for (int x = 0; x < w; x++)
      {
        uint8_t m
            = accel_px_to_u8 (accel_px_magnitude (gx[x], gy[x]) * s->scale);
        orow[(size_t)x * 4] = m;
        orow[(size_t)x * 4 + 1] = m;
        orow[(size_t)x * 4 + 2] = m;
        orow[(size_t)x * 4 + 3] = row[(size_t)x * 4 + 3];
      }
  if (s->direction)
    {
      float *d = s->direction + (size_t)y * (s->direction_pitch / 4);
      for (int x = 0; x < w; x++)
        d[x] = atan2f (gy[x], gx[x]);
    }
}

ACCEL_HOST_SIMD static void
sobel_rows (void *data, int y0, int y1)
{
  Sobel *s = data;
  size_t lw = (size_t)s->width + 2;
  float *ring, *gx, *gy;
  int next = y0 > 0 ? y0 - 1 : 0;

  ring = malloc ((3 * lw + 2 * (size_t)s->width) * sizeof (float));
  if (!ring)
    {
      atomic_store (&s->no_memory, 1);
      return;
    }
  gx = ring + 3 * lw;
  gy = gx + s->width;
  for (int y = y0; y < y1; y++)
    {
      int up = y > 0 ? y - 1 : 0, down = y + 1 < s->height ? y + 1 : y;
      for (; next <= down; next++)
        sobel_luma_row (s, next, ring + (size_t)(next % 3) * lw);
      sobel_row (s, y, ring + (size_t)(up % 3) * lw,
          ring + (size_t)(y % 3) * lw, ring + (size_t)(down % 3) * lw, gx, gy);
    }
  free (ring);
}

int
accel_sobel_host (int format, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, float *direction, size_t direction_pitch, int width,
    int height, float scale)
{
  Sobel s = {
    .format = format,
    .in = src,
    .src_pitch = src_pitch,
    .out = dst,
    .dst_pitch = dst_pitch,
    .direction = direction,
    .direction_pitch = direction_pitch,
    .width = width,
    .height = height,
    .scale = scale,
  };

  if (!accel_image_format_is_packed (format)
      || !accel_image_args_valid (format, src, src_pitch, width, height)
      || !accel_image_args_valid (format, dst, dst_pitch, width, height)
      || (direction
          && (direction_pitch % 4 != 0 || direction_pitch < (size_t)width * 4)))
    return ACCEL_IMAGE_INVALID_VALUE;
  atomic_init (&s.no_memory, 0);
  accel_host_parallel_rows (height,
      accel_host_min_rows (
          (size_t)width * accel_image_bytes_per_pixel (format)),
      sobel_rows, &s);
  return atomic_load (&s.no_memory) ? ACCEL_IMAGE_NO_MEMORY : ACCEL_IMAGE_OK;
}
