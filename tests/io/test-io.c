/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the io plugin's stages on the host backend: patterns written to PNG and
 * read back, raw files through a transform, push and pull from the
 * application, the GStreamer bridge both ways, and their errors */
#include "test-io.h"
#include "core/pattern.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef ACCEL_IO_HAVE_GST
#include <gst/gst.h>
#endif

static void
set_enum (gpointer object, const char *property, const char *nick)
{
  GParamSpec *pspec
      = g_object_class_find_property (G_OBJECT_GET_CLASS (object), property);
  GEnumValue *value;

  g_assert_nonnull (pspec);
  value
      = g_enum_get_value_by_nick (G_PARAM_SPEC_ENUM (pspec)->enum_class, nick);
  g_assert_nonnull (value);
  g_object_set (object, property, value->value, NULL);
}

static void
test_registered (void)
{
  static const char *const kinds[] = {
    "io.pattern-source",
    "io.raw-file-source",
    "io.raw-file-sink",
    "io.app-source",
    "io.app-sink",
#ifdef ACCEL_IO_HAVE_PNG
    "io.png-sink",
#endif
#ifdef ACCEL_IO_HAVE_GST
    "io.gst-source",
    "io.gst-sink",
#endif
  };
  AccelRegistry *registry = accel_registry_get_default ();

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree gchar *text
          = accel_registry_describe (registry, kinds[i], &error);
      g_assert_no_error (error);
      g_assert_nonnull (strstr (text, kinds[i]));
    }
}

/* pattern-source: noise is the same for a seed and frame, and only then */

static gchar *
noise_digest (guint seed, guint64 *n_frames)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("noise");
  AccelStage *src = accel_test_stage (g, "io.pattern-source", "src");
  AccelStage *sink = accel_test_stage (g, "core.checksum-sink", "sink");
  g_auto (GStrv) sums = NULL;

  set_enum (src, "pattern", "noise");
  g_object_set (src, "width", 33, "height", 17, "num-buffers", (gint64)3,
      "seed", seed, NULL);
  test_link (g, "src", "sink");
  test_run (g);
  sums = accel_checksum_sink_dup_checksums (sink);
  g_assert_cmpuint (g_strv_length (sums), ==, 3);
  g_assert_cmpstr (sums[0], !=, sums[1]);
  g_assert_cmpstr (sums[1], !=, sums[2]);
  *n_frames = accel_checksum_sink_get_n_received (sink);
  return test_digest (sink);
}

static void
test_noise_reproducible (void)
{
  guint64 n;
  g_autofree gchar *a = noise_digest (7, &n);
  g_autofree gchar *b = noise_digest (7, &n);
  g_autofree gchar *c = noise_digest (8, &n);

  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpstr (a, ==, b);
  g_assert_cmpstr (a, !=, c);
}

/* a frame's pts and duration, from the source's rate, reach the sink
 * through a transform too (it kept the pts and lost the duration, which
 * io.gst-sink then made up from its own rate) */
static void
test_pattern_timestamps (gconstpointer data)
{
  const char *through = data;
  g_autoptr (AccelGraph) g = accel_graph_new ("pts");
  AccelStage *src = accel_test_stage (g, "io.pattern-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.app-sink", "sink");

  g_object_set (src, "width", 8, "height", 2, "num-buffers", (gint64)3,
      "framerate", "25/1", NULL);
  g_object_set (sink, "max-buffers", 3, NULL);
  if (through)
    {
      accel_test_stage (g, through, "through");
      test_link (g, "src", "through");
      test_link (g, "through", "sink");
    }
  else
    test_link (g, "src", "sink");
  test_run (g);
  for (gint64 i = 0; i < 3; i++)
    {
      AccelBuffer *buf = NULL;
      g_signal_emit_by_name (sink, "pull-buffer", (gint64)0, &buf);
      g_assert_nonnull (buf);
      g_assert_cmpuint (accel_buffer_get_sequence (buf), ==, i);
      g_assert_cmpint (accel_buffer_get_pts (buf), ==, i * 40000000);
      g_assert_cmpint (accel_buffer_get_duration (buf), ==, 40000000);
      accel_buffer_unref (buf);
    }
}

/* a frame's time is exact at rates whose frames last no whole number of
 * ns (it was the sequence times the rounded duration, 667 ns early by
 * frame 1000 at 30000/1001), and none where a gint64 cannot hold it (it
 * overflowed) */
static void
test_pattern_timestamps_exact (void)
{
  static const struct
  {
    const char *rate;
    gint64 pts[3]; /* frames 0, 1 and 1000 */
  } cases[] = {
    { "30000/1001", { 0, 33366666, 33366666666 } },
    { "1/2147483647", { 0, 2147483647000000000, -1 } },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr (AccelGraph) g = accel_graph_new ("pts");
      AccelStage *src = accel_test_stage (g, "io.pattern-source", "src");
      AccelStage *sink = accel_test_stage (g, "io.app-sink", "sink");

      g_object_set (src, "width", 2, "height", 2, "num-buffers", (gint64)1001,
          "framerate", cases[c].rate, NULL);
      g_object_set (sink, "max-buffers", 1001, NULL);
      test_link (g, "src", "sink");
      test_run (g);
      for (guint64 i = 0; i < 1001; i++)
        {
          g_autoptr (AccelBuffer) buf = NULL;
          int k = i == 0 ? 0 : i == 1 ? 1 : i == 1000 ? 2 : -1;

          g_signal_emit_by_name (sink, "pull-buffer", (gint64)0, &buf);
          g_assert_nonnull (buf);
          if (k >= 0)
            g_assert_cmpint (accel_buffer_get_pts (buf), ==, cases[c].pts[k]);
        }
    }
}

static void
test_pattern_bad_format (void)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("bad");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (g, "io.pattern-source", "bars");

  accel_test_stage (g, "core.null-sink", "sink");
  g_object_set (src, "format", "NV12", NULL);
  test_link (g, "bars", "sink");
  g_assert_false (accel_graph_prepare (g, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (error->message, ==,
      "stage 'bars' (io.pattern-source): format 'NV12' is not one of "
      "RGBA8, BGRA8, GRAY8, RGBAF32");
}

#ifdef ACCEL_IO_HAVE_PNG

typedef struct
{
  guint8 r, g, b;
} Rgb;

/* SMPTE bars of a 70x48 image, as docs/io.md gives them: 7 bars of 10
 * pixels; rows 0-31 the bars, 32-35 the reversed bars, 36-47 -I, white, +Q
 * and black under the first five bars, the PLUGE under the sixth, black */
static const Rgb top_bars[7] = {
  { 191, 191, 191 },
  { 191, 191, 0 },
  { 0, 191, 191 },
  { 0, 191, 0 },
  { 191, 0, 191 },
  { 191, 0, 0 },
  { 0, 0, 191 },
};
static const Rgb middle_bars[7] = {
  { 0, 0, 191 },
  { 0, 0, 0 },
  { 191, 0, 191 },
  { 0, 0, 0 },
  { 0, 191, 191 },
  { 0, 0, 0 },
  { 191, 191, 191 },
};
static const struct
{
  guint x;
  Rgb c;
} bottom_row[] = {
  { 6, { 0, 33, 76 } },
  { 18, { 255, 255, 255 } },
  { 31, { 50, 0, 106 } },
  { 43, { 0, 0, 0 } },
  { 51, { 0, 0, 0 } },
  { 55, { 10, 10, 10 } },
  { 58, { 20, 20, 20 } },
  { 65, { 0, 0, 0 } },
};

static void
assert_rgba (const guint8 *pixels, guint width, guint x, guint y, Rgb c)
{
  const guint8 *p = pixels + ((gsize)y * width + x) * 4;

  g_assert_cmpuint (p[0], ==, c.r);
  g_assert_cmpuint (p[1], ==, c.g);
  g_assert_cmpuint (p[2], ==, c.b);
  g_assert_cmpuint (p[3], ==, 255);
}

/* a pattern into PNG files in @dir */
static void
write_pngs_into (const char *dir, const char *pattern, const char *format,
    gint width, gint height, gint64 n, const char *name)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("png");
  g_autofree gchar *location = g_build_filename (dir, name, NULL);
  AccelStage *src = accel_test_stage (g, "io.pattern-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.png-sink", "png");

  set_enum (src, "pattern", pattern);
  g_object_set (src, "format", format, "width", width, "height", height,
      "num-buffers", n, "square-size", 4, NULL);
  g_object_set (sink, "location", location, NULL);
  test_link (g, "src", "png");
  test_run (g);
}

/* a pattern into PNG files in a new directory, which it returns */
static gchar *
write_pngs (const char *pattern, const char *format, gint width, gint height,
    gint64 n, const char *name)
{
  gchar *dir = test_dir_new ();

  write_pngs_into (dir, pattern, format, width, height, n, name);
  return dir;
}

static guint8 *
read_png (const char *dir, const char *name, guint want_format,
    guint want_width, guint want_height)
{
  g_autofree gchar *path = g_build_filename (dir, name, NULL);
  guint width, height, format;
  guint8 *pixels = test_png_read (path, &width, &height, &format);

  g_assert_cmpuint (width, ==, want_width);
  g_assert_cmpuint (height, ==, want_height);
  g_assert_cmpuint (format, ==, want_format);
  return pixels;
}

static void
test_smpte_png (void)
{
  g_autofree gchar *dir
      = write_pngs ("smpte", "RGBA8", 70, 48, 3, "frame-%05d.png");

  g_assert_cmpuint (test_dir_count (dir), ==, 3);
  for (guint f = 0; f < 3; f++)
    {
      g_autofree gchar *name = g_strdup_printf ("frame-%05u.png", f);
      g_autofree guint8 *px = read_png (dir, name, PNG_FORMAT_RGBA, 70, 48);
      for (guint i = 0; i < 7; i++)
        {
          assert_rgba (px, 70, 10 * i + 5, 0, top_bars[i]);
          assert_rgba (px, 70, 10 * i + 5, 16, top_bars[i]);
          assert_rgba (px, 70, 10 * i, 31, top_bars[i]);
          assert_rgba (px, 70, 10 * i + 9, 31, top_bars[i]);
          assert_rgba (px, 70, 10 * i + 5, 32, middle_bars[i]);
          assert_rgba (px, 70, 10 * i + 5, 35, middle_bars[i]);
        }
      for (guint i = 0; i < G_N_ELEMENTS (bottom_row); i++)
        {
          assert_rgba (px, 70, bottom_row[i].x, 36, bottom_row[i].c);
          assert_rgba (px, 70, bottom_row[i].x, 47, bottom_row[i].c);
        }
    }
  test_dir_remove (dir);
}

static void
test_gradient_gray_png (void)
{
  g_autofree gchar *dir
      = write_pngs ("gradient", "GRAY8", 21, 11, 2, "g%d.png");
  g_autofree guint8 *px = read_png (dir, "g1.png", PNG_FORMAT_GRAY, 21, 11);

  g_assert_cmpuint (test_dir_count (dir), ==, 2);
  for (guint y = 0; y < 11; y++)
    for (guint x = 0; x < 21; x++)
      {
        guint r = x * 255 / 20, g = y * 255 / 10, b = 128;
        guint luma = (299 * r + 587 * g + 114 * b + 500) / 1000;
        g_assert_cmpuint (px[y * 21 + x], ==, luma);
      }
  test_dir_remove (dir);
}

static void
test_checkerboard_bgra_png (void)
{
  g_autofree gchar *dir
      = write_pngs ("checkerboard", "BGRA8", 16, 12, 1, "c-%03u.png");
  g_autofree guint8 *px = read_png (dir, "c-000.png", PNG_FORMAT_RGBA, 16, 12);

  for (guint y = 0; y < 12; y++)
    for (guint x = 0; x < 16; x++)
      {
        guint8 v = ((x / 4 + y / 4) & 1) ? 0 : 255;
        Rgb c = { v, v, v };
        assert_rgba (px, 16, x, y, c);
      }
  test_dir_remove (dir);
}

/* a name near the longest a directory takes (253 bytes of 255): the
 * image was written first to NAME.tmp, too long a name, and the run
 * failed; its mode is the umask's, as for any file opened by name */
static void
test_png_long_name (void)
{
  g_autofree gchar *stem = g_strnfill (248, 'a');
  g_autofree gchar *pattern = g_strconcat (stem, "%d.png", NULL);
  g_autofree gchar *name = g_strconcat (stem, "0.png", NULL);
  mode_t was = umask (022);
  g_autofree gchar *dir = write_pngs ("gradient", "GRAY8", 8, 4, 1, pattern);
  g_autofree gchar *path = g_build_filename (dir, name, NULL);
  g_autofree guint8 *px = read_png (dir, name, PNG_FORMAT_GRAY, 8, 4);
  GStatBuf st;

  umask (was);
  g_assert_cmpuint (test_dir_count (dir), ==, 1);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpuint (st.st_mode & 0777, ==, 0644);
  test_dir_remove (dir);
}

/* an image is written under a temporary name that says which host and
 * process write it, locked while it is: one that a process killed as it
 * wrote left behind, which no one holds locked, is removed by the next
 * sink that writes there (it stayed for good), and one held locked, or of
 * another host, is left. A writer whose process number is not seen here
 * (another PID namespace that shares the host's name and the directory)
 * holds its file locked all the same: it was taken for gone, and its file
 * removed as it wrote it */
