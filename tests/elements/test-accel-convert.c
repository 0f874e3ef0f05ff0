/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: accelconvert in real pipelines: random frames in each format and
 * size through appsrc, converted and scaled, against the host kernels
 * applied as the element documents it (one conversion at the same size; a
 * resize in a packed format with conversions around it), exact; caps
 * negotiation (passthrough, a side fixed by downstream keeps the aspect
 * ratio) and pointer positions scaled on their way upstream. On a GPU host
 * (suite gpu) the element runs on CUDA memory between accelupload and
 * acceldownload; without one (ACCEL_BACKEND=host) on system memory. */
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include <string.h>

#include "elements-test.h"

#include "gstaccelimage.h"
#include "image/convert.h"
#include "image/resize.h"

static gboolean gpu;

typedef struct
{
  GstVideoFormat in_format;
  int in_w, in_h;
  GstVideoFormat out_format;
  int out_w, out_h;
} Case;

/* a frame of random bytes (valid for every format here) */
static GstBuffer *
random_frame (GstVideoInfo *info)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstMapInfo map;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (gsize i = 0; i < map.size; i++)
    map.data[i] = g_random_int_range (0, 256);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = 0;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

/* @buf's frame in the kernels' layout, in @staging */
static GstAccelImage
to_image (GstVideoInfo *info, GstBuffer *buf, GstAccelStaging *staging)
{
  GstVideoFrame frame;
  GstAccelImage image;

  g_assert_true (gst_video_frame_map (&frame, info, buf, GST_MAP_READ));
  g_assert_cmpint (
      gst_accel_image_stage (&image, staging, FALSE, &frame, TRUE, NULL), ==,
      0);
  gst_video_frame_unmap (&frame);
  return image;
}

static gboolean
resizable (int format)
{
  return format == ACCEL_IMAGE_RGBA8 || format == ACCEL_IMAGE_BGRA8
         || format == ACCEL_IMAGE_GRAY8;
}

/* what accelconvert documents, with the host kernels: a 4:2:0 input
 * decoded as @info's colorimetry says (gst_video_info_set_format ()'s
 * default for these sizes: BT.601 at limited range) */
static void
reference (
    const GstVideoInfo *info, const GstAccelImage *in, GstAccelImage *out)
{
  GstAccelStaging s1 = { 0 }, s2 = { 0 };
  GstAccelImage a = *in, b;
  int mid;
  int matrix = info->colorimetry.matrix == GST_VIDEO_COLOR_MATRIX_BT709
                   ? ACCEL_YUV_BT709
               : info->colorimetry.matrix == GST_VIDEO_COLOR_MATRIX_BT2020
                   ? ACCEL_YUV_BT2020
                   : ACCEL_YUV_BT601;
  int full = info->colorimetry.range != GST_VIDEO_COLOR_RANGE_16_235;

  if (in->width == out->width && in->height == out->height)
    {
      g_assert_cmpint (
          accel_convert_yuv_host (matrix, full, in->format, in->data, in->pitch,
              out->format, out->data, out->pitch, in->width, in->height),
          ==, 0);
      return;
    }
  mid = resizable (in->format)             ? in->format
        : out->format == ACCEL_IMAGE_GRAY8 ? ACCEL_IMAGE_GRAY8
                                           : ACCEL_IMAGE_RGBA8;
  if (in->format != mid)
    {
      g_assert_cmpint (
          gst_accel_image_alloc (&a, &s1, FALSE, mid, in->width, in->height),
          ==, 0);
      g_assert_cmpint (
          accel_convert_yuv_host (matrix, full, in->format, in->data, in->pitch,
              mid, a.data, a.pitch, in->width, in->height),
          ==, 0);
    }
  b = *out;
  if (out->format != mid)
    g_assert_cmpint (
        gst_accel_image_alloc (&b, &s2, FALSE, mid, out->width, out->height),
        ==, 0);
  g_assert_cmpint (accel_resize_host (mid, a.data, a.pitch, a.width, a.height,
                       b.data, b.pitch, b.width, b.height),
      ==, 0);
  if (out->format != mid)
    g_assert_cmpint (accel_convert_host (mid, b.data, b.pitch, out->format,
                         out->data, out->pitch, out->width, out->height),
        ==, 0);
  gst_accel_staging_clear (&s1);
  gst_accel_staging_clear (&s2);
}

