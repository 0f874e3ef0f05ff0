/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* colour conversion: the host reference, a band of rows at a time */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "host/parallel.h"
#include "host/simd.h"
#include "image-host.h"

/* the @width pixels of @row as R, G, B, A on the 0..255 scale */
static inline void
decode_row (int format, const uint8_t *row, int width, float *restrict px)
{
  switch (format)
    {
    case ACCEL_IMAGE_GRAY8:
      for (int x = 0; x < width; x++)
        {
          px[4 * x] = px[4 * x + 1] = px[4 * x + 2] = (float)row[x];
          px[4 * x + 3] = 255.0f;
        }
      break;
    case ACCEL_IMAGE_RGBAF32:
      for (int i = 0; i < 4 * width; i++)
        px[i] = accel_px_unit_to_255 (
            accel_image_host_load (format, row, i / 4, i % 4));
      break;
    case ACCEL_IMAGE_BGRA8:
      for (int x = 0; x < width; x++)
        {
          px[4 * x] = (float)row[4 * x + 2];
          px[4 * x + 1] = (float)row[4 * x + 1];
          px[4 * x + 2] = (float)row[4 * x];
          px[4 * x + 3] = (float)row[4 * x + 3];
        }
      break;
    default:
      for (int i = 0; i < 4 * width; i++)
        px[i] = (float)row[i];
      break;
    }
}

/* @width pixels of R, G, B, A on the 0..255 scale into @row */
static inline void
encode_row (int format, const float *restrict px, int width, uint8_t *row)
{
  switch (format)
    {
    case ACCEL_IMAGE_GRAY8:
      for (int x = 0; x < width; x++)
        row[x] = accel_px_to_u8 (
            accel_px_luma (px[4 * x], px[4 * x + 1], px[4 * x + 2]));
      break;
    case ACCEL_IMAGE_RGBAF32:
      for (int i = 0; i < 4 * width; i++)
        accel_image_host_store (
            format, row, i / 4, i % 4, accel_px_255_to_unit (px[i]));
      break;
    case ACCEL_IMAGE_BGRA8:
      for (int x = 0; x < width; x++)
        {
          row[4 * x] = accel_px_to_u8 (px[4 * x + 2]);
          row[4 * x + 1] = accel_px_to_u8 (px[4 * x + 1]);
          row[4 * x + 2] = accel_px_to_u8 (px[4 * x]);
          row[4 * x + 3] = accel_px_to_u8 (px[4 * x + 3]);
        }
      break;
    default:
      for (int i = 0; i < 4 * width; i++)
        row[i] = accel_px_to_u8 (px[i]);
      break;
    }
}

static void
copy_plane (uint8_t *dst, size_t dst_pitch, const uint8_t *src,
    size_t src_pitch, size_t row_bytes, int rows)
{
  for (int y = 0; y < rows; y++)
    memcpy (
        dst + (size_t)y * dst_pitch, src + (size_t)y * src_pitch, row_bytes);
}

/* the work of one call: rows (of pixels, or of 2x2 blocks to 4:2:0) in
 * bands, each band with a scratch row of its own */
typedef struct
{
  int sf;
  const uint8_t *src;
  size_t sp;
  int df;
  uint8_t *dst;
  size_t dp;
  int width;
  int height;
  atomic_int no_memory;
} Convert;

static float *
convert_scratch (Convert *cv, int rows)
{
  float *px = malloc ((size_t)rows * 4 * (size_t)cv->width * sizeof (float));

  if (!px)
    atomic_store (&cv->no_memory, 1);
  return px;
}

/* block rows [b0, b1): each pixel's luma, and each 2x2 block's chroma
 * from the mean of its R, G, B, summed row by row, left to right */
ACCEL_HOST_SIMD static void
packed_to_yuv_rows (void *data, int b0, int b1)
{
  Convert *cv = data;
  size_t uo, vo, cp, step;
  int w = cv->width;
  float *px = convert_scratch (cv, 2);

  if (!px)
    return;
  accel_image_chroma_layout (cv->df, cv->dp, cv->height, &uo, &vo, &cp, &step);
  for (int by = b0; by < b1; by++)
    {
      int rows = 2 * by + 1 < cv->height ? 2 : 1;

      for (int j = 0; j < rows; j++)
        {
          int y = 2 * by + j;
          const float *p = px + (size_t)j * 4 * w;
          uint8_t *yrow = cv->dst + (size_t)y * cv->dp;

          decode_row (
              cv->sf, cv->src + (size_t)y * cv->sp, w, px + (size_t)j * 4 * w);
          for (int x = 0; x < w; x++)
            yrow[x] = accel_px_to_u8 (
                accel_px_luma (p[4 * x], p[4 * x + 1], p[4 * x + 2]));
        }
      for (int bx = 0; bx < (w + 1) / 2; bx++)
        {
          int cols = 2 * bx + 1 < w ? 2 : 1;
          float sum[3] = { 0.0f, 0.0f, 0.0f }, n = 0.0f, mean[3];
          size_t ci = (size_t)by * cp + (size_t)bx * step;

          for (int j = 0; j < rows; j++)
            for (int i = 0; i < cols; i++)
              {
                const float *p
                    = px + (size_t)j * 4 * w + (size_t)(2 * bx + i) * 4;
                for (int c = 0; c < 3; c++)
                  sum[c] = sum[c] + p[c];
                n = n + 1.0f;
              }
          for (int c = 0; c < 3; c++)
            mean[c] = sum[c] / n;
          cv->dst[uo + ci]
              = accel_px_to_u8 (accel_px_u (mean[0], mean[1], mean[2]));
          cv->dst[vo + ci]
              = accel_px_to_u8 (accel_px_v (mean[0], mean[1], mean[2]));
        }
    }
  free (px);
}

