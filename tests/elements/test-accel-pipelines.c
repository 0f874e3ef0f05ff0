/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: real pipelines of accel elements, parsed with gst_parse_launch and
 * fed fresh random frames through appsrc, each output frame compared with
 * the host references applied in the same order (exact: the kernels match
 * their references bit for bit). On a GPU host (suite gpu) the chains run
 * on CUDA memory, with and without the sync meta, through a tee, and
 * between GStreamer's own cudaupload and cudadownload; without one (suite
 * elements, ACCEL_BACKEND=host) the same pipelines run the host
 * implementations. */
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <string.h>

#include "elements-test.h"

#include "effects/effects.h"
#include "image/blur.h"
#include "image/image.h"
#include "image/median.h"
#include "image/sobel.h"
#include "image/threshold.h"

/* odd sizes: rows are not a multiple of any alignment */
#define WIDTH 333
#define HEIGHT 187
#define FRAMES 12

static gboolean gpu;

typedef int (*Step) (const guint8 *src, guint8 *dst);

static int
blur2 (const guint8 *src, guint8 *dst)
{
  return accel_gaussian_blur_host (
      ACCEL_IMAGE_RGBA8, src, WIDTH * 4, dst, WIDTH * 4, WIDTH, HEIGHT, 2.0f);
}

static int
sobel (const guint8 *src, guint8 *dst)
{
  return accel_sobel_host (ACCEL_IMAGE_RGBA8, src, WIDTH * 4, dst, WIDTH * 4,
      NULL, 0, WIDTH, HEIGHT, 1.0f);
}

static int
median5 (const guint8 *src, guint8 *dst)
{
  return accel_median_host (
      ACCEL_IMAGE_RGBA8, src, WIDTH * 4, dst, WIDTH * 4, WIDTH, HEIGHT, 5);
}

static int
box3 (const guint8 *src, guint8 *dst)
{
  return accel_box_blur_host (
      ACCEL_IMAGE_RGBA8, src, WIDTH * 4, dst, WIDTH * 4, WIDTH, HEIGHT, 3);
}

static int
unsharp (const guint8 *src, guint8 *dst)
{
  return accel_unsharp_mask_host (ACCEL_IMAGE_RGBA8, src, WIDTH * 4, dst,
      WIDTH * 4, WIDTH, HEIGHT, 1.5f, 2.0f);
}

static int
threshold (const guint8 *src, guint8 *dst)
{
  return accel_threshold_host (
      ACCEL_IMAGE_RGBA8, src, WIDTH * 4, dst, WIDTH * 4, WIDTH, HEIGHT, 90.0f);
}

/* the effects of test_effects, with the history the element keeps: frames
 * must come in order, from a reset */
#define EFFECTS                                                                \
  "contrast=1.2 saturation=0.8 sepia=0.3 vignette=0.4 difference echo=0.8"
static AccelEffectsParams effects_params;
static float *effects_history;
static int effects_history_valid;

static void
effects_reset (void)
{
  char message[128];

  g_assert_cmpint (
      accel_effects_parse (EFFECTS, &effects_params, message, sizeof message),
      ==, 0);
  g_free (effects_history);
  effects_history
      = g_malloc (accel_effects_history_size (&effects_params, WIDTH, HEIGHT));
  effects_history_valid = 0;
}

static int
effects (const guint8 *src, guint8 *dst)
{
  int ret = accel_effects_apply_host (ACCEL_IMAGE_RGBA8, src, WIDTH * 4, dst,
      WIDTH * 4, WIDTH, HEIGHT, &effects_params, effects_history,
      effects_history_valid);

  effects_history_valid = 1;
  return ret;
}

/* fresh random frames, packed rows */
static GPtrArray *
random_frames (void)
{
  GPtrArray *frames = g_ptr_array_new_with_free_func (g_free);

  for (guint f = 0; f < FRAMES; f++)
    {
      guint8 *p = g_malloc ((gsize)WIDTH * HEIGHT * 4);

      for (gsize i = 0; i < (gsize)WIDTH * HEIGHT * 4; i++)
        p[i] = g_test_rand_int_range (0, 256);
      g_ptr_array_add (frames, p);
    }
  return frames;
}