/* on a GPU, CUDA memory between accelupload and acceldownload when @cuda
 * (GStreamer's CUDA memory has no GRAY8); system memory otherwise, which
 * the element stages to the GPU itself */
static GstElement *
launch (const char *convert, gboolean cuda, GstVideoFormat out_format,
    int out_w, int out_h, GstElement **src, GstElement **sink)
{
  g_autofree char *description = g_strdup_printf (
      "appsrc name=src format=time ! %s%s ! "
      "video/x-raw%s,format=%s,width=%d,height=%d ! %s"
      "appsink name=sink sync=false",
      cuda ? "accelupload ! " : "", convert, cuda ? "(memory:CUDAMemory)" : "",
      gst_video_format_to_string (out_format), out_w, out_h,
      cuda ? "acceldownload ! " : "");
  g_autoptr (GError) error = NULL;
  GstElement *pipeline = gst_parse_launch (description, &error);

  g_assert_no_error (error);
  *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  return pipeline;
}

static void
test_case (gconstpointer data)
{
  const Case *c = data;
  GstVideoInfo in_info, out_info;
  GstElement *src, *sink, *pipeline;
  GstAccelStaging in_staging = { 0 }, want_staging = { 0 }, got_staging = { 0 };
  GstAccelImage in_image, want, got;
  GstBuffer *buf;
  GstSample *sample;
  GstCaps *caps;

  gst_video_info_set_format (&in_info, c->in_format, c->in_w, c->in_h);
  gst_video_info_set_format (&out_info, c->out_format, c->out_w, c->out_h);
  buf = random_frame (&in_info);
  in_image = to_image (&in_info, buf, &in_staging);
  g_assert_cmpint (gst_accel_image_alloc (&want, &want_staging, FALSE,
                       gst_accel_image_format_from_video (c->out_format),
                       c->out_w, c->out_h),
      ==, 0);
  reference (&in_info, &in_image, &want);

  pipeline = launch ("accelconvert",
      gpu && c->in_format != GST_VIDEO_FORMAT_GRAY8
          && c->out_format != GST_VIDEO_FORMAT_GRAY8,
      c->out_format, c->out_w, c->out_h, &src, &sink);
  caps = gst_video_info_to_caps (&in_info);
  gst_caps_set_simple (caps, "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
  gst_app_src_set_caps (GST_APP_SRC (src), caps);
  gst_caps_unref (caps);
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  g_assert_cmpint (
      gst_app_src_push_buffer (GST_APP_SRC (src), buf), ==, GST_FLOW_OK);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  sample = gst_app_sink_pull_sample (GST_APP_SINK (sink));
  g_assert_nonnull (sample);
  got = to_image (&out_info, gst_sample_get_buffer (sample), &got_staging);
  g_assert_cmpint (got.pitch, ==, want.pitch);
  for (int y = 0; y < c->out_h; y++)
    g_assert_cmpmem ((guint8 *)got.data + y * got.pitch, want.pitch,
        (guint8 *)want.data + y * want.pitch, want.pitch);
  /* the chroma planes follow the luma rows */
  g_assert_cmpmem ((guint8 *)got.data + c->out_h * got.pitch,
      want_staging.size - c->out_h * want.pitch,
      (guint8 *)want.data + c->out_h * want.pitch,
      want_staging.size - c->out_h * want.pitch);

  gst_sample_unref (sample);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  gst_accel_staging_clear (&in_staging);
  gst_accel_staging_clear (&want_staging);
  gst_accel_staging_clear (&got_staging);
}

/* downstream sets the width only: the height follows the aspect ratio;
 * the same caps on both sides: the buffer passes through */
/* plays @pipeline until its end of stream, which must come within 10 s
 * and before any error */
static void
run_to_eos (GstElement *pipeline)
{
  GstMessage *msg;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline), 10 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  g_assert_nonnull (msg);
  g_assert_cmpint (GST_MESSAGE_TYPE (msg), ==, GST_MESSAGE_EOS);
  gst_message_unref (msg);
}

