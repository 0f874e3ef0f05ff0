/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* colour conversion: the host reference */
#include <string.h>

#include "convert.h"
#include "image-host.h"

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

static void
encode (int format, uint8_t *row, int x, const float *px)
{
  switch (format)
    {
    case ACCEL_IMAGE_GRAY8:
      row[x] = accel_px_to_u8 (accel_px_luma (px[0], px[1], px[2]));
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
copy_plane (uint8_t *dst, size_t dst_pitch, const uint8_t *src,
    size_t src_pitch, size_t row_bytes, int rows)
{
  for (int y = 0; y < rows; y++)
    memcpy (
        dst + (size_t)y * dst_pitch, src + (size_t)y * src_pitch, row_bytes);
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
              dst[(size_t)y * dp + x]
                  = accel_px_to_u8 (accel_px_luma (px[0], px[1], px[2]));
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
yuv_to_packed (int sf, const uint8_t *src, size_t sp, int df, uint8_t *dst,
    size_t dp, int width, int height)
{
  size_t uo, vo, cp, step;

  accel_image_chroma_layout (sf, sp, height, &uo, &vo, &cp, &step);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      {
        size_t c = uo + (size_t)(y / 2) * cp + (size_t)(x / 2) * step;
        size_t d = vo + (size_t)(y / 2) * cp + (size_t)(x / 2) * step;
        float px[4];
        accel_px_yuv_to_rgb ((float)src[(size_t)y * sp + x], (float)src[c],
            (float)src[d], &px[0], &px[1], &px[2]);
        for (int k = 0; k < 3; k++)
          px[k] = accel_px_clamp_255 (px[k]);
        px[3] = 255.0f;
        encode (df, dst + (size_t)y * dp, x, px);
      }
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
  else if (src_yuv)
    yuv_to_packed (
        src_format, in, src_pitch, dst_format, out, dst_pitch, width, height);
  else if (dst_yuv)
    packed_to_yuv (
        src_format, in, src_pitch, dst_format, out, dst_pitch, width, height);
  else
    for (int y = 0; y < height; y++)
      for (int x = 0; x < width; x++)
        {
          float px[4];
          decode (src_format, in + (size_t)y * src_pitch, x, px);
          encode (dst_format, out + (size_t)y * dst_pitch, x, px);
        }
  return ACCEL_IMAGE_OK;
}
