/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the image kernels on the GPU against their host references: every kernel
 * and format, odd and large sizes, tight and padded rows, fresh random
 * input each time and an output poisoned before the run, so a pixel the
 * kernel does not write (or a byte between rows it does) fails.
 * uint8 outputs must match to the bit; float outputs (RGBAF32 and Sobel's
 * direction plane) within FLOAT_TOLERANCE, relative above 1 */
#include <math.h>
#include <cuda_runtime.h>

#include "accel-test.h"
#include "test-image.h"

#define FLOAT_TOLERANCE 1e-5f

typedef enum
{
  PITCH_TIGHT,
  PITCH_ODD,  /* 13 bytes more than a row: nothing aligned */
  PITCH_WIDE, /* a row rounded up to 256 bytes, plus 256: 16-byte aligned */
} PitchKind;

static const char *const pitch_names[] = { "tight", "odd", "wide" };

static const int sizes[][2]
    = { { 1, 1 }, { 7, 3 }, { 64, 48 }, { 1921, 1079 } };

/* large sigmas and radii only up to this many pixels: their host reference
 * is slow on a full frame */
#define SMALL_ONLY 64 * 48

typedef struct
{
  TestCase tc;
  gboolean small_only;
} GpuKernelCase;

static const GpuKernelCase kernel_cases[] = {
  /* 8-bit taps 0 256 0: too large a byte for the RGBA8 fast path */
  { { "gaussian-blur/sigma-0.2", TEST_KERNEL_GAUSSIAN_BLUR, 0.2f } },
  /* with the ones below, each radius of the RGBA8 fast path: 1 to 9 */
  { { "gaussian-blur/sigma-0.5", TEST_KERNEL_GAUSSIAN_BLUR, 0.5f } },
  { { "gaussian-blur/sigma-0.6", TEST_KERNEL_GAUSSIAN_BLUR, 0.6f } },
  { { "gaussian-blur/sigma-1", TEST_KERNEL_GAUSSIAN_BLUR, 1.0f } },
  { { "gaussian-blur/sigma-1.5", TEST_KERNEL_GAUSSIAN_BLUR, 1.5f } },
  { { "gaussian-blur/sigma-2", TEST_KERNEL_GAUSSIAN_BLUR, 2.0f } },
  { { "gaussian-blur/sigma-2.2", TEST_KERNEL_GAUSSIAN_BLUR, 2.2f } },
  { { "gaussian-blur/sigma-2.5", TEST_KERNEL_GAUSSIAN_BLUR, 2.5f } },
  /* 8-bit taps of radius 8 (the outer ones of 9 round to 0) */
  { { "gaussian-blur/sigma-3", TEST_KERNEL_GAUSSIAN_BLUR, 3.0f } },
  /* radius 9, the RGBA8 fast path's largest, and 10, past it */
  { { "gaussian-blur/sigma-3.2", TEST_KERNEL_GAUSSIAN_BLUR, 3.2f } },
  { { "gaussian-blur/sigma-3.4", TEST_KERNEL_GAUSSIAN_BLUR, 3.4f } },
  { { "gaussian-blur/sigma-10", TEST_KERNEL_GAUSSIAN_BLUR, 10.0f }, TRUE },
  /* RGBA8 streams radius 1 down strips, 2 to 7 down strips in running
   * sums (from radius 5 with two lanes a side for the neighbours) */
  { { "box-blur/radius-1", TEST_KERNEL_BOX_BLUR, .n = 1 } },
  { { "box-blur/radius-2", TEST_KERNEL_BOX_BLUR, .n = 2 } },
  { { "box-blur/radius-3", TEST_KERNEL_BOX_BLUR, .n = 3 } },
  { { "box-blur/radius-4", TEST_KERNEL_BOX_BLUR, .n = 4 } },
  { { "box-blur/radius-5", TEST_KERNEL_BOX_BLUR, .n = 5 } },
  { { "box-blur/radius-6", TEST_KERNEL_BOX_BLUR, .n = 6 } },
  /* RGBA8 sums in 16-bit halves up to radius 7; radius 8 sums in floats */
  { { "box-blur/radius-7", TEST_KERNEL_BOX_BLUR, .n = 7 } },
  { { "box-blur/radius-8", TEST_KERNEL_BOX_BLUR, .n = 8 } },
  { { "box-blur/radius-32", TEST_KERNEL_BOX_BLUR, .n = 32 }, TRUE },
  { { "unsharp/amount-1.5", TEST_KERNEL_UNSHARP, 1.5f, 1.0f } },
  { { "unsharp/sigma-0.5", TEST_KERNEL_UNSHARP, 3.0f, 0.5f } },
  { { "unsharp/sigma-2", TEST_KERNEL_UNSHARP, 1.2f, 2.0f } },
  { { "unsharp/sigma-3.2", TEST_KERNEL_UNSHARP, 0.8f, 3.2f } },
  { { "unsharp/sigma-6", TEST_KERNEL_UNSHARP, 0.7f, 6.0f }, TRUE },
  { { "sobel/scale-0.5", TEST_KERNEL_SOBEL, 0.5f } },
  { { "sobel/scale-3", TEST_KERNEL_SOBEL, 3.0f } },
  { { "median/3x3", TEST_KERNEL_MEDIAN, .n = 3 } },
  { { "median/5x5", TEST_KERNEL_MEDIAN, .n = 5 } },
  { { "threshold/100", TEST_KERNEL_THRESHOLD, 100.0f } },
  { { "resize/same", TEST_KERNEL_RESIZE, .num = 1, .den = 1 } },
  { { "resize/up-5-2", TEST_KERNEL_RESIZE, .num = 5, .den = 2 } },
  /* exact 2x: RGBA8 on 16 bytes takes its own kernel */
  { { "resize/up-2", TEST_KERNEL_RESIZE, .num = 2, .den = 1 } },
  /* exact halves: RGBA8 on 16 bytes takes its own kernel */
  { { "resize/down-1-2", TEST_KERNEL_RESIZE, .num = 1, .den = 2 } },
  { { "resize/down-1-3", TEST_KERNEL_RESIZE, .num = 1, .den = 3 } },
};