/* runs @pipeline to its end of stream; returns the caps element @name's
 * source pad had (transfer full) */
static GstCaps *
src_caps_after_run (GstElement *pipeline, const char *name)
{
  GstElement *element;
  GstPad *pad;
  GstCaps *caps;

  run_to_eos (pipeline);
  element = gst_bin_get_by_name (GST_BIN (pipeline), name);
  pad = gst_element_get_static_pad (element, "src");
  caps = gst_pad_get_current_caps (pad);
  g_assert_nonnull (caps);
  gst_object_unref (pad);
  gst_object_unref (element);
  return caps;
}

static void
test_negotiation (void)
{
  g_autoptr (GError) error = NULL;
  GstElement *pipeline = gst_parse_launch (
      "videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=333,"
      "height=187 ! accelconvert name=a ! video/x-raw,width=166 ! "
      "accelconvert name=b ! fakesink",
      &error);
  GstElement *b;
  GstCaps *caps;
  GstStructure *s;
  gint h = 0;

  g_assert_no_error (error);
  caps = src_caps_after_run (pipeline, "a");
  b = gst_bin_get_by_name (GST_BIN (pipeline), "b");
  s = gst_caps_get_structure (caps, 0);
  g_assert_true (gst_structure_get_int (s, "height", &h));
  g_assert_cmpint (h, ==, 93);
  g_assert_cmpstr (gst_structure_get_string (s, "format"), ==, "RGBA");
  g_assert_true (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM (b)));
  gst_caps_unref (caps);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (b);
  gst_object_unref (pipeline);
}

/* RGB caps with a colorimetry of their own, as videoconvert offers first
 * what follows it: the element takes them (its RGB is not checked for a
 * colorimetry) and converts the channels itself, where it passed over them
 * for videoconvert's next caps and left the swap to the CPU */
static void
test_rgb_colorimetry_taken (void)
{
  g_autoptr (GError) error = NULL;
  GstElement *pipeline = gst_parse_launch (
      "videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=64,"
      "height=48 ! accelconvert name=a ! videoconvert ! "
      "video/x-raw,format=BGRA,colorimetry=sRGB ! fakesink",
      &error);
  GstCaps *caps;

  g_assert_no_error (error);
  caps = src_caps_after_run (pipeline, "a");
  g_assert_cmpstr (
      gst_structure_get_string (gst_caps_get_structure (caps, 0), "format"), ==,
      "BGRA");
  gst_caps_unref (caps);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

/* a 720x576 frame of 16/15 pixels (4:3 shown) into @downstream: the
 * output's size and pixel aspect ratio, where the display aspect ratio is
 * kept as videoconvertscale keeps it (the same answers) */
typedef struct
{
  const char *downstream;
  gint w, h, par_n, par_d;
} ParCase;

static const ParCase par_cases[] = {
  { "pixel-aspect-ratio=1/1", 768, 576, 1, 1 },
  { "width=640", 640, 512, 16, 15 },
  { "height=300", 375, 300, 16, 15 },
  { "width=640,height=480", 640, 480, 1, 1 },
  { "pixel-aspect-ratio=1/1,width=400", 400, 300, 1, 1 },
  { "format=RGBA", 720, 576, 16, 15 },
  /* a width range that the input's height would overrun: the height
   * follows the width allowed (it stayed 576: a squashed picture) */
  { "width=[1,640],pixel-aspect-ratio=1/1", 640, 480, 1, 1 },
  { "width=[1,600],height=[1,4096],pixel-aspect-ratio=1/1", 600, 450, 1, 1 },
};

static void
test_pixel_aspect_ratio (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (par_cases); i++)
    {
      const ParCase *c = &par_cases[i];
      g_autofree char *description = g_strdup_printf (
          "videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=720,"
          "height=576,pixel-aspect-ratio=16/15 ! accelconvert name=a ! "
          "video/x-raw,%s ! fakesink",
          c->downstream);
      g_autoptr (GError) error = NULL;
      GstElement *pipeline = gst_parse_launch (description, &error);
      GstElement *a;
      GstPad *pad;
      GstCaps *caps;
      GstStructure *s;
      gint w = 0, h = 0, par_n = 0, par_d = 0;
      GstMessage *msg;

      g_assert_no_error (error);
      gst_element_set_state (pipeline, GST_STATE_PLAYING);
      msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
          10 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
      g_assert_nonnull (msg);
      g_assert_cmpint (GST_MESSAGE_TYPE (msg), ==, GST_MESSAGE_EOS);
      gst_message_unref (msg);
      a = gst_bin_get_by_name (GST_BIN (pipeline), "a");
      pad = gst_element_get_static_pad (a, "src");
      caps = gst_pad_get_current_caps (pad);
      s = gst_caps_get_structure (caps, 0);
      g_assert_true (gst_structure_get_int (s, "width", &w));
      g_assert_true (gst_structure_get_int (s, "height", &h));
      g_assert_true (
          gst_structure_get_fraction (s, "pixel-aspect-ratio", &par_n, &par_d));
      if (w != c->w || h != c->h || par_n != c->par_n || par_d != c->par_d)
        g_error ("into %s: %dx%d of %d/%d pixels, not %dx%d of %d/%d",
            c->downstream, w, h, par_n, par_d, c->w, c->h, c->par_n, c->par_d);
      gst_caps_unref (caps);
      gst_object_unref (pad);
      gst_element_set_state (pipeline, GST_STATE_NULL);
      gst_object_unref (a);
      gst_object_unref (pipeline);
    }
}

