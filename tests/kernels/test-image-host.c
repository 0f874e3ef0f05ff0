/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the image kernels' host references: what each filter must do to simple
 * images, odd sizes and padded rows, and colour round trips */
#include <math.h>

#include "accel-test.h"
#include "image/pixel.h"
#include "test-image.h"

static const int odd_sizes[][2] = { { 1, 1 }, { 7, 3 }, { 3, 7 }, { 33, 17 } };

/* bytes added to a tight row: none, an odd count, a 16-byte multiple */
static const size_t pitch_extras[] = { 0, 13, 64 };

static size_t
pitch_for (int format, int width, size_t extra)
{
  return (size_t)width * accel_image_bytes_per_pixel (format) + extra;
}

static void
assert_pixel (const TestFrame *f, int x, int y, int c, float want, float tol)
{
  float got = test_frame_get (f, x, y, c);

  if (fabsf (got - want) > tol)
    {
      g_test_message ("%s %dx%d pitch %zu: pixel (%d, %d) channel %d",
          test_format_name (f->format), f->width, f->height, f->pitch, x, y, c);
      g_assert_cmpfloat (got, ==, want);
    }
}

/* bytes between the end of each row and the next row are untouched */
static void
assert_padding_poisoned (const TestFrame *f)
{
  size_t row_bytes = (size_t)f->width * accel_image_bytes_per_pixel (f->format);

  for (int y = 0; y < f->height; y++)
    for (size_t i = row_bytes; i < f->pitch; i++)
      g_assert_cmphex (f->data[(size_t)y * f->pitch + i], ==, TEST_POISON);
}

static void
test_gaussian_constant (void)
{
  static const float sigmas[] = { 0.3f, 1.0f, 2.5f, 10.0f };

  for (guint fi = 0; fi < G_N_ELEMENTS (test_filter_formats); fi++)
    for (guint si = 0; si < G_N_ELEMENTS (odd_sizes); si++)
      for (guint gi = 0; gi < G_N_ELEMENTS (sigmas); gi++)
        {
          int fmt = test_filter_formats[fi];
          int w = odd_sizes[si][0], h = odd_sizes[si][1];
          gboolean f32 = fmt == ACCEL_IMAGE_RGBAF32;
          float v = f32 ? 0.37f : 173.0f, a = f32 ? 0.5f : 200.0f;
          g_autoptr (TestFrame) in
              = test_frame_new (fmt, w, h, pitch_for (fmt, w, 13));
          g_autoptr (TestFrame) out
              = test_frame_new (fmt, w, h, pitch_for (fmt, w, 5));

          test_frame_fill (in, v, a);
          g_assert_cmpint (accel_gaussian_blur_host (fmt, in->data, in->pitch,
                               out->data, out->pitch, w, h, sigmas[gi]),
              ==, 0);
          for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
              for (int c = 0; c < (fmt == ACCEL_IMAGE_GRAY8 ? 1 : 4); c++)
                assert_pixel (out, x, y, c, c == 3 ? a : v, f32 ? 1e-6f : 0);
          assert_padding_poisoned (out);
        }
}

static void
test_gaussian_weights (void)
{
  float w[2 * ACCEL_IMAGE_MAX_RADIUS + 1];
  double sum = 0.0;
  int r = accel_gaussian_weights (2.0f, w);

  g_assert_cmpint (r, ==, 6);
  for (int k = 0; k <= 2 * r; k++)
    sum += w[k];
  g_assert_cmpfloat_with_epsilon (sum, 1.0, 1e-6);
  /* symmetric, peaked in the middle */
  for (int k = 0; k < r; k++)
    {
      g_assert_cmpfloat (w[k], ==, w[2 * r - k]);
      g_assert_cmpfloat (w[k], <, w[k + 1]);
    }
  g_assert_cmpint (accel_gaussian_radius (0.1f), ==, 1);
  g_assert_cmpint (accel_gaussian_radius (1.0f), ==, 3);
  g_assert_cmpint (accel_gaussian_radius (100.0f), ==, ACCEL_IMAGE_MAX_RADIUS);
  g_assert_cmpint (accel_gaussian_radius (0.0f), ==, 0);
  g_assert_cmpint (accel_gaussian_radius (-1.0f), ==, 0);
  g_assert_cmpint (accel_gaussian_weights (NAN, w), ==, 0);
}

/* the 8-bit Gaussian's whole taps: sum 256, symmetric, none larger than
 * the one inside it, each but the centre within 1 of 256 times its float
 * tap, and only taps below 1 / 256 dropped from the ends */
