/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* image kernels as the tests and the benchmark drive them: frames with a
 * chosen pitch, poisoned before a run, and one call that runs a kernel case
 * on the host reference or on the GPU */
#pragma once

#include <glib.h>
#include <string.h>

#include "image/blur.h"
#include "image/convert.h"
#include "image/median.h"
#include "image/resize.h"
#include "image/sobel.h"
#include "image/threshold.h"

/* what unwritten bytes hold: a pixel a kernel forgot fails the comparison */
#define TEST_POISON 0xcd

typedef struct
{
  int format;
  int width;
  int height;
  size_t pitch;
  size_t size;
  guint8 *data;
} TestFrame;

/* a frame of @format with rows @pitch bytes apart (0: tightly packed),
 * every byte poisoned */
static inline TestFrame *
test_frame_new (int format, int width, int height, size_t pitch)
{
  TestFrame *f = g_new0 (TestFrame, 1);

  f->format = format;
  f->width = width;
  f->height = height;
  f->pitch
      = pitch ? pitch : (size_t)width * accel_image_bytes_per_pixel (format);
  f->size = accel_image_frame_size (format, width, height, f->pitch);
  f->data = g_malloc (f->size);
  memset (f->data, TEST_POISON, f->size);
  return f;
}

static inline void
test_frame_free (TestFrame *f)
{
  g_free (f->data);
  g_free (f);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TestFrame, test_frame_free)

/* fills every sample of @f (not the bytes between rows) from @rand:
 * uint8 formats with any byte, RGBAF32 with floats in [0, 1) */
static inline void
test_frame_fill_random (TestFrame *f, GRand *rand)
{
  size_t row_bytes = (size_t)f->width * accel_image_bytes_per_pixel (f->format);

  for (int y = 0; y < f->height; y++)
    {
      guint8 *row = f->data + (size_t)y * f->pitch;
      if (f->format == ACCEL_IMAGE_RGBAF32)
        for (size_t i = 0; i < row_bytes / 4; i++)
          {
            float v = (float)(g_rand_int (rand) >> 8) / 16777216.0f;
            memcpy (row + 4 * i, &v, 4);
          }
      else
        for (size_t i = 0; i < row_bytes; i++)
          row[i] = (guint8)g_rand_int (rand);
    }
  if (f->format == ACCEL_IMAGE_NV12 || f->format == ACCEL_IMAGE_I420)
    {
      size_t uo, vo, cp, step;
      accel_image_chroma_layout (
          f->format, f->pitch, f->height, &uo, &vo, &cp, &step);
      for (int j = 0; j < (f->height + 1) / 2; j++)
        for (int i = 0; i < (f->width + 1) / 2; i++)
          {
            f->data[uo + (size_t)j * cp + (size_t)i * step]
                = (guint8)g_rand_int (rand);
            f->data[vo + (size_t)j * cp + (size_t)i * step]
                = (guint8)g_rand_int (rand);
          }
    }
}

/* fills a 4096 x 4096 NV12 or I420 frame with each of the 2^24 (Y, U, V)
 * once: 2 x 2 block b (in row order of the blocks) has U and V from bits
 * 0-7 and 8-15 of b, the lumas of its four pixels 4 (b >> 16) + 0 .. 3 */
static inline void
test_frame_fill_every_yuv (TestFrame *f)
{
  size_t uo, vo, cp, step;

  g_assert_cmpint (f->width * f->height, ==, 1 << 24);
  accel_image_chroma_layout (
      f->format, f->pitch, f->height, &uo, &vo, &cp, &step);
  for (int y = 0; y < f->height; y++)
    for (int x = 0; x < f->width; x++)
      {
        guint32 b = (guint32)(y / 2) * (guint32)(f->width / 2) + x / 2;

        f->data[(size_t)y * f->pitch + x]
            = (b >> 16) << 2 | (y & 1) << 1 | (x & 1);
        if (x % 2 == 0 && y % 2 == 0)
          {
            size_t at = (size_t)(y / 2) * cp + (size_t)(x / 2) * step;

            f->data[uo + at] = b & 0xff;
            f->data[vo + at] = (b >> 8) & 0xff;
          }
      }
}