typedef struct
{
  TestCase tc;
  int format;
  int width, height;
  PitchKind pitch;
  gboolean saturated; /* every input byte 255 instead of random */
  /* each of the 2^24 colours once (4096 x 4096 RGBA8 or BGRA8), or each
   * (Y, U, V) (NV12 or I420) */
  gboolean every_colour;
} GpuCase;

static void
check_cuda (int status, const char *what)
{
  if (status != cudaSuccess)
    {
      g_test_message ("%s: %s", what, cudaGetErrorString (status));
      g_assert_cmpint (status, ==, cudaSuccess);
    }
}

static size_t
pitch_of (int format, int width, PitchKind kind)
{
  size_t row = (size_t)width * accel_image_bytes_per_pixel (format);

  switch (kind)
    {
    case PITCH_ODD:
      return row + 13;
    case PITCH_WIDE:
      return (row + 255) / 256 * 256 + 256;
    default:
      return row;
    }
}

/* the sample rows of @f with their offsets: for 4:2:0 the chroma rows too */
static gboolean
byte_is_sample (const TestFrame *f, size_t at)
{
  size_t uo, vo, cp, step, row_bytes;

  if (at < f->pitch * (size_t)f->height)
    return at % f->pitch
           < (size_t)f->width * accel_image_bytes_per_pixel (f->format);
  accel_image_chroma_layout (
      f->format, f->pitch, f->height, &uo, &vo, &cp, &step);
  row_bytes = (size_t)((f->width + 1) / 2) * step;
  if (f->format == ACCEL_IMAGE_I420 && at >= vo)
    return (at - vo) % cp < row_bytes;
  return (at - uo) % cp < row_bytes;
}

static void
compare_frames (const TestFrame *want, const TestFrame *got)
{
  g_assert_cmpuint (want->size, ==, got->size);

  if (want->format != ACCEL_IMAGE_RGBAF32)
    {
      if (memcmp (want->data, got->data, want->size) != 0)
        for (size_t i = 0; i < want->size; i++)
          if (want->data[i] != got->data[i])
            {
              g_test_message ("first difference at byte %zu (row %zu, byte "
                              "%zu of the row%s): %u, want %u",
                  i, i / want->pitch, i % want->pitch,
                  byte_is_sample (want, i) ? "" : ", between rows",
                  got->data[i], want->data[i]);
              break;
            }
      g_assert_cmpmem (want->data, want->size, got->data, got->size);
      return;
    }

  for (size_t i = 0; i < want->size; i++)
    if (!byte_is_sample (want, i))
      g_assert_cmphex (got->data[i], ==, TEST_POISON);
  for (int y = 0; y < want->height; y++)
    for (int x = 0; x < want->width; x++)
      for (int c = 0; c < 4; c++)
        {
          float w = test_frame_get (want, x, y, c);
          float g = test_frame_get (got, x, y, c);
          if (!(fabsf (w - g) <= FLOAT_TOLERANCE * MAX (1.0f, fabsf (w))))
            {
              g_test_message ("pixel (%d, %d) channel %d", x, y, c);
              g_assert_cmpfloat (g, ==, w);
            }
        }
}