static void
test_gaussian_weights_u8 (void)
{
  static const float sigmas[] = { 0.1f, 0.3f, 0.6f, 1.0f, 1.5f, 2.0f, 3.0f,
    3.2f, 3.4f, 6.0f, 10.0f, 100.0f };
  float w[2 * ACCEL_IMAGE_MAX_RADIUS + 1], f[2 * ACCEL_IMAGE_MAX_RADIUS + 1];

  for (guint i = 0; i < G_N_ELEMENTS (sigmas); i++)
    {
      int full = accel_gaussian_weights (sigmas[i], f);
      int r = accel_gaussian_weights_u8 (sigmas[i], w), trim = full - r;
      float sum = 0.0f;

      g_assert_cmpint (r, >=, 1);
      g_assert_cmpint (r, <=, full);
      for (int k = 0; k <= 2 * r; k++)
        {
          g_assert_cmpfloat (w[k], ==, floorf (w[k]));
          g_assert_cmpfloat (w[k], ==, w[2 * r - k]);
          if (k < r)
            {
              g_assert_cmpfloat (w[k], <=, w[k + 1]);
              g_assert_cmpfloat (fabsf (w[k] - 256.0f * f[k + trim]), <, 1.0f);
            }
          sum += w[k];
        }
      g_assert_cmpfloat (sum, ==, 256.0f);
      g_assert_true (r == 1 || w[0] > 0.0f);
      for (int k = 0; k < trim; k++)
        g_assert_cmpfloat (256.0f * f[k], <, 1.0f);
    }
  /* sigma 1 by hand: 256 times 0.0044 0.0541 0.2426 0.3999 ... */
  g_assert_cmpint (accel_gaussian_weights_u8 (1.0f, w), ==, 3);
  g_assert_cmpfloat (w[0], ==, 1.0f);
  g_assert_cmpfloat (w[1], ==, 14.0f);
  g_assert_cmpfloat (w[2], ==, 62.0f);
  g_assert_cmpfloat (w[3], ==, 102.0f);
  g_assert_cmpint (accel_gaussian_weights_u8 (NAN, w), ==, 0);
}

static void
test_box_impulse (void)
{
  g_autoptr (TestFrame) gray = test_frame_new (ACCEL_IMAGE_GRAY8, 9, 9, 16);
  g_autoptr (TestFrame) gout = test_frame_new (ACCEL_IMAGE_GRAY8, 9, 9, 0);
  g_autoptr (TestFrame) rgba = test_frame_new (ACCEL_IMAGE_RGBAF32, 9, 9, 0);
  g_autoptr (TestFrame) fout
      = test_frame_new (ACCEL_IMAGE_RGBAF32, 9, 9, 9 * 16 + 4);

  /* 90 spread over 3x3 is 10 each, over 5x5 3.6, rounded to 4 */
  test_frame_fill (gray, 0, 0);
  test_frame_set (gray, 4, 4, 0, 90);
  for (int radius = 1; radius <= 2; radius++)
    {
      g_assert_cmpint (accel_box_blur_host (ACCEL_IMAGE_GRAY8, gray->data,
                           gray->pitch, gout->data, gout->pitch, 9, 9, radius),
          ==, 0);
      for (int y = 0; y < 9; y++)
        for (int x = 0; x < 9; x++)
          {
            gboolean inside = ABS (x - 4) <= radius && ABS (y - 4) <= radius;
            assert_pixel (
                gout, x, y, 0, inside ? (radius == 1 ? 10 : 4) : 0, 0);
          }
    }

  /* floats: red impulse of 9, green zero, alpha 1 everywhere */
  test_frame_fill (rgba, 0.0f, 1.0f);
  test_frame_set (rgba, 4, 4, 0, 9.0f);
  g_assert_cmpint (accel_box_blur_host (ACCEL_IMAGE_RGBAF32, rgba->data,
                       rgba->pitch, fout->data, fout->pitch, 9, 9, 1),
      ==, 0);
  for (int y = 0; y < 9; y++)
    for (int x = 0; x < 9; x++)
      {
        gboolean inside = ABS (x - 4) <= 1 && ABS (y - 4) <= 1;
        assert_pixel (fout, x, y, 0, inside ? 1.0f : 0.0f, 1e-6f);
        assert_pixel (fout, x, y, 1, 0.0f, 0.0f);
        assert_pixel (fout, x, y, 3, 1.0f, 1e-6f);
      }
  assert_padding_poisoned (fout);
}