/* the frame after @steps, NULL-terminated */
static guint8 *
reference (const guint8 *frame, const Step *steps)
{
  gsize size = (gsize)WIDTH * HEIGHT * 4;
  guint8 *a = g_memdup2 (frame, size), *b = g_malloc (size);

  for (const Step *s = steps; *s; s++)
    {
      guint8 *t;

      g_assert_cmpint ((*s) (a, b), ==, ACCEL_IMAGE_OK);
      t = a;
      a = b;
      b = t;
    }
  g_free (b);
  return a;
}

static GstBuffer *
wrap (const guint8 *frame, guint f)
{
  GstBuffer *buf = gst_buffer_new_memdup (frame, (gsize)WIDTH * HEIGHT * 4);

  GST_BUFFER_PTS (buf) = f * GST_SECOND / 30;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

/* the packed rows of a sample's frame */
static guint8 *
unwrap (GstSample *sample)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  guint8 *out = g_malloc ((gsize)WIDTH * HEIGHT * 4);

  g_assert_true (
      gst_video_info_from_caps (&info, gst_sample_get_caps (sample)));
  g_assert_cmpint (GST_VIDEO_INFO_WIDTH (&info), ==, WIDTH);
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
  gsize size = (gsize)WIDTH * HEIGHT * 4;

  for (gsize i = 0; i < size; i++)
    if (got[i] != want[i])
      g_error ("frame %u: byte %" G_GSIZE_FORMAT " (x %" G_GSIZE_FORMAT
               ", y %" G_GSIZE_FORMAT ") is %u, the reference %u",
          f, i, (i / 4) % WIDTH, i / 4 / WIDTH, got[i], want[i]);
}

/* on a GPU, the frames that leave the element named "up" (accelupload)
 * must be CUDA memory; without one, system memory */
static void
assert_upload_made_cuda_memory (GstElement *pipeline)
{
  GstElement *up = gst_bin_get_by_name (GST_BIN (pipeline), "up");
  GstPad *pad;
  GstCaps *caps;

  if (!up)
    return;
  pad = gst_element_get_static_pad (up, "src");
  caps = gst_pad_get_current_caps (pad);
  g_assert_nonnull (caps);
  g_assert_cmpint (gst_caps_features_contains (
                       gst_caps_get_features (caps, 0), "memory:CUDAMemory"),
      ==, gpu);
  gst_caps_unref (caps);
  gst_object_unref (pad);
  gst_object_unref (up);
}

/* @description after an appsrc named "src" of the test frames' caps */
static GstElement *
parse_after_appsrc (const char *description)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *launch = g_strdup_printf (
      "appsrc name=src format=time caps=video/x-raw,format=RGBA,width=%d,"
      "height=%d,framerate=30/1 ! %s",
      WIDTH, HEIGHT, description);
  GstElement *pipeline = gst_parse_launch (launch, &error);

  g_assert_no_error (error);
  g_test_message ("%s", launch);
  return pipeline;
}

/* sets @pipeline playing and pushes @frames and the end of the stream */
static void
play_frames (GstElement *pipeline, GPtrArray *frames)
{
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");

  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  for (guint f = 0; f < frames->len; f++)
    g_assert_cmpint (
        gst_app_src_push_buffer (GST_APP_SRC (src), wrap (frames->pdata[f], f)),
        ==, GST_FLOW_OK);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  gst_object_unref (src);
}

/* runs @pipeline ("src" is the appsrc; every appsink is "sinkN") on
 * @frames and checks sink N's frames against @chains[N] */
