/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: GstHarness tests of the accel filter elements on the host backend */
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "image/blur.h"
#include "image/image.h"
#include "image/median.h"
#include "image/threshold.h"
#include "image/sobel.h"

#define WIDTH 16
#define HEIGHT 8

static GstBuffer *
make_rgba_frame (GstVideoInfo *info, guint8 (*pixel) (int x, int y, int c))
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstVideoFrame frame;
  int x, y, c;

  /* the frame's own size: a tall frame's rows are short */
  gst_video_frame_map (&frame, info, buf, GST_MAP_WRITE);
  for (y = 0; y < GST_VIDEO_INFO_HEIGHT (info); y++)
    {
      guint8 *row = (guint8 *)GST_VIDEO_FRAME_PLANE_DATA (&frame, 0)
                    + (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
      for (x = 0; x < GST_VIDEO_INFO_WIDTH (info); x++)
        for (c = 0; c < 4; c++)
          row[x * 4 + c] = pixel (x, y, c);
    }
  gst_video_frame_unmap (&frame);
  return buf;
}

static guint8
constant_pixel (int x, int y, int c)
{
  return c == 3 ? 255 : 100 + 20 * c;
}

static guint8
step_pixel (int x, int y, int c)
{
  return c == 3 ? 255 : (x < WIDTH / 2 ? 0 : 200);
}