/* the first pixel @description's appsink "sink" gets, or NULL with the
 * error the pipeline posted in @error */
static gboolean
first_pixel (const char *description, guint8 px[4], gchar **error)
{
  g_autoptr (GError) parse_error = NULL;
  GstElement *pipeline = gst_parse_launch (description, &parse_error);
  GstElement *sink;
  GstSample *sample;
  gboolean ok = FALSE;

  g_assert_no_error (parse_error);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 10 * GST_SECOND);
  if (sample)
    {
      GstMapInfo map;

      g_assert_true (
          gst_buffer_map (gst_sample_get_buffer (sample), &map, GST_MAP_READ));
      memcpy (px, map.data, 4);
      gst_buffer_unmap (gst_sample_get_buffer (sample), &map);
      gst_sample_unref (sample);
      ok = TRUE;
    }
  else
    {
      GstMessage *msg = gst_bus_timed_pop_filtered (
          GST_ELEMENT_BUS (pipeline), 10 * GST_SECOND, GST_MESSAGE_ERROR);
      GError *e = NULL;

      g_assert_nonnull (msg);
      gst_message_parse_error (msg, &e, error);
      g_clear_error (&e);
      gst_message_unref (msg);
    }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return ok;
}

/* whether @description fails to link: refused as caps */
static gboolean
refused_at_link (const char *description)
{
  g_autoptr (GError) error = NULL;
  GstElement *pipeline = gst_parse_launch (description, &error);

  g_clear_object (&pipeline);
  g_test_message ("%s: %s", description, error ? error->message : "linked");
  return g_error_matches (error, GST_PARSE_ERROR, GST_PARSE_ERROR_LINK);
}

/* interlaced frames are not scaled here: two fields scaled as one frame
 * were blended and still called interlaced; nor decoded from 4:2:0 or
 * encoded into it, which mixed the fields' colours. An interlaced stream's
 * is refused in the caps (refused as its caps were set, it posted an error
 * at each try and gst-launch-1.0 waited for good in one run of four), a
 * mixed stream's frame by frame (the interlace element flags its third);
 * the rest convert */
