/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the image host references as the host backend runs them (rows in bands on
 * the host pool, loops built to vectorize) against the same references
 * written one pixel at a time (image-definitions.c): every byte of the
 * output frame, the bytes between rows included, must be equal, on random
 * frames of sizes that split into many bands, few, or one. Run once with
 * the pool sized to the cores and once with ACCEL_HOST_THREADS=3. */
#include "accel-test.h"
#include "host/parallel.h"
#include "image-definitions.h"
#include "test-image.h"

static const int sizes[][2] = { { 640, 360 }, { 257, 131 }, { 1280, 72 },
  { 3, 300 }, { 33, 17 }, { 1, 1 } };

static const int all_formats[] = { ACCEL_IMAGE_RGBA8, ACCEL_IMAGE_BGRA8,
  ACCEL_IMAGE_GRAY8, ACCEL_IMAGE_NV12, ACCEL_IMAGE_I420, ACCEL_IMAGE_RGBAF32 };

typedef int (*Filter) (
    const TestFrame *in, TestFrame *out, gboolean definition, float param);

/* a random frame; RGBAF32 also gets values outside 0..1 for the clamps */
static TestFrame *
random_frame (int format, int width, int height, size_t extra, GRand *rand)
{
  TestFrame *f = test_frame_new (format, width, height,
      (size_t)width * accel_image_bytes_per_pixel (format) + extra);

  test_frame_fill_random (f, rand);
  if (format == ACCEL_IMAGE_RGBAF32)
    for (int y = 0; y < height; y += 3)
      {
        float v = y % 2 ? -0.75f : 3.5f;
        memcpy (f->data + (size_t)y * f->pitch, &v, sizeof (v));
      }
  return f;
}

static void
assert_same_frames (const TestFrame *got, const TestFrame *want,
    const char *what, int format, int width, int height)
{
  for (size_t i = 0; i < got->size; i++)
    if (got->data[i] != want->data[i])
      {
        g_test_message ("%s, %s %dx%d pitch %zu: byte %zu (row %zu) differs",
            what, test_format_name (format), width, height, got->pitch, i,
            i / got->pitch);
        g_assert_cmphex (got->data[i], ==, want->data[i]);
      }
}

/* @filter on every packed format, size and pitch, banded against plain */
static void
check_filter (const char *what, Filter filter, float param)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);

  for (guint fi = 0; fi < G_N_ELEMENTS (test_filter_formats); fi++)
    for (guint si = 0; si < G_N_ELEMENTS (sizes); si++)
      for (size_t extra = 0; extra <= 13; extra += 13)
        {
          int fmt = test_filter_formats[fi];
          int w = sizes[si][0], h = sizes[si][1];
          g_autoptr (TestFrame) in = random_frame (fmt, w, h, extra, rand);
          g_autoptr (TestFrame) got = test_frame_new (fmt, w, h, in->pitch + 3);
          g_autoptr (TestFrame) want
              = test_frame_new (fmt, w, h, in->pitch + 3);

          g_assert_cmpint (filter (in, got, FALSE, param), ==, 0);
          g_assert_cmpint (filter (in, want, TRUE, param), ==, 0);
          assert_same_frames (got, want, what, fmt, w, h);
        }
}

static int
gaussian (const TestFrame *in, TestFrame *out, gboolean def, float sigma)
{
  return (def ? definition_gaussian_blur : accel_gaussian_blur_host) (
      in->format, in->data, in->pitch, out->data, out->pitch, in->width,
      in->height, sigma);
}

static int
box (const TestFrame *in, TestFrame *out, gboolean def, float radius)
{
  return (def ? definition_box_blur : accel_box_blur_host) (in->format,
      in->data, in->pitch, out->data, out->pitch, in->width, in->height,
      (int)radius);
}

static int
unsharp (const TestFrame *in, TestFrame *out, gboolean def, float sigma)
{
  return (def ? definition_unsharp_mask : accel_unsharp_mask_host) (in->format,
      in->data, in->pitch, out->data, out->pitch, in->width, in->height, 1.5f,
      sigma);
}