/* runs @element on one frame and compares its output with @reference */
static void
check_against_reference (const gchar *launch,
    guint8 (*pixel) (int x, int y, int c),
    int (*reference) (
        const void *src, size_t src_pitch, void *dst, size_t dst_pitch))
{
  GstHarness *h = gst_harness_new_parse (launch);
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstVideoFrame in_frame, out_frame;
  g_autofree guint8 *expected = NULL;
  int y;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, WIDTH, HEIGHT);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));

  in = make_rgba_frame (&info, pixel);
  gst_video_frame_map (&in_frame, &info, in, GST_MAP_READ);
  expected = g_malloc0 ((gsize)WIDTH * 4 * HEIGHT);
  g_assert_cmpint (
      reference (GST_VIDEO_FRAME_PLANE_DATA (&in_frame, 0),
          GST_VIDEO_FRAME_PLANE_STRIDE (&in_frame, 0), expected, WIDTH * 4),
      ==, ACCEL_IMAGE_OK);
  gst_video_frame_unmap (&in_frame);

  out = gst_harness_push_and_pull (h, in);
  g_assert_nonnull (out);
  g_assert_true (gst_video_frame_map (&out_frame, &info, out, GST_MAP_READ));
  for (y = 0; y < HEIGHT; y++)
    {
      const guint8 *row
          = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA (&out_frame, 0)
            + (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE (&out_frame, 0);
      g_assert_cmpmem (
          row, WIDTH * 4, expected + (gsize)y * WIDTH * 4, WIDTH * 4);
    }
  gst_video_frame_unmap (&out_frame);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

static int
blur_sigma2 (const void *src, size_t src_pitch, void *dst, size_t dst_pitch)
{
  return accel_gaussian_blur_host (
      ACCEL_IMAGE_RGBA8, src, src_pitch, dst, dst_pitch, WIDTH, HEIGHT, 2.0f);
}

static int
sobel_scale1 (const void *src, size_t src_pitch, void *dst, size_t dst_pitch)
{
  return accel_sobel_host (ACCEL_IMAGE_RGBA8, src, src_pitch, dst, dst_pitch,
      NULL, 0, WIDTH, HEIGHT, 1.0f);
}

static void
test_gaussian_blur_constant (void)
{
  /* the reference of a constant frame is that frame, checked in
   * tests/kernels; here the element must reproduce it */
  check_against_reference (
      "accelgaussianblur sigma=2", constant_pixel, blur_sigma2);
}

static void
test_gaussian_blur_step (void)
{
  check_against_reference (
      "accelgaussianblur sigma=2", step_pixel, blur_sigma2);
}

static int
box_radius2 (const void *src, size_t src_pitch, void *dst, size_t dst_pitch)
{
  return accel_box_blur_host (
      ACCEL_IMAGE_RGBA8, src, src_pitch, dst, dst_pitch, WIDTH, HEIGHT, 2);
}

static void
test_box_blur_step (void)
{
  check_against_reference ("accelboxblur radius=2", step_pixel, box_radius2);
}

/* the kernels need a window of at least 3x3: radius 0 is refused where it
 * is set, so a frame never fails on it */
static void
test_box_blur_radius_zero (void)
{
  GstHarness *h = gst_harness_new ("accelboxblur");
  GParamSpecInt *pspec = G_PARAM_SPEC_INT (
      g_object_class_find_property (G_OBJECT_GET_CLASS (h->element), "radius"));
  GstVideoInfo info;
  GstBuffer *out;
  gint radius = -1;

  g_assert_cmpint (pspec->minimum, ==, 1);
  g_test_expect_message (
      "GLib-GObject", G_LOG_LEVEL_WARNING, "*out of range*radius*");
  g_object_set (h->element, "radius", 0, NULL);
  g_test_assert_expected_messages ();
  g_object_get (h->element, "radius", &radius, NULL);
  g_assert_cmpint (radius, ==, 1);

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, WIDTH, HEIGHT);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  out = gst_harness_push_and_pull (h, make_rgba_frame (&info, step_pixel));
  g_assert_nonnull (out);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

static void
test_sobel_step (void)
{
  check_against_reference ("accelsobel", step_pixel, sobel_scale1);
}

static guint8
noise_pixel (int x, int y, int c)
{
  return c == 3 ? 255 : (guint8)((x * 73 + y * 151 + c * 29) % 256);
}

static int
median_5x5 (const void *src, size_t src_pitch, void *dst, size_t dst_pitch)
{
  return accel_median_host (
      ACCEL_IMAGE_RGBA8, src, src_pitch, dst, dst_pitch, WIDTH, HEIGHT, 5);
}

static int
unsharp_2_1 (const void *src, size_t src_pitch, void *dst, size_t dst_pitch)
{
  return accel_unsharp_mask_host (ACCEL_IMAGE_RGBA8, src, src_pitch, dst,
      dst_pitch, WIDTH, HEIGHT, 2.0f, 1.0f);
}

static int
threshold_100 (const void *src, size_t src_pitch, void *dst, size_t dst_pitch)
{
  return accel_threshold_host (
      ACCEL_IMAGE_RGBA8, src, src_pitch, dst, dst_pitch, WIDTH, HEIGHT, 100.0f);
}

static void
test_median (void)
{
  check_against_reference ("accelmedian size=5x5", noise_pixel, median_5x5);
}

static void
test_unsharp (void)
{
  check_against_reference (
      "accelunsharp amount=2 sigma=1", noise_pixel, unsharp_2_1);
}

static void
test_threshold (void)
{
  check_against_reference (
      "accelthreshold value=100", noise_pixel, threshold_100);
}

/* without a GPU, upload and download hand system memory on untouched,
 * every format they list (NV12 too) */
static void
test_transfer_passthrough (gconstpointer data)
{
  const char *name = data;
  GstHarness *h = gst_harness_new (name);
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstCaps *caps;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, WIDTH, HEIGHT);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  in = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (in, 0, 0x5a, info.size);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  g_assert_true (out == in);
  caps = gst_pad_get_current_caps (h->sinkpad);
  g_assert_false (gst_caps_features_contains (
      gst_caps_get_features (caps, 0), "memory:CUDAMemory"));
  gst_caps_unref (caps);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

static void
test_sync_meta_property (void)
{
  g_autoptr (GstElement) e = gst_element_factory_make ("accelsobel", NULL);
  gboolean on = FALSE;

  g_object_get (e, "sync-meta", &on, NULL);
  g_assert_true (on);
  g_object_set (e, "sync-meta", FALSE, NULL);
  g_object_get (e, "sync-meta", &on, NULL);
  g_assert_false (on);
}

static void
test_gaussian_blur_properties (void)
{
  g_autoptr (GstElement) e
      = gst_element_factory_make ("accelgaussianblur", NULL);
  gfloat sigma = 0;

  g_assert_nonnull (e);
  g_object_get (e, "sigma", &sigma, NULL);
  g_assert_cmpfloat (sigma, ==, 1.0f);
  g_object_set (e, "sigma", 3.5f, NULL);
  g_object_get (e, "sigma", &sigma, NULL);
  g_assert_cmpfloat (sigma, ==, 3.5f);
}

static void
test_caps_refuse_nv12 (void)
{
  GstHarness *h = gst_harness_new ("accelsobel");
  GstVideoInfo info;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, WIDTH, HEIGHT);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  g_assert_cmpint (
      gst_harness_push (h, gst_buffer_new_allocate (NULL, info.size, NULL)), ==,
      GST_FLOW_NOT_NEGOTIATED);
  gst_harness_teardown (h);
}

