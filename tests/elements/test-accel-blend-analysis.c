/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: accelblend, accelanalysis and accelhistogram in real pipelines
 * (gst_parse_launch, appsrc, appsink) on fresh random frames, every output
 * frame and every message compared with the host references of
 * kernels/effects (exact: GPU and host agree to the bit). On a GPU host
 * (suite gpu) accelupload and acceldownload around the elements make them
 * negotiate CUDA memory (the system-memory cases leave them out); without
 * one (suite elements, ACCEL_BACKEND=host) the same pipelines run the host
 * implementations. */
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <string.h>

#include "elements-test.h"

#include "effects/analysis.h"
#include "effects/blend.h"
#include "image/image.h"

/* odd sizes: rows are not a multiple of any alignment */
#define WIDTH 333
#define HEIGHT 187
#define FRAMES 12
#define FRAME_SIZE ((gsize)WIDTH * HEIGHT * 4)
#define PULL_TIMEOUT (30 * GST_SECOND)

static gboolean gpu;
/* frames go through accelupload and acceldownload (on a GPU: CUDA memory) */
static gboolean upload;

/* random frames, packed rows, levels in [lo, hi) */
static GPtrArray *
random_frames (guint n, int lo, int hi)
{
  GPtrArray *frames = g_ptr_array_new_with_free_func (g_free);

  for (guint f = 0; f < n; f++)
    {
      guint8 *p = g_malloc (FRAME_SIZE);

      for (gsize i = 0; i < FRAME_SIZE; i++)
        p[i] = g_test_rand_int_range (lo, hi);
      g_ptr_array_add (frames, p);
    }
  return frames;
}

static GstBuffer *
wrap (const guint8 *frame, gsize size, guint f)
{
  GstBuffer *buf = gst_buffer_new_memdup (frame, size);

  GST_BUFFER_PTS (buf) = f * GST_SECOND / 30;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

static GstClockTime
pts_of (guint f)
{
  return f * GST_SECOND / 30;
}

/* the packed rows of a sample's frame */
static guint8 *
unwrap (GstSample *sample)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  guint8 *out = g_malloc (FRAME_SIZE);

  g_assert_true (
      gst_video_info_from_caps (&info, gst_sample_get_caps (sample)));
  g_assert_cmpint (GST_VIDEO_INFO_WIDTH (&info), ==, WIDTH);
  g_assert_cmpint (GST_VIDEO_INFO_HEIGHT (&info), ==, HEIGHT);
  g_assert_true (gst_video_frame_map (
      &frame, &info, gst_sample_get_buffer (sample), GST_MAP_READ));
  for (int y = 0; y < HEIGHT; y++)
    memcpy (out + (gsize)y * WIDTH * 4,
        (guint8 *)GST_VIDEO_FRAME_PLANE_DATA (&frame, 0)
            + (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0),
        WIDTH * 4);
  gst_video_frame_unmap (&frame);
  return out;
}

static void
assert_frames_equal (const guint8 *got, const guint8 *want, guint f)
{
  for (gsize i = 0; i < FRAME_SIZE; i++)
    if (got[i] != want[i])
      g_error ("frame %u: byte %" G_GSIZE_FORMAT " (x %" G_GSIZE_FORMAT
               ", y %" G_GSIZE_FORMAT ") is %u, the reference %u",
          f, i, (i / 4) % WIDTH, i / 4 / WIDTH, got[i], want[i]);
}

static int
accel_format_of (const char *format)
{
  return g_str_equal (format, "BGRA") ? ACCEL_IMAGE_BGRA8 : ACCEL_IMAGE_RGBA8;
}

static gchar *
appsrc_launch (const char *name, const char *format, int width, int height)
{
  return g_strdup_printf ("appsrc name=%s format=time caps=video/x-raw,"
                          "format=%s,width=%d,height=%d,framerate=30/1 ! %s",
      name, format, width, height, upload ? "accelupload ! " : "");
}

/* between accelupload and acceldownload on a GPU the element's output must
 * be CUDA memory; otherwise system memory */
static void
assert_memory (GstElement *pipeline, const char *name)
{
  GstElement *element = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstPad *pad = gst_element_get_static_pad (element, "src");
  GstCaps *caps = gst_pad_get_current_caps (pad);

  g_assert_nonnull (caps);
  g_assert_cmpint (gst_caps_features_contains (
                       gst_caps_get_features (caps, 0), "memory:CUDAMemory"),
      ==, gpu && upload);
  gst_caps_unref (caps);
  gst_object_unref (pad);
  gst_object_unref (element);
}

static void
assert_no_error (GstElement *pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

  if (msg)
    {
      g_autoptr (GError) err = NULL;
      g_autofree gchar *debug = NULL;

      gst_message_parse_error (msg, &err, &debug);
      g_error ("pipeline error: %s (%s)", err->message, debug);
    }
  gst_object_unref (bus);
}

static void
stop (GstElement *pipeline)
{
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_NULL), ==,
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (pipeline);
}

/* accelblend ------------------------------------------------------------ */

typedef struct
{
  GstElement *pipeline;
  GstElement *blend;
  GstAppSrc *base;
  GstAppSrc *layer;
  GstAppSink *sink;
} Blend;

/* the base into sink_0, the layer into sink_1: zorders 0 and 1, the
 * order the element documents (and the default for pads requested in
 * this order) */
