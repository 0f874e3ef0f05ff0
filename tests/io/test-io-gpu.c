/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the io plugin's GPU paths against its host paths: pattern-source frames,
 * png-sink files, raw files, application push/pull and the GStreamer
 * bridge (in GStreamer's CUDA memory where the description takes it) give
 * the same bytes on a GPU as on the host */
#include "test-io.h"

#include <malloc.h>
#include <string.h>
#ifdef ACCEL_IO_HAVE_GST
#include <gst/gst.h>
#endif

typedef struct
{
  const char *pattern;
  const char *format;
} PatternCase;

static void
set_enum (gpointer object, const char *property, const char *nick)
{
  GParamSpec *pspec
      = g_object_class_find_property (G_OBJECT_GET_CLASS (object), property);
  GEnumValue *value
      = g_enum_get_value_by_nick (G_PARAM_SPEC_ENUM (pspec)->enum_class, nick);

  g_assert_nonnull (value);
  g_object_set (object, property, value->value, NULL);
}

static gchar *
pattern_digest (const PatternCase *pc, AccelDevice *device)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("pattern");
  AccelStage *src = accel_test_stage (g, "io.pattern-source", "src");
  AccelStage *sink = accel_test_stage (g, "core.checksum-sink", "sink");

  accel_graph_set_device (g, device);
  set_enum (src, "pattern", pc->pattern);
  /* more frames than the noise pattern's staging slots */
  g_object_set (src, "format", pc->format, "width", 67, "height", 41,
      "num-buffers", (gint64)8, "seed", 3u, NULL);
  test_link (g, "src", "sink");
  test_run (g);
  g_assert_cmpuint (
      accel_stage_is_host (src), ==, accel_device_is_host (device));
  g_assert_cmpuint (accel_checksum_sink_get_n_received (sink), ==, 8);
  return test_digest (sink);
}

static void
test_pattern (gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  AccelDevice *gpu = accel_device_get_cuda (0, &error);
  g_autofree gchar *host = NULL, *cuda = NULL;

  g_assert_no_error (error);
  host = pattern_digest (data, accel_device_get_host ());
  cuda = pattern_digest (data, gpu);
  g_assert_cmpstr (cuda, ==, host);
}

#ifdef ACCEL_IO_HAVE_PNG
static gchar *
write_pngs (AccelDevice *device, const char *format)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("png");
  gchar *dir = test_dir_new ();
  g_autofree gchar *location = g_build_filename (dir, "f%03d.png", NULL);
  AccelStage *src = accel_test_stage (g, "io.pattern-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.png-sink", "png");

  accel_graph_set_device (g, device);
  set_enum (src, "pattern", "noise");
  g_object_set (src, "format", format, "width", 45, "height", 30, "num-buffers",
      (gint64)5, NULL);
  g_object_set (sink, "location", location, NULL);
  test_link (g, "src", "png");
  test_run (g);
  return dir;
}

static void
test_png (gconstpointer data)
{
  const char *format = data;
  g_autoptr (GError) error = NULL;
  AccelDevice *gpu = accel_device_get_cuda (0, &error);
  g_autofree gchar *host = NULL, *cuda = NULL;

  g_assert_no_error (error);
  host = write_pngs (accel_device_get_host (), format);
  cuda = write_pngs (gpu, format);
  g_assert_cmpuint (test_dir_count (cuda), ==, 5);
  for (guint s = 0; s < 5; s++)
    {
      g_autofree gchar *name = g_strdup_printf ("f%03u.png", s);
      g_autofree gchar *a = g_build_filename (host, name, NULL);
      g_autofree gchar *b = g_build_filename (cuda, name, NULL);
      g_autofree gchar *da = NULL, *db = NULL;
      gsize la, lb;
      g_assert_true (g_file_get_contents (a, &da, &la, NULL));
      g_assert_true (g_file_get_contents (b, &db, &lb, NULL));
      g_assert_cmpmem (da, la, db, lb);
    }
  test_dir_remove (host);
  test_dir_remove (cuda);
}
#endif