static int
sobel (const TestFrame *in, TestFrame *out, gboolean def, float scale)
{
  return (def ? definition_sobel : accel_sobel_host) (in->format, in->data,
      in->pitch, out->data, out->pitch, NULL, 0, in->width, in->height, scale);
}

static int
median (const TestFrame *in, TestFrame *out, gboolean def, float size)
{
  return (def ? definition_median : accel_median_host) (in->format, in->data,
      in->pitch, out->data, out->pitch, in->width, in->height, (int)size);
}

static int
threshold (const TestFrame *in, TestFrame *out, gboolean def, float value)
{
  float v = in->format == ACCEL_IMAGE_RGBAF32 ? value / 255.0f : value;

  return (def ? definition_threshold : accel_threshold_host) (in->format,
      in->data, in->pitch, out->data, out->pitch, in->width, in->height, v);
}

static void
test_gaussian (void)
{
  check_filter ("gaussian sigma 1", gaussian, 1.0f);
  check_filter ("gaussian sigma 2", gaussian, 2.0f);
  check_filter ("gaussian sigma 7", gaussian, 7.0f);
}

static void
test_box (void)
{
  check_filter ("box radius 1", box, 1.0f);
  check_filter ("box radius 4", box, 4.0f);
}

static void
test_unsharp (void)
{
  check_filter ("unsharp sigma 2", unsharp, 2.0f);
}

/* with the gradient's direction too, into a plane of its own */
static void
test_sobel (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (17);

  check_filter ("sobel", sobel, 1.0f);
  check_filter ("sobel scaled", sobel, 0.25f);
  for (guint fi = 0; fi < G_N_ELEMENTS (test_filter_formats); fi++)
    for (guint si = 0; si < G_N_ELEMENTS (sizes); si++)
      {
        int fmt = test_filter_formats[fi];
        int w = sizes[si][0], h = sizes[si][1];
        size_t n = (size_t)w * h;
        g_autoptr (TestFrame) in = random_frame (fmt, w, h, 0, rand);
        g_autoptr (TestFrame) got = test_frame_new (fmt, w, h, 0);
        g_autoptr (TestFrame) want = test_frame_new (fmt, w, h, 0);
        g_autofree float *got_dir = g_new (float, n);
        g_autofree float *want_dir = g_new (float, n);

        memset (got_dir, TEST_POISON, n * sizeof (float));
        memset (want_dir, TEST_POISON, n * sizeof (float));
        g_assert_cmpint (accel_sobel_host (fmt, in->data, in->pitch, got->data,
                             got->pitch, got_dir, (size_t)w * 4, w, h, 0.5f),
            ==, 0);
        g_assert_cmpint (definition_sobel (fmt, in->data, in->pitch, want->data,
                             want->pitch, want_dir, (size_t)w * 4, w, h, 0.5f),
            ==, 0);
        assert_same_frames (got, want, "sobel with direction", fmt, w, h);
        g_assert_cmpmem (
            got_dir, n * sizeof (float), want_dir, n * sizeof (float));
      }
}

static void
test_median (void)
{
  check_filter ("median 3x3", median, 3.0f);
  check_filter ("median 5x5", median, 5.0f);
}

static void
test_threshold (void)
{
  check_filter ("threshold", threshold, 128.0f);
}

static void
test_resize (void)
{
  static const int ratios[][2] = { { 1, 2 }, { 2, 1 }, { 3, 7 }, { 5, 3 } };
  g_autoptr (GRand) rand = g_rand_new_with_seed (11);

  for (guint fi = 0; fi < G_N_ELEMENTS (test_filter_formats); fi++)
    for (guint si = 0; si < G_N_ELEMENTS (sizes); si++)
      for (guint ri = 0; ri < G_N_ELEMENTS (ratios); ri++)
        {
          int fmt = test_filter_formats[fi];
          int w = sizes[si][0], h = sizes[si][1];
          int ow = MAX (w * ratios[ri][0] / ratios[ri][1], 1);
          int oh = MAX (h * ratios[ri][0] / ratios[ri][1], 1);
          g_autoptr (TestFrame) in = random_frame (fmt, w, h, 13, rand);
          size_t op = (size_t)ow * accel_image_bytes_per_pixel (fmt) + 5;
          g_autoptr (TestFrame) got = test_frame_new (fmt, ow, oh, op);
          g_autoptr (TestFrame) want = test_frame_new (fmt, ow, oh, op);

          g_assert_cmpint (accel_resize_host (fmt, in->data, in->pitch, w, h,
                               got->data, got->pitch, ow, oh),
              ==, 0);
          g_assert_cmpint (definition_resize (fmt, in->data, in->pitch, w, h,
                               want->data, want->pitch, ow, oh),
              ==, 0);
          assert_same_frames (got, want, "resize", fmt, ow, oh);
        }
}