static void
test_interlaced (void)
{
#define INTERLEAVED                                                            \
  "videotestsrc num-buffers=1 ! video/x-raw,format=I420,width=64,height=48,"   \
  "interlace-mode=interleaved ! accelconvert ! "
  g_autofree gchar *error = NULL;
  g_autoptr (GError) parse_error = NULL;
  GstElement *pipeline, *sink;
  GstSample *sample;
  GstMessage *msg;
  GError *e = NULL;
  gchar *debug = NULL;
  guint8 px[4];

  g_assert_true (refused_at_link (
      INTERLEAVED "video/x-raw,format=I420,height=24 ! appsink name=sink"));
  /* decoded as one frame, 4:2:0's chroma rows mixed the fields */
  g_assert_true (refused_at_link (
      INTERLEAVED "video/x-raw,format=RGBA ! appsink name=sink"));
  g_assert_true (refused_at_link (
      "videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=64,"
      "height=48,interlace-mode=interleaved ! accelconvert ! "
      "video/x-raw,format=NV12 ! appsink name=sink"));
  /* a copy between 4:2:0 layouts keeps its rows; packed formats convert */
  g_assert_true (first_pixel (
      INTERLEAVED "video/x-raw,format=NV12 ! appsink name=sink", px, NULL));
  /* luma alone has no colour to mix */
  g_assert_true (first_pixel (
      INTERLEAVED "video/x-raw,format=GRAY8 ! appsink name=sink", px, NULL));
  g_assert_true (first_pixel (
      "videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=64,"
      "height=48,interlace-mode=interleaved ! accelconvert ! "
      "video/x-raw,format=GRAY8 ! appsink name=sink",
      px, NULL));
#undef INTERLEAVED

  if (!elements_test_have ("interlace"))
    return;
  pipeline = gst_parse_launch (
      "videotestsrc num-buffers=4 ! video/x-raw,format=I420,width=64,"
      "height=48 ! interlace ! accelconvert ! video/x-raw,format=RGBA,"
      "height=24 ! appsink name=sink",
      &parse_error);
  g_assert_no_error (parse_error);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while ((sample
          = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 5 * GST_SECOND)))
    gst_sample_unref (sample);
  msg = gst_bus_timed_pop_filtered (
      GST_ELEMENT_BUS (pipeline), 5 * GST_SECOND, GST_MESSAGE_ERROR);
  g_assert_nonnull (msg);
  gst_message_parse_error (msg, &e, &debug);
  g_assert_nonnull (
      strstr (debug, "this frame of a mixed stream is interlaced"));
  g_clear_error (&e);
  g_free (debug);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

#define GREEN                                                                  \
  "videotestsrc pattern=solid-color foreground-color=0xff00ff00 "              \
  "num-buffers=1 ! video/x-raw,format=RGBA,width=1280,height=720"

static void
assert_green (const char *description)
{
  g_autofree gchar *error = NULL;
  guint8 px[4];

  if (!first_pixel (description, px, &error))
    g_error ("%s: %s", description, error);
  /* videoconvert alone takes this green through BT.709 to (0, 250, 0) */
  if (px[0] > 4 || px[1] < 246 || px[2] > 4)
    g_error ("%s: (%u, %u, %u), not green", description, px[0], px[1], px[2]);
}

static void
assert_refused (const char *description, const char *says)
{
  g_autofree gchar *error = NULL;
  guint8 px[4];

  g_assert_false (first_pixel (description, px, &error));
  if (!strstr (error, says))
    g_error ("%s: said \"%s\", not \"%s\"", description, error, says);
}

/* YUV between accelconvert and GStreamer's videoconvert keeps its colours:
 * what accelconvert writes is labelled BT.601 at full range, and it decodes
 * what it is given by the input's own matrix and range (HD frames are
 * BT.709 at limited range by default); YUV of a matrix it has no
 * coefficients for is only copied (refused as caps into anything else),
 * and an output colorimetry it does not write is refused by name */