/* raw-file-source -> core.scale -> raw-file-sink */
static GBytes *
raw_round_trip (AccelDevice *device, const char *dir, const char *in_path)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("raw");
  g_autofree gchar *out_path = g_build_filename (dir, "out.raw", NULL);
  AccelStage *src = accel_test_stage (g, "io.raw-file-source", "src");
  AccelStage *scale = accel_test_stage (g, "core.scale", "scale");
  AccelStage *sink = accel_test_stage (g, "io.raw-file-sink", "sink");
  gchar *data;
  gsize size;

  accel_graph_set_device (g, device);
  g_object_set (src, "location", in_path, "shape", "33x17", "dtype", "u8",
      "loop", TRUE, "num-buffers", (gint64)9, NULL);
  g_object_set (scale, "scale", 2.0f, "offset", 3.0f, NULL);
  g_object_set (sink, "location", out_path, NULL);
  test_link (g, "src", "scale");
  test_link (g, "scale", "sink");
  test_run (g);
  g_assert_true (g_file_get_contents (out_path, &data, &size, NULL));
  g_assert_cmpint (g_unlink (out_path), ==, 0);
  return g_bytes_new_take (data, size);
}

static void
test_raw (void)
{
  g_autoptr (GError) error = NULL;
  AccelDevice *gpu = accel_device_get_cuda (0, &error);
  g_autofree gchar *dir = test_dir_new ();
  g_autofree gchar *in_path = g_build_filename (dir, "in.raw", NULL);
  g_autoptr (GRand) rand = g_rand_new_with_seed (5);
  g_autofree guint8 *in = g_malloc (33 * 17 * 4);
  g_autoptr (GBytes) host = NULL, cuda = NULL;

  g_assert_no_error (error);
  for (guint i = 0; i < 33 * 17 * 4; i++)
    in[i] = (guint8)g_rand_int_range (rand, 0, 256);
  g_assert_true (g_file_set_contents (in_path, (gchar *)in, 33 * 17 * 4, NULL));
  host = raw_round_trip (accel_device_get_host (), dir, in_path);
  cuda = raw_round_trip (gpu, dir, in_path);
  g_assert_cmpuint (g_bytes_get_size (host), ==, 33 * 17 * 9);
  g_assert_true (g_bytes_equal (host, cuda));
  test_dir_remove (dir);
}

/* app-source -> app-sink on the GPU: host buffers in, host buffers out */
static gpointer
push_thread (gpointer data)
{
  AccelStage *src = data;
  gint64 dims[1] = { 1000 };
  AccelType type;
  gboolean ended;

  accel_type_init_tensor (&type, ACCEL_DTYPE_U8, ACCEL_MEMORY_HOST, 1, dims);
  for (guint i = 0; i < 12; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (AccelBuffer) buf
          = accel_buffer_new (accel_device_get_host (), &type, &error);
      gboolean ok = FALSE;

      memset (accel_buffer_get_data (buf), (int)i + 1, 1000);
      g_signal_emit_by_name (src, "push-buffer", buf, &error, &ok);
      g_assert_no_error (error);
      g_assert_true (ok);
    }
  g_signal_emit_by_name (src, "end-of-stream", &ended);
  return NULL;
}

static void
test_app (void)
{
  g_autoptr (GError) error = NULL;
  AccelDevice *gpu = accel_device_get_cuda (0, &error);
  g_autoptr (AccelGraph) g = accel_graph_new ("app");
  AccelStage *src = accel_test_stage (g, "io.app-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.app-sink", "sink");
  GThread *pusher;

  g_assert_no_error (error);
  accel_graph_set_device (g, gpu);
  g_object_set (src, "shape", "1000", NULL);
  test_link (g, "src", "sink");
  g_assert_true (accel_graph_start (g, &error));
  g_assert_no_error (error);
  pusher = g_thread_new ("pusher", push_thread, src);
  for (guint i = 0; i < 12; i++)
    {
      g_autoptr (AccelBuffer) buf = NULL;
      const guint8 *p;
      g_signal_emit_by_name (
          sink, "pull-buffer", (gint64)(10 * G_USEC_PER_SEC), &buf);
      g_assert_nonnull (buf);
      g_assert_cmpint (
          accel_buffer_peek_type (buf)->memory, ==, ACCEL_MEMORY_PINNED);
      p = accel_buffer_get_data (buf);
      for (guint j = 0; j < 1000; j++)
        g_assert_cmpuint (p[j], ==, i + 1);
    }
  g_thread_join (pusher);
  g_assert_true (accel_graph_wait (g, 10 * G_USEC_PER_SEC, &error));
  g_assert_no_error (error);
  accel_graph_stop (g);
}

#ifdef ACCEL_IO_HAVE_GST
static gboolean
have_elements (const char *const *names)
{
  for (guint i = 0; names[i]; i++)
    {
      GstElementFactory *f = gst_element_factory_find (names[i]);
      if (!f)
        {
          g_autofree gchar *msg
              = g_strdup_printf ("GStreamer element %s is missing", names[i]);
          g_test_skip (msg);
          return FALSE;
        }
      gst_object_unref (f);
    }
  return TRUE;
}