static void
blend_start (Blend *b, const char *format, const char *props, int layer_width,
    int layer_height)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *base = appsrc_launch ("base", format, WIDTH, HEIGHT);
  g_autofree gchar *layer
      = appsrc_launch ("layer", format, layer_width, layer_height);
  g_autofree gchar *launch = g_strdup_printf (
      "accelblend name=blend %s ! %sappsink name=sink sync=false "
      "%s blend.sink_0 %s blend.sink_1",
      props, upload ? "acceldownload ! " : "", base, layer);
  GstPad *pad;

  g_test_message ("%s", launch);
  b->pipeline = gst_parse_launch (launch, &error);
  g_assert_no_error (error);
  b->blend = gst_bin_get_by_name (GST_BIN (b->pipeline), "blend");
  b->base = GST_APP_SRC (gst_bin_get_by_name (GST_BIN (b->pipeline), "base"));
  b->layer = GST_APP_SRC (gst_bin_get_by_name (GST_BIN (b->pipeline), "layer"));
  b->sink = GST_APP_SINK (gst_bin_get_by_name (GST_BIN (b->pipeline), "sink"));
  for (guint i = 0; i < 2; i++)
    {
      g_autofree gchar *name = g_strdup_printf ("sink_%u", i);

      pad = gst_element_get_static_pad (b->blend, name);
      g_assert_nonnull (pad);
      g_object_set (pad, "zorder", i, NULL);
      gst_object_unref (pad);
    }
  g_assert_cmpint (gst_element_set_state (b->pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
}

static void
blend_finish (Blend *b)
{
  gst_object_unref (b->blend);
  gst_object_unref (b->base);
  gst_object_unref (b->layer);
  gst_object_unref (b->sink);
  stop (b->pipeline);
}

static guint8 *
blend_reference (int format, const guint8 *base, const guint8 *layer,
    AccelBlendMode mode, float opacity)
{
  guint8 *out = g_malloc (FRAME_SIZE);

  g_assert_cmpint (accel_blend_host (format, base, WIDTH * 4, layer, WIDTH * 4,
                       out, WIDTH * 4, WIDTH, HEIGHT, mode, opacity),
      ==, ACCEL_IMAGE_OK);
  return out;
}

/* one frame at a time, so that a property set before a frame is pushed
 * holds for that frame: @opacities per frame (NULL: the element's);
 * after @layer_frames the layer ends and the base must pass unchanged;
 * then the end of the stream */
static void
blend_frames (Blend *b, const char *format, AccelBlendMode mode,
    const float *opacities, float opacity, guint layer_frames)
{
  g_autoptr (GPtrArray) bases = random_frames (FRAMES, 0, 256);
  g_autoptr (GPtrArray) layers = random_frames (FRAMES, 0, 256);

  for (guint f = 0; f < FRAMES; f++)
    {
      g_autofree guint8 *got = NULL, *want = NULL;
      GstSample *sample;

      if (opacities)
        {
          opacity = opacities[f];
          g_object_set (b->blend, "opacity", opacity, NULL);
        }
      g_assert_cmpint (gst_app_src_push_buffer (
                           b->base, wrap (bases->pdata[f], FRAME_SIZE, f)),
          ==, GST_FLOW_OK);
      if (f < layer_frames)
        g_assert_cmpint (gst_app_src_push_buffer (
                             b->layer, wrap (layers->pdata[f], FRAME_SIZE, f)),
            ==, GST_FLOW_OK);
      if (f + 1 == layer_frames)
        gst_app_src_end_of_stream (b->layer);

      sample = gst_app_sink_try_pull_sample (b->sink, PULL_TIMEOUT);
      if (!sample)
        assert_no_error (b->pipeline);
      g_assert_nonnull (sample);
      g_assert_cmpuint (
          GST_BUFFER_PTS (gst_sample_get_buffer (sample)), ==, pts_of (f));
      got = unwrap (sample);
      want = f < layer_frames ? blend_reference (accel_format_of (format),
                 bases->pdata[f], layers->pdata[f], mode, opacity)
                              : g_memdup2 (bases->pdata[f], FRAME_SIZE);
      assert_frames_equal (got, want, f);
      gst_sample_unref (sample);
    }
  gst_app_src_end_of_stream (b->base);
  if (layer_frames >= FRAMES)
    gst_app_src_end_of_stream (b->layer);
  g_assert_null (gst_app_sink_try_pull_sample (b->sink, PULL_TIMEOUT));
  g_assert_true (gst_app_sink_is_eos (b->sink));
  assert_memory (b->pipeline, "blend");
  assert_no_error (b->pipeline);
}

static gchar *
blend_props (AccelBlendMode mode, float opacity)
{
  static const char *modes[] = { "over", "add", "multiply", "screen" };

  return g_strdup_printf ("mode=%s opacity=%g", modes[mode], opacity);
}

static void
run_blend (const char *format, AccelBlendMode mode, const float *opacities,
    float opacity, guint layer_frames)
{
  g_autofree gchar *props = blend_props (mode, opacity);
  Blend b;

  blend_start (&b, format, props, WIDTH, HEIGHT);
  blend_frames (&b, format, mode, opacities, opacity, layer_frames);
  blend_finish (&b);
}

static void
test_blend_mode (gconstpointer data)
{
  run_blend ("RGBA", GPOINTER_TO_INT (data), NULL, 0.75f, FRAMES);
}

static void
test_blend_bgra (void)
{
  run_blend ("BGRA", ACCEL_BLEND_SCREEN, NULL, 0.6f, FRAMES);
}

/* opacity is mutable in PLAYING: each frame blended with the value set
 * before it came (0 and 1 included) */
static void
test_blend_opacity (void)
{
  static const float opacities[FRAMES] = { 1.0f, 0.5f, 0.0f, 0.25f, 0.9f, 0.1f,
    1.0f, 0.33f, 0.66f, 0.0f, 0.8f, 0.45f };

  run_blend ("RGBA", ACCEL_BLEND_OVER, opacities, 1.0f, FRAMES);
}

static void
test_blend_layer_ends (void)
{
  run_blend ("RGBA", ACCEL_BLEND_MULTIPLY, NULL, 0.5f, FRAMES / 2);
}

/* a second run after NULL blends every frame of its own: GstVideoAggregator
 * kept the first run's timing and last frames, and the second lost its
 * first frames */
static void
test_blend_restart (void)
{
  g_autofree gchar *props = blend_props (ACCEL_BLEND_OVER, 0.5f);
  Blend b;

  blend_start (&b, "RGBA", props, WIDTH, HEIGHT);
  blend_frames (&b, "RGBA", ACCEL_BLEND_OVER, NULL, 0.5f, FRAMES);
  g_assert_cmpint (gst_element_set_state (b.pipeline, GST_STATE_NULL), ==,
      GST_STATE_CHANGE_SUCCESS);
  g_assert_cmpint (gst_element_set_state (b.pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  blend_frames (&b, "RGBA", ACCEL_BLEND_OVER, NULL, 0.5f, FRAMES);
  blend_finish (&b);
}

static GstPadProbeReturn
count_pointer (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);
  gdouble x = 0, y = 0;

  if (GST_EVENT_TYPE (event) == GST_EVENT_NAVIGATION
      && gst_navigation_event_get_coordinates (event, &x, &y) && x == 10.0
      && y == 5.0)
    g_atomic_int_inc ((gint *)data);
  return GST_PAD_PROBE_OK;
}

/* a pointer event from the sink reaches both inputs where it is (each has
 * the output's size), so a simulation source behind the element follows
 * the pointer (GstAggregator dropped it) */
static void
test_blend_navigation (void)
{
  GstAppSrc *srcs[2];
  gint seen[2] = { 0, 0 };
  GstPad *sinkpad;
  Blend b;

  blend_start (&b, "RGBA", "", WIDTH, HEIGHT);
  srcs[0] = b.base;
  srcs[1] = b.layer;
  for (guint i = 0; i < 2; i++)
    {
      GstPad *pad = gst_element_get_static_pad (GST_ELEMENT (srcs[i]), "src");

      gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_EVENT_UPSTREAM, count_pointer,
          &seen[i], NULL);
      gst_object_unref (pad);
    }
  sinkpad = gst_element_get_static_pad (GST_ELEMENT (b.sink), "sink");
  gst_pad_push_event (
      sinkpad, gst_navigation_event_new_mouse_button_press (1, 10.0, 5.0, 0));
  gst_object_unref (sinkpad);
  g_assert_cmpint (g_atomic_int_get (&seen[0]), ==, 1);
  g_assert_cmpint (g_atomic_int_get (&seen[1]), ==, 1);
  blend_finish (&b);
}

/* inputs of two sizes: an error that names both */
/* system memory on every side: on a GPU the blend runs on the host */
static void
test_blend_system_memory (void)
{
  upload = FALSE;
  run_blend ("RGBA", ACCEL_BLEND_ADD, NULL, 0.5f, FRAMES);
  upload = gpu;
}

/* pads requested from threads at once: never a third (each saw one pad
 * before the other was added, and a third input was ignored), and never
 * only one (a request that came while another's pad was added and still
 * counted as in the making was refused); a pad released gives its place
 * back */
typedef struct
{
  GstElement *blend;
  gint *go;
} PadRequest;

static gpointer
request_pad (gpointer data)
{
  PadRequest *r = data;

  while (!g_atomic_int_get (r->go))
    ;
  return gst_element_request_pad_simple (r->blend, "sink_%u");
}

#define REQUESTERS 4
static void
test_blend_pads_at_once (void)
{
  for (guint round = 0; round < 200; round++)
    {
      GstElement *blend = gst_element_factory_make ("accelblend", NULL);
      GThread *threads[REQUESTERS];
      GstPad *pads[REQUESTERS];
      gint go = 0;
      PadRequest r = { blend, &go };
      guint n = 0;

      for (guint t = 0; t < REQUESTERS; t++)
        threads[t] = g_thread_new ("request", request_pad, &r);
      g_atomic_int_set (&go, 1);
      for (guint t = 0; t < REQUESTERS; t++)
        {
          pads[t] = g_thread_join (threads[t]);
          n += pads[t] != NULL;
        }
      g_assert_cmpuint (n, ==, 2);
      g_assert_cmpuint (blend->numsinkpads, ==, 2);
      for (guint t = 0, released = 0; t < REQUESTERS; t++)
        if (pads[t])
          {
            if (!released++)
              gst_element_release_request_pad (blend, pads[t]);
            gst_object_unref (pads[t]);
          }
      pads[0] = gst_element_request_pad_simple (blend, "sink_%u");
      g_assert_nonnull (pads[0]);
      g_assert_null (gst_element_request_pad_simple (blend, "sink_%u"));
      /* a pad removed, not released, gives its place back too */
      g_assert_true (gst_element_remove_pad (blend, pads[0]));
      gst_object_unref (pads[0]);
      pads[0] = gst_element_request_pad_simple (blend, "sink_%u");
      g_assert_nonnull (pads[0]);
      gst_object_unref (pads[0]);
      gst_object_unref (blend);
    }
}

static void
test_blend_sizes_differ (void)
{
  g_autoptr (GPtrArray) frames = random_frames (1, 0, 256);
  g_autoptr (GError) err = NULL;
  g_autofree gchar *debug = NULL, *layer_size = NULL, *base_size = NULL;
  GstBus *bus;
  GstMessage *msg;
  Blend b;

  blend_start (&b, "RGBA", "", WIDTH / 2, HEIGHT / 2);
  g_assert_cmpint (
      gst_app_src_push_buffer (b.base, wrap (frames->pdata[0], FRAME_SIZE, 0)),
      ==, GST_FLOW_OK);
  g_assert_cmpint (gst_app_src_push_buffer (
                       b.layer, wrap (frames->pdata[0], FRAME_SIZE / 4, 0)),
      ==, GST_FLOW_OK);
  bus = gst_element_get_bus (b.pipeline);
  msg = gst_bus_timed_pop_filtered (bus, PULL_TIMEOUT, GST_MESSAGE_ERROR);
  g_assert_nonnull (msg);
  gst_message_parse_error (msg, &err, &debug);
  g_test_message ("%s: %s", err->message, debug);
  g_assert_cmpstr (GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), ==, "blend");
  base_size = g_strdup_printf ("%dx%d", WIDTH, HEIGHT);
  layer_size = g_strdup_printf ("sink_1 is %dx%d", WIDTH / 2, HEIGHT / 2);
  g_assert_nonnull (strstr (debug, base_size));
  g_assert_nonnull (strstr (debug, layer_size));
  gst_message_unref (msg);
  gst_object_unref (bus);
  blend_finish (&b);
}