static void
test_colorimetry (void)
{
  assert_green (GREEN " ! accelconvert ! video/x-raw,format=I420 ! "
                      "videoconvert ! video/x-raw,format=RGBA ! "
                      "appsink name=sink");
  assert_green (GREEN " ! videoconvert ! video/x-raw,format=I420 ! "
                      "accelconvert ! video/x-raw,format=RGBA ! "
                      "appsink name=sink");
  assert_green (GREEN " ! videoconvert ! video/x-raw,format=NV12,"
                      "colorimetry=bt2020 ! accelconvert ! "
                      "video/x-raw,format=RGBA ! appsink name=sink");
  assert_green (GREEN " ! videoconvert ! video/x-raw,format=I420,"
                      "colorimetry=bt601 ! accelconvert ! "
                      "video/x-raw,format=BGRA ! videoconvert ! "
                      "video/x-raw,format=RGBA ! appsink name=sink");
  /* 4:2:0 copied keeps its label; resized, it is encoded anew */
  assert_green (GREEN " ! videoconvert ! video/x-raw,format=I420,"
                      "colorimetry=bt709 ! accelconvert ! "
                      "video/x-raw,format=NV12 ! videoconvert ! "
                      "video/x-raw,format=RGBA ! appsink name=sink");
  assert_green (GREEN " ! videoconvert ! video/x-raw,format=I420,"
                      "colorimetry=bt709 ! accelconvert ! "
                      "video/x-raw,format=NV12,width=640 ! videoconvert ! "
                      "video/x-raw,format=RGBA ! appsink name=sink");
  /* as caps, at once: refused in set_caps (), each try posted the error
   * again and gst-launch-1.0 waited for good in one run of three */
  {
    g_autoptr (GError) error = NULL;
    GstElement *pipeline
        = gst_parse_launch (GREEN " ! videoconvert ! video/x-raw,format=I420,"
                                  "colorimetry=smpte240m ! accelconvert ! "
                                  "video/x-raw,format=RGBA ! appsink name=sink",
            &error);

    g_assert_error (error, GST_PARSE_ERROR, GST_PARSE_ERROR_LINK);
    g_assert_nonnull (strstr (error->message, "could not link accelconvert"));
    gst_clear_object (&pipeline);
  }
  assert_refused (GREEN " ! accelconvert ! video/x-raw,format=I420,"
                        "colorimetry=bt709 ! appsink name=sink",
      "downstream asked for bt709: put videoconvert");
  /* ... and with videoconvert put there as that says, it converts: its
   * passthrough caps come first, with the colorimetry after it fixed, and
   * accelconvert takes its other caps (it took the first, and refused) */
  assert_green (GREEN " ! videoconvert ! video/x-raw,format=I420 ! "
                      "accelconvert ! video/x-raw,width=640 ! videoconvert ! "
                      "video/x-raw,format=I420,colorimetry=bt709 ! "
                      "videoconvert ! video/x-raw,format=RGBA ! "
                      "appsink name=sink");
  assert_green (GREEN " ! videoconvert ! video/x-raw,format=NV12,"
                      "colorimetry=bt601 ! accelconvert ! videoconvert ! "
                      "video/x-raw,format=I420,colorimetry=bt709 ! "
                      "videoconvert ! video/x-raw,format=RGBA ! "
                      "appsink name=sink");
}

/* GStreamer's CUDA memory has no GRAY8: upload passes it through in system
 * memory and the filters stage it themselves */