static gchar *
get_memory (AccelStage *stage)
{
  gchar *memory = NULL;

  g_object_get (stage, "memory", &memory, NULL);
  return memory;
}

#define SINK_FRAMES 6
#define SINK_W 67
#define SINK_H 41

/* noise (every frame different) of @format into io.gst-sink, whose
 * description is @before and a filesink that appends every frame's bytes to
 * a file; @memory gets what the appsrc handed GStreamer */
static GBytes *
gst_sink_bytes (
    AccelDevice *device, const char *format, const char *before, gchar **memory)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("gst-sink");
  g_autofree gchar *dir = test_dir_new ();
  g_autofree gchar *path = g_build_filename (dir, "frames.raw", NULL);
  g_autofree gchar *full = NULL;
  AccelStage *src = accel_test_stage (g, "io.pattern-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.gst-sink", "out");
  gchar *data;
  gsize size;

  accel_graph_set_device (g, device);
  set_enum (src, "pattern", "noise");
  g_object_set (src, "format", format, "width", SINK_W, "height", SINK_H,
      "num-buffers", (gint64)SINK_FRAMES, "seed", 9u, NULL);
  full = g_strdup_printf ("%sfilesink location=%s", before, path);
  g_object_set (sink, "description", full, NULL);
  test_link (g, "src", "out");
  test_run (g);
  g_assert_cmpuint (
      accel_stage_is_host (sink), ==, accel_device_is_host (device));
  *memory = get_memory (sink);
  g_assert_true (g_file_get_contents (path, &data, &size, NULL));
  test_dir_remove (dir);
  return g_bytes_new_take (data, size);
}

/* device images into a description that takes CUDA memory (cudadownload):
 * the appsrc negotiates CUDA memory and the pixels arrive exactly; RGBA and
 * BGRA rows are tightly packed in system memory, so the file holds the
 * frames as the host run writes them */
static void
test_gst_sink_cuda (gconstpointer data)
{
  static const char *const need[] = { "cudadownload", "filesink", NULL };
  const char *format = data;
  g_autoptr (GError) error = NULL;
  AccelDevice *gpu = accel_device_get_cuda (0, &error);
  g_autoptr (GBytes) host = NULL, cuda = NULL;
  g_autofree gchar *host_memory = NULL, *cuda_memory = NULL;

  g_assert_no_error (error);
  if (!have_elements (need))
    return;
  host = gst_sink_bytes (accel_device_get_host (), format, "", &host_memory);
  cuda = gst_sink_bytes (
      gpu, format, "cudadownload ! video/x-raw ! ", &cuda_memory);
  g_assert_cmpstr (host_memory, ==, "system");
  g_assert_cmpstr (cuda_memory, ==, "cuda");
  g_assert_cmpuint (
      g_bytes_get_size (host), ==, SINK_W * SINK_H * 4 * SINK_FRAMES);
  g_assert_true (g_bytes_equal (host, cuda));
}

/* a description that takes anything (filesink) or a format GStreamer's
 * CUDA memory does not hold (GRAY8) gets system memory: on a GPU in
 * page-locked frames, which the copy out of the device fills by DMA */
static void
test_gst_sink_system (gconstpointer data)
{
  static const char *const need[] = { "filesink", NULL };
  const char *format = data;
  g_autoptr (GError) error = NULL;
  AccelDevice *gpu = accel_device_get_cuda (0, &error);
  g_autoptr (GBytes) host = NULL, cuda = NULL;
  g_autofree gchar *host_memory = NULL, *cuda_memory = NULL;

  g_assert_no_error (error);
  if (!have_elements (need))
    return;
  /* the page-locked frames from the heap, filled with garbage: GStreamer
   * pads GRAY8 rows to 4 bytes, and the file holds the padding too */
  mallopt (M_MMAP_THRESHOLD, 32 << 20);
  mallopt (M_PERTURB, 0x5a);
  host = gst_sink_bytes (accel_device_get_host (), format, "", &host_memory);
  cuda = gst_sink_bytes (gpu, format, "", &cuda_memory);
  mallopt (M_PERTURB, 0);
  g_assert_cmpstr (host_memory, ==, "system");
  g_assert_cmpstr (cuda_memory, ==, "page-locked");
  g_assert_true (g_bytes_equal (host, cuda));
}

