/* accel-run end to end: the real binary on real files */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <signal.h>

#include "accel-test.h"

typedef struct
{
  gint status;
  gchar *out;
  gchar *err;
} Result;

static void
result_clear (Result *r)
{
  g_free (r->out);
  g_free (r->err);
}

/* runs accel-run with @args (NULL-terminated), on the host backend, in
 * @cwd (NULL: here) */
static void
run_in (Result *r, const char *cwd, const char *first, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GSubprocess) p = NULL;
  g_autoptr (GError) error = NULL;
  va_list ap;

  g_ptr_array_add (argv, (gpointer)g_getenv ("ACCEL_RUN"));
  g_ptr_array_add (argv, (gpointer) "--backend=host");
  va_start (ap, first);
  for (const char *a = first; a; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (gpointer)a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);

  launcher = g_subprocess_launcher_new (
      G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  if (cwd)
    g_subprocess_launcher_set_cwd (launcher, cwd);
  p = g_subprocess_launcher_spawnv (
      launcher, (const char *const *)argv->pdata, &error);
  g_assert_no_error (error);
  g_assert_true (
      g_subprocess_communicate_utf8 (p, NULL, NULL, &r->out, &r->err, &error));
  g_assert_no_error (error);
  r->status
      = g_subprocess_get_if_exited (p) ? g_subprocess_get_exit_status (p) : -1;
}

#define run(r, ...) run_in (r, NULL, __VA_ARGS__)

static gchar *
example (const char *name)
{
  return g_test_build_filename (
      G_TEST_DIST, "..", "..", "pipelines", "examples", name, NULL);
}

static void
test_validate (void)
{
  g_autofree gchar *good = example ("demo.yaml");
  g_autofree gchar *bad
      = g_test_build_filename (G_TEST_DIST, "bad", "bad-param.yaml", NULL);
  Result r = { 0 }, s = { 0 }, u = { 0 };

  run (&r, "--validate", good, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "valid"));

  run (&s, "--validate", bad, NULL);
  g_assert_cmpint (s.status, ==, 2);
  g_assert_nonnull (strstr (s.err, "bad-param.yaml:7:14: parameter 'width'"));

  run (&u, "--no-such-option", NULL);
  g_assert_cmpint (u.status, ==, 2);
  result_clear (&r);
  result_clear (&s);
  result_clear (&u);
}

static void
test_list_and_describe (void)
{
  Result r = { 0 }, s = { 0 }, t = { 0 };

  run (&r, "--list", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "core.scale "));
  g_assert_nonnull (strstr (r.out, "realtime.gaussian-blur "));

  run (&s, "--describe", "core.scale", NULL);
  g_assert_cmpint (s.status, ==, 0);
  g_assert_true (g_str_has_prefix (s.out, "core.scale: "));
  g_assert_nonnull (strstr (s.out, "  offset         float, default 0"));

  run (&t, "--describe", "core.scael", NULL);
  g_assert_cmpint (t.status, ==, 2);
  result_clear (&r);
  result_clear (&s);
  result_clear (&t);
}

static void
test_dot_frames_stats_set (void)
{
  g_autofree gchar *demo = example ("demo.yaml");
  g_autofree gchar *dir = g_dir_make_tmp ("accel-run-XXXXXX", NULL);
  g_autofree gchar *dot = g_build_filename (dir, "g.dot", NULL);
  g_autofree gchar *stats = g_build_filename (dir, "s.json", NULL);
  g_autofree gchar *dot_text = NULL, *json = NULL;
  g_autofree gchar *dot_arg = g_strdup_printf ("--dot=%s", dot);
  g_autofree gchar *stats_arg = g_strdup_printf ("--stats=%s", stats);
  Result r = { 0 };

  run (&r, dot_arg, stats_arg, "--frames=5", "--set", "blur.sigma=1.5", "--set",
      "camera.width=64", "--set", "camera.height=48", demo, NULL);
  g_assert_cmpint (r.status, ==, 0);
  /* not a terminal: plain lines */
  g_assert_null (strstr (r.out, "\r"));
  g_assert_nonnull (strstr (r.out, "5 frames"));

  g_assert_true (g_file_get_contents (dot, &dot_text, NULL, NULL));
  g_assert_true (g_str_has_prefix (dot_text, "digraph \"demo\""));
  g_assert_nonnull (strstr (dot_text, "image<RGBA8>[48x64]@device"));

  g_assert_true (g_file_get_contents (stats, &json, NULL, NULL));
  g_assert_nonnull (strstr (json, "\"frames\": 5,"));
  g_assert_nonnull (strstr (json, "\"completed\": true"));
  g_assert_nonnull (
      strstr (json, "{\"name\": \"check\", \"kind\": \"core.null-sink\", "
                    "\"processed\": 5,"));
  g_unlink (dot);
  g_unlink (stats);
  g_rmdir (dir);
  result_clear (&r);
}