static void
play_and_check (GstElement *pipeline, const Step *const *chains, guint n_sinks,
    GPtrArray *frames)
{
  GstBus *bus;
  GstMessage *msg;

  play_frames (pipeline, frames);

  for (guint n = 0; n < n_sinks; n++)
    {
      g_autofree gchar *name = g_strdup_printf ("sink%u", n);
      GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), name);
      guint f = 0;
      GstSample *sample;

      g_assert_nonnull (sink);
      while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink))))
        {
          g_autofree guint8 *got = unwrap (sample);
          g_autofree guint8 *want = reference (frames->pdata[f], chains[n]);

          assert_frames_equal (got, want, f);
          gst_sample_unref (sample);
          f++;
        }
      g_assert_cmpuint (f, ==, frames->len);
      gst_object_unref (sink);
    }

  assert_upload_made_cuda_memory (pipeline);
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (msg)
    {
      GError *err = NULL;
      gst_message_parse_error (msg, &err, NULL);
      g_error ("pipeline error: %s", err->message);
    }
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

/* play_and_check () of @description after the appsrc */
static void
run_and_check (const char *description, const Step *const *chains,
    guint n_sinks, GPtrArray *frames)
{
  play_and_check (parse_after_appsrc (description), chains, n_sinks, frames);
}

/* counts the gap events through a pad */
static GstPadProbeReturn
count_gaps (GstPad *pad, GstPadProbeInfo *info, gpointer user_data)
{
  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_GAP)
    g_atomic_int_inc ((gint *)user_data);
  return GST_PAD_PROBE_OK;
}

/* an empty buffer flagged GAP between two frames: it holds no frame to
 * upload, blur or download, and goes on as a gap event; the frames around
 * it come out exact, and the stream ends without an error (on a GPU the
 * upload mapped it and failed the stream). @description: after the
 * appsrc, ending in an appsink "sink0"; @caps: the appsrc's, or NULL */
static void
play_with_gap (const char *description, const char *caps)
{
  static const Step blur[] = { blur2, NULL }, none[] = { NULL };
  g_autoptr (GPtrArray) frames = random_frames ();
  GstElement *pipeline = parse_after_appsrc (description);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink0");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GstBuffer *gap = gst_buffer_new ();
  GstMessage *msg;
  GstSample *sample;
  gint gaps = 0;
  guint n = 0;

  if (caps)
    {
      GstCaps *c = gst_caps_from_string (caps);
      g_object_set (src, "caps", c, NULL);
      gst_caps_unref (c);
    }
  gst_pad_add_probe (
      pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, count_gaps, &gaps, NULL);
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  GST_BUFFER_FLAG_SET (gap, GST_BUFFER_FLAG_GAP);
  GST_BUFFER_PTS (gap) = GST_SECOND / 30;
  GST_BUFFER_DURATION (gap) = GST_SECOND / 30;
  if (!caps)
    g_assert_cmpint (
        gst_app_src_push_buffer (GST_APP_SRC (src), wrap (frames->pdata[0], 0)),
        ==, GST_FLOW_OK);
  g_assert_cmpint (
      gst_app_src_push_buffer (GST_APP_SRC (src), gap), ==, GST_FLOW_OK);
  if (!caps)
    g_assert_cmpint (
        gst_app_src_push_buffer (GST_APP_SRC (src), wrap (frames->pdata[2], 2)),
        ==, GST_FLOW_OK);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink))))
    {
      guint f = n == 0 ? 0 : 2;
      g_autofree guint8 *got = unwrap (sample);
      g_autofree guint8 *want = reference (
          frames->pdata[f], strstr (description, "blur") ? blur : none);

      g_assert_cmpuint (GST_BUFFER_PTS (gst_sample_get_buffer (sample)), ==,
          f * GST_SECOND / 30);
      assert_frames_equal (got, want, f);
      gst_sample_unref (sample);
      n++;
    }
  g_assert_cmpuint (n, ==, caps ? 0 : 2);
  g_assert_cmpint (g_atomic_int_get (&gaps), ==, 1);
  msg = gst_bus_pop_filtered (GST_ELEMENT_BUS (pipeline), GST_MESSAGE_ERROR);
  if (msg)
    {
      GError *err = NULL;
      gst_message_parse_error (msg, &err, NULL);
      g_error ("pipeline error: %s", err->message);
    }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (src);
  gst_object_unref (pipeline);
}