/* plays @line into its appsink "sink" to the end and returns each
 * frame's video info, asserting that it ended without an error */
static GArray *
play_line_infos (const char *line)
{
  g_autoptr (GError) error = NULL;
  GstElement *pipeline = gst_parse_launch (line, &error);
  GArray *infos = g_array_new (FALSE, FALSE, sizeof (GstVideoInfo));
  GstElement *sink;
  GstSample *sample;
  GstBus *bus;
  GstMessage *msg;

  g_assert_no_error (error);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  while ((sample
          = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), PULL_TIMEOUT)))
    {
      GstVideoInfo info;

      g_assert_true (
          gst_video_info_from_caps (&info, gst_sample_get_caps (sample)));
      g_array_append_val (infos, info);
      gst_sample_unref (sample);
    }
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (msg)
    {
      g_autoptr (GError) err = NULL;
      g_autofree gchar *debug = NULL;

      gst_message_parse_error (msg, &err, &debug);
      g_test_message ("%s: %s: %s", line, err->message, debug);
      gst_message_unref (msg);
    }
  g_assert_null (msg);
  g_assert_true (gst_app_sink_is_eos (GST_APP_SINK (sink)));
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return infos;
}

/* an input whose size changes mid-stream (one input: nothing to differ
 * from) renegotiates the output: it failed as not negotiated, the new caps
 * held to the output's old size */