static void
test_png_stale_temporary (void)
{
  g_autofree gchar *dir = test_dir_new ();
  g_autoptr (GString) host = g_string_new (NULL);
  g_autofree gchar *stale = NULL, *writing = NULL, *other = NULL;
  pid_t gone = fork ();
  int fd;

  g_assert_cmpint (gone, >=, 0);
  if (gone == 0)
    _exit (0);
  g_assert_cmpint (waitpid (gone, NULL, 0), ==, gone);
  /* the host's name as the names hold it, in full */
  for (const char *c = g_get_host_name (); *c; c++)
    g_string_append_c (
        host, g_ascii_isalnum (*c) || strchr ("-_.", *c) ? *c : '_');
  stale = g_strdup_printf (
      "%s/.accel-png-%s-%d-Ab12Cd", dir, host->str, (int)gone);
  writing = g_strdup_printf (
      "%s/.accel-png-%s-%d-Ef34Gh", dir, host->str, (int)gone);
  other = g_strdup_printf (
      "%s/.accel-png-%s.elsewhere-%d-Ab12Cd", dir, host->str, (int)gone);
  g_assert_true (g_file_set_contents (stale, "half an image", -1, NULL));
  g_assert_true (g_file_set_contents (writing, "half an image", -1, NULL));
  g_assert_true (g_file_set_contents (other, "half an image", -1, NULL));
  /* as its writer holds it */
  fd = g_open (writing, O_WRONLY | O_CLOEXEC, 0);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (flock (fd, LOCK_EX), ==, 0);

  write_pngs_into (dir, "gradient", "GRAY8", 8, 4, 1, "g%d.png");
  g_assert_false (g_file_test (stale, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (writing, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (other, G_FILE_TEST_EXISTS));
  /* and the image, with no file of its own left */
  g_assert_cmpuint (test_dir_count (dir), ==, 3);
  close (fd);
  test_dir_remove (dir);
}

/* names shorter than the temporary files' prefix, alone in the directory:
 * the look for stale files read past their end (the test "io-memcheck"
 * runs this under valgrind), and leaves them be */
static void
test_png_short_names (void)
{
  g_autofree gchar *dir = test_dir_new ();
  const char *const names[] = { "a", "bb" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree gchar *path = g_build_filename (dir, names[i], NULL);
      g_assert_true (g_file_set_contents (path, "", -1, NULL));
    }
  write_pngs_into (dir, "gradient", "GRAY8", 8, 4, 1, "g%d.png");
  g_assert_cmpuint (test_dir_count (dir), ==, 3);
  test_dir_remove (dir);
}

static void
test_png_bad_location (void)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("png");
  g_autoptr (GError) error = NULL;
  AccelStage *sink;

  accel_test_stage (g, "io.pattern-source", "src");
  sink = accel_test_stage (g, "io.png-sink", "shots");
  g_object_set (sink, "location", "shot.png", NULL);
  test_link (g, "src", "shots");
  g_assert_false (accel_graph_prepare (g, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_true (
      g_str_has_prefix (error->message, "stage 'shots' (io.png-sink): "
                                        "location 'shot.png' must hold"));
}

static void
test_png_bad_format (void)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("png");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (g, "io.pattern-source", "src");

  accel_test_stage (g, "io.png-sink", "shots");
  g_object_set (src, "format", "RGBAF32", NULL);
  test_link (g, "src", "shots");
  g_assert_false (accel_graph_prepare (g, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH);
  g_assert_cmpstr (error->message, ==,
      "stage 'shots' (io.png-sink) takes RGBA8, BGRA8 or GRAY8 images, not "
      "image<RGBAF32>[240x320]@device; its input 'in' comes from stage 'src' "
      "(io.pattern-source)");
}

#endif /* ACCEL_IO_HAVE_PNG */

/* raw files */

#define RAW_FRAMES 5
#define RAW_ROWS 16
#define RAW_COLS 24

static void
write_file (const char *path, gconstpointer data, gsize size)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (
      g_file_set_contents (path, (const gchar *)data, (gssize)size, &error));
  g_assert_no_error (error);
}

/* @size random bytes, or random small integers as floats with @as_f32 (exact
 * through a scale), written to @path */
static GBytes *
write_random_file (const char *path, gsize size, gboolean as_f32)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (42);
  guint8 *data = g_malloc (size);

  for (gsize i = 0; i < size; i++)
    data[i] = (guint8)g_rand_int_range (rand, 0, 256);
  if (as_f32)
    for (gsize i = 0; i < size / 4; i++)
      ((gfloat *)data)[i] = (gfloat)data[i * 4];
  write_file (path, data, size);
  return g_bytes_new_take (data, size);
}

static GBytes *
read_file (const char *path)
{
  g_autoptr (GError) error = NULL;
  gchar *data;
  gsize size;

  g_assert_true (g_file_get_contents (path, &data, &size, &error));
  g_assert_no_error (error);
  return g_bytes_new_take (data, size);
}

/* a graph whose prepare failed can be changed and prepared again: its
 * fixed parameters are held only once it is prepared (the sink's location
 * in a missing directory could not be corrected) */
static void
test_fixed_after_failed_prepare (void)
{
  g_autofree gchar *dir = test_dir_new ();
  g_autofree gchar *missing = g_build_filename (dir, "no", "out.raw", NULL);
  g_autofree gchar *out_path = g_build_filename (dir, "out.raw", NULL);
  g_autoptr (AccelGraph) g = accel_graph_new ("retry");
  g_autoptr (GError) error = NULL;
  g_autofree gchar *location = NULL;
  AccelStage *sink;

  g_object_set (accel_test_stage (g, "core.test-source", "src"), "num-buffers",
      (gint64)2, NULL);
  sink = accel_test_stage (g, "io.raw-file-sink", "sink");
  g_object_set (sink, "location", missing, NULL);
  test_link (g, "src", "sink");
  g_assert_false (accel_graph_prepare (g, &error));
  g_clear_error (&error);
  g_object_set (sink, "location", out_path, NULL);
  g_object_get (sink, "location", &location, NULL);
  g_assert_cmpstr (location, ==, out_path);
  g_assert_true (accel_graph_prepare (g, &error));
  g_assert_no_error (error);
  /* prepared, it holds */
  g_test_expect_message ("accel-stage", G_LOG_LEVEL_WARNING,
      "*'location' is fixed once the graph is prepared*");
  g_object_set (sink, "location", missing, NULL);
  g_test_assert_expected_messages ();
  test_run (g);
  g_assert_true (g_file_test (out_path, G_FILE_TEST_IS_REGULAR));
  test_dir_remove (dir);
}

/* a sink's file, an app-sink's pool, a pattern's frame rate and the
 * GStreamer description (with the caps' frame rate) of io.gst-sink and
 * io.gst-source are chosen as the graph is prepared or started, so their
 * parameters are fixed then:
 * a change after is refused by accel_stage_set_param_async () and, with a
 * warning, by g_object_set (), and a run writes where it was told first (a
 * change was accepted, read back, and never applied) */
static void
test_parameters_fixed (void)
{
  static const struct
  {
    const char *kind, *prop;
    const char *first, *moved; /* a file in the test's directory, or a
                                * string; NULL: max-buffers 8 */
    guint n_files;
    const char *description; /* a GStreamer stage's first */
  } cases[] = {
    { "core.checksum-sink", "location", "first.sum", "moved.sum", 1 },
    { "io.png-sink", "location", "first-%03d.png", "moved-%03d.png", 2 },
    { "io.app-sink", "max-buffers", NULL, NULL, 0 },
    { "io.pattern-source", "framerate", "30/1", "10/1", 0 },
#ifdef ACCEL_IO_HAVE_GST
    { "io.gst-sink", "description", "fakesink", "fakesink name=moved", 0,
        "fakesink" },
    { "io.gst-sink", "framerate", "30/1", "10/1", 0, "fakesink" },
    { "io.gst-source", "description",
        "videotestsrc num-buffers=2 ! video/x-raw,format=RGBA,width=8,height=4",
        "videotestsrc num-buffers=9 ! video/x-raw,format=GRAY8", 0, NULL },
#endif
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree gchar *dir = test_dir_new ();
      g_autoptr (AccelGraph) g = accel_graph_new ("fixed");
      g_autoptr (GError) error = NULL;
      g_auto (GValue) value = G_VALUE_INIT, before = G_VALUE_INIT;
      g_auto (GValue) after = G_VALUE_INIT;
      gboolean source = g_str_has_suffix (cases[i].kind, "-source");
      gboolean gst_source = g_str_equal (cases[i].kind, "io.gst-source");
      AccelStage *src = accel_test_stage (
          g, source ? cases[i].kind : "core.test-source", "src");
      AccelStage *sink = accel_test_stage (
          g, source ? "core.null-sink" : cases[i].kind, "sink");
      AccelStage *stage = source ? src : sink;
      GParamSpec *pspec;

      g_test_message ("%s %s", cases[i].kind, cases[i].prop);
      if (!gst_source)
        g_object_set (src, "format", "RGBA8", "width", 8, "height", 4,
            "num-buffers", (gint64)2, NULL);
      if (cases[i].description)
        g_object_set (stage, "description", cases[i].description, NULL);
      pspec = g_object_class_find_property (
          G_OBJECT_GET_CLASS (stage), cases[i].prop);
      g_assert_nonnull (pspec);
      g_value_init (&value, pspec->value_type);
      if (cases[i].n_files > 0)
        {
          g_autofree gchar *first
              = g_build_filename (dir, cases[i].first, NULL);
          g_object_set (stage, cases[i].prop, first, NULL);
          g_value_take_string (
              &value, g_build_filename (dir, cases[i].moved, NULL));
        }
      else if (cases[i].first)
        {
          g_object_set (stage, cases[i].prop, cases[i].first, NULL);
          g_value_set_string (&value, cases[i].moved);
        }
      else
        g_value_set_uint (&value, 8);
      test_link (g, "src", "sink");
      g_assert_true (accel_graph_prepare (g, &error));
      g_assert_no_error (error);

      g_assert_true (pspec->flags & ACCEL_PARAM_FIXED);
      g_value_init (&before, pspec->value_type);
      g_object_get_property (G_OBJECT (stage), cases[i].prop, &before);
      g_assert_false (
          accel_stage_set_param_async (stage, cases[i].prop, &value));
      g_test_expect_message ("accel-stage", G_LOG_LEVEL_WARNING,
          "*'" /* the property */ "*' is fixed once the graph is prepared*");
      g_object_set_property (G_OBJECT (stage), cases[i].prop, &value);
      g_test_assert_expected_messages ();
      g_value_init (&after, pspec->value_type);
      g_object_get_property (G_OBJECT (stage), cases[i].prop, &after);
      g_assert_cmpint (g_param_values_cmp (pspec, &before, &after), ==, 0);

      if (cases[i].n_files > 0)
        {
          test_run (g);
          /* every file where the location said as the graph was prepared */
          g_assert_cmpuint (test_dir_count (dir), ==, cases[i].n_files);
        }
      test_dir_remove (dir);
    }
}

/* raw-file-source -> core.scale -> raw-file-sink against the host
 * reference, for u8 and f32 tensors */
static void
test_raw_round_trip (gconstpointer data)
{
  const char *dtype = data;
  gboolean is_f32 = g_str_equal (dtype, "f32");
  gsize elem = is_f32 ? 4 : 1;
  gsize frame = RAW_ROWS * RAW_COLS * elem;
  g_autofree gchar *dir = test_dir_new ();
  g_autofree gchar *in_path = g_build_filename (dir, "in.raw", NULL);
  g_autofree gchar *out_path = g_build_filename (dir, "out.raw", NULL);
  g_autoptr (GBytes) in = NULL, out = NULL;
  g_autofree guint8 *expected = g_malloc (frame * RAW_FRAMES);
  g_autoptr (AccelGraph) g = accel_graph_new ("raw");
  AccelStage *src = accel_test_stage (g, "io.raw-file-source", "src");
  AccelStage *scale = accel_test_stage (g, "core.scale", "scale");
  AccelStage *sink = accel_test_stage (g, "io.raw-file-sink", "sink");
  g_autofree gchar *shape = g_strdup_printf ("%dx%d", RAW_ROWS, RAW_COLS);

  in = write_random_file (in_path, frame * RAW_FRAMES, is_f32);
  g_object_set (src, "location", in_path, "shape", shape, "dtype", dtype, NULL);
  g_object_set (scale, "scale", 2.0f, "offset", 1.0f, NULL);
  g_object_set (sink, "location", out_path, NULL);
  test_link (g, "src", "scale");
  test_link (g, "scale", "sink");
  test_run (g);

  if (is_f32)
    accel_scale_f32_host (g_bytes_get_data (in, NULL), (gfloat *)expected,
        RAW_ROWS * RAW_COLS * RAW_FRAMES, 2.0f, 1.0f);
  else
    accel_scale_u8_host (g_bytes_get_data (in, NULL), expected,
        RAW_ROWS * RAW_COLS * RAW_FRAMES, 2.0f, 1.0f);
  out = read_file (out_path);
  g_assert_cmpmem (g_bytes_get_data (out, NULL), g_bytes_get_size (out),
      expected, frame * RAW_FRAMES);
  test_dir_remove (dir);
}

/* a looping source starts over; a trailing part frame is left out */
static void
test_raw_loop (void)
{
  g_autofree gchar *dir = test_dir_new ();
  g_autofree gchar *in_path = g_build_filename (dir, "in.raw", NULL);
  g_autofree gchar *out_path = g_build_filename (dir, "out.raw", NULL);
  g_autoptr (GBytes) in = write_random_file (in_path, 3 * 10 + 4, FALSE);
  g_autoptr (GBytes) out = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("loop");
  AccelStage *src = accel_test_stage (g, "io.raw-file-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.raw-file-sink", "sink");
  const guint8 *want = g_bytes_get_data (in, NULL);
  const guint8 *have;

  g_object_set (src, "location", in_path, "shape", "10", "loop", TRUE,
      "num-buffers", (gint64)7, NULL);
  g_object_set (sink, "location", out_path, NULL);
  test_link (g, "src", "sink");
  test_run (g);
  out = read_file (out_path);
  g_assert_cmpuint (g_bytes_get_size (out), ==, 70);
  have = g_bytes_get_data (out, NULL);
  for (guint f = 0; f < 7; f++)
    g_assert_cmpmem (have + f * 10, 10, want + (f % 3) * 10, 10);
  test_dir_remove (dir);
}

/* a loop over a file of no whole frame, or over what is no regular file,
 * is refused as the graph is prepared (--validate too): the start refused
 * it, after --validate had passed it */
static void
test_raw_loop_refused (void)
{
  g_autofree gchar *dir = test_dir_new ();
  g_autofree gchar *short_path = g_build_filename (dir, "short.raw", NULL);
  const char *const locations[] = { short_path, "/dev/null" };
  const char *const says[]
      = { "it holds no whole frame of 10 bytes", "it is not a regular file" };

  g_assert_true (g_file_set_contents (short_path, "123456789", 9, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (locations); i++)
    {
      g_autoptr (AccelGraph) g = accel_graph_new ("loop");
      g_autoptr (GError) error = NULL;
      AccelStage *src = accel_test_stage (g, "io.raw-file-source", "src");

      accel_test_stage (g, "core.null-sink", "sink");
      g_object_set (src, "location", locations[i], "shape", "10", "dtype", "u8",
          "loop", TRUE, NULL);
      test_link (g, "src", "sink");
      g_assert_false (accel_graph_prepare (g, &error));
      g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
      g_assert_nonnull (strstr (error->message, says[i]));
    }
  test_dir_remove (dir);
}

/* a file of the kernel's says a size that is not its own: 0 (/proc) or a
 * page (/sys). It is read as a stream, to its end: it gave no frame, and
 * the run ended as done; or a frame, and then "the file got shorter" */
static void
test_raw_source_proc_file (void)
{
  static const struct
  {
    const char *path;
    gint64 says; /* its size by stat () */
  } files[] = {
    { "/proc/self/cmdline", 0 },
    { "/sys/devices/system/cpu/possible", 4096 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autoptr (AccelGraph) g = accel_graph_new ("proc");
      g_autoptr (GError) error = NULL;
      AccelStage *src = accel_test_stage (g, "io.raw-file-source", "src");
      AccelStage *sink = accel_test_stage (g, "core.checksum-sink", "sink");
      g_autofree gchar *text = NULL;
      gsize size = 0;
      GStatBuf st;

      g_assert_true (g_file_get_contents (files[i].path, &text, &size, NULL));
      g_assert_cmpint (g_stat (files[i].path, &st), ==, 0);
      g_assert_cmpint (st.st_size, ==, files[i].says);
      g_assert_cmpuint (size, >=, 2);
      g_object_set (
          src, "location", files[i].path, "shape", "2", "dtype", "u8", NULL);
      test_link (g, "src", "sink");
      g_assert_true (accel_graph_run (g, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (
          accel_checksum_sink_get_n_received (sink), ==, size / 2);
    }
}

/* a sink restarted by its supervisor goes on with its file: only the
 * failed frame is missing, every frame before it is still there */
static void
test_raw_sink_restart_keeps_output (void)
{
  g_autofree gchar *dir = test_dir_new ();
  g_autofree gchar *in_path = g_build_filename (dir, "in.raw", NULL);
  g_autofree gchar *out_path = g_build_filename (dir, "out.raw", NULL);
  g_autoptr (GBytes) in = write_random_file (in_path, 3 * 10, FALSE);
  g_autoptr (GBytes) out = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("restart");
  AccelStage *src = accel_test_stage (g, "io.raw-file-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.raw-file-sink", "sink");
  const guint8 *want = g_bytes_get_data (in, NULL);
  static const guint frames[] = { 0, 1, 2, 3, 4, 6, 7 };
  const guint8 *have;

  accel_fault_clear ();
  g_object_set (src, "location", in_path, "shape", "10", "loop", TRUE,
      "num-buffers", (gint64)8, NULL);
  g_object_set (
      sink, "location", out_path, "on-fault", ACCEL_SUPERVISION_RESTART, NULL);
  test_link (g, "src", "sink");
  accel_fault_inject ("sink", ACCEL_FAULT_LIBRARY, 5);
  test_run (g);
  g_assert_cmpuint (accel_stage_get_n_restarts (sink), ==, 1);
  out = read_file (out_path);
  g_assert_cmpuint (g_bytes_get_size (out), ==, G_N_ELEMENTS (frames) * 10);
  have = g_bytes_get_data (out, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (frames); i++)
    g_assert_cmpmem (have + i * 10, 10, want + (frames[i] % 3) * 10, 10);
  accel_fault_clear ();
  test_dir_remove (dir);
}

/* a type given in parts of both descriptions (a shape beside a format, a
 * width or a height, or a dtype without a shape) is refused naming both,
 * where the image's parts were ignored without a word; either one alone
 * runs */
static void
test_raw_type_described_twice (void)
{
  struct
  {
    const char *kind;
    const char *shape, *param;
    gboolean refused;
  } cases[] = {
    { "io.raw-file-source", "10", "format", TRUE },
    { "io.raw-file-source", "10", "width", TRUE },
    { "io.app-source", "10", "height", TRUE },
    { "io.raw-file-source", "", "dtype", TRUE },
    { "io.raw-file-source", "10", "dtype", FALSE },
    { "io.app-source", "", "format", FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (AccelGraph) g = accel_graph_new ("twice");
      g_autoptr (GError) error = NULL;
      AccelStage *src = accel_test_stage (g, cases[i].kind, "src");

      accel_test_stage (g, "core.null-sink", "sink");
      g_object_set (src, "shape", cases[i].shape, NULL);
      if (g_str_equal (cases[i].param, "format"))
        g_object_set (src, "format", "GRAY8", NULL);
      else if (g_str_equal (cases[i].param, "dtype"))
        g_object_set (src, "dtype", "f32", NULL);
      else
        g_object_set (src, cases[i].param, 64, NULL);
      if (g_str_equal (cases[i].kind, "io.raw-file-source"))
        g_object_set (src, "location", "/dev/zero", NULL);
      test_link (g, "src", "sink");
      g_assert_cmpint (accel_graph_prepare (g, &error), ==, !cases[i].refused);
      if (!cases[i].refused)
        {
          g_assert_no_error (error);
          continue;
        }
      g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
      g_test_message ("%s: %s", cases[i].param, error->message);
      g_assert_nonnull (strstr (error->message,
          "give shape and dtype for a tensor, or format, width and height "
          "for an image"));
    }
}

/* the same graph run again starts its file anew: only a restart by the
 * stage's supervisor goes on with it */
static void
test_raw_sink_rerun (void)
{
  g_autofree gchar *dir = test_dir_new ();
  g_autofree gchar *in_path = g_build_filename (dir, "in.raw", NULL);
  g_autofree gchar *out_path = g_build_filename (dir, "out.raw", NULL);
  g_autoptr (GBytes) in = write_random_file (in_path, 3 * 10, FALSE);
  g_autoptr (AccelGraph) g = accel_graph_new ("rerun");
  AccelStage *src = accel_test_stage (g, "io.raw-file-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.raw-file-sink", "sink");

  g_object_set (src, "location", in_path, "shape", "10", NULL);
  g_object_set (sink, "location", out_path, NULL);
  test_link (g, "src", "sink");
  for (guint run = 0; run < 3; run++)
    {
      g_autoptr (GBytes) out = NULL;

      test_run (g);
      out = read_file (out_path);
      g_assert_true (g_bytes_equal (out, in));
    }
  test_dir_remove (dir);
}

/* core.checksum-sink, like raw-file-sink, starts its file anew on each graph
 * start */
/* the SHA-256 of @text: a checksum sink's digest is that of its file */
static gchar *
sha256_of (const char *text)
{
  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, text, -1);
}

/* a graph run again writes the same file and gives the same results: each
 * start begins them anew */
static void
test_checksum_sink_rerun (void)
{
  g_autofree gchar *dir = test_dir_new ();
  g_autofree gchar *path = g_build_filename (dir, "out.sum", NULL);
  g_autoptr (AccelGraph) g = accel_graph_new ("rerun");
  AccelStage *src = accel_test_stage (g, "core.test-source", "src");
  AccelStage *sink = accel_test_stage (g, "core.checksum-sink", "sum");
  g_autofree gchar *first = NULL;

  g_object_set (src, "shape", "8", "num-buffers", (gint64)3, NULL);
  g_object_set (sink, "location", path, NULL);
  test_link (g, "src", "sum");
  for (guint run = 0; run < 3; run++)
    {
      g_autofree gchar *text = NULL;
      g_autofree gchar *digest = NULL;
      g_autofree gchar *want = NULL;
      g_autoptr (GArray) seqs = NULL;
      g_auto (GStrv) sums = NULL;

      test_run (g);
      g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
      if (!first)
        first = g_strdup (text);
      g_assert_cmpstr (text, ==, first);
      g_assert_cmpuint (accel_checksum_sink_get_n_received (sink), ==, 3);
      seqs = accel_checksum_sink_get_sequences (sink);
      g_assert_cmpuint (seqs->len, ==, 3);
      for (guint i = 0; i < seqs->len; i++)
        g_assert_cmpuint (g_array_index (seqs, guint64, i), ==, i);
      sums = accel_checksum_sink_dup_checksums (sink);
      g_assert_cmpuint (g_strv_length (sums), ==, 3);
      digest = test_digest (sink);
      want = sha256_of (text);
      g_assert_cmpstr (digest, ==, want);
    }
  test_dir_remove (dir);
}

/* an endless run keeps the last 4096 records, and the digest of all: the
 * file holds every line */
static void
test_checksum_sink_last_records (void)
{
  g_autofree gchar *dir = test_dir_new ();
  g_autofree gchar *path = g_build_filename (dir, "out.sum", NULL);
  g_autoptr (AccelGraph) g = accel_graph_new ("long");
  AccelStage *src = accel_test_stage (g, "core.test-source", "src");
  AccelStage *sink = accel_test_stage (g, "core.checksum-sink", "sum");
  g_autofree gchar *text = NULL;
  g_autofree gchar *digest = NULL;
  g_autofree gchar *want = NULL;
  g_autoptr (GArray) seqs = NULL;
  g_auto (GStrv) sums = NULL;
  g_auto (GStrv) lines = NULL;
  const guint n = 5000, kept = 4096;

  g_object_set (src, "shape", "4", "num-buffers", (gint64)n, NULL);
  g_object_set (sink, "location", path, NULL);
  test_link (g, "src", "sum");
  test_run (g);
  g_assert_cmpuint (accel_checksum_sink_get_n_received (sink), ==, n);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, n + 1);
  seqs = accel_checksum_sink_get_sequences (sink);
  sums = accel_checksum_sink_dup_checksums (sink);
  g_assert_cmpuint (seqs->len, ==, kept);
  g_assert_cmpuint (g_strv_length (sums), ==, kept);
  for (guint i = 0; i < kept; i++)
    {
      g_autofree gchar *line = g_strdup_printf ("%u %s", n - kept + i, sums[i]);

      g_assert_cmpuint (g_array_index (seqs, guint64, i), ==, n - kept + i);
      g_assert_cmpstr (line, ==, lines[n - kept + i]);
    }
  digest = test_digest (sink);
  want = sha256_of (text);
  g_assert_cmpstr (digest, ==, want);
  test_dir_remove (dir);
}

/* a full disk is named as such, with the frame that could not be written */
static void
test_raw_sink_disk_full (void)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("full");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (g, "io.pattern-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.raw-file-sink", "sink");

  if (!g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no /dev/full");
      return;
    }
  g_object_set (src, "num-buffers", (gint64)3, NULL);
  g_object_set (sink, "location", "/dev/full", NULL);
  test_link (g, "src", "sink");
  g_assert_false (accel_graph_run (g, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message,
      "cannot write frame 0 to /dev/full: No space left on device"));
}

/* a FIFO whose writer is absent, then idle: the graph starts (opening it
 * does not wait for a writer), takes the frame written, and stops at once
 * while the writer says nothing more */
static void
test_raw_pipe_stop (void)
{
  g_autofree gchar *dir = test_dir_new ();
  g_autofree gchar *fifo = g_build_filename (dir, "in.fifo", NULL);
  g_autoptr (AccelGraph) g = accel_graph_new ("pipe");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (g, "io.raw-file-source", "src");
  AccelStage *sink = accel_test_stage (g, "core.null-sink", "sink");
  guint8 frame[16] = { 1, 2, 3 };
  gint64 t0;
  int writer;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_object_set (src, "location", fifo, "shape", "16", "dtype", "u8", NULL);
  test_link (g, "src", "sink");
  g_assert_true (accel_graph_start (g, &error));
  g_assert_no_error (error);
  writer = g_open (fifo, O_WRONLY | O_CLOEXEC, 0);
  g_assert_cmpint (writer, >=, 0);
  g_assert_cmpint (write (writer, frame, sizeof (frame)), ==, sizeof (frame));
  for (guint i = 0; i < 500 && accel_stage_get_n_processed (sink) < 1; i++)
    g_usleep (10 * 1000);
  g_assert_cmpuint (accel_stage_get_n_processed (sink), ==, 1);
  t0 = g_get_monotonic_time ();
  accel_graph_stop (g);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 2 * G_USEC_PER_SEC);
  close (writer);
  g_unlink (fifo);
  test_dir_remove (dir);
}

/* a live source that waits on an idle pipe has taken nothing of the frame
 * it waits for: a run stopped (or killed) then and resumed loses no frame
 * (it counted one lost, exit status 3, with every frame delivered) */
static void
test_raw_pipe_resume_counts_taken (void)
{
  g_autofree gchar *dir = test_dir_new ();
  g_autofree gchar *state = test_dir_new ();
  g_autofree gchar *fifo = g_build_filename (dir, "in.fifo", NULL);
  g_autofree gchar *produced = g_build_filename (state, "src.produced", NULL);
  g_autofree gchar *text = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("pipe");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (g, "io.raw-file-source", "src");
  AccelStage *sink = accel_test_stage (g, "core.null-sink", "sink");
  guint8 frames[3][16] = { { 1 }, { 2 }, { 3 } };
  int writer;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_object_set (src, "location", fifo, "shape", "16", "dtype", "u8", NULL);
  test_link (g, "src", "sink");
  accel_graph_set_state_dir (g, state, 0);
  g_assert_true (accel_graph_start (g, &error));
  g_assert_no_error (error);
  writer = g_open (fifo, O_WRONLY | O_CLOEXEC, 0);
  g_assert_cmpint (writer, >=, 0);
  g_assert_cmpint (write (writer, frames, 2 * 16), ==, 2 * 16);
  for (guint i = 0; i < 500 && accel_stage_get_n_processed (sink) < 2; i++)
    g_usleep (10 * 1000);
  g_assert_cmpuint (accel_stage_get_n_processed (sink), ==, 2);
  /* frame 2 waits for its first byte: the last produced is 1 */
  for (guint i = 0; i < 500; i++)
    {
      g_clear_pointer (&text, g_free);
      g_assert_true (g_file_get_contents (produced, &text, NULL, NULL));
      if (g_ascii_strtoull (g_strstrip (text), NULL, 10) == 1)
        break;
      g_usleep (10 * 1000);
    }
  g_assert_cmpuint (g_ascii_strtoull (text, NULL, 10), ==, 1);
  accel_graph_stop (g);
  close (writer);

  /* resumed at frame 2, with nothing lost */
  g_assert_true (accel_graph_start (g, &error));
  g_assert_no_error (error);
  writer = g_open (fifo, O_WRONLY | O_CLOEXEC, 0);
  g_assert_cmpint (writer, >=, 0);
  g_assert_cmpint (write (writer, frames[2], 16), ==, 16);
  close (writer);
  g_assert_true (accel_graph_wait (g, 10 * G_USEC_PER_SEC, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (accel_stage_get_n_lost (src), ==, 0);
  g_assert_cmpuint (accel_stage_get_n_processed (sink), ==, 1);
  g_assert_true (accel_graph_check_complete (g, &error));
  g_assert_no_error (error);
  accel_graph_stop (g);

  /* its record of what it produced damaged, or gone: refused, where the
   * frames it had produced past the commits were lost uncounted, status
   * 0; 'none' in it resumes */
  for (guint i = 0; i < 3; i++)
    {
      if (i == 0)
        g_assert_true (g_file_set_contents (produced, "12x\n", -1, NULL));
      else if (i == 1)
        g_assert_cmpint (g_unlink (produced), ==, 0);
      else
        g_assert_true (g_file_set_contents (produced, "none\n", -1, NULL));
      if (i == 2)
        {
          g_assert_true (accel_graph_start (g, &error));
          g_assert_no_error (error);
          break;
        }
      g_assert_false (accel_graph_start (g, &error));
      g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message,
          i == 0 ? "src.produced, where it keeps the last frame it "
                   "produced, holds no frame number (it is damaged)"
                 : "src.produced, where it keeps the last frame it "
                   "produced, is gone"));
      g_assert_nonnull (strstr (
          error->message, "Write 'none' in it to resume counting none"));
      g_clear_error (&error);
    }
  accel_graph_stop (g);
  g_unlink (fifo);
  test_dir_remove (dir);
  test_dir_remove (state);
}

/* a sink on a FIFO that no process reads: opening it waited for a reader
 * for good, so the graph never started, the stage's watchdog did not
 * count it, and Ctrl-C did not end it. It waits start-timeout, then fails
 * saying so; core.checksum-sink as io.raw-file-sink */
static void
test_raw_fifo_without_reader (gconstpointer data)
{
  const char *kind = data;
  g_autofree gchar *dir = test_dir_new ();
  g_autofree gchar *fifo = g_build_filename (dir, "out.fifo", NULL);
  g_autoptr (AccelGraph) g = accel_graph_new ("fifo");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (g, "core.test-source", "src");
  AccelStage *sink = accel_test_stage (g, kind, "sink");
  gint64 t0;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_object_set (src, "shape", "16", "num-buffers", (gint64)2, NULL);
  g_object_set (sink, "location", fifo, "start-timeout", (gint64)200, NULL);
  test_link (g, "src", "sink");
  t0 = g_get_monotonic_time ();
  if (accel_graph_start (g, &error))
    g_assert_false (accel_graph_wait (g, 5 * G_USEC_PER_SEC, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message,
      "out.fifo: no process opened it for reading within 200 ms "
      "(start-timeout)"));
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 5 * G_USEC_PER_SEC);
  accel_graph_stop (g);
  g_unlink (fifo);
  test_dir_remove (dir);
}

static gpointer
start_graph (gpointer data)
{
  GError *error = NULL;

  if (accel_graph_start (data, &error))
    return NULL;
  return error;
}

/* a start that waits for a FIFO's reader is interrupted from another
 * thread (accel-run's Ctrl-C): it fails at once with ACCEL_ERROR_STOPPED,
 * where it waited out start-timeout; the graph starts again after */
static void
test_raw_fifo_start_interrupted (void)
{
  g_autofree gchar *dir = test_dir_new ();
  g_autofree gchar *fifo = g_build_filename (dir, "out.fifo", NULL);
  g_autoptr (AccelGraph) g = accel_graph_new ("fifo");
  AccelStage *src = accel_test_stage (g, "core.test-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.raw-file-sink", "sink");
  GError *error;
  GThread *starter;
  gint64 t0;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_object_set (src, "shape", "16", "num-buffers", (gint64)2, NULL);
  g_object_set (sink, "location", fifo, "start-timeout", (gint64)60000, NULL);
  test_link (g, "src", "sink");
  /* before any start: nothing to interrupt */
  accel_graph_interrupt_start (g);
  starter = g_thread_new ("start", start_graph, g);
  g_usleep (300 * G_TIME_SPAN_MILLISECOND);
  t0 = g_get_monotonic_time ();
  accel_graph_interrupt_start (g);
  error = g_thread_join (starter);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 5 * G_USEC_PER_SEC);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED);
  g_test_message ("%s", error->message);
  g_clear_error (&error);

  /* started again, with a reader this time, it runs */
  g_object_set (sink, "start-timeout", (gint64)200, NULL);
  starter = g_thread_new ("start", start_graph, g);
  {
    /* the frames: the file ends only once the stage stops */
    guint8 got[2 * 16 * sizeof (gfloat)];
    gsize len = 0;
    int fd = g_open (fifo, O_RDONLY, 0);

    g_assert_cmpint (fd, >=, 0);
    while (len < sizeof got)
      {
        gssize n = read (fd, got + len, sizeof got - len);
        g_assert_cmpint (n, >, 0);
        len += (gsize)n;
      }
    g_assert_null (g_thread_join (starter));
    g_assert_true (accel_graph_wait (g, 10 * G_USEC_PER_SEC, NULL));
    accel_graph_stop (g);
    close (fd);
  }
  g_unlink (fifo);
  test_dir_remove (dir);
}