static void
test_sobel_flat (void)
{
  for (guint fi = 0; fi < G_N_ELEMENTS (test_filter_formats); fi++)
    for (guint si = 0; si < G_N_ELEMENTS (odd_sizes); si++)
      {
        int fmt = test_filter_formats[fi];
        int w = odd_sizes[si][0], h = odd_sizes[si][1];
        gboolean f32 = fmt == ACCEL_IMAGE_RGBAF32;
        float a = f32 ? 0.25f : 77.0f;
        g_autoptr (TestFrame) in = test_frame_new (fmt, w, h, 0);
        g_autoptr (TestFrame) out
            = test_frame_new (fmt, w, h, pitch_for (fmt, w, 13));
        g_autofree float *dir = g_new (float, (size_t)w *h);

        test_frame_fill (in, f32 ? 0.6f : 120.0f, a);
        memset (dir, TEST_POISON, sizeof (float) * w * h);
        g_assert_cmpint (accel_sobel_host (fmt, in->data, in->pitch, out->data,
                             out->pitch, dir, (size_t)w * 4, w, h, 1.0f),
            ==, 0);
        for (int y = 0; y < h; y++)
          for (int x = 0; x < w; x++)
            {
              for (int c = 0; c < (fmt == ACCEL_IMAGE_GRAY8 ? 1 : 3); c++)
                assert_pixel (out, x, y, c, 0.0f, 0.0f);
              if (fmt != ACCEL_IMAGE_GRAY8)
                assert_pixel (out, x, y, 3, a, 0.0f);
              g_assert_cmpfloat (dir[(size_t)y * w + x], ==, 0.0f);
            }
        assert_padding_poisoned (out);
      }
}

static void
test_sobel_step_edge (void)
{
  const int w = 16, h = 8;
  g_autoptr (TestFrame) in = test_frame_new (ACCEL_IMAGE_GRAY8, w, h, 0);
  g_autoptr (TestFrame) out = test_frame_new (ACCEL_IMAGE_GRAY8, w, h, 0);
  g_autoptr (TestFrame) rgba = test_frame_new (ACCEL_IMAGE_RGBA8, w, h, 0);
  g_autoptr (TestFrame) rout = test_frame_new (ACCEL_IMAGE_RGBA8, w, h, 0);
  float dir[16 * 8];

  /* a vertical edge between columns 7 and 8: gx = 4 x 200 on both sides */
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      test_frame_set (in, x, y, 0, x < 8 ? 10 : 210);
  g_assert_cmpint (accel_sobel_host (ACCEL_IMAGE_GRAY8, in->data, in->pitch,
                       out->data, out->pitch, dir, w * 4, w, h, 0.25f),
      ==, 0);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        gboolean edge = x == 7 || x == 8;
        assert_pixel (out, x, y, 0, edge ? 200 : 0, 0);
        if (edge)
          g_assert_cmpfloat (dir[y * w + x], ==, 0.0f);
      }
  /* unscaled, the magnitude 800 saturates */
  g_assert_cmpint (accel_sobel_host (ACCEL_IMAGE_GRAY8, in->data, in->pitch,
                       out->data, out->pitch, NULL, 0, w, h, 1.0f),
      ==, 0);
  assert_pixel (out, 7, 3, 0, 255, 0);

  /* a horizontal edge in a colour image: pure green rows below row 3, the
   * gradient points down (+y), alpha stays */
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < 4; c++)
        test_frame_set (
            rgba, x, y, c, c == 3 ? 9 : (y > 3 && c == 1 ? 255 : 0));
  g_assert_cmpint (accel_sobel_host (ACCEL_IMAGE_RGBA8, rgba->data, rgba->pitch,
                       rout->data, rout->pitch, dir, w * 4, w, h, 0.25f),
      ==, 0);
  /* luma of pure green: 0.587 x 255 = 149.685, rounded 150; 4 x 150 / 4 */
  for (int x = 0; x < w; x++)
    {
      for (int c = 0; c < 3; c++)
        {
          assert_pixel (rout, x, 3, c, 150, 0);
          assert_pixel (rout, x, 4, c, 150, 0);
          assert_pixel (rout, x, 0, c, 0, 0);
          assert_pixel (rout, x, 7, c, 0, 0);
        }
      assert_pixel (rout, x, 3, 3, 9, 0);
      g_assert_cmpfloat_with_epsilon (dir[3 * w + x], G_PI / 2, 1e-6);
    }
}