#define SOURCE_FRAMES 7

/* io.gst-source on the GPU -> checksum; @memory gets what the appsink got */
static gchar *
gst_source_digest (const char *description, gchar **memory)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("gst-source");
  AccelStage *src = accel_test_stage (g, "io.gst-source", "src");
  AccelStage *sink = accel_test_stage (g, "core.checksum-sink", "sink");

  accel_graph_set_device (g, accel_device_get_cuda (0, &error));
  g_assert_no_error (error);
  g_object_set (src, "description", description, NULL);
  test_link (g, "src", "sink");
  test_run (g);
  g_assert_false (accel_stage_is_host (src));
  g_assert_cmpuint (
      accel_checksum_sink_get_n_received (sink), ==, SOURCE_FRAMES);
  *memory = get_memory (src);
  return test_digest (sink);
}

/* cudaupload hands the appsink CUDA memory, copied on the device into the
 * engine's buffers: exactly the frames the same description gives through
 * system memory, which videotestsrc renders into the page-locked pool the
 * appsink offers */
static void
test_gst_source_cuda (gconstpointer data)
{
  static const char *const need[] = { "videotestsrc", "cudaupload", NULL };
  const char *caps = data;
  g_autofree gchar *system = NULL, *uploaded = NULL;
  g_autofree gchar *system_memory = NULL, *cuda_memory = NULL;
  g_autofree gchar *a = NULL, *b = NULL;

  if (!have_elements (need))
    return;
  system = g_strdup_printf (
      "videotestsrc num-buffers=%d pattern=ball ! %s", SOURCE_FRAMES, caps);
  /* cudaupload would rather pass system memory through */
  uploaded = g_strdup_printf (
      "%s ! cudaupload ! video/x-raw(memory:CUDAMemory)", system);
  a = gst_source_digest (system, &system_memory);
  b = gst_source_digest (uploaded, &cuda_memory);
  g_assert_cmpstr (system_memory, ==, "page-locked");
  g_assert_cmpstr (cuda_memory, ==, "cuda");
  g_assert_cmpstr (b, ==, a);
}
#endif

int
main (int argc, char **argv)
{
  static const PatternCase cases[] = {
    { "smpte", "RGBA8" },
    { "smpte", "GRAY8" },
    { "gradient", "BGRA8" },
    { "gradient", "RGBAF32" },
    { "checkerboard", "RGBA8" },
    { "noise", "RGBA8" },
    { "noise", "GRAY8" },
    { "noise", "RGBAF32" },
  };

  g_test_init (&argc, &argv, NULL);
  accel_test_require_gpu ();
#ifdef ACCEL_IO_HAVE_GST
  /* the plugin initialises GStreamer too; the tests look for elements */
  gst_init (NULL, NULL);
#endif

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree gchar *path = g_strdup_printf (
          "/io-gpu/pattern-source/%s/%s", cases[i].pattern, cases[i].format);
      g_test_add_data_func (path, &cases[i], test_pattern);
    }
#ifdef ACCEL_IO_HAVE_PNG
  g_test_add_data_func ("/io-gpu/png-sink/RGBA8", "RGBA8", test_png);
  g_test_add_data_func ("/io-gpu/png-sink/GRAY8", "GRAY8", test_png);
#endif
  g_test_add_func ("/io-gpu/raw-file/round-trip", test_raw);
  g_test_add_func ("/io-gpu/app/push-pull", test_app);
#ifdef ACCEL_IO_HAVE_GST
  g_test_add_data_func (
      "/io-gpu/gst-sink/cuda-memory/RGBA8", "RGBA8", test_gst_sink_cuda);
  g_test_add_data_func (
      "/io-gpu/gst-sink/cuda-memory/BGRA8", "BGRA8", test_gst_sink_cuda);
  g_test_add_data_func (
      "/io-gpu/gst-sink/system-memory/RGBA8", "RGBA8", test_gst_sink_system);
  g_test_add_data_func (
      "/io-gpu/gst-sink/system-memory/GRAY8", "GRAY8", test_gst_sink_system);
  g_test_add_data_func ("/io-gpu/gst-source/cuda-memory/RGBA",
      "video/x-raw,format=RGBA,width=67,height=41", test_gst_source_cuda);
  g_test_add_data_func ("/io-gpu/gst-source/cuda-memory/NV12",
      "video/x-raw,format=NV12,width=66,height=42", test_gst_source_cuda);
#endif
  return g_test_run ();
}