/* fills a 4096 x 4096 RGBA8 or BGRA8 frame with each of the 2^24 colours
 * once: pixel i (in row order) has red, green and blue from bits 0-7, 8-15
 * and 16-23 of i, alpha 0xa5; an NV12 or I420 frame with each (Y, U, V)
 * once */
static inline void
test_frame_fill_every_colour (TestFrame *f)
{
  int ri = f->format == ACCEL_IMAGE_BGRA8 ? 2 : 0;

  if (f->format == ACCEL_IMAGE_NV12 || f->format == ACCEL_IMAGE_I420)
    {
      test_frame_fill_every_yuv (f);
      return;
    }
  g_assert_true (
      f->format == ACCEL_IMAGE_RGBA8 || f->format == ACCEL_IMAGE_BGRA8);
  g_assert_cmpint (f->width * f->height, ==, 1 << 24);
  for (int y = 0; y < f->height; y++)
    for (int x = 0; x < f->width; x++)
      {
        guint32 i = (guint32)y * (guint32)f->width + (guint32)x;
        guint8 *p = f->data + (size_t)y * f->pitch + (size_t)x * 4;

        p[ri] = i & 0xff;
        p[1] = (i >> 8) & 0xff;
        p[2 - ri] = i >> 16;
        p[3] = 0xa5;
      }
}

/* channel @c of pixel (@x, @y) of a packed frame, as a float */
static inline float
test_frame_get (const TestFrame *f, int x, int y, int c)
{
  const guint8 *row = f->data + (size_t)y * f->pitch;
  float v;

  if (f->format != ACCEL_IMAGE_RGBAF32)
    return row[(size_t)x * accel_image_bytes_per_pixel (f->format) + c];
  memcpy (&v, row + (size_t)x * 16 + (size_t)c * 4, 4);
  return v;
}

/* sets channel @c of pixel (@x, @y) of a packed frame (uint8: @v rounded) */
static inline void
test_frame_set (TestFrame *f, int x, int y, int c, float v)
{
  guint8 *row = f->data + (size_t)y * f->pitch;

  if (f->format != ACCEL_IMAGE_RGBAF32)
    row[(size_t)x * accel_image_bytes_per_pixel (f->format) + c]
        = (guint8)(v + 0.5f);
  else
    memcpy (row + (size_t)x * 16 + (size_t)c * 4, &v, 4);
}

/* every channel of every pixel of a packed frame set to @v, alpha to @a */
static inline void
test_frame_fill (TestFrame *f, float v, float a)
{
  int nc = f->format == ACCEL_IMAGE_GRAY8 ? 1 : 4;

  for (int y = 0; y < f->height; y++)
    for (int x = 0; x < f->width; x++)
      for (int c = 0; c < nc; c++)
        test_frame_set (f, x, y, c, c == 3 ? a : v);
}

typedef enum
{
  TEST_KERNEL_GAUSSIAN_BLUR,
  TEST_KERNEL_BOX_BLUR,
  TEST_KERNEL_UNSHARP,
  TEST_KERNEL_SOBEL,
  TEST_KERNEL_MEDIAN,
  TEST_KERNEL_THRESHOLD,
  TEST_KERNEL_RESIZE,
  TEST_KERNEL_CONVERT,
} TestKernel;

/**
 * TestCase:
 * @name: the case in test paths and tables
 * @kernel: which kernel
 * @f: sigma (blurs), scale (Sobel), value (threshold, in channel units of
 *   uint8 formats; / 255 for RGBAF32), amount (unsharp)
 * @g: sigma of the unsharp mask
 * @n: radius (box), size (median)
 * @dst_format: the target format (convert)
 * @num, @den: resize: output size is input size * @num / @den, at least 1
 */
typedef struct
{
  const char *name;
  TestKernel kernel;
  float f, g;
  int n;
  int dst_format;
  int num, den;
  /* conversions from 4:2:0: the matrix (AccelYuvMatrix) and whether at
   * limited range; 0 and FALSE, BT.601 full range, as accel_convert () */
  int yuv_matrix;
  gboolean yuv_limited;
} TestCase;

/* the packed formats the filters take */
static const int test_filter_formats[] = {
  ACCEL_IMAGE_RGBA8,
  ACCEL_IMAGE_BGRA8,
  ACCEL_IMAGE_GRAY8,
  ACCEL_IMAGE_RGBAF32,
};