/* rows [y0, y1): each pixel from its luma and its block's chroma, the
 * chroma first spread to one sample a pixel so the pixel loop runs on
 * plain rows */
ACCEL_HOST_SIMD static void
yuv_to_packed_rows (void *data, int y0, int y1)
{
  Convert *cv = data;
  size_t uo, vo, cp, step;
  int w = cv->width;
  float *px = convert_scratch (cv, 2), *u, *v;

  if (!px)
    return;
  u = px + (size_t)4 * w;
  v = u + w;
  accel_image_chroma_layout (cv->sf, cv->sp, cv->height, &uo, &vo, &cp, &step);
  for (int y = y0; y < y1; y++)
    {
      const uint8_t *yrow = cv->src + (size_t)y * cv->sp;
      const uint8_t *urow = cv->src + uo + (size_t)(y / 2) * cp;
      const uint8_t *vrow = cv->src + vo + (size_t)(y / 2) * cp;

      for (int x = 0; x < w; x++)
        {
          u[x] = (float)urow[(size_t)(x / 2) * step];
          v[x] = (float)vrow[(size_t)(x / 2) * step];
        }
      for (int x = 0; x < w; x++)
        {
          float r, g, b;
          accel_px_yuv_to_rgb ((float)yrow[x], u[x], v[x], &r, &g, &b);
          px[4 * x] = accel_px_clamp_255 (r);
          px[4 * x + 1] = accel_px_clamp_255 (g);
          px[4 * x + 2] = accel_px_clamp_255 (b);
          px[4 * x + 3] = 255.0f;
        }
      encode_row (cv->df, px, w, cv->dst + (size_t)y * cv->dp);
    }
  free (px);
}

/* rows [y0, y1) between packed formats */
ACCEL_HOST_SIMD static void
packed_to_packed_rows (void *data, int y0, int y1)
{
  Convert *cv = data;
  float *px = convert_scratch (cv, 1);

  if (!px)
    return;
  for (int y = y0; y < y1; y++)
    {
      decode_row (cv->sf, cv->src + (size_t)y * cv->sp, cv->width, px);
      encode_row (cv->df, px, cv->width, cv->dst + (size_t)y * cv->dp);
    }
  free (px);
}

static void
yuv_to_yuv (int sf, const uint8_t *src, size_t sp, int df, uint8_t *dst,
    size_t dp, int width, int height)
{
  size_t suo, svo, scp, sstep, duo, dvo, dcp, dstep;

  accel_image_chroma_layout (sf, sp, height, &suo, &svo, &scp, &sstep);
  accel_image_chroma_layout (df, dp, height, &duo, &dvo, &dcp, &dstep);
  copy_plane (dst, dp, src, sp, (size_t)width, height);
  for (int j = 0; j < (height + 1) / 2; j++)
    for (int i = 0; i < (width + 1) / 2; i++)
      {
        dst[duo + (size_t)j * dcp + (size_t)i * dstep]
            = src[suo + (size_t)j * scp + (size_t)i * sstep];
        dst[dvo + (size_t)j * dcp + (size_t)i * dstep]
            = src[svo + (size_t)j * scp + (size_t)i * sstep];
      }
}

int
accel_convert_host (int src_format, const void *src, size_t src_pitch,
    int dst_format, void *dst, size_t dst_pitch, int width, int height)
{
  const uint8_t *in = src;
  uint8_t *out = dst;
  int src_yuv = !accel_image_format_is_packed (src_format);
  int dst_yuv = !accel_image_format_is_packed (dst_format);

  if (!accel_image_args_valid (src_format, src, src_pitch, width, height)
      || !accel_image_args_valid (dst_format, dst, dst_pitch, width, height))
    return ACCEL_IMAGE_INVALID_VALUE;

  if (src_yuv && dst_yuv)
    yuv_to_yuv (
        src_format, in, src_pitch, dst_format, out, dst_pitch, width, height);
  else if (src_format == dst_format)
    copy_plane (out, dst_pitch, in, src_pitch,
        (size_t)width * accel_image_bytes_per_pixel (src_format), height);
  else if (src_yuv && dst_format == ACCEL_IMAGE_GRAY8)
    copy_plane (out, dst_pitch, in, src_pitch, (size_t)width, height);
  else
    {
      Convert cv = { src_format, in, src_pitch, dst_format, out, dst_pitch,
        width, height };
      size_t row_bytes = (size_t)width * 4 * sizeof (float);

      atomic_init (&cv.no_memory, 0);
      if (src_yuv)
        accel_host_parallel_rows (
            height, accel_host_min_rows (row_bytes), yuv_to_packed_rows, &cv);
      else if (dst_yuv)
        accel_host_parallel_rows ((height + 1) / 2,
            accel_host_min_rows (2 * row_bytes), packed_to_yuv_rows, &cv);
      else
        accel_host_parallel_rows (height, accel_host_min_rows (row_bytes),
            packed_to_packed_rows, &cv);
      if (atomic_load (&cv.no_memory))
        return ACCEL_IMAGE_NO_MEMORY;
    }
  return ACCEL_IMAGE_OK;
}