static void
test_median_salt (void)
{
  for (guint fi = 0; fi < G_N_ELEMENTS (test_filter_formats); fi++)
    for (int size = 3; size <= 5; size += 2)
      {
        int fmt = test_filter_formats[fi];
        gboolean f32 = fmt == ACCEL_IMAGE_RGBAF32;
        float v = f32 ? 0.4f : 100.0f, salt = f32 ? 1.0f : 255.0f;
        g_autoptr (TestFrame) in
            = test_frame_new (fmt, 23, 19, pitch_for (fmt, 23, 13));
        g_autoptr (TestFrame) out = test_frame_new (fmt, 23, 19, 0);
        int nc = fmt == ACCEL_IMAGE_GRAY8 ? 1 : 4;

        /* isolated salt: one grain in any window */
        test_frame_fill (in, v, v);
        for (int y = 1; y < 19; y += size)
          for (int x = 1; x < 23; x += size)
            for (int c = 0; c < nc; c++)
              test_frame_set (in, x, y, c, salt);
        g_assert_cmpint (accel_median_host (fmt, in->data, in->pitch, out->data,
                             out->pitch, 23, 19, size),
            ==, 0);
        for (int y = 0; y < 19; y++)
          for (int x = 0; x < 23; x++)
            for (int c = 0; c < nc; c++)
              assert_pixel (out, x, y, c, v, 0.0f);
      }
}

static void
test_median_picks_middle (void)
{
  g_autoptr (TestFrame) in = test_frame_new (ACCEL_IMAGE_GRAY8, 3, 3, 0);
  g_autoptr (TestFrame) out = test_frame_new (ACCEL_IMAGE_GRAY8, 3, 3, 0);
  static const guint8 values[9] = { 9, 1, 8, 2, 7, 3, 6, 4, 5 };

  memcpy (in->data, values, 9);
  g_assert_cmpint (
      accel_median_host (ACCEL_IMAGE_GRAY8, in->data, 3, out->data, 3, 3, 3, 3),
      ==, 0);
  /* the centre's window is the whole image */
  assert_pixel (out, 1, 1, 0, 5, 0);
}

static void
test_threshold (void)
{
  static const guint8 bgra_in[8] = { 10, 200, 100, 33, 101, 99, 255, 0 };
  static const guint8 bgra_out[8] = { 0, 255, 0, 33, 255, 0, 255, 0 };
  static const float f32_in[4] = { 0.2f, 0.7f, 0.5f, 0.3f };
  static const float f32_out[4] = { 0.0f, 1.0f, 0.0f, 0.3f };
  g_autoptr (TestFrame) gray = test_frame_new (ACCEL_IMAGE_GRAY8, 256, 1, 0);
  g_autoptr (TestFrame) gout
      = test_frame_new (ACCEL_IMAGE_GRAY8, 256, 1, 256 + 7);
  g_autoptr (TestFrame) rgba = test_frame_new (ACCEL_IMAGE_BGRA8, 2, 1, 0);
  g_autoptr (TestFrame) rout = test_frame_new (ACCEL_IMAGE_BGRA8, 2, 1, 0);
  g_autoptr (TestFrame) f = test_frame_new (ACCEL_IMAGE_RGBAF32, 1, 1, 0);
  g_autoptr (TestFrame) fout = test_frame_new (ACCEL_IMAGE_RGBAF32, 1, 1, 0);

  for (int x = 0; x < 256; x++)
    test_frame_set (gray, x, 0, 0, (float)x);
  g_assert_cmpint (accel_threshold_host (ACCEL_IMAGE_GRAY8, gray->data, 256,
                       gout->data, gout->pitch, 256, 1, 127.5f),
      ==, 0);
  for (int x = 0; x < 256; x++)
    assert_pixel (gout, x, 0, 0, x > 127 ? 255 : 0, 0);
  assert_padding_poisoned (gout);

  /* each channel on its own; alpha kept */
  memcpy (rgba->data, bgra_in, 8);
  g_assert_cmpint (accel_threshold_host (ACCEL_IMAGE_BGRA8, rgba->data, 8,
                       rout->data, 8, 2, 1, 100.0f),
      ==, 0);
  g_assert_cmpmem (rout->data, 8, bgra_out, 8);

  memcpy (f->data, f32_in, 16);
  g_assert_cmpint (accel_threshold_host (ACCEL_IMAGE_RGBAF32, f->data, 16,
                       fout->data, 16, 1, 1, 0.5f),
      ==, 0);
  g_assert_cmpmem (fout->data, 16, f32_out, 16);
}