static void
test_gray8_stays_in_system_memory (void)
{
  g_autoptr (GError) error = NULL;
  GstElement *pipeline = gst_parse_launch (
      "videotestsrc num-buffers=3 ! video/x-raw,format=GRAY8,width=65,"
      "height=33 ! accelupload ! accelsobel ! accelconvert ! "
      "video/x-raw,format=RGBA ! acceldownload ! fakesink",
      &error);

  g_assert_no_error (error);
  run_to_eos (pipeline);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

static GstPadProbeReturn
catch_pointer (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  GstEvent *event = gst_pad_probe_info_get_event (info);
  gdouble *xy = data;

  if (GST_EVENT_TYPE (event) == GST_EVENT_NAVIGATION)
    gst_navigation_event_get_coordinates (event, &xy[0], &xy[1]);
  return GST_PAD_PROBE_OK;
}

/* a pointer at (300, 90) over a 400x120 frame scaled from 100x60 is at
 * (75, 45) upstream */
static void
test_navigation (void)
{
  GstVideoInfo info;
  GstElement *src, *sink;
  GstElement *pipeline = launch (
      "accelconvert", gpu, GST_VIDEO_FORMAT_RGBA, 400, 120, &src, &sink);
  GstPad *src_pad = gst_element_get_static_pad (src, "src");
  GstPad *sink_pad = gst_element_get_static_pad (sink, "sink");
  gdouble xy[2] = { -1, -1 };
  GstCaps *caps;
  GstSample *sample;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 100, 60);
  caps = gst_video_info_to_caps (&info);
  gst_app_src_set_caps (GST_APP_SRC (src), caps);
  gst_caps_unref (caps);
  gst_pad_add_probe (
      src_pad, GST_PAD_PROBE_TYPE_EVENT_UPSTREAM, catch_pointer, xy, NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  gst_app_src_push_buffer (GST_APP_SRC (src), random_frame (&info));
  sample = gst_app_sink_pull_sample (GST_APP_SINK (sink));
  g_assert_nonnull (sample);
  gst_sample_unref (sample);
  gst_pad_push_event (sink_pad, gst_navigation_event_new_mouse_move (
                                    300.0, 90.0, GST_NAVIGATION_MODIFIER_NONE));
  g_assert_cmpfloat_with_epsilon (xy[0], 75.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (xy[1], 45.0, 1e-9);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (src_pad);
  gst_object_unref (sink_pad);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

static const Case cases[] = {
  /* odd sizes: GStreamer's planes are not where the kernels put them */
  { GST_VIDEO_FORMAT_NV12, 333, 187, GST_VIDEO_FORMAT_RGBA, 333, 187 },
  { GST_VIDEO_FORMAT_RGBA, 333, 187, GST_VIDEO_FORMAT_I420, 333, 187 },
  { GST_VIDEO_FORMAT_I420, 320, 240, GST_VIDEO_FORMAT_NV12, 320, 240 },
  { GST_VIDEO_FORMAT_BGRA, 64, 48, GST_VIDEO_FORMAT_GRAY8, 64, 48 },
  /* scaling, through a packed format */
  { GST_VIDEO_FORMAT_I420, 320, 240, GST_VIDEO_FORMAT_BGRA, 160, 120 },
  { GST_VIDEO_FORMAT_RGBA, 333, 187, GST_VIDEO_FORMAT_GRAY8, 500, 301 },
  { GST_VIDEO_FORMAT_GRAY8, 97, 55, GST_VIDEO_FORMAT_NV12, 1920, 1080 },
  { GST_VIDEO_FORMAT_RGBA, 1921, 1079, GST_VIDEO_FORMAT_RGBA, 640, 360 },
};

int
main (int argc, char **argv)
{
  gpu = elements_test_init (&argc, &argv);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const Case *c = &cases[i];
      g_autofree char *path = g_strdup_printf ("/convert/%s-%dx%d/%s-%dx%d",
          gst_video_format_to_string (c->in_format), c->in_w, c->in_h,
          gst_video_format_to_string (c->out_format), c->out_w, c->out_h);

      g_test_add_data_func (path, c, test_case);
    }
  g_test_add_func ("/convert/negotiation", test_negotiation);
  g_test_add_func ("/convert/pixel-aspect-ratio", test_pixel_aspect_ratio);
  g_test_add_func ("/convert/colorimetry", test_colorimetry);
  g_test_add_func ("/convert/interlaced", test_interlaced);
  g_test_add_func (
      "/convert/rgb-colorimetry-taken", test_rgb_colorimetry_taken);
  g_test_add_func ("/convert/navigation", test_navigation);
  g_test_add_func (
      "/convert/gray8-in-system-memory", test_gray8_stays_in_system_memory);
  return g_test_run ();
}