/* a source reading a FIFO restarted by its supervisor goes on where the
 * stream is: reopened, the pipe lost what it held (here every frame after
 * the third, its writer gone), and a writer still there would have been
 * killed by SIGPIPE. Each frame keeps the number of its place in the
 * stream */
static void
test_raw_pipe_restart (void)
{
  g_autofree gchar *dir = test_dir_new ();
  g_autofree gchar *fifo = g_build_filename (dir, "in.fifo", NULL);
  g_autoptr (AccelGraph) g = accel_graph_new ("pipe");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (g, "io.raw-file-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.app-sink", "sink");
  guint8 frame[16];
  guint pulled;
  int writer;

  accel_fault_clear ();
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_object_set (src, "location", fifo, "shape", "16", "dtype", "u8", "on-fault",
      ACCEL_SUPERVISION_RESTART, NULL);
  g_object_set (sink, "max-buffers", 8, NULL);
  test_link (g, "src", "sink");
  accel_fault_inject ("src", ACCEL_FAULT_LIBRARY, 3);
  g_assert_true (accel_graph_start (g, &error));
  g_assert_no_error (error);
  writer = g_open (fifo, O_WRONLY | O_CLOEXEC, 0);
  g_assert_cmpint (writer, >=, 0);
  for (guint i = 0; i < 8; i++)
    {
      memset (frame, (int)i, sizeof (frame));
      g_assert_cmpint (
          write (writer, frame, sizeof (frame)), ==, sizeof (frame));
    }
  close (writer);
  for (pulled = 0;; pulled++)
    {
      g_autoptr (AccelBuffer) buf = NULL;
      const guint8 *got;

      /* a bounded wait: the old source waited for good for a writer */
      g_signal_emit_by_name (
          sink, "pull-buffer", (gint64)(10 * G_USEC_PER_SEC), &buf);
      if (!buf)
        break;
      got = accel_buffer_get_data (buf);
      g_assert_cmpuint (accel_buffer_get_sequence (buf), ==, pulled);
      g_assert_cmpuint (got[0], ==, pulled);
      g_assert_cmpuint (got[15], ==, pulled);
    }
  g_assert_true (accel_graph_wait (g, 10 * G_USEC_PER_SEC, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (accel_stage_get_n_restarts (src), ==, 1);
  g_assert_cmpuint (pulled, ==, 8);
  accel_graph_stop (g);
  accel_fault_clear ();
  g_unlink (fifo);
  test_dir_remove (dir);
}

/* a source reading a regular file restarted by its supervisor goes on with
 * that file, though another took its name meanwhile (as a rotating writer
 * does): reopened by name, it gave the other file's frames after the
 * failed one */
static void
test_raw_file_restart_keeps_file (void)
{
  g_autofree gchar *dir = test_dir_new ();
  g_autofree gchar *path = g_build_filename (dir, "in.raw", NULL);
  g_autofree gchar *other = g_build_filename (dir, "other.raw", NULL);
  g_autoptr (AccelGraph) g = accel_graph_new ("file");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (g, "io.raw-file-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.app-sink", "sink");
  guint8 frames[16][16], others[16][16];
  guint pulled, expected = 0;

  accel_fault_clear ();
  for (guint i = 0; i < 16; i++)
    {
      memset (frames[i], (int)i, sizeof (frames[i]));
      memset (others[i], 0xf0, sizeof (others[i]));
    }
  write_file (path, frames, sizeof (frames));
  write_file (other, others, sizeof (others));
  g_object_set (src, "location", path, "shape", "16", "dtype", "u8", "on-fault",
      ACCEL_SUPERVISION_RESTART, NULL);
  /* the sink holds the source back, well short of the fault's frame,
   * until the other file has the name */
  g_object_set (sink, "max-buffers", 1, NULL);
  test_link (g, "src", "sink");
  accel_fault_inject ("src", ACCEL_FAULT_LIBRARY, 12);
  g_assert_true (accel_graph_start (g, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_rename (other, path), ==, 0);
  for (pulled = 0;; pulled++)
    {
      g_autoptr (AccelBuffer) buf = NULL;
      const guint8 *got;

      g_signal_emit_by_name (
          sink, "pull-buffer", (gint64)(10 * G_USEC_PER_SEC), &buf);
      if (!buf)
        break;
      /* the failed frame is skipped, and counted below */
      if (expected == 12)
        expected++;
      got = accel_buffer_get_data (buf);
      g_assert_cmpuint (accel_buffer_get_sequence (buf), ==, expected);
      g_assert_cmpuint (got[0], ==, expected);
      g_assert_cmpuint (got[15], ==, expected);
      expected++;
    }
  g_assert_true (accel_graph_wait (g, 10 * G_USEC_PER_SEC, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (accel_stage_get_n_restarts (src), ==, 1);
  g_assert_cmpuint (accel_stage_get_n_skipped (src), ==, 1);
  g_assert_cmpuint (pulled, ==, 15);
  accel_graph_stop (g);
  accel_fault_clear ();
  g_unlink (path);
  test_dir_remove (dir);
}

/* an application that pulls slowly holds the app sink back: backpressure,
 * not a hung frame, whatever the sink's watchdog (here 500 ms against
 * pauses of 1.2 s and 0.7 s); it failed the graph as hung */
static void
test_app_sink_slow_pull_not_hung (void)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("slow");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (g, "core.test-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.app-sink", "sink");
  guint pulled = 0;

  g_object_set (src, "shape", "16", "num-buffers", (gint64)4, NULL);
  g_object_set (sink, "watchdog", (gint64)500, NULL);
  test_link (g, "src", "sink");
  g_assert_true (accel_graph_start (g, &error));
  g_assert_no_error (error);
  g_usleep (1200 * 1000);
  for (;; pulled++)
    {
      g_autoptr (AccelBuffer) buf = NULL;

      g_signal_emit_by_name (
          sink, "pull-buffer", (gint64)(10 * G_USEC_PER_SEC), &buf);
      if (!buf)
        break;
      g_usleep (700 * 1000);
    }
  g_assert_true (accel_graph_wait (g, 10 * G_USEC_PER_SEC, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (pulled, ==, 4);
  accel_graph_stop (g);
}

static guint
count_fds (void)
{
  g_autoptr (GDir) d = g_dir_open ("/proc/self/fd", 0, NULL);
  guint n = 0;

  while (d && g_dir_read_name (d))
    n++;
  return n;
}

/* one run of a looping source over @path, which holds no whole frame */
static void
run_without_whole_frame (const char *path)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("short");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (g, "io.raw-file-source", "src");

  accel_test_stage (g, "core.null-sink", "sink");
  g_object_set (
      src, "location", path, "shape", "10", "dtype", "u8", "loop", TRUE, NULL);
  test_link (g, "src", "sink");
  g_assert_false (accel_graph_run (g, &error));
  g_assert_nonnull (strstr (error->message, "holds no whole frame"));
}

/* a start that fails (here looping over a file with no whole frame) keeps
 * no file open */
static void
test_raw_failed_start_closes (void)
{
  g_autofree gchar *dir = test_dir_new ();
  g_autofree gchar *path = g_build_filename (dir, "short.raw", NULL);
  g_autoptr (GBytes) in = write_random_file (path, 5, FALSE);
  guint before;

  /* counted after a first run: GLib keeps a descriptor it opens then for
   * the process (run alone, the test found one more) */
  run_without_whole_frame (path);
  before = count_fds ();
  for (guint i = 0; i < 5; i++)
    run_without_whole_frame (path);
  g_assert_cmpuint (count_fds (), ==, before);
  test_dir_remove (dir);
}

static void
test_raw_missing_file (void)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("missing");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (g, "io.raw-file-source", "reader");

  accel_test_stage (g, "core.null-sink", "sink");
  g_object_set (src, "location", "/nonexistent/accel/in.raw", NULL);
  test_link (g, "reader", "sink");
  /* refused when the graph is prepared, before anything runs */
  g_assert_false (accel_graph_run (g, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_nonnull (strstr (error->message, "stage 'reader'"));
  g_assert_nonnull (strstr (error->message,
      "cannot read /nonexistent/accel/in.raw: No such file or directory"));
}

/* a directory is refused when the graph is prepared too (it was read, and
 * failed, once the run had started) */
static void
test_raw_directory (void)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("directory");
  g_autoptr (GError) error = NULL;
  g_autofree gchar *dir = g_dir_make_tmp ("accel-io-XXXXXX", NULL);
  AccelStage *src = accel_test_stage (g, "io.raw-file-source", "reader");

  accel_test_stage (g, "core.null-sink", "sink");
  g_object_set (src, "location", dir, NULL);
  test_link (g, "reader", "sink");
  g_assert_false (accel_graph_run (g, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_nonnull (strstr (error->message, "is a directory, not a file of "
                                            "frames"));
  g_rmdir (dir);
}

/* app-source and app-sink */

#define APP_FRAMES 10
#define APP_N (4 * 8)

static gpointer
push_thread (gpointer data)
{
  AccelStage *src = data;
  AccelType type;
  gint64 dims[2] = { 4, 8 };
  gboolean ended = FALSE;

  accel_type_init_tensor (&type, ACCEL_DTYPE_F32, ACCEL_MEMORY_HOST, 2, dims);
  for (guint i = 0; i < APP_FRAMES; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (AccelBuffer) buf
          = accel_buffer_new (accel_device_get_host (), &type, &error);
      gfloat *f = accel_buffer_get_data (buf);
      gboolean ok = FALSE;

      g_assert_no_error (error);
      for (guint j = 0; j < APP_N; j++)
        f[j] = (gfloat)(i * 100 + j);
      accel_buffer_set_pts (buf, (gint64)i * 1000);
      g_signal_emit_by_name (src, "push-buffer", buf, &error, &ok);
      g_assert_no_error (error);
      g_assert_true (ok);
    }
  g_signal_emit_by_name (src, "end-of-stream", &ended);
  g_assert_true (ended);
  return NULL;
}

static void
on_new_buffer (AccelStage *sink, gpointer user_data)
{
  g_atomic_int_inc ((gint *)user_data);
}

static void
test_app_push_pull (void)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("app");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (g, "io.app-source", "src");
  AccelStage *scale = accel_test_stage (g, "core.scale", "scale");
  AccelStage *sink = accel_test_stage (g, "io.app-sink", "sink");
  GThread *pusher;
  gint n_new = 0;
  AccelBuffer *buf = NULL;
  gboolean eos;

  g_object_set (src, "shape", "4x8", "dtype", "f32", NULL);
  g_object_set (scale, "scale", 3.0f, "offset", 0.5f, NULL);
  g_signal_connect (sink, "new-buffer", G_CALLBACK (on_new_buffer), &n_new);
  test_link (g, "src", "scale");
  test_link (g, "scale", "sink");
  g_assert_true (accel_graph_start (g, &error));
  g_assert_no_error (error);
  pusher = g_thread_new ("pusher", push_thread, src);

  for (guint i = 0; i < APP_FRAMES; i++)
    {
      const AccelType *type;
      const gfloat *f;

      g_signal_emit_by_name (
          sink, "pull-buffer", (gint64)(10 * G_USEC_PER_SEC), &buf);
      g_assert_nonnull (buf);
      type = accel_buffer_peek_type (buf);
      g_assert_cmpint (type->kind, ==, ACCEL_KIND_TENSOR);
      g_assert_cmpint (type->dtype, ==, ACCEL_DTYPE_F32);
      g_assert_cmpint (type->memory, ==, ACCEL_MEMORY_HOST);
      g_assert_cmpuint (accel_buffer_get_sequence (buf), ==, i);
      g_assert_cmpint (accel_buffer_get_pts (buf), ==, (gint64)i * 1000);
      f = accel_buffer_get_data (buf);
      for (guint j = 0; j < APP_N; j++)
        g_assert_cmpfloat (f[j], ==, (gfloat)(i * 100 + j) * 3.0f + 0.5f);
      g_clear_pointer (&buf, accel_buffer_unref);
    }
  g_thread_join (pusher);
  g_assert_true (accel_graph_wait (g, 10 * G_USEC_PER_SEC, &error));
  g_assert_no_error (error);
  accel_graph_stop (g);

  g_signal_emit_by_name (sink, "pull-buffer", (gint64)0, &buf);
  g_assert_null (buf);
  g_object_get (sink, "eos", &eos, NULL);
  g_assert_true (eos);
  g_assert_cmpint (g_atomic_int_get (&n_new), ==, APP_FRAMES);
}

/* a sink's file removed (its directory with it), replaced, moved or cut
 * short while the run writes it: the frames written are not at its name,
 * and the end of stream (or the next frame) fails naming it, where the
 * run ended 0 */
static void
test_sink_file_kept (gconstpointer data)
{
  static const char *const says[] = {
    "was removed while the run wrote it",
    "was replaced by another file while the run wrote it",
    "was moved (itself or a directory above it) while the run wrote it",
    "was cut to 0 bytes while the run wrote it",
  };
  const char *kind = data;

  for (guint what = 0; what < G_N_ELEMENTS (says); what++)
    {
      g_autofree gchar *dir = test_dir_new ();
      g_autofree gchar *path = g_build_filename (dir, "out", NULL);
      g_autofree gchar *moved = g_strconcat (dir, "-moved", NULL);
      g_autoptr (AccelGraph) g = accel_graph_new ("kept");
      g_autoptr (GError) error = NULL;
      g_autoptr (AccelBuffer) buf = NULL;
      AccelStage *src = accel_test_stage (g, "io.app-source", "src");
      AccelStage *sink = accel_test_stage (g, kind, "sink");
      gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
      gboolean ok = FALSE, ended = FALSE;
      GStatBuf st = { 0 };
      AccelType type;
      gint64 dims[2] = { 4, 8 };

      g_object_set (src, "shape", "4x8", "dtype", "f32", NULL);
      g_object_set (sink, "location", path, NULL);
      test_link (g, "src", "sink");
      g_assert_true (accel_graph_start (g, &error));
      accel_type_init_tensor (
          &type, ACCEL_DTYPE_F32, ACCEL_MEMORY_HOST, 2, dims);
      buf = accel_buffer_new (accel_device_get_host (), &type, &error);
      g_assert_no_error (error);
      memset (accel_buffer_get_data (buf), 0, accel_buffer_get_size (buf));
      g_signal_emit_by_name (src, "push-buffer", buf, &error, &ok);
      g_assert_true (ok);
      while ((g_stat (path, &st) != 0 || st.st_size == 0)
             && g_get_monotonic_time () < deadline)
        g_usleep (1000);
      g_assert_cmpint (st.st_size, >, 0);
      if (what == 0)
        accel_test_remove_tree (dir);
      else if (what == 1)
        g_assert_true (g_file_set_contents (path, "other\n", -1, NULL));
      else if (what == 2)
        g_assert_cmpint (g_rename (dir, moved), ==, 0);
      else
        {
          g_assert_cmpint (truncate (path, 0), ==, 0);
          /* the next frame's write would leave a hole where the first was */
          g_signal_emit_by_name (src, "push-buffer", buf, &error, &ok);
        }
      g_signal_emit_by_name (src, "end-of-stream", &ended);
      g_assert_false (accel_graph_wait (g, 10 * G_USEC_PER_SEC, &error));
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, says[what]));
      accel_graph_stop (g);
      if (what == 2)
        accel_test_remove_tree (moved);
      else if (what != 0)
        test_dir_remove (dir);
    }
}

/* the frames an application pulls until pull-buffer, waiting up to
 * @timeout_us (-1: until the stream ends), returns none */
static guint
pull_until_none (AccelStage *sink, gint64 timeout_us)
{
  AccelBuffer *buf = NULL;
  guint n = 0;

  for (;;)
    {
      g_signal_emit_by_name (sink, "pull-buffer", timeout_us, &buf);
      if (!buf)
        return n;
      n++;
      g_clear_pointer (&buf, accel_buffer_unref);
    }
}

static gpointer
run_graph (gpointer data)
{
  g_autoptr (GError) error = NULL;
  gboolean ok = accel_graph_run (data, &error);

  g_assert_no_error (error);
  return GINT_TO_POINTER (ok);
}

/* whether @message is the run's word on its io.app-sink 'sink' */
static gboolean
is_app_wait (const gchar *message)
{
  return strstr (message, "stage 'sink' (io.app-sink) waits for the program "
                          "to take its frames, for over 10 s")
         != NULL;
}

/* takes that warning, and notes it in @user_data */
static void
take_app_wait (const gchar *domain, GLogLevelFlags level, const gchar *message,
    gpointer user_data)
{
  if (is_app_wait (message))
    g_atomic_int_set ((gint *)user_data, TRUE);
  else
    g_log_default_handler (domain, level, message, NULL);
}

/* and keeps it from aborting the test, as warnings do */
static gboolean
app_wait_is_fatal (const gchar *domain, GLogLevelFlags level,
    const gchar *message, gpointer user_data)
{
  return !is_app_wait (message);
}

/* accel_graph_run () holds the thread that called it: an io.app-sink of
 * more frames than it holds waits for another thread to pull. The run
 * waited for good, silently; it says which stage waits, once, and a pull
 * from another thread ends it */
static void
test_app_sink_run_says_wait (void)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("run");
  AccelStage *src = accel_test_stage (g, "core.test-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.app-sink", "sink");
  gint64 end = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  gint said = FALSE;
  GThread *runner;
  guint handler;

  g_object_set (src, "shape", "16", "num-buffers", (gint64)10, NULL);
  g_object_set (sink, "max-buffers", 2, NULL);
  test_link (g, "src", "sink");
  /* a handler is asked for the level as logged: fatal, in a test */
  handler = g_log_set_handler ("accel-graph",
      G_LOG_LEVEL_WARNING | G_LOG_FLAG_FATAL, take_app_wait, &said);
  g_test_log_set_fatal_handler (app_wait_is_fatal, NULL);
  runner = g_thread_new ("run", run_graph, g);
  while (!g_atomic_int_get (&said))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, end);
      g_usleep (10000);
    }
  g_assert_cmpuint (pull_until_none (sink, 10 * G_USEC_PER_SEC), ==, 10);
  g_assert_true (GPOINTER_TO_INT (g_thread_join (runner)));
  g_test_log_set_fatal_handler (NULL, NULL);
  g_log_remove_handler ("accel-graph", handler);
}

/* a new-buffer handler that reads what is queued as a stream is read,
 * until pull-buffer returns NULL */
static void
pull_in_handler (AccelStage *sink, gpointer user_data)
{
  g_atomic_int_add (
      (gint *)user_data, (gint)pull_until_none (sink, 10 * G_USEC_PER_SEC));
}

/* a pull on the stage's own thread (a new-buffer handler) returns at once
 * when nothing is queued: no frame can come while that thread waits (it
 * waited out its timeout for each frame, holding the graph back; without
 * one, for good, and accel_graph_stop () with it) */
static void
test_app_sink_pull_in_handler (void)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("app");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (g, "io.app-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.app-sink", "sink");
  GThread *pusher;
  gint n_pulled = 0;

  g_object_set (src, "shape", "4x8", "dtype", "f32", NULL);
  g_signal_connect (
      sink, "new-buffer", G_CALLBACK (pull_in_handler), &n_pulled);
  test_link (g, "src", "sink");
  g_assert_true (accel_graph_start (g, &error));
  g_assert_no_error (error);
  pusher = g_thread_new ("pusher", push_thread, src);
  g_thread_join (pusher);
  g_assert_true (accel_graph_wait (g, 5 * G_USEC_PER_SEC, &error));
  g_assert_no_error (error);
  accel_graph_stop (g);
  g_assert_cmpint (g_atomic_int_get (&n_pulled), ==, APP_FRAMES);
}