static void
test_resize_identity (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (g_test_rand_int ());

  for (guint fi = 0; fi < G_N_ELEMENTS (test_filter_formats); fi++)
    for (guint si = 0; si < G_N_ELEMENTS (odd_sizes); si++)
      {
        int fmt = test_filter_formats[fi];
        int w = odd_sizes[si][0], h = odd_sizes[si][1];
        size_t row = pitch_for (fmt, w, 0);
        g_autoptr (TestFrame) in
            = test_frame_new (fmt, w, h, pitch_for (fmt, w, 13));
        g_autoptr (TestFrame) out
            = test_frame_new (fmt, w, h, pitch_for (fmt, w, 64));

        test_frame_fill_random (in, rand);
        g_assert_cmpint (accel_resize_host (fmt, in->data, in->pitch, w, h,
                             out->data, out->pitch, w, h),
            ==, 0);
        for (int y = 0; y < h; y++)
          g_assert_cmpmem (
              out->data + y * out->pitch, row, in->data + y * in->pitch, row);
        assert_padding_poisoned (out);
      }
}

static void
test_resize_scales (void)
{
  static const guint8 quad[16]
      = { 10, 20, 100, 100, 30, 40, 100, 100, 0, 0, 50, 50, 0, 0, 50, 50 };
  static const guint8 means[4] = { 25, 100, 0, 50 };
  g_autoptr (TestFrame) in = test_frame_new (ACCEL_IMAGE_GRAY8, 4, 4, 0);
  g_autoptr (TestFrame) half = test_frame_new (ACCEL_IMAGE_GRAY8, 2, 2, 0);
  g_autoptr (TestFrame) c = test_frame_new (ACCEL_IMAGE_RGBA8, 3, 2, 0);
  g_autoptr (TestFrame) big = test_frame_new (ACCEL_IMAGE_RGBA8, 13, 11, 0);

  /* halving samples between the two pixels of each 2x2 block: their mean */
  memcpy (in->data, quad, 16);
  g_assert_cmpint (accel_resize_host (ACCEL_IMAGE_GRAY8, in->data, 4, 4, 4,
                       half->data, 2, 2, 2),
      ==, 0);
  g_assert_cmpmem (half->data, 4, means, 4);

  /* a constant image stays constant at any size */
  test_frame_fill (c, 42, 250);
  g_assert_cmpint (accel_resize_host (ACCEL_IMAGE_RGBA8, c->data, c->pitch, 3,
                       2, big->data, big->pitch, 13, 11),
      ==, 0);
  for (int y = 0; y < 11; y++)
    for (int x = 0; x < 13; x++)
      for (int ch = 0; ch < 4; ch++)
        assert_pixel (big, x, y, ch, ch == 3 ? 250 : 42, 0);
}

/* converts @in to @dst_format with a padded pitch and back to @in's format */
static TestFrame *
round_trip (const TestFrame *in, int dst_format)
{
  g_autoptr (TestFrame) mid = test_frame_new (
      dst_format, in->width, in->height, pitch_for (dst_format, in->width, 13));
  TestFrame *back = test_frame_new (in->format, in->width, in->height, 0);

  g_assert_cmpint (
      accel_convert_host (in->format, in->data, in->pitch, dst_format,
          mid->data, mid->pitch, in->width, in->height),
      ==, 0);
  g_assert_cmpint (
      accel_convert_host (dst_format, mid->data, mid->pitch, in->format,
          back->data, back->pitch, in->width, in->height),
      ==, 0);
  return back;
}

static void
test_convert_exact_round_trips (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (g_test_rand_int ());

  for (guint si = 0; si < G_N_ELEMENTS (odd_sizes); si++)
    {
      int w = odd_sizes[si][0], h = odd_sizes[si][1];
      g_autoptr (TestFrame) rgba = test_frame_new (ACCEL_IMAGE_RGBA8, w, h, 0);
      g_autoptr (TestFrame) gray = test_frame_new (ACCEL_IMAGE_GRAY8, w, h, 0);
      g_autoptr (TestFrame) nv12 = test_frame_new (ACCEL_IMAGE_NV12, w, h, 0);
      g_autoptr (TestFrame) i420 = test_frame_new (ACCEL_IMAGE_I420, w, h, 0);
      g_autoptr (TestFrame) a = NULL, b = NULL, c = NULL, d = NULL, e = NULL;

      test_frame_fill_random (rgba, rand);
      test_frame_fill_random (gray, rand);
      test_frame_fill_random (nv12, rand);
      test_frame_fill_random (i420, rand);

      a = round_trip (rgba, ACCEL_IMAGE_BGRA8);
      g_assert_cmpmem (a->data, a->size, rgba->data, rgba->size);
      b = round_trip (rgba, ACCEL_IMAGE_RGBAF32);
      g_assert_cmpmem (b->data, b->size, rgba->data, rgba->size);
      c = round_trip (gray, ACCEL_IMAGE_RGBA8);
      g_assert_cmpmem (c->data, c->size, gray->data, gray->size);
      d = round_trip (nv12, ACCEL_IMAGE_I420);
      g_assert_cmpmem (d->data, d->size, nv12->data, nv12->size);
      e = round_trip (i420, ACCEL_IMAGE_NV12);
      g_assert_cmpmem (e->data, e->size, i420->data, i420->size);
    }
}