/* a filter that reads a pixel's neighbours refuses interlaced frames,
 * whose rows above and below are the other field's: they were filtered
 * as one frame and the fields mixed (a black and a white field blurred to
 * grey). An interleaved stream is refused at its caps, a mixed stream's
 * interlaced frame as it comes; a filter of single pixels takes both */
static void
test_filter_interlaced (gconstpointer data)
{
  const char *element = data;
  gboolean neighbours = !g_str_equal (element, "accelthreshold");
  GstVideoInfo info;
  GstHarness *h;
  GstBuffer *frame;

  for (guint mixed = 0; mixed < 2; mixed++)
    {
      h = gst_harness_new (element);
      gst_video_info_set_interlaced_format (&info, GST_VIDEO_FORMAT_RGBA,
          mixed ? GST_VIDEO_INTERLACE_MODE_MIXED
                : GST_VIDEO_INTERLACE_MODE_INTERLEAVED,
          WIDTH, HEIGHT);
      gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
      frame = gst_buffer_new_allocate (NULL, info.size, NULL);
      gst_buffer_memset (frame, 0, 0, info.size);
      GST_BUFFER_FLAG_SET (frame, GST_VIDEO_BUFFER_FLAG_INTERLACED);
      if (neighbours)
        g_assert_cmpint (gst_harness_push (h, frame), ==,
            mixed ? GST_FLOW_ERROR : GST_FLOW_NOT_NEGOTIATED);
      else
        g_assert_cmpint (gst_harness_push (h, frame), ==, GST_FLOW_OK);
      gst_harness_teardown (h);
    }
}

/* the next event @h's sink received that is not a sticky one of the
 * stream's start (stream-start, caps, segment), or NULL */
static GstEvent *
next_stream_event (GstHarness *h)
{
  GstEvent *event;

  while ((event = gst_harness_try_pull_event (h)) && GST_EVENT_IS_STICKY (event)
         && GST_EVENT_TYPE (event) != GST_EVENT_EOS)
    gst_event_unref (event);
  return event;
}

/* an empty buffer flagged GAP is a gap, not a frame: it goes on as a gap
 * event of its time, and the frames around it as they are (it went on as
 * a frame of whatever its output buffer held, an earlier frame) */
static void
test_filter_gap (gconstpointer data)
{
  GstHarness *h = gst_harness_new_parse (data);
  GstVideoInfo info;
  GstBuffer *gap = gst_buffer_new ();
  GstClockTime pts, duration;
  GstEvent *event;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, WIDTH, HEIGHT);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  gst_buffer_unref (
      gst_harness_push_and_pull (h, make_rgba_frame (&info, step_pixel)));
  GST_BUFFER_FLAG_SET (gap, GST_BUFFER_FLAG_GAP);
  GST_BUFFER_PTS (gap) = GST_SECOND / 30;
  GST_BUFFER_DURATION (gap) = GST_SECOND / 30;
  g_assert_cmpint (gst_harness_push (h, gap), ==, GST_FLOW_OK);
  g_assert_cmpuint (gst_harness_buffers_in_queue (h), ==, 0);
  event = next_stream_event (h);
  g_assert_nonnull (event);
  g_assert_cmpint (GST_EVENT_TYPE (event), ==, GST_EVENT_GAP);
  gst_event_parse_gap (event, &pts, &duration);
  g_assert_cmpuint (pts, ==, GST_SECOND / 30);
  g_assert_cmpuint (duration, ==, GST_SECOND / 30);
  gst_event_unref (event);
  gst_buffer_unref (
      gst_harness_push_and_pull (h, make_rgba_frame (&info, step_pixel)));
  gst_harness_teardown (h);
}

/* a buffer too small for its caps is an error that says so, as on a GPU
 * (GstVideoFilter warned "code not implemented" and pushed the output
 * buffer with whatever it held) */
static void
test_filter_short_frame (gconstpointer data)
{
  GstHarness *h = gst_harness_new_parse (data);
  GstVideoInfo info;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, WIDTH, HEIGHT);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  gst_buffer_unref (
      gst_harness_push_and_pull (h, make_rgba_frame (&info, step_pixel)));
  g_assert_cmpint (
      gst_harness_push (h, gst_buffer_new_allocate (NULL, info.size / 2, NULL)),
      ==, GST_FLOW_ERROR);
  g_assert_cmpuint (gst_harness_buffers_in_queue (h), ==, 0);
  gst_harness_teardown (h);
}

/* bytes taken from malloc and not given back, mapped blocks included */
static gsize
heap_in_use (void)
{
#ifdef __GLIBC__
  struct mallinfo2 mi = mallinfo2 ();

  return mi.uordblks + mi.hblkhd;
#else
  return 0;
#endif
}