/* a restart of either app stage by its supervisor keeps what the
 * application pushed and has not pulled, and the end of the stream: every
 * frame is pulled or counted as skipped, and the graph ends */
static void
test_app_restart_keeps_frames (void)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("app");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (g, "io.app-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.app-sink", "sink");
  GThread *pusher;
  guint pulled;

  accel_fault_clear ();
  g_object_set (src, "shape", "4x8", "dtype", "f32", "on-fault",
      ACCEL_SUPERVISION_RESTART, NULL);
  g_object_set (sink, "max-buffers", APP_FRAMES, "on-fault",
      ACCEL_SUPERVISION_RESTART, NULL);
  test_link (g, "src", "sink");
  accel_fault_inject ("src", ACCEL_FAULT_LIBRARY, 2);
  accel_fault_inject ("sink", ACCEL_FAULT_LIBRARY, 5);
  g_assert_true (accel_graph_start (g, &error));
  g_assert_no_error (error);
  pusher = g_thread_new ("pusher", push_thread, src);
  g_thread_join (pusher);
  /* everything is pushed before the sink's restart: it keeps the frames
   * queued before it. Each frame keeps the number of its push across the
   * source's restart (they were numbered anew from the engine's next
   * sequence, one ahead of the pushes after it) */
  for (pulled = 0;; pulled++)
    {
      g_autoptr (AccelBuffer) buf = NULL;
      const gfloat *f;

      g_signal_emit_by_name (sink, "pull-buffer", (gint64)-1, &buf);
      if (!buf)
        break;
      f = accel_buffer_get_data (buf);
      g_assert_cmpfloat (
          f[0], ==, (gfloat)(accel_buffer_get_sequence (buf) * 100));
    }
  g_assert_true (accel_graph_wait (g, 10 * G_USEC_PER_SEC, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (accel_stage_get_n_restarts (src), ==, 1);
  g_assert_cmpuint (accel_stage_get_n_restarts (sink), ==, 1);
  g_test_message (
      "pulled %u, skipped %" G_GUINT64_FORMAT " + %" G_GUINT64_FORMAT, pulled,
      accel_stage_get_n_skipped (src), accel_stage_get_n_skipped (sink));
  /* the source's fault comes before it takes a pushed frame: it makes
   * that frame again, and skips none (it counted a skipped frame, and
   * lost none); the sink's skips the frame it had */
  g_assert_cmpuint (accel_stage_get_n_skipped (src), ==, 0);
  g_assert_cmpuint (accel_stage_get_n_skipped (sink), ==, 1);
  g_assert_cmpuint (pulled, ==, APP_FRAMES - 1);
  accel_graph_stop (g);
  accel_fault_clear ();
}

/* once the graph has failed, a push into a full queue and a pull without
 * a timeout return rather than wait for good */
static void
test_app_graph_failed (void)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("app");
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) push_error = NULL;
  AccelStage *src = accel_test_stage (g, "io.app-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.app-sink", "sink");
  gint64 dims[2] = { 4, 8 };
  AccelType type;
  gboolean ok = TRUE;

  accel_fault_clear ();
  g_object_set (src, "shape", "4x8", "dtype", "f32", "max-buffers", 2, NULL);
  g_object_set (sink, "on-fault", ACCEL_SUPERVISION_ESCALATE, NULL);
  test_link (g, "src", "sink");
  accel_fault_inject ("sink", ACCEL_FAULT_LIBRARY, 0);
  g_assert_true (accel_graph_start (g, &error));
  g_assert_no_error (error);
  accel_type_init_tensor (&type, ACCEL_DTYPE_F32, ACCEL_MEMORY_HOST, 2, dims);
  /* the sink fails on the first frame; the source's queue fills behind it */
  for (guint i = 0; i < 64 && ok; i++)
    {
      g_autoptr (AccelBuffer) buf
          = accel_buffer_new (accel_device_get_host (), &type, &error);

      g_assert_no_error (error);
      g_signal_emit_by_name (src, "push-buffer", buf, &push_error, &ok);
    }
  g_assert_false (ok);
  g_assert_nonnull (strstr (push_error->message, "after the graph failed"));
  g_assert_cmpuint (pull_until_none (sink, -1), ==, 0);
  g_assert_false (accel_graph_wait (g, -1, &error));
  g_assert_nonnull (error);
  accel_graph_stop (g);
  accel_fault_clear ();
}

/* after a failed start, a pull from @sink returns at once and a push into
 * @src (a queue of 1) is refused */
static void
assert_app_stages_return (AccelStage *src, AccelStage *sink)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelBuffer) buf = NULL;
  AccelBuffer *pulled = NULL;
  gint64 dims[2] = { 4, 8 };
  AccelType type;
  gboolean ok = TRUE;
  gint64 t0 = g_get_monotonic_time ();

  g_signal_emit_by_name (sink, "pull-buffer", (gint64)-1, &pulled);
  g_assert_null (pulled);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 5 * G_USEC_PER_SEC);

  accel_type_init_tensor (&type, ACCEL_DTYPE_F32, ACCEL_MEMORY_HOST, 2, dims);
  buf = accel_buffer_new (accel_device_get_host (), &type, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 2 && ok; i++)
    g_signal_emit_by_name (src, "push-buffer", buf, &error, &ok);
  g_assert_false (ok);
  g_test_message ("%s", error->message);
}

/* a graph that fails to start before its stages do (its preparation, its
 * state directory) lets a pull or a push return at once too: both waited
 * for good */
static void
test_app_graph_failed_before_start (gconstpointer data)
{
  gboolean state_dir = GPOINTER_TO_INT (data);
  g_autofree gchar *dir = test_dir_new ();
  g_autofree gchar *file = g_build_filename (dir, "file", NULL);
  g_autofree gchar *state = g_build_filename (file, "state", NULL);
  g_autoptr (AccelGraph) g = accel_graph_new ("app");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (g, "io.app-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.app-sink", "sink");

  g_object_set (src, "shape", "4x8", "dtype", state_dir ? "f32" : "nonsense",
      "max-buffers", 1, NULL);
  test_link (g, "src", "sink");
  g_assert_true (g_file_set_contents (file, "", 0, NULL));
  if (state_dir)
    accel_graph_set_state_dir (g, state, G_USEC_PER_SEC);
  g_assert_false (accel_graph_start (g, &error));
  g_test_message ("%s", error->message);
  assert_app_stages_return (src, sink);
  test_dir_remove (dir);
}