static void
test_convert_yuv_round_trips (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (g_test_rand_int ());
  static const int yuv[] = { ACCEL_IMAGE_NV12, ACCEL_IMAGE_I420 };

  for (guint si = 0; si < G_N_ELEMENTS (odd_sizes); si++)
    for (guint k = 0; k < G_N_ELEMENTS (yuv); k++)
      {
        int w = odd_sizes[si][0], h = odd_sizes[si][1];
        g_autoptr (TestFrame) in = test_frame_new (
            ACCEL_IMAGE_RGBA8, w, h, pitch_for (ACCEL_IMAGE_RGBA8, w, 13));
        g_autoptr (TestFrame) back = NULL;

        /* a colour per 2x2 block, opaque: 4:2:0 loses nothing else */
        for (int by = 0; by < (h + 1) / 2; by++)
          for (int bx = 0; bx < (w + 1) / 2; bx++)
            {
              guint8 px[4] = { g_rand_int (rand), g_rand_int (rand),
                g_rand_int (rand), 255 };
              for (int y = 2 * by; y < MIN (h, 2 * by + 2); y++)
                for (int x = 2 * bx; x < MIN (w, 2 * bx + 2); x++)
                  for (int c = 0; c < 4; c++)
                    test_frame_set (in, x, y, c, px[c]);
            }
        back = round_trip (in, yuv[k]);
        for (int y = 0; y < h; y++)
          for (int x = 0; x < w; x++)
            for (int c = 0; c < 4; c++)
              assert_pixel (back, x, y, c, test_frame_get (in, x, y, c), 2.0f);
      }
}

static void
test_convert_known_values (void)
{
  /* red, green / blue, white: one 2x2 block */
  static const guint8 rgba[16]
      = { 255, 0, 0, 255, 255, 0, 0, 255, 255, 0, 0, 255, 255, 0, 0, 255 };
  static const guint8 white[16] = { 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255 };
  guint8 nv12[6], i420[6], gray[4], back[16];

  /* Y = 0.299 x 255 = 76.2, U = 128 - 0.168736 x 255 = 85.0, V = 255.5 */
  g_assert_cmpint (accel_convert_host (ACCEL_IMAGE_RGBA8, rgba, 8,
                       ACCEL_IMAGE_NV12, nv12, 2, 2, 2),
      ==, 0);
  g_assert_cmpmem (nv12, 6, ((guint8[]){ 76, 76, 76, 76, 85, 255 }), 6);
  g_assert_cmpint (accel_convert_host (ACCEL_IMAGE_RGBA8, white, 8,
                       ACCEL_IMAGE_I420, i420, 2, 2, 2),
      ==, 0);
  g_assert_cmpmem (i420, 6, ((guint8[]){ 255, 255, 255, 255, 128, 128 }), 6);
  g_assert_cmpint (accel_convert_host (ACCEL_IMAGE_RGBA8, rgba, 8,
                       ACCEL_IMAGE_GRAY8, gray, 2, 2, 2),
      ==, 0);
  g_assert_cmpmem (gray, 4, ((guint8[]){ 76, 76, 76, 76 }), 4);
  /* BGRA8 swaps red and blue */
  g_assert_cmpint (accel_convert_host (ACCEL_IMAGE_RGBA8, rgba, 8,
                       ACCEL_IMAGE_BGRA8, back, 8, 2, 2),
      ==, 0);
  g_assert_cmpmem (back, 4, ((guint8[]){ 0, 0, 255, 255 }), 4);
  /* YUV comes back opaque */
  g_assert_cmpint (accel_convert_host (ACCEL_IMAGE_I420, i420, 2,
                       ACCEL_IMAGE_RGBA8, back, 8, 2, 2),
      ==, 0);
  g_assert_cmpmem (back, 16, white, 16);
}

/* the luma of 8-bit pixels is BT.601's with its weights taken exactly,
 * rounded half up, for every colour: in GRAY8 and in the 4:2:0 luma rows,
 * from RGBA8 and BGRA8 */
