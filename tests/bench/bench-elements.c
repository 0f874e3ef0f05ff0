/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel elements: frames/s of a chain of four (Gaussian blur, Sobel, box
 * blur, median) on 360p, 1080p and 4K RGBA frames in CUDA memory from
 * appsrc into fakesink sync=false, against the sum of the four kernels' own
 * times on one stream (and the same four captured once into a CUDA graph:
 * the most a graph inside the chain could save), and against the same chain
 * with sync-meta=false (every element waits for the GPU before it pushes,
 * GStreamer's way); with the elements on one streaming thread and with a
 * queue between each. A chain's time per frame is the difference of runs
 * of N and 2N frames, so that start-up, negotiation and pool allocation
 * cancel out.
 *
 * Then the line a GStreamer user writes: system memory frames from appsrc
 * through GStreamer's cudaupload, four accelgaussianblur and cudadownload
 * (as written, and with CUDA memory caps forced after cudaupload), against
 * the same four between accelupload and acceldownload, and each against its
 * own upload and download alone, three rounds of the five lines in turn;
 * "ratio" is the cudaupload line's time per frame over the accelupload
 * line's.
 *
 * An argument scales the frames of every run (0.5: half as many);
 * BENCH_ELEMENTS_LINES_ONLY=1 runs the second part alone. */
#include <cuda_runtime_api.h>
#include <gst/app/gstappsrc.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/video/video.h>

#include "image/blur.h"
#include "image/median.h"
#include "image/sobel.h"

#define SOURCE_BUFFERS 4

static void
check_cuda (cudaError_t err, const char *what)
{
  if (err != cudaSuccess)
    g_error ("%s: %s", what, cudaGetErrorString (err));
}

static void
enqueue_four (cudaStream_t s, gpointer a, size_t pitch_a, gpointer b,
    size_t pitch_b, int w, int h)
{
  check_cuda (accel_gaussian_blur (
                  s, ACCEL_IMAGE_RGBA8, a, pitch_a, b, pitch_b, w, h, 2.0f),
      "blur");
  check_cuda (accel_sobel (s, ACCEL_IMAGE_RGBA8, b, pitch_b, a, pitch_a, NULL,
                  0, w, h, 1.0f),
      "sobel");
  check_cuda (
      accel_box_blur (s, ACCEL_IMAGE_RGBA8, a, pitch_a, b, pitch_b, w, h, 1),
      "box");
  check_cuda (
      accel_median (s, ACCEL_IMAGE_RGBA8, b, pitch_b, a, pitch_a, w, h, 3),
      "median");
}

/* microseconds per frame of the four kernels back to back on one stream;
 * with @graph captured once into a CUDA graph launched per frame, the most
 * a captured graph inside the chain could save */
static double
kernels_alone (int w, int h, guint frames, gboolean graph)
{
  gpointer a, b;
  size_t pitch_a, pitch_b;
  cudaStream_t s;
  cudaEvent_t start, stop;
  cudaGraph_t captured = NULL;
  cudaGraphExec_t exec = NULL;
  float ms;

  check_cuda (cudaMallocPitch (&a, &pitch_a, (size_t)w * 4, h), "malloc");
  check_cuda (cudaMallocPitch (&b, &pitch_b, (size_t)w * 4, h), "malloc");
  check_cuda (cudaMemset2D (a, pitch_a, 0x3c, (size_t)w * 4, h), "memset");
  check_cuda (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking), "stream");
  check_cuda (cudaEventCreate (&start), "event");
  check_cuda (cudaEventCreate (&stop), "event");
  if (graph)
    {
      check_cuda (cudaStreamBeginCapture (s, cudaStreamCaptureModeThreadLocal),
          "capture");
      enqueue_four (s, a, pitch_a, b, pitch_b, w, h);
      check_cuda (cudaStreamEndCapture (s, &captured), "end capture");
      check_cuda (cudaGraphInstantiate (&exec, captured, 0), "instantiate");
    }
  for (guint f = 0; f < frames + 10; f++)
    {
      if (f == 10)
        check_cuda (cudaEventRecord (start, s), "record");
      if (graph)
        check_cuda (cudaGraphLaunch (exec, s), "launch");
      else
        enqueue_four (s, a, pitch_a, b, pitch_b, w, h);
    }
  check_cuda (cudaEventRecord (stop, s), "record");
  check_cuda (cudaEventSynchronize (stop), "sync");
  check_cuda (cudaEventElapsedTime (&ms, start, stop), "elapsed");
  if (graph)
    {
      cudaGraphExecDestroy (exec);
      cudaGraphDestroy (captured);
    }
  cudaEventDestroy (start);
  cudaEventDestroy (stop);
  cudaStreamDestroy (s);
  cudaFree (a);
  cudaFree (b);
  return ms * 1e3 / frames;
}