/* a graph that failed to start runs no frame: a pull from a sink that
 * never started returns at once, as once a graph failed running (it waited
 * out its timeout, or for good), and a push is refused */
static void
test_app_graph_failed_to_start (void)
{
  g_autofree gchar *dir = test_dir_new ();
  g_autofree gchar *gone = g_build_filename (dir, "gone", NULL);
  g_autofree gchar *sums = g_build_filename (gone, "out.sum", NULL);
  g_autoptr (AccelGraph) g = accel_graph_new ("app");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (g, "io.app-source", "src");
  /* added before the app-sink, it starts before it */
  AccelStage *bad = accel_test_stage (g, "core.checksum-sink", "bad");
  AccelStage *sink = accel_test_stage (g, "io.app-sink", "sink");

  g_object_set (src, "shape", "4x8", "dtype", "f32", "max-buffers", 1, NULL);
  g_assert_cmpint (g_mkdir (gone, 0755), ==, 0);
  g_object_set (bad, "location", sums, NULL);
  test_link (g, "src", "bad");
  test_link (g, "src", "sink");
  g_assert_true (accel_graph_prepare (g, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_rmdir (gone), ==, 0);
  g_assert_false (accel_graph_start (g, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED);
  assert_app_stages_return (src, sink);
  test_dir_remove (dir);
}

static void
test_app_wrong_type (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelStage) src
      = accel_stage_new ("io.app-source", "feed", &error);
  g_autoptr (AccelBuffer) buf = NULL;
  gint64 dims[1] = { 16 };
  AccelType type;
  gboolean ok = TRUE;

  g_assert_no_error (error);
  accel_type_init_tensor (&type, ACCEL_DTYPE_F32, ACCEL_MEMORY_HOST, 1, dims);
  buf = accel_buffer_new (accel_device_get_host (), &type, &error);
  g_assert_no_error (error);
  g_signal_emit_by_name (src, "push-buffer", buf, &error, &ok);
  g_assert_false (ok);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH);
  g_assert_cmpstr (error->message, ==,
      "stage 'feed' (io.app-source): a pushed buffer of type "
      "tensor<f32>[16]@host does not fit the output type "
      "image<RGBA8>[240x320]@device; push buffers of that type, or set "
      "shape and dtype (or format, width and height) to what the "
      "application pushes before the graph is prepared");
  g_clear_error (&error);

  /* nothing is taken after the end of the stream */
  g_object_set (src, "shape", "16", "dtype", "f32", NULL);
  g_signal_emit_by_name (src, "end-of-stream", &ok);
  g_assert_true (ok);
  g_signal_emit_by_name (src, "push-buffer", buf, &error, &ok);
  g_assert_false (ok);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED);
}

/* the type properties are fixed once the graph is prepared: a change
 * there let push-buffer take a buffer of the new type, which process ()
 * then had to refuse; the buffer is refused as it is pushed */
static void
test_app_type_changed (void)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("app");
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelBuffer) buf = NULL;
  AccelStage *src = accel_test_stage (g, "io.app-source", "src");
  gint64 dims[1] = { 16 };
  AccelType type;
  gboolean ok = TRUE;

  accel_test_stage (g, "core.null-sink", "sink");
  g_object_set (src, "shape", "100000", "dtype", "f32", "on-fault",
      ACCEL_SUPERVISION_ESCALATE, NULL);
  test_link (g, "src", "sink");
  g_assert_true (accel_graph_start (g, &error));
  g_assert_no_error (error);
  g_test_expect_message ("accel-stage", G_LOG_LEVEL_WARNING,
      "*'shape' is fixed once the graph is prepared*");
  g_object_set (src, "shape", "16", NULL);
  g_test_assert_expected_messages ();
  accel_type_init_tensor (&type, ACCEL_DTYPE_F32, ACCEL_MEMORY_HOST, 1, dims);
  buf = accel_buffer_new (accel_device_get_host (), &type, &error);
  g_assert_no_error (error);
  g_signal_emit_by_name (src, "push-buffer", buf, &error, &ok);
  g_assert_false (ok);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH);
  g_assert_nonnull (strstr (error->message,
      "a pushed buffer of type tensor<f32>[16]@host does not fit the output "
      "type tensor<f32>[100000]"));
  g_clear_error (&error);
  g_signal_emit_by_name (src, "end-of-stream", &ok);
  g_assert_true (accel_graph_wait (g, -1, &error));
  g_assert_no_error (error);
  accel_graph_stop (g);
}

/* a source waiting for the application lets the graph stop or end */
static void
test_app_source_idle_stop (void)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("idle");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (g, "io.app-source", "src");
  gint64 t0;

  accel_test_stage (g, "core.null-sink", "sink");
  g_object_set (src, "shape", "4", NULL);
  test_link (g, "src", "sink");

  g_assert_true (accel_graph_start (g, &error));
  g_usleep (50 * G_TIME_SPAN_MILLISECOND);
  t0 = g_get_monotonic_time ();
  accel_graph_send_eos (g);
  g_assert_true (accel_graph_wait (g, 5 * G_USEC_PER_SEC, &error));
  g_assert_no_error (error);
  accel_graph_stop (g);

  g_assert_true (accel_graph_start (g, &error));
  g_usleep (50 * G_TIME_SPAN_MILLISECOND);
  accel_graph_stop (g);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 2 * G_USEC_PER_SEC);
}

/* a stepped graph's step waits for a push; a parameter set meanwhile
 * applies, and the step goes on with the push after it (the step was
 * lost: it waited for good, and every later one was a frame behind) */
typedef struct
{
  AccelGraph *graph;
  gboolean ok;
  GError *error;
} StepCall;

static gpointer
step_thread (gpointer data)
{
  StepCall *call = data;

  call->ok = accel_graph_step (call->graph, 10 * G_USEC_PER_SEC, &call->error);
  return NULL;
}

static void
push_value (AccelStage *src, gfloat value)
{
  g_autoptr (GError) error = NULL;
  gint64 dims[1] = { 4 };
  AccelType type;
  g_autoptr (AccelBuffer) buf = NULL;
  gboolean ok = FALSE;

  accel_type_init_tensor (&type, ACCEL_DTYPE_F32, ACCEL_MEMORY_HOST, 1, dims);
  buf = accel_buffer_new (accel_device_get_host (), &type, &error);
  g_assert_no_error (error);
  for (guint j = 0; j < 4; j++)
    ((gfloat *)accel_buffer_get_data (buf))[j] = value;
  g_signal_emit_by_name (src, "push-buffer", buf, &error, &ok);
  g_assert_no_error (error);
  g_assert_true (ok);
}

static void
test_app_source_param_during_step (void)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("stepped");
  AccelStage *src = accel_test_stage (g, "io.app-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.app-sink", "sink");
  StepCall call = { g, FALSE, NULL };

  g_object_set (src, "shape", "4", "dtype", "f32", NULL);
  test_link (g, "src", "sink");
  accel_graph_set_stepped (g, TRUE);
  g_assert_true (accel_graph_start (g, &call.error));
  g_assert_no_error (call.error);
  for (guint i = 0; i < 3; i++)
    {
      GThread *stepper = g_thread_new ("step", step_thread, &call);
      GValue v = G_VALUE_INIT;
      AccelBuffer *buf = NULL;

      /* the step is waiting for the push when the parameter comes */
      g_usleep (100 * G_TIME_SPAN_MILLISECOND);
      g_value_init (&v, G_TYPE_UINT);
      g_value_set_uint (&v, 8 + i);
      g_assert_true (accel_stage_set_param_async (src, "max-buffers", &v));
      g_value_unset (&v);
      g_usleep (50 * G_TIME_SPAN_MILLISECOND);
      push_value (src, (gfloat)i);
      g_thread_join (stepper);
      g_assert_no_error (call.error);
      g_assert_true (call.ok);
      g_signal_emit_by_name (sink, "pull-buffer", (gint64)0, &buf);
      g_assert_nonnull (buf);
      g_assert_cmpuint (accel_buffer_get_sequence (buf), ==, i);
      g_assert_cmpfloat (((gfloat *)accel_buffer_get_data (buf))[0], ==, i);
      accel_buffer_unref (buf);
    }
  /* a step that runs out without a push names the source it waited on */
  g_assert_false (
      accel_graph_step (g, 50 * G_TIME_SPAN_MILLISECOND, &call.error));
  g_assert_error (call.error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT);
  g_assert_nonnull (strstr (call.error->message,
      "a step took more than 50 ms; stage 'src' (io.app-source) waits for "
      "the program to push its frames and end its stream"));
  g_clear_error (&call.error);
  accel_graph_stop (g);
}

/* pushes once the graph ended the source's stream (its end of stream, as
 * on Ctrl-C, or a frame limit) are refused, saying so: they were taken,
 * queued for no one, and once the queue was full the next push waited
 * until the graph stopped */
static void
test_app_source_push_after_end (gconstpointer data)
{
  gboolean by_limit = GPOINTER_TO_INT (data);
  g_autoptr (AccelGraph) g = accel_graph_new ("ended");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (g, "io.app-source", "src");
  gint64 dims[1] = { 4 };
  AccelType type;

  accel_test_stage (g, "core.null-sink", "sink");
  g_object_set (src, "shape", "4", "dtype", "f32", NULL);
  test_link (g, "src", "sink");
  if (by_limit)
    accel_graph_set_frame_limit (g, 0);
  g_assert_true (accel_graph_start (g, &error));
  if (!by_limit)
    accel_graph_send_eos (g);
  g_assert_true (accel_graph_wait (g, 5 * G_USEC_PER_SEC, &error));
  g_assert_no_error (error);
  accel_type_init_tensor (&type, ACCEL_DTYPE_F32, ACCEL_MEMORY_HOST, 1, dims);
  /* more than the queue holds (4) */
  for (guint i = 0; i < 6; i++)
    {
      g_autoptr (AccelBuffer) buf
          = accel_buffer_new (accel_device_get_host (), &type, &error);
      g_autoptr (GError) push_error = NULL;
      gboolean ok = TRUE;

      g_assert_no_error (error);
      g_signal_emit_by_name (src, "push-buffer", buf, &push_error, &ok);
      g_assert_false (ok);
      g_assert_error (push_error, ACCEL_ERROR, ACCEL_ERROR_FAILED);
      g_assert_nonnull (strstr (push_error->message, "after end of stream"));
    }
  accel_graph_stop (g);
}

/* the type properties set on one thread while another pushes: each push
 * reads them whole (they were freed under a push's feet). A race: the
 * sanitizers and valgrind see what it did, when it does. Fixed once a
 * graph is prepared, they are set while the stage is in none */
static gpointer
set_shape_thread (gpointer data)
{
  AccelStage *src = data;

  for (guint i = 0; i < 2000; i++)
    g_object_set (src, "shape", "4", NULL); /* the same: freed and set */
  return NULL;
}

static void
test_app_source_type_set_while_pushing (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelStage) src = accel_stage_new ("io.app-source", "src", &error);
  gint64 dims[1] = { 4 };
  g_autoptr (AccelBuffer) buf = NULL;
  AccelType type;
  GThread *setter;

  g_assert_no_error (error);
  g_object_set (src, "shape", "4", "dtype", "f32", "block", FALSE,
      "max-buffers", 0, NULL);
  accel_type_init_tensor (&type, ACCEL_DTYPE_F32, ACCEL_MEMORY_HOST, 1, dims);
  buf = accel_buffer_new (accel_device_get_host (), &type, &error);
  g_assert_no_error (error);
  setter = g_thread_new ("setter", set_shape_thread, src);
  for (guint i = 0; i < 2000; i++)
    {
      g_autoptr (GError) push_error = NULL;
      gboolean ok = FALSE;

      g_signal_emit_by_name (src, "push-buffer", buf, &push_error, &ok);
      g_assert_no_error (push_error);
      g_assert_true (ok);
    }
  g_thread_join (setter);
}

/* a sink whose application does not pull lets the graph stop, and keeps
 * the frame it waited with for the application; with drop it keeps the
 * newest. A wait that runs out meanwhile names the sink */
static void
test_app_sink_not_pulled (void)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("full");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (g, "core.test-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.app-sink", "sink");
  gint64 t0;
  guint64 dropped;
  AccelBuffer *buf = NULL;

  g_object_set (src, "shape", "16", NULL);
  g_object_set (sink, "max-buffers", 2, NULL);
  test_link (g, "src", "sink");
  g_assert_true (accel_graph_start (g, &error));
  g_assert_false (accel_graph_wait (g, 100 * G_TIME_SPAN_MILLISECOND, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT);
  g_assert_cmpstr (error->message, ==,
      "graph 'full' did not finish within 100 ms; stage 'sink' "
      "(io.app-sink) waits for the program to take its frames");
  g_clear_error (&error);
  t0 = g_get_monotonic_time ();
  accel_graph_stop (g);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 2 * G_USEC_PER_SEC);
  g_assert_cmpuint (accel_stage_get_n_processed (sink), ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      g_signal_emit_by_name (sink, "pull-buffer", (gint64)0, &buf);
      g_assert_nonnull (buf);
      g_assert_cmpuint (accel_buffer_get_sequence (buf), ==, i);
      g_clear_pointer (&buf, accel_buffer_unref);
    }
  g_signal_emit_by_name (sink, "pull-buffer", (gint64)-1, &buf);
  g_assert_null (buf);

  g_object_set (src, "num-buffers", (gint64)20, NULL);
  g_object_set (sink, "drop", TRUE, NULL);
  test_run (g);
  g_object_get (sink, "n-dropped", &dropped, NULL);
  g_assert_cmpuint (dropped, ==, 18);
  g_signal_emit_by_name (sink, "pull-buffer", (gint64)0, &buf);
  g_assert_nonnull (buf);
  g_assert_cmpuint (accel_buffer_get_sequence (buf), ==, 18);
  accel_buffer_unref (buf);
}

/* with drop, a sink whose application pulls nothing drops the oldest
 * frame queued at once: it waited a slice (20 ms) for a buffer first, so
 * the graph ran at 50 frames/s, 2000 frames took 40 s */
static void
test_app_sink_drop_without_wait (void)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("dropping");
  AccelStage *src = accel_test_stage (g, "core.test-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.app-sink", "sink");
  guint64 dropped = 0;
  gint64 t0;

  g_object_set (src, "shape", "16", "num-buffers", (gint64)2000, NULL);
  g_object_set (sink, "max-buffers", 2, "drop", TRUE, NULL);
  test_link (g, "src", "sink");
  t0 = g_get_monotonic_time ();
  test_run (g);
  /* far more than the run takes, and half what it took */
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 20 * G_USEC_PER_SEC);
  g_object_get (sink, "n-dropped", &dropped, NULL);
  g_assert_cmpuint (dropped, ==, 1998);
}

/* a graph of @n frames (at least 5) into an app-sink of 2 buffers,
 * started, with the application pulling nothing yet: once this returns,
 * the sink waits for room with frame 2, frames 0 and 1 queued (the source
 * has handed on those, frame 2, and frame 3 to the sink's mailbox of 1,
 * which took it only once the sink had taken frame 2 out: frame 4 came
 * after it. At frame 3 the sink could still be between frames 1 and 2,
 * and a change or a flush came before frame 2 did) */
static AccelGraph *
start_sink_behind (gint64 n, AccelStage **src, AccelStage **sink)
{
  AccelGraph *g = accel_graph_new ("behind");
  g_autoptr (GError) error = NULL;

  *src = accel_test_stage (g, "core.test-source", "src");
  *sink = accel_test_stage (g, "io.app-sink", "sink");
  g_object_set (*src, "shape", "16", "num-buffers", n, NULL);
  g_object_set (*sink, "max-buffers", 2, "mailbox-size", 1, NULL);
  test_link (g, "src", "sink");
  g_assert_true (accel_graph_start (g, &error));
  g_assert_no_error (error);
  accel_test_wait_processed (*src, 5);
  return g;
}

/* waits until the sink of start_sink_behind() has taken frame 2 after all
 * (a parameter change or a flush came first), or its graph has failed */
static void
wait_frame_2_taken (AccelStage *sink)
{
  gint64 end = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  while (accel_stage_get_n_processed (sink) < 3
         && !accel_stage_graph_has_failed (sink))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, end);
      g_usleep (200);
    }
}

/* the sequence numbers of what pull-buffer gives until the end */
static GArray *
pull_sequences (AccelStage *sink)
{
  GArray *seqs = g_array_new (FALSE, FALSE, sizeof (guint64));
  AccelBuffer *buf = NULL;

  for (;;)
    {
      guint64 seq;

      g_signal_emit_by_name (sink, "pull-buffer", (gint64)-1, &buf);
      if (!buf)
        return seqs;
      seq = accel_buffer_get_sequence (buf);
      g_array_append_val (seqs, seq);
      g_clear_pointer (&buf, accel_buffer_unref);
    }
}

/* the most queued on @stage's input in /stats.json's terms */
static guint64
queue_depth_max (AccelGraph *g, const char *stage)
{
  g_autofree gchar *json = accel_graph_metrics_to_json (g);
  g_autofree gchar *name = g_strdup_printf ("\"name\": \"%s\"", stage);
  const char *at = strstr (json, name);

  g_assert_nonnull (at);
  at = strstr (at, "\"queue_depth_max\": ");
  g_assert_nonnull (at);
  return g_ascii_strtoull (at + strlen ("\"queue_depth_max\": "), NULL, 10);
}

/* a parameter change while the application is behind is run at once; the
 * frame the sink waited with is not lost, nor the graph failed ("stopped
 * while the application held all 2 buffers"). More changes than the
 * frames that fit aside (max-buffers) wait for the application: the one
 * after them failed the graph, though the application held no buffer */