static void
compare_directions (
    const float *want, const float *got, int width, int height, size_t pitch)
{
  size_t stride = pitch / 4;

  for (int y = 0; y < height; y++)
    {
      for (int x = 0; x < width; x++)
        {
          float w = want[y * stride + x], g = got[y * stride + x];
          if (!(fabsf (w - g) <= FLOAT_TOLERANCE))
            {
              g_test_message ("direction at (%d, %d)", x, y);
              g_assert_cmpfloat (g, ==, w);
            }
        }
      g_assert_cmpmem (want + y * stride + width, (stride - width) * 4,
          got + y * stride + width, (stride - width) * 4);
    }
}

static void
test_gpu_case (gconstpointer data)
{
  const GpuCase *gc = data;
  const TestCase *tc = &gc->tc;
  g_autoptr (GRand) rand = g_rand_new_with_seed (g_test_rand_int ());
  g_autoptr (TestFrame) in = NULL, want = NULL, got = NULL;
  g_autofree float *want_dir = NULL, *got_dir = NULL;
  gboolean sobel = tc->kernel == TEST_KERNEL_SOBEL;
  size_t dir_pitch = 0, dir_size = 0;
  void *d_in = NULL, *d_out = NULL, *d_dir = NULL;
  cudaStream_t stream;
  int of, ow, oh;

  test_case_output (tc, gc->format, gc->width, gc->height, &of, &ow, &oh);
  in = test_frame_new (gc->format, gc->width, gc->height,
      pitch_of (gc->format, gc->width, gc->pitch));
  want = test_frame_new (of, ow, oh, pitch_of (of, ow, gc->pitch));
  got = test_frame_new (of, ow, oh, want->pitch);
  if (gc->saturated)
    memset (in->data, 0xff, in->size);
  else if (gc->every_colour)
    test_frame_fill_every_colour (in);
  else
    test_frame_fill_random (in, rand);
  if (sobel)
    {
      /* one float per pixel, rows padded like the image's */
      dir_pitch = (size_t)gc->width * 4;
      if (gc->pitch == PITCH_ODD)
        dir_pitch += 12;
      else if (gc->pitch == PITCH_WIDE)
        dir_pitch = (dir_pitch + 255) / 256 * 256 + 256;
      dir_size = dir_pitch * gc->height;
      want_dir = g_malloc (dir_size);
      got_dir = g_malloc (dir_size);
      memset (want_dir, TEST_POISON, dir_size);
    }

  g_assert_cmpint (test_case_run (tc, FALSE, NULL, in, in->data, want,
                       want->data, want_dir, dir_pitch),
      ==, 0);

  /* input and poison go in on the kernel's own stream: a non-blocking
   * stream does not wait for the legacy stream's cudaMemset () */
  check_cuda (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking),
      "cudaStreamCreateWithFlags");
  check_cuda (cudaMalloc (&d_in, in->size), "cudaMalloc");
  check_cuda (cudaMalloc (&d_out, got->size), "cudaMalloc");
  check_cuda (cudaMemcpyAsync (
                  d_in, in->data, in->size, cudaMemcpyHostToDevice, stream),
      "cudaMemcpyAsync");
  check_cuda (cudaMemsetAsync (d_out, TEST_POISON, got->size, stream),
      "cudaMemsetAsync");
  if (sobel)
    {
      check_cuda (cudaMalloc (&d_dir, dir_size), "cudaMalloc");
      check_cuda (cudaMemsetAsync (d_dir, TEST_POISON, dir_size, stream),
          "cudaMemsetAsync");
    }

  check_cuda (
      test_case_run (tc, TRUE, stream, in, d_in, got, d_out, d_dir, dir_pitch),
      "launch");
  check_cuda (cudaStreamSynchronize (stream), "cudaStreamSynchronize");
  check_cuda (cudaMemcpy (got->data, d_out, got->size, cudaMemcpyDeviceToHost),
      "cudaMemcpy");
  if (sobel)
    check_cuda (cudaMemcpy (got_dir, d_dir, dir_size, cudaMemcpyDeviceToHost),
        "cudaMemcpy");

  compare_frames (want, got);
  if (sobel)
    compare_directions (want_dir, got_dir, gc->width, gc->height, dir_pitch);

  cudaFree (d_in);
  cudaFree (d_out);
  cudaFree (d_dir);
  cudaStreamDestroy (stream);
}