static void
test_gap (void)
{
  play_with_gap ("accelupload name=up ! accelgaussianblur sigma=2 ! "
                 "acceldownload ! appsink name=sink0 sync=false",
      NULL);
  /* a gap that reaches acceldownload in CUDA memory */
  if (gpu)
    play_with_gap ("acceldownload ! appsink name=sink0 sync=false",
        "video/x-raw(memory:CUDAMemory),format=RGBA,width=333,height=187,"
        "framerate=30/1");
}

/* a filter of neighbours after an interleaved stream: refused as the
 * pipeline is linked, where its refusal in set_caps () posted an error at
 * each try and gst-launch-1.0 waited for good in one run of four */
static void
test_interlaced_refused_at_link (void)
{
  static const char *const filters[] = { "accelgaussianblur", "accelsobel",
    "accelmedian", "accelboxblur", "accelunsharp" };

  for (guint i = 0; i < G_N_ELEMENTS (filters); i++)
    {
      g_autofree gchar *line = g_strdup_printf (
          "appsrc ! video/x-raw,format=RGBA,width=8,height=8,"
          "framerate=0/1,interlace-mode=interleaved ! %s ! appsink",
          filters[i]);
      g_autoptr (GError) error = NULL;
      GstElement *pipeline = gst_parse_launch (line, &error);

      g_test_message ("%s", line);
      g_assert_error (error, GST_PARSE_ERROR, GST_PARSE_ERROR_LINK);
      g_clear_object (&pipeline);
    }
}

static const Step chain4[] = { blur2, sobel, median5, unsharp, NULL };

static void
test_chain (gconstpointer data)
{
  const char *sync_meta = data;
  g_autoptr (GPtrArray) frames = random_frames ();
  g_autofree gchar *d = g_strdup_printf (
      "accelupload name=up ! accelgaussianblur sigma=2 %s ! accelsobel %s ! "
      "accelmedian size=5x5 %s ! accelunsharp amount=1.5 sigma=2 %s ! "
      "acceldownload ! appsink name=sink0 sync=false",
      sync_meta, sync_meta, sync_meta, sync_meta);
  const Step *chains[] = { chain4 };

  run_and_check (d, chains, 1, frames);
}

/* system memory caps on both sides: on a GPU each element copies in and
 * out itself */
static void
test_system_memory (void)
{
  static const Step steps[] = { box3, threshold, NULL };
  const Step *chains[] = { steps };
  g_autoptr (GPtrArray) frames = random_frames ();

  run_and_check ("accelboxblur radius=3 ! video/x-raw ! "
                 "accelthreshold value=90 ! appsink name=sink0 sync=false",
      chains, 1, frames);
}

/* counts the buffers through a pad whose memory is page-locked */
static GstPadProbeReturn
count_page_locked (GstPad *pad, GstPadProbeInfo *info, gpointer user_data)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  struct cudaPointerAttributes attr;
  GstMapInfo map;

  g_assert_true (gst_buffer_map (buf, &map, GST_MAP_READ));
  if (cudaPointerGetAttributes (&attr, map.data) == cudaSuccess
      && attr.type == cudaMemoryTypeHost)
    g_atomic_int_inc ((gint *)user_data);
  cudaGetLastError ();
  gst_buffer_unmap (buf, &map);
  return GST_PAD_PROBE_OK;
}

/* frames between accel elements in system memory: acceldownload writes
 * them into the page-locked pool the next accelupload offers, and that
 * copies them by DMA alone, holding each until its copy is done; the last
 * acceldownload, which appsink offers no pool, uses its own. Every frame
 * must come out exact, through both pools */
static void
test_page_locked (void)
{
  static const Step steps[] = { blur2, sobel, NULL };
  const Step *chains[] = { steps };
  g_autoptr (GPtrArray) frames = random_frames ();
  GstElement *pipeline = parse_after_appsrc (
      "accelupload name=up ! accelgaussianblur sigma=2 ! acceldownload ! "
      "video/x-raw ! accelupload name=again ! accelsobel ! "
      "acceldownload name=down ! appsink name=sink0 sync=false");
  const char *names[] = { "again", "down" };
  const char *pads[] = { "sink", "src" };
  gint locked[2] = { 0, 0 };

  for (guint i = 0; i < 2; i++)
    {
      GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), names[i]);
      GstPad *pad = gst_element_get_static_pad (e, pads[i]);

      gst_pad_add_probe (
          pad, GST_PAD_PROBE_TYPE_BUFFER, count_page_locked, &locked[i], NULL);
      gst_object_unref (pad);
      gst_object_unref (e);
    }
  play_and_check (pipeline, chains, 1, frames);
  g_assert_cmpint (locked[0], ==, FRAMES);
  g_assert_cmpint (locked[1], ==, FRAMES);
}