static void
test_app_sink_param_while_behind (gconstpointer data)
{
  guint changes = GPOINTER_TO_UINT (data);
  guint64 depth;
  AccelStage *src, *sink;
  g_autoptr (AccelGraph) g = start_sink_behind (50, &src, &sink);
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) seqs = NULL;
  guint64 dropped = 1;

  for (guint i = 0; i < changes; i++)
    accel_test_set_param_async (sink, "drop", FALSE);
  wait_frame_2_taken (sink);
  seqs = pull_sequences (sink);
  g_assert_true (accel_graph_wait (g, 10 * G_USEC_PER_SEC, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (seqs->len, ==, 50);
  for (guint i = 0; i < seqs->len; i++)
    g_assert_cmpuint (g_array_index (seqs, guint64, i), ==, i);
  g_object_get (sink, "n-dropped", &dropped, NULL);
  g_assert_cmpuint (dropped, ==, 0);
  /* the run's deepest queue is the same once it stopped (it fell to 0) */
  depth = queue_depth_max (g, "sink");
  g_assert_cmpuint (depth, >=, 1);
  accel_graph_stop (g);
  g_assert_cmpuint (queue_depth_max (g, "sink"), ==, depth);
}

/* an application that falls behind switches its sink to drop: the run goes
 * on, every frame pulled or counted as dropped */
static void
test_app_sink_drop_while_behind (void)
{
  AccelStage *src, *sink;
  g_autoptr (AccelGraph) g = start_sink_behind (50, &src, &sink);
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) seqs = NULL;
  guint64 dropped = 0;

  accel_test_set_param_async (sink, "drop", TRUE);
  wait_frame_2_taken (sink);
  seqs = pull_sequences (sink);
  g_assert_true (accel_graph_wait (g, 10 * G_USEC_PER_SEC, &error));
  g_assert_no_error (error);
  g_object_get (sink, "n-dropped", &dropped, NULL);
  g_assert_cmpuint (seqs->len + dropped, ==, 50);
  g_assert_cmpuint (accel_stage_get_n_processed (sink), ==, 50);
  for (guint i = 1; i < seqs->len; i++)
    g_assert_cmpuint (g_array_index (seqs, guint64, i - 1), <,
        g_array_index (seqs, guint64, i));
  g_assert_cmpuint (g_array_index (seqs, guint64, seqs->len - 1), ==, 49);
  accel_graph_stop (g);
}

/* a flush while the application is behind drops what waits in the sink's
 * mailbox, not the frame the sink had taken */
static void
test_app_sink_flush_while_behind (void)
{
  AccelStage *src, *sink;
  g_autoptr (AccelGraph) g = start_sink_behind (50, &src, &sink);
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) seqs = NULL;

  accel_stage_flush_async (sink);
  wait_frame_2_taken (sink);
  seqs = pull_sequences (sink);
  g_assert_true (accel_graph_wait (g, 10 * G_USEC_PER_SEC, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (seqs->len, ==, accel_stage_get_n_processed (sink));
  g_assert_cmpuint (seqs->len, >=, 3);
  for (guint i = 0; i < 3; i++)
    g_assert_cmpuint (g_array_index (seqs, guint64, i), ==, i);
  for (guint i = 1; i < seqs->len; i++)
    g_assert_cmpuint (g_array_index (seqs, guint64, i - 1), <,
        g_array_index (seqs, guint64, i));
  g_assert_cmpuint (g_array_index (seqs, guint64, seqs->len - 1), ==, 49);
  accel_graph_stop (g);
}

/* waits until @sink takes the max-restarts set by
 * accel_test_set_param_async (), between frames: the value read back says
 * when */
static void
wait_max_restarts (AccelStage *sink, guint n)
{
  gint64 end = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  guint now = 0;

  for (;;)
    {
      g_object_get (sink, "max-restarts", &now, NULL);
      if (now == n)
        return;
      g_assert_cmpint (g_get_monotonic_time (), <, end);
      g_usleep (200);
    }
}

/* frames set aside when the stream ends: the end waits for them, and a
 * pull gets every frame, then the end */
static void
test_app_sink_end_while_aside (void)
{
  AccelStage *src, *sink;
  g_autoptr (AccelGraph) g = start_sink_behind (5, &src, &sink);
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) seqs = NULL;
  gboolean eos = FALSE;

  /* frame 2 goes aside; frame 3 waits for room behind it */
  accel_test_set_param_async (sink, "max-restarts", 7);
  wait_frame_2_taken (sink);
  wait_max_restarts (sink, 7);
  /* frame 3 goes aside too, frame 4, the last, waits for the application,
   * and the stream ends with those aside (or, when the change comes
   * before the sink takes frame 3, that waits for room as before: the
   * same frames come either way) */
  accel_test_set_param_async (sink, "max-restarts", 8);
  wait_max_restarts (sink, 8);
  seqs = pull_sequences (sink);
  g_assert_cmpuint (seqs->len, ==, 5);
  for (guint i = 0; i < seqs->len; i++)
    g_assert_cmpuint (g_array_index (seqs, guint64, i), ==, i);
  g_object_get (sink, "eos", &eos, NULL);
  g_assert_true (eos);
  g_assert_true (accel_graph_wait (g, 10 * G_USEC_PER_SEC, &error));
  g_assert_no_error (error);
  accel_graph_stop (g);
}

/* the GStreamer bridge */

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

static void
test_gst_source_count (void)
{
  static const char *const need[] = { "videotestsrc", "videoconvert", NULL };
  g_autoptr (AccelGraph) g = accel_graph_new ("gst");
  AccelStage *src, *sink;
  const AccelType *type;

  if (!have_elements (need))
    return;
  src = accel_test_stage (g, "io.gst-source", "src");
  sink = accel_test_stage (g, "core.checksum-sink", "sink");
  g_object_set (src, "description",
      "videotestsrc num-buffers=5 pattern=ball ! videoconvert ! "
      "video/x-raw,format=RGBA,width=64,height=48",
      NULL);
  test_link (g, "src", "sink");
  test_run (g);
  g_assert_cmpuint (accel_checksum_sink_get_n_received (sink), ==, 5);
  type = accel_stage_get_output_type (src, 0);
  g_assert_cmpint (type->kind, ==, ACCEL_KIND_IMAGE);
  g_assert_cmpint (type->format, ==, ACCEL_FORMAT_RGBA8);
  g_assert_cmpint (type->dims[0], ==, 48);
  g_assert_cmpint (type->dims[1], ==, 64);
}

/* an element's error after so many images: the images that reached the
 * appsink before it are handed on, then the error. Those the appsink held
 * were dropped: the stage handed on 5, 6 or 9 of the 9 images, by timing.
 * (The graph then stops at once: what the sink had still to take may not
 * reach it) */
static void
test_gst_source_error_after_images (void)
{
  static const char *const need[] = { "videotestsrc", "identity", NULL };

  if (!have_elements (need))
    return;
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr (AccelGraph) g = accel_graph_new ("gst");
      g_autoptr (GError) error = NULL;
      AccelStage *src = accel_test_stage (g, "io.gst-source", "src");

      accel_test_stage (g, "core.checksum-sink", "sink");
      g_object_set (src, "description",
          "videotestsrc num-buffers=20 ! "
          "video/x-raw,format=RGBA,width=8,height=8 ! identity error-after=10",
          "on-fault", ACCEL_SUPERVISION_ESCALATE, NULL);
      test_link (g, "src", "sink");
      g_assert_false (accel_graph_run (g, &error));
      g_assert_nonnull (error);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, "Failed after iterations"));
      g_assert_cmpuint (accel_stage_get_n_processed (src), ==, 9);
    }
}

/* sync turned on while the description runs holds the images to their
 * timestamps from then on (it was accepted, read back, and taken only by
 * the next pipeline: 30 images at 10/1 came at once) */
static void
test_gst_source_sync_while_running (void)
{
  static const char *const need[] = { "videotestsrc", NULL };
  g_autoptr (AccelGraph) g = accel_graph_new ("gst");
  g_autoptr (GError) error = NULL;
  g_auto (GValue) on = G_VALUE_INIT;
  AccelStage *src, *sink;
  AccelBuffer *buf = NULL;
  guint n = 0;
  gint64 t0;

  if (!have_elements (need))
    return;
  src = accel_test_stage (g, "io.gst-source", "src");
  sink = accel_test_stage (g, "io.app-sink", "sink");
  g_object_set (src, "description",
      "videotestsrc num-buffers=30 ! "
      "video/x-raw,format=GRAY8,width=8,height=8,framerate=10/1",
      NULL);
  test_link (g, "src", "sink");
  t0 = g_get_monotonic_time ();
  g_assert_true (accel_graph_start (g, &error));
  g_assert_no_error (error);
  g_signal_emit_by_name (
      sink, "pull-buffer", (gint64)(5 * G_USEC_PER_SEC), &buf);
  g_assert_nonnull (buf);
  g_clear_pointer (&buf, accel_buffer_unref);
  g_value_init (&on, G_TYPE_BOOLEAN);
  g_value_set_boolean (&on, TRUE);
  g_assert_true (accel_stage_set_param_async (src, "sync", &on));
  for (n = 1; n < 30; n++)
    {
      g_signal_emit_by_name (
          sink, "pull-buffer", (gint64)(10 * G_USEC_PER_SEC), &buf);
      g_assert_nonnull (buf);
      g_clear_pointer (&buf, accel_buffer_unref);
    }
  /* the last at 2.9 s of the clock */
  g_assert_cmpint (g_get_monotonic_time () - t0, >=, 2 * G_USEC_PER_SEC);
  accel_graph_stop (g);
}

/* pulls @n buffers of a description through an app-sink */
static GPtrArray *
pull_description (const char *description, guint n, AccelType *type)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("gst");
  AccelStage *src = accel_test_stage (g, "io.gst-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.app-sink", "sink");
  GPtrArray *bufs
      = g_ptr_array_new_with_free_func ((GDestroyNotify)accel_buffer_unref);

  g_object_set (src, "description", description, NULL);
  g_object_set (sink, "max-buffers", n, NULL);
  test_link (g, "src", "sink");
  test_run (g);
  *type = *accel_stage_get_output_type (src, 0);
  for (;;)
    {
      AccelBuffer *buf = NULL;
      g_signal_emit_by_name (sink, "pull-buffer", (gint64)0, &buf);
      if (!buf)
        break;
      g_ptr_array_add (bufs, buf);
    }
  g_assert_cmpuint (bufs->len, ==, n);
  return bufs;
}

static void
test_gst_source_pixels (void)
{
  static const char *const need[] = { "videotestsrc", NULL };
  g_autoptr (GPtrArray) bufs = NULL;
  AccelType type;

  if (!have_elements (need))
    return;
  /* ARGB 0xff204060 */
  bufs = pull_description ("videotestsrc num-buffers=3 pattern=solid-color "
                           "foreground-color=4280303712 ! "
                           "video/x-raw,format=RGBA,width=16,height=8",
      3, &type);
  g_assert_cmpint (type.format, ==, ACCEL_FORMAT_RGBA8);
  for (guint b = 0; b < bufs->len; b++)
    {
      const guint8 *p = accel_buffer_get_data (bufs->pdata[b]);
      g_assert_cmpuint (accel_buffer_get_size (bufs->pdata[b]), ==, 16 * 8 * 4);
      g_assert_cmpuint (accel_buffer_get_sequence (bufs->pdata[b]), ==, b);
      for (guint i = 0; i < 16 * 8; i++)
        {
          g_assert_cmpuint (p[i * 4 + 0], ==, 0x20);
          g_assert_cmpuint (p[i * 4 + 1], ==, 0x40);
          g_assert_cmpuint (p[i * 4 + 2], ==, 0x60);
          g_assert_cmpuint (p[i * 4 + 3], ==, 0xff);
        }
    }
}

/* I420 of an odd size: GStreamer pads the rows, the image is packed */
static void
test_gst_source_planar (void)
{
  static const char *const need[] = { "videotestsrc", NULL };
  g_autoptr (GPtrArray) bufs = NULL;
  AccelType type;
  const guint8 *p;

  if (!have_elements (need))
    return;
  bufs = pull_description ("videotestsrc num-buffers=2 pattern=white ! "
                           "video/x-raw,format=I420,width=15,height=9",
      2, &type);
  g_assert_cmpint (type.format, ==, ACCEL_FORMAT_I420);
  g_assert_cmpuint (
      accel_buffer_get_size (bufs->pdata[1]), ==, 15 * 9 + 2 * 8 * 5);
  p = accel_buffer_get_data (bufs->pdata[1]);
  for (guint i = 0; i < 15 * 9; i++)
    g_assert_cmpuint (p[i], ==, 235);
  for (guint i = 15 * 9; i < 15 * 9 + 2 * 8 * 5; i++)
    g_assert_cmpuint (p[i], ==, 128);
}

/* a live description does not preroll: its first image gives the type and
 * is not lost; a live source waiting for GStreamer lets the graph end */
static void
test_gst_source_live (void)
{
  static const char *const need[] = { "videotestsrc", NULL };
  g_autoptr (GPtrArray) bufs = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("live");
  g_autoptr (GError) error = NULL;
  AccelStage *src, *sink;
  AccelType type;

  if (!have_elements (need))
    return;
  bufs = pull_description ("videotestsrc is-live=true num-buffers=3 ! "
                           "video/x-raw,format=GRAY8,width=8,height=4",
      3, &type);
  g_assert_cmpint (type.format, ==, ACCEL_FORMAT_GRAY8);

  src = accel_test_stage (g, "io.gst-source", "src");
  sink = accel_test_stage (g, "core.checksum-sink", "sink");
  g_object_set (src, "description",
      "videotestsrc is-live=true ! video/x-raw,format=RGBA,width=8,height=4,"
      "framerate=10/1",
      NULL);
  test_link (g, "src", "sink");
  g_assert_true (accel_graph_start (g, &error));
  g_assert_no_error (error);
  g_usleep (250 * G_TIME_SPAN_MILLISECOND);
  accel_graph_send_eos (g);
  g_assert_true (accel_graph_wait (g, 5 * G_USEC_PER_SEC, &error));
  g_assert_no_error (error);
  accel_graph_stop (g);
  g_assert_cmpuint (accel_checksum_sink_get_n_received (sink), >=, 1);
}

/* a description that prerolls for as long as its preroll-timeout (a
 * filesrc opening a FIFO no one writes, in its state change; an appsrc
 * never fed; a live one that gives no image) is given up on at once when
 * the start is interrupted from another thread (accel_graph_interrupt_
 * start (), a Ctrl-C): it waited out preroll-timeout as the graph was
 * prepared */
static void
test_gst_source_preroll_interrupted (void)
{
  static const char *const need[] = { "filesrc", "appsrc", NULL };
  g_autofree gchar *dir = test_dir_new ();
  g_autofree gchar *fifo = g_build_filename (dir, "in.fifo", NULL);
  g_autofree gchar *from_fifo = g_strdup_printf (
      "filesrc location=%s ! video/x-raw,format=GRAY8,width=8,height=4,"
      "framerate=1/1",
      fifo);
  const char *descriptions[] = {
    from_fifo,
    "appsrc caps=video/x-raw,format=GRAY8,width=8,height=4,framerate=1/1",
    "appsrc is-live=true caps=video/x-raw,format=GRAY8,width=8,height=4,"
    "framerate=1/1",
  };

  if (!have_elements (need))
    {
      test_dir_remove (dir);
      return;
    }
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (descriptions); i++)
    {
      g_autoptr (AccelGraph) g = accel_graph_new ("preroll");
      AccelStage *src = accel_test_stage (g, "io.gst-source", "src");
      GError *error;
      GThread *starter;
      gint64 t0;

      accel_test_stage (g, "core.null-sink", "sink");
      g_object_set (src, "description", descriptions[i], "preroll-timeout",
          (gint64)60000, NULL);
      test_link (g, "src", "sink");
      starter = g_thread_new ("start", start_graph, g);
      g_usleep (500 * G_TIME_SPAN_MILLISECOND);
      t0 = g_get_monotonic_time ();
      accel_graph_interrupt_start (g);
      error = g_thread_join (starter);
      g_test_message ("%s: %s", descriptions[i], error ? error->message : "");
      g_assert_cmpint (g_get_monotonic_time () - t0, <, 5 * G_USEC_PER_SEC);
      g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED);
      g_assert_nonnull (strstr (error->message,
          "stage 'src' (io.gst-source): stopped while the GStreamer "
          "pipeline prerolled"));
      g_clear_error (&error);
    }
  g_unlink (fifo);
  test_dir_remove (dir);
}

static gchar *
get_memory (AccelStage *stage)
{
  gchar *memory = NULL;

  g_object_get (stage, "memory", &memory, NULL);
  return memory;
}

/* the host backend never hands GStreamer CUDA memory: both bridges report
 * system memory, before and after a run */
static void
test_gst_memory_host (void)
{
  static const char *const need[] = { "videotestsrc", "fakesink", NULL };
  g_autoptr (AccelGraph) g = accel_graph_new ("gst");
  g_autofree gchar *before = NULL, *source = NULL, *sink = NULL;
  AccelStage *src, *out;

  if (!have_elements (need))
    return;
  src = accel_test_stage (g, "io.gst-source", "src");
  out = accel_test_stage (g, "io.gst-sink", "out");
  g_object_set (src, "description",
      "videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,width=16,"
      "height=8",
      NULL);
  g_object_set (out, "description", "fakesink", NULL);
  test_link (g, "src", "out");
  before = get_memory (out);
  g_assert_cmpstr (before, ==, "system");
  test_run (g);
  g_assert_true (accel_stage_is_host (out));
  source = get_memory (src);
  sink = get_memory (out);
  g_assert_cmpstr (source, ==, "system");
  g_assert_cmpstr (sink, ==, "system");
}

/* a restart of a description that is not live would give its images again
 * from the first, under new numbers: refused; a live one goes on */
static void
test_gst_source_restart (void)
{
  static const char *const need[] = { "videotestsrc", NULL };

  if (!have_elements (need))
    return;
  accel_fault_clear ();
  for (guint live = 0; live < 2; live++)
    {
      g_autoptr (AccelGraph) g = accel_graph_new ("gst");
      g_autoptr (GError) error = NULL;
      g_autofree gchar *description = g_strdup_printf (
          "videotestsrc num-buffers=10 is-live=%s ! "
          "video/x-raw,format=RGBA,width=16,height=8,framerate=200/1",
          live ? "true" : "false");
      AccelStage *src = accel_test_stage (g, "io.gst-source", "cam");

      accel_test_stage (g, "core.null-sink", "sink");
      g_object_set (src, "description", description, "on-fault",
          ACCEL_SUPERVISION_RESTART, NULL);
      test_link (g, "cam", "sink");
      accel_fault_inject ("cam", ACCEL_FAULT_LIBRARY, 4);
      if (live)
        {
          g_assert_true (accel_graph_run (g, &error));
          g_assert_no_error (error);
          g_assert_cmpuint (accel_stage_get_n_restarts (src), ==, 1);
        }
      else
        {
          g_assert_false (accel_graph_run (g, &error));
          g_test_message ("%s", error->message);
          g_assert_nonnull (strstr (
              error->message, "cannot restart: the description is not live"));
        }
      accel_fault_clear ();
    }
}