/* arguments a launcher must refuse without launching anything */
static void
test_gpu_invalid_arguments (void)
{
  void *d = NULL;

  check_cuda (cudaMalloc (&d, 4096), "cudaMalloc");
  g_assert_cmpint (accel_gaussian_blur (NULL, ACCEL_IMAGE_RGBA8, d, 7,
                       (char *)d + 2048, 8, 2, 1, 1.0f),
      ==, cudaErrorInvalidValue);
  g_assert_cmpint (accel_gaussian_blur (NULL, ACCEL_IMAGE_RGBA8, d, 8,
                       (char *)d + 2048, 8, 2, 1, 0.0f),
      ==, cudaErrorInvalidValue);
  g_assert_cmpint (accel_box_blur (NULL, ACCEL_IMAGE_GRAY8, d, 4,
                       (char *)d + 2048, 4, 4, 1, 33),
      ==, cudaErrorInvalidValue);
  g_assert_cmpint (accel_median (NULL, ACCEL_IMAGE_GRAY8, d, 4,
                       (char *)d + 2048, 4, 4, 1, 4),
      ==, cudaErrorInvalidValue);
  g_assert_cmpint (accel_threshold (NULL, ACCEL_IMAGE_NV12, d, 4,
                       (char *)d + 2048, 4, 4, 2, 1.0f),
      ==, cudaErrorInvalidValue);
  g_assert_cmpint (accel_convert (NULL, 0, d, 4, ACCEL_IMAGE_GRAY8,
                       (char *)d + 2048, 4, 4, 1),
      ==, cudaErrorInvalidValue);
  /* nothing was left behind for the next launch to report */
  g_assert_cmpint (cudaGetLastError (), ==, cudaSuccess);
  cudaFree (d);
}

static GpuCase *
add_case (GPtrArray *keep, const TestCase *tc, const char *name, int format,
    int w, int h, PitchKind pitch)
{
  GpuCase *gc = g_new0 (GpuCase, 1);
  g_autofree gchar *path = NULL;

  gc->tc = *tc;
  gc->format = format;
  gc->width = w;
  gc->height = h;
  gc->pitch = pitch;
  path = g_strdup_printf ("/gpu/image/%s/%s/%dx%d/%s", name,
      test_format_name (format), w, h, pitch_names[pitch]);
  g_test_add_data_func (path, gc, test_gpu_case);
  g_ptr_array_add (keep, gc);
  return gc;
}

/* @tc on a 16-byte aligned RGBA8 frame of bytes 255 */
static void
add_saturated (
    GPtrArray *keep, const TestCase *tc, const char *name, int w, int h)
{
  g_autofree gchar *path = g_strdup_printf ("%s/saturated", name);

  add_case (keep, tc, path, ACCEL_IMAGE_RGBA8, w, h, PITCH_WIDE)->saturated
      = TRUE;
}