static void
test_blend_size_changes (void)
{
  g_autoptr (GArray) infos = play_line_infos (
      "concat name=c ! accelblend ! appsink name=sink sync=false "
      "videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,width=8,height=8 "
      "! c. videotestsrc num-buffers=3 ! "
      "video/x-raw,format=RGBA,width=4,height=2 ! c.");

  g_assert_cmpuint (infos->len, ==, 6);
  for (guint n = 0; n < infos->len; n++)
    {
      GstVideoInfo *info = &g_array_index (infos, GstVideoInfo, n);

      g_assert_cmpint (GST_VIDEO_INFO_WIDTH (info), ==, n < 3 ? 8 : 4);
      g_assert_cmpint (GST_VIDEO_INFO_HEIGHT (info), ==, n < 3 ? 8 : 2);
    }
}

/* an input behind videoscale takes the other input's size: the caps it is
 * offered lead with it, so videoscale makes frames the blend takes (it
 * kept the input's size, which GstVideoAggregator's caps leave free, and
 * the blend failed naming both sizes). Either input: the layer behind the
 * converter, then the base; a videoconvert keeps its input's format where
 * it may, so the line that converts BGRA says the format after it. And no
 * endless asking where one source feeds both inputs */
static void
test_blend_converter_takes_other_size (void)
{
  static const char *const lines[] = {
    "accelblend name=b ! appsink name=sink sync=false "
    "videotestsrc num-buffers=3 ! "
    "video/x-raw,format=RGBA,width=64,height=48 ! b.sink_0 "
    "videotestsrc num-buffers=3 pattern=ball ! "
    "video/x-raw,format=RGBA,width=32,height=24 ! videoscale ! b.sink_1",
    "accelblend name=b ! appsink name=sink sync=false "
    "videotestsrc num-buffers=3 pattern=ball ! "
    "video/x-raw,format=BGRA,width=32,height=24 ! videoconvert ! "
    "video/x-raw,format=RGBA ! videoscale ! b.sink_0 "
    "videotestsrc num-buffers=3 ! "
    "video/x-raw,format=RGBA,width=64,height=48 ! b.sink_1",
    /* one source through a tee to both inputs: each input's caps query
     * asks the other's upstream, which comes back to the element once,
     * answered without asking again */
    "accelblend name=b ! appsink name=sink sync=false "
    "videotestsrc num-buffers=3 ! "
    "video/x-raw,format=RGBA,width=64,height=48 ! tee name=t "
    "t. ! queue ! b.sink_0 t. ! queue ! videoscale ! b.sink_1",
  };

  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      g_autoptr (GArray) infos = play_line_infos (lines[i]);

      g_assert_cmpuint (infos->len, ==, 3);
      for (guint n = 0; n < infos->len; n++)
        {
          GstVideoInfo *info = &g_array_index (infos, GstVideoInfo, n);

          g_assert_cmpint (GST_VIDEO_INFO_WIDTH (info), ==, 64);
          g_assert_cmpint (GST_VIDEO_INFO_HEIGHT (info), ==, 48);
          g_assert_cmpint (
              GST_VIDEO_INFO_FORMAT (info), ==, GST_VIDEO_FORMAT_RGBA);
        }
    }
}