/* a description that ends its stream early (fakesink num-buffers=3) fails
 * the run at the next frame: the frames after it were thrown away, and the
 * full queue never drained */
static void
test_gst_sink_early_eos (void)
{
  static const char *const need[] = { "fakesink", NULL };
  g_autoptr (AccelGraph) g = accel_graph_new ("gst");
  g_autoptr (GError) error = NULL;
  AccelStage *src, *sink;

  if (!have_elements (need))
    return;
  src = accel_test_stage (g, "core.test-source", "src");
  sink = accel_test_stage (g, "io.gst-sink", "out");
  g_object_set (src, "format", "RGBA8", "width", 16, "height", 8, "num-buffers",
      (gint64)40, NULL);
  g_object_set (sink, "description", "fakesink num-buffers=3", "on-fault",
      ACCEL_SUPERVISION_ESCALATE, NULL);
  test_link (g, "src", "out");
  g_assert_false (accel_graph_run (g, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message,
      "the GStreamer pipeline ended its stream before the graph did"));
}

/* a description that ends its stream as the graph's last frame comes (an
 * element refusing it to end the stream) dropped that frame, and the run
 * ended as if it were written: the frames that reached none of its sinks
 * are counted lost and fail the end of stream. One that takes every
 * frame ends whole */
static void
test_gst_sink_ends_at_last_frame (void)
{
  static const char *const need[] = { "identity", "fakesink", NULL };

  if (!have_elements (need))
    return;
  for (guint eos_after = 10; eos_after <= 11; eos_after++)
    {
      g_autoptr (AccelGraph) g = accel_graph_new ("gst");
      g_autoptr (GError) error = NULL;
      g_autofree gchar *description
          = g_strdup_printf ("identity eos-after=%u ! fakesink", eos_after);
      AccelStage *src = accel_test_stage (g, "core.test-source", "src");
      AccelStage *sink = accel_test_stage (g, "io.gst-sink", "out");
      gboolean ran;

      g_object_set (src, "format", "RGBA8", "width", 16, "height", 8,
          "num-buffers", (gint64)10, NULL);
      g_object_set (sink, "description", description, "on-fault",
          ACCEL_SUPERVISION_ESCALATE, NULL);
      test_link (g, "src", "out");
      ran = accel_graph_run (g, &error);
      g_test_message (
          "eos-after=%u: %s", eos_after, error ? error->message : "whole");
      if (eos_after == 11)
        {
          g_assert_no_error (error);
          g_assert_true (ran);
          g_assert_cmpuint (accel_stage_get_n_lost (sink), ==, 0);
          continue;
        }
      g_assert_false (ran);
      g_assert_nonnull (error);
      g_assert_nonnull (strstr (error->message,
          "the last 1 of the 10 frames it was given reached none of its "
          "sinks"));
      g_assert_cmpuint (accel_stage_get_n_lost (sink), ==, 1);
    }
}

/* core.test-source (RGBA8 16x8) into io.gst-sink of @description, which
 * the graph's preparation refuses with @code: the error, taken */
static GError *
gst_sink_prepare_error (const char *description, gint code)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("gst");
  GError *error = NULL;
  AccelStage *src = accel_test_stage (g, "core.test-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.gst-sink", "out");

  g_object_set (src, "format", "RGBA8", "width", 16, "height", 8, NULL);
  g_object_set (sink, "description", description, NULL);
  test_link (g, "src", "out");
  g_assert_false (accel_graph_prepare (g, &error));
  g_assert_error (error, ACCEL_ERROR, code);
  g_test_message ("%s", error->message);
  return error;
}

/* a file a sink element of the description writes is checked as the
 * graph is prepared, as the file sinks' are: the start failed with
 * GStreamer's "Could not open file" */
static void
test_gst_sink_location_checked (void)
{
  static const char *const need[] = { "fakesink", "filesink", NULL };
  g_autofree gchar *dir = test_dir_new ();
  g_autofree gchar *description = g_strdup_printf (
      "tee name=t ! fakesink t. ! filesink location=%s/gone/out.raw", dir);
  g_autoptr (GError) error = NULL;

  if (!have_elements (need))
    return;
  error = gst_sink_prepare_error (description, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_nonnull (strstr (error->message, "/gone/out.raw: its directory "
                                            "does not exist"));
  test_dir_remove (dir);
}

/* an error the description posts mid-stream fails a frame, which the
 * supervisor answers: on-fault stop ends the stage's stream, resume skips
 * the frames the failed pipeline cannot take. Either way the run ends
 * with the frames skipped and lost counted (accel-run's status 3), where
 * the end of stream failed it once more with the same error (status 1) */
static void
test_gst_sink_fault_supervised (void)
{
  static const char *const need[] = { "identity", "fakesink", NULL };
  static const AccelSupervision strategies[]
      = { ACCEL_SUPERVISION_STOP, ACCEL_SUPERVISION_RESUME };

  if (!have_elements (need))
    return;
  for (guint i = 0; i < G_N_ELEMENTS (strategies); i++)
    {
      g_autoptr (AccelGraph) g = accel_graph_new ("gst");
      g_autoptr (GError) error = NULL;
      AccelStage *src = accel_test_stage (g, "core.test-source", "src");
      AccelStage *sink = accel_test_stage (g, "io.gst-sink", "out");
      g_autofree gchar *fault = NULL;

      g_object_set (src, "format", "RGBA8", "width", 16, "height", 8,
          "num-buffers", (gint64)30, NULL);
      g_object_set (sink, "description", "identity error-after=10 ! fakesink",
          "on-fault", strategies[i], NULL);
      test_link (g, "src", "out");
      g_assert_true (accel_graph_run (g, &error));
      g_assert_no_error (error);
      fault = accel_stage_dup_first_fault (sink);
      g_test_message ("%s", fault);
      g_assert_nonnull (strstr (fault, "GStreamer element"));
      /* stop skips the frame that failed; resume every one after it */
      if (strategies[i] == ACCEL_SUPERVISION_STOP)
        g_assert_cmpuint (accel_stage_get_n_skipped (sink), ==, 1);
      else
        g_assert_cmpuint (accel_stage_get_n_skipped (sink), >=, 10);
      g_assert_cmpuint (
          accel_stage_get_n_processed (sink) + accel_stage_get_n_skipped (sink),
          <=, 30);
    }
}

/* a description whose first element cannot take the frames fails the
 * graph's preparation, saying what it takes: it failed once frames came */
static void
test_gst_sink_refuses_frames (void)
{
  static const char *const need[] = { "capsfilter", "fakesink", NULL };
  g_autoptr (GError) error = NULL;

  if (!have_elements (need))
    return;
  error = gst_sink_prepare_error (
      "video/x-raw,format=RGB ! fakesink", ACCEL_ERROR_TYPE_MISMATCH);
  g_assert_true (g_str_has_prefix (error->message,
      "stage 'out' (io.gst-sink): the GStreamer description "
      "'video/x-raw,format=RGB ! fakesink' does not take the stage's frames, "
      "video/x-raw, format=(string)RGBA, width=(int)16, height=(int)8"));
  g_assert_nonnull (strstr (error->message,
      "; it takes video/x-raw, format=(string)RGB (a videoconvert or "
      "videoscale at its start may help)"));
}

/* an error the description posts after the last frame went in, before the
 * end of the stream, fails the run: its output is not whole */
static void
test_gst_sink_error_at_eos (void)
{
  static const char *const need[] = { "identity", "fakesink", NULL };
  g_autoptr (AccelGraph) g = accel_graph_new ("gst");
  g_autoptr (GError) error = NULL;
  AccelStage *src, *sink;
  AccelType type;
  gboolean ok = FALSE;

  if (!have_elements (need))
    return;
  src = accel_test_stage (g, "io.app-source", "src");
  sink = accel_test_stage (g, "io.gst-sink", "out");
  g_object_set (src, "width", 16, "height", 8, NULL);
  g_object_set (sink, "description", "identity error-after=3 ! fakesink",
      "on-fault", ACCEL_SUPERVISION_ESCALATE, NULL);
  test_link (g, "src", "out");
  g_assert_true (accel_graph_start (g, &error));
  g_assert_no_error (error);
  accel_type_init_image (&type, ACCEL_FORMAT_RGBA8, ACCEL_MEMORY_HOST, 16, 8);
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr (AccelBuffer) buf
          = accel_buffer_new (accel_device_get_host (), &type, &error);

      g_assert_no_error (error);
      g_signal_emit_by_name (src, "push-buffer", buf, &error, &ok);
      g_assert_no_error (error);
      g_assert_true (ok);
    }
  /* the error is on the bus before the end of the stream comes */
  g_usleep (300 * 1000);
  g_signal_emit_by_name (src, "end-of-stream", &ok);
  g_assert_false (accel_graph_wait (g, -1, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "identity"));
  accel_graph_stop (g);
}

/* rows of GRAY8 7 wide are 8 bytes in GStreamer's buffers: the byte of
 * padding is zero, where it was the heap's (valgrind: uninitialised bytes
 * written) and the file differed from run to run */
static void
test_gst_sink_padding_zeroed (void)
{
  static const char *const need[] = { "filesink", NULL };
  g_autoptr (AccelGraph) g = accel_graph_new ("gst");
  g_autofree gchar *dir = NULL, *path = NULL, *description = NULL;
  g_autofree guint8 *data = NULL;
  gsize len = 0;
  AccelStage *src, *sink;

  if (!have_elements (need))
    return;
  dir = test_dir_new ();
  path = g_build_filename (dir, "out.raw", NULL);
  description = g_strdup_printf ("filesink location=%s", path);
  src = accel_test_stage (g, "core.test-source", "src");
  sink = accel_test_stage (g, "io.gst-sink", "out");
  g_object_set (src, "format", "GRAY8", "width", 7, "height", 5, "num-buffers",
      (gint64)3, NULL);
  g_object_set (sink, "description", description, NULL);
  test_link (g, "src", "out");
  test_run (g);

  g_assert_true (g_file_get_contents (path, (gchar **)&data, &len, NULL));
  g_assert_cmpuint (len, ==, 3 * 5 * 8);
  for (guint s = 0; s < 3; s++)
    for (guint r = 0; r < 5; r++)
      {
        const guint8 *row = data + (s * 5 + r) * 8;
        for (guint c = 0; c < 7; c++)
          g_assert_cmpuint (row[c], ==, ACCEL_PATTERN_U8 (s, r * 7 + c));
        g_assert_cmpuint (row[7], ==, 0);
      }
  test_dir_remove (dir);
}

/* a description that fails with frames in its queue drops them as the
 * stage restarts: they are counted lost, where they counted as written.
 * Each identity fails at its 21st buffer, with up to two frames in the
 * queue and four in the appsrc behind it; the source's 60 frames take two
 * or three pipelines, each failure seen by a frame that follows it */
static void
test_gst_sink_restart_counts_lost (void)
{
  static const char *const need[] = { "queue", "identity", "fakesink", NULL };
  g_autoptr (AccelGraph) g = accel_graph_new ("gst");
  g_autoptr (GError) error = NULL;
  AccelStage *src, *sink;
  guint64 restarts;

  if (!have_elements (need))
    return;
  src = accel_test_stage (g, "core.test-source", "src");
  sink = accel_test_stage (g, "io.gst-sink", "out");
  g_object_set (src, "format", "GRAY8", "width", 8, "height", 8, "num-buffers",
      (gint64)60, NULL);
  g_object_set (sink, "description",
      "queue max-size-buffers=2 ! identity sleep-time=2000 error-after=20 ! "
      "fakesink",
      "on-fault", ACCEL_SUPERVISION_RESTART, NULL);
  test_link (g, "src", "out");
  accel_graph_run (g, &error);
  g_assert_no_error (error);
  restarts = accel_stage_get_n_restarts (sink);
  g_assert_cmpuint (restarts, >=, 1);
  g_assert_cmpuint (accel_stage_get_n_skipped (sink), ==, restarts);
  g_assert_cmpuint (accel_stage_get_n_lost (sink), >=, 1);
  g_assert_cmpuint (accel_stage_get_n_processed (sink) + restarts, ==, 60);
}

/* a description that takes no more frames (its fakesink waits 100 s for
 * the second) holds io.gst-sink in its wait for room: the stage's own
 * watchdog bounds that wait, and the frame fails saying what it waited
 * for, where the run waited for good. Frames that the pipeline then drops
 * are counted lost */
static void
test_gst_sink_stalled_watchdog (void)
{
  static const char *const need[] = { "fakesink", NULL };
  g_autoptr (AccelGraph) g = accel_graph_new ("stalled");
  g_autoptr (GError) error = NULL;
  AccelStage *src, *sink;
  gint64 t0;

  if (!have_elements (need))
    return;
  src = accel_test_stage (g, "io.pattern-source", "src");
  sink = accel_test_stage (g, "io.gst-sink", "out");
  g_object_set (src, "width", 8, "height", 8, "framerate", "1/100",
      "num-buffers", (gint64)20, NULL);
  /* restarted once, with a new pipeline as stuck: the stop of each waits
   * for no end of stream (it waited eos-timeout, a minute here, behind the
   * frame the fakesink holds) */
  g_object_set (sink, "description", "fakesink sync=true", "framerate", "1/100",
      "watchdog", (gint64)300, "eos-timeout", (gint64)60000, "on-fault",
      ACCEL_SUPERVISION_RESTART, "max-restarts", 1u, NULL);
  test_link (g, "src", "out");
  t0 = g_get_monotonic_time ();
  g_assert_true (accel_graph_start (g, &error));
  g_assert_no_error (error);
  g_assert_false (accel_graph_wait (g, 5 * G_USEC_PER_SEC, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_true (g_error_matches (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT));
  g_assert_true (g_str_has_prefix (
      error->message, "stage 'out' (io.gst-sink): restarted 1 times within "));
  g_assert_nonnull (
      strstr (error->message, "the GStreamer pipeline took no frame for "));
  g_assert_nonnull (
      strstr (error->message, " ms, past the stage's 300 ms watchdog: frame "));
  g_assert_nonnull (strstr (error->message, " waited for room behind the 4 "
                                            "it holds"));
  accel_graph_stop (g);
  g_test_assert_expected_messages ();
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 5 * G_USEC_PER_SEC);
  g_assert_cmpuint (accel_stage_get_n_lost (sink), >=, 1);
}

/* a description whose tee has a branch that gets no frame (a valve that
 * drops all, its end of stream too) cannot start playing: its other sink
 * prerolled and waits for it, holding the frames. The wait for room, or
 * for the end of stream of a short stream, is bounded by start-timeout and
 * names the sink (the run waited for good, or eos-timeout, a minute here,
 * and said only that the pipeline did not finish) */
static void
test_gst_sink_unprerolled_branch (void)
{
  static const char *const need[]
      = { "tee", "valve", "queue", "fakesink", NULL };
  static const struct
  {
    gint64 frames;
    const char *description, *says;
  } cases[] = {
    { 200,
        "tee name=t ! fakesink name=seen t. ! valve drop=true ! "
        "fakesink name=starved",
        "the GStreamer pipeline took no frame for " },
    { 3,
        "tee name=t ! queue ! fakesink name=seen t. ! queue ! valve "
        "drop=true ! fakesink name=starved",
        "the GStreamer pipeline did not finish within 300 ms of its end of "
        "stream, and cannot start playing: " },
  };

  if (!have_elements (need))
    return;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (AccelGraph) g = accel_graph_new ("unprerolled");
      g_autoptr (GError) error = NULL;
      AccelStage *src = accel_test_stage (g, "io.pattern-source", "src");
      AccelStage *sink = accel_test_stage (g, "io.gst-sink", "out");
      gint64 t0 = g_get_monotonic_time ();

      g_object_set (
          src, "width", 8, "height", 8, "num-buffers", cases[i].frames, NULL);
      g_object_set (sink, "description", cases[i].description, "start-timeout",
          (gint64)300, "eos-timeout", (gint64)60000, NULL);
      test_link (g, "src", "out");
      g_assert_true (accel_graph_start (g, &error));
      g_assert_no_error (error);
      g_assert_false (accel_graph_wait (g, 5 * G_USEC_PER_SEC, &error));
      g_assert_nonnull (error);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, cases[i].says));
      g_assert_nonnull (strstr (error->message,
          "its sink 'starved' got no frame to preroll with, and the pipeline "
          "plays only once every sink has one"));
      g_assert_true (g_error_matches (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT));
      accel_graph_stop (g);
      g_assert_cmpint (g_get_monotonic_time () - t0, <, 5 * G_USEC_PER_SEC);
    }
}

#ifdef ACCEL_IO_HAVE_PNG
/* a graph stopped while its io.gst-sink waits for GStreamer to take a
 * frame: the render () that stops is no fault. Supervised as one, the
 * stop restarted the sink under on-fault restart (a new pipeline built
 * as the graph stopped) or counted a skipped frame under resume */
static void
test_gst_sink_stop_is_no_fault (void)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("stop");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (g, "io.pattern-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.gst-sink", "sink");

  g_object_set (src, "width", 8, "height", 8, NULL);
  g_object_set (sink, "description", "fakesink sync=true", "framerate", "4/1",
      "on-fault", ACCEL_SUPERVISION_RESTART, NULL);
  test_link (g, "src", "sink");
  g_assert_true (accel_graph_start (g, &error));
  g_assert_no_error (error);
  /* GStreamer takes four frames a second: the sink waits on it */
  while (accel_stage_get_n_processed (sink) < 2)
    g_usleep (10000);
  accel_graph_stop (g);
  g_assert_cmpuint (accel_stage_get_n_restarts (sink), ==, 0);
  g_assert_cmpuint (accel_stage_get_n_skipped (sink), ==, 0);
}

/* a parameter changed while io.gst-sink waits for GStreamer to take a
 * frame waits for the frame: the sink took the change for a stop and
 * failed the graph ("stopped while the GStreamer pipeline took no data") */
