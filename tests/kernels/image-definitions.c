/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the image kernels' host references written the plain way, one pixel and
 * one channel at a time on one thread, with the per-pixel arithmetic of
 * pixel.h: what the banded, vectorized references must equal byte for byte
 * (test-image-bands.c). Arithmetic in pixel.h is shared; an order of
 * operations kept in a kernel itself (the blurs' taps from -radius up, the
 * 4:2:0 chroma sums row by row) is written here again, so a change to it
 * in the .cu and *-host.c files is made here too. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "image-definitions.h"
#include "image/blur.h"
#include "image/convert.h"
#include "image/image-host.h"
typedef enum
{
  SEPARABLE_GAUSSIAN,
  SEPARABLE_BOX,
  SEPARABLE_UNSHARP,
} SeparableOp;

/* horizontal pass into a float plane, vertical pass out of it: the order
 * the GPU kernel keeps */
static int
separable (SeparableOp op, int format, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, int radius,
    const float *weights, float scale, float amount)
{
  const uint8_t *in = src;
  uint8_t *out = dst;
  int nc = accel_image_host_channels (format);
  float area = (float)((2 * radius + 1) * (2 * radius + 1));
  float *tmp;

  tmp = malloc ((size_t)width * (size_t)height * (size_t)nc * sizeof (float));
  if (!tmp)
    return ACCEL_IMAGE_NO_MEMORY;

  for (int y = 0; y < height; y++)
    {
      const uint8_t *row = in + (size_t)y * src_pitch;
      for (int x = 0; x < width; x++)
        for (int c = 0; c < nc; c++)
          {
            float acc = 0.0f;
            for (int k = -radius; k <= radius; k++)
              {
                int xi = accel_image_host_clamp (x + k, 0, width - 1);
                float v = accel_image_host_load (format, row, xi, c);
                acc = op == SEPARABLE_BOX ? acc + v
                                          : fmaf (weights[k + radius], v, acc);
              }
            tmp[((size_t)y * width + x) * nc + c] = acc;
          }
    }

  for (int y = 0; y < height; y++)
    {
      const uint8_t *row = in + (size_t)y * src_pitch;
      uint8_t *orow = out + (size_t)y * dst_pitch;
      for (int x = 0; x < width; x++)
        for (int c = 0; c < nc; c++)
          {
            float acc = 0.0f, v;
            for (int k = -radius; k <= radius; k++)
              {
                int yi = accel_image_host_clamp (y + k, 0, height - 1);
                float t = tmp[((size_t)yi * width + x) * nc + c];
                acc = op == SEPARABLE_BOX ? acc + t
                                          : fmaf (weights[k + radius], t, acc);
              }
            acc *= scale;
            if (op == SEPARABLE_BOX)
              v = acc / area;
            else if (op == SEPARABLE_UNSHARP)
              {
                float centre = accel_image_host_load (format, row, x, c);
                v = c == 3 ? centre
                    : format == ACCEL_IMAGE_RGBAF32
                        ? accel_px_unsharp (centre, acc, amount)
                        : accel_px_unsharp_u8 (centre, acc, amount);
              }
            else
              v = acc;
            accel_image_host_store (format, orow, x, c, v);
          }
    }
  free (tmp);
  return ACCEL_IMAGE_OK;
}

/* the Gaussian's taps of @sigma, then the pass */
static int
with_gaussian (SeparableOp op, int format, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, float sigma,
    float amount)
{
  float taps[2 * ACCEL_IMAGE_MAX_RADIUS + 1], scale;
  int radius = accel_gaussian_taps (format, sigma, taps, &scale);

  return radius ? separable (op, format, src, src_pitch, dst, dst_pitch, width,
             height, radius, taps, scale, amount)
                : ACCEL_IMAGE_INVALID_VALUE;
}

int
definition_gaussian_blur (int format, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, float sigma)
{
  return with_gaussian (SEPARABLE_GAUSSIAN, format, src, src_pitch, dst,
      dst_pitch, width, height, sigma, 0.0f);
}

int
definition_box_blur (int format, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int radius)
{
  return separable (SEPARABLE_BOX, format, src, src_pitch, dst, dst_pitch,
      width, height, radius, NULL, 1.0f, 0.0f);
}

