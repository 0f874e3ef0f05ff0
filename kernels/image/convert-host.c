/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* colour conversion: the host reference, a band of rows at a time */
#include <stdatomic.h>
#include <stdbool.h>
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

/* @width pixels of R, G, B, A on the 0..255 scale into @row; @bytes: they
 * are whole, from an 8-bit format, and take the exact luma */
static inline void
encode_row (
    int format, const float *restrict px, int width, bool bytes, uint8_t *row)
{
  switch (format)
    {
    case ACCEL_IMAGE_GRAY8:
      if (bytes)
        for (int x = 0; x < width; x++)
          row[x] = accel_px_luma_u8 (px[4 * x], px[4 * x + 1], px[4 * x + 2]);
      else
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

/* RGBA8's first three channels as planes, and planes as opaque RGBA8, a
 * pixel a 32-bit word where the host is little endian: the compiler
 * vectorizes whole words, not bytes four apart */
static inline void
decode_rgba8_planes (const uint8_t *restrict row, int width, float *restrict c0,
    float *restrict c1, float *restrict c2)
{
  for (int x = 0; x < width; x++)
    {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
      uint32_t word;
      memcpy (&word, row + 4 * (size_t)x, sizeof (word));
      c0[x] = (float)(word & 0xff);
      c1[x] = (float)((word >> 8) & 0xff);
      c2[x] = (float)((word >> 16) & 0xff);
#else
      c0[x] = (float)row[4 * x];
      c1[x] = (float)row[4 * x + 1];
      c2[x] = (float)row[4 * x + 2];
#endif
    }
}

static inline void
encode_rgba8_planes (const float *restrict c0, const float *restrict c1,
    const float *restrict c2, int width, uint8_t *restrict row)
{
  for (int x = 0; x < width; x++)
    {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
      uint32_t word = (uint32_t)accel_px_to_u8 (c0[x])
                      | (uint32_t)accel_px_to_u8 (c1[x]) << 8
                      | (uint32_t)accel_px_to_u8 (c2[x]) << 16
                      | (uint32_t)accel_px_to_u8 (255.0f) << 24;
      memcpy (row + 4 * (size_t)x, &word, sizeof (word));
#else
      row[4 * x] = accel_px_to_u8 (c0[x]);
      row[4 * x + 1] = accel_px_to_u8 (c1[x]);
      row[4 * x + 2] = accel_px_to_u8 (c2[x]);
      row[4 * x + 3] = accel_px_to_u8 (255.0f);
#endif
    }
}

/* the @width pixels of @row as planes of R, G, B on the 0..255 scale */
static inline void
decode_planes (int format, const uint8_t *row, int width, float *restrict r,
    float *restrict g, float *restrict b)
{
  switch (format)
    {
    case ACCEL_IMAGE_GRAY8:
      for (int x = 0; x < width; x++)
        r[x] = g[x] = b[x] = (float)row[x];
      break;
    case ACCEL_IMAGE_RGBAF32:
      for (int x = 0; x < width; x++)
        {
          r[x] = accel_px_unit_to_255 (
              accel_image_host_load (format, row, x, 0));
          g[x] = accel_px_unit_to_255 (
              accel_image_host_load (format, row, x, 1));
          b[x] = accel_px_unit_to_255 (
              accel_image_host_load (format, row, x, 2));
        }
      break;
    case ACCEL_IMAGE_BGRA8:
      /* blue first: RGBA8's loop with the planes swapped */
      decode_rgba8_planes (row, width, b, g, r);
      break;
    default:
      decode_rgba8_planes (row, width, r, g, b);
      break;
    }
}

/* planes of R, G, B on the 0..255 scale, opaque, into @row */
static inline void
encode_planes (int format, const float *restrict r, const float *restrict g,
    const float *restrict b, int width, uint8_t *restrict row)
{
  switch (format)
    {
    case ACCEL_IMAGE_GRAY8:
      for (int x = 0; x < width; x++)
        row[x] = accel_px_to_u8 (accel_px_luma (r[x], g[x], b[x]));
      break;
    case ACCEL_IMAGE_RGBAF32:
      for (int x = 0; x < width; x++)
        {
          accel_image_host_store (
              format, row, x, 0, accel_px_255_to_unit (r[x]));
          accel_image_host_store (
              format, row, x, 1, accel_px_255_to_unit (g[x]));
          accel_image_host_store (
              format, row, x, 2, accel_px_255_to_unit (b[x]));
          accel_image_host_store (
              format, row, x, 3, accel_px_255_to_unit (255.0f));
        }
      break;
    case ACCEL_IMAGE_BGRA8:
      encode_rgba8_planes (b, g, r, width, row);
      break;
    default:
      encode_rgba8_planes (r, g, b, width, row);
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
  AccelPxYuv yuv; /* how 4:2:0 sources are decoded */
} Convert;

static float *
convert_scratch (Convert *cv, int rows)
{
  float *px = malloc ((size_t)rows * 4 * (size_t)cv->width * sizeof (float));

  if (!px)
    atomic_store (&cv->no_memory, 1);
  return px;
}

/* the chroma of the 2x2 blocks [0, @blocks) of a block row, from the
 * rows' R, G, B planes (@rows of them): each block's sum row by row, left
 * to right, over its pixel count */
static inline void
block_means (float *const *planes, int rows, int blocks, float *restrict mean)
{
  for (int c = 0; c < 3; c++)
    {
      const float *restrict p0 = planes[c], *restrict p1 = planes[3 + c];
      float *restrict m = mean + (size_t)c * blocks;

      for (int bx = 0; bx < blocks; bx++)
        m[bx] = (0.0f + p0[2 * bx]) + p0[2 * bx + 1];
      if (rows == 2)
        for (int bx = 0; bx < blocks; bx++)
          m[bx] = (m[bx] + p1[2 * bx]) + p1[2 * bx + 1];
      for (int bx = 0; bx < blocks; bx++)
        m[bx] = m[bx] / (rows == 2 ? 4.0f : 2.0f);
    }
}

/* pixels a pass over a row takes at a time: even (whole 2x2 blocks), and
 * few enough that the pass's planes stay in the L1 cache */
#define CHUNK 512

/* block rows [b0, b1): each pixel's luma, and each 2x2 block's chroma
 * from the mean of its R, G, B, summed row by row, left to right */
ACCEL_HOST_SIMD static void
packed_to_yuv_rows (void *data, int b0, int b1)
{
  Convert *cv = data;
  size_t uo, vo, cp, step, sbpp = accel_image_bytes_per_pixel (cv->sf);
  float *scratch = malloc ((size_t)8 * CHUNK * sizeof (float)), *planes[6];
  float *mean;

  if (!scratch)
    {
      atomic_store (&cv->no_memory, 1);
      return;
    }
  /* R, G, B of the block row's top row, then of its bottom row; the
   * blocks' means */
  for (int k = 0; k < 6; k++)
    planes[k] = scratch + (size_t)k * CHUNK;
  mean = scratch + (size_t)6 * CHUNK;
  accel_image_chroma_layout (cv->df, cv->dp, cv->height, &uo, &vo, &cp, &step);
  for (int by = b0; by < b1; by++)
    for (int x0 = 0; x0 < cv->width; x0 += CHUNK)
      {
        int rows = 2 * by + 1 < cv->height ? 2 : 1;
        int n = cv->width - x0 < CHUNK ? cv->width - x0 : CHUNK, full = n / 2;
        const float *mr = mean, *mg = mean + full, *mb = mean + 2 * full;
        uint8_t *urow = cv->dst + uo + (size_t)by * cp + (size_t)x0 / 2 * step;
        uint8_t *vrow = cv->dst + vo + (size_t)by * cp + (size_t)x0 / 2 * step;

        for (int j = 0; j < rows; j++)
          {
            int y = 2 * by + j;
            const float *r = planes[3 * j], *g = planes[3 * j + 1],
                        *b = planes[3 * j + 2];
            uint8_t *yrow = cv->dst + (size_t)y * cv->dp + x0;

            decode_planes (cv->sf,
                cv->src + (size_t)y * cv->sp + (size_t)x0 * sbpp, n,
                planes[3 * j], planes[3 * j + 1], planes[3 * j + 2]);
            if (cv->sf == ACCEL_IMAGE_RGBAF32)
              for (int x = 0; x < n; x++)
                yrow[x] = accel_px_to_u8 (accel_px_luma (r[x], g[x], b[x]));
            else
              for (int x = 0; x < n; x++)
                yrow[x] = accel_px_luma_u8 (r[x], g[x], b[x]);
          }
        block_means (planes, rows, full, mean);
        for (int bx = 0; bx < full; bx++)
          {
            urow[(size_t)bx * step]
                = accel_px_to_u8 (accel_px_u (mr[bx], mg[bx], mb[bx]));
            vrow[(size_t)bx * step]
                = accel_px_to_u8 (accel_px_v (mr[bx], mg[bx], mb[bx]));
          }
        if (n % 2)
          {
            /* the last block of an odd width, one pixel wide */
            float sum[3], count = rows == 2 ? 2.0f : 1.0f;
            for (int c = 0; c < 3; c++)
              {
                sum[c] = 0.0f + planes[c][n - 1];
                if (rows == 2)
                  sum[c] = sum[c] + planes[3 + c][n - 1];
                sum[c] = sum[c] / count;
              }
            urow[(size_t)full * step]
                = accel_px_to_u8 (accel_px_u (sum[0], sum[1], sum[2]));
            vrow[(size_t)full * step]
                = accel_px_to_u8 (accel_px_v (sum[0], sum[1], sum[2]));
          }
      }
  free (scratch);
}

/* one chroma row, @step bytes a sample, spread to the @width pixels it
 * covers; the step (1 for I420, 2 for NV12) fixed in each loop */
static inline void
spread_chroma_step (
    const uint8_t *c, size_t step, int width, float *restrict out)
{
  for (int i = 0; i < width / 2; i++)
    out[2 * i] = out[2 * i + 1] = (float)c[(size_t)i * step];
  if (width % 2)
    out[width - 1] = (float)c[(size_t)(width / 2) * step];
}

static inline void
spread_chroma (const uint8_t *c, size_t step, int width, float *restrict out)
{
  if (step == 1)
    spread_chroma_step (c, 1, width, out);
  else
    spread_chroma_step (c, 2, width, out);
}

/* rows [y0, y1): each pixel from its luma and its block's chroma, the
 * chroma first spread to one sample a pixel so the pixel loop runs on
 * plain rows */
ACCEL_HOST_SIMD static void
yuv_to_packed_rows (void *data, int y0, int y1)
{
  Convert *cv = data;
  size_t uo, vo, cp, step, dbpp = accel_image_bytes_per_pixel (cv->df);
  float *scratch = malloc ((size_t)5 * CHUNK * sizeof (float));
  float *u, *v, *r, *g, *b;
  int uint8_rgb = cv->df == ACCEL_IMAGE_RGBA8 || cv->df == ACCEL_IMAGE_BGRA8;

  if (!scratch)
    {
      atomic_store (&cv->no_memory, 1);
      return;
    }
  u = scratch;
  v = u + CHUNK;
  r = v + CHUNK;
  g = r + CHUNK;
  b = g + CHUNK;
  accel_image_chroma_layout (cv->sf, cv->sp, cv->height, &uo, &vo, &cp, &step);
  for (int y = y0; y < y1; y++)
    for (int x0 = 0; x0 < cv->width; x0 += CHUNK)
      {
        int n = cv->width - x0 < CHUNK ? cv->width - x0 : CHUNK;
        const uint8_t *yrow = cv->src + (size_t)y * cv->sp + x0;
        size_t c0 = (size_t)(y / 2) * cp + (size_t)x0 / 2 * step;

        spread_chroma (cv->src + uo + c0, step, n, u);
        spread_chroma (cv->src + vo + c0, step, n, v);
        for (int x = 0; x < n; x++)
          accel_px_yuv_to_rgb (
              &cv->yuv, (float)yrow[x], u[x], v[x], &r[x], &g[x], &b[x]);
        /* accel_px_to_u8 () clamps as accel_px_clamp_255 () does (NaN to 0
         * included), so 8-bit outputs skip the first of the two clamps */
        if (!uint8_rgb)
          for (int x = 0; x < n; x++)
            {
              r[x] = accel_px_clamp_255 (r[x]);
              g[x] = accel_px_clamp_255 (g[x]);
              b[x] = accel_px_clamp_255 (b[x]);
            }
        encode_planes (cv->df, r, g, b, n,
            cv->dst + (size_t)y * cv->dp + (size_t)x0 * dbpp);
      }
  free (scratch);
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
      encode_row (cv->df, px, cv->width, cv->sf != ACCEL_IMAGE_RGBAF32,
          cv->dst + (size_t)y * cv->dp);
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

/* GRAY8 from a limited range luma plane: each byte taken to 0..255 */
static void
luma_to_full (const AccelPxYuv *m, const uint8_t *src, size_t sp, uint8_t *dst,
    size_t dp, int width, int height)
{
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      dst[(size_t)y * dp + x] = accel_px_to_u8 (accel_px_clamp_255 (
          accel_px_luma_full (m, (float)src[(size_t)y * sp + x])));
}

int
accel_convert_host (int src_format, const void *src, size_t src_pitch,
    int dst_format, void *dst, size_t dst_pitch, int width, int height)
{
  return accel_convert_yuv_host (ACCEL_YUV_BT601, 1, src_format, src, src_pitch,
      dst_format, dst, dst_pitch, width, height);
}

int
accel_convert_yuv_host (int matrix, int full_range, int src_format,
    const void *src, size_t src_pitch, int dst_format, void *dst,
    size_t dst_pitch, int width, int height)
{
  const uint8_t *in = src;
  uint8_t *out = dst;
  int src_yuv = !accel_image_format_is_packed (src_format);
  int dst_yuv = !accel_image_format_is_packed (dst_format);
  AccelPxYuv yuv = accel_px_yuv_matrix (matrix, full_range);

  if (!accel_image_args_valid (src_format, src, src_pitch, width, height)
      || !accel_image_args_valid (dst_format, dst, dst_pitch, width, height)
      || matrix < ACCEL_YUV_BT601 || matrix > ACCEL_YUV_BT2020)
    return ACCEL_IMAGE_INVALID_VALUE;

  if (src_yuv && dst_yuv)
    yuv_to_yuv (
        src_format, in, src_pitch, dst_format, out, dst_pitch, width, height);
  else if (src_format == dst_format)
    copy_plane (out, dst_pitch, in, src_pitch,
        (size_t)width * accel_image_bytes_per_pixel (src_format), height);
  else if (src_yuv && dst_format == ACCEL_IMAGE_GRAY8 && full_range)
    copy_plane (out, dst_pitch, in, src_pitch, (size_t)width, height);
  else if (src_yuv && dst_format == ACCEL_IMAGE_GRAY8)
    luma_to_full (&yuv, in, src_pitch, out, dst_pitch, width, height);
  else
    {
      Convert cv = { src_format, in, src_pitch, dst_format, out, dst_pitch,
        width, height };
      size_t row_bytes = (size_t)width * 4 * sizeof (float);

      cv.yuv = yuv;
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