/* two readers of every blurred frame, on two threads: the writer must not
 * reuse a buffer either of them still reads */
static void
test_tee (void)
{
  static const Step a[] = { blur2, sobel, NULL };
  static const Step b[] = { blur2, box3, threshold, NULL };
  const Step *chains[] = { a, b };
  g_autoptr (GPtrArray) frames = random_frames ();

  run_and_check (
      "accelupload name=up ! accelgaussianblur sigma=2 ! tee name=t "
      "t. ! queue ! accelsobel ! acceldownload ! appsink name=sink0 sync=false "
      "t. ! queue ! accelboxblur radius=3 ! accelthreshold value=90 ! "
      "acceldownload ! appsink name=sink1 sync=false",
      chains, 2, frames);
}

/* the fused pass with temporal effects: every frame depends on all before
 * it, so a frame handled out of order or a lost history shows */
static void
test_effects (void)
{
  static const Step steps[] = { effects, NULL };
  const Step *chains[] = { steps };
  g_autoptr (GPtrArray) frames = random_frames ();

  effects_reset ();
  run_and_check ("accelupload name=up ! acceleffects effects=\"" EFFECTS
                 "\" ! acceldownload ! appsink name=sink0 sync=false",
      chains, 1, frames);
  g_clear_pointer (&effects_history, g_free);
}

/* GStreamer's own CUDA elements on either side share the CUDA context and
 * pass CUDA memory without copies */
static void
test_nvcodec (void)
{
  static const Step steps[] = { blur2, NULL };
  const Step *chains[] = { steps };
  g_autoptr (GPtrArray) frames = NULL;
  GstElementFactory *f = gst_element_factory_find ("cudaupload");

  if (!f)
    {
      g_test_skip ("no cudaupload: GStreamer's nvcodec plugin is not here");
      return;
    }
  gst_object_unref (f);
  frames = random_frames ();
  run_and_check ("cudaupload ! accelgaussianblur sigma=2 ! cudadownload ! "
                 "appsink name=sink0 sync=false",
      chains, 1, frames);
}

/* the frames the appsink named sink0 of @pipeline pulls, packed rows */
static GPtrArray *
pull_frames (GstElement *pipeline)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink0");
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  GstSample *sample;

  g_assert_nonnull (sink);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink))))
    {
      g_ptr_array_add (out, unwrap (sample));
      gst_sample_unref (sample);
    }
  gst_object_unref (sink);
  return out;
}

/* the frames out of @description (into an appsink it adds), in order */
static GPtrArray *
run_collect (const char *description, GPtrArray *frames)
{
  g_autofree gchar *d
      = g_strdup_printf ("%s ! appsink name=sink0 sync=false", description);
  GstElement *pipeline = parse_after_appsrc (d);
  GPtrArray *out;

  play_frames (pipeline, frames);
  out = pull_frames (pipeline);
  g_assert_cmpuint (out->len, ==, frames->len);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  return out;
}

static gboolean
have_nvcodec (void)
{
  GstElementFactory *f = gst_element_factory_find ("cudaupload");

  if (!f)
    {
      g_test_skip ("no cudaupload: GStreamer's nvcodec plugin is not here");
      return FALSE;
    }
  gst_object_unref (f);
  return TRUE;
}

#define CHAIN4                                                                 \
  "accelgaussianblur name=a sigma=2 ! accelsobel name=b ! "                    \
  "accelmedian name=c size=5x5 ! accelunsharp name=d amount=1.5 sigma=2"

/* the line a GStreamer user writes, cudaupload ... cudadownload around four
 * accel elements, gives the bytes of accelupload ... acceldownload and of
 * the host references */