static void
test_gst_sink_param_while_waiting (void)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("param");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (g, "io.pattern-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.gst-sink", "sink");

  g_object_set (src, "width", 8, "height", 8, "num-buffers", (gint64)12, NULL);
  g_object_set (
      sink, "description", "fakesink sync=true", "framerate", "40/1", NULL);
  test_link (g, "src", "sink");
  g_assert_true (accel_graph_start (g, &error));
  g_assert_no_error (error);
  /* GStreamer takes 40 frames a second: the sink waits on it */
  while (accel_stage_get_n_processed (sink) < 2)
    g_usleep (1000);
  for (gint64 t = 20000; t < 20005; t++)
    {
      accel_test_set_param_async (sink, "eos-timeout", t);
      g_usleep (20000);
    }
  g_assert_true (accel_graph_wait (g, -1, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (accel_stage_get_n_processed (sink), ==, 12);
  g_assert_cmpuint (accel_stage_get_n_skipped (sink), ==, 0);
}

/* core.test-source -> gst-sink (pngenc): lossless, so the files hold the
 * test pattern exactly, and they are complete when the run returns */
static void
test_gst_sink_png (void)
{
  static const char *const need[]
      = { "videoconvert", "pngenc", "multifilesink", NULL };
  g_autoptr (AccelGraph) g = accel_graph_new ("gst");
  g_autofree gchar *dir = NULL, *description = NULL;
  AccelStage *src, *sink;

  if (!have_elements (need))
    return;
  dir = test_dir_new ();
  description = g_strdup_printf (
      "videoconvert ! pngenc ! multifilesink location=%s/f%%05d.png", dir);
  src = accel_test_stage (g, "core.test-source", "src");
  sink = accel_test_stage (g, "io.gst-sink", "out");
  g_object_set (src, "format", "RGBA8", "width", 32, "height", 24,
      "num-buffers", (gint64)4, NULL);
  g_object_set (sink, "description", description, NULL);
  test_link (g, "src", "out");
  test_run (g);

  g_assert_cmpuint (test_dir_count (dir), ==, 4);
  for (guint s = 0; s < 4; s++)
    {
      g_autofree gchar *name = g_strdup_printf ("f%05u.png", s);
      g_autofree gchar *path = g_build_filename (dir, name, NULL);
      guint w, h, format;
      g_autofree guint8 *px = test_png_read (path, &w, &h, &format);
      g_assert_cmpuint (w, ==, 32);
      g_assert_cmpuint (h, ==, 24);
      g_assert_cmpuint (format, ==, PNG_FORMAT_RGBA);
      for (guint i = 0; i < 32 * 24 * 4; i++)
        g_assert_cmpuint (px[i], ==, ACCEL_PATTERN_U8 (s, i));
    }
  test_dir_remove (dir);
}

/* a restart would open the description's files again from the start: it
 * fails the graph rather than lose the frames already written */
static void
test_gst_sink_restart_refused (void)
{
  static const char *const need[]
      = { "videoconvert", "pngenc", "multifilesink", NULL };
  g_autoptr (AccelGraph) g = accel_graph_new ("gst");
  g_autoptr (GError) error = NULL;
  g_autofree gchar *dir = NULL, *description = NULL;
  AccelStage *src, *sink;

  if (!have_elements (need))
    return;
  accel_fault_clear ();
  dir = test_dir_new ();
  description = g_strdup_printf (
      "videoconvert ! pngenc ! multifilesink location=%s/f%%05d.png", dir);
  src = accel_test_stage (g, "core.test-source", "src");
  sink = accel_test_stage (g, "io.gst-sink", "out");
  g_object_set (src, "format", "RGBA8", "width", 32, "height", 24,
      "num-buffers", (gint64)6, NULL);
  g_object_set (sink, "description", description, "on-fault",
      ACCEL_SUPERVISION_RESTART, NULL);
  test_link (g, "src", "out");
  accel_fault_inject ("out", ACCEL_FAULT_LIBRARY, 3);
  g_assert_false (accel_graph_run (g, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message,
      "stage 'out' (io.gst-sink): restart after 'injected library error "
      "(STATUS_INTERNAL_ERROR)' failed: cannot restart: its element "
      "'multifilesink"));
  accel_fault_clear ();
  test_dir_remove (dir);
}
#endif

static void
assert_prepare_fails (AccelGraph *g, const char *stage, const char *text)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *prefix = g_strdup_printf ("stage '%s' ", stage);

  g_assert_false (accel_graph_prepare (g, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_true (g_str_has_prefix (error->message, prefix));
  g_assert_nonnull (strstr (error->message, text));
}

/* core.test-source (RGBA8 16x8, 2 frames) into io.gst-sink of
 * @description, run to its end */
static void
run_gst_sink (const char *description)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("gst");
  AccelStage *src = accel_test_stage (g, "core.test-source", "src");
  AccelStage *sink = accel_test_stage (g, "io.gst-sink", "out");

  g_object_set (src, "format", "RGBA8", "width", 16, "height", 8, "num-buffers",
      (gint64)2, NULL);
  g_object_set (sink, "description", description, NULL);
  test_link (g, "src", "out");
  test_run (g);
}

/* a location an element fills with a frame number (multifilesink's,
 * multifilesrc's) is a pattern of one %d at most: GStreamer gives it to
 * printf () as is, and %s crashed the run, %n aborted it, %d%d wrote
 * garbage into the names. Refused as the graph is prepared */
static void
test_gst_location_patterns (void)
{
  static const char *const need[] = { "multifilesink", "multifilesrc", NULL };
  static const char *const refused[] = { "f%s.raw", "f%d%d.raw", "f%ld.raw",
    "f%*d.raw", "f%n.raw", "f%", NULL };
  g_autofree gchar *dir = test_dir_new ();

  if (!have_elements (need))
    return;
  for (guint i = 0; refused[i]; i++)
    {
      g_autofree gchar *sink
          = g_strdup_printf ("multifilesink location=%s/%s", dir, refused[i]);
      g_autofree gchar *src = g_strdup_printf (
          "multifilesrc location=%s/%s "
          "caps=video/x-raw,format=RGBA,width=16,height=8,framerate=1/1",
          dir, refused[i]);
      g_autoptr (GError) error
          = gst_sink_prepare_error (sink, ACCEL_ERROR_INVALID_PIPELINE);
      g_autoptr (AccelGraph) g = accel_graph_new ("gst");
      AccelStage *camera = accel_test_stage (g, "io.gst-source", "camera");

      g_assert_nonnull (strstr (error->message, "takes one %d"));
      accel_test_stage (g, "core.null-sink", "sink");
      g_object_set (camera, "description", src, NULL);
      test_link (g, "camera", "sink");
      assert_prepare_fails (g, "camera", "takes one %d");
    }
  /* a pattern it can fill, and a filesink's %, which is a name */
  {
    g_autofree gchar *sink
        = g_strdup_printf ("multifilesink location=%s/f%%05d-%%%%.raw", dir);
    g_autofree gchar *file
        = g_strdup_printf ("filesink location=%s/f%%s.raw", dir);
    g_autofree gchar *first = g_build_filename (dir, "f00000-%.raw", NULL);
    g_autofree gchar *named = g_build_filename (dir, "f%s.raw", NULL);

    run_gst_sink (sink);
    run_gst_sink (file);
    g_assert_true (g_file_test (first, G_FILE_TEST_IS_REGULAR));
    g_assert_true (g_file_test (named, G_FILE_TEST_IS_REGULAR));
  }
  test_dir_remove (dir);
}

static void
test_gst_bad_descriptions (void)
{
  g_autofree gchar *missing = NULL;

  {
    g_autoptr (AccelGraph) g = accel_graph_new ("gst");
    AccelStage *src = accel_test_stage (g, "io.gst-source", "camera");
    accel_test_stage (g, "core.null-sink", "sink");
    g_object_set (src, "description", "nosuchelement ! videoconvert", NULL);
    test_link (g, "camera", "sink");
    assert_prepare_fails (g, "camera", "nosuchelement");
  }
  {
    g_autoptr (AccelGraph) g = accel_graph_new ("gst");
    AccelStage *sink;
    accel_test_stage (g, "io.pattern-source", "src");
    sink = accel_test_stage (g, "io.gst-sink", "screen");
    g_object_set (sink, "description", "videoconvert ! nosuchsink", NULL);
    test_link (g, "src", "screen");
    assert_prepare_fails (g, "screen", "nosuchsink");
  }
  {
    g_autoptr (AccelGraph) g = accel_graph_new ("gst");
    AccelStage *src = accel_test_stage (g, "io.gst-source", "camera");
    accel_test_stage (g, "core.null-sink", "sink");
    missing = g_strdup_printf (
        "filesrc name=reader location=%s/accel-missing-file ! decodebin ! "
        "videoconvert",
        g_get_tmp_dir ());
    g_object_set (src, "description", missing, NULL);
    test_link (g, "camera", "sink");
    assert_prepare_fails (g, "camera", "GStreamer element 'reader' failed");
  }
  {
    static const char *const need[] = { "videotestsrc", NULL };
    g_autoptr (AccelGraph) g = accel_graph_new ("gst");
    AccelStage *src;
    if (!have_elements (need))
      return;
    src = accel_test_stage (g, "io.gst-source", "camera");
    accel_test_stage (g, "core.null-sink", "sink");
    g_object_set (src, "description",
        "videotestsrc name=bars ! video/x-raw,format=YUY2", NULL);
    test_link (g, "camera", "sink");
    assert_prepare_fails (g, "camera", "a videoconvert may help");
  }
}

#endif /* ACCEL_IO_HAVE_GST */

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  accel_backend_set_default (ACCEL_BACKEND_HOST, NULL);
#ifdef ACCEL_IO_HAVE_GST
  /* the plugin initialises GStreamer too; the tests look for elements */
  gst_init (NULL, NULL);
#endif

  g_test_add_func ("/io/registered", test_registered);
  g_test_add_func (
      "/io/fixed-after-failed-prepare", test_fixed_after_failed_prepare);
  g_test_add_func ("/io/parameters-fixed", test_parameters_fixed);
  g_test_add_func (
      "/io/pattern-source/noise-reproducible", test_noise_reproducible);
  g_test_add_data_func (
      "/io/pattern-source/timestamps", NULL, test_pattern_timestamps);
  g_test_add_data_func ("/io/pattern-source/timestamps-through-a-transform",
      "realtime.box-blur", test_pattern_timestamps);
  g_test_add_func (
      "/io/pattern-source/timestamps-exact", test_pattern_timestamps_exact);
  g_test_add_func ("/io/pattern-source/bad-format", test_pattern_bad_format);
#ifdef ACCEL_IO_HAVE_PNG
  g_test_add_func ("/io/png-sink/smpte-bars", test_smpte_png);
  g_test_add_func ("/io/png-sink/gradient-gray", test_gradient_gray_png);
  g_test_add_func (
      "/io/png-sink/checkerboard-bgra", test_checkerboard_bgra_png);
  g_test_add_func ("/io/png-sink/long-name", test_png_long_name);
  g_test_add_func (
      "/io/png-sink/stale-temporary-removed", test_png_stale_temporary);
  g_test_add_func ("/io/png-sink/short-names-left", test_png_short_names);
  g_test_add_func ("/io/png-sink/bad-location", test_png_bad_location);
  g_test_add_func ("/io/png-sink/bad-format", test_png_bad_format);
#endif
  g_test_add_data_func (
      "/io/raw-file/round-trip/u8", "u8", test_raw_round_trip);
  g_test_add_data_func (
      "/io/raw-file/round-trip/f32", "f32", test_raw_round_trip);
  g_test_add_func ("/io/raw-file/loop", test_raw_loop);
  g_test_add_func ("/io/raw-file/loop-refused", test_raw_loop_refused);
  g_test_add_func (
      "/io/raw-file/type-described-twice", test_raw_type_described_twice);
  g_test_add_func ("/io/raw-file/missing-file", test_raw_missing_file);
  g_test_add_func ("/io/raw-file/directory", test_raw_directory);
  g_test_add_func (
      "/io/raw-file/restart-keeps-output", test_raw_sink_restart_keeps_output);
  g_test_add_func ("/io/raw-file/disk-full", test_raw_sink_disk_full);
  g_test_add_func ("/io/raw-file/rerun", test_raw_sink_rerun);
  g_test_add_func ("/io/checksum-sink/rerun", test_checksum_sink_rerun);
  g_test_add_func (
      "/io/checksum-sink/last-records", test_checksum_sink_last_records);
  g_test_add_func ("/io/raw-file/pipe-stop", test_raw_pipe_stop);
  g_test_add_func ("/io/raw-file/pipe-resume-counts-taken",
      test_raw_pipe_resume_counts_taken);
  g_test_add_data_func ("/io/raw-file/fifo-without-reader", "io.raw-file-sink",
      test_raw_fifo_without_reader);
  g_test_add_func (
      "/io/raw-file/fifo-start-interrupted", test_raw_fifo_start_interrupted);
  g_test_add_func ("/io/raw-file/proc-file", test_raw_source_proc_file);
  g_test_add_data_func ("/io/checksum-sink/fifo-without-reader",
      "core.checksum-sink", test_raw_fifo_without_reader);
  g_test_add_func ("/io/raw-file/pipe-restart", test_raw_pipe_restart);
  g_test_add_func (
      "/io/raw-file/restart-keeps-file", test_raw_file_restart_keeps_file);
  g_test_add_func (
      "/io/raw-file/failed-start-closes", test_raw_failed_start_closes);
  g_test_add_func (
      "/io/app-sink/slow-pull-not-hung", test_app_sink_slow_pull_not_hung);
  g_test_add_func ("/io/app/push-pull", test_app_push_pull);
  g_test_add_func ("/io/app/wrong-type", test_app_wrong_type);
  g_test_add_func ("/io/app/type-changed", test_app_type_changed);
  g_test_add_func (
      "/io/app/restart-keeps-frames", test_app_restart_keeps_frames);
  g_test_add_func ("/io/app/graph-failed", test_app_graph_failed);
  g_test_add_func (
      "/io/app/graph-failed-to-start", test_app_graph_failed_to_start);
  g_test_add_data_func ("/io/app/graph-failed-before-start/prepare",
      GINT_TO_POINTER (FALSE), test_app_graph_failed_before_start);
  g_test_add_data_func ("/io/app/graph-failed-before-start/state-dir",
      GINT_TO_POINTER (TRUE), test_app_graph_failed_before_start);
  g_test_add_func ("/io/app/source-idle-stop", test_app_source_idle_stop);
  g_test_add_func (
      "/io/app/param-during-step", test_app_source_param_during_step);
  g_test_add_data_func ("/io/app/push-after-end/eos", GINT_TO_POINTER (FALSE),
      test_app_source_push_after_end);
  g_test_add_data_func ("/io/app/push-after-end/frame-limit",
      GINT_TO_POINTER (TRUE), test_app_source_push_after_end);
  g_test_add_func (
      "/io/app/type-set-while-pushing", test_app_source_type_set_while_pushing);
  g_test_add_func ("/io/app/sink-not-pulled", test_app_sink_not_pulled);
  g_test_add_func (
      "/io/app/sink-drop-without-wait", test_app_sink_drop_without_wait);
  g_test_add_func (
      "/io/app/sink-pull-in-handler", test_app_sink_pull_in_handler);
  g_test_add_func ("/io/app/sink-run-says-wait", test_app_sink_run_says_wait);
  g_test_add_data_func ("/io/app/sink-param-while-behind", GUINT_TO_POINTER (1),
      test_app_sink_param_while_behind);
  g_test_add_data_func ("/io/app/sink-params-while-behind",
      GUINT_TO_POINTER (6), test_app_sink_param_while_behind);
  g_test_add_func (
      "/io/app/sink-drop-while-behind", test_app_sink_drop_while_behind);
  g_test_add_func (
      "/io/app/sink-flush-while-behind", test_app_sink_flush_while_behind);
  g_test_add_func (
      "/io/app/sink-end-while-aside", test_app_sink_end_while_aside);
#ifdef ACCEL_IO_HAVE_GST
  g_test_add_func ("/io/gst-source/count", test_gst_source_count);
  g_test_add_func (
      "/io/gst-source/sync-while-running", test_gst_source_sync_while_running);
  g_test_add_func ("/io/gst-source/pixels", test_gst_source_pixels);
  g_test_add_func ("/io/gst-source/planar", test_gst_source_planar);
  g_test_add_func ("/io/gst-source/live", test_gst_source_live);
  g_test_add_func ("/io/gst-source/preroll-interrupted",
      test_gst_source_preroll_interrupted);
  g_test_add_func ("/io/gst/memory-host", test_gst_memory_host);
  g_test_add_func ("/io/gst-sink/early-eos", test_gst_sink_early_eos);
  g_test_add_data_func (
      "/io/raw-file-sink/file-kept", "io.raw-file-sink", test_sink_file_kept);
  g_test_add_data_func (
      "/io/checksum-sink/file-kept", "core.checksum-sink", test_sink_file_kept);
  g_test_add_func (
      "/io/gst-source/error-after-images", test_gst_source_error_after_images);
  g_test_add_func (
      "/io/gst-sink/ends-at-last-frame", test_gst_sink_ends_at_last_frame);
  g_test_add_func ("/io/gst-sink/refuses-frames", test_gst_sink_refuses_frames);
  g_test_add_func (
      "/io/gst-sink/location-checked", test_gst_sink_location_checked);
  g_test_add_func ("/io/gst/location-patterns", test_gst_location_patterns);
  g_test_add_func (
      "/io/gst-sink/fault-supervised", test_gst_sink_fault_supervised);
  g_test_add_func ("/io/gst-source/restart", test_gst_source_restart);
  g_test_add_func ("/io/gst-sink/error-at-eos", test_gst_sink_error_at_eos);
  g_test_add_func ("/io/gst-sink/padding-zeroed", test_gst_sink_padding_zeroed);
  g_test_add_func (
      "/io/gst-sink/restart-counts-lost", test_gst_sink_restart_counts_lost);
  g_test_add_func (
      "/io/gst-sink/stalled-watchdog", test_gst_sink_stalled_watchdog);
  g_test_add_func (
      "/io/gst-sink/unprerolled-branch", test_gst_sink_unprerolled_branch);
#ifdef ACCEL_IO_HAVE_PNG
  g_test_add_func ("/io/gst-sink/png", test_gst_sink_png);
  g_test_add_func (
      "/io/gst-sink/stop-is-no-fault", test_gst_sink_stop_is_no_fault);
  g_test_add_func (
      "/io/gst-sink/param-while-waiting", test_gst_sink_param_while_waiting);
  g_test_add_func (
      "/io/gst-sink/restart-refused", test_gst_sink_restart_refused);
#endif
  g_test_add_func ("/io/gst/bad-descriptions", test_gst_bad_descriptions);
#endif
  return g_test_run ();
}