static const int test_all_formats[] = {
  ACCEL_IMAGE_RGBA8,
  ACCEL_IMAGE_BGRA8,
  ACCEL_IMAGE_GRAY8,
  ACCEL_IMAGE_NV12,
  ACCEL_IMAGE_I420,
  ACCEL_IMAGE_RGBAF32,
};

static inline const char *
test_format_name (int format)
{
  static const char *const names[] = {
    "?",
    "RGBA8",
    "BGRA8",
    "GRAY8",
    "NV12",
    "I420",
    "RGBAF32",
  };

  return format >= 1 && format <= 6 ? names[format] : "?";
}

/* format and size of what @c makes of an @in_format frame of @w x @h */
static inline void
test_case_output (const TestCase *c, int in_format, int w, int h,
    int *out_format, int *out_w, int *out_h)
{
  *out_format = c->kernel == TEST_KERNEL_CONVERT ? c->dst_format : in_format;
  *out_w = w;
  *out_h = h;
  if (c->kernel == TEST_KERNEL_RESIZE)
    {
      *out_w = MAX (1, w * c->num / c->den);
      *out_h = MAX (1, h * c->num / c->den);
    }
}

/* runs @c from @in into @out (and @dir, Sobel only, may be NULL) on the
 * host reference, or on the GPU on @stream with every pointer a device
 * pointer; returns the kernel's status */
static inline int
test_case_run (const TestCase *c, gboolean gpu, void *stream,
    const TestFrame *in, const void *src, TestFrame *out, void *dst, float *dir,
    size_t dir_pitch)
{
  int fmt = in->format, w = in->width, h = in->height;
  size_t sp = in->pitch, dp = out->pitch;
  float value = fmt == ACCEL_IMAGE_RGBAF32 ? c->f / 255.0f : c->f;

  switch (c->kernel)
    {
    case TEST_KERNEL_GAUSSIAN_BLUR:
      return gpu ? accel_gaussian_blur (
                 stream, fmt, src, sp, dst, dp, w, h, c->f)
                 : accel_gaussian_blur_host (fmt, src, sp, dst, dp, w, h, c->f);
    case TEST_KERNEL_BOX_BLUR:
      return gpu ? accel_box_blur (stream, fmt, src, sp, dst, dp, w, h, c->n)
                 : accel_box_blur_host (fmt, src, sp, dst, dp, w, h, c->n);
    case TEST_KERNEL_UNSHARP:
      return gpu ? accel_unsharp_mask (
                 stream, fmt, src, sp, dst, dp, w, h, c->f, c->g)
                 : accel_unsharp_mask_host (
                     fmt, src, sp, dst, dp, w, h, c->f, c->g);
    case TEST_KERNEL_SOBEL:
      return gpu ? accel_sobel (
                 stream, fmt, src, sp, dst, dp, dir, dir_pitch, w, h, c->f)
                 : accel_sobel_host (
                     fmt, src, sp, dst, dp, dir, dir_pitch, w, h, c->f);
    case TEST_KERNEL_MEDIAN:
      return gpu ? accel_median (stream, fmt, src, sp, dst, dp, w, h, c->n)
                 : accel_median_host (fmt, src, sp, dst, dp, w, h, c->n);
    case TEST_KERNEL_THRESHOLD:
      return gpu ? accel_threshold (stream, fmt, src, sp, dst, dp, w, h, value)
                 : accel_threshold_host (fmt, src, sp, dst, dp, w, h, value);
    case TEST_KERNEL_RESIZE:
      return gpu ? accel_resize (
                 stream, fmt, src, sp, w, h, dst, dp, out->width, out->height)
                 : accel_resize_host (
                     fmt, src, sp, w, h, dst, dp, out->width, out->height);
    case TEST_KERNEL_CONVERT:
    default:
      return gpu ? accel_convert_yuv (stream, c->yuv_matrix, !c->yuv_limited,
                 fmt, src, sp, out->format, dst, dp, w, h)
                 : accel_convert_yuv_host (c->yuv_matrix, !c->yuv_limited, fmt,
                     src, sp, out->format, dst, dp, w, h);
    }
}