/* SOURCE_BUFFERS frames in CUDA memory of the context the elements made */
static void
make_source_buffers (GstElement *pipeline, GstCaps *caps, GstBuffer **bufs)
{
  GstContext *ctx = gst_element_get_context (pipeline, GST_CUDA_CONTEXT_TYPE);
  GstCudaContext *cuda = NULL;
  GstBufferPool *pool;
  GstStructure *config;
  GstVideoInfo info;

  g_assert_nonnull (ctx);
  g_assert_true (
      gst_cuda_handle_set_context (pipeline, ctx, -1, &cuda) && cuda);
  gst_context_unref (ctx);
  gst_video_info_from_caps (&info, caps);
  pool = gst_cuda_buffer_pool_new (cuda);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (
      config, caps, info.size, SOURCE_BUFFERS, SOURCE_BUFFERS);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  g_assert_true (gst_buffer_pool_set_config (pool, config));
  g_assert_true (gst_buffer_pool_set_active (pool, TRUE));
  for (guint i = 0; i < SOURCE_BUFFERS; i++)
    {
      GstMapInfo map;

      g_assert_cmpint (gst_buffer_pool_acquire_buffer (pool, &bufs[i], NULL),
          ==, GST_FLOW_OK);
      g_assert_true (
          gst_buffer_map (bufs[i], &map, GST_MAP_WRITE | GST_MAP_CUDA));
      gst_cuda_context_push (cuda);
      check_cuda (cudaMemset (map.data, 0x3c + i, info.size), "fill");
      check_cuda (cudaDeviceSynchronize (), "fill");
      gst_cuda_context_pop (NULL);
      gst_buffer_unmap (bufs[i], &map);
    }
  /* the buffers keep the pool alive */
  gst_object_unref (pool);
  gst_object_unref (cuda);
}

/* seconds for @frames frames through the chain */
static double
run_chain (int w, int h, guint frames, gboolean meta, gboolean queues)
{
  const char *link = queues ? " ! queue max-size-buffers=3 max-size-bytes=0 "
                              "max-size-time=0 ! "
                            : " ! ";
  const char *m = meta ? "" : " sync-meta=false";
  g_autofree gchar *launch = g_strdup_printf (
      "appsrc name=src format=time caps=\"video/x-raw(memory:CUDAMemory),"
      "format=RGBA,width=%d,height=%d,framerate=0/1\" ! "
      "accelgaussianblur sigma=2%s%saccelsobel%s%saccelboxblur radius=1%s%s"
      "accelmedian%s ! fakesink sync=false",
      w, h, m, link, m, link, m, link, m);
  g_autoptr (GError) error = NULL;
  GstElement *pipeline = gst_parse_launch (launch, &error);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstCaps *caps = NULL;
  GstBuffer *bufs[SOURCE_BUFFERS];
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  gint64 t0;
  double wall;

  g_assert_no_error (error);
  g_object_get (src, "caps", &caps, NULL);
  /* the accel elements make (or find) the shared context as they start */
  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  make_source_buffers (pipeline, caps, bufs);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);

  t0 = g_get_monotonic_time ();
  for (guint f = 0; f < frames; f++)
    g_assert_cmpint (gst_app_src_push_buffer (GST_APP_SRC (src),
                         gst_buffer_ref (bufs[f % SOURCE_BUFFERS])),
        ==, GST_FLOW_OK);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  msg = gst_bus_timed_pop_filtered (
      bus, GST_CLOCK_TIME_NONE, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  wall = (g_get_monotonic_time () - t0) * 1e-6;
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
    {
      GError *err = NULL;
      gst_message_parse_error (msg, &err, NULL);
      g_error ("%s", err->message);
    }

  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  for (guint i = 0; i < SOURCE_BUFFERS; i++)
    gst_buffer_unref (bufs[i]);
  gst_caps_unref (caps);
  gst_object_unref (src);
  gst_object_unref (pipeline);
  return wall;
}