static void
test_convert_luma_exact (void)
{
  static const int sources[] = { ACCEL_IMAGE_RGBA8, ACCEL_IMAGE_BGRA8 };
  static const int targets[] = { ACCEL_IMAGE_GRAY8, ACCEL_IMAGE_NV12 };
  guint8 *out = g_malloc ((gsize)3 << 23);
  int float_misses = 0;

  for (guint i = 0; i < G_N_ELEMENTS (sources); i++)
    {
      g_autoptr (TestFrame) in
          = test_frame_new (sources[i], 4096, 4096, 4 * 4096);

      test_frame_fill_every_colour (in);

      for (guint t = 0; t < G_N_ELEMENTS (targets); t++)
        {
          g_assert_cmpint (accel_convert_host (sources[i], in->data, in->pitch,
                               targets[t], out, 4096, 4096, 4096),
              ==, 0);
          for (guint32 k = 0; k < 1u << 24; k++)
            {
              guint32 r = k & 0xff, g = (k >> 8) & 0xff, b = k >> 16;
              guint32 want = (299 * r + 587 * g + 114 * b + 500) / 1000;

              if (out[k] != want)
                {
                  g_test_message ("%s to %s: colour %u %u %u",
                      test_format_name (sources[i]),
                      test_format_name (targets[t]), r, g, b);
                  g_assert_cmpuint (out[k], ==, want);
                }
              if (i == 0 && t == 0)
                float_misses
                    += accel_px_to_u8 (accel_px_luma (r, g, b)) != (int)want;
            }
        }
    }
  /* the frame holds the colours where the float luma, rounded, differs */
  g_assert_cmpint (float_misses, ==, 36);
  g_free (out);
}

/* every kernel case: a padded pitch gives the same pixels as a tight one
 * and leaves the padding alone, at odd sizes */
static const TestCase pitch_cases[] = {
  { "gaussian-blur", TEST_KERNEL_GAUSSIAN_BLUR, 1.5f },
  { "box-blur", TEST_KERNEL_BOX_BLUR, .n = 2 },
  { "unsharp", TEST_KERNEL_UNSHARP, 1.5f, 2.0f },
  { "sobel", TEST_KERNEL_SOBEL, 0.5f },
  { "median-3", TEST_KERNEL_MEDIAN, .n = 3 },
  { "median-5", TEST_KERNEL_MEDIAN, .n = 5 },
  { "threshold", TEST_KERNEL_THRESHOLD, 100.0f },
  { "resize-up", TEST_KERNEL_RESIZE, .num = 5, .den = 2 },
  { "resize-down", TEST_KERNEL_RESIZE, .num = 1, .den = 2 },
};

static void
check_pitch_case (const TestCase *tc, int fmt, GRand *rand)
{
  for (guint si = 0; si < G_N_ELEMENTS (odd_sizes); si++)
    {
      int w = odd_sizes[si][0], h = odd_sizes[si][1], of, ow, oh;
      g_autoptr (TestFrame) tight = NULL, ref = NULL;

      test_case_output (tc, fmt, w, h, &of, &ow, &oh);
      tight = test_frame_new (fmt, w, h, 0);
      ref = test_frame_new (of, ow, oh, 0);
      test_frame_fill_random (tight, rand);
      g_assert_cmpint (test_case_run (tc, FALSE, NULL, tight, tight->data, ref,
                           ref->data, NULL, 0),
          ==, 0);
      for (guint pi = 1; pi < G_N_ELEMENTS (pitch_extras); pi++)
        {
          size_t row = pitch_for (fmt, w, 0), orow = pitch_for (of, ow, 0);
          g_autoptr (TestFrame) in
              = test_frame_new (fmt, w, h, row + pitch_extras[pi]);
          g_autoptr (TestFrame) out
              = test_frame_new (of, ow, oh, orow + pitch_extras[pi]);

          if (accel_image_format_is_packed (fmt))
            for (int y = 0; y < h; y++)
              memcpy (in->data + y * in->pitch, tight->data + y * row, row);
          else
            g_assert_cmpint (accel_convert_host (fmt, tight->data, tight->pitch,
                                 fmt, in->data, in->pitch, w, h),
                ==, 0);
          g_assert_cmpint (test_case_run (tc, FALSE, NULL, in, in->data, out,
                               out->data, NULL, 0),
              ==, 0);
          if (accel_image_format_is_packed (of))
            {
              for (int y = 0; y < oh; y++)
                g_assert_cmpmem (out->data + y * out->pitch, orow,
                    ref->data + y * orow, orow);
              assert_padding_poisoned (out);
            }
          else
            {
              g_autoptr (TestFrame) packed = test_frame_new (of, ow, oh, 0);
              g_assert_cmpint (accel_convert_host (of, out->data, out->pitch,
                                   of, packed->data, packed->pitch, ow, oh),
                  ==, 0);
              g_assert_cmpmem (
                  packed->data, packed->size, ref->data, ref->size);
            }
        }
    }
}