/* the output is the inputs' size and format whatever downstream would
 * like: a videoscale after the blend scales its output (GstVideoAggregator
 * took the size downstream asked for, and the blend failed on inputs that
 * agree), and once the base ended the layer's new size and format are
 * the output's (the ended input's size still counted, and the output took
 * the larger of each side, a size no input had). Each line: its frames'
 * sizes and formats in turn */
static void
test_blend_output_takes_inputs_size (void)
{
  static const struct
  {
    const char *line;
    guint n;
    gint width[3], height[3];
    GstVideoFormat format[3];
    guint changes_at; /* the frame from which the second entries hold */
  } cases[] = {
    { "accelblend name=b ! videoscale ! video/x-raw,width=7,height=30 ! "
      "appsink name=sink sync=false "
      "videotestsrc num-buffers=3 ! "
      "video/x-raw,format=RGBA,width=32,height=24 ! b. "
      "videotestsrc num-buffers=3 pattern=ball ! "
      "video/x-raw,format=RGBA,width=32,height=24 ! b.",
        3, { 7, 7 }, { 30, 30 },
        { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_RGBA }, 3 },
    { "accelblend name=b ! appsink name=sink sync=false "
      "videotestsrc num-buffers=3 ! "
      "video/x-raw,format=RGBA,width=6,height=4,framerate=30/1 ! b. "
      "concat name=c ! b. "
      "videotestsrc num-buffers=10 ! "
      "video/x-raw,format=RGBA,width=6,height=4,framerate=30/1 ! c. "
      "videotestsrc num-buffers=4 ! "
      "video/x-raw,format=BGRA,width=3,height=9,framerate=30/1 ! c.",
        14, { 6, 3 }, { 4, 9 },
        { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA }, 10 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GArray) infos = play_line_infos (cases[i].line);

      g_assert_cmpuint (infos->len, ==, cases[i].n);
      for (guint n = 0; n < infos->len; n++)
        {
          GstVideoInfo *info = &g_array_index (infos, GstVideoInfo, n);
          guint at = n < cases[i].changes_at ? 0 : 1;

          g_assert_cmpint (GST_VIDEO_INFO_WIDTH (info), ==, cases[i].width[at]);
          g_assert_cmpint (
              GST_VIDEO_INFO_HEIGHT (info), ==, cases[i].height[at]);
          g_assert_cmpint (
              GST_VIDEO_INFO_FORMAT (info), ==, cases[i].format[at]);
        }
    }
}

/* a downstream that fixes another size before the inputs negotiate: the
 * pipeline fails with an error, every time. GstVideoAggregator reset the
 * inputs' info it refused to zeros, and the blend read its format through
 * a NULL pointer (a crash in one run of two, then gst-launch hung) */