/* accelconvert, an accel filter, over NV12 frames of odd height, which
 * GStreamer lays out with an even number of luma rows and the kernels
 * without: the base class stages every input frame in host memory, at two
 * sizes one after the other (a caps change) */
static void
convert_staged_frames (void)
{
  static const int sizes[][2] = { { 333, 187 }, { 1281, 721 } };
  GstHarness *h = gst_harness_new ("accelconvert");

  gst_harness_set_sink_caps_str (h, "video/x-raw,format=RGBA");
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      GstVideoInfo info;
      GstBuffer *in, *out;

      gst_video_info_set_format (
          &info, GST_VIDEO_FORMAT_NV12, sizes[i][0], sizes[i][1]);
      gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
      in = gst_buffer_new_allocate (NULL, info.size, NULL);
      gst_buffer_memset (in, 0, 0x80, info.size);
      out = gst_harness_push_and_pull (h, in);
      g_assert_nonnull (out);
      g_assert_cmpuint (
          gst_buffer_get_size (out), ==, (gsize)sizes[i][0] * 4 * sizes[i][1]);
      gst_buffer_unref (out);
    }
  gst_harness_teardown (h);
}

/* the staging blocks go with the caps they were sized for and with the
 * element: a leak of the last one (1.4 MB) per element shows here, and
 * any leak under the valgrind test setup */
static void
test_staging_freed (void)
{
  gsize before;

  /* GStreamer's allocations made once per process */
  convert_staged_frames ();
  before = heap_in_use ();
  for (int i = 0; i < 4; i++)
    convert_staged_frames ();
  g_assert_cmpuint (heap_in_use (), <, before + 1024 * 1024);
}

/* the frame @h makes of @in, mapped into @out (WIDTH * HEIGHT * 4 bytes) */
static void
push_and_copy (GstHarness *h, GstVideoInfo *info, GstBuffer *in, guint8 *out)
{
  GstBuffer *got = gst_harness_push_and_pull (h, in);
  GstVideoFrame frame;

  g_assert_nonnull (got);
  g_assert_true (gst_video_frame_map (&frame, info, got, GST_MAP_READ));
  for (int y = 0; y < HEIGHT; y++)
    memcpy (out + (gsize)y * WIDTH * 4,
        (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA (&frame, 0)
            + (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0),
        WIDTH * 4);
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (got);
}

/* @buf's pixels, tightly packed, and @buf unreffed */
static guint8 *
take_pixels (GstVideoInfo *info, GstBuffer *buf)
{
  gsize row = (gsize)GST_VIDEO_INFO_WIDTH (info) * 4;
  guint8 *out = g_malloc (row * GST_VIDEO_INFO_HEIGHT (info));
  GstVideoFrame frame;

  g_assert_nonnull (buf);
  g_assert_true (gst_video_frame_map (&frame, info, buf, GST_MAP_READ));
  for (int y = 0; y < GST_VIDEO_INFO_HEIGHT (info); y++)
    memcpy (out + y * row,
        (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA (&frame, 0)
            + (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0),
        row);
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (buf);
  return out;
}

/* a caps change to frames of the same area starts the temporal effects
 * afresh: 16x8 then 8x16 take the same history bytes, not the same pixels
 * (the difference was taken against the old frame read at the new shape) */
static void
test_effects_history_new_shape (void)
{
  GstHarness *h = gst_harness_new_parse ("acceleffects effects=difference");
  GstHarness *fresh = gst_harness_new_parse ("acceleffects effects=difference");
  GstVideoInfo wide, tall;
  g_autofree guint8 *got = NULL, *want = NULL;

  gst_video_info_set_format (&wide, GST_VIDEO_FORMAT_RGBA, WIDTH, HEIGHT);
  gst_video_info_set_format (&tall, GST_VIDEO_FORMAT_RGBA, HEIGHT, WIDTH);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&wide));
  gst_buffer_unref (
      gst_harness_push_and_pull (h, make_rgba_frame (&wide, step_pixel)));
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&tall));
  got = take_pixels (&tall,
      gst_harness_push_and_pull (h, make_rgba_frame (&tall, step_pixel)));
  gst_harness_set_src_caps (fresh, gst_video_info_to_caps (&tall));
  want = take_pixels (&tall,
      gst_harness_push_and_pull (fresh, make_rgba_frame (&tall, step_pixel)));
  g_assert_cmpmem (
      got, (gsize)WIDTH * HEIGHT * 4, want, (gsize)WIDTH * HEIGHT * 4);
  gst_harness_teardown (fresh);
  gst_harness_teardown (h);
}