static void
test_cudaupload_equals_accelupload (void)
{
  g_autoptr (GPtrArray) frames = NULL;
  g_autoptr (GPtrArray) theirs = NULL;
  g_autoptr (GPtrArray) ours = NULL;
  gsize size = (gsize)WIDTH * HEIGHT * 4;

  if (!have_nvcodec ())
    return;
  frames = random_frames ();
  theirs = run_collect ("cudaupload ! " CHAIN4 " ! cudadownload", frames);
  ours = run_collect ("accelupload ! " CHAIN4 " ! acceldownload", frames);
  for (guint f = 0; f < frames->len; f++)
    {
      g_autofree guint8 *want = reference (frames->pdata[f], chain4);

      g_assert_cmpmem (theirs->pdata[f], size, ours->pdata[f], size);
      assert_frames_equal (theirs->pdata[f], want, f);
    }
}

/* counts, on a pad, the buffers and those in CUDA memory */
static GstPadProbeReturn
count_cuda_memory (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  guint *counts = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);

  counts[0]++;
  if (gst_buffer_n_memory (buf) > 0
      && gst_memory_is_type (
          gst_buffer_peek_memory (buf, 0), "gst.cuda.memory"))
    counts[1]++;
  return GST_PAD_PROBE_OK;
}

static guint
staged_frames (GstElement *pipeline, const char *name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  guint n = G_MAXUINT;

  g_object_get (e, "staged-frames", &n, NULL);
  gst_object_unref (e);
  return n;
}

/* adds a probe counting buffers in CUDA memory on the src pad of each of
 * the elements a, b, c and d */
static void
probe_chain (GstElement *pipeline, guint counts[4][2])
{
  static const char *names[] = { "a", "b", "c", "d" };

  for (guint i = 0; i < 4; i++)
    {
      GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), names[i]);
      GstPad *pad = gst_element_get_static_pad (e, "src");

      gst_pad_add_probe (
          pad, GST_PAD_PROBE_TYPE_BUFFER, count_cuda_memory, counts[i], NULL);
      gst_object_unref (pad);
      gst_object_unref (e);
    }
}

/* whether the element named @name takes CUDA memory */
static gboolean
takes_cuda_memory (GstElement *pipeline, const char *name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstPad *pad = gst_element_get_static_pad (e, "sink");
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gboolean cuda;

  g_assert_nonnull (caps);
  cuda = gst_caps_features_contains (
      gst_caps_get_features (caps, 0), "memory:CUDAMemory");
  gst_caps_unref (caps);
  gst_object_unref (pad);
  gst_object_unref (e);
  return cuda;
}

/* runs @description (accel elements named a, b, c, d) on fresh frames,
 * checks the output against the references, that every frame leaving a,
 * b and c is in CUDA memory, and that only a copied frames in through its
 * staging: every one when it takes system memory, none when it takes CUDA
 * memory as @a_cuda says it must (-1: either). Into cudadownload d writes
 * system memory, every frame copied out through its staging (cudadownload
 * passes it through); otherwise CUDA memory, none staged */