static void
test_blend_downstream_size_fails (void)
{
  for (guint run = 0; run < 10; run++)
    {
      g_autoptr (GError) error = NULL;
      GstElement *pipeline = gst_parse_launch (
          "videotestsrc num-buffers=20 ! "
          "video/x-raw,format=RGBA,width=64,height=48 ! accelblend name=b ! "
          "video/x-raw,width=32,height=24 ! fakesink "
          "videotestsrc num-buffers=20 ! "
          "video/x-raw,format=RGBA,width=64,height=48 ! b.",
          &error);
      GstBus *bus;
      GstMessage *msg;

      g_assert_no_error (error);
      gst_element_set_state (pipeline, GST_STATE_PLAYING);
      bus = gst_element_get_bus (pipeline);
      msg = gst_bus_timed_pop_filtered (
          bus, PULL_TIMEOUT, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
      g_assert_nonnull (msg);
      g_assert_cmpint (GST_MESSAGE_TYPE (msg), ==, GST_MESSAGE_ERROR);
      gst_message_unref (msg);
      gst_object_unref (bus);
      gst_element_set_state (pipeline, GST_STATE_NULL);
      gst_object_unref (pipeline);
    }
}

/* accelanalysis --------------------------------------------------------- */

typedef struct
{
  const char *element;
  const char *format;
  const char *props;
  guint interval;
  gboolean histogram;
  gboolean luma;
  AccelEqualizeMode equalize;
} AnalysisCase;

typedef struct
{
  uint32_t histogram[ACCEL_ANALYSIS_CHANNELS * ACCEL_ANALYSIS_BINS];
  uint64_t motion[ACCEL_ANALYSIS_CHANNELS];
  float stats[ACCEL_ANALYSIS_CHANNELS * ACCEL_ANALYSIS_STATS];
} Sums;

/* the sums of every frame in order, each with the motion to the one
 * before it */
static Sums *
analysis_reference (const AnalysisCase *c, GPtrArray *frames)
{
  Sums *sums = g_new0 (Sums, frames->len);
  g_autofree guint8 *previous = g_malloc (FRAME_SIZE);
  int format = accel_format_of (c->format);

  for (guint f = 0; f < frames->len; f++)
    {
      int flags = ACCEL_ANALYSIS_LUMA | ACCEL_ANALYSIS_KEEP
                  | (f > 0 ? ACCEL_ANALYSIS_MOTION : 0);

      g_assert_cmpint (accel_analysis_accumulate_host (format, frames->pdata[f],
                           WIDTH * 4, WIDTH, HEIGHT, flags, previous, WIDTH * 4,
                           sums[f].histogram, sums[f].motion),
          ==, ACCEL_IMAGE_OK);
      g_assert_cmpint (accel_analysis_stats_host (
                           sums[f].histogram, sums[f].motion, sums[f].stats),
          ==, ACCEL_IMAGE_OK);
    }
  return sums;
}

static const GValue *
array_field (const GstStructure *s, const char *field, guint n)
{
  const GValue *v = gst_structure_get_value (s, field);

  g_assert_nonnull (v);
  g_assert_true (GST_VALUE_HOLDS_ARRAY (v));
  g_assert_cmpuint (gst_value_array_get_size (v), ==, n);
  return v;
}

/* one message against the reference sums of its frame */
static void
check_message (const AnalysisCase *c, const GstStructure *s, const Sums *want)
{
  static const char *names[] = { "red", "green", "blue", "alpha", "luma" };
  static const char *stats[] = { "min", "max", "mean", "stddev", "motion" };
  guint n = c->luma ? ACCEL_ANALYSIS_CHANNELS : 4;
  const GValue *channels = array_field (s, "channels", n);

  for (guint ch = 0; ch < n; ch++)
    g_assert_cmpstr (
        g_value_get_string (gst_value_array_get_value (channels, ch)), ==,
        names[ch]);
  for (guint k = 0; k < ACCEL_ANALYSIS_STATS; k++)
    {
      const GValue *values = array_field (s, stats[k], n);

      for (guint ch = 0; ch < n; ch++)
        g_assert_cmpfloat (
            g_value_get_double (gst_value_array_get_value (values, ch)), ==,
            (double)want->stats[ch * ACCEL_ANALYSIS_STATS + k]);
    }
  if (!c->histogram)
    {
      g_assert_false (gst_structure_has_field (s, "histograms"));
      return;
    }
  for (guint ch = 0; ch < n; ch++)
    {
      const GValue *bins
          = gst_value_array_get_value (array_field (s, "histograms", n), ch);

      g_assert_cmpuint (
          gst_value_array_get_size (bins), ==, ACCEL_ANALYSIS_BINS);
      for (guint v = 0; v < ACCEL_ANALYSIS_BINS; v++)
        g_assert_cmpuint (
            g_value_get_uint (gst_value_array_get_value (bins, v)), ==,
            want->histogram[ch * ACCEL_ANALYSIS_BINS + v]);
    }
}

/* every message of the run, in order: one per `interval` frames from the
 * first, each as the reference says; and no error */
static void
check_messages (const AnalysisCase *c, GstElement *pipeline, const Sums *sums)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  guint count = 0, f = 0;
  GstMessage *msg;

  /* popping discards what is not asked for: errors are asked for too */
  while ((msg = gst_bus_pop_filtered (
              bus, GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR)))
    {
      const GstStructure *s = gst_message_get_structure (msg);
      guint64 frame;
      GstClockTime timestamp;

      if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
        {
          g_autoptr (GError) err = NULL;
          g_autofree gchar *debug = NULL;

          gst_message_parse_error (msg, &err, &debug);
          g_error ("pipeline error: %s (%s)", err->message, debug);
        }
      if (!gst_structure_has_name (s, "accel-analysis"))
        {
          gst_message_unref (msg);
          continue;
        }
      g_assert_cmpstr (GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), ==, "an");
      g_assert_true (gst_structure_get_uint64 (s, "frame", &frame));
      g_assert_true (gst_structure_get_uint64 (s, "timestamp", &timestamp));
      g_assert_cmpuint (frame, ==, f);
      g_assert_cmpuint (timestamp, ==, pts_of (f));
      check_message (c, s, &sums[f]);
      gst_message_unref (msg);
      count++;
      f += c->interval;
    }
  g_assert_cmpuint (
      count, ==, c->interval ? (FRAMES + c->interval - 1) / c->interval : 0);
  gst_object_unref (bus);
}