/* one random @sf frame of @w x @h converted to @df by the banded
 * implementation and by the plain definition, 4:2:0 decoded with @matrix
 * at full or limited range: the same bytes */
static void
assert_convert_same (
    int matrix, int full, int sf, int df, int w, int h, guint seed, GRand *rand)
{
  g_autoptr (TestFrame) in = random_frame (sf, w, h, seed, rand);
  size_t dp = (size_t)w * accel_image_bytes_per_pixel (df) + 7;
  g_autoptr (TestFrame) got = test_frame_new (df, w, h, dp);
  g_autoptr (TestFrame) want = test_frame_new (df, w, h, dp);

  g_assert_cmpint (accel_convert_yuv_host (matrix, full, sf, in->data,
                       in->pitch, df, got->data, got->pitch, w, h),
      ==, 0);
  g_assert_cmpint (definition_convert_yuv (matrix, full, sf, in->data,
                       in->pitch, df, want->data, want->pitch, w, h),
      ==, 0);
  assert_same_frames (got, want, test_format_name (sf), df, w, h);
}

static void
test_convert (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (13);

  for (guint a = 0; a < G_N_ELEMENTS (all_formats); a++)
    for (guint b = 0; b < G_N_ELEMENTS (all_formats); b++)
      for (guint si = 0; si < G_N_ELEMENTS (sizes); si++)
        assert_convert_same (ACCEL_YUV_BT601, 1, all_formats[a], all_formats[b],
            sizes[si][0], sizes[si][1], 13, rand);
}

/* 4:2:0 decoded with every matrix at both ranges, against the plain
 * definition: the banded implementation and it share only the pixel
 * arithmetic (pixel.h) */
static void
test_convert_matrices (void)
{
  static const int yuv[] = { ACCEL_IMAGE_NV12, ACCEL_IMAGE_I420 };
  static const int out[] = { ACCEL_IMAGE_RGBA8, ACCEL_IMAGE_BGRA8,
    ACCEL_IMAGE_GRAY8, ACCEL_IMAGE_RGBAF32 };
  g_autoptr (GRand) rand = g_rand_new_with_seed (17);

  for (int matrix = ACCEL_YUV_BT601; matrix <= ACCEL_YUV_BT2020; matrix++)
    for (int full = 0; full < 2; full++)
      for (guint a = 0; a < G_N_ELEMENTS (yuv); a++)
        for (guint b = 0; b < G_N_ELEMENTS (out); b++)
          for (guint si = 0; si < G_N_ELEMENTS (sizes); si++)
            assert_convert_same (matrix, full, yuv[a], out[b], sizes[si][0],
                sizes[si][1], 17, rand);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_message ("host pool: %d thread(s)", accel_host_threads ());
  g_test_add_func ("/image-bands/gaussian", test_gaussian);
  g_test_add_func ("/image-bands/box", test_box);
  g_test_add_func ("/image-bands/unsharp", test_unsharp);
  g_test_add_func ("/image-bands/sobel", test_sobel);
  g_test_add_func ("/image-bands/median", test_median);
  g_test_add_func ("/image-bands/threshold", test_threshold);
  g_test_add_func ("/image-bands/resize", test_resize);
  g_test_add_func ("/image-bands/convert", test_convert);
  g_test_add_func ("/image-bands/convert-matrices", test_convert_matrices);
  return g_test_run ();
}