int
main (int argc, char **argv)
{
  static const TestCase box_radius_7 = { NULL, TEST_KERNEL_BOX_BLUR, .n = 7 };
  static const TestCase box_radius_4 = { NULL, TEST_KERNEL_BOX_BLUR, .n = 4 };
  static const TestCase box_radius_1 = { NULL, TEST_KERNEL_BOX_BLUR, .n = 1 };
  static const TestCase gauss_radius_9
      = { NULL, TEST_KERNEL_GAUSSIAN_BLUR, 3.2f };
  static const TestCase unsharp_radius_9
      = { NULL, TEST_KERNEL_UNSHARP, 2.0f, 3.2f };
  static const TestCase gauss_radius_8
      = { NULL, TEST_KERNEL_GAUSSIAN_BLUR, 3.0f };
  static const TestCase unsharp_radius_8
      = { NULL, TEST_KERNEL_UNSHARP, 2.0f, 3.0f };
  static const TestCase gauss_radius_4
      = { NULL, TEST_KERNEL_GAUSSIAN_BLUR, 1.5f };
  static const TestCase half = { NULL, TEST_KERNEL_RESIZE, .num = 1, .den = 2 };
  static const TestCase twice
      = { NULL, TEST_KERNEL_RESIZE, .num = 2, .den = 1 };
  g_autoptr (GPtrArray) keep = NULL;

  accel_test_require_gpu ();
  g_test_init (&argc, &argv, NULL);
  keep = g_ptr_array_new_with_free_func (g_free);

  g_test_add_func ("/gpu/image/invalid-arguments", test_gpu_invalid_arguments);
  /* the largest sums the 16-bit halves of the RGBA8 box blur hold, in
   * running sums down strips whose warps overlap by two lanes */
  add_saturated (keep, &box_radius_7, "box-blur/radius-7", 300, 150);
  /* and those of the streamed one, over strips and the warps' edges */
  add_saturated (keep, &box_radius_1, "box-blur/radius-1", 300, 150);
  /* and of the running sums whose warps overlap by a lane */
  add_saturated (keep, &box_radius_4, "box-blur/radius-4", 300, 150);
  /* the largest sums of the RGBA8 Gaussian's 16-bit halves and its dot
   * products */
  add_saturated (keep, &gauss_radius_9, "gaussian-blur/sigma-3.2", 130, 70);
  add_saturated (keep, &unsharp_radius_9, "unsharp/sigma-3.2", 130, 70);
  /* and those of the tensor cores' products, whose windows reach radius 8 */
  add_saturated (keep, &gauss_radius_8, "gaussian-blur/sigma-3", 130, 70);
  add_saturated (keep, &unsharp_radius_8, "unsharp/sigma-3", 130, 70);
  /* the Gaussian and the unsharp mask of radius 1 to 4 on rows on 16 bytes
   * of whole words of four pixels: the unsharp mask's rows by tensor
   * copies; the Gaussian in tiles on a full frame, whose grid of tiles fits
   * one wave, and down strips on one whose grid is more than a wave on any
   * GPU (2 449 tiles). The tiles and the strips cut at the right and bottom
   * edges */
  for (guint ci = 0; ci < G_N_ELEMENTS (kernel_cases); ci++)
    {
      const TestCase *tc = &kernel_cases[ci].tc;

      if (!(tc->kernel == TEST_KERNEL_GAUSSIAN_BLUR && tc->f <= 1.5f)
          && !(tc->kernel == TEST_KERNEL_UNSHARP && tc->g <= 1.5f))
        continue;
      for (int f = ACCEL_IMAGE_RGBA8; f <= ACCEL_IMAGE_BGRA8; f++)
        {
          add_case (keep, tc, tc->name, f, 1920, 1080, PITCH_TIGHT);
          add_case (keep, tc, tc->name, f, 2500, 1700, PITCH_WIDE);
        }
    }
  /* the largest sums of the strips' 16-bit halves (radius 4) */
  add_saturated (keep, &gauss_radius_4, "gaussian-blur/sigma-1.5", 2500, 1700);
  /* those of the exact 2x and 1/2 resizes; halves whose rows end inside
   * a thread's four pixels */
  add_saturated (keep, &twice, "resize/up-2", 130, 70);
  add_saturated (keep, &half, "resize/down-1-2", 518, 70);
  for (int f = ACCEL_IMAGE_RGBA8; f <= ACCEL_IMAGE_BGRA8; f++)
    add_case (keep, &half, "resize/down-1-2", f, 1922, 1078, PITCH_WIDE);
  /* the luma of 8-bit pixels, for every colour: Sobel's and the
   * conversions', on rows on 16 bytes (their integer fast paths) and off */
  for (int f = ACCEL_IMAGE_RGBA8; f <= ACCEL_IMAGE_BGRA8; f++)
    for (int p = PITCH_ODD; p <= PITCH_WIDE; p++)
      {
        static const TestCase sobel = { NULL, TEST_KERNEL_SOBEL, 0.5f };
        static const int targets[]
            = { ACCEL_IMAGE_GRAY8, ACCEL_IMAGE_NV12, ACCEL_IMAGE_I420 };

        add_case (keep, &sobel, "sobel/every-colour", f, 4096, 4096, p)
            ->every_colour
            = TRUE;
        for (guint t = 0; t < G_N_ELEMENTS (targets); t++)
          {
            TestCase tc
                = { "convert", TEST_KERNEL_CONVERT, .dst_format = targets[t] };
            g_autofree gchar *name = g_strdup_printf (
                "convert/every-colour/to-%s", test_format_name (targets[t]));
            add_case (keep, &tc, name, f, 4096, 4096, p)->every_colour = TRUE;
          }
      }
  /* the 4:2:0 decoders for every (Y, U, V), on rows on 4 bytes (their
   * fast path) and off */
  for (int f = ACCEL_IMAGE_NV12; f <= ACCEL_IMAGE_I420; f++)
    for (int p = PITCH_ODD; p <= PITCH_WIDE; p++)
      for (int t = ACCEL_IMAGE_RGBA8; t <= ACCEL_IMAGE_BGRA8; t++)
        {
          TestCase tc = { "convert", TEST_KERNEL_CONVERT, .dst_format = t };
          g_autofree gchar *name = g_strdup_printf (
              "convert/every-yuv/to-%s", test_format_name (t));

          add_case (keep, &tc, name, f, 4096, 4096, p)->every_colour = TRUE;
        }
  /* the same with the other matrices and at limited range, and GRAY8
   * from limited range luma, for every (Y, U, V) */
  for (int m = ACCEL_YUV_BT601; m <= ACCEL_YUV_BT2020; m++)
    for (int limited = 0; limited < 2; limited++)
      for (int f = ACCEL_IMAGE_NV12; f <= ACCEL_IMAGE_I420; f++)
        for (int p = PITCH_ODD; p <= PITCH_WIDE; p++)
          {
            static const int targets[]
                = { ACCEL_IMAGE_RGBA8, ACCEL_IMAGE_GRAY8, ACCEL_IMAGE_RGBAF32 };

            if (m == ACCEL_YUV_BT601 && !limited)
              continue;
            for (guint t = 0; t < G_N_ELEMENTS (targets); t++)
              {
                TestCase tc = { "convert", TEST_KERNEL_CONVERT,
                  .dst_format = targets[t], .yuv_matrix = m,
                  .yuv_limited = limited };
                g_autofree gchar *name = NULL;

                /* full range GRAY8 is the luma plane copied; RGBAF32 has
                 * one kernel whatever the rows */
                if ((targets[t] == ACCEL_IMAGE_GRAY8 && !limited)
                    || (targets[t] == ACCEL_IMAGE_RGBAF32 && p == PITCH_WIDE))
                  continue;
                name = g_strdup_printf ("convert/every-yuv/%s-%s/to-%s",
                    m == ACCEL_YUV_BT601   ? "bt601"
                    : m == ACCEL_YUV_BT709 ? "bt709"
                                           : "bt2020",
                    limited ? "limited" : "full",
                    test_format_name (targets[t]));

                add_case (keep, &tc, name, f, 4096, 4096, p)->every_colour
                    = TRUE;
              }
          }
  for (guint si = 0; si < G_N_ELEMENTS (sizes); si++)
    for (int p = PITCH_TIGHT; p <= PITCH_WIDE; p++)
      {
        int w = sizes[si][0], h = sizes[si][1];

        for (guint ci = 0; ci < G_N_ELEMENTS (kernel_cases); ci++)
          {
            if (kernel_cases[ci].small_only && w * h > SMALL_ONLY)
              continue;
            for (guint fi = 0; fi < G_N_ELEMENTS (test_filter_formats); fi++)
              add_case (keep, &kernel_cases[ci].tc, kernel_cases[ci].tc.name,
                  test_filter_formats[fi], w, h, p);
          }
        /* the decoders' edges at every size, BT.709 at limited range */
        for (int f = ACCEL_IMAGE_NV12; f <= ACCEL_IMAGE_I420; f++)
          {
            TestCase tc = { "convert", TEST_KERNEL_CONVERT,
              .dst_format = ACCEL_IMAGE_RGBA8, .yuv_matrix = ACCEL_YUV_BT709,
              .yuv_limited = TRUE };

            add_case (keep, &tc, "convert/bt709-limited/to-RGBA8", f, w, h, p);
          }
        for (guint a = 0; a < G_N_ELEMENTS (test_all_formats); a++)
          for (guint b = 0; b < G_N_ELEMENTS (test_all_formats); b++)
            {
              TestCase tc = { "convert", TEST_KERNEL_CONVERT,
                .dst_format = test_all_formats[b] };
              g_autofree gchar *name = g_strdup_printf (
                  "convert/to-%s", test_format_name (test_all_formats[b]));
              add_case (keep, &tc, name, test_all_formats[a], w, h, p);
            }
      }
  return g_test_run ();
}