/* the temporal effects set while playing start their history afresh: the
 * difference after an echo is the difference of a fresh element, not the
 * difference from the echo's trail (the same bytes, so it was kept) */
static void
test_effects_history_restarts (void)
{
  GstHarness *h = gst_harness_new_parse ("acceleffects effects=echo=1");
  GstHarness *fresh = gst_harness_new_parse ("acceleffects effects=difference");
  GstElement *effects = gst_harness_find_element (h, "acceleffects");
  g_autofree guint8 *got = g_malloc ((gsize)WIDTH * HEIGHT * 4);
  g_autofree guint8 *want = g_malloc ((gsize)WIDTH * HEIGHT * 4);
  GstVideoInfo info;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, WIDTH, HEIGHT);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  gst_harness_set_src_caps (fresh, gst_video_info_to_caps (&info));
  push_and_copy (h, &info, make_rgba_frame (&info, step_pixel), got);
  push_and_copy (h, &info, make_rgba_frame (&info, constant_pixel), got);
  g_object_set (effects, "effects", "difference", NULL);
  push_and_copy (h, &info, make_rgba_frame (&info, constant_pixel), got);
  push_and_copy (fresh, &info, make_rgba_frame (&info, constant_pixel), want);
  g_assert_cmpmem (
      got, (gsize)WIDTH * HEIGHT * 4, want, (gsize)WIDTH * HEIGHT * 4);
  gst_object_unref (effects);
  gst_harness_teardown (fresh);
  gst_harness_teardown (h);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  gst_init (&argc, &argv);

  g_test_add_func (
      "/elements/gaussianblur/properties", test_gaussian_blur_properties);
  g_test_add_func (
      "/elements/gaussianblur/constant-frame", test_gaussian_blur_constant);
  g_test_add_func ("/elements/gaussianblur/step-matches-host-reference",
      test_gaussian_blur_step);
  g_test_add_func (
      "/elements/sobel/step-matches-host-reference", test_sobel_step);
  g_test_add_func ("/elements/sobel/refuses-nv12", test_caps_refuse_nv12);
  g_test_add_func (
      "/elements/boxblur/step-matches-host-reference", test_box_blur_step);
  g_test_add_func (
      "/elements/boxblur/radius-zero-refused", test_box_blur_radius_zero);

  g_test_add_func ("/elements/median/5x5-matches-host-reference", test_median);
  g_test_add_func ("/elements/unsharp/matches-host-reference", test_unsharp);
  g_test_add_func (
      "/elements/threshold/matches-host-reference", test_threshold);
  g_test_add_data_func ("/elements/upload/passes-system-memory-through",
      "accelupload", test_transfer_passthrough);
  g_test_add_data_func ("/elements/download/passes-system-memory-through",
      "acceldownload", test_transfer_passthrough);
  g_test_add_func (
      "/elements/effects/history-restarts", test_effects_history_restarts);
  g_test_add_func (
      "/elements/effects/history-new-shape", test_effects_history_new_shape);
  g_test_add_func (
      "/elements/filter/sync-meta-property", test_sync_meta_property);
  g_test_add_data_func (
      "/elements/filter/gap", "accelgaussianblur sigma=2", test_filter_gap);
  g_test_add_data_func ("/elements/filter/gap/equalize",
      "accelanalysis equalize=luma", test_filter_gap);
  g_test_add_data_func (
      "/elements/filter/short-frame", "accelsobel", test_filter_short_frame);
  g_test_add_data_func ("/elements/filter/short-frame/effects",
      "acceleffects effects=invert", test_filter_short_frame);
  /* passed through on the host, copied on a GPU: checked either way */
  g_test_add_data_func ("/elements/upload/short-frame",
      "accelupload ! acceldownload", test_filter_short_frame);
  g_test_add_data_func ("/elements/download/short-frame", "acceldownload",
      test_filter_short_frame);
  g_test_add_data_func ("/elements/convert/short-frame-passed-through",
      "accelconvert", test_filter_short_frame);
  g_test_add_func (
      "/elements/filter/staging-freed-across-caps", test_staging_freed);
  for (guint i = 0; i < 6; i++)
    {
      static const char *const elements[]
          = { "accelgaussianblur", "accelboxblur", "accelmedian", "accelsobel",
              "accelunsharp", "accelthreshold" };
      g_autofree gchar *path = g_strdup_printf (
          "/elements/filter/interlaced/%s", elements[i] + strlen ("accel"));

      g_test_add_data_func (path, elements[i], test_filter_interlaced);
    }

  return g_test_run ();
}