static void
test_analysis (gconstpointer data)
{
  const AnalysisCase *c = data;
  /* low contrast, so that equalisation moves every level */
  g_autoptr (GPtrArray) frames = random_frames (FRAMES, 40, 140);
  g_autofree Sums *sums = analysis_reference (c, frames);
  g_autoptr (GError) error = NULL;
  g_autofree gchar *src = appsrc_launch ("src", c->format, WIDTH, HEIGHT);
  g_autofree gchar *launch
      = g_strdup_printf ("%s %s name=an %s ! %sappsink name=sink sync=false",
          src, c->element, c->props, upload ? "acceldownload ! " : "");
  GstElement *pipeline;
  GstAppSrc *appsrc;
  GstAppSink *sink;
  GstSample *sample;
  guint f = 0;

  g_test_message ("%s", launch);
  pipeline = gst_parse_launch (launch, &error);
  g_assert_no_error (error);
  appsrc = GST_APP_SRC (gst_bin_get_by_name (GST_BIN (pipeline), "src"));
  sink = GST_APP_SINK (gst_bin_get_by_name (GST_BIN (pipeline), "sink"));
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  for (guint i = 0; i < FRAMES; i++)
    g_assert_cmpint (gst_app_src_push_buffer (
                         appsrc, wrap (frames->pdata[i], FRAME_SIZE, i)),
        ==, GST_FLOW_OK);
  gst_app_src_end_of_stream (appsrc);

  while ((sample = gst_app_sink_try_pull_sample (sink, PULL_TIMEOUT)))
    {
      g_autofree guint8 *got = unwrap (sample);
      g_autofree guint8 *want = g_malloc (FRAME_SIZE);

      g_assert_cmpuint (f, <, FRAMES);
      if (c->equalize == ACCEL_EQUALIZE_NONE)
        memcpy (want, frames->pdata[f], FRAME_SIZE);
      else
        g_assert_cmpint (accel_equalize_host (accel_format_of (c->format),
                             frames->pdata[f], WIDTH * 4, want, WIDTH * 4,
                             WIDTH, HEIGHT, sums[f].histogram, c->equalize),
            ==, ACCEL_IMAGE_OK);
      assert_frames_equal (got, want, f);
      gst_sample_unref (sample);
      f++;
    }
  check_messages (c, pipeline, sums);
  g_assert_cmpuint (f, ==, FRAMES);
  g_assert_true (gst_app_sink_is_eos (sink));
  assert_memory (pipeline, "an");

  gst_object_unref (appsrc);
  gst_object_unref (sink);
  stop (pipeline);
}

/* the "mean" of the first analysis message of @launch, serialised */
static gchar *
first_mean (const char *launch)
{
  g_autoptr (GError) error = NULL;
  GstElement *pipeline = gst_parse_launch (launch, &error);
  GstBus *bus;
  GstMessage *msg;
  gchar *mean = NULL;

  g_assert_no_error (error);
  bus = gst_element_get_bus (pipeline);
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  while (!mean
         && (msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
                 GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR | GST_MESSAGE_EOS)))
    {
      const GstStructure *st = gst_message_get_structure (msg);

      g_assert_cmpint (GST_MESSAGE_TYPE (msg), ==, GST_MESSAGE_ELEMENT);
      if (gst_structure_has_field (st, "mean"))
        mean = gst_value_serialize (gst_structure_get_value (st, "mean"));
      gst_message_unref (msg);
    }
  gst_object_unref (bus);
  stop (pipeline);
  g_assert_nonnull (mean);
  return mean;
}

/* a crop upstream is measured as cropped, whether or not the sink takes
 * crop meta: passing through, the element had forwarded the sink's crop
 * meta support, so the crop was left to the sink and the whole frame was
 * measured */
static void
test_analysis_cropped (void)
{
#define CROPPED                                                                \
  "videotestsrc num-buffers=1 pattern=smpte ! "                                \
  "video/x-raw,format=RGBA,width=64,height=48 ! "                              \
  "videocrop left=40 top=30 ! accelanalysis ! "
  const char *plain = CROPPED "fakesink";
  const char *meta = CROPPED "fakevideosink";
#undef CROPPED
  g_autofree gchar *want = NULL, *got = NULL;

  if (!elements_test_have ("videocrop")
      || !elements_test_have ("fakevideosink"))
    return;
  want = first_mean (plain);
  got = first_mean (meta);
  g_assert_cmpstr (got, ==, want);
}

/* a buffer of @size bytes at frame @n, every byte @value */
static GstBuffer *
analysis_frame (gsize size, guint n, guint8 value)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, size, NULL);

  gst_buffer_memset (b, 0, value, size);
  GST_BUFFER_PTS (b) = n * GST_SECOND / 30;
  GST_BUFFER_DURATION (b) = GST_SECOND / 30;
  if (size == 0)
    GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_GAP);
  return b;
}

/* a frame that does not map (an empty GAP, one cut short) is passed on
 * unanalysed: the first crashed the message (no sums yet), a later one
 * posted the frame before's numbers as its own. The gap quietly, the
 * frame cut short with a warning that gives both sizes (GstVideoFilter
 * warned "code not implemented" of both) */