/* Ctrl-C: end of stream through the graph, a clean exit */
static void
test_sigint (void)
{
  g_autofree gchar *endless
      = g_test_build_filename (G_TEST_DIST, "endless.yaml", NULL);
  const char *argv[]
      = { g_getenv ("ACCEL_RUN"), "--backend=host", "--quiet", endless, NULL };
  g_autoptr (GSubprocess) p = NULL;
  g_autoptr (GError) error = NULL;
  gint64 t0;

  p = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_NONE, &error);
  g_assert_no_error (error);
  g_usleep (500000);
  g_assert_true (g_subprocess_get_identifier (p) != NULL);
  g_subprocess_send_signal (p, SIGINT);
  t0 = g_get_monotonic_time ();
  g_assert_true (g_subprocess_wait (p, NULL, &error));
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 5 * G_USEC_PER_SEC);
  g_assert_true (g_subprocess_get_if_exited (p));
  g_assert_cmpint (g_subprocess_get_exit_status (p), ==, 0);
}

static void
test_runtime_error (void)
{
  g_autofree gchar *demo = example ("demo.yaml");
  Result r = { 0 };

  g_setenv ("ACCEL_FAULT",
      "edges:oom:1,edges:oom:1,edges:oom:2,edges:oom:2,"
      "edges:oom:3,edges:oom:3,edges:oom:4,edges:oom:4",
      TRUE);
  run (&r, "--frames=10", "--set", "camera.width=32", "--set",
      "camera.height=32", "--set", "edges.max-restarts=2", demo, NULL);
  g_unsetenv ("ACCEL_FAULT");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "stage 'edges' (realtime.sobel): "
                                   "restarted 2 times"));
  result_clear (&r);
}

static void
remove_dir (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d && (name = g_dir_read_name (d)))
    {
      g_autofree gchar *p = g_build_filename (dir, name, NULL);
      g_unlink (p);
    }
  g_rmdir (dir);
}

/* every example runs on the host backend, a few frames each */
static void
test_examples_run (void)
{
  g_autofree gchar *dir = example ("");
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autofree gchar *cwd = g_dir_make_tmp ("accel-examples-XXXXXX", NULL);
  const char *name;
  guint n = 0;

  while ((name = g_dir_read_name (d)))
    {
      g_autofree gchar *path = g_build_filename (dir, name, NULL);
      Result r = { 0 };
      if (!g_str_has_suffix (name, ".yaml"))
        continue;
      run_in (&r, cwd, "--quiet", "--frames=3", path, NULL);
      if (r.status != 0)
        g_printerr ("%s: %s", name, r.err);
      g_assert_cmpint (r.status, ==, 0);
      result_clear (&r);
      n++;
    }
  g_assert_cmpuint (n, >=, 5);
  remove_dir (cwd);
}

/* Ctrl-C while encoding: the file is finished and plays back */
static void
test_sigint_video_playable (void)
{
  g_autofree gchar *endless
      = g_test_build_filename (G_TEST_DIST, "endless-video.yaml", NULL);
  g_autofree gchar *readback
      = g_test_build_filename (G_TEST_DIST, "readback.yaml", NULL);
  g_autofree gchar *cwd = g_dir_make_tmp ("accel-sigint-XXXXXX", NULL);
  const char *argv[]
      = { g_getenv ("ACCEL_RUN"), "--backend=host", "--quiet", endless, NULL };
  g_autoptr (GSubprocessLauncher) launcher
      = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_autoptr (GSubprocess) p = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree gchar *stats = g_build_filename (cwd, "s.json", NULL);
  g_autofree gchar *stats_arg = g_strdup_printf ("--stats=%s", stats);
  g_autofree gchar *json = NULL;
  Result r = { 0 };

  g_subprocess_launcher_set_cwd (launcher, cwd);
  p = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);
  g_usleep (1500000);
  g_subprocess_send_signal (p, SIGINT);
  g_assert_true (g_subprocess_wait (p, NULL, &error));
  g_assert_cmpint (g_subprocess_get_exit_status (p), ==, 0);

  run_in (&r, cwd, "--quiet", stats_arg, readback, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_get_contents (stats, &json, NULL, NULL));
  g_assert_nonnull (strstr (json, "\"completed\": true"));
  g_assert_null (strstr (json, "\"frames\": 0,"));
  result_clear (&r);
  remove_dir (cwd);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/accel-run/validate", test_validate);
  g_test_add_func ("/accel-run/list-and-describe", test_list_and_describe);
  g_test_add_func (
      "/accel-run/dot-frames-stats-set", test_dot_frames_stats_set);
  g_test_add_func ("/accel-run/sigint", test_sigint);
  g_test_add_func ("/accel-run/runtime-error", test_runtime_error);
  g_test_add_func ("/accel-run/examples-run", test_examples_run);
  g_test_add_func (
      "/accel-run/sigint-video-playable", test_sigint_video_playable);
  return g_test_run ();
}