/* microseconds per frame in the steady state */
static double
chain (int w, int h, guint frames, gboolean meta, gboolean queues)
{
  double once = run_chain (w, h, frames, meta, queues);
  double twice = run_chain (w, h, 2 * frames, meta, queues);

  return (twice - once) * 1e6 / frames;
}

/* seconds for @frames system memory frames from appsrc through @line into
 * fakesink */
static double
run_system_line (int w, int h, guint frames, const char *line)
{
  g_autofree gchar *launch = g_strdup_printf (
      "appsrc name=src format=time caps=\"video/x-raw,format=RGBA,width=%d,"
      "height=%d,framerate=0/1\" ! %s ! fakesink sync=false",
      w, h, line);
  g_autoptr (GError) error = NULL;
  GstElement *pipeline = gst_parse_launch (launch, &error);
  GstElement *src;
  GstBuffer *bufs[SOURCE_BUFFERS];
  GstBus *bus;
  GstMessage *msg;
  gsize size = (gsize)w * h * 4;
  gint64 t0;
  double wall;

  g_assert_no_error (error);
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  bus = gst_element_get_bus (pipeline);
  for (guint i = 0; i < SOURCE_BUFFERS; i++)
    {
      bufs[i] = gst_buffer_new_allocate (NULL, size, NULL);
      gst_buffer_memset (bufs[i], 0, 0x3c + i, size);
    }
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  t0 = g_get_monotonic_time ();
  for (guint f = 0; f < frames; f++)
    g_assert_cmpint (gst_app_src_push_buffer (GST_APP_SRC (src),
                         gst_buffer_ref (bufs[f % SOURCE_BUFFERS])),
        ==, GST_FLOW_OK);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  msg = gst_bus_timed_pop_filtered (
      bus, 300 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  wall = (g_get_monotonic_time () - t0) * 1e-6;
  if (!msg)
    g_error ("%s: no EOS within 300 s", line);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
    {
      GError *err = NULL;
      gst_message_parse_error (msg, &err, NULL);
      g_error ("%s: %s", line, err->message);
    }
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  for (guint i = 0; i < SOURCE_BUFFERS; i++)
    gst_buffer_unref (bufs[i]);
  gst_object_unref (src);
  gst_object_unref (pipeline);
  return wall;
}

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *)a, y = *(const double *)b;

  return (x > y) - (x < y);
}

#define FOUR_BLURS                                                             \
  "accelgaussianblur ! accelgaussianblur ! accelgaussianblur ! "               \
  "accelgaussianblur"
/* both download elements would pass CUDA memory through to fakesink */
#define TO_SYSTEM " ! video/x-raw"

/* the line a GStreamer user writes aims at the accelupload line's time
 * times this or less */
#define USER_LINE_TARGET 1.2

enum
{
  CU_BASE,
  CU,
  CU_FORCED,
  AC_BASE,
  AC,
  N_LINES
};

static const char *const user_line[N_LINES] = {
  [CU_BASE]
  = "cudaupload ! video/x-raw(memory:CUDAMemory) ! cudadownload" TO_SYSTEM,
  [CU] = "cudaupload ! " FOUR_BLURS " ! cudadownload" TO_SYSTEM,
  [CU_FORCED] = "cudaupload ! video/x-raw(memory:CUDAMemory) ! " FOUR_BLURS
                " ! cudadownload" TO_SYSTEM,
  [AC_BASE] = "accelupload ! acceldownload" TO_SYSTEM,
  [AC] = "accelupload ! " FOUR_BLURS " ! acceldownload" TO_SYSTEM,
};

/* microseconds per frame in the steady state of each line, the median of
 * three rounds; each round runs every line in turn, so that the host's
 * drift (its memcpy speed moves from one run to the next) falls on all of
 * them alike rather than on whichever ran last */
static void
system_lines (int w, int h, guint frames, double us[N_LINES])
{
  double runs[N_LINES][3];

  for (guint r = 0; r < G_N_ELEMENTS (runs[0]); r++)
    for (guint i = 0; i < N_LINES; i++)
      {
        double once = run_system_line (w, h, frames, user_line[i]);
        double twice = run_system_line (w, h, 2 * frames, user_line[i]);

        runs[i][r] = (twice - once) * 1e6 / frames;
      }
  for (guint i = 0; i < N_LINES; i++)
    {
      qsort (
          runs[i], G_N_ELEMENTS (runs[i]), sizeof runs[i][0], compare_doubles);
      us[i] = runs[i][1];
    }
}