static void
test_odd_sizes_and_pitches (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (g_test_rand_int ());

  for (guint ci = 0; ci < G_N_ELEMENTS (pitch_cases); ci++)
    for (guint fi = 0; fi < G_N_ELEMENTS (test_filter_formats); fi++)
      check_pitch_case (&pitch_cases[ci], test_filter_formats[fi], rand);

  for (guint a = 0; a < G_N_ELEMENTS (test_all_formats); a++)
    for (guint b = 0; b < G_N_ELEMENTS (test_all_formats); b++)
      {
        TestCase tc = { "convert", TEST_KERNEL_CONVERT,
          .dst_format = test_all_formats[b] };
        check_pitch_case (&tc, test_all_formats[a], rand);
      }
}

static void
test_invalid_arguments (void)
{
  guint8 buf[64] = { 0 };

  /* pitch shorter than a row, no pixels, formats a filter does not take */
  g_assert_cmpint (
      accel_gaussian_blur_host (ACCEL_IMAGE_RGBA8, buf, 7, buf, 8, 2, 1, 1.0f),
      ==, ACCEL_IMAGE_INVALID_VALUE);
  g_assert_cmpint (
      accel_box_blur_host (ACCEL_IMAGE_GRAY8, buf, 4, buf + 32, 4, 0, 1, 1), ==,
      ACCEL_IMAGE_INVALID_VALUE);
  g_assert_cmpint (accel_box_blur_host (ACCEL_IMAGE_GRAY8, buf, 4, buf + 32, 4,
                       4, 1, ACCEL_IMAGE_MAX_RADIUS + 1),
      ==, ACCEL_IMAGE_INVALID_VALUE);
  g_assert_cmpint (
      accel_threshold_host (ACCEL_IMAGE_NV12, buf, 4, buf + 32, 4, 2, 2, 1.0f),
      ==, ACCEL_IMAGE_INVALID_VALUE);
  g_assert_cmpint (accel_sobel_host (ACCEL_IMAGE_GRAY8, buf, 4, buf + 32, 4,
                       (float *)buf, 6, 4, 1, 1.0f),
      ==, ACCEL_IMAGE_INVALID_VALUE);
  g_assert_cmpint (
      accel_convert_host (7, buf, 4, ACCEL_IMAGE_GRAY8, buf + 32, 4, 4, 1), ==,
      ACCEL_IMAGE_INVALID_VALUE);
  g_assert_cmpint (
      accel_resize_host (ACCEL_IMAGE_GRAY8, buf, 4, 4, 1, buf + 32, 4, 0, 1),
      ==, ACCEL_IMAGE_INVALID_VALUE);
  g_assert_cmpint (
      accel_median_host (ACCEL_IMAGE_GRAY8, buf, 4, buf + 32, 4, 4, 1, 4), ==,
      ACCEL_IMAGE_INVALID_VALUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func (
      "/image/gaussian-blur/constant-stays-constant", test_gaussian_constant);
  g_test_add_func ("/image/gaussian-blur/weights", test_gaussian_weights);
  g_test_add_func ("/image/gaussian-blur/weights-u8", test_gaussian_weights_u8);
  g_test_add_func ("/image/box-blur/impulse", test_box_impulse);
  g_test_add_func ("/image/sobel/flat-is-zero", test_sobel_flat);
  g_test_add_func ("/image/sobel/step-edge", test_sobel_step_edge);
  g_test_add_func ("/image/median/removes-salt", test_median_salt);
  g_test_add_func ("/image/median/picks-middle", test_median_picks_middle);
  g_test_add_func ("/image/threshold/per-channel", test_threshold);
  g_test_add_func ("/image/resize/same-size-is-identity", test_resize_identity);
  g_test_add_func ("/image/resize/scales", test_resize_scales);
  g_test_add_func (
      "/image/convert/exact-round-trips", test_convert_exact_round_trips);
  g_test_add_func (
      "/image/convert/yuv-round-trips-within-2", test_convert_yuv_round_trips);
  g_test_add_func ("/image/convert/known-values", test_convert_known_values);
  g_test_add_func ("/image/convert/luma-exact", test_convert_luma_exact);
  g_test_add_func ("/image/odd-sizes-and-pitches", test_odd_sizes_and_pitches);
  g_test_add_func ("/image/invalid-arguments", test_invalid_arguments);
  return g_test_run ();
}