static void
assert_chain_on_gpu (const char *description, int a_cuda)
{
  static const char *names[] = { "a", "b", "c", "d" };
  g_autoptr (GPtrArray) frames = random_frames ();
  g_autoptr (GPtrArray) got = NULL;
  g_autofree gchar *d
      = g_strdup_printf ("%s ! appsink name=sink0 sync=false", description);
  GstElement *pipeline = parse_after_appsrc (d);
  guint counts[4][2] = { { 0 } };
  guint a_staged;
  gboolean d_system = g_str_has_suffix (description, "cudadownload");

  probe_chain (pipeline, counts);
  play_frames (pipeline, frames);
  got = pull_frames (pipeline);
  g_assert_cmpuint (got->len, ==, frames->len);
  for (guint f = 0; f < frames->len; f++)
    {
      g_autofree guint8 *want = reference (frames->pdata[f], chain4);

      assert_frames_equal (got->pdata[f], want, f);
    }

  a_staged = takes_cuda_memory (pipeline, "a") ? 0 : FRAMES;
  g_test_message ("a takes %s memory", a_staged ? "system" : "CUDA");
  if (a_cuda >= 0)
    g_assert_cmpint (a_cuda, ==, a_staged == 0);
  for (guint i = 0; i < 4; i++)
    {
      guint staged = staged_frames (pipeline, names[i]);

      g_test_message ("%s: %u frames out, %u in CUDA memory, %u staged",
          names[i], counts[i][0], counts[i][1], staged);
      g_assert_cmpuint (counts[i][0], ==, FRAMES);
      if (i == 3 && d_system)
        {
          g_assert_cmpuint (counts[i][1], ==, 0);
          g_assert_cmpuint (staged, ==, FRAMES);
          continue;
        }
      g_assert_cmpuint (counts[i][1], ==, FRAMES);
      g_assert_cmpuint (staged, ==, i == 0 ? a_staged : 0);
    }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

/* cudaupload uploads each frame, or passes system memory through to the
 * first accel element, which then uploads it once; from there every frame
 * stays in CUDA memory up to the last accel element, which copies it out
 * for cudadownload to pass through */
static void
test_cudaupload_stays_on_gpu (void)
{
  if (have_nvcodec ())
    assert_chain_on_gpu ("cudaupload ! " CHAIN4 " ! cudadownload", -1);
}

/* frames in cudaupload's own CUDA memory (no sync meta) are read in place */
static void
test_foreign_cuda_memory_in_place (void)
{
  if (have_nvcodec ())
    assert_chain_on_gpu ("cudaupload ! video/x-raw(memory:CUDAMemory) ! " CHAIN4
                         " ! cudadownload",
        TRUE);
}

/* a filter given system memory on a GPU, with accel elements after it,
 * uploads and hands CUDA memory on */
static void
test_system_memory_uploads_once (void)
{
  assert_chain_on_gpu (CHAIN4 " ! acceldownload", FALSE);
}

static GstPadProbeReturn
count_meta (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  guint *counts = data;
  GType api = g_type_from_name ("GstAccelSyncMetaAPI");

  counts[0]++;
  if (api && gst_buffer_get_meta (GST_PAD_PROBE_INFO_BUFFER (info), api))
    counts[1]++;
  return GST_PAD_PROBE_OK;
}

/* between two accel elements frames are CUDA memory with the sync meta;
 * with sync-meta=false, without it; into acceldownload always with it */
static void
test_meta_on_the_wire (void)
{
  const char *settings[] = { "true", "false" };

  for (guint i = 0; i < 2; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree gchar *launch = g_strdup_printf (
          "videotestsrc num-buffers=5 ! video/x-raw,format=RGBA,width=64,"
          "height=48 ! accelupload ! accelgaussianblur name=a ! "
          "accelsobel sync-meta=%s ! acceldownload ! fakesink",
          settings[i]);
      GstElement *pipeline = gst_parse_launch (launch, &error);
      GstElement *a = gst_bin_get_by_name (GST_BIN (pipeline), "a");
      GstPad *pad = gst_element_get_static_pad (a, "src");
      guint counts[2] = { 0, 0 };
      GstBus *bus = gst_element_get_bus (pipeline);
      GstMessage *msg;
      GstCaps *caps;

      g_assert_no_error (error);
      gst_pad_add_probe (
          pad, GST_PAD_PROBE_TYPE_BUFFER, count_meta, counts, NULL);
      gst_element_set_state (pipeline, GST_STATE_PLAYING);
      msg = gst_bus_timed_pop_filtered (
          bus, 30 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
      g_assert_nonnull (msg);
      g_assert_cmpint (GST_MESSAGE_TYPE (msg), ==, GST_MESSAGE_EOS);
      caps = gst_pad_get_current_caps (pad);
      g_assert_true (gst_caps_features_contains (
          gst_caps_get_features (caps, 0), "memory:CUDAMemory"));
      g_assert_cmpuint (counts[0], ==, 5);
      g_assert_cmpuint (counts[1], ==, (i == 0 ? 5 : 0));

      gst_caps_unref (caps);
      gst_message_unref (msg);
      gst_object_unref (bus);
      gst_element_set_state (pipeline, GST_STATE_NULL);
      gst_object_unref (pad);
      gst_object_unref (a);
      gst_object_unref (pipeline);
    }
}

/* the text of the first @type message on @pipeline's bus within 5 s */
static gchar *
bus_text (GstElement *pipeline, GstMessageType type)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND, type);
  GError *error = NULL;
  gchar *text;

  g_assert_nonnull (msg);
  if (type == GST_MESSAGE_ERROR)
    gst_message_parse_error (msg, &error, NULL);
  else
    gst_message_parse_warning (msg, &error, NULL);
  text = g_strdup (error->message);
  g_error_free (error);
  gst_message_unref (msg);
  gst_object_unref (bus);
  return text;
}