static void
test_analysis_unmapped_frames (void)
{
  g_autoptr (GError) error = NULL;
  GstElement *pipeline = gst_parse_launch (
      "appsrc name=src format=time caps=video/x-raw,format=RGBA,width=8,"
      "height=8,framerate=30/1 ! accelanalysis ! fakesink",
      &error);
  GstElement *src;
  GstBus *bus;
  GstMessage *msg;
  guint posted = 0, warned = 0;

  g_assert_no_error (error);
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  bus = gst_element_get_bus (pipeline);
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  gst_app_src_push_buffer (GST_APP_SRC (src), analysis_frame (0, 0, 0));
  gst_app_src_push_buffer (GST_APP_SRC (src), analysis_frame (256, 1, 10));
  gst_app_src_push_buffer (GST_APP_SRC (src), analysis_frame (252, 2, 200));
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  while ((msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
              GST_MESSAGE_ELEMENT | GST_MESSAGE_WARNING | GST_MESSAGE_ERROR
                  | GST_MESSAGE_EOS)))
    {
      const GstStructure *st = gst_message_get_structure (msg);
      guint64 frame = G_MAXUINT64;
      g_autofree gchar *mean = NULL;

      if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS)
        {
          gst_message_unref (msg);
          break;
        }
      if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING)
        {
          g_autoptr (GError) warning = NULL;
          g_autofree gchar *debug = NULL;

          gst_message_parse_warning (msg, &warning, &debug);
          g_assert_nonnull (
              strstr (debug, "252 bytes, where a 8x8 RGBA frame takes 256"));
          warned++;
          gst_message_unref (msg);
          continue;
        }
      g_assert_cmpint (GST_MESSAGE_TYPE (msg), ==, GST_MESSAGE_ELEMENT);
      g_assert_true (gst_structure_get_uint64 (st, "frame", &frame));
      mean = gst_value_serialize (gst_structure_get_value (st, "mean"));
      /* only the frame that was analysed, with its own numbers */
      g_assert_cmpuint (frame, ==, 1);
      g_assert_cmpstr (mean, ==,
          "< (double)10, (double)10, (double)10, "
          "(double)10 >");
      posted++;
      gst_message_unref (msg);
    }
  g_assert_cmpuint (posted, ==, 1);
  g_assert_cmpuint (warned, ==, 1);
  gst_object_unref (bus);
  gst_object_unref (src);
  stop (pipeline);
}

/* system memory on every side: on a GPU analysis alone runs on the host,
 * equalisation through device copies */
static void
test_analysis_system_memory (gconstpointer data)
{
  upload = FALSE;
  test_analysis (data);
  upload = gpu;
}

static const AnalysisCase stats_case = { "accelanalysis", "RGBA", "luma=true",
  1, FALSE, TRUE, ACCEL_EQUALIZE_NONE };
static const AnalysisCase interval_case = { "accelanalysis", "BGRA",
  "interval=5 histogram=true", 5, TRUE, FALSE, ACCEL_EQUALIZE_NONE };
static const AnalysisCase silent_case = { "accelanalysis", "RGBA", "interval=0",
  0, FALSE, FALSE, ACCEL_EQUALIZE_NONE };
static const AnalysisCase luma_case = { "accelanalysis", "RGBA",
  "equalize=luma interval=3 histogram=true luma=true", 3, TRUE, TRUE,
  ACCEL_EQUALIZE_LUMA };
static const AnalysisCase channels_case = { "accelanalysis", "BGRA",
  "equalize=channels", 1, FALSE, FALSE, ACCEL_EQUALIZE_CHANNELS };
/* accelhistogram: accelanalysis with the histograms on by default */
static const AnalysisCase histogram_case = { "accelhistogram", "RGBA",
  "interval=2", 2, TRUE, FALSE, ACCEL_EQUALIZE_NONE };

int
main (int argc, char **argv)
{
  gpu = upload = elements_test_init (&argc, &argv);

  g_test_add_data_func (
      "/blend/over", GINT_TO_POINTER (ACCEL_BLEND_OVER), test_blend_mode);
  g_test_add_data_func (
      "/blend/add", GINT_TO_POINTER (ACCEL_BLEND_ADD), test_blend_mode);
  g_test_add_data_func ("/blend/multiply",
      GINT_TO_POINTER (ACCEL_BLEND_MULTIPLY), test_blend_mode);
  g_test_add_data_func (
      "/blend/screen", GINT_TO_POINTER (ACCEL_BLEND_SCREEN), test_blend_mode);
  g_test_add_func ("/blend/bgra", test_blend_bgra);
  g_test_add_func ("/blend/opacity-while-playing", test_blend_opacity);
  g_test_add_func ("/blend/layer-ends", test_blend_layer_ends);
  g_test_add_func ("/blend/restart", test_blend_restart);
  g_test_add_func ("/blend/navigation", test_blend_navigation);
  g_test_add_func ("/blend/system-memory", test_blend_system_memory);
  g_test_add_func ("/blend/sizes-differ", test_blend_sizes_differ);
  g_test_add_func ("/blend/pads-at-once", test_blend_pads_at_once);
  g_test_add_func ("/blend/size-changes", test_blend_size_changes);
  g_test_add_func ("/blend/converter-takes-other-size",
      test_blend_converter_takes_other_size);
  g_test_add_func (
      "/blend/output-takes-inputs-size", test_blend_output_takes_inputs_size);
  g_test_add_func (
      "/blend/downstream-size-fails", test_blend_downstream_size_fails);
  g_test_add_data_func (
      "/analysis/stats-and-motion", &stats_case, test_analysis);
  g_test_add_data_func (
      "/analysis/interval-histograms", &interval_case, test_analysis);
  g_test_add_data_func ("/analysis/no-messages", &silent_case, test_analysis);
  g_test_add_data_func ("/analysis/equalize-luma", &luma_case, test_analysis);
  g_test_add_data_func (
      "/analysis/equalize-channels", &channels_case, test_analysis);
  g_test_add_data_func (
      "/analysis/accelhistogram", &histogram_case, test_analysis);
  g_test_add_data_func (
      "/analysis/system-memory", &stats_case, test_analysis_system_memory);
  g_test_add_func ("/analysis/cropped", test_analysis_cropped);
  g_test_add_func ("/analysis/unmapped-frames", test_analysis_unmapped_frames);
  g_test_add_data_func ("/analysis/equalize-system-memory", &luma_case,
      test_analysis_system_memory);
  return g_test_run ();
}