/* the cudaupload line against the accelupload line: its ratio */
static double
user_lines (const char *name, int w, int h, guint frames)
{
  double us[N_LINES];

  system_lines (w, h, frames, us);
  g_print ("%-6s %-26s %9.1f %9.1f %9.1f %8.3f\n", name,
      "cudaupload ! 4 ! cudadownload", us[CU], us[CU_BASE],
      us[CU] - us[CU_BASE], us[CU] / us[AC]);
  g_print ("%-6s %-26s %9.1f %9.1f %9.1f %8.3f\n", name,
      "  with CUDA memory caps", us[CU_FORCED], us[CU_BASE],
      us[CU_FORCED] - us[CU_BASE], us[CU_FORCED] / us[AC]);
  g_print ("%-6s %-26s %9.1f %9.1f %9.1f %8.3f\n", name,
      "accelupload ! 4 ! accel...", us[AC], us[AC_BASE], us[AC] - us[AC_BASE],
      1.0);
  return us[CU] / us[AC];
}

int
main (int argc, char **argv)
{
  const struct
  {
    const char *name;
    int w, h;
    guint frames;
  } sizes[] = {
    { "360p", 640, 360, 4000 },
    { "1080p", 1920, 1080, 2000 },
    { "4K", 3840, 2160, 800 },
  };
  double scale = argc > 1 ? g_ascii_strtod (argv[1], NULL) : 1.0;
  gboolean lines_only = g_getenv ("BENCH_ELEMENTS_LINES_ONLY") != NULL;
  int n = 0, met = 0;

  gst_init (&argc, &argv);
  if (cudaGetDeviceCount (&n) != cudaSuccess || n == 0)
    {
      g_printerr ("no GPU: skipped\n");
      return 77;
    }
  g_print ("4-element accel chain (blur, sobel, box, median), RGBA, CUDA "
           "memory from appsrc to fakesink sync=false; us per frame\n");
  g_print ("%-6s %-7s %9s %9s %9s %9s %8s %8s %8s\n", "size", "threads",
      "kernels", "as graph", "meta on", "meta off", "k/on", "k/off", "off/on");
  for (guint i = 0; i < G_N_ELEMENTS (sizes) && !lines_only; i++)
    for (int queues = 0; queues < 2; queues++)
      {
        guint frames = MAX (20, (guint)(sizes[i].frames * scale));
        double k = kernels_alone (sizes[i].w, sizes[i].h, frames, FALSE);
        double kg = kernels_alone (sizes[i].w, sizes[i].h, frames, TRUE);
        double on = chain (sizes[i].w, sizes[i].h, frames, TRUE, queues);
        double off = chain (sizes[i].w, sizes[i].h, frames, FALSE, queues);

        g_print ("%-6s %-7s %9.1f %9.1f %9.1f %9.1f %8.3f %8.3f %8.3f\n",
            sizes[i].name, queues ? "queues" : "one", k, kg, on, off, k / on,
            k / off, off / on);
      }

  if (!gst_element_factory_find ("cudaupload"))
    {
      g_print ("\nno cudaupload (GStreamer's nvcodec plugin): the user's "
               "line is not measured\n");
      return 0;
    }
  g_print ("\nfour accelgaussianblur (sigma 1), RGBA system memory from "
           "appsrc to fakesink sync=false; us per frame, the median of three "
           "rounds of the lines in turn; ratio: over the accelupload line\n");
  g_print ("%-6s %-26s %9s %9s %9s %8s\n", "size", "line", "us", "up+down",
      "added", "ratio");
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    met += user_lines (sizes[i].name, sizes[i].w, sizes[i].h,
               MAX (20, (guint)(sizes[i].frames / 8 * scale)))
           <= USER_LINE_TARGET;
  g_print ("\ntarget: the cudaupload line within %.1fx of the accelupload "
           "line: %d of %u sizes met\n",
      USER_LINE_TARGET, met, (guint)G_N_ELEMENTS (sizes));
  return 0;
}