/* effects that do not parse: before the start they fail it, by name (the
 * element ran with none, and gst-launch-1.0 exited 0 after a warning on
 * stderr); while playing, a warning on the bus, and the effects go on */
static void
test_effects_refused (void)
{
  GstElement *pipeline = gst_parse_launch (
      "videotestsrc is-live=true ! video/x-raw,format=RGBA,width=16,height=8 "
      "! acceleffects name=fx effects=sepiaa ! fakesink",
      NULL);
  GstElement *fx = gst_bin_get_by_name (GST_BIN (pipeline), "fx");
  g_autofree gchar *error = NULL, *warning = NULL, *kept = NULL;

  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), ==,
      GST_STATE_CHANGE_FAILURE);
  error = bus_text (pipeline, GST_MESSAGE_ERROR);
  g_assert_cmpstr (error, ==,
      "effects \"sepiaa\" not taken: unknown effect 'sepiaa' (did you mean "
      "'sepia'?)");
  gst_element_set_state (pipeline, GST_STATE_NULL);

  g_object_set (fx, "effects", "invert", NULL);
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  g_assert_cmpint (gst_element_get_state (pipeline, NULL, NULL, 5 * GST_SECOND),
      ==, GST_STATE_CHANGE_SUCCESS);
  g_object_set (fx, "effects", "sepia=2", NULL);
  warning = bus_text (pipeline, GST_MESSAGE_WARNING);
  g_assert_true (g_str_has_prefix (warning, "effects \"sepia=2\" not taken: "));
  g_object_get (fx, "effects", &kept, NULL);
  g_assert_cmpstr (kept, ==, "invert");
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (fx);
  gst_object_unref (pipeline);
}

int
main (int argc, char **argv)
{
  gpu = elements_test_init (&argc, &argv);

  g_test_add_data_func ("/pipelines/chain-of-four", "", test_chain);
  g_test_add_data_func (
      "/pipelines/chain-of-four/sync-meta-off", "sync-meta=false", test_chain);
  g_test_add_func ("/pipelines/system-memory", test_system_memory);
  g_test_add_func (
      "/pipelines/interlaced-refused-at-link", test_interlaced_refused_at_link);
  g_test_add_func ("/pipelines/tee", test_tee);
  g_test_add_func ("/pipelines/effects-temporal", test_effects);
  g_test_add_func ("/pipelines/effects-refused", test_effects_refused);
  g_test_add_func ("/pipelines/gap", test_gap);
  if (gpu)
    {
      g_test_add_func ("/pipelines/meta-on-the-wire", test_meta_on_the_wire);
      g_test_add_func (
          "/pipelines/cudaupload-accel-cudadownload", test_nvcodec);
      g_test_add_func ("/pipelines/cudaupload-equals-accelupload",
          test_cudaupload_equals_accelupload);
      g_test_add_func (
          "/pipelines/cudaupload-stays-on-gpu", test_cudaupload_stays_on_gpu);
      g_test_add_func ("/pipelines/foreign-cuda-memory-in-place",
          test_foreign_cuda_memory_in_place);
      g_test_add_func ("/pipelines/system-memory-uploads-once",
          test_system_memory_uploads_once);
      g_test_add_func ("/pipelines/page-locked", test_page_locked);
    }
  return g_test_run ();
}