int
definition_unsharp_mask (int format, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, float amount,
    float sigma)
{
  return with_gaussian (SEPARABLE_UNSHARP, format, src, src_pitch, dst,
      dst_pitch, width, height, sigma, amount);
}

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
  return (float)accel_px_luma_u8 (r, g, b);
}

int
definition_sobel (int format, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, float *direction, size_t direction_pitch, int width,
    int height, float scale)
{
  const uint8_t *in = src;
  uint8_t *out = dst;
  float *luma;

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

/* the value with fewer than n / 2 + 1 values below it and at least that
 * many at or below it: the middle of the sorted window, found by counting */
static float
median_of (const float *v, int n)
{
  for (int i = 0; i < n; i++)
    {
      int below = 0, at_or_below = 0;
      for (int j = 0; j < n; j++)
        {
          below += v[j] < v[i];
          at_or_below += v[j] <= v[i];
        }
      if (below <= n / 2 && n / 2 < at_or_below)
        return v[i];
    }
  return NAN;
}

int
definition_median (int format, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int size)
{
  const uint8_t *in = src;
  uint8_t *out = dst;
  int nc = accel_image_host_channels (format);
  int r = size / 2;

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

int
definition_threshold (int format, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, float value)
{
  const uint8_t *in = src;
  uint8_t *out = dst;
  int nc = accel_image_host_channels (format);
  float high = format == ACCEL_IMAGE_RGBAF32 ? 1.0f : 255.0f;

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

int
definition_resize (int format, const void *src, size_t src_pitch, int src_width,
    int src_height, void *dst, size_t dst_pitch, int dst_width, int dst_height)
{
  const uint8_t *in = src;
  uint8_t *out = dst;
  int nc = accel_image_host_channels (format);
  float sx = (float)src_width / (float)dst_width;
  float sy = (float)src_height / (float)dst_height;

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

/* a pixel of a packed format as R, G, B, A on the 0..255 scale */
static void
decode (int format, const uint8_t *row, int x, float *px)
{
  if (format == ACCEL_IMAGE_GRAY8)
    {
      px[0] = px[1] = px[2] = (float)row[x];
      px[3] = 255.0f;
      return;
    }
  for (int c = 0; c < 4; c++)
    {
      float v = accel_image_host_load (format, row, x, c);
      px[c] = format == ACCEL_IMAGE_RGBAF32 ? accel_px_unit_to_255 (v) : v;
    }
  if (format == ACCEL_IMAGE_BGRA8)
    {
      float t = px[0];
      px[0] = px[2];
      px[2] = t;
    }
}

/* the luma byte of a pixel decoded from @src_format: exact from 8-bit
 * RGB, the float luma rounded from anything else */
static uint8_t
luma_byte (int src_format, const float *px)
{
  if (src_format == ACCEL_IMAGE_RGBA8 || src_format == ACCEL_IMAGE_BGRA8
      || src_format == ACCEL_IMAGE_GRAY8)
    return accel_px_luma_u8 (px[0], px[1], px[2]);
  return accel_px_to_u8 (accel_px_luma (px[0], px[1], px[2]));
}

/* a pixel decoded from @src_format into @format */
static void
encode (int src_format, int format, uint8_t *row, int x, const float *px)
{
  switch (format)
    {
    case ACCEL_IMAGE_GRAY8:
      row[x] = luma_byte (src_format, px);
      break;
    case ACCEL_IMAGE_RGBAF32:
      for (int c = 0; c < 4; c++)
        accel_image_host_store (
            format, row, x, c, accel_px_255_to_unit (px[c]));
      break;
    case ACCEL_IMAGE_BGRA8:
      accel_image_host_store (format, row, x, 0, px[2]);
      accel_image_host_store (format, row, x, 1, px[1]);
      accel_image_host_store (format, row, x, 2, px[0]);
      accel_image_host_store (format, row, x, 3, px[3]);
      break;
    default:
      for (int c = 0; c < 4; c++)
        accel_image_host_store (format, row, x, c, px[c]);
      break;
    }
}

static void
packed_to_yuv (int sf, const uint8_t *src, size_t sp, int df, uint8_t *dst,
    size_t dp, int width, int height)
{
  size_t uo, vo, cp, step;

  accel_image_chroma_layout (df, dp, height, &uo, &vo, &cp, &step);
  for (int by = 0; by < (height + 1) / 2; by++)
    for (int bx = 0; bx < (width + 1) / 2; bx++)
      {
        float sum[3] = { 0.0f, 0.0f, 0.0f }, n = 0.0f, mean[3];
        for (int j = 0; j < 2 && 2 * by + j < height; j++)
          for (int i = 0; i < 2 && 2 * bx + i < width; i++)
            {
              int x = 2 * bx + i, y = 2 * by + j;
              float px[4];
              decode (sf, src + (size_t)y * sp, x, px);
              dst[(size_t)y * dp + x] = luma_byte (sf, px);
              for (int c = 0; c < 3; c++)
                sum[c] = sum[c] + px[c];
              n = n + 1.0f;
            }
        for (int c = 0; c < 3; c++)
          mean[c] = sum[c] / n;
        dst[uo + (size_t)by * cp + (size_t)bx * step]
            = accel_px_to_u8 (accel_px_u (mean[0], mean[1], mean[2]));
        dst[vo + (size_t)by * cp + (size_t)bx * step]
            = accel_px_to_u8 (accel_px_v (mean[0], mean[1], mean[2]));
      }
}

static void
yuv_to_packed (const AccelPxYuv *m, int sf, const uint8_t *src, size_t sp,
    int df, uint8_t *dst, size_t dp, int width, int height)
{
  size_t uo, vo, cp, step;

  accel_image_chroma_layout (sf, sp, height, &uo, &vo, &cp, &step);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      {
        size_t c = uo + (size_t)(y / 2) * cp + (size_t)(x / 2) * step;
        size_t d = vo + (size_t)(y / 2) * cp + (size_t)(x / 2) * step;
        float px[4];
        accel_px_yuv_to_rgb (m, (float)src[(size_t)y * sp + x], (float)src[c],
            (float)src[d], &px[0], &px[1], &px[2]);
        for (int k = 0; k < 3; k++)
          px[k] = accel_px_clamp_255 (px[k]);
        px[3] = 255.0f;
        encode (sf, df, dst + (size_t)y * dp, x, px);
      }
}

/* the copies (4:2:0 to 4:2:0, a format to itself, 4:2:0 to GRAY8) are
 * plain copies in the implementation too: they are left to it */
int
definition_convert (int src_format, const void *src, size_t src_pitch,
    int dst_format, void *dst, size_t dst_pitch, int width, int height)
{
  return definition_convert_yuv (ACCEL_YUV_BT601, 1, src_format, src, src_pitch,
      dst_format, dst, dst_pitch, width, height);
}

/* GRAY8 from a limited range 4:2:0 frame: each luma byte taken to 0..255 */
int
definition_convert_yuv (int matrix, int full_range, int src_format,
    const void *src, size_t src_pitch, int dst_format, void *dst,
    size_t dst_pitch, int width, int height)
{
  const uint8_t *in = src;
  uint8_t *out = dst;
  int src_yuv = !accel_image_format_is_packed (src_format);
  int dst_yuv = !accel_image_format_is_packed (dst_format);
  AccelPxYuv m = accel_px_yuv_matrix (matrix, full_range);

  if (src_yuv && dst_format == ACCEL_IMAGE_GRAY8 && !full_range)
    {
      for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
          out[(size_t)y * dst_pitch + x] = accel_px_to_u8 (accel_px_clamp_255 (
              accel_px_luma_full (&m, (float)in[(size_t)y * src_pitch + x])));
      return ACCEL_IMAGE_OK;
    }
  if ((src_yuv && dst_yuv) || src_format == dst_format
      || (src_yuv && dst_format == ACCEL_IMAGE_GRAY8))
    return accel_convert_host (
        src_format, src, src_pitch, dst_format, dst, dst_pitch, width, height);
  if (src_yuv)
    yuv_to_packed (&m, src_format, in, src_pitch, dst_format, out, dst_pitch,
        width, height);
  else if (dst_yuv)
    packed_to_yuv (
        src_format, in, src_pitch, dst_format, out, dst_pitch, width, height);
  else
    for (int y = 0; y < height; y++)
      for (int x = 0; x < width; x++)
        {
          float px[4];
          decode (src_format, in + (size_t)y * src_pitch, x, px);
          encode (src_format, dst_format, out + (size_t)y * dst_pitch, x, px);
        }
  return ACCEL_IMAGE_OK;
}
