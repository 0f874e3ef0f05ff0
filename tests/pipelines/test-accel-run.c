/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel-run end to end: the real binary on real files */
#include <gio/gio.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "accel-test.h"
#include "json-test.h"

typedef struct
{
  gint status;
  gchar *out;
  gchar *err;
} Result;

static void
result_clear (Result *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

/* a resource limit a child runs under, and SIGXFSZ ignored so that a write
 * past RLIMIT_FSIZE fails with EFBIG instead of killing it */
typedef struct
{
  int resource;
  struct rlimit limit;
} Limit;

static void
apply_limit (gpointer data)
{
  Limit *l = data;

  /* as a shell leaves it: past RLIMIT_FSIZE the signal killed accel-run
   * with a frame cut short, before it ignored the signal itself */
  signal (SIGXFSZ, SIG_DFL);
  setrlimit (l->resource, &l->limit);
}

/* runs accel-run with the arguments from @first (NULL-terminated), on the
 * host backend, in @cwd (NULL: here), under @limit (NULL: none), with
 * @stdout_fd (taken) as its stdout, or with -1 its stdout in r->out */
static void
run_va (Result *r, const char *cwd, Limit *limit, int stdout_fd,
    const char *first, va_list ap)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GSubprocess) p = NULL;
  g_autoptr (GError) error = NULL;

  g_ptr_array_add (argv, (gpointer)g_getenv ("ACCEL_RUN"));
  g_ptr_array_add (argv, (gpointer) "--backend=host");
  for (const char *a = first; a; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (gpointer)a);
  g_ptr_array_add (argv, NULL);

  launcher = g_subprocess_launcher_new (
      G_SUBPROCESS_FLAGS_STDERR_PIPE
      | (stdout_fd < 0 ? G_SUBPROCESS_FLAGS_STDOUT_PIPE
                       : G_SUBPROCESS_FLAGS_NONE));
  if (stdout_fd >= 0)
    g_subprocess_launcher_take_stdout_fd (launcher, stdout_fd);
  if (cwd)
    g_subprocess_launcher_set_cwd (launcher, cwd);
  if (limit)
    g_subprocess_launcher_set_child_setup (launcher, apply_limit, limit, NULL);
  p = g_subprocess_launcher_spawnv (
      launcher, (const char *const *)argv->pdata, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (
      p, NULL, NULL, stdout_fd < 0 ? &r->out : NULL, &r->err, &error));
  g_assert_no_error (error);
  r->status
      = g_subprocess_get_if_exited (p) ? g_subprocess_get_exit_status (p) : -1;
}

static void
run_in (Result *r, const char *cwd, const char *first, ...)
{
  va_list ap;

  va_start (ap, first);
  run_va (r, cwd, NULL, -1, first, ap);
  va_end (ap);
}

/* runs accel-run as run_in () does and expects exit @status and, unless
 * @says is NULL, @says on its stderr */
static void
expect_in (
    int status, const char *says, const char *cwd, const char *first, ...)
{
  Result r = { 0 };
  va_list ap;

  va_start (ap, first);
  run_va (&r, cwd, NULL, -1, first, ap);
  va_end (ap);
  g_test_message ("status %d, stderr: %s", r.status, r.err);
  g_assert_cmpint (r.status, ==, status);
  if (says)
    g_assert_nonnull (strstr (r.err, says));
  result_clear (&r);
}

/* as run_in(), under @limit */
static void
run_limited (Result *r, const char *cwd, Limit *limit, const char *first, ...)
{
  va_list ap;

  va_start (ap, first);
  run_va (r, cwd, limit, -1, first, ap);
  va_end (ap);
}

#define run(r, ...) run_in (r, NULL, __VA_ARGS__)

/* the stage called @name in the stats' "stages" */
static Json *
json_stage (Json *stats, const char *name)
{
  GPtrArray *stages = json_member (stats, "stages", JSON_ARRAY)->items;

  for (guint i = 0; i < stages->len; i++)
    if (g_str_equal (
            json_member (stages->pdata[i], "name", JSON_STRING)->string, name))
      return stages->pdata[i];
  g_test_message ("no stage '%s' in the stats", name);
  g_assert_not_reached ();
  return NULL;
}

static void
test_json_reader (void)
{
  g_autoptr (Json) j = json_parse (
      " {\"a\": [1, -2.5e3, true, null], \"b\": \"q\\\"\\u0041\"} ");

  g_assert_nonnull (j);
  g_assert_cmpuint (json_member (j, "a", JSON_ARRAY)->items->len, ==, 4);
  g_assert_cmpfloat (
      ((Json *)json_member (j, "a", JSON_ARRAY)->items->pdata[1])->number, ==,
      -2500.0);
  g_assert_cmpstr (json_member (j, "b", JSON_STRING)->string, ==, "q\"A");
  g_assert_null (json_parse ("{\"a\": 1,}"));
  g_assert_null (json_parse ("{\"a\": 1} x"));
  g_assert_null (json_parse ("{\"a\": \"\\q\"}"));
  g_assert_null (json_parse ("{\"a\": 1, \"a\": 2}"));
}

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

/* removes @dir and all it holds, where there is one */
static void
remove_dir (const char *dir)
{
  if (g_file_test (dir, G_FILE_TEST_IS_DIR))
    accel_test_remove_tree (dir);
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
  g_autoptr (Json) parsed = NULL;
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
  parsed = json_parse (json);
  g_assert_nonnull (parsed);
  g_assert_cmpstr (
      json_member (parsed, "pipeline", JSON_STRING)->string, ==, "demo");
  g_assert_cmpfloat (
      json_member (parsed, "frames", JSON_NUMBER)->number, ==, 5);
  g_assert_cmpfloat (
      json_member (parsed, "seconds", JSON_NUMBER)->number, >, 0);
  g_assert_cmpfloat (
      json_member (parsed, "frames_per_second", JSON_NUMBER)->number, >, 0);
  g_assert_true (json_member (parsed, "completed", JSON_BOOL)->boolean);
  g_assert_false (json_member (parsed, "interrupted", JSON_BOOL)->boolean);
  g_assert_cmpuint (
      json_member (parsed, "stages", JSON_ARRAY)->items->len, ==, 4);
  for (guint i = 0; i < 4; i++)
    {
      const char *names[] = { "camera", "blur", "edges", "check" };
      Json *st = json_stage (parsed, names[i]);
      gdouble p50 = json_member (st, "latency_p50_ns", JSON_NUMBER)->number;
      gdouble p99 = json_member (st, "latency_p99_ns", JSON_NUMBER)->number;
      g_assert_cmpfloat (
          json_member (st, "processed", JSON_NUMBER)->number, ==, 5);
      g_assert_cmpfloat (
          json_member (st, "dropped", JSON_NUMBER)->number, ==, 0);
      g_assert_cmpfloat (p50, >=, 0);
      g_assert_cmpfloat (p50, <=, p99);
    }
  g_assert_cmpstr (
      json_member (json_stage (parsed, "check"), "kind", JSON_STRING)->string,
      ==, "core.null-sink");
  g_unlink (dot);
  g_unlink (stats);
  remove_dir (dir);
  result_clear (&r);
}

/* a run of accel-run that a test signals: its stderr is read line by line,
 * and a watchdog kills it past a limit, so a hung run fails the test
 * instead of hanging it */
typedef struct
{
  GSubprocess *p;
  GDataInputStream *err;
  GString *said; /* stderr so far */
  GThread *watchdog;
  GMutex lock;
  GCond cond;
  gboolean ended;
  gboolean killed;
  gint64 limit_us;
  const char *cwd;      /* set before live_start(), or NULL: here */
  gboolean read_stdout; /* read stdout instead of stderr */
  const char *debug;    /* G_MESSAGES_DEBUG for the run, or NULL */
  gboolean own_group;   /* in a process group of its own */
  gboolean nohup;       /* SIGHUP ignored, as nohup starts it */
  int stdout_fd;        /* > 0: taken as its stdout (else silenced) */
} Live;

static gpointer
watchdog (gpointer data)
{
  Live *l = data;
  gint64 end = g_get_monotonic_time () + l->limit_us;

  g_mutex_lock (&l->lock);
  while (!l->ended && g_cond_wait_until (&l->cond, &l->lock, end))
    ;
  if (!l->ended)
    {
      l->killed = TRUE;
      g_subprocess_force_exit (l->p);
    }
  g_mutex_unlock (&l->lock);
  return NULL;
}

/* starts accel-run with @argv (its first element is replaced by the
 * binary), @fault as ACCEL_FAULT (or NULL), killed after @limit_s */
/* a process group of its own, which a terminal's Ctrl-C reaches whole */
static void
own_group (gpointer data)
{
  setpgid (0, 0);
}

static void
ignore_hangup (gpointer data)
{
  signal (SIGHUP, SIG_IGN);
}

static void
live_start (Live *l, const char **argv, const char *fault, guint limit_s)
{
  g_autoptr (GSubprocessLauncher) launcher = g_subprocess_launcher_new (
      l->read_stdout
          ? G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE
      : l->stdout_fd > 0
          ? G_SUBPROCESS_FLAGS_STDERR_PIPE
          : G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr (GError) error = NULL;

  argv[0] = g_getenv ("ACCEL_RUN");
  if (l->stdout_fd > 0)
    g_subprocess_launcher_take_stdout_fd (launcher, l->stdout_fd);
  if (l->cwd)
    g_subprocess_launcher_set_cwd (launcher, l->cwd);
  if (fault)
    g_subprocess_launcher_setenv (launcher, "ACCEL_FAULT", fault, TRUE);
  if (l->debug)
    g_subprocess_launcher_setenv (launcher, "G_MESSAGES_DEBUG", l->debug, TRUE);
  if (l->own_group)
    g_subprocess_launcher_set_child_setup (launcher, own_group, NULL, NULL);
  if (l->nohup)
    g_subprocess_launcher_set_child_setup (launcher, ignore_hangup, NULL, NULL);
  l->p = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);
  l->err = g_data_input_stream_new (l->read_stdout
                                        ? g_subprocess_get_stdout_pipe (l->p)
                                        : g_subprocess_get_stderr_pipe (l->p));
  l->said = g_string_new (NULL);
  g_mutex_init (&l->lock);
  g_cond_init (&l->cond);
  l->limit_us = limit_s * G_USEC_PER_SEC;
  l->watchdog = g_thread_new ("watchdog", watchdog, l);
}

/* reads stderr until a line with @text (TRUE) or its end (FALSE); with
 * @text NULL, to its end */
static gboolean
live_wait_for (Live *l, const char *text)
{
  gchar *line;

  while ((line = g_data_input_stream_read_line_utf8 (l->err, NULL, NULL, NULL)))
    {
      gboolean found = text && strstr (line, text) != NULL;
      g_string_append_printf (l->said, "%s\n", line);
      g_free (line);
      if (found)
        return TRUE;
    }
  if (text)
    g_test_message ("no '%s' in: %s", text, l->said->str);
  return FALSE;
}

/* the last line read */
static const char *
live_last_line (Live *l)
{
  const char *nl = g_strrstr_len (l->said->str, l->said->len - 1, "\n");

  return nl ? nl + 1 : l->said->str;
}

/* reads stderr to its end and waits for the exit: its status, or -1 when
 * killed (by a signal, or by the watchdog) */
static gint
live_finish (Live *l)
{
  g_autoptr (GError) error = NULL;
  gint status;

  live_wait_for (l, NULL);
  g_assert_true (g_subprocess_wait (l->p, NULL, &error));
  g_mutex_lock (&l->lock);
  l->ended = TRUE;
  g_cond_signal (&l->cond);
  g_mutex_unlock (&l->lock);
  g_thread_join (l->watchdog);
  g_assert_false (l->killed);
  status = g_subprocess_get_if_exited (l->p)
               ? g_subprocess_get_exit_status (l->p)
               : -1;
  return status;
}

static void
live_clear (Live *l)
{
  g_clear_object (&l->err);
  g_clear_object (&l->p);
  g_string_free (l->said, TRUE);
  g_mutex_clear (&l->lock);
  g_cond_clear (&l->cond);
}

/* Ctrl-C and SIGTERM: end of stream through the graph, a clean exit; the
 * signal is sent once accel-run says it runs, never after a fixed time */
static void
check_signal_ends_run (gint signum)
{
  g_autofree gchar *endless
      = g_test_build_filename (G_TEST_DIST, "endless.yaml", NULL);
  const char *argv[] = { NULL, "--backend=host", endless, NULL };
  Live l = { 0 };
  gint64 t0;

  live_start (&l, argv, NULL, 60);
  g_assert_true (live_wait_for (&l, "accel-run: running 'endless'"));
  g_subprocess_send_signal (l.p, signum);
  t0 = g_get_monotonic_time ();
  g_assert_cmpint (live_finish (&l), ==, 0);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 5 * G_USEC_PER_SEC);
  live_clear (&l);
}

static void
test_sigint (void)
{
  check_signal_ends_run (SIGINT);
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

/* a frame that ran out of memory and passed on its retry: every frame
 * delivered, but the run says it retried, on stderr (--quiet too), in
 * --stats and in its status, 4; it ended with 0 as a run with no retry */
static void
test_oom_retry_said (void)
{
  g_autofree gchar *demo = example ("demo.yaml");
  g_autofree gchar *dir = g_dir_make_tmp ("accel-run-XXXXXX", NULL);
  g_autofree gchar *stats = g_build_filename (dir, "s.json", NULL);
  g_autofree gchar *opt = g_strdup_printf ("--stats=%s", stats);
  g_autofree gchar *text = NULL;
  Result r = { 0 };

  g_setenv ("ACCEL_FAULT", "edges:oom:3", TRUE);
  run (&r, "--quiet", "--frames=6", "--set", "camera.width=32", "--set",
      "camera.height=32", opt, demo, NULL);
  g_unsetenv ("ACCEL_FAULT");
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 4);
  g_assert_nonnull (strstr (r.err, "accel-run: stage 'edges' "
                                   "(realtime.sobel) ran 1 frame again after "
                                   "a fault (0 restarts); the first: "
                                   "injected allocation failure\n"));
  g_assert_nonnull (strstr (r.err, "accel-run: every frame was delivered, "
                                   "some only after a retry (exit status "
                                   "4)\n"));
  g_assert_null (strstr (r.err, "skipped"));
  g_assert_true (g_file_get_contents (stats, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\"name\": \"edges\", \"kind\": "
                                  "\"realtime.sobel\", \"processed\": 6,"));
  g_assert_nonnull (strstr (text, "\"retried\": 1,"));
  result_clear (&r);

  /* the same run without the fault: 0 */
  run (&r, "--quiet", "--frames=6", "--set", "camera.width=32", "--set",
      "camera.height=32", demo, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.err, "again"));
  result_clear (&r);
  accel_test_remove_tree (dir);
}

/* what accel-run echoes of its command line (a file's name it cannot
 * open, a kind, an option's value) shows its control characters as
 * escapes, C1 ones too: they reached the terminal as they were */
static void
test_echoes_escaped (void)
{
  struct
  {
    const char *args[3];
    const char *says;
  } cases[] = {
    { { "--validate", "/nonexistent-accel/a\x1b]0;t\x07.yaml", NULL },
        "/nonexistent-accel/a\\x1b]0;t\\x07.yaml:0:0: cannot open it" },
    { { "--describe=core.\x1b[2Jscale", NULL },
        "unknown stage kind 'core.\\x1b[2Jscale'" },
    { { "--describe=core.\xc2\x9bscale", NULL },
        "unknown stage kind 'core.\\u009bscale'" },
    { { "--graph=\x1b[2J", "x.yaml", NULL },
        "--graph must be auto, on or off, not '\\x1b[2J'" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      Result r = { 0 };

      run (&r, cases[i].args[0], cases[i].args[1], cases[i].args[2], NULL);
      g_test_message ("%s", r.err);
      g_assert_cmpint (r.status, !=, 0);
      g_assert_nonnull (strstr (r.err, cases[i].says));
      g_assert_null (strchr (r.err, '\x1b'));
      g_assert_null (strstr (r.err, "\xc2\x9b"));
      result_clear (&r);
    }
}

/* a stream's frame larger than the host (a FIFO, /dev/zero): refused as
 * any buffer that large is, naming the stage and the file (its
 * g_malloc () aborted the process, status 133) */
static void
test_stream_frame_too_large (void)
{
  Result r = { 0 };

  run (&r, "--quiet", "-e",
      "io.raw-file-source location=/dev/zero shape=100000x100000x10 "
      "num-buffers=1 ! core.null-sink",
      NULL);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "stage 'raw-file-source0' could not "
                                   "start: a frame of /dev/zero: cannot "
                                   "allocate 100000000000 bytes of host "
                                   "memory"));
  result_clear (&r);
}

/* usage mistakes exit with 2 and say what is wrong */
static void
test_usage (void)
{
  g_autofree gchar *demo = example ("demo.yaml");
  g_autofree gchar *dir = g_dir_make_tmp ("accel-run-XXXXXX", NULL);
  g_autofree gchar *file = g_build_filename (dir, "a-file", NULL);
  g_autofree gchar *stats_dir = g_strdup_printf ("--stats=%s", dir);
  g_autofree gchar *says_dir = g_strdup_printf (
      "--stats %s: that is a directory; give a file's name", dir);
  g_autofree gchar *state_file = g_strdup_printf ("--state-dir=%s", file);
  g_autofree gchar *says_file
      = g_strdup_printf ("--state-dir %s is a file, not a directory", file);
  /* found only as the graph started, with exit status 1 */
  g_autofree gchar *state_under_file
      = g_strdup_printf ("--state-dir=%s/state", file);
  g_autofree gchar *says_under_file = g_strdup_printf (
      "--state-dir %s/state: %s is a file, not a directory", file, file);
  /* said as a directory that does not exist */
  g_autofree gchar *stats_under_file
      = g_strdup_printf ("--stats=%s/s.json", file);
  g_autofree gchar *says_stats_under_file = g_strdup_printf (
      "--stats %s/s.json: %s is a file, not a directory", file, file);
  /* past the file system's 255 bytes (a name of 250, which its
   * temporary file's name made too long, is written: report-files) */
  g_autofree gchar *long_name = g_strnfill (256, 'n');
  g_autofree gchar *stats_long
      = g_strdup_printf ("--stats=%s/%s", dir, long_name);
  struct
  {
    const char *args[3];
    const char *says;
  } cases[] = {
    { { NULL }, "usage: accel-run" },
    { { demo, demo, NULL }, "usage: accel-run" },
    { { "--frames=0", demo, NULL }, "--frames must be 1 or more, not 0" },
    /* the least int64 once stood for no limit */
    { { "--frames=-9223372036854775808", demo, NULL },
        "--frames must be 1 or more, not -9223372036854775808" },
    { { "--frames=ten", demo, NULL }, "--frames must be a number, not 'ten'" },
    /* a number, too big: it said "not a number" */
    { { "--frames=99999999999999999999", demo, NULL },
        "--frames must be at most 9223372036854775807, not "
        "99999999999999999999" },
    { { "--device=gpu", demo, NULL },
        "--device must be auto, host or a GPU number from 0 to 63, not 'gpu'" },
    { { "--backend=tpu", demo, NULL },
        "--backend must be host or cuda, not 'tpu'" },
    { { "--set=blur=2", demo, NULL },
        "--set blur=2: expected stage.param=value" },
    { { "--set=blur.sigma=-1", demo, NULL },
        "--set blur.sigma=-1: parameter 'sigma' of stage 'blur' "
        "(realtime.gaussian-blur) is out of range" },
    /* a bound with the digits that read back as itself: "%g" gave
     * 10.6667, which the range refuses */
    { { "--set=blur.sigma=10.667", demo, NULL },
        "is out of range: 10.667 is not in 0.1 .. 10.666667" },
    { { "--ranks=0", demo, NULL },
        "--ranks must be a whole number from 1 to 4096, not '0'" },
    /* -1 stood for no --http, and ran with no server */
    { { "--http=-1", demo, NULL },
        "--http must be a whole number from 0 to 65535, not '-1'" },
    /* GOption reads octal and hex: 010 was port 8 */
    { { "--http=0x50", demo, NULL },
        "--http must be a whole number from 0 to 65535, not '0x50'" },
    /* it overflowed --http's last port, and its supervisor's arrays */
    { { "--world=2147483647", demo, NULL },
        "--world must be a whole number from 1 to 4096, not '2147483647'" },
    /* -1, 0 and -1 stood for "not given": the run went on alone */
    { { "--ranks=-1", demo, NULL },
        "--ranks must be a whole number from 1 to 4096, not '-1'" },
    { { "--world=0", demo, NULL },
        "--world must be a whole number from 1 to 4096, not '0'" },
    { { "--rank=-1", demo, NULL },
        "--rank must be a whole number from 0 to 4095, not '-1'" },
    /* refused at the end of the run, as its rename failed */
    { { "--stats=", demo, NULL },
        "--stats: give a file's name, or - for standard output" },
    /* refused before the run, not after it */
    { { "--stats=/nonexistent-accel/s.json", demo, NULL },
        "--stats /nonexistent-accel/s.json: the directory /nonexistent-accel "
        "does not exist" },
    { { "--dot=/nonexistent-accel/g.dot", demo, NULL },
        "--dot /nonexistent-accel/g.dot: the directory /nonexistent-accel "
        "does not exist" },
    { { stats_dir, demo, NULL }, says_dir },
    { { state_file, demo, NULL }, says_file },
    { { state_under_file, demo, NULL }, says_under_file },
    { { stats_under_file, demo, NULL }, says_stats_under_file },
    { { stats_long, demo, NULL }, "cannot be written: File name too long" },
    /* ignored without a word */
    { { "--validate", "--stats=-", demo },
        "--validate runs nothing, so --stats has nothing to report" },
    { { "--validate", "--http=0", demo },
        "--validate runs nothing, so --http has nothing to report" },
    { { "--list", demo, NULL }, "--list takes no pipeline" },
    /* --list printed alone, the other dropped without a word */
    { { "--list", "--describe=core.scale", NULL },
        "--list and --describe each print one thing; give one" },
    { { "--describe=core.scale", "--print-yaml", NULL },
        "--describe and --print-yaml each print one thing; give one" },
    { { "--list", "-e", "core.test-source ! core.null-sink" },
        "--list takes no pipeline" },
    { { "--describe=core.scale", demo, NULL }, "--describe takes no pipeline" },
    /* ignored without a word: the file printed was the line's without
     * the setting */
    { { "--print-yaml", "--set=scale0.scale=3",
          "--description=core.test-source ! core.scale ! core.null-sink" },
        "--print-yaml runs no pipeline, so --set would be ignored" },
    { { "--print-yaml", "--validate",
          "--description=core.test-source ! core.null-sink" },
        "--print-yaml runs no pipeline, so --validate would be ignored" },
    { { "--list", "--frames=3", NULL },
        "--list runs no pipeline, so --frames would be ignored" },
    { { "--describe=core.scale", "--stats=s.json", NULL },
        "--describe runs no pipeline, so --stats would be ignored" },
    /* the state directory was the working directory to its check, and
     * its making failed as a runtime error (1) */
    { { "--state-dir=", demo, NULL }, "--state-dir: give a directory's name" },
    /* the last one written replaced the other */
    { { "--dot=-", "--stats=-", demo },
        "--dot - and --stats - are one file: give each its own" },
    /* another name of standard output (here a pipe): the report written
     * through it was lost, or the two mixed */
    { { "--dot=/dev/stdout", "--stats=-", demo },
        "--dot /dev/stdout and --stats - are one file: give each its own" },
    /* ignored without a word */
    { { "--no-supervise", "--ranks=2", demo },
        "--no-supervise runs one process alone: the ranks of a world always "
        "run under their supervisor" },
    { { "--http-address=127.0.0.1", demo, NULL },
        "--http-address is the address of --http PORT's server: it takes "
        "--http" },
    { { "--http-address=localhost", demo, NULL },
        "--http-address: 'localhost' is not an IP address, such as 127.0.0.1 "
        "or ::1" },
    /* bound, and served to no one */
    { { "--http=0", "--http-address=224.0.0.1", demo },
        "--http-address: '224.0.0.1' is a multicast address, which no client "
        "connects to" },
    { { "--http=0", "--http-address=255.255.255.255", demo },
        "'255.255.255.255' is a broadcast address" },
  };

  g_assert_true (g_file_set_contents (file, "", 0, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      Result r = { 0 };
      run (&r, cases[i].args[0], cases[i].args[1], cases[i].args[2], NULL);
      g_test_message ("case %u: %s", i, r.err);
      g_assert_cmpint (r.status, ==, 2);
      g_assert_nonnull (strstr (r.err, cases[i].says));
      result_clear (&r);
    }
  g_unlink (file);
  remove_dir (dir);
}

/* --stats - writes to stdout; names are escaped as JSON wants them */
static void
test_stats_stdout_escaped (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-run-XXXXXX", NULL);
  g_autofree gchar *path = g_build_filename (dir, "q.yaml", NULL);
  const char *yaml = "pipeline: 'say \"hi\" \\ there'\n"
                     "stages:\n"
                     "  - {name: 'src\"1', kind: core.test-source,\n"
                     "     params: {shape: 8, num-buffers: 3}}\n"
                     "  - {name: sink, kind: core.null-sink}\n"
                     "links: ['src\"1 -> sink']\n";
  g_autoptr (Json) parsed = NULL;
  Result r = { 0 };

  g_assert_true (g_file_set_contents (path, yaml, -1, NULL));
  run (&r, "--quiet", "--stats=-", path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  parsed = json_parse (r.out);
  g_assert_nonnull (parsed);
  g_assert_cmpstr (json_member (parsed, "pipeline", JSON_STRING)->string, ==,
      "say \"hi\" \\ there");
  g_assert_cmpfloat (
      json_member (json_stage (parsed, "src\"1"), "processed", JSON_NUMBER)
          ->number,
      ==, 3);
  result_clear (&r);
  /* without --quiet the progress goes to stderr: it came before the JSON
   * on stdout, which then did not parse */
  g_clear_pointer (&parsed, json_free);
  run (&r, "--stats=-", path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  parsed = json_parse (r.out);
  g_assert_nonnull (parsed);
  g_assert_nonnull (strstr (r.err, "frames/s"));
  g_unlink (path);
  remove_dir (dir);
  result_clear (&r);
}

/* the files --stats and --dot write: through a file of a short name of
 * its own beside them, so a file named PATH.dot (or the pipeline file
 * itself) is not overwritten and removed by --dot PATH.svg, and a name as
 * long as the file system takes is written; a FIFO nobody reads is given
 * up after 10 s (the run waited for a reader for good) */
static void
test_report_files (void)
{
  g_autofree gchar *demo = example ("demo.yaml");
  g_autofree gchar *dir = g_dir_make_tmp ("accel-run-XXXXXX", NULL);
  g_autofree gchar *beside = g_build_filename (dir, "g.svg.dot", NULL);
  g_autofree gchar *fifo = g_build_filename (dir, "g.fifo", NULL);
  g_autofree gchar *dot = g_find_program_in_path ("dot");
  g_autofree gchar *written = NULL;
  g_autofree gchar *text = NULL;
  g_autoptr (GString) name = g_string_new (NULL);
  gint64 t0;
  Result r = { 0 };

  if (dot)
    {
      g_assert_true (g_file_set_contents (beside, "precious", -1, NULL));
      run_in (&r, dir, "--quiet", "--frames=2", "--dot=g.svg", demo, NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_true (g_file_get_contents (beside, &text, NULL, NULL));
      g_assert_cmpstr (text, ==, "precious");
      g_clear_pointer (&text, g_free);
      result_clear (&r);
    }

  /* 255 bytes, the most most file systems take */
  g_string_append (name, "--stats=");
  while (name->len < strlen ("--stats=") + 250)
    g_string_append_c (name, 'c');
  g_string_append (name, ".json");
  run_in (&r, dir, "--quiet", "--frames=2", name->str, demo, NULL);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  written = g_build_filename (dir, name->str + strlen ("--stats="), NULL);
  g_assert_true (g_file_get_contents (written, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\"frames\""));
  result_clear (&r);

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  t0 = g_get_monotonic_time ();
  expect_in (1, "cannot write g.fifo: no reader opened it within 10 s", dir,
      "--quiet", "--frames=2", "--stats=g.fifo", demo, NULL);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 30 * G_USEC_PER_SEC);
  remove_dir (dir);
}

/* a pipeline named after a file name that is not UTF-8 (Latin-1 here) has
 * --stats and --dot written as UTF-8 all the same, the byte as \xNN, as
 * /stats.json writes it (the raw byte made the file invalid JSON, and the
 * DOT one graphviz refused) */
static void
test_stats_name_not_utf8 (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-run-XXXXXX", NULL);
  g_autofree gchar *path = g_build_filename (dir, "caf\xe9.yaml", NULL);
  g_autofree gchar *stats = g_build_filename (dir, "stats.json", NULL);
  g_autofree gchar *dot = g_build_filename (dir, "graph.dot", NULL);
  g_autofree gchar *arg = g_strdup_printf ("--stats=%s", stats);
  g_autofree gchar *dot_arg = g_strdup_printf ("--dot=%s", dot);
  g_autofree gchar *drawn = NULL;
  const char *yaml = "stages:\n"
                     "  - {name: src, kind: core.test-source,\n"
                     "     params: {shape: 8, num-buffers: 3}}\n"
                     "  - {name: sink, kind: core.null-sink}\n"
                     "links: [src -> sink]\n";
  g_autofree gchar *text = NULL;
  g_autoptr (Json) parsed = NULL;
  Result r = { 0 };

  g_assert_true (g_file_set_contents (path, yaml, -1, NULL));
  run (&r, "--quiet", arg, dot_arg, path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_get_contents (stats, &text, NULL, NULL));
  g_assert_true (g_utf8_validate (text, -1, NULL));
  parsed = json_parse (text);
  g_assert_nonnull (parsed);
  g_assert_true (g_str_has_suffix (
      json_member (parsed, "pipeline", JSON_STRING)->string, "caf\\xe9.yaml"));
  g_assert_true (g_file_get_contents (dot, &drawn, NULL, NULL));
  g_assert_true (g_utf8_validate (drawn, -1, NULL));
  g_assert_nonnull (strstr (drawn, "caf\\\\xe9.yaml\" {"));
  g_unlink (dot);
  g_unlink (stats);
  g_unlink (path);
  remove_dir (dir);
  result_clear (&r);
}

/* .svg and .png go through graphviz's dot where it is installed, and fail
 * clearly where it is not */
static void
test_dot_image (void)
{
  g_autofree gchar *demo = example ("demo.yaml");
  g_autofree gchar *dir = g_dir_make_tmp ("accel-run-XXXXXX", NULL);
  /* the suffix in any case (g.SVG was written as DOT text) */
  g_autofree gchar *svg = g_build_filename (dir, "g.SVG", NULL);
  g_autofree gchar *arg = g_strdup_printf ("--dot=%s", svg);
  g_autofree gchar *dot = g_find_program_in_path ("dot");
  g_autofree gchar *text = NULL;
  Result r = { 0 };

  run (&r, "--validate", arg, demo, NULL);
  if (dot)
    {
      g_assert_cmpint (r.status, ==, 0);
      g_assert_true (g_file_get_contents (svg, &text, NULL, NULL));
      g_assert_nonnull (strstr (text, "<svg"));
      g_unlink (svg);
    }
  else
    {
      g_assert_cmpint (r.status, ==, 2);
      g_assert_nonnull (strstr (r.err, "needs graphviz's 'dot'"));
      g_assert_false (g_file_test (svg, G_FILE_TEST_EXISTS));
    }
  remove_dir (dir);
  result_clear (&r);
}

/* Ctrl-C while a rank waits to join its world (here for a coordinator
 * that never answers: up to the world's timeout) leaves at once */
static void
test_sigint_while_joining (void)
{
  g_autofree gchar *endless
      = g_test_build_filename (G_TEST_DIST, "endless.yaml", NULL);
  const char *argv[] = { NULL, "--backend=host", "--coordinator", "127.0.0.1:9",
    "--rank", "1", "--world", "2", endless, NULL };
  Live l = { 0 };
  gint64 t0;

  l.own_group = TRUE;
  l.debug = "accel-world";
  live_start (&l, argv, NULL, 60);
  g_assert_true (live_wait_for (&l, "joins the world"));
  t0 = g_get_monotonic_time ();
  /* as a terminal sends it: to the supervisor and its worker */
  g_assert_cmpint (
      kill (-atoi (g_subprocess_get_identifier (l.p)), SIGINT), ==, 0);
  g_assert_cmpint (live_finish (&l), ==, 130);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 5 * G_USEC_PER_SEC);
  g_assert_nonnull (strstr (l.said->str, "interrupted before the graph "
                                         "started: leaving"));
  live_clear (&l);
}

/* how an interrupt reaches a world of two ranks running endless.yaml */
typedef enum
{
  INTERRUPT_GROUP,      /* a terminal's Ctrl-C: every process */
  INTERRUPT_SUPERVISOR, /* kill of the supervisor alone */
  INTERRUPT_ONE_RANK,   /* kill of rank 1's worker alone */
  INTERRUPT_ONE_EARLY,  /* the same as it starts, maybe before it handles
                           signals */
} InterruptTarget;

static gint
interrupt_world (InterruptTarget target, Live *l)
{
  g_autofree gchar *endless
      = g_test_build_filename (G_TEST_DIST, "endless.yaml", NULL);
  const char *argv[] = { NULL, "--backend=host", "--ranks=2", endless, NULL };
  const char *line;
  GPid supervisor, rank1;

  l->own_group = TRUE;
  l->debug = "accel-world";
  live_start (l, argv, NULL, 60);
  supervisor = atoi (g_subprocess_get_identifier (l->p));
  g_assert_true (live_wait_for (l, "rank 1 is process "));
  line = live_last_line (l);
  rank1 = atoi (
      strstr (line, "rank 1 is process ") + strlen ("rank 1 is process "));
  if (target == INTERRUPT_ONE_EARLY)
    {
      g_assert_cmpint (kill (rank1, SIGTERM), ==, 0);
      return live_finish (l);
    }
  g_assert_true (live_wait_for (l, "accel-run: running 'endless'"));
  g_assert_true (live_wait_for (l, "accel-run: running 'endless'"));
  switch (target)
    {
    case INTERRUPT_GROUP:
      g_assert_cmpint (kill (-supervisor, SIGINT), ==, 0);
      break;
    case INTERRUPT_SUPERVISOR:
      g_assert_cmpint (kill (supervisor, SIGTERM), ==, 0);
      break;
    case INTERRUPT_ONE_RANK:
    case INTERRUPT_ONE_EARLY:
      g_assert_cmpint (kill (rank1, SIGTERM), ==, 0);
      break;
    }
  return live_finish (l);
}

/* an interrupt of the world, whether every process gets it or the
 * supervisor passes it on, ends every rank's stream: a clean exit. One sent
 * to a rank's worker alone ended that rank's stream, and the world
 * exited 0 with that rank's output short (or ran on without it): the
 * others are interrupted too, and the run says it stopped short (130). So
 * it does when the signal comes as the worker starts, before it handles
 * it or before its graph runs: the world was rebuilt for the rank that
 * SIGTERM had killed */
static void
test_world_interrupts (void)
{
  for (InterruptTarget target = INTERRUPT_GROUP; target <= INTERRUPT_ONE_EARLY;
       target++)
    {
      Live l = { 0 };
      gint status = interrupt_world (target, &l);

      g_test_message ("%s", l.said->str);
      if (target >= INTERRUPT_ONE_RANK)
        {
          g_assert_cmpint (status, ==, 130);
          g_assert_nonnull (strstr (l.said->str, "accel-run: rank 1 on "));
          g_assert_nonnull (strstr (l.said->str,
              " was interrupted by a signal sent to its worker alone: the "
              "other ranks were interrupted too, and the world stopped "
              "short of the run's end"));
        }
      else
        {
          g_assert_cmpint (status, ==, 0);
          g_assert_null (strstr (l.said->str, "alone"));
        }
      live_clear (&l);
    }
}

/* SIGTERM ends a run as gracefully as Ctrl-C */
static void
test_sigterm (void)
{
  check_signal_ends_run (SIGTERM);
}

/* so does SIGHUP (a terminal closed): it killed the run, status 129 */
static void
test_sighup (void)
{
  check_signal_ends_run (SIGHUP);
}

/* ... but under nohup, which ignores it: the run goes on */
static void
test_sighup_under_nohup (void)
{
  g_autofree gchar *endless
      = g_test_build_filename (G_TEST_DIST, "endless.yaml", NULL);
  const char *argv[] = { NULL, "--backend=host", endless, NULL };
  Live l = { .nohup = TRUE };

  live_start (&l, argv, NULL, 60);
  g_assert_true (live_wait_for (&l, "accel-run: running 'endless'"));
  g_subprocess_send_signal (l.p, SIGHUP);
  g_usleep (500 * 1000);
  /* still running (taken as an interrupt, the endless run ended at once) */
  g_assert_nonnull (g_subprocess_get_identifier (l.p));
  g_subprocess_send_signal (l.p, SIGINT);
  g_assert_cmpint (live_finish (&l), ==, 0);
  live_clear (&l);
}

/* a signal once the main loop has ended (here while --stats opens a FIFO
 * no one reads) leaves at once: it went to the loop that had ended, and
 * only SIGKILL ended the run, supervised or not */
static void
test_signal_after_loop (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-run-XXXXXX", NULL);
  g_autofree gchar *fifo = g_build_filename (dir, "stats.fifo", NULL);
  g_autofree gchar *stats = g_strdup_printf ("--stats=%s", fifo);

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  for (guint supervised = 0; supervised < 2; supervised++)
    {
      const char *argv[] = { NULL, "--backend=host", stats, "-e",
        "core.test-source num-buffers=3 ! core.null-sink",
        supervised ? NULL : "--no-supervise", NULL };
      Live l = { 0 };

      live_start (&l, argv, NULL, 60);
      g_assert_true (live_wait_for (&l, "accel-run: running"));
      /* the three frames are through: it waits on the FIFO */
      g_usleep (500 * 1000);
      g_subprocess_send_signal (l.p, SIGTERM);
      g_assert_true (
          live_wait_for (&l, "accel-run: interrupted as the run ended"));
      g_assert_cmpint (live_finish (&l), ==, 130);
      live_clear (&l);
    }
  g_unlink (fifo);
  remove_dir (dir);
}

/* a signal once the run is over (its frames done, what it came to said,
 * no --stats left to write) leaves with the run's status: it left as
 * interrupted, 130, where nothing was lost. Here the last progress line
 * waits on a stdout no one reads */
/* a pipe no one reads, full: its write end into @fds[1] for @l's stdout,
 * its read end, to close once done, into @fds[0] */
static void
live_stdout_full (Live *l, int fds[2])
{
  g_autofree gchar *full = g_strnfill (4096, 'x');

  g_assert_true (g_unix_open_pipe (fds, FD_CLOEXEC, NULL));
  g_assert_true (g_unix_set_fd_nonblocking (fds[1], TRUE, NULL));
  while (write (fds[1], full, 4096) > 0)
    ;
  g_assert_cmpint (errno, ==, EAGAIN);
  g_assert_true (g_unix_set_fd_nonblocking (fds[1], FALSE, NULL));
  l->stdout_fd = fds[1];
}

/* --stats or --dot to /dev/stdout where stdout appends to a log (>>):
 * written after what was there, as with "-"; reopened, the log was
 * emptied, with the lines before it */
static void
test_report_to_stdout_appends (void)
{
  static const char *const cases[][2] = {
    { "--stats=/dev/stdout", "\"frames\": 3" },
    { "--dot=/dev/stdout", "digraph" },
  };
  g_autofree gchar *dir = g_dir_make_tmp ("accel-run-XXXXXX", NULL);
  g_autofree gchar *log = g_build_filename (dir, "log", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *argv[]
          = { NULL, "--backend=host", "--no-supervise", cases[i][0], "-e",
              "core.test-source num-buffers=3 ! core.null-sink", NULL };
      g_autofree gchar *got = NULL;
      Live l = { 0 };

      g_assert_true (g_file_set_contents (log, "OLD\n", -1, NULL));
      l.stdout_fd = g_open (log, O_WRONLY | O_APPEND | O_CLOEXEC, 0);
      g_assert_cmpint (l.stdout_fd, >=, 0);
      live_start (&l, argv, NULL, 60);
      g_assert_cmpint (live_finish (&l), ==, 0);
      live_clear (&l);
      g_assert_true (g_file_get_contents (log, &got, NULL, NULL));
      g_test_message ("%s: %s", cases[i][0], got);
      g_assert_true (g_str_has_prefix (got, "OLD\n"));
      g_assert_nonnull (strstr (got, cases[i][1]));
    }
  remove_dir (dir);
}

/* a file whose name starts with '-' after "--" (GLib kept the "--": a
 * second file, "usage"); and --validate with --dot to standard output
 * says "valid" on stderr, not inside the graph (which dot refused) */
static void
test_dashes_and_validate_dot (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-run-XXXXXX", NULL);
  g_autofree gchar *yaml = g_build_filename (dir, "-x.yaml", NULL);
  Result r = { 0 };

  g_assert_true (g_file_set_contents (yaml,
      "pipeline: x\nstages:\n  - {name: src, kind: core.test-source}\n"
      "  - {name: out, kind: core.null-sink}\nlinks: [src -> out]\n",
      -1, NULL));
  run_in (&r, dir, "--validate", "--", "-x.yaml", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "-x.yaml: valid"));
  result_clear (&r);

  run_in (&r, dir, "--validate", "--dot=-", "--", "-x.yaml", NULL);
  g_test_message ("%s", r.out);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "digraph"));
  g_assert_true (g_str_has_suffix (r.out, "}\n"));
  g_assert_nonnull (strstr (r.err, "-x.yaml: valid"));
  result_clear (&r);
  remove_dir (dir);
}

/* --backend is the choice: an ACCEL_BACKEND it overrides is not warned
 * about (with no GPU here, "ACCEL_BACKEND=cuda but no CUDA device is
 * usable", and one that is no backend at all) */
static void
test_backend_over_env (void)
{
  static const char *const env[] = { "cuda", "bogus" };

  for (guint i = 0; i < G_N_ELEMENTS (env); i++)
    {
      Result r = { 0 };

      g_setenv ("ACCEL_BACKEND", env[i], TRUE);
      run (&r, "--backend=host", "-e",
          "core.test-source num-buffers=2 ! core.null-sink", NULL);
      g_unsetenv ("ACCEL_BACKEND");
      g_test_message ("%s", r.err);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_null (strstr (r.err, "ACCEL_BACKEND"));
      result_clear (&r);
    }
}

static void
test_signal_after_run_over (void)
{
  const char *argv[] = { NULL, "--backend=host", "--no-supervise", "-e",
    "core.test-source num-buffers=3 ! core.null-sink", NULL };
  Live l = { 0 };
  int fds[2];

  /* full before the run starts */
  live_stdout_full (&l, fds);
  l.debug = "accel-run";
  live_start (&l, argv, NULL, 60);
  g_assert_true (live_wait_for (&l, "the run is over, with status 0"));
  g_subprocess_send_signal (l.p, SIGTERM);
  g_assert_true (live_wait_for (&l, "once the run was over"));
  g_assert_cmpint (live_finish (&l), ==, 0);
  live_clear (&l);
  g_close (fds[0], NULL);
}

/* a run whose progress line waits on a stdout no one reads takes no
 * interrupt on its main loop: a second Ctrl-C or SIGTERM more than a
 * second after the first leaves at once, 130 (both were lost, and it ran
 * until killed) */
static void
test_signals_while_output_blocked (void)
{
  const char *argv[] = { NULL, "--backend=host", "--no-supervise", "-e",
    "core.test-source ! core.null-sink", NULL };
  Live l = { 0 };
  int fds[2];

  live_stdout_full (&l, fds);
  live_start (&l, argv, NULL, 30);
  g_assert_true (live_wait_for (&l, "accel-run: running"));
  /* its first progress line, a second in, blocks */
  g_usleep (2500 * 1000);
  g_subprocess_send_signal (l.p, SIGTERM);
  g_usleep (1500 * 1000);
  g_subprocess_send_signal (l.p, SIGTERM);
  g_assert_cmpint (live_finish (&l), ==, 130);
  g_test_message ("%s", l.said->str);
  live_clear (&l);
  g_close (fds[0], NULL);
}

/* a second Ctrl-C does not wait for the frames in flight: here the sink
 * takes a second for each of frames 20 to 29, so a graceful end would take
 * about ten */
static void
test_second_sigint (void)
{
  g_autofree gchar *endless
      = g_test_build_filename (G_TEST_DIST, "endless.yaml", NULL);
  const char *argv[] = { NULL, "--backend=host", endless, NULL };
  g_autoptr (GString) faults = g_string_new (NULL);
  Live l = { 0 };
  gint64 t0;

  for (guint seq = 20; seq < 30; seq++)
    g_string_append_printf (faults, "%sout:hang:%u", seq > 20 ? "," : "", seq);
  /* the first signal once the sink hangs: frames 21 to 29 are in flight */
  l.debug = "accel-fault";
  live_start (&l, argv, faults->str, 60);
  g_assert_true (live_wait_for (&l, "injecting hang at sequence 20"));
  t0 = g_get_monotonic_time ();
  g_subprocess_send_signal (l.p, SIGINT);
  /* the second once the first is seen */
  g_assert_true (live_wait_for (&l, "interrupted: finishing"));
  g_subprocess_send_signal (l.p, SIGINT);
  g_assert_cmpint (live_finish (&l), ==, 130);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 4 * G_USEC_PER_SEC);
  g_assert_nonnull (strstr (l.said->str, "stopped at once"));
  live_clear (&l);
}

/* SIGTERM ends a run within a bound even when the frames in flight do not
 * finish: here the sink takes 6 s for each of its first 10 frames (a
 * 3 s deadline), so a graceful end would take a minute */
static void
test_sigterm_bounded (void)
{
  g_autofree gchar *endless
      = g_test_build_filename (G_TEST_DIST, "endless.yaml", NULL);
  const char *argv[]
      = { NULL, "--backend=host", "--set", "out.deadline=3000", endless, NULL };
  g_autoptr (GString) faults = g_string_new (NULL);
  Live l = { .read_stdout = TRUE };
  gint64 t0;

  for (guint seq = 0; seq < 10; seq++)
    g_string_append_printf (faults, "%sout:hang:%u", seq ? "," : "", seq);
  live_start (&l, argv, faults->str, 40);
  /* the source has produced (its latency is known): frames are in flight */
  g_assert_true (live_wait_for (&l, "| src "));
  t0 = g_get_monotonic_time ();
  g_subprocess_send_signal (l.p, SIGTERM);
  g_assert_cmpint (live_finish (&l), ==, 130);
  /* 5 s of grace for the frames in flight, 5 more for a stuck stage */
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 15 * G_USEC_PER_SEC);
  live_clear (&l);
}

/* a stage that escalates ends the run with status 1 and its message: a
 * missed deadline (escalated at once, or past the restart intensity) is
 * never taken for "still running" */
static void
test_escalation_ends_run (void)
{
  g_autofree gchar *endless
      = g_test_build_filename (G_TEST_DIST, "endless.yaml", NULL);
  struct
  {
    const char *set;
    const char *fault;
    const char *says;
  } cases[] = {
    { "twice.on-fault=escalate", "twice:hang:3",
        "stage 'twice' (core.scale): frame 3 took" },
    { "twice.max-restarts=1", "twice:hang:3,twice:hang:5",
        "stage 'twice' (core.scale): restarted 1 times" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *argv[] = { NULL, "--backend=host", "--quiet", "--set",
        "twice.deadline=100", "--set", cases[i].set, endless, NULL };
      Live l = { 0 };

      live_start (&l, argv, cases[i].fault, 30);
      g_assert_cmpint (live_finish (&l), ==, 1);
      g_test_message ("case %u: %s", i, l.said->str);
      g_assert_nonnull (strstr (l.said->str, cases[i].says));
      g_assert_nonnull (strstr (l.said->str, "deadline"));
      live_clear (&l);
    }
}

/* --stats is written when the graph fails to start, saying why */
static void
test_stats_when_start_fails (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-run-XXXXXX", NULL);
  g_autofree gchar *stats = g_build_filename (dir, "s.json", NULL);
  g_autofree gchar *stats_arg = g_strdup_printf ("--stats=%s", stats);
  g_autofree gchar *state = g_build_filename (dir, "state", NULL);
  g_autofree gchar *blocker = g_build_filename (state, "out.commits", NULL);
  g_autofree gchar *state_arg = g_strdup_printf ("--state-dir=%s", state);
  g_autofree gchar *endless
      = g_test_build_filename (G_TEST_DIST, "endless.yaml", NULL);
  g_autofree gchar *json = NULL;
  g_autoptr (Json) parsed = NULL;
  Result r = { 0 };

  /* a state directory whose sink's commit log is a directory cannot be
   * opened (one under a plain file is refused before the run) */
  g_assert_cmpint (g_mkdir_with_parents (blocker, 0755), ==, 0);
  run (&r, "--quiet", stats_arg, state_arg, endless, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_true (g_file_get_contents (stats, &json, NULL, NULL));
  parsed = json_parse (json);
  g_assert_nonnull (parsed);
  g_assert_false (json_member (parsed, "completed", JSON_BOOL)->boolean);
  g_assert_nonnull (strstr (r.err, blocker));
  g_assert_nonnull (
      strstr (json_member (parsed, "error", JSON_STRING)->string, blocker));
  result_clear (&r);
  g_unlink (stats);
  g_rmdir (blocker);
  g_rmdir (state);
  remove_dir (dir);
}

/* --stats of a run that resumed says where: its frames are counted from
 * that frame on (a job of 40 frames resumed at 17 said 23 frames and
 * "completed", with nothing to tell it from a run of 23) */
static void
test_stats_after_resume (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-run-XXXXXX", NULL);
  g_autofree gchar *yaml = g_build_filename (dir, "p.yaml", NULL);
  g_autofree gchar *stats = g_build_filename (dir, "s.json", NULL);
  g_autofree gchar *stats_arg = g_strdup_printf ("--stats=%s", stats);
  g_autofree gchar *state = g_build_filename (dir, "state", NULL);
  g_autofree gchar *state_arg = g_strdup_printf ("--state-dir=%s", state);
  g_autofree gchar *json = NULL;
  g_autoptr (Json) parsed = NULL;
  Result r = { 0 };

  g_assert_true (g_file_set_contents (yaml,
      "pipeline: resumed\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {shape: '16', "
      "num-buffers: 40}}\n"
      "  - {name: check, kind: core.checksum-sink, params: {location: "
      "sums.txt}}\n"
      "links: [src -> check]\n",
      -1, NULL));
  g_setenv ("ACCEL_FAULT", "check:crash:17", TRUE);
  run_in (&r, dir, "--quiet", state_arg, yaml, NULL);
  g_unsetenv ("ACCEL_FAULT");
  g_assert_cmpint (r.status, ==, -1); /* killed */
  result_clear (&r);
  run_in (&r, dir, "--quiet", stats_arg, state_arg, yaml, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_get_contents (stats, &json, NULL, NULL));
  parsed = json_parse (json);
  g_assert_nonnull (parsed);
  g_assert_cmpfloat (
      json_member (parsed, "first_frame", JSON_NUMBER)->number, ==, 17);
  g_assert_cmpfloat (
      json_member (parsed, "frames", JSON_NUMBER)->number, ==, 40 - 17);
  g_assert_cmpfloat (
      json_member (parsed, "generation", JSON_NUMBER)->number, ==, 1);
  result_clear (&r);
  remove_dir (dir);
}

/* the stages an application feeds or drains are refused, saying what to
 * use instead: accel-run neither pushes nor pulls, and the graph waited
 * for good (the app-sink's after its pool filled, even past Ctrl-C) */
static void
test_application_stages_refused (void)
{
  static const struct
  {
    const char *stages, *says;
    gsize size; /* of out.raw after the first run */
  } cases[] = {
    { "  - {name: src, kind: io.app-source, params: {shape: '4', dtype: "
      "f32}}\n  - {name: out, kind: core.null-sink}\n",
        "app.yaml:3:23: stage 'src' (io.app-source) takes its frames from "
        "the program" },
    { "  - {name: src, kind: core.test-source, params: {shape: '4'}}\n"
      "  - {name: out, kind: io.app-sink}\n",
        "app.yaml:4:23: stage 'out' (io.app-sink) gives its frames to the "
        "program" },
  };
  Result e = { 0 };
  g_autofree gchar *dir = g_dir_make_tmp ("accel-run-XXXXXX", NULL);
  g_autofree gchar *yaml = g_build_filename (dir, "app.yaml", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree gchar *text = g_strdup_printf (
          "pipeline: app\nstages:\n%slinks: [src -> out]\n", cases[i].stages);
      Result r = { 0 };

      g_assert_true (g_file_set_contents (yaml, text, -1, NULL));
      run_in (&r, dir, "--backend=host", yaml, NULL);
      g_assert_cmpint (r.status, ==, 2);
      g_assert_nonnull (strstr (r.err, cases[i].says));
      result_clear (&r);
      /* --validate says it too */
      run_in (&r, dir, "--validate", yaml, NULL);
      g_assert_cmpint (r.status, ==, 2);
      g_assert_nonnull (strstr (r.err, cases[i].says));
      result_clear (&r);
    }
  /* a description's stage at its column */
  run_in (&e, dir, "--validate", "-e", "core.test-source shape=4 ! io.app-sink",
      NULL);
  g_assert_cmpint (e.status, ==, 2);
  g_assert_nonnull (strstr (
      e.err, "-e:1:28: stage 'app-sink0' (io.app-sink) gives its frames"));
  result_clear (&e);
  remove_dir (dir);
}

/* runs the pipeline @contents, written into @dir, on the host with the
 * fault @fault injected, into @r: its status must be 3 (frames skipped) */
static void
run_faulted (
    Result *r, const char *dir, const char *contents, const char *fault)
{
  g_autofree gchar *yaml = g_build_filename (dir, "stop.yaml", NULL);

  g_assert_true (g_file_set_contents (yaml, contents, -1, NULL));
  g_setenv ("ACCEL_FAULT", fault, TRUE);
  run_in (r, dir, "--backend=host", "--quiet", yaml, NULL);
  g_unsetenv ("ACCEL_FAULT");
  g_test_message ("%s", r->err);
  g_assert_cmpint (r->status, ==, 3);
}

/* a run that fails after a stage skipped a frame says the skip too, as
 * a run that ends does (only the failure was said) */
static void
test_skips_said_on_failure (void)
{
  Result r = { 0 };

  g_setenv ("ACCEL_FAULT", "k:library:3,k:illegal-address:6", TRUE);
  run (&r, "--backend=host", "--no-supervise", "--quiet", "-e",
      "core.test-source num-buffers=10 ! core.scale name=k ! core.null-sink",
      NULL);
  g_unsetenv ("ACCEL_FAULT");
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err,
      "accel-run: stage 'k' (core.scale) skipped 1 frame after faults (1 "
      "restarts); the first: injected library error"));
  g_assert_nonnull (strstr (r.err, "injected illegal address"));
  g_assert_null (strstr (r.err, "exit status 3"));
  result_clear (&r);
}

/* on-fault: stop ends the stage's stream at a fault and the graph ends
 * normally, but the frame that faulted is missing: counted and named as a
 * skipped frame (exit status 3) with its fault, where the run said
 * nothing and exited 0 */
static void
test_fault_stop_counted (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-run-XXXXXX", NULL);
  Result r = { 0 };

  run_faulted (&r, dir,
      "pipeline: stop\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {shape: '16', "
      "num-buffers: 8}}\n"
      "  - {name: k, kind: core.scale, supervision: {on-fault: stop}}\n"
      "  - {name: out, kind: core.null-sink}\n"
      "links: [src -> k -> out]\n",
      "k:invalid-input:3");
  g_assert_nonnull (strstr (r.err, "stage 'k' (core.scale) skipped 1 frame "
                                   "after faults (0 restarts); the first: "));
  g_assert_nonnull (strstr (r.err, "1 skipped, 0 lost (exit status 3)"));
  /* a stage of no state is not said to carry any */
  g_assert_null (strstr (r.err, "carries state"));
  result_clear (&r);

  /* beside a branch that goes on, the stopped stage drops every frame it
   * never took, all counted (those its producer no longer handed it were
   * not: 3 taken, 1 skipped and 1 to 5 dropped of 10) */
  run_faulted (&r, dir,
      "pipeline: stop\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {shape: '16', "
      "num-buffers: 10}}\n"
      "  - {name: k, kind: core.scale, supervision: {on-fault: stop}}\n"
      "  - {name: b, kind: core.scale}\n"
      "  - {name: out, kind: core.null-sink}\n"
      "  - {name: out-b, kind: core.null-sink}\n"
      "links: [src -> k -> out, src -> b -> out-b]\n",
      "k:invalid-input:3");
  g_assert_nonnull (strstr (r.err, "stage 'k' (core.scale) dropped 6 input "
                                   "buffers that came once its stream had "
                                   "ended"));
  g_assert_nonnull (strstr (r.err, "1 skipped, 0 lost (exit status 3)"));
  result_clear (&r);

  /* a simulation that skips a frame does not take its step: its later
   * frames are not a clean run's, and the report says so (it said only
   * that one frame was skipped) */
  run_faulted (&r, dir,
      "pipeline: sim\n"
      "stages:\n"
      "  - {name: sim, kind: realtime.particles, supervision: {on-fault: "
      "resume}, params: {capacity: 256, emit-rate: 16, num-buffers: 8}}\n"
      "  - {name: out, kind: core.null-sink}\n"
      "links: [sim -> out]\n",
      "sim:invalid-input:3");
  g_assert_nonnull (strstr (r.err, "stage 'sim' (realtime.particles) "
                                   "skipped 1 frame after faults"));
  g_assert_nonnull (strstr (r.err, "; it carries state from frame to frame, "
                                   "so its frames after the fault differ "
                                   "from a run without it"));
  result_clear (&r);
  remove_dir (dir);
}

/* a run killed mid-stream and started again with the same state directory
 * resumes where its sink stopped: a simulation restored from its
 * checkpoint, next to a stage that keeps no state (effects without
 * temporal ones), gives exactly the frames of a run without the crash */
static void
test_resume_after_crash (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-resume-XXXXXX", NULL);
  g_autofree gchar *yaml = g_build_filename (dir, "p.yaml", NULL);
  g_autofree gchar *sums = g_build_filename (dir, "sums.txt", NULL);
  g_autofree gchar *expected = NULL;
  const guint crashes[] = { 9, 17, 30 };
  Result r = { 0 };

  g_assert_true (g_file_set_contents (yaml,
      "pipeline: resume\n"
      "stages:\n"
      "  - {name: sim, kind: realtime.particles,\n"
      "     params: {capacity: 20000, emit-rate: 400, curl: 0.5,\n"
      "              num-buffers: 40, snapshot-interval: 8}}\n"
      "  - {name: draw, kind: realtime.splat,\n"
      "     params: {width: 64, height: 48, scale: 20}}\n"
      "  - {name: fx, kind: realtime.effects,\n"
      "     params: {effects: 'contrast=1.2 vignette=0.4'}}\n"
      "  - {name: check, kind: core.checksum-sink,\n"
      "     params: {location: sums.txt}}\n"
      "links: [sim -> draw, draw -> fx, fx -> check]\n",
      -1, NULL));
  expect_in (0, NULL, dir, "--quiet", yaml, NULL);
  g_assert_true (g_file_get_contents (sums, &expected, NULL, NULL));
  g_unlink (sums);

  for (guint i = 0; i < G_N_ELEMENTS (crashes); i++)
    {
      g_autofree gchar *state = g_strdup_printf ("%s/state-%u", dir, i);
      g_autofree gchar *state_arg = g_strdup_printf ("--state-dir=%s", state);
      g_autofree gchar *fault = g_strdup_printf ("sim:crash:%u", crashes[i]);
      g_autofree gchar *got = NULL;

      g_setenv ("ACCEL_FAULT", fault, TRUE);
      run_in (&r, dir, "--quiet", state_arg, yaml, NULL);
      g_unsetenv ("ACCEL_FAULT");
      g_assert_cmpint (r.status, ==, -1); /* killed */
      result_clear (&r);
      expect_in (0, NULL, dir, "--quiet", state_arg, yaml, NULL);
      g_assert_true (g_file_get_contents (sums, &got, NULL, NULL));
      g_assert_cmpstr (got, ==, expected);
      g_unlink (sums);
      remove_dir (state);
    }
  g_unlink (yaml);
  remove_dir (dir);
}

/* a simulation that saved no checkpoint (snapshot-interval 0), killed
 * mid-stream and started again with checkpoints asked for, has no state
 * to resume from: the graph starts over and the sink skips what it
 * committed, so the frames are exactly those of a run without the crash,
 * not a fresh simulation's from the frame it was killed at */
static void
test_resume_without_checkpoint (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-resume-XXXXXX", NULL);
  g_autofree gchar *state = g_build_filename (dir, "state", NULL);
  g_autofree gchar *state_arg = g_strdup_printf ("--state-dir=%s", state);
  g_autofree gchar *sums = g_build_filename (dir, "sums.txt", NULL);
  g_autofree gchar *expected = NULL, *got = NULL;
  gchar *yaml[2];
  Result r = { 0 };

  for (guint i = 0; i < 2; i++)
    {
      g_autofree gchar *name = g_strdup_printf ("p%u.yaml", i);
      g_autofree gchar *text = g_strdup_printf (
          "pipeline: resume-without-checkpoint\n"
          "stages:\n"
          "  - {name: sim, kind: realtime.particles,\n"
          "     params: {capacity: 20000, emit-rate: 400, curl: 0.5,\n"
          "              num-buffers: 40, snapshot-interval: %u}}\n"
          "  - {name: draw, kind: realtime.splat,\n"
          "     params: {width: 64, height: 48, scale: 20}}\n"
          "  - {name: check, kind: core.checksum-sink,\n"
          "     params: {location: sums.txt}}\n"
          "links: [sim -> draw, draw -> check]\n",
          i == 0 ? 0 : 8);

      yaml[i] = g_build_filename (dir, name, NULL);
      g_assert_true (g_file_set_contents (yaml[i], text, -1, NULL));
    }
  expect_in (0, NULL, dir, "--quiet", yaml[1], NULL);
  g_assert_true (g_file_get_contents (sums, &expected, NULL, NULL));
  g_unlink (sums);

  g_setenv ("ACCEL_FAULT", "check:crash:17", TRUE);
  run_in (&r, dir, "--quiet", state_arg, yaml[0], NULL);
  g_unsetenv ("ACCEL_FAULT");
  g_assert_cmpint (r.status, ==, -1); /* killed */
  result_clear (&r);
  run_in (&r, dir, state_arg, yaml[1], NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.err, "resuming at frame 17"));
  result_clear (&r);
  g_assert_true (g_file_get_contents (sums, &got, NULL, NULL));
  g_assert_cmpstr (got, ==, expected);
  g_unlink (sums);
  remove_dir (state);
  for (guint i = 0; i < 2; i++)
    {
      g_unlink (yaml[i]);
      g_free (yaml[i]);
    }
  remove_dir (dir);
}

/* a run started again with the state of one cut short says where it
 * resumes; a run with a fresh state directory says nothing of it */
static void
test_says_resume (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-resume-XXXXXX", NULL);
  g_autofree gchar *yaml = g_build_filename (dir, "p.yaml", NULL);
  g_autofree gchar *state = g_build_filename (dir, "state", NULL);
  g_autofree gchar *state_arg = g_strdup_printf ("--state-dir=%s", state);
  g_autofree gchar *sums = g_build_filename (dir, "sums.txt", NULL);
  Result r = { 0 };

  g_assert_true (g_file_set_contents (yaml,
      "pipeline: says-resume\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source,\n"
      "     params: {shape: '64', num-buffers: 40}}\n"
      "  - {name: check, kind: core.checksum-sink,\n"
      "     params: {location: sums.txt}}\n"
      "links: [src -> check]\n",
      -1, NULL));
  g_setenv ("ACCEL_FAULT", "check:crash:17", TRUE);
  run_in (&r, dir, state_arg, yaml, NULL);
  g_unsetenv ("ACCEL_FAULT");
  g_assert_cmpint (r.status, ==, -1); /* killed */
  g_assert_null (strstr (r.err, "resuming"));
  result_clear (&r);
  run_in (&r, dir, state_arg, yaml, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "accel-run: resuming at frame "));
  g_assert_nonnull (strstr (r.err, state));
  result_clear (&r);
  g_unlink (sums);
  remove_dir (state);
  g_unlink (yaml);
  remove_dir (dir);
}

/* two runs cannot share a state directory: the second refuses, naming the
 * process of the first, and leaves the first's state alone, even when the
 * lock file was deleted */
static void
test_state_dir_locked (void)
{
  g_autofree gchar *endless
      = g_test_build_filename (G_TEST_DIST, "endless.yaml", NULL);
  g_autofree gchar *state = g_dir_make_tmp ("accel-locked-XXXXXX", NULL);
  g_autofree gchar *state_arg = g_strdup_printf ("--state-dir=%s", state);
  g_autofree gchar *commits = g_build_filename (state, "out.commits", NULL);
  g_autofree gchar *lock = g_build_filename (state, "lock", NULL);
  const char *argv[] = { g_getenv ("ACCEL_RUN"), "--backend=host", "--quiet",
    state_arg, endless, NULL };
  g_autoptr (GSubprocess) first = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree gchar *pid = NULL;
  Result r = { 0 };

  first = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error);
  g_assert_no_error (error);
  pid = g_strdup (g_subprocess_get_identifier (first));
  /* running: its sink has a commit log */
  for (gint64 end = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
       !g_file_test (commits, G_FILE_TEST_EXISTS)
       && g_get_monotonic_time () < end;)
    g_usleep (10000);
  g_assert_true (g_file_test (commits, G_FILE_TEST_EXISTS));

  run (&r, "--quiet", "--frames=5", state_arg, endless, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "is in use by another run"));
  g_assert_nonnull (strstr (r.err, pid));
  result_clear (&r);
  /* nor with its lock file deleted: the lock was on that file, and the
   * second run went on, mixing its frames with the first's */
  g_assert_cmpint (g_unlink (lock), ==, 0);
  run (&r, "--quiet", "--frames=5", state_arg, endless, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "is in use by another run"));
  result_clear (&r);

  g_subprocess_send_signal (first, SIGINT);
  g_assert_true (g_subprocess_wait (first, NULL, &error));
  g_assert_cmpint (g_subprocess_get_exit_status (first), ==, 0);
  remove_dir (state);
}

/* the state directory removed, and made again by a second run, while the
 * first writes: the lock was on the removed one, so both ran and wrote
 * the same outputs, each with status 0. The first now stops, saying why,
 * within its commits' sync interval */
static void
test_state_dir_removed (void)
{
  g_autofree gchar *endless
      = g_test_build_filename (G_TEST_DIST, "endless.yaml", NULL);
  g_autofree gchar *dir = g_dir_make_tmp ("accel-removed-XXXXXX", NULL);
  g_autofree gchar *state = g_build_filename (dir, "state", NULL);
  g_autofree gchar *state_arg = g_strdup_printf ("--state-dir=%s", state);
  g_autofree gchar *commits = g_build_filename (state, "out.commits", NULL);
  const char *argv[]
      = { NULL, "--backend=host", "--quiet", state_arg, endless, NULL };
  Live l = { 0 };

  live_start (&l, argv, NULL, 60);
  for (gint64 end = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
       !g_file_test (commits, G_FILE_TEST_EXISTS)
       && g_get_monotonic_time () < end;)
    g_usleep (10000);
  g_assert_true (g_file_test (commits, G_FILE_TEST_EXISTS));
  remove_dir (state);
  g_assert_cmpint (g_mkdir (state, 0700), ==, 0);
  g_assert_cmpint (live_finish (&l), ==, 1);
  g_assert_nonnull (strstr (l.said->str, "was removed and made again while "
                                         "this run used it"));
  live_clear (&l);
  remove_dir (dir);
}

/* every example runs on the host backend to its end, and says nothing:
 * three ended saying that a stage dropped the inputs its endless weight
 * sources made past the data's end. The video encoder's example runs
 * only a few frames (300 frames of 720p take 17 s on 2 cores) */
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
      if (g_str_equal (name, "particles-mp4.yaml"))
        run_in (&r, cwd, "--quiet", "--frames=3", path, NULL);
      else
        run_in (&r, cwd, "--quiet", path, NULL);
      /* a GPU-only stage (nvrtc.kernel) refuses the host backend, and
       * says why */
      if (r.status == 2 && accel_backend_get_default () == ACCEL_BACKEND_HOST
          && strstr (r.err, "needs a GPU; this graph runs on the host backend"))
        {
          g_test_message ("%s: %s", name, r.err);
          result_clear (&r);
          n++;
          continue;
        }
      if (r.status != 0 || *r.err)
        g_printerr ("%s: %s", name, r.err);
      g_assert_cmpint (r.status, ==, 0);
      /* OpenH264's encoder says a line of its own at the end */
      g_assert_null (strstr (r.err, "accel-run"));
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
  const char *argv[] = { NULL, "--backend=host", endless, NULL };
  g_autofree gchar *stats = g_build_filename (cwd, "s.json", NULL);
  g_autofree gchar *stats_arg = g_strdup_printf ("--stats=%s", stats);
  g_autofree gchar *json = NULL;
  Live l = { .cwd = cwd, .read_stdout = TRUE };
  Result r = { 0 };

  live_start (&l, argv, NULL, 60);
  /* frames have reached the sink: a progress line (one a second) counts
   * them */
  while (live_wait_for (&l, " frames, ")
         && g_ascii_strtoull (live_last_line (&l), NULL, 10) == 0)
    ;
  g_assert_cmpuint (g_ascii_strtoull (live_last_line (&l), NULL, 10), >, 0);
  g_subprocess_send_signal (l.p, SIGINT);
  g_assert_cmpint (live_finish (&l), ==, 0);
  live_clear (&l);

  run_in (&r, cwd, "--quiet", stats_arg, readback, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_get_contents (stats, &json, NULL, NULL));
  g_assert_nonnull (strstr (json, "\"completed\": true"));
  g_assert_null (strstr (json, "\"frames\": 0,"));
  result_clear (&r);
  remove_dir (cwd);
}

/* a directory for a test's files, a pipeline file name in it and a state
 * directory under it; all of it is removed when it goes */
typedef struct
{
  gchar *dir;
  gchar *yaml;
  gchar *state;
  gchar *state_arg;
} Scratch;

static Scratch
scratch_new (void)
{
  Scratch sc;

  sc.dir = g_dir_make_tmp ("accel-run-XXXXXX", NULL);
  g_assert_nonnull (sc.dir);
  sc.yaml = g_build_filename (sc.dir, "p.yaml", NULL);
  sc.state = g_build_filename (sc.dir, "state", NULL);
  sc.state_arg = g_strdup_printf ("--state-dir=%s", sc.state);
  return sc;
}

static void
scratch_clear (Scratch *sc)
{
  remove_dir (sc->state);
  remove_dir (sc->dir);
  g_free (sc->dir);
  g_free (sc->yaml);
  g_free (sc->state);
  g_free (sc->state_arg);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Scratch, scratch_clear)

/* runs @sc's pipeline with its state directory, killed by @fault
 * (ACCEL_FAULT, "stage:crash:frame") */
static void
run_killed (Scratch *sc, const char *fault)
{
  Result r = { 0 };

  g_setenv ("ACCEL_FAULT", fault, TRUE);
  run_in (&r, sc->dir, "--quiet", sc->state_arg, sc->yaml, NULL);
  g_unsetenv ("ACCEL_FAULT");
  g_assert_cmpint (r.status, ==, -1); /* killed */
  result_clear (&r);
}

/* @path's bytes, none when it is missing */
static GBytes *
contents (const char *path)
{
  gchar *data = NULL;
  gsize len = 0;

  if (!g_file_get_contents (path, &data, &len, NULL))
    return g_bytes_new (NULL, 0);
  return g_bytes_new_take (data, len);
}

/* writes @size bytes of a pattern to @path and returns them */
static GBytes *
write_pattern (const char *path, gsize size)
{
  guint8 *bytes = g_malloc (size);

  for (gsize i = 0; i < size; i++)
    bytes[i] = (guint8)(i * 7);
  g_assert_true (g_file_set_contents (path, (const char *)bytes, size, NULL));
  return g_bytes_new_take (bytes, size);
}

static void
assert_contents (const char *path, GBytes *expected)
{
  g_autoptr (GBytes) got = contents (path);

  g_assert_cmpuint (g_bytes_get_size (got), ==, g_bytes_get_size (expected));
  g_assert_true (g_bytes_equal (got, expected));
}

/* runs @yaml in @dir with @state_arg: status 0, and @output equals
 * @expected; @said must be in what it says on stderr */
static void
assert_resumes_to (const char *dir, const char *state_arg, const char *yaml,
    const char *output, GBytes *expected, const char *said)
{
  Result r = { 0 };

  run_in (&r, dir, state_arg, yaml, NULL);
  if (r.status != 0 || (said && !strstr (r.err, said)))
    g_printerr ("%s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  if (said)
    g_assert_nonnull (strstr (r.err, said));
  result_clear (&r);
  assert_contents (output, expected);
}

/* a resume checks what each sink's output holds against its commit log:
 * a file cut short, deleted, or missing a frame skipped in the first run
 * (later frames committed past the gap) is written again from the sources,
 * and the result equals a run without any of it */
static void
test_resume_verifies_output (void)
{
  static const char *const sinks[][2] = {
    { "{name: out, kind: io.raw-file-sink, params: {location: out.bin}}",
        "out.bin" },
    { "{name: out, kind: core.checksum-sink, params: {location: out.txt}}",
        "out.txt" },
  };

  for (guint s = 0; s < G_N_ELEMENTS (sinks); s++)
    {
      g_auto (Scratch) sc = scratch_new ();
      g_autofree gchar *out = g_build_filename (sc.dir, sinks[s][1], NULL);
      g_autofree gchar *text
          = g_strdup_printf ("pipeline: verify\n"
                             "stages:\n"
                             "  - {name: src, kind: core.test-source,\n"
                             "     params: {shape: '100', num-buffers: 20}}\n"
                             "  - %s\n"
                             "links: [src -> out]\n",
              sinks[s][0]);
      g_autoptr (GBytes) expected = NULL;
      Result r = { 0 };

      g_assert_true (g_file_set_contents (sc.yaml, text, -1, NULL));
      expect_in (0, NULL, sc.dir, "--quiet", sc.yaml, NULL);
      expected = contents (out);

      /* cut in the middle of a frame after a complete run */
      assert_resumes_to (sc.dir, sc.state_arg, sc.yaml, out, expected, NULL);
      g_assert_cmpint (
          truncate (out, (off_t)(g_bytes_get_size (expected) / 3)), ==, 0);
      assert_resumes_to (
          sc.dir, sc.state_arg, sc.yaml, out, expected, "writing them again");
      /* deleted */
      g_unlink (out);
      assert_resumes_to (
          sc.dir, sc.state_arg, sc.yaml, out, expected, "writing them again");
      remove_dir (sc.state);

      /* frame 5 skipped (bad input, resumed): the file lacks it and the
       * later frames were committed; the rerun writes 5 and what follows */
      g_unlink (out);
      g_setenv ("ACCEL_FAULT", "out:invalid-input:5", TRUE);
      run_in (&r, sc.dir, "--quiet", sc.state_arg, sc.yaml, NULL);
      g_unsetenv ("ACCEL_FAULT");
      /* the run reached its end without frame 5, and says so, --quiet or
       * not */
      g_assert_cmpint (r.status, ==, 3);
      g_assert_nonnull (strstr (r.err, "stage 'out' ("));
      g_assert_nonnull (strstr (r.err, ") skipped 1 frame after faults"));
      /* and why */
      g_assert_nonnull (strstr (r.err, "; the first: "));
      g_assert_nonnull (strstr (r.err, "1 skipped, 0 lost (exit status 3)"));
      result_clear (&r);
      assert_resumes_to (sc.dir, sc.state_arg, sc.yaml, out, expected,
          "frame 5 is missing from");
      /* and a run with nothing to repair says nothing of it */
      run_in (&r, sc.dir, sc.state_arg, sc.yaml, NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_null (strstr (r.err, "writing them again"));
      result_clear (&r);
    }
}

/* core.test-source makes an image (format) or a tensor (shape): a
 * parameter of the other kind is refused, where it was ignored */
static void
test_test_source_kind_params (void)
{
  expect_in (2,
      "stage 'test-source0' (core.test-source) sets 'shape' beside 'format'",
      NULL, "-e",
      "core.test-source format=RGBA8 shape=64 num-buffers=1 ! core.null-sink",
      NULL);
  expect_in (2,
      "stage 'test-source0' (core.test-source) sets 'height' without "
      "'format'",
      NULL, "-e", "core.test-source height=64 num-buffers=1 ! core.null-sink",
      NULL);
  /* each kind's own, and an empty format, are fine */
  expect_in (0, NULL, NULL, "-e",
      "core.test-source format=GRAY8 width=8 height=4 num-buffers=1 ! "
      "core.null-sink",
      NULL);
  expect_in (0, NULL, NULL, "-e",
      "core.test-source format= shape=8 dtype=u8 num-buffers=1 ! "
      "core.null-sink",
      NULL);
}

/* an element of a GStreamer description named as the bridge's own: the
 * error says so, where it said "could not link accelsink to accelsink" */
static void
test_gst_reserved_name (void)
{
  expect_in (2,
      "(the name 'accelsink' is the bridge's own: name the element "
      "otherwise)",
      NULL, "-e",
      "io.gst-source description='videotestsrc num-buffers=2 ! identity "
      "name=accelsink' ! core.null-sink",
      NULL);
}

/* two sinks writing one file (two names of it: "./", a hard link, a link
 * to a file not there yet or to its directory), or a sink writing the
 * file a source reads, are refused as the graph is prepared, naming both
 * stages: the frames were interleaved in one file, or the input was cut
 * to nothing (status 1, the input gone) */
static void
test_shared_files_refused (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *in = g_build_filename (sc.dir, "in.raw", NULL);
  g_autofree gchar *alias = g_build_filename (sc.dir, "alias.raw", NULL);
  g_autofree gchar *dangling = g_build_filename (sc.dir, "dangling.raw", NULL);
  g_autofree gchar *dir = g_build_filename (sc.dir, "d", NULL);
  g_autofree gchar *dir_link = g_build_filename (sc.dir, "dl", NULL);
  g_autofree gchar *data = NULL;
  gsize len = 0;

  /* at the stage it is about, b (it was at a, the first declared) */
  expect_in (2,
      "-e:1:121: stage 'b' (io.raw-file-sink) writes ./o.raw, which stage 'a' "
      "(io.raw-file-sink) writes: their frames would mix in one file",
      sc.dir, "-e",
      "core.test-source name=src shape=16 num-buffers=4 ! io.raw-file-sink "
      "name=a location=o.raw  src. ! io.raw-file-sink name=b "
      "location=./o.raw",
      NULL);
  g_assert_true (g_file_set_contents (in, "0123456789abcdef", 16, NULL));
  expect_in (2,
      "stage 'out' (io.raw-file-sink) writes in.raw, which stage 'src' "
      "(io.raw-file-source) reads: the run would write over its own input",
      sc.dir, "-e",
      "io.raw-file-source name=src location=in.raw shape=16 ! "
      "io.raw-file-sink name=out location=in.raw",
      NULL);
  g_assert_true (g_file_get_contents (in, &data, &len, NULL));
  g_assert_cmpuint (len, ==, 16);
  g_clear_pointer (&data, g_free);

  /* a hard link to the input: it was cut to nothing, and --validate said
   * valid (names were compared, resolved, not the files) */
  g_assert_cmpint (link (in, alias), ==, 0);
  expect_in (2,
      "stage 'out' (io.raw-file-sink) writes alias.raw, which stage 'src' "
      "(io.raw-file-source) reads: the run would write over its own input",
      sc.dir, "--validate", "-e",
      "io.raw-file-source name=src location=in.raw shape=16 ! "
      "io.raw-file-sink name=out location=alias.raw",
      NULL);
  expect_in (2, "the run would write over its own input", sc.dir, "-e",
      "io.raw-file-source name=src location=in.raw shape=16 ! "
      "io.raw-file-sink name=out location=alias.raw",
      NULL);
  g_assert_true (g_file_get_contents (in, &data, &len, NULL));
  g_assert_cmpuint (len, ==, 16);

  /* two sinks into one file through a link to a file not there yet, and
   * through a link to its directory (status 0, one's frames lost) */
  g_assert_cmpint (symlink ("new.raw", dangling), ==, 0);
  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  g_assert_cmpint (symlink ("d", dir_link), ==, 0);
  expect_in (2,
      "stage 'b' (io.raw-file-sink) writes dangling.raw, which stage 'a' "
      "(io.raw-file-sink) writes: their frames would mix in one file",
      sc.dir, "-e",
      "core.test-source name=src shape=16 num-buffers=4 ! io.raw-file-sink "
      "name=a location=new.raw  src. ! io.raw-file-sink name=b "
      "location=dangling.raw",
      NULL);
  expect_in (2,
      "stage 'b' (io.raw-file-sink) writes dl/o.raw, which stage 'a' "
      "(io.raw-file-sink) writes: their frames would mix in one file",
      sc.dir, "-e",
      "core.test-source name=src shape=16 num-buffers=4 ! io.raw-file-sink "
      "name=a location=d/o.raw  src. ! io.raw-file-sink name=b "
      "location=dl/o.raw",
      NULL);
  g_assert_false (g_file_test (dangling, G_FILE_TEST_EXISTS));
}

/* what a state directory holds is checked before it is used: a sink
 * writing a file of it (its output and its commits interleaved, status
 * 0), a FIFO named as a state file (the run waited at its start for good),
 * a newest checkpoint that is a dangling link or named with a leading
 * zero (the state started over mid-run, status 0 and frames that differed
 * from a clean run's), a fingerprint cut to nothing (said to be another
 * pipeline's) */
static void
test_state_files_checked (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *fingerprint
      = g_build_filename (sc.state, "fingerprint", NULL);
  g_autofree gchar *ck = g_build_filename (sc.state, "sim.checkpoint.8", NULL);
  g_autofree gchar *ck0
      = g_build_filename (sc.state, "sim.checkpoint.08", NULL);
  g_autofree gchar *sums = g_build_filename (sc.dir, "sums.txt", NULL);
  g_autofree gchar *clean = NULL, *got = NULL;

  g_assert_cmpint (g_mkdir (sc.state, 0755), ==, 0);
  expect_in (2,
      "stage 'out' (core.checksum-sink) writes state/out.commits, a file of "
      "the state directory ",
      sc.dir, sc.state_arg, "-e",
      "core.test-source shape=16 num-buffers=4 ! core.checksum-sink name=out "
      "location=state/out.commits",
      NULL);

  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: sim\n"
      "stages:\n"
      "  - {name: sim, kind: realtime.particles, params: {capacity: 256,\n"
      "     emit-rate: 16, num-buffers: 20, snapshot-interval: 4}}\n"
      "  - {name: out, kind: core.checksum-sink, params: {location: "
      "sums.txt}}\n"
      "links: [sim -> out]\n",
      -1, NULL));
  expect_in (0, NULL, sc.dir, "--quiet", sc.yaml, NULL);
  g_assert_true (g_file_get_contents (sums, &clean, NULL, NULL));
  expect_in (
      0, NULL, sc.dir, "--quiet", "--frames=10", sc.state_arg, sc.yaml, NULL);

  /* checkpoint 8, the newest before frame 10, a dangling link */
  g_assert_cmpint (g_rename (ck, ck0), ==, 0);
  g_assert_cmpint (symlink ("/nonexistent", ck), ==, 0);
  expect_in (1, "sim.checkpoint.8 is not a file (a dangling link?)", sc.dir,
      "--quiet", sc.state_arg, sc.yaml, NULL);
  /* named with a leading zero: not taken for checkpoint 8, so the resume
   * goes back to checkpoint 4, and the frames are a clean run's */
  g_assert_cmpint (g_unlink (ck), ==, 0);
  expect_in (0, NULL, sc.dir, "--quiet", sc.state_arg, sc.yaml, NULL);
  g_assert_true (g_file_get_contents (sums, &got, NULL, NULL));
  g_assert_cmpstr (got, ==, clean);

  g_assert_cmpint (g_unlink (fingerprint), ==, 0);
  g_assert_cmpint (mkfifo (fingerprint, 0600), ==, 0);
  expect_in (2, "fingerprint is not a regular file", sc.dir, "--quiet",
      sc.state_arg, sc.yaml, NULL);
  /* cut to nothing: damaged, not another pipeline's (every stage added) */
  g_assert_cmpint (g_unlink (fingerprint), ==, 0);
  g_assert_true (g_file_set_contents (fingerprint, "", 0, NULL));
  expect_in (2,
      "holds a damaged fingerprint (it does not begin as a "
      "fingerprint does)",
      sc.dir, "--quiet", sc.state_arg, sc.yaml, NULL);
}

/* a resume restores a checkpoint and makes the frames after it again:
 * the checkpoints of those frames are of another history, and are
 * removed. Here the first run skipped frame 5 (its state after it
 * differs), the second went back to checkpoint 4 and saved every fifth
 * frame, and was killed at frame 14; the third took the first run's
 * checkpoint 12, and frames 13 to 19 differed, status 0 */
static void
test_resume_drops_later_checkpoints (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *yaml5 = g_build_filename (sc.dir, "p5.yaml", NULL);
  g_autofree gchar *sums = g_build_filename (sc.dir, "sums.txt", NULL);
  g_autofree gchar *clean = NULL, *got = NULL;
  Result r = { 0 };
#define STALE_PIPELINE(interval)                                               \
  "pipeline: stale\n"                                                          \
  "stages:\n"                                                                  \
  "  - {name: sim, kind: realtime.particles, params: {capacity: 256,\n"        \
  "     emit-rate: 16, num-buffers: 20, snapshot-interval: " interval ",\n"    \
  "     on-fault: resume}}\n"                                                  \
  "  - {name: out, kind: core.checksum-sink, params: {location: sums.txt}}\n"  \
  "links: [sim -> out]\n"

  g_assert_true (g_file_set_contents (sc.yaml, STALE_PIPELINE ("4"), -1, NULL));
  g_assert_true (g_file_set_contents (yaml5, STALE_PIPELINE ("5"), -1, NULL));
  expect_in (0, NULL, sc.dir, "--quiet", sc.yaml, NULL);
  g_assert_true (g_file_get_contents (sums, &clean, NULL, NULL));

  g_setenv ("ACCEL_FAULT", "sim:invalid-input:5", TRUE);
  expect_in (3, NULL, sc.dir, "--quiet", sc.state_arg, sc.yaml, NULL);
  g_setenv ("ACCEL_FAULT", "out:crash:14", TRUE);
  run_in (&r, sc.dir, "--quiet", sc.state_arg, yaml5, NULL);
  g_unsetenv ("ACCEL_FAULT");
  g_assert_cmpint (r.status, ==, -1); /* killed */
  result_clear (&r);
  expect_in (0, NULL, sc.dir, "--quiet", sc.state_arg, yaml5, NULL);
  g_assert_true (g_file_get_contents (sums, &got, NULL, NULL));
  g_assert_cmpstr (got, ==, clean);
#undef STALE_PIPELINE
}

/* a join whose inputs end unevenly dropped the longer one's frames with
 * no word: a line says how many, and the status stays 0 (no fault) */
static void
test_join_says_dropped (void)
{
  Result r = { 0 };

  run (&r, "--quiet", "-e",
      "core.test-source shape=16 num-buffers=5 ! blas.axpy name=g ! "
      "core.null-sink  core.test-source shape=16 num-buffers=2 ! g.y",
      NULL);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  /* how many of the longer input's frames were made before its source
   * learned that the join had ended: one to three */
  g_assert_nonnull (
      strstr (r.err, "accel-run: stage 'g' (blas.axpy) dropped "));
  g_assert_nonnull (strstr (r.err, " input buffers that had no partner"));
  result_clear (&r);
  /* inputs of one length drop nothing */
  run (&r, "--quiet", "-e",
      "core.test-source shape=16 num-buffers=5 ! blas.axpy name=g ! "
      "core.null-sink  core.test-source shape=16 num-buffers=5 ! g.y",
      NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.err, "dropped"));
  result_clear (&r);
}

/* two stages on different ranks of --ranks N that write one file mixed
 * their frames in it with status 0: each rank's graph held only its own
 * stage. Refused before any rank starts, once, with where the second
 * location is given; a name each rank makes its own runs */
static void
test_shared_files_across_ranks (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *link_path = g_build_filename (sc.dir, "ln.raw", NULL);
  g_autofree gchar *dir_link = g_build_filename (sc.dir, "dl", NULL);
  Result r = { 0 };
#define RANKS_PIPELINE(second)                                                 \
  "pipeline: ranks\n"                                                          \
  "stages:\n"                                                                  \
  "  - {name: src, kind: core.test-source,\n"                                  \
  "     params: {shape: '16', num-buffers: 4}}\n"                              \
  "  - {name: a, kind: io.raw-file-sink, ranks: [0],\n"                        \
  "     params: {location: o-1.raw}}\n"                                        \
  "  - {name: b, kind: io.raw-file-sink, ranks: [1],\n"                        \
  "     params: {location: " second "}}\n"                                     \
  "links: [src -> a, src -> b]\n"

  g_assert_true (g_file_set_contents (
      sc.yaml, RANKS_PIPELINE ("'o-{rank}.raw'"), -1, NULL));
  run_in (&r, sc.dir, "--quiet", "--ranks=2", sc.yaml, NULL);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "p.yaml:8:25: stage 'b' (io.raw-file-sink) "
                                   "on rank 1 writes "));
  g_assert_nonnull (strstr (r.err, "o-1.raw, which stage 'a' on rank 0 "
                                   "writes too: their frames would mix"));
  /* once, by the supervisor: no rank started */
  g_assert_null (strstr (strstr (r.err, "would mix") + 1, "would mix"));
  g_assert_null (strstr (r.err, "rank 0 on"));
  result_clear (&r);

  /* a link to the file, or to its directory: the names were compared,
   * and both ranks wrote one file, status 0 */
  g_assert_cmpint (symlink ("o-1.raw", link_path), ==, 0);
  g_assert_true (
      g_file_set_contents (sc.yaml, RANKS_PIPELINE ("ln.raw"), -1, NULL));
  expect_in (2,
      "stage 'b' (io.raw-file-sink) on rank 1 writes ln.raw, which stage 'a' "
      "on rank 0 writes too: their frames would mix",
      sc.dir, "--quiet", "--validate", "--ranks=2", sc.yaml, NULL);
  g_assert_cmpint (symlink (".", dir_link), ==, 0);
  g_assert_true (
      g_file_set_contents (sc.yaml, RANKS_PIPELINE ("dl/o-1.raw"), -1, NULL));
  expect_in (2,
      "stage 'b' (io.raw-file-sink) on rank 1 writes dl/o-1.raw, which stage "
      "'a' on rank 0 writes too: their frames would mix",
      sc.dir, "--quiet", "--ranks=2", sc.yaml, NULL);

  g_assert_true (g_file_set_contents (
      sc.yaml, RANKS_PIPELINE ("'o-{rank}-b.raw'"), -1, NULL));
  expect_in (0, NULL, sc.dir, "--quiet", "--ranks=2", sc.yaml, NULL);
#undef RANKS_PIPELINE
}

/* a stage on one rank of --ranks N that writes the file a source on
 * another reads: refused before any rank starts, as in one process (the
 * input was emptied, with status 1 and a word only of a file with no
 * whole frame); sources on two ranks may read one file */
static void
test_input_written_across_ranks (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *input = g_build_filename (sc.dir, "in.raw", NULL);
  g_autofree gchar *held = NULL;
  gsize n = 0;
  static const float data[64] = { 1, 2, 3 };
#define INPUT_PIPELINE(second)                                                 \
  "pipeline: ranks\n"                                                          \
  "stages:\n"                                                                  \
  "  - {name: src, kind: io.raw-file-source, ranks: [0],\n"                    \
  "     params: {location: in.raw, shape: '16', dtype: f32}}\n"                \
  "  - {name: a, kind: io.raw-file-sink, ranks: [0],\n"                        \
  "     params: {location: o-0.raw}}\n"                                        \
  "  - {name: b, kind: io.raw-file-sink, ranks: [1],\n"                        \
  "     params: {location: " second "}}\n"                                     \
  "  - {name: src1, kind: io.raw-file-source, ranks: [1],\n"                   \
  "     params: {location: in.raw, shape: '16', dtype: f32}}\n"                \
  "links: [src -> a, src1 -> b]\n"

  g_assert_true (
      g_file_set_contents (input, (const gchar *)data, sizeof (data), NULL));
  g_assert_true (
      g_file_set_contents (sc.yaml, INPUT_PIPELINE ("in.raw"), -1, NULL));
  for (guint validate = 0; validate < 2; validate++)
    expect_in (2,
        "p.yaml:8:25: stage 'b' (io.raw-file-sink) on rank 1 writes in.raw, "
        "which stage 'src' on rank 0 reads: the run would write over its own "
        "input",
        sc.dir, "--quiet", "--ranks=2", validate ? "--validate" : sc.yaml,
        validate ? sc.yaml : NULL, NULL);
  g_assert_true (g_file_get_contents (input, &held, &n, NULL));
  g_assert_cmpuint (n, ==, sizeof (data));

  g_assert_true (
      g_file_set_contents (sc.yaml, INPUT_PIPELINE ("o-1.raw"), -1, NULL));
  expect_in (0, NULL, sc.dir, "--quiet", "--ranks=2", sc.yaml, NULL);
#undef INPUT_PIPELINE
}

/* a fault for a stage the pipeline does not have (misspelt), or a hang
 * where no deadline catches it, is said: the run would test nothing */
static void
test_fault_for_missing_stage (void)
{
  Result r = { 0 };

  g_setenv ("ACCEL_FAULT", "scael:library:2", TRUE);
  run (&r, "-e", "core.test-source num-buffers=4 ! core.scale ! core.null-sink",
      NULL);
  g_unsetenv ("ACCEL_FAULT");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "accel-run: a fault is scheduled for stage "
                                   "'scael', which graph '"));
  g_assert_nonnull (strstr (r.err, "' does not have: it never fires here"));
  result_clear (&r);

  /* a hang in a stage without a deadline only delays its frame */
  g_setenv ("ACCEL_FAULT", "work:hang:2", TRUE);
  run (&r, "-e",
      "core.test-source num-buffers=4 ! core.scale name=work ! core.null-sink",
      NULL);
  g_unsetenv ("ACCEL_FAULT");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (
      strstr (r.err, "accel-run: a hang is scheduled for stage 'work', which "
                     "has no deadline: its frame is only delayed by 1 s, and "
                     "nothing fails"));
  result_clear (&r);
}

/* a stage whose frame does not return (an injected hang of 60 s): its
 * watchdog fails the run long before, and accel-run leaves without the
 * stage's thread; supervised (a world of one rank), the next worker
 * resumes, and the output is a clean run's */
static void
test_hung_stage_left (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *sums = g_build_filename (sc.dir, "sums.txt", NULL);
  g_autofree gchar *expected = NULL, *got = NULL;
  Result r = { 0 };
  gint64 t0;

  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: hung\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source,\n"
      "     params: {shape: '64', num-buffers: 20}}\n"
      "  - {name: k, kind: core.scale,\n"
      "     supervision: {deadline: 30s, watchdog: 300ms}}\n"
      "  - {name: check, kind: core.checksum-sink,\n"
      "     params: {location: sums.txt}}\n"
      "links: [src -> k -> check]\n",
      -1, NULL));
  expect_in (0, NULL, sc.dir, "--quiet", sc.yaml, NULL);
  g_assert_true (g_file_get_contents (sums, &expected, NULL, NULL));
  g_unlink (sums);

  g_setenv ("ACCEL_FAULT", "k:hang:7", TRUE);
  t0 = g_get_monotonic_time ();
  run_in (&r, sc.dir, "--quiet", "--stats=hung.json", sc.yaml, NULL);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 30 * G_USEC_PER_SEC);
  g_assert_nonnull (
      strstr (r.err, "stage 'k' (core.scale): frame 7 has run for "));
  g_assert_nonnull (strstr (r.err, "past its 300 ms watchdog"));
  g_assert_nonnull (strstr (r.err, "; leaving without it"));
  result_clear (&r);
  /* the stats say the run did not complete, and why (they said it did) */
  {
    g_autofree gchar *path = g_build_filename (sc.dir, "hung.json", NULL);
    g_autofree gchar *text = NULL;
    g_autoptr (Json) stats = NULL;

    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    stats = json_parse (text);
    g_assert_nonnull (stats);
    g_assert_false (json_member (stats, "completed", JSON_BOOL)->boolean);
    g_assert_nonnull (strstr (json_member (stats, "error", JSON_STRING)->string,
        "past its 300 ms watchdog"));
  }
  g_unlink (sums);

  run_in (&r, sc.dir, "--quiet", "--ranks=1", sc.yaml, NULL);
  g_unsetenv ("ACCEL_FAULT");
  g_test_message ("%s", r.err);
  /* every frame, once, after a rebuilt world: said, status 4 */
  g_assert_cmpint (r.status, ==, 4);
  g_assert_nonnull (strstr (
      r.err, "stopped because one of its stages hung past its watchdog"));
  g_assert_nonnull (strstr (r.err,
      "the world finished in generation 2, rebuilt 1 time (what its sinks "
      "had not committed was run again): every frame was delivered, some "
      "only after a retry"));
  result_clear (&r);
  g_assert_true (g_file_get_contents (sums, &got, NULL, NULL));
  g_assert_cmpstr (got, ==, expected);
  g_unlink (sums);
}

/* a stage that hangs, and another that fails the graph before the
 * watchdog's report: the stop waited for the hung frame for good; the run
 * leaves after the grace, naming the hung stage. k holds frame 0 and four
 * more fit its mailbox, so src hands frame 4 on (to k first) once k took
 * frame 0: x fails on a frame that comes after k's hang began */
static void
test_hung_after_failure (void)
{
  Result r = { 0 };
  gint64 t0 = g_get_monotonic_time ();

  g_setenv ("ACCEL_FAULT", "k:hang:0,x:library:4", TRUE);
  run (&r, "--quiet", "-e",
      "core.test-source name=src shape=64 num-buffers=40 ! core.scale name=k "
      "mailbox-size=4 deadline=30000 watchdog=500 ! core.null-sink  src. ! "
      "core.scale name=x on-fault=escalate ! core.null-sink",
      NULL);
  g_unsetenv ("ACCEL_FAULT");
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 30 * G_USEC_PER_SEC);
  g_assert_nonnull (strstr (r.err, "stage 'x' (core.scale): injected"));
  g_assert_nonnull (strstr (r.err, "stage 'k' (core.scale): frame 0 has run"));
  g_assert_nonnull (strstr (r.err, "; leaving without it"));
  result_clear (&r);
}

/* runs @argv with @fault into @l, stopped (SIGSTOP) 300 ms after it runs
 * for @stop_s seconds; its status */
static gint
run_stopped (Live *l, const char **argv, const char *fault, guint stop_s)
{
  gint status;

  live_start (l, argv, fault, 60);
  g_assert_true (live_wait_for (l, "accel-run: running"));
  g_usleep (300 * 1000);
  g_subprocess_send_signal (l->p, SIGSTOP);
  g_usleep (stop_s * G_USEC_PER_SEC);
  g_subprocess_send_signal (l->p, SIGCONT);
  status = live_finish (l);
  g_test_message ("%s", l->said->str);
  return status;
}

/* a process stopped by a signal (or a debugger) is not hung: the time it
 * stood still is not the frame's. Here frame 3 sleeps 2 s of a 3 s
 * watchdog, and the process is stopped for 4 s of it, which the sleep
 * ends within: the frame is neither hung (it was, status 1) nor late for
 * its 1 s deadline (status 3, until stood still time was excused from
 * deadlines too) */
static void
test_stopped_is_not_hung (void)
{
  const char *argv[] = { NULL, "--backend=host", "--no-supervise", "-e",
    "core.test-source shape=64 num-buffers=6 ! core.scale name=k "
    "deadline=1000 watchdog=3000 ! core.null-sink",
    NULL };
  Live l = { 0 };

  g_assert_cmpint (run_stopped (&l, argv, "k:hang:3", 4), ==, 0);
  g_assert_null (strstr (l.said->str, "watchdog"));
  g_assert_null (strstr (l.said->str, "deadline"));
  live_clear (&l);
}

/* nor is the time the process stood still the frame's deadline's: a
 * run paused (Ctrl-Z) for 2 s lost the frame at work, past its 500 ms
 * deadline. Both stages with a deadline work all the time, so one has a
 * frame at work when the process stops */
static void
test_stopped_is_not_late (void)
{
  const char *argv[] = { NULL, "--backend=host", "--no-supervise", "-e",
    "core.test-source shape=1000000 num-buffers=3000 deadline=500 ! "
    "core.scale name=k deadline=500 ! core.null-sink",
    NULL };
  Live l = { 0 };

  g_assert_cmpint (run_stopped (&l, argv, NULL, 2), ==, 0);
  g_assert_null (strstr (l.said->str, "deadline"));
  live_clear (&l);
}

/* Ctrl-C while a stage hangs in its frame (no watchdog to say so): the
 * run leaves without it after the grace, status 130, and its --stats say
 * it was stopped (none were written) */
static void
test_stopped_while_hung (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-run-XXXXXX", NULL);
  g_autofree gchar *stats = g_build_filename (dir, "stats.json", NULL);
  g_autofree gchar *stats_arg = g_strdup_printf ("--stats=%s", stats);
  g_autofree gchar *text = NULL;
  g_autoptr (Json) json = NULL;
  const char *argv[]
      = { NULL, "--backend=host", "--no-supervise", stats_arg, "-e",
          "core.test-source shape=64 num-buffers=6 ! core.scale name=k "
          "deadline=60000 ! core.null-sink",
          NULL };
  Live l = { 0 };
  gint status;

  live_start (&l, argv, "k:hang:3", 60);
  g_assert_true (live_wait_for (&l, "accel-run: running"));
  g_usleep (500 * 1000);
  g_subprocess_send_signal (l.p, SIGINT);
  status = live_finish (&l);
  g_test_message ("%s", l.said->str);
  g_assert_cmpint (status, ==, 130);
  g_assert_nonnull (strstr (l.said->str, "of being stopped; exiting"));
  live_clear (&l);
  g_assert_true (g_file_get_contents (stats, &text, NULL, NULL));
  json = json_parse (text);
  g_assert_nonnull (json);
  g_assert_false (json_member (json, "completed", JSON_BOOL)->boolean);
  remove_dir (dir);
}

/* Ctrl-C while the graph starts, a sink waiting for its FIFO's reader
 * (io.raw-file-sink's own open, or a filesink's in io.gst-sink's
 * description): the start is stopped at once (status 130), where the
 * first Ctrl-C was kept for once the graph ran, after start-timeout */
static void
test_interrupt_start (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-run-XXXXXX", NULL);
  g_autofree gchar *fifo = g_build_filename (dir, "out.fifo", NULL);
  g_autofree gchar *raw = g_strdup_printf (
      "core.test-source shape=4 num-buffers=2 ! io.raw-file-sink "
      "location=%s start-timeout=60000",
      fifo);
  g_autofree gchar *gst = g_strdup_printf (
      "core.test-source format=RGBA8 width=8 height=8 num-buffers=2 ! "
      "io.gst-sink description=\"filesink location=%s\" start-timeout=60000",
      fifo);
  const char *lines[] = { raw, gst };

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      const char *argv[]
          = { NULL, "--backend=host", "--no-supervise", "-e", lines[i], NULL };
      Live l = { 0 };
      gint64 t0;
      gint status;

      /* a loaded machine may not have come to the start yet: later */
      for (guint wait_s = 1;; wait_s *= 2)
        {
          live_start (&l, argv, NULL, 60);
          g_usleep (wait_s * G_USEC_PER_SEC);
          t0 = g_get_monotonic_time ();
          g_subprocess_send_signal (l.p, SIGINT);
          status = live_finish (&l);
          g_test_message ("%s", l.said->str);
          if (wait_s == 8 || !strstr (l.said->str, "before the graph started"))
            break;
          live_clear (&l);
        }
      g_assert_cmpint (status, ==, 130);
      g_assert_cmpint (g_get_monotonic_time () - t0, <, 10 * G_USEC_PER_SEC);
      g_assert_nonnull (strstr (l.said->str, "stopping the start"));
      live_clear (&l);
    }
  g_unlink (fifo);
  remove_dir (dir);
}

/* Ctrl-C while the first run with a state directory digests its input
 * stops the start at once: the digest of a large input (64 GB, sparse)
 * went on to its end, a minute for 20 GB, "stopping the start" said */
static void
test_input_digest_interrupted (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *in = g_build_filename (sc.dir, "big.raw", NULL);
  g_autofree gchar *line = g_strdup_printf (
      "io.raw-file-source location=%s shape=4096 dtype=u8 num-buffers=3 "
      "! core.null-sink",
      in);
  const char *argv[] = { NULL, "--backend=host", "--no-supervise", sc.state_arg,
    "-e", line, NULL };
  Live l = { 0 };
  gint64 t0;
  gint status;
  int fd = g_open (in, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, (off_t)64 << 30), ==, 0);
  close (fd);
  /* a loaded machine may not have come to the start yet: later */
  for (guint wait_s = 1;; wait_s *= 2)
    {
      live_start (&l, argv, NULL, 120);
      g_usleep (wait_s * G_USEC_PER_SEC);
      t0 = g_get_monotonic_time ();
      g_subprocess_send_signal (l.p, SIGINT);
      status = live_finish (&l);
      g_test_message ("%s", l.said->str);
      if (wait_s == 4 || strstr (l.said->str, "stopping the start"))
        break;
      live_clear (&l);
    }
  g_assert_cmpint (status, ==, 130);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 5 * G_USEC_PER_SEC);
  g_assert_nonnull (strstr (l.said->str, "stopping the start"));
  live_clear (&l);
  g_unlink (in);
}

/* a write to a pipe no one reads is backpressure from outside the graph,
 * as io.gst-sink's wait for room is: io.raw-file-sink waits for its reader
 * in slices, its own watchdog bounding the wait with a timeout (the graph
 * failed as hung, a stage whose thread cannot be stopped), and Ctrl-C ends
 * the wait (the stop waited for the write, and the run left without the
 * stage 5 s later) */
static void
test_hung_sink (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *fifo = g_build_filename (sc.dir, "out.fifo", NULL);
  g_autofree gchar *sink = g_strdup_printf (
      "core.test-source shape=4096 num-buffers=40 ! io.raw-file-sink "
      "name=out location=%s watchdog=300",
      fifo);
  g_autofree gchar *endless = g_strdup_printf (
      "core.test-source shape=4096 ! io.raw-file-sink name=out location=%s",
      fifo);
  const char *argv[]
      = { NULL, "--backend=host", "--no-supervise", "-e", endless, NULL };
  Live l = { 0 };
  Result r = { 0 };
  gint64 t0;
  int reader;
  char drained[4096];

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  /* opened, never read: the pipe fills after four frames */
  reader = g_open (fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
  g_assert_cmpint (reader, >=, 0);
  run (&r, "--quiet", "-e", sink, NULL);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "stage 'out' (io.raw-file-sink): "));
  g_assert_nonnull (strstr (r.err, "its reader took no data for "));
  g_assert_nonnull (strstr (r.err, "past the stage's 300 ms watchdog"));
  g_assert_null (strstr (r.err, "hung"));
  result_clear (&r);
  g_clear_pointer (&sink, g_free);

  /* a frame larger than the pipe holds is given up on part written: the
   * reader has it cut short, and would read the frames after it out of
   * place, so the stage is not restarted */
  while (read (reader, drained, sizeof drained) > 0)
    ;
  sink = g_strdup_printf (
      "core.test-source shape=65536 num-buffers=4 ! io.raw-file-sink "
      "name=out location=%s watchdog=300",
      fifo);
  run (&r, "--quiet", "-e", sink, NULL);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "(its reader has the frame cut short, "));
  g_assert_nonnull (strstr (r.err, "cannot restart: the reader of "));
  result_clear (&r);

  live_start (&l, argv, NULL, 60);
  g_assert_true (live_wait_for (&l, "accel-run: running"));
  g_usleep (500 * 1000);
  t0 = g_get_monotonic_time ();
  g_subprocess_send_signal (l.p, SIGINT);
  g_assert_cmpint (live_finish (&l), ==, 130);
  g_test_message ("%s", l.said->str);
  g_assert_null (strstr (l.said->str, "did not return"));
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 8 * G_USEC_PER_SEC);
  live_clear (&l);
  close (reader);
  g_unlink (fifo);
}

/* @text, a pipeline whose stage 'sim' takes a checkpoint every 8 frames,
 * killed at frame 21 with its state in @sc: checkpoints 0, 8 and 16 are on
 * disk */
static void
crash_sim_pipeline (Scratch *sc, const char *text)
{
  g_assert_true (g_file_set_contents (sc->yaml, text, -1, NULL));
  run_killed (sc, "sim:crash:21");
}

/* a particle simulation with checkpoints every 8 frames into a checksum
 * sink, killed at frame 21 (crash_sim_pipeline ()) */
static void
crash_checkpointed_sim (Scratch *sc)
{
  crash_sim_pipeline (sc, "pipeline: checkpointed\n"
                          "stages:\n"
                          "  - {name: sim, kind: realtime.particles,\n"
                          "     params: {capacity: 2000, emit-rate: 100,\n"
                          "              num-buffers: 40, snapshot-interval: "
                          "8}}\n"
                          "  - {name: check, kind: core.checksum-sink, "
                          "params: {location: sums.txt}}\n"
                          "links: [sim -> check]\n");
}

/* as crash_checkpointed_sim (), the frames drawn and through effects
 * that keep no state: 'fx' leaves fx.checkpoint.stateless */
static void
crash_sim_with_effects (Scratch *sc)
{
  crash_sim_pipeline (sc,
      "pipeline: marked\n"
      "stages:\n"
      "  - {name: sim, kind: realtime.particles,\n"
      "     params: {capacity: 2000, emit-rate: 100, num-buffers: 40,\n"
      "              snapshot-interval: 8}}\n"
      "  - {name: draw, kind: realtime.splat,\n"
      "     params: {width: 32, height: 24, scale: 10}}\n"
      "  - {name: fx, kind: realtime.effects,\n"
      "     params: {effects: 'contrast=1.2', snapshot-interval: 8}}\n"
      "  - {name: check, kind: core.checksum-sink, params: {location: "
      "sums.txt}}\n"
      "links: [sim -> draw, draw -> fx, fx -> check]\n");
}

/* a checkpoint holds the state of the frame its name says: renamed (each
 * one's state under the next frame's name, so that whichever the resume
 * takes is one) it is refused as damaged; it was restored, and the frames
 * after it differed from a run without the crash */
static void
test_checkpoint_name_checked (void)
{
  g_auto (Scratch) sc = scratch_new ();
  Result r = { 0 };

  crash_checkpointed_sim (&sc);
  /* newest first: 16 to 17, 8 to 9, 0 to 1 */
  for (gint s = 16; s >= 0; s -= 8)
    {
      g_autofree gchar *from
          = g_strdup_printf ("%s/sim.checkpoint.%d", sc.state, s);
      g_autofree gchar *to
          = g_strdup_printf ("%s/sim.checkpoint.%d", sc.state, s + 1);

      g_assert_cmpint (g_rename (from, to), ==, 0);
    }
  run_in (&r, sc.dir, "--quiet", sc.state_arg, sc.yaml, NULL);
  g_test_message ("%s", r.err);
  /* a state that does not fit the run, as a damaged fingerprint is */
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "is damaged"));
  g_assert_nonnull (strstr (r.err, "--restart-state discards the state"));
  result_clear (&r);
}

/* a checkpoint whose state was damaged on disk after its header is
 * refused as damaged: only its header was checked, and a resume restored
 * it without a word (the frames after it differed) */
static void
test_checkpoint_body_checked (void)
{
  g_auto (Scratch) sc = scratch_new ();
  Result r = { 0 };

  crash_checkpointed_sim (&sc);
  /* one byte in the middle of each state, so that whichever the resume
   * takes is one */
  for (gint s = 0; s <= 16; s += 8)
    {
      g_autofree gchar *path
          = g_strdup_printf ("%s/sim.checkpoint.%d", sc.state, s);
      g_autofree gchar *data = NULL;
      gsize len;

      g_assert_true (g_file_get_contents (path, &data, &len, NULL));
      g_assert_cmpuint (len, >, 64);
      data[len / 2] ^= 0x40;
      g_assert_true (g_file_set_contents (path, data, (gssize)len, NULL));
    }
  run_in (&r, sc.dir, "--quiet", sc.state_arg, sc.yaml, NULL);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, !=, 0);
  g_assert_nonnull (strstr (r.err, "is damaged"));
  result_clear (&r);
}

/* a checkpoint of another stage of the same kind and size under this
 * one's name is refused: its check covers the stage's name (it was
 * restored, and the stage's frames were the other's, status 0) */
static void
test_checkpoint_stage_checked (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *a = g_build_filename (sc.state, "a.checkpoint.8", NULL);
  g_autofree gchar *b = g_build_filename (sc.state, "b.checkpoint.8", NULL);
  g_autofree gchar *data = NULL;
  gsize len;
  Result r = { 0 };

  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: two-sims\n"
      "stages:\n"
      "  - {name: a, kind: realtime.particles, params: {capacity: 256,\n"
      "     emit-rate: 16, num-buffers: 20, snapshot-interval: 4, seed: 1}}\n"
      "  - {name: b, kind: realtime.particles, params: {capacity: 256,\n"
      "     emit-rate: 16, num-buffers: 20, snapshot-interval: 4, seed: 2}}\n"
      "  - {name: oa, kind: core.checksum-sink, params: {location: a.txt}}\n"
      "  - {name: ob, kind: core.checksum-sink, params: {location: b.txt}}\n"
      "links: [a -> oa, b -> ob]\n",
      -1, NULL));
  expect_in (
      0, NULL, sc.dir, "--quiet", "--frames=10", sc.state_arg, sc.yaml, NULL);
  g_assert_true (g_file_get_contents (b, &data, &len, NULL));
  g_assert_true (g_file_set_contents (a, data, (gssize)len, NULL));
  run_in (&r, sc.dir, "--quiet", sc.state_arg, sc.yaml, NULL);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, !=, 0);
  g_assert_nonnull (strstr (r.err, "a.checkpoint.8 is damaged (or another "
                                   "stage's)"));
  result_clear (&r);
}

/* a checkpoint copied from another state directory of the same pipeline
 * and stage is refused: its check covers the directory's identity (it was
 * restored, and the stage's frames after it were the other run's, status
 * 0) */
static void
test_checkpoint_state_dir_checked (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *other = g_build_filename (sc.dir, "other", NULL);
  g_autofree gchar *other_arg = g_strdup_printf ("--state-dir=%s", other);
  g_autofree gchar *mine = g_build_filename (sc.state, "a.checkpoint.8", NULL);
  g_autofree gchar *theirs = g_build_filename (other, "a.checkpoint.8", NULL);
  g_autofree gchar *data = NULL;
  gsize len;
  Result r = { 0 };

  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: one-sim\n"
      "stages:\n"
      "  - {name: a, kind: realtime.particles, params: {capacity: 256,\n"
      "     emit-rate: 16, num-buffers: 20, snapshot-interval: 4, seed: 1}}\n"
      "  - {name: oa, kind: core.checksum-sink, params: {location: a.txt}}\n"
      "links: [a -> oa]\n",
      -1, NULL));
  expect_in (
      0, NULL, sc.dir, "--quiet", "--frames=10", other_arg, sc.yaml, NULL);
  expect_in (
      0, NULL, sc.dir, "--quiet", "--frames=10", sc.state_arg, sc.yaml, NULL);
  g_assert_true (g_file_get_contents (theirs, &data, &len, NULL));
  g_assert_true (g_file_set_contents (mine, data, (gssize)len, NULL));
  run_in (&r, sc.dir, "--quiet", sc.state_arg, sc.yaml, NULL);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "a.checkpoint.8 was written in another "
                                   "state directory"));
  result_clear (&r);
}

/* @path, an ACCELCK4 checkpoint, rewritten as one of ACCELCK3, from before
 * checkpoints carried their state directory's identity: its check is
 * without the identity (header: magic, sequence, size, check, identity) */
static void
drop_checkpoint_identity (const char *path, const char *to)
{
  g_autofree gchar *data = NULL;
  guint64 check, id;
  gsize len;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  g_assert_cmpuint (len, >=, 40);
  g_assert_cmpmem (data, 8, "ACCELCK4", 8);
  memcpy (data, "ACCELCK3", 8);
  memcpy (&check, data + 24, 8);
  memcpy (&id, data + 32, 8);
  check ^= id;
  memcpy (data + 24, &check, 8);
  memmove (data + 32, data + 40, len - 40);
  g_assert_true (g_file_set_contents (to, data, (gssize)(len - 8), NULL));
}

/* a checkpoint without an identity (ACCELCK3) copied from another state
 * directory into one made with an identity is refused: it cannot be this
 * directory's own (it was restored, and the stage's frames after it were
 * the other run's, status 0) */
static void
test_checkpoint_unidentified_refused (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *other = g_build_filename (sc.dir, "other", NULL);
  g_autofree gchar *other_arg = g_strdup_printf ("--state-dir=%s", other);
  g_autofree gchar *mine = g_build_filename (sc.state, "a.checkpoint.8", NULL);
  g_autofree gchar *theirs = g_build_filename (other, "a.checkpoint.8", NULL);

  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: one-sim\n"
      "stages:\n"
      "  - {name: a, kind: realtime.particles, params: {capacity: 256,\n"
      "     emit-rate: 16, num-buffers: 20, snapshot-interval: 4, seed: 1}}\n"
      "  - {name: oa, kind: core.checksum-sink, params: {location: a.txt}}\n"
      "links: [a -> oa]\n",
      -1, NULL));
  expect_in (
      0, NULL, sc.dir, "--quiet", "--frames=10", other_arg, sc.yaml, NULL);
  expect_in (
      0, NULL, sc.dir, "--quiet", "--frames=10", sc.state_arg, sc.yaml, NULL);
  drop_checkpoint_identity (theirs, mine);
  expect_in (2, "a.checkpoint.8 carries no state directory identity", sc.dir,
      "--quiet", sc.state_arg, sc.yaml, NULL);
}

/* a state directory kept before state directories had an identity (its
 * fingerprint without one, its checkpoints ACCELCK3, its stateless marker
 * empty) resumes from its own checkpoints, and so it does after its first
 * run gained it an identity; the output equals a run without the
 * crashes */
static void
test_checkpoint_unidentified_old_dir (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *print = g_build_filename (sc.state, "fingerprint", NULL);
  g_autofree gchar *marker
      = g_build_filename (sc.state, "fx.checkpoint.stateless", NULL);
  g_autofree gchar *sums = g_build_filename (sc.dir, "sums.txt", NULL);
  g_autofree gchar *clean = g_build_filename (sc.dir, "clean", NULL);
  g_autofree gchar *clean_sums = g_build_filename (clean, "sums.txt", NULL);
  g_autofree gchar *text = NULL;
  g_autoptr (GBytes) expected = NULL;
  g_auto (GStrv) lines = NULL;
  GString *kept = g_string_new (NULL);
  Result r = { 0 };

  crash_sim_with_effects (&sc);
  g_assert_cmpint (g_mkdir (clean, 0755), ==, 0);
  expect_in (0, NULL, clean, "--quiet", sc.yaml, NULL);
  expected = contents (clean_sums);
  for (gint s = 0; s <= 16; s += 8)
    {
      g_autofree gchar *path
          = g_strdup_printf ("%s/sim.checkpoint.%d", sc.state, s);
      drop_checkpoint_identity (path, path);
    }
  g_assert_true (g_file_test (marker, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_set_contents (marker, "", 0, NULL));
  /* a fingerprint from before its identity and its check */
  g_assert_true (g_file_get_contents (print, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (*lines[i] && !g_str_has_prefix (lines[i], "# check")
        && !g_str_has_prefix (lines[i], "identity\t"))
      g_string_append_printf (kept, "%s\n", lines[i]);
  g_assert_true (g_file_set_contents (print, kept->str, -1, NULL));
  g_string_free (kept, TRUE);

  /* killed again before its next checkpoint: the directory has its
   * identity now, and its checkpoints none */
  g_setenv ("ACCEL_FAULT", "sim:crash:20", TRUE);
  run_in (&r, sc.dir, "--quiet", sc.state_arg, sc.yaml, NULL);
  g_unsetenv ("ACCEL_FAULT");
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, -1);
  g_assert_null (strstr (r.err, "identity"));
  result_clear (&r);
  g_clear_pointer (&text, g_free);
  g_assert_true (g_file_get_contents (print, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\nidentity\t"));
  /* where the sink's commits had reached when it was killed */
  assert_resumes_to (
      sc.dir, sc.state_arg, sc.yaml, sums, expected, "resuming at frame ");
}

/* a stage's marker that its snapshots hold no state, copied from another
 * state directory (or one without an identity, from before they had one,
 * or another stage's) is refused as its checkpoints are: believed, a stateful
 * stage whose checkpoints are gone resumed with its state started over mid-run,
 * its frames not a clean run's, status 0 */
static void
test_stateless_marker_checked (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *other = g_build_filename (sc.dir, "other", NULL);
  g_autofree gchar *other_arg = g_strdup_printf ("--state-dir=%s", other);
  g_autofree gchar *theirs
      = g_build_filename (other, "fx.checkpoint.stateless", NULL);
  g_autofree gchar *mine
      = g_build_filename (sc.state, "sim.checkpoint.stateless", NULL);
  g_autofree gchar *ours
      = g_build_filename (sc.state, "fx.checkpoint.stateless", NULL);
  g_autofree gchar *data = NULL;
  gsize len;

  crash_sim_with_effects (&sc);
  expect_in (0, NULL, sc.dir, "--quiet", other_arg, sc.yaml, NULL);
  g_assert_true (g_file_get_contents (theirs, &data, &len, NULL));
  for (gint s = 0; s <= 16; s += 8)
    {
      g_autofree gchar *path
          = g_strdup_printf ("%s/sim.checkpoint.%d", sc.state, s);
      g_assert_cmpint (g_unlink (path), ==, 0);
    }
  g_assert_true (g_file_set_contents (mine, data, (gssize)len, NULL));
  expect_in (2,
      "sim.checkpoint.stateless was written in another state "
      "directory",
      sc.dir, "--quiet", sc.state_arg, sc.yaml, NULL);
  g_assert_true (g_file_set_contents (mine, "", 0, NULL));
  expect_in (2,
      "sim.checkpoint.stateless carries no state directory "
      "identity",
      sc.dir, "--quiet", sc.state_arg, sc.yaml, NULL);
  /* another stage's of this directory, whose identity is right: it
   * resumed with the simulation started over mid-run, status 0 */
  g_clear_pointer (&data, g_free);
  g_assert_true (g_file_get_contents (ours, &data, &len, NULL));
  g_assert_true (g_file_set_contents (mine, data, (gssize)len, NULL));
  expect_in (2, "sim.checkpoint.stateless was written by stage 'fx', not 'sim'",
      sc.dir, "--quiet", sc.state_arg, sc.yaml, NULL);
}

/* --validate with --state-dir says what the run would refuse of the state
 * directory (another pipeline's, a damaged fingerprint, a FIFO named as a
 * state file), with its status, and changes nothing there: a directory
 * that is not there is not made, and a fingerprint is not written (it
 * said valid, and the run was refused) */
static void
test_validate_state_dir (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *print = g_build_filename (sc.state, "fingerprint", NULL);
  g_autofree gchar *fifo = g_build_filename (sc.state, "out.commits", NULL);
  g_autofree gchar *world = g_build_filename (sc.dir, "world.yaml", NULL);
  g_autofree gchar *text = NULL, *after = NULL;
  g_autofree gchar *damaged = NULL;

  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: validated\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {shape: '64', "
      "num-buffers: 4}}\n"
      "  - {name: out, kind: core.checksum-sink, params: {location: "
      "sums.txt}}\n"
      "links: [src -> out]\n",
      -1, NULL));
  expect_in (0, NULL, sc.dir, "--validate", sc.state_arg, sc.yaml, NULL);
  g_assert_false (g_file_test (sc.state, G_FILE_TEST_EXISTS));
  expect_in (0, NULL, sc.dir, "--quiet", sc.state_arg, sc.yaml, NULL);
  expect_in (0, NULL, sc.dir, "--validate", sc.state_arg, sc.yaml, NULL);
  /* a world's ranks in one process's state directory */
  g_assert_true (g_file_set_contents (world,
      "pipeline: ranks\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {shape: '64'}}\n"
      "  - {name: out, kind: core.null-sink}\n"
      "links: [src -> out]\n",
      -1, NULL));
  expect_in (2, "holds the state of a run of one process", sc.dir, "--validate",
      "--ranks=2", sc.state_arg, world, NULL);

  /* another pipeline's: refused as the run refuses it, and no
   * fingerprint of this one is written */
  g_assert_true (g_file_get_contents (print, &text, NULL, NULL));
  expect_in (2,
      "holds the state of another pipeline: stage 'src' parameter "
      "'shape' was \"64\", now \"32\"",
      sc.dir, "--validate", "--set", "src.shape=32", sc.state_arg, sc.yaml,
      NULL);
  expect_in (0, NULL, sc.dir, "--validate", "--restart-state", "--set",
      "src.shape=32", sc.state_arg, sc.yaml, NULL);
  g_assert_true (g_file_get_contents (print, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, text);

  damaged = g_strconcat (text, "x\n", NULL);
  g_assert_true (g_file_set_contents (print, damaged, -1, NULL));
  expect_in (2, "holds a damaged fingerprint", sc.dir, "--validate",
      sc.state_arg, sc.yaml, NULL);
  g_assert_true (g_file_set_contents (print, text, -1, NULL));

  g_assert_cmpint (g_unlink (fifo), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  expect_in (2, "out.commits is not a regular file", sc.dir, "--validate",
      sc.state_arg, sc.yaml, NULL);
}

/* a state directory whose files the run cannot use is refused as the run
 * starts, with status 2 as --validate refuses it: a damaged commit log
 * (status 1, with no word of --restart-state), a read-only directory or
 * state file (status 1, in GLib's words, after --validate had said as
 * much), a directory of sysfs. Permissions bind no one as root: there the
 * read-only part is not tried */
static void
test_state_dir_unusable (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *log = g_build_filename (sc.state, "out.commits", NULL);
  g_autofree gchar *text = NULL;

  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: unusable\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {shape: '64', "
      "num-buffers: 4}}\n"
      "  - {name: out, kind: core.checksum-sink, params: {location: "
      "sums.txt}}\n"
      "links: [src -> out]\n",
      -1, NULL));
  expect_in (0, NULL, sc.dir, "--quiet", sc.state_arg, sc.yaml, NULL);
  g_assert_true (g_file_get_contents (log, &text, NULL, NULL));
  g_assert_true (g_file_set_contents (log, "garbage", -1, NULL));
  expect_in (2, "out.commits is not a commit log (bad header)", sc.dir,
      "--quiet", sc.state_arg, sc.yaml, NULL);
  expect_in (2, "--restart-state discards the state and starts over", sc.dir,
      "--quiet", sc.state_arg, sc.yaml, NULL);
  expect_in (0, NULL, sc.dir, "--quiet", "--restart-state", sc.state_arg,
      sc.yaml, NULL);

  /* sysfs takes no file, root's or not: as root access () said yes, and
   * --validate passed the directory the run then failed in, status 1, in
   * GLib's words of a temporary file */
  if (g_file_test ("/sys/kernel", G_FILE_TEST_IS_DIR))
    for (guint validate = 0; validate < 2; validate++)
      expect_in (2, "cannot write in the state directory /sys/kernel: ", sc.dir,
          "--quiet", "--state-dir=/sys/kernel",
          validate ? "--validate" : sc.yaml, validate ? sc.yaml : NULL, NULL);

  /* nor a directory not there yet that cannot be made: --validate passed
   * it, and the run failed in it with status 1 */
  {
    g_autofree gchar *long_name = g_strnfill (300, 'b');
    g_autofree gchar *too_long
        = g_strdup_printf ("--state-dir=%s/%s/state", sc.dir, long_name);

    for (guint validate = 0; validate < 2; validate++)
      {
        expect_in (2, "File name too long", sc.dir, "--quiet", too_long,
            validate ? "--validate" : sc.yaml, validate ? sc.yaml : NULL, NULL);
        if (g_file_test ("/sys/kernel", G_FILE_TEST_IS_DIR))
          expect_in (2, "cannot create the state directory /sys/kernel/new",
              sc.dir, "--quiet", "--state-dir=/sys/kernel/new",
              validate ? "--validate" : sc.yaml, validate ? sc.yaml : NULL,
              NULL);
      }
  }

  if (geteuid () == 0)
    {
      g_test_message ("as root, permissions bind nothing: the read-only "
                      "state is not tried");
      return;
    }
  g_assert_cmpint (g_chmod (log, 0400), ==, 0);
  expect_in (2, "out.commits of the state directory: Permission denied", sc.dir,
      "--quiet", sc.state_arg, sc.yaml, NULL);
  g_assert_cmpint (g_chmod (log, 0600), ==, 0);
  g_assert_cmpint (g_chmod (sc.state, 0500), ==, 0);
  expect_in (2, "cannot write in the state directory", sc.dir, "--quiet",
      sc.state_arg, sc.yaml, NULL);
  g_assert_cmpint (g_chmod (sc.state, 0700), ==, 0);
}

/* a user of no process and a cap on its tasks (threads count): the run in
 * the child is the only one the cap counts */
typedef struct
{
  uid_t uid;
  rlim_t tasks;
} Tasks;

static void
as_capped_user (gpointer data)
{
  Tasks *t = data;
  struct rlimit l = { t->tasks, t->tasks };

  if (setrlimit (RLIMIT_NPROC, &l) != 0 || setgroups (0, NULL) != 0
      || setgid (t->uid) != 0 || setuid (t->uid) != 0)
    _exit (99);
}

/* runs @yaml in @dir as a user of its own under each cap on its tasks
 * from @from to @to; each run ends with status 0 or 1 (never a signal),
 * and those that fail say why. Returns how many failed */
static guint
run_capped (const char *dir, const char *yaml, rlim_t from, rlim_t to)
{
  g_autofree gchar *reg = g_build_filename (dir, "registry.bin", NULL);
  g_autofree gchar *plugins = g_build_filename (dir, "plugins", NULL);
  guint failed = 0;

  for (rlim_t n = from; n <= to; n++)
    {
      Tasks t = { 64000 + (getpid () % 1000), n };
      g_autoptr (GSubprocessLauncher) launcher = g_subprocess_launcher_new (
          G_SUBPROCESS_FLAGS_STDERR_PIPE | G_SUBPROCESS_FLAGS_STDOUT_SILENCE);
      g_autoptr (GSubprocess) p = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree gchar *err = NULL;
      const char *argv[] = { g_getenv ("ACCEL_RUN"), "--backend=host",
        "--no-supervise", "--quiet", yaml, NULL };
      int status;

      g_subprocess_launcher_set_cwd (launcher, dir);
      /* OpenBLAS's threads would take the cap first (and it raises SIGINT
       * when it cannot have them) */
      g_subprocess_launcher_setenv (
          launcher, "OPENBLAS_NUM_THREADS", "1", TRUE);
      /* GStreamer's plugins are only those of @dir's plugins (some others,
       * pango's, make a thread with g_thread_new as they load) */
      g_subprocess_launcher_setenv (
          launcher, "GST_PLUGIN_SYSTEM_PATH_1_0", plugins, TRUE);
      g_subprocess_launcher_setenv (launcher, "GST_PLUGIN_PATH_1_0", "", TRUE);
      g_subprocess_launcher_setenv (launcher, "GST_REGISTRY_1_0", reg, TRUE);
      g_subprocess_launcher_set_child_setup (
          launcher, as_capped_user, &t, NULL);
      p = g_subprocess_launcher_spawnv (launcher, argv, &error);
      g_assert_no_error (error);
      g_assert_true (
          g_subprocess_communicate_utf8 (p, NULL, NULL, NULL, &err, &error));
      g_assert_no_error (error);
      if (g_subprocess_get_if_signaled (p))
        g_error ("%s, %u tasks: killed by signal %d: %s", yaml, (guint)n,
            g_subprocess_get_term_sig (p), err);
      status = g_subprocess_get_exit_status (p);
      if (status != 0)
        g_test_message (
            "%s, %u tasks: status %d: %s", yaml, (guint)n, status, err);
      g_assert_cmpint (status, !=, 99);
      g_assert_true (status == 0 || status == 1);
      if (status == 1)
        {
          /* GStreamer says its own (a streaming thread); one GLib's
           * thread pool could not make is queued without a word, and the
           * stage's timeout says what it waited for */
          g_assert_true (strstr (err, "(a limit on processes or threads")
                         || strstr (err, "failed to create thread")
                         || strstr (err, "did not finish within 500 ms"));
          failed++;
        }
    }
  return failed;
}

/* a thread that cannot be made (a limit on processes or threads, a
 * container's) fails the run with a message, status 1, whichever thread it
 * is: g_thread_new () aborted the process (SIGTRAP, status 133). That
 * includes the thread of io.gst-sink's state change; GStreamer's own
 * threads (its streaming threads) fail with its warning or are queued in
 * GLib's thread pool, and the start or the end of stream waits out its
 * timeout. Only root can run a child under a user of its own, where the
 * cap is exact */
static void
test_thread_limit (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-run-XXXXXX", NULL);
  g_autofree gchar *yaml = g_build_filename (dir, "p.yaml", NULL);
  g_autofree gchar *gst = g_build_filename (dir, "gst.yaml", NULL);
  g_autofree gchar *plugins = g_build_filename (dir, "plugins", NULL);
  const char *need[] = { "libgstapp.so", "libgstcoreelements.so" };

  if (geteuid () != 0)
    {
      g_test_skip ("needs root, to run accel-run as a user of its own");
      remove_dir (dir);
      return;
    }
  g_assert_cmpint (g_chmod (dir, 0777), ==, 0);
  g_assert_true (g_file_set_contents (yaml,
      "pipeline: threads\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {shape: '64', "
      "num-buffers: 4}}\n"
      "  - {name: a, kind: core.scale}\n"
      "  - {name: b, kind: core.scale}\n"
      "  - {name: out, kind: core.null-sink}\n"
      "links: [src -> a -> b -> out]\n",
      -1, NULL));
  g_assert_true (g_file_set_contents (gst,
      "pipeline: gst-threads\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {format: RGBA8, "
      "width: 8, height: 8, num-buffers: 4}}\n"
      "  - {name: out, kind: io.gst-sink, params: {description: fakesink, "
      "start-timeout: 500, eos-timeout: 500}}\n"
      "links: [src -> out]\n",
      -1, NULL));
  g_assert_cmpint (g_chmod (yaml, 0644), ==, 0);
  g_assert_cmpint (g_chmod (gst, 0644), ==, 0);
  /* from 2: GLib's own first thread aborts the process at 1. The smallest
   * caps left no thread to make */
  g_assert_cmpuint (run_capped (dir, yaml, 2, 24), >, 0);

  g_assert_cmpint (g_mkdir (plugins, 0755), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (need); i++)
    {
      g_autofree gchar *from = g_build_filename (
          g_getenv ("ACCEL_TEST_GST_PLUGINS") ?: "", need[i], NULL);
      g_autofree gchar *to = g_build_filename (plugins, need[i], NULL);

      /* a build without GStreamer has no io.gst-sink to run */
      if (!g_file_test (from, G_FILE_TEST_EXISTS))
        {
          g_test_message ("no %s: io.gst-sink not run under the caps", from);
          remove_dir (dir);
          return;
        }
      g_assert_cmpint (symlink (from, to), ==, 0);
    }
  /* the registry made once, at no cap: scanned at a cap, the plugins are
   * loaded in the process */
  g_assert_cmpuint (run_capped (dir, gst, 4096, 4096), ==, 0);
  g_assert_cmpuint (run_capped (dir, gst, 2, 24), >, 0);
  remove_dir (dir);
}

/* how many times @needle is in @haystack */
static guint
count_of (const char *haystack, const char *needle)
{
  guint n = 0;

  for (const char *at = haystack; (at = strstr (at, needle)); at++)
    n++;
  return n;
}

/* a directory of ACCEL_PLUGIN_PATH that is not there, or no directory, is
 * said once on stderr, naming it, and the run goes on (it was skipped
 * without a word, and its stage kinds were unknown later without a
 * hint) */
static void
test_plugin_path_unreadable (void)
{
  g_autofree gchar *was = g_strdup (g_getenv ("ACCEL_PLUGIN_PATH"));
  g_autofree gchar *dir = g_dir_make_tmp ("accel-run-XXXXXX", NULL);
  g_autofree gchar *missing = g_build_filename (dir, "plugns", NULL);
  g_autofree gchar *file = g_build_filename (dir, "a-file", NULL);
  g_autofree gchar *path = g_strdup_printf ("%s:%s:%s", missing, was, file);
  g_autofree gchar *said_missing = g_strdup_printf (
      "ACCEL_PLUGIN_PATH names %s, which is no directory", missing);
  g_autofree gchar *said_file = g_strdup_printf (
      "ACCEL_PLUGIN_PATH names %s, which is no directory", file);
  const char *runs[][2] = {
    { "--validate", "--quiet" },
    { "--quiet", "--frames=2" },
  };

  g_assert_true (g_file_set_contents (file, "", 0, NULL));
  g_setenv ("ACCEL_PLUGIN_PATH", path, TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (runs); i++)
    {
      Result r = { 0 };

      run (&r, runs[i][0], runs[i][1], "-e",
          "core.test-source shape=4 ! core.null-sink", NULL);
      g_test_message ("%s", r.err);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_cmpuint (count_of (r.err, said_missing), ==, 1);
      g_assert_nonnull (strstr (r.err, "No such file or directory"));
      g_assert_cmpuint (count_of (r.err, said_file), ==, 1);
      result_clear (&r);
    }
  g_setenv ("ACCEL_PLUGIN_PATH", was, TRUE);
  remove_dir (dir);
}

/* a kind whose plugin is there and cannot be loaded says why, in a YAML
 * file and a description: it was "no plugin here provides 'broken.'
 * kinds", the plugin's own error a debug line where it lacked a library */
static void
test_plugin_unloadable_said (void)
{
  g_autofree gchar *was = g_strdup (g_getenv ("ACCEL_PLUGIN_PATH"));
  g_autofree gchar *dir = g_dir_make_tmp ("accel-run-XXXXXX", NULL);
  g_autofree gchar *plugin = g_build_filename (dir, "libaccelbroken.so", NULL);
  g_autofree gchar *yaml = g_build_filename (dir, "p.yaml", NULL);
  g_autofree gchar *path = g_strdup_printf ("%s:%s", was, dir);
  g_autofree gchar *said = g_strdup_printf ("unknown stage kind "
                                            "'broken.thing': %s is not a "
                                            "shared object of this machine",
      plugin);
  g_autofree gchar *at_kind = NULL;
  Result r = { 0 };

  g_assert_true (g_file_set_contents (plugin, "not a plugin\n", -1, NULL));
  g_assert_true (g_file_set_contents (yaml,
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {shape: \"4\"}}\n"
      "  - {name: b, kind: broken.thing}\n"
      "links:\n"
      "  - src -> b\n",
      -1, NULL));
  g_setenv ("ACCEL_PLUGIN_PATH", path, TRUE);
  run (&r, "--validate", yaml, NULL);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 2);
  at_kind = g_strdup_printf ("%s:3:21: %s", yaml, said);
  g_assert_nonnull (strstr (r.err, at_kind));
  result_clear (&r);
  run (&r, "--validate", "-e", "core.test-source shape=4 ! broken.thing", NULL);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, said));
  result_clear (&r);
  g_setenv ("ACCEL_PLUGIN_PATH", was, TRUE);
  remove_dir (dir);
}

/* runs accel-run on @description with the registry's debug lines and
 * returns how many plugins it loaded, expecting @status */
static guint
plugins_loaded (const char *description, int status, Result *r)
{
  result_clear (r);
  run (r, "--quiet", "-e", description, NULL);
  g_test_message ("status %d, stderr: %s", r->status, r->err);
  g_assert_cmpint (r->status, ==, status);
  return count_of (r->err, "loaded plugin ");
}

/* the plugins' kinds are kept between runs (ACCEL_REGISTRY): a run loads
 * the plugins of the kinds it names, where each loaded every plugin and
 * every CUDA library with them (about 1 s and 320 MB on the host backend
 * before the first frame). A cache that is not one, or whose entry for a
 * plugin lacks a kind or names one gone, does no harm */
static void
test_plugins_on_demand (void)
{
  g_autofree gchar *was = g_strdup (g_getenv ("ACCEL_REGISTRY"));
  g_autofree gchar *dir = g_dir_make_tmp ("accel-run-XXXXXX", NULL);
  g_autofree gchar *cache
      = g_build_filename (dir, "made", "registry.cache", NULL);
  const char *core_only = "core.test-source shape=4 num-buffers=2 "
                          "! core.null-sink";
  const char *kinds[] = { "core.test-source", "core.null-sink", "core.gone" };
  g_autoptr (GKeyFile) entries = g_key_file_new ();
  g_auto (GStrv) groups = NULL;
  const char *core = NULL;
  Result r = { 0 };
  guint all;

  g_setenv ("ACCEL_REGISTRY", cache, TRUE);
  g_setenv ("G_MESSAGES_DEBUG", "accel-registry", TRUE);
  /* the first run loads every plugin, and keeps what each has */
  all = plugins_loaded (core_only, 0, &r);
  g_assert_cmpuint (all, >=, 3);
  g_assert_true (g_key_file_load_from_file (entries, cache, 0, NULL));
  g_assert_cmpuint (plugins_loaded (core_only, 0, &r), ==, 1);
  g_assert_nonnull (strstr (r.err, "libaccelcore.so"));
  g_assert_cmpuint (
      plugins_loaded (
          "rand.uniform shape=4 num-buffers=2 ! core.null-sink", 0, &r),
      ==, 2);
  g_assert_nonnull (strstr (r.err, "libaccelrand.so"));

  /* an entry that lacks core.scale, and names a kind gone */
  groups = g_key_file_get_groups (entries, NULL);
  for (guint i = 0; groups[i]; i++)
    if (g_str_has_suffix (groups[i], "/libaccelcore.so"))
      core = groups[i];
  g_assert_nonnull (core);
  g_key_file_set_string_list (
      entries, core, "kinds", kinds, G_N_ELEMENTS (kinds));
  g_assert_true (g_key_file_save_to_file (entries, cache, NULL));
  g_assert_cmpuint (
      plugins_loaded ("core.test-source shape=4 num-buffers=2 ! core.scale "
                      "! core.null-sink",
          0, &r),
      ==, 1);
  plugins_loaded (
      "core.test-source shape=4 ! core.gone ! core.null-sink", 2, &r);
  g_assert_nonnull (strstr (r.err, "unknown stage kind 'core.gone'"));

  /* no cache at all: made again */
  g_assert_true (g_file_set_contents (cache, "[not\x01 a cache\n", -1, NULL));
  g_assert_cmpuint (plugins_loaded (core_only, 0, &r), ==, all);
  g_assert_cmpuint (plugins_loaded (core_only, 0, &r), ==, 1);
  /* none asked for: every plugin, every run */
  g_setenv ("ACCEL_REGISTRY", "", TRUE);
  g_assert_cmpuint (plugins_loaded (core_only, 0, &r), ==, all);

  result_clear (&r);
  g_unsetenv ("G_MESSAGES_DEBUG");
  if (was)
    g_setenv ("ACCEL_REGISTRY", was, TRUE);
  else
    g_unsetenv ("ACCEL_REGISTRY");
  remove_dir (dir);
}

/* the checksum sink's resume cuts its file in place, to its committed lines
 * in order: through a link it cut the link's file (it wrote a file of its
 * own over the link, and the real one lacked the frames resumed), and a
 * line written after them by something else is dropped (a copy of frame
 * 4's line stayed) */
static void
test_resume_checksum_in_place (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *real = g_build_filename (sc.dir, "real.txt", NULL);
  g_autofree gchar *link = g_build_filename (sc.dir, "out.txt", NULL);
  g_autoptr (GBytes) expected = NULL;
  g_autofree gchar *data = NULL;
  g_auto (GStrv) lines = NULL;
  Result r = { 0 };
  FILE *f;

  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: in-place\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {shape: '64', "
      "num-buffers: 40}}\n"
      "  - {name: out, kind: core.checksum-sink, params: {location: "
      "out.txt}}\n"
      "links: [src -> out]\n",
      -1, NULL));
  expect_in (0, NULL, sc.dir, "--quiet", sc.yaml, NULL);
  expected = contents (link);
  g_unlink (link);
  g_assert_cmpint (symlink ("real.txt", link), ==, 0);

  g_setenv ("ACCEL_FAULT", "out:crash:23", TRUE);
  run_in (&r, sc.dir, "--quiet", sc.state_arg, sc.yaml, NULL);
  g_unsetenv ("ACCEL_FAULT");
  g_assert_cmpint (r.status, !=, 0);
  result_clear (&r);
  /* a stray copy of frame 4's line after the committed ones */
  g_assert_true (g_file_get_contents (real, &data, NULL, NULL));
  lines = g_strsplit (data, "\n", -1);
  f = fopen (real, "a");
  g_assert_nonnull (f);
  fprintf (f, "%s\n", lines[4]);
  fclose (f);

  assert_resumes_to (sc.dir, sc.state_arg, sc.yaml, real, expected, NULL);
  g_assert_true (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
}

/* a checksum sink on a FIFO with a state directory: nothing to read back
 * or cut there (it waited for good in open (), reading its own output) */
static gpointer
read_all (gpointer path)
{
  gchar *data = NULL;

  g_file_get_contents (path, &data, NULL, NULL);
  return data;
}

static void
test_checksum_fifo_with_state (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *fifo = g_build_filename (sc.dir, "out.fifo", NULL);
  g_autofree gchar *got = NULL;
  g_auto (GStrv) lines = NULL;
  GThread *reader;
  Result r = { 0 };

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: fifo\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {shape: '64', "
      "num-buffers: 40}}\n"
      "  - {name: out, kind: core.checksum-sink, params: {location: "
      "out.fifo}}\n"
      "links: [src -> out]\n",
      -1, NULL));
  reader = g_thread_new ("reader", read_all, fifo);
  run_in (&r, sc.dir, "--quiet", sc.state_arg, sc.yaml, NULL);
  got = g_thread_join (reader);
  g_assert_cmpint (r.status, ==, 0);
  result_clear (&r);
  g_assert_nonnull (got);
  /* a line a frame */
  lines = g_strsplit (got, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 41);
}

/* writes two frames of 64 bytes to the FIFO @path, waits a second and
 * writes two more */
static gpointer
write_with_pause (gpointer path)
{
  guint8 frames[128] = { 0 };
  int fd = g_open (path, O_WRONLY | O_CLOEXEC, 0);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, frames, sizeof (frames)), ==, sizeof (frames));
  g_usleep (G_USEC_PER_SEC);
  g_assert_cmpint (write (fd, frames, sizeof (frames)), ==, sizeof (frames));
  close (fd);
  return NULL;
}

/* a live source waits for its input outside its deadline: a writer's
 * pause of a second under a deadline of 100 ms loses nothing (the frame
 * after the pause missed its deadline and was skipped, status 3) */
static void
test_live_wait_not_deadline (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *fifo = g_build_filename (sc.dir, "in.fifo", NULL);
  GThread *writer;
  Result r = { 0 };

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: live-wait\n"
      "supervision: {deadline: 100ms}\n"
      "stages:\n"
      "  - {name: src, kind: io.raw-file-source,\n"
      "     params: {location: in.fifo, shape: '64'}}\n"
      "  - {name: out, kind: core.checksum-sink, params: {location: "
      "sums.txt}}\n"
      "links: [src -> out]\n",
      -1, NULL));
  writer = g_thread_new ("writer", write_with_pause, fifo);
  run_in (&r, sc.dir, "--quiet", sc.yaml, NULL);
  g_thread_join (writer);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.err, "skipped"));
  result_clear (&r);
}

/* the png sink's committed files are checked one by one: a deleted or an
 * emptied one is written again, the others are not touched */
static void
test_resume_verifies_png (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *f2 = g_build_filename (sc.dir, "f-2.png", NULL);
  g_autofree gchar *f4 = g_build_filename (sc.dir, "f-4.png", NULL);
  g_autoptr (GBytes) expected2 = NULL, expected4 = NULL;

  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: verify-png\n"
      "stages:\n"
      "  - {name: src, kind: io.pattern-source,\n"
      "     params: {width: 16, height: 8, num-buffers: 6}}\n"
      "  - {name: out, kind: io.png-sink, params: {location: 'f-%d.png'}}\n"
      "links: [src -> out]\n",
      -1, NULL));
  expect_in (0, NULL, sc.dir, "--quiet", sc.state_arg, sc.yaml, NULL);
  expected2 = contents (f2);
  expected4 = contents (f4);
  g_assert_cmpuint (g_bytes_get_size (expected2), >, 0);
  g_unlink (f2);
  g_assert_true (g_file_set_contents (f4, "", 0, NULL));
  assert_resumes_to (sc.dir, sc.state_arg, sc.yaml, f2, expected2,
      "2 of its 6 committed files are missing or empty");
  assert_contents (f4, expected4);
}

/* --stats and --dot are refused the pipeline file and a sink's file,
 * which they replaced (exit status 0, the frames or the file gone) */
static void
test_report_file_refused (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *out = g_build_filename (sc.dir, "out.bin", NULL);
  g_autofree gchar *into_out = g_strdup_printf ("--stats=%s", out);
  g_autofree gchar *dot_out = g_strdup_printf ("--dot=%s", out);
  g_autofree gchar *into_self = g_strdup_printf ("--stats=%s", sc.yaml);

  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: reports\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {shape: '4', "
      "num-buffers: 2}}\n"
      "  - {name: out, kind: io.raw-file-sink, params: {location: out.bin}}\n"
      "links: [src -> out]\n",
      -1, NULL));
  /* not there yet: by its name */
  expect_in (2, "is where stage 'out' writes its frames", sc.dir, "--quiet",
      into_out, sc.yaml, NULL);
  expect_in (0, NULL, sc.dir, "--quiet", sc.yaml, NULL);
  /* there: by the file it is */
  expect_in (2, "--dot", sc.dir, "--quiet", dot_out, sc.yaml, NULL);
  expect_in (2, "is the pipeline file itself", sc.dir, "--quiet", into_self,
      sc.yaml, NULL);
}

/* --stats and --dot are refused a source's input and the state
 * directory: the stats replaced the input (status 0, the data gone), the
 * DOT text was read as frames, and a report into the state directory
 * replaced its fingerprint (the next run refused a damaged one) */
static void
test_report_file_refused_inputs (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *in = g_build_filename (sc.dir, "in.raw", NULL);
  g_autofree gchar *into_in = g_strdup_printf ("--stats=%s", in);
  g_autofree gchar *dot_in = g_strdup_printf ("--dot=%s", in);
  g_autofree gchar *print = g_build_filename (sc.state, "fingerprint", NULL);
  g_autofree gchar *into_state = g_strdup_printf ("--stats=%s", print);
  g_autofree gchar *link = g_build_filename (sc.dir, "stats.json", NULL);
  g_autofree gchar *into_link = g_strdup_printf ("--stats=%s", link);
  g_autoptr (GBytes) data = NULL;

  g_assert_true (g_file_set_contents (in, "0123456789abcdef", 16, NULL));
  data = contents (in);
  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: inputs\n"
      "stages:\n"
      "  - {name: src, kind: io.raw-file-source, params: {location: in.raw, "
      "shape: '4', dtype: u8}}\n"
      "  - {name: out, kind: core.null-sink}\n"
      "links: [src -> out]\n",
      -1, NULL));
  expect_in (2, "is the file stage 'src' reads its frames from", sc.dir,
      "--quiet", into_in, sc.yaml, NULL);
  expect_in (2, "is the file stage 'src' reads its frames from", sc.dir,
      "--quiet", dot_in, sc.yaml, NULL);
  assert_contents (in, data);

  expect_in (0, NULL, sc.dir, "--quiet", sc.state_arg, sc.yaml, NULL);
  expect_in (2, "is in the state directory", sc.dir, "--quiet", sc.state_arg,
      into_state, sc.yaml, NULL);
  /* by a link to a file there too */
  g_assert_cmpint (symlink (print, link), ==, 0);
  expect_in (2, "is in the state directory", sc.dir, "--quiet", sc.state_arg,
      into_link, sc.yaml, NULL);
  expect_in (0, NULL, sc.dir, "--quiet", sc.state_arg, sc.yaml, NULL);
}

/* a frame limit below what the outputs hold keeps them, and says so for
 * each sink that holds more: the resume ended with "0 frames" and every
 * frame of the longer run kept */
static void
test_resume_past_frame_limit (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *out = g_build_filename (sc.dir, "out.bin", NULL);
  g_autofree gchar *b = g_build_filename (sc.dir, "b.bin", NULL);
  g_autofree gchar *data = NULL;
  gsize len = 0;

  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: past-limit\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {shape: '4', "
      "num-buffers: 8}}\n"
      "  - {name: out, kind: io.raw-file-sink, params: {location: out.bin}}\n"
      "links: [src -> out]\n",
      -1, NULL));
  expect_in (0, NULL, sc.dir, "--quiet", sc.state_arg, sc.yaml, NULL);
  expect_in (0,
      "stage 'out' (io.raw-file-sink) holds 8 frames already, more "
      "than the frame limit of 3: they are kept",
      sc.dir, "--frames=3", sc.state_arg, sc.yaml, NULL);
  /* a source's own end, lowered since, the same (it said nothing) */
  expect_in (0,
      "stage 'out' (io.raw-file-sink) holds 8 frames already, more than "
      "stage 'src' (core.test-source) makes (num-buffers 5): they are kept",
      sc.dir, "--set", "src.num-buffers=5", sc.state_arg, sc.yaml, NULL);
  g_assert_true (g_file_get_contents (out, &data, &len, NULL));
  g_assert_cmpuint (len, ==, 8 * 4 * sizeof (float));

  /* two sinks, one cut short to 3 frames: the run resumes at 3, the
   * shortest, and said nothing of the other's 8 past the new end */
  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: past-limit-2\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {shape: '4', "
      "num-buffers: 8}}\n"
      "  - {name: a, kind: io.raw-file-sink, params: {location: a.bin}}\n"
      "  - {name: b, kind: io.raw-file-sink, params: {location: b.bin}}\n"
      "links: [src -> a, src -> b]\n",
      -1, NULL));
  expect_in (0, NULL, sc.dir, "--quiet", "--restart-state", sc.state_arg,
      sc.yaml, NULL);
  g_assert_cmpint (truncate (b, 3 * 4 * sizeof (float)), ==, 0);
  expect_in (0,
      "stage 'a' (io.raw-file-sink) holds 8 frames already, more than "
      "stage 'src' (core.test-source) makes (num-buffers 5): they are kept",
      sc.dir, "--set", "src.num-buffers=5", sc.state_arg, sc.yaml, NULL);
}

/* a resume whose source reads another file of the same name is refused,
 * saying so (it mixed two inputs' frames in its output); one whose file
 * grew since resumes */
static void
test_resume_refuses_changed_input (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *in = g_build_filename (sc.dir, "in.raw", NULL);
  g_autofree guint8 *frames = g_malloc (60 * 64);
  g_autofree gchar *print = g_build_filename (sc.state, "fingerprint", NULL);
  g_autofree gchar *text = NULL;
  char *at;

  for (guint i = 0; i < 60 * 64; i++)
    frames[i] = (guint8)(i * 7 + i / 64);
  g_assert_true (g_file_set_contents (in, (gchar *)frames, 40 * 64, NULL));
  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: changed-input\n"
      "stages:\n"
      "  - {name: src, kind: io.raw-file-source,\n"
      "     params: {location: in.raw, shape: '64'}}\n"
      "  - {name: check, kind: core.checksum-sink,\n"
      "     params: {location: sums.txt}}\n"
      "links: [src -> check]\n",
      -1, NULL));
  run_killed (&sc, "check:crash:17");

  /* another recording: the same size, other bytes */
  frames[100] ^= 0xff;
  g_assert_true (g_file_set_contents (in, (gchar *)frames, 40 * 64, NULL));
  expect_in (2,
      "stage 'src' input in.raw does not start as it did (another file of "
      "that name, or one changed in place)",
      sc.dir, sc.state_arg, sc.yaml, NULL);
  /* the first one, grown by ten frames */
  frames[100] ^= 0xff;
  g_assert_true (g_file_set_contents (in, (gchar *)frames, 50 * 64, NULL));
  expect_in (0, "resuming at frame 17", sc.dir, sc.state_arg, sc.yaml, NULL);

  /* grown by ten more, cut short at 55, then changed at frame 52: the
   * state keeps what the last run read, not what the first did (the
   * change lay past the first run's 40 frames, and the resume mixed the
   * two files' frames with status 0) */
  g_assert_true (g_file_set_contents (in, (gchar *)frames, 60 * 64, NULL));
  run_killed (&sc, "check:crash:55");
  frames[52 * 64] ^= 0xff;
  g_assert_true (g_file_set_contents (in, (gchar *)frames, 60 * 64, NULL));
  expect_in (2, "stage 'src' input in.raw does not start as it did", sc.dir,
      sc.state_arg, sc.yaml, NULL);

  /* a byte of the fingerprint changed, here in the name of the file its
   * input line covers: damaged, not a fingerprint kept before inputs were
   * (the input went unchecked, and the two files' frames mixed, status
   * 0) */
  g_assert_true (g_file_get_contents (print, &text, NULL, NULL));
  g_assert_nonnull ((at = strstr (text, "input\tsrc\tin.raw\t")));
  at[strlen ("input\tsrc\tin.ra")] = 'x';
  g_assert_true (g_file_set_contents (print, text, -1, NULL));
  expect_in (2,
      "holds a damaged fingerprint (its text does not match its check)", sc.dir,
      sc.state_arg, sc.yaml, NULL);
}

/* a source that loops over its file reads frame s at s modulo the frames
 * the file holds: a resume on the file grown since is refused (each frame
 * came from another place, and the output mixed the two, status 0); on
 * the file as it was it resumes */
static void
test_resume_refuses_grown_loop (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *in = g_build_filename (sc.dir, "in.raw", NULL);
  g_autofree guint8 *frames = g_malloc (15 * 64);

  for (guint i = 0; i < 15 * 64; i++)
    frames[i] = (guint8)(i * 7 + i / 64);
  g_assert_true (g_file_set_contents (in, (gchar *)frames, 10 * 64, NULL));
  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: looped-input\n"
      "stages:\n"
      "  - {name: src, kind: io.raw-file-source,\n"
      "     params: {location: in.raw, shape: '64', loop: true,\n"
      "              num-buffers: 50}}\n"
      "  - {name: check, kind: core.checksum-sink,\n"
      "     params: {location: sums.txt}}\n"
      "links: [src -> check]\n",
      -1, NULL));
  run_killed (&sc, "check:crash:23");

  g_assert_true (g_file_set_contents (in, (gchar *)frames, 15 * 64, NULL));
  expect_in (2,
      "stage 'src' input in.raw is not as it was (the stage loops over it, "
      "so a file grown since gives every frame from another place)",
      sc.dir, sc.state_arg, sc.yaml, NULL);
  g_assert_true (g_file_set_contents (in, (gchar *)frames, 10 * 64, NULL));
  expect_in (0, "resuming at frame 23", sc.dir, sc.state_arg, sc.yaml, NULL);
}

/* @frames (@size bytes, a whole number of frames of 4096 floats) as
 * in.raw in @sc's directory, read into a checksum sink by a run with a
 * state directory that crashes at frame 17 */
static void
crash_reading_input (Scratch *sc, guint8 *frames, gsize size)
{
  g_autofree gchar *in = g_build_filename (sc->dir, "in.raw", NULL);

  for (gsize i = 0; i < size; i++)
    frames[i] = (guint8)(i * 7 + i / 64);
  g_assert_true (g_file_set_contents (in, (gchar *)frames, size, NULL));
  g_assert_true (g_file_set_contents (sc->yaml,
      "pipeline: raw-input\n"
      "stages:\n"
      "  - {name: src, kind: io.raw-file-source,\n"
      "     params: {location: in.raw, shape: '4096'}}\n"
      "  - {name: check, kind: core.checksum-sink,\n"
      "     params: {location: sums.txt}}\n"
      "links: [src -> check]\n",
      -1, NULL));
  run_killed (sc, "check:crash:17");
}

/* a byte of the input changed in place past its first 64 KiB, in a frame
 * the run had read, its mtime set back: the resume is refused (only the
 * first 64 KiB were compared, and the output mixed the two files' frames,
 * status 0); the byte put back, the file holds what the run read, and it
 * resumes */
static void
test_resume_refuses_input_changed_far (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *in = g_build_filename (sc.dir, "in.raw", NULL);
  gsize frame = 4096 * sizeof (float), at = 10 * frame + 100;
  g_autofree guint8 *frames = g_malloc (40 * frame);

  crash_reading_input (&sc, frames, 40 * frame);

  for (guint round = 0; round < 2; round++)
    {
      struct stat st;
      struct timespec times[2];
      int fd = g_open (in, O_WRONLY | O_CLOEXEC, 0);

      g_assert_cmpint (fd, >=, 0);
      g_assert_cmpint (fstat (fd, &st), ==, 0);
      frames[at] ^= 0xff;
      g_assert_cmpint (pwrite (fd, frames + at, 1, (off_t)at), ==, 1);
      times[0] = st.st_atim;
      times[1] = st.st_mtim;
      g_assert_cmpint (futimens (fd, times), ==, 0);
      close (fd);
      if (round == 0)
        expect_in (2,
            "stage 'src' input in.raw does not start as it did (another "
            "file of that name, or one changed in place)",
            sc.dir, sc.state_arg, sc.yaml, NULL);
    }
  expect_in (0, "resuming at frame 17", sc.dir, sc.state_arg, sc.yaml, NULL);
}

/* an input line kept in the first form, the length and byte-wise digest
 * of the first 64 KiB, in a fingerprint from before its check line: the
 * unchanged file resumes (it gains the whole file's line), one changed in
 * those bytes is refused */
static void
test_resume_old_input_line (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *in = g_build_filename (sc.dir, "in.raw", NULL);
  g_autofree gchar *print = g_build_filename (sc.state, "fingerprint", NULL);
  gsize frame = 4096 * sizeof (float), first = 64 * 1024;
  g_autofree guint8 *frames = g_malloc (40 * frame);
  g_autofree gchar *text = NULL, *old = NULL;
  g_auto (GStrv) lines = NULL;
  GString *kept = g_string_new (NULL);

  crash_reading_input (&sc, frames, 40 * frame);

  old = g_strdup_printf ("%" G_GSIZE_FORMAT ":%016" G_GINT64_MODIFIER "x",
      first, accel_digest_bytes (ACCEL_DIGEST_INIT, frames, first));
  g_assert_true (g_file_get_contents (print, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      if (g_str_has_prefix (lines[i], "# check") || !*lines[i])
        continue;
      if (g_str_has_prefix (lines[i], "input\tsrc\tin.raw\t"))
        g_string_append_printf (kept, "input\tsrc\tin.raw\t%s\n", old);
      else
        g_string_append_printf (kept, "%s\n", lines[i]);
    }
  g_assert_nonnull (strstr (kept->str, old));
  g_assert_true (g_file_set_contents (print, kept->str, -1, NULL));
  g_string_free (kept, TRUE);

  frames[first - 1] ^= 0xff;
  g_assert_true (g_file_set_contents (in, (gchar *)frames, 40 * frame, NULL));
  expect_in (2, "stage 'src' input in.raw does not start as it did", sc.dir,
      sc.state_arg, sc.yaml, NULL);
  frames[first - 1] ^= 0xff;
  g_assert_true (g_file_set_contents (in, (gchar *)frames, 40 * frame, NULL));
  expect_in (0, "resuming at frame 17", sc.dir, sc.state_arg, sc.yaml, NULL);
}

/* a live source cannot produce again what an output lost: the resume is
 * refused (status 2), saying so, rather than writing other frames */
static void
test_resume_refuses_live (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *out = g_build_filename (sc.dir, "out.bin", NULL);
  Result r = { 0 };

  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: verify-live\n"
      "stages:\n"
      "  - {name: cam, kind: io.gst-source,\n"
      "     params: {description: 'videotestsrc num-buffers=8 ! "
      "video/x-raw,format=RGBA,width=16,height=8'}}\n"
      "  - {name: out, kind: io.raw-file-sink, params: {location: out.bin}}\n"
      "links: [cam -> out]\n",
      -1, NULL));
  expect_in (0, NULL, sc.dir, "--quiet", sc.state_arg, sc.yaml, NULL);
  g_assert_cmpint (truncate (out, 16 * 8 * 4 * 3), ==, 0);
  run_in (&r, sc.dir, sc.state_arg, sc.yaml, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (
      strstr (r.err, "holds 3 whole frames in order, its commit log 8"));
  g_assert_nonnull (strstr (r.err, "stage 'cam' (io.gst-source) is live"));
  result_clear (&r);
}

/* writes @data's bytes into a FIFO once a reader has it open, giving up
 * after 60 s without one: the run under test may fail before it opens */
typedef struct
{
  const char *path;
  gsize size;
} FifoFeed;

static gpointer
feed_fifo (gpointer data)
{
  FifoFeed *feed = data;
  g_autofree guint8 *bytes = g_malloc0 (feed->size);
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  int fd;

  while ((fd = open (feed->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)) < 0
         && errno == ENXIO && g_get_monotonic_time () < deadline)
    g_usleep (10000);
  if (fd < 0)
    return NULL;
  /* blocking again: the reader takes the frames at its pace */
  fcntl (fd, F_SETFL, 0);
  for (gsize i = 0; i < feed->size; i++)
    bytes[i] = (guint8)(i * 7);
  g_assert_cmpint (write (fd, bytes, feed->size), ==, (gssize)feed->size);
  close (fd);
  return NULL;
}

/* GStreamer descriptions that cannot resume from a state directory are
 * refused there, as they are on a restart: a sink's filesink emptied the
 * file of the committed frames, and a file or test pattern source gave its
 * images again from the first under later numbers */
static void
test_resume_gst_refused (void)
{
  static const struct
  {
    const char *stages, *says;
    gsize size; /* of out.raw after the first run */
  } cases[] = {
    { "  - {name: src, kind: io.pattern-source,\n"
      "     params: {num-buffers: 4, width: 8, height: 8}}\n"
      "  - {name: out, kind: io.gst-sink,\n"
      "     params: {description: 'filesink location=out.raw'}}\n",
        "cannot resume: its element 'filesink0' would write its files again",
        4 * 8 * 8 * 4 },
    { "  - {name: src, kind: io.gst-source, params: {description:\n"
      "     'videotestsrc num-buffers=4 ! "
      "video/x-raw,format=GRAY8,width=8,height=8'}}\n"
      "  - {name: out, kind: io.raw-file-sink, params: {location: out.raw}}\n",
        "cannot resume at frame 4: the description is not live", 4 * 8 * 8 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (Scratch) sc = scratch_new ();
      g_autofree gchar *out = g_build_filename (sc.dir, "out.raw", NULL);
      g_autofree gchar *yaml = g_strdup_printf (
          "pipeline: gst-resume\nstages:\n%slinks: [src -> out]\n",
          cases[i].stages);
      g_autoptr (GBytes) before = NULL, after = NULL;
      Result r = { 0 };

      g_assert_true (g_file_set_contents (sc.yaml, yaml, -1, NULL));
      run_in (
          &r, sc.dir, "--backend=host", "--quiet", sc.state_arg, sc.yaml, NULL);
      g_assert_cmpint (r.status, ==, 0);
      result_clear (&r);
      before = contents (out);
      g_assert_cmpuint (g_bytes_get_size (before), ==, cases[i].size);
      run_in (&r, sc.dir, "--backend=host", sc.state_arg, sc.yaml, NULL);
      g_assert_cmpint (r.status, ==, 2);
      g_assert_nonnull (strstr (r.err, cases[i].says));
      result_clear (&r);
      after = contents (out);
      g_assert_true (g_bytes_equal (before, after));
    }
}

/* an element's error in a io.gst-source description ends the stage while
 * another branch still feeds the appsink: it was read only once the
 * appsink ran dry, and the run went on (here to 20000 frames, exit 0) */
static void
test_gst_source_error_other_branch (void)
{
  Result r = { 0 };
  const char *frames;

  run_in (&r, NULL, "--backend=host", "--quiet", "--no-supervise", "--stats=-",
      "-e",
      "io.gst-source description=\"videotestsrc num-buffers=3 ! identity "
      "error-after=2 ! fakesink videotestsrc num-buffers=20000 ! "
      "video/x-raw,format=RGBA,width=8,height=8\" ! core.checksum-sink",
      NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "GStreamer element 'identity0' failed"));
  /* ended by the error, not by the other branch's end */
  frames = strstr (r.out, "\"frames\": ");
  g_assert_nonnull (frames);
  g_assert_cmpint (atoi (frames + strlen ("\"frames\": ")), <, 20000);
  result_clear (&r);
}

/* an element's error with on-fault resume: the frame is skipped and the
 * stream ends there (every later frame failed the same way at once,
 * skipped, for good) */
static void
test_gst_source_error_resumed (void)
{
  Result r = { 0 };

  run_in (&r, NULL, "--backend=host", "--quiet", "--no-supervise", "-e",
      "io.gst-source on-fault=resume description=\"videotestsrc "
      "num-buffers=30 ! identity error-after=10 ! "
      "video/x-raw,format=RGBA,width=8,height=8\" ! core.null-sink",
      NULL);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_nonnull (strstr (r.err, "skipped 1 frame after faults"));
  result_clear (&r);
}

/* a fault of io.gst-source's before it pulls its frame (injected, here)
 * loses no image of the description: the frame is made again under its
 * sequence, and said so. It was counted skipped (exit status 3) though
 * every image was written. A frame that is lost still is counted: an
 * element's error, beside such a fault */
static void
test_gst_source_fault_before_pull (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *out = g_build_filename (sc.dir, "out.raw", NULL);
  g_autofree gchar *line = g_strdup_printf (
      "io.gst-source name=src description=\"videotestsrc num-buffers=10 "
      "pattern=ball ! video/x-raw,format=GRAY8,width=8,height=8\" ! "
      "io.raw-file-sink location=%s",
      out);
  g_autofree gchar *line_restart = NULL;
  g_autoptr (GBytes) clean = NULL, faulted = NULL;
  Result r = { 0 };

  expect_in (0, NULL, NULL, "--quiet", "--no-supervise", "-e", line, NULL);
  clean = contents (out);
  g_assert_cmpuint (g_bytes_get_size (clean), ==, 10 * 8 * 8);
  g_setenv ("ACCEL_FAULT", "src:invalid-input:3", TRUE);
  run_in (&r, NULL, "--quiet", "--no-supervise", "-e", line, NULL);
  g_unsetenv ("ACCEL_FAULT");
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "stage 'src': frame 3 failed before it "
                                   "took its input (injected invalid "
                                   "input); it is made again"));
  g_assert_null (strstr (r.err, "skipped"));
  faulted = contents (out);
  g_assert_true (g_bytes_equal (clean, faulted));
  result_clear (&r);

  /* the frame made again fails the same way: it is skipped, not made
   * again for good */
  g_setenv ("ACCEL_FAULT", "src:invalid-input:3,src:invalid-input:3", TRUE);
  run_in (&r, NULL, "--quiet", "--no-supervise", "-e", line, NULL);
  g_unsetenv ("ACCEL_FAULT");
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_nonnull (strstr (r.err, "skipped 1 frame after faults"));
  result_clear (&r);

  /* and under restart, with one restart for it: a second one went past
   * max-restarts 1, which failed the run */
  line_restart = g_strdup_printf (
      "io.gst-source name=src on-fault=restart max-restarts=1 "
      "description=\"videotestsrc is-live=true num-buffers=10 pattern=ball ! "
      "video/x-raw,format=GRAY8,width=8,height=8\" ! "
      "io.raw-file-sink location=%s",
      out);
  g_setenv ("ACCEL_FAULT", "src:library:3,src:library:3", TRUE);
  run_in (&r, NULL, "--quiet", "--no-supervise", "-e", line_restart, NULL);
  g_unsetenv ("ACCEL_FAULT");
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_nonnull (strstr (r.err, "it is made again"));
  g_assert_nonnull (
      strstr (r.err, "skipped 1 frame after faults (1 restarts)"));
  result_clear (&r);

  g_setenv ("ACCEL_FAULT", "src:invalid-input:3", TRUE);
  run_in (&r, NULL, "--quiet", "--no-supervise", "-e",
      "io.gst-source name=src on-fault=resume description=\"videotestsrc "
      "num-buffers=30 ! "
      "identity error-after=10 ! video/x-raw,format=RGBA,width=8,height=8\" "
      "! core.null-sink",
      NULL);
  g_unsetenv ("ACCEL_FAULT");
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_nonnull (strstr (r.err, "skipped 1 frame after faults"));
  result_clear (&r);
}

/* io.gst-sink's frames padded to GStreamer's alignment (I420 at 63x47:
 * rows of 64 luma bytes, 48 luma rows) hold zeros in the padding, where
 * they held what the heap held */
static void
test_gst_sink_padding_zeroed (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *out = g_build_filename (sc.dir, "x.raw", NULL);
  g_autofree gchar *line = g_strdup_printf (
      "io.gst-source description=\"videotestsrc num-buffers=4 ! "
      "video/x-raw,format=I420,width=63,height=47\" ! io.gst-sink "
      "description=\"filesink location=%s\"",
      out);
  g_autofree guint8 *data = NULL;
  gsize len;

  /* glibc fills what it allocates with this: garbage is never zero */
  g_setenv ("MALLOC_PERTURB_", "165", TRUE);
  expect_in (0, NULL, NULL, "--backend=host", "--quiet", "--no-supervise", "-e",
      line, NULL);
  g_unsetenv ("MALLOC_PERTURB_");
  g_assert_true (g_file_get_contents (out, (gchar **)&data, &len, NULL));
  g_assert_cmpuint (len, ==, 4 * (64 * 48 + 2 * 32 * 24));
  for (gsize f = 0; f < 4; f++)
    {
      const guint8 *y = data + f * (64 * 48 + 2 * 32 * 24);

      for (guint row = 0; row < 48; row++)
        for (guint x = row < 47 ? 63 : 0; x < 64; x++)
          g_assert_cmpuint (y[row * 64 + x], ==, 0);
    }
}

/* io.gst-sink's eos-timeout at the top of its range waits: its deadline
 * overflowed into the past and the run failed at once ("did not finish
 * within 9223372036854775 ms of its end of stream") */
static void
test_gst_sink_longest_eos_timeout (void)
{
  expect_in (0, NULL, NULL, "--backend=host", "--quiet", "--no-supervise", "-e",
      "io.pattern-source num-buffers=3 width=8 height=8 ! io.gst-sink "
      "eos-timeout=9223372036854775 "
      "description=\"identity sleep-time=100000 ! fakesink\"",
      NULL);
}

/* a raw file source on @sc's FIFO in.fifo into out.bin, run once with 8
 * frames of 64 bytes fed: the first run of the tests of a pipe's resume.
 * Returns: (transfer full): the FIFO's path */
static gchar *
first_run_from_fifo (Scratch *sc)
{
  gchar *fifo = g_build_filename (sc->dir, "in.fifo", NULL);
  FifoFeed feed = { fifo, 64 * 8 };
  GThread *writer;
  Result r = { 0 };

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_true (g_file_set_contents (sc->yaml,
      "pipeline: from-pipe\n"
      "stages:\n"
      "  - {name: src, kind: io.raw-file-source,\n"
      "     params: {location: in.fifo, shape: '64', dtype: u8}}\n"
      "  - {name: out, kind: io.raw-file-sink, params: {location: out.bin}}\n"
      "links: [src -> out]\n",
      -1, NULL));
  writer = g_thread_new ("writer", feed_fifo, &feed);
  run_in (&r, sc->dir, "--quiet", sc->state_arg, sc->yaml, NULL);
  g_thread_join (writer);
  g_assert_cmpint (r.status, ==, 0);
  result_clear (&r);
  return fifo;
}

/* a live source's clean end leaves nothing lost for a rerun: the sequence
 * taken for the end made no frame (a rerun said "1 frames (sequences 8 to
 * 8) were lost" and exited 3) */
static void
test_live_clean_end_rerun (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *fifo = first_run_from_fifo (&sc);
  FifoFeed nothing = { fifo, 0 };
  GThread *writer;
  Result r = { 0 };

  writer = g_thread_new ("writer", feed_fifo, &nothing);
  run_in (&r, sc.dir, sc.state_arg, sc.yaml, NULL);
  g_thread_join (writer);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "resuming at frame 8"));
  g_assert_null (strstr (r.err, "lost"));
  result_clear (&r);
}

/* a raw file sink on /dev/null with a state directory commits its frames:
 * /dev/null seeks but stays at 0, where a frame's digest was refused and
 * nothing was committed, with the run passing */
static void
test_raw_sink_dev_null_with_state (void)
{
  g_auto (Scratch) sc = scratch_new ();
  Result r = { 0 };

  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: dev-null\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {num-buffers: 3}}\n"
      "  - {name: out, kind: io.raw-file-sink, params: {location: /dev/null}}\n"
      "links: [src -> out]\n",
      -1, NULL));
  run_in (&r, sc.dir, "--quiet", sc.state_arg, sc.yaml, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.err, "CRITICAL"));
  result_clear (&r);
  expect_in (0, "resuming at frame 3", sc.dir, sc.state_arg, sc.yaml, NULL);
}

/* a raw file source on a pipe is live, though its class reads regular
 * files again by position: an output that lost committed frames cannot
 * have them again from the pipe, so the resume is refused */
static void
test_resume_refuses_pipe (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *out = g_build_filename (sc.dir, "out.bin", NULL);
  g_autofree gchar *fifo = first_run_from_fifo (&sc);
  Result r = { 0 };

  g_assert_cmpint (truncate (out, 64 * 3), ==, 0);
  run_in (&r, sc.dir, sc.state_arg, sc.yaml, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (
      strstr (r.err, "holds 3 whole frames in order, its commit log 8"));
  g_assert_nonnull (strstr (r.err, "stage 'src' (io.raw-file-source) is live"));
  result_clear (&r);
}

/* as root, the child runs as nobody, whom a file's mode binds */
static void
become_nobody (gpointer data)
{
  if (getuid () == 0)
    {
      (void)!setgid (65534);
      (void)!setuid (65534);
    }
}

/* a sink's file it may only write cannot be checked against the digest of
 * its last frame: the resume is refused, saying so (it was taken as
 * unchanged, and a file changed since resumed with status 0) */
static void
test_resume_refuses_unreadable_file (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *out = g_build_filename (sc.dir, "out.bin", NULL);
  const char *argv[] = { g_getenv ("ACCEL_RUN"), "--backend=host", "--quiet",
    sc.state_arg, sc.yaml, NULL };
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autofree gchar *err = NULL;
  g_autoptr (GError) error = NULL;
  const guint8 flip = 0x5a;
  int fd;

  g_assert_cmpint (g_chmod (sc.dir, 0777), ==, 0);
  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: unreadable\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source,\n"
      "     params: {shape: '100', num-buffers: 20}}\n"
      "  - {name: out, kind: io.raw-file-sink, params: {location: out.bin}}\n"
      "links: [src -> out]\n",
      -1, NULL));
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_set_cwd (launcher, sc.dir);
  g_subprocess_launcher_set_child_setup (launcher, become_nobody, NULL, NULL);
  for (guint run = 0; run < 2; run++)
    {
      g_autoptr (GSubprocess) p = g_subprocess_launcher_spawnv (
          launcher, (const char *const *)argv, &error);

      g_assert_no_error (error);
      g_clear_pointer (&err, g_free);
      g_assert_true (
          g_subprocess_communicate_utf8 (p, NULL, NULL, NULL, &err, &error));
      g_assert_no_error (error);
      g_test_message ("run %u: %s", run, err);
      g_assert_true (g_subprocess_get_if_exited (p));
      g_assert_cmpint (g_subprocess_get_exit_status (p), ==, run == 0 ? 0 : 2);
      if (run > 0)
        break;
      /* changed in place, and made write-only */
      fd = g_open (out, O_WRONLY | O_CLOEXEC, 0);
      g_assert_cmpint (fd, >=, 0);
      g_assert_cmpint (pwrite (fd, &flip, 1, 20 * 400 - 10), ==, 1);
      close (fd);
      g_assert_cmpint (g_chmod (out, 0200), ==, 0);
    }
  g_assert_nonnull (strstr (err, "cannot read "));
  g_assert_nonnull (
      strstr (err, "out.bin to check the frames it holds are those committed "
                   "(Permission denied)"));
}

/* a file written over since its frames were committed, at the same size
 * or shorter, is told by the digest of its last frame's end kept beside
 * the commit log:
 * the resume is refused rather than appending to another run's frames */
static void
test_resume_refuses_changed_file (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *out = g_build_filename (sc.dir, "out.bin", NULL);
  g_autofree gchar *digests
      = g_build_filename (sc.state, "out.commits.digests", NULL);
  g_autoptr (GBytes) expected = NULL;
  g_autofree gchar *changed = NULL;
  gsize len;
  Result r = { 0 };

  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: changed\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source,\n"
      "     params: {shape: '100', num-buffers: 20}}\n"
      "  - {name: out, kind: io.raw-file-sink, params: {location: out.bin}}\n"
      "links: [src -> out]\n",
      -1, NULL));
  expect_in (0, NULL, sc.dir, "--quiet", sc.state_arg, sc.yaml, NULL);
  expected = contents (out);

  g_assert_true (g_file_get_contents (out, &changed, &len, NULL));
  changed[len - 10] ^= 0x5a;
  g_assert_true (g_file_set_contents (out, changed, (gssize)len, NULL));
  expect_in (2, "out.bin was changed since frame 19 was committed", sc.dir,
      sc.state_arg, sc.yaml, NULL);

  run_in (
      &r, sc.dir, "--quiet", "--restart-state", sc.state_arg, sc.yaml, NULL);
  g_assert_cmpint (r.status, ==, 0);
  result_clear (&r);
  assert_contents (out, expected);

  /* written over shorter: its last whole frame is checked, not a repair
   * that would append the lost frames to another run's */
  g_free (changed);
  len = 12 * 100 * sizeof (float);
  changed = g_memdup2 (g_bytes_get_data (expected, NULL), len);
  changed[len - 1] ^= 0x5a;
  g_assert_true (g_file_set_contents (out, changed, (gssize)len, NULL));
  expect_in (2, "out.bin was changed since frame 11 was committed", sc.dir,
      sc.state_arg, sc.yaml, NULL);
  /* the digests deleted as well: the change was taken for the run's. No
   * frame can be checked now, so none is kept: all are written again */
  g_assert_cmpint (g_unlink (digests), ==, 0);
  expect_in (0,
      "the digests beside its commit log lack those of frames 0 to 11 "
      "(their file deleted or cut short, or not on disk before a crash), so "
      "frames from 0 on cannot be checked; writing them again",
      sc.dir, sc.state_arg, sc.yaml, NULL);
  assert_contents (out, expected);
}

/* a checksum file written over by another run, its lines as well formed
 * and in order as the first run's, is refused (status 2): a resume cut it
 * back to its committed lines and appended, mixing the two runs' lines.
 * With the digests cut short the newest kept is checked; with them deleted
 * (the check was off) no line can be checked, and all are written again */
static void
test_resume_refuses_changed_sums (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *sums = g_build_filename (sc.dir, "sums.txt", NULL);
  g_autofree gchar *digests
      = g_build_filename (sc.state, "check.commits.digests", NULL);
  g_autofree gchar *other = NULL, *expected = NULL, *got = NULL;
  g_autofree gchar *kept_digests = NULL;
  const char *end;
  gsize n;
#define SUMS_PIPELINE(shape)                                                   \
  "pipeline: sums\n"                                                           \
  "stages:\n"                                                                  \
  "  - {name: src, kind: core.test-source,\n"                                  \
  "     params: {shape: '" shape "', num-buffers: 30}}\n"                      \
  "  - {name: check, kind: core.checksum-sink,\n"                              \
  "     params: {location: sums.txt}}\n"                                       \
  "links: [src -> check]\n"
  const char *first = SUMS_PIPELINE ("64"), *second = SUMS_PIPELINE ("32");

  /* another pipeline's sums, all 30 lines, without a state */
  g_assert_true (g_file_set_contents (sc.yaml, second, -1, NULL));
  expect_in (0, NULL, sc.dir, "--quiet", sc.yaml, NULL);
  g_assert_true (g_file_get_contents (sums, &other, NULL, NULL));
  /* this one's, whole, to compare with */
  g_assert_true (g_file_set_contents (sc.yaml, first, -1, NULL));
  expect_in (0, NULL, sc.dir, "--quiet", sc.yaml, NULL);
  g_assert_true (g_file_get_contents (sums, &expected, NULL, NULL));
  end = expected;

  run_killed (&sc, "check:crash:17");
  g_assert_true (g_file_set_contents (sums, other, -1, NULL));
  expect_in (2,
      "sums.txt was changed since frame 16 was committed: its lines "
      "differ from those written",
      sc.dir, sc.state_arg, sc.yaml, NULL);
  g_assert_true (g_file_get_contents (digests, &kept_digests, &n, NULL));
  g_assert_true (g_file_set_contents (digests, kept_digests, 8 * 16, NULL));
  expect_in (2, "sums.txt was changed since frame 7 was committed", sc.dir,
      sc.state_arg, sc.yaml, NULL);
  g_assert_true (g_file_set_contents (digests, kept_digests, (gssize)n, NULL));

  /* this run's 17 lines again: the resume writes the rest */
  for (guint lines = 0; lines < 17; lines++)
    end = strchr (end, '\n') + 1;
  g_assert_true (
      g_file_set_contents (sums, expected, (gssize)(end - expected), NULL));
  expect_in (0, "resuming at frame 17", sc.dir, sc.state_arg, sc.yaml, NULL);
  g_assert_true (g_file_get_contents (sums, &got, NULL, NULL));
  g_assert_cmpstr (got, ==, expected);

  /* the last record zeroed, as a crash may leave it: the lines up to the
   * newest record kept are checked and kept, the last one written again */
  g_free (kept_digests);
  g_assert_true (g_file_get_contents (digests, &kept_digests, &n, NULL));
  memset (kept_digests + n - 16, 0, 16);
  g_assert_true (g_file_set_contents (digests, kept_digests, (gssize)n, NULL));
  expect_in (0,
      "lack those of lines 29 to 29 (their file deleted or cut short, or not "
      "on disk before a crash), so lines from 29 on cannot be checked; "
      "writing them again",
      sc.dir, sc.state_arg, sc.yaml, NULL);
  g_free (got);
  g_assert_true (g_file_get_contents (sums, &got, NULL, NULL));
  g_assert_cmpstr (got, ==, expected);

  g_assert_true (g_file_set_contents (sums, other, -1, NULL));
  g_assert_cmpint (g_unlink (digests), ==, 0);
  expect_in (0,
      "lack those of lines 0 to 29 (their file deleted or cut short, or not "
      "on disk before a crash), so lines from 0 on cannot be checked; "
      "writing them again",
      sc.dir, sc.state_arg, sc.yaml, NULL);
  g_free (got);
  g_assert_true (g_file_get_contents (sums, &got, NULL, NULL));
  g_assert_cmpstr (got, ==, expected);
}

/* a state directory keeps the graph's fingerprint: a changed parameter, a
 * changed link or a stage more is refused (status 2) saying what changed;
 * --restart-state starts over */
static void
test_state_fingerprint (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *yaml2 = g_build_filename (sc.dir, "p2.yaml", NULL);
  g_autofree gchar *out = g_build_filename (sc.dir, "out.txt", NULL);
  g_autoptr (GBytes) expected = NULL;
  Result r = { 0 };

  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: print\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source,\n"
      "     params: {shape: '64', num-buffers: 10}}\n"
      "  - {name: out, kind: core.checksum-sink, params: {location: out.txt}}\n"
      "links: [src -> out]\n",
      -1, NULL));
  g_assert_true (g_file_set_contents (yaml2,
      "pipeline: print\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source,\n"
      "     params: {shape: '64', num-buffers: 10}}\n"
      "  - {name: work, kind: core.scale}\n"
      "  - {name: out, kind: core.checksum-sink, params: {location: out.txt}}\n"
      "links: [src -> work, work -> out]\n",
      -1, NULL));
  expect_in (
      0, NULL, sc.dir, "--quiet", "--set", "src.shape=128", sc.yaml, NULL);
  expected = contents (out);
  g_unlink (out);

  expect_in (0, NULL, sc.dir, "--quiet", sc.state_arg, sc.yaml, NULL);
  run_in (&r, sc.dir, sc.state_arg, "--set", "src.shape=128", sc.yaml, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (
      strstr (r.err, "stage 'src' parameter 'shape' was \"64\", now \"128\""));
  g_assert_nonnull (strstr (r.err, "--restart-state"));
  result_clear (&r);
  run_in (&r, sc.dir, sc.state_arg, yaml2, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "stage 'work' (core.scale) was added"));
  g_assert_nonnull (strstr (r.err, "link src.out -> out.in was removed"));
  result_clear (&r);

  /* starting over: the file is the new pipeline's alone */
  expect_in (0, "discarded the state", sc.dir, "--restart-state", sc.state_arg,
      "--set", "src.shape=128", sc.yaml, NULL);
  assert_contents (out, expected);
  /* and the new fingerprint is kept */
  expect_in (
      0, NULL, sc.dir, sc.state_arg, "--set", "src.shape=128", sc.yaml, NULL);

  expect_in (2, "--restart-state needs --state-dir", sc.dir, "--restart-state",
      sc.yaml, NULL);
  run (&r, "--help", NULL);
  g_assert_nonnull (strstr (r.out, "--restart-state"));
  result_clear (&r);
}

/* locations are checked when the pipeline is: a sink's directory that does
 * not exist, a source's file that does not, a PNG number padded absurdly;
 * each with its line:column, status 2 */
static void
test_validate_locations (void)
{
  static const char *const cases[][3] = {
    { "{name: src, kind: core.test-source, params: {shape: '4'}}",
        "{name: out, kind: io.raw-file-sink, params: {location: no/out.bin}}",
        "p.yaml:4:12: stage 'out' (io.raw-file-sink): cannot write no/out.bin: "
        "its directory does not exist" },
    { "{name: src, kind: core.test-source, params: {shape: '4'}}",
        "{name: out, kind: core.checksum-sink, params: {location: no/s.txt}}",
        "p.yaml:4:12: stage 'out' (core.checksum-sink): cannot write "
        "no/s.txt: its directory does not exist" },
    /* said as a directory that does not exist */
    { "{name: src, kind: core.test-source, params: {shape: '4'}}",
        "{name: out, kind: io.raw-file-sink, params: {location: "
        "p.yaml/out.bin}}",
        "p.yaml:4:12: stage 'out' (io.raw-file-sink): cannot write "
        "p.yaml/out.bin: its directory is a file, not a directory" },
    { "{name: src, kind: io.pattern-source, params: {width: 8, height: 8}}",
        "{name: out, kind: io.png-sink, params: {location: 'no/f-%d.png'}}",
        "p.yaml:4:12: stage 'out' (io.png-sink): cannot write no/f-0.png" },
    { "{name: src, kind: io.pattern-source, params: {width: 8, height: 8}}",
        "{name: out, kind: io.png-sink, params: {location: 'f-%0999999d.png'}}",
        /* at the value the problem is about */
        "p.yaml:4:55: stage 'out' (io.png-sink): location 'f-%0999999d.png' "
        "pads its number to more than 32 digits" },
    { "{name: src, kind: io.raw-file-source,\n"
      "     params: {location: none.bin, shape: '4'}}",
        "{name: out, kind: core.null-sink}",
        "p.yaml:3:12: stage 'src' (io.raw-file-source): cannot read none.bin: "
        "No such file or directory" },
  };
  g_autofree gchar *dir = g_dir_make_tmp ("accel-where-XXXXXX", NULL);
  g_autofree gchar *yaml = g_build_filename (dir, "p.yaml", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree gchar *text = g_strdup_printf ("pipeline: where\n"
                                                "stages:\n"
                                                "  - %s\n"
                                                "  - %s\n"
                                                "links: [src -> out]\n",
          cases[i][0], cases[i][1]);
      Result r = { 0 };

      g_assert_true (g_file_set_contents (yaml, text, -1, NULL));
      run_in (&r, dir, "--validate", "p.yaml", NULL);
      if (!strstr (r.err, cases[i][2]))
        g_printerr ("%s", r.err);
      g_assert_cmpint (r.status, ==, 2);
      g_assert_nonnull (strstr (r.err, cases[i][2]));
      result_clear (&r);
    }
  remove_dir (dir);
}

/* whether this process runs under valgrind, which preloads its own
 * libraries: it keeps RLIMIT_NOFILE for itself, so a limit set between fork
 * and exec never reaches the child */
static gboolean
under_valgrind (void)
{
  const gchar *preload = g_getenv ("LD_PRELOAD");

  return preload && strstr (preload, "vgpreload");
}

/* host memory a library stage's host path computes in, more than the
 * process may have: its start fails, naming the stage, where g_malloc ()
 * aborted the run (status 133) */
static void
test_host_scratch_too_big (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-scratch-XXXXXX", NULL);
  g_autofree gchar *yaml = g_build_filename (dir, "lu.yaml", NULL);
  Limit space = { RLIMIT_AS, { 8ul << 30, 8ul << 30 } };
  Result r = { 0 };

  if (under_valgrind () || g_getenv ("ASAN_OPTIONS"))
    {
      g_test_skip ("the tool reserves more address space than the limit");
      remove_dir (dir);
      return;
    }
  g_assert_true (g_file_set_contents (yaml,
      "pipeline: lu-huge\n"
      "stages:\n"
      "  - {name: a, kind: rand.normal,\n"
      "     params: {shape: '46000x46000', dtype: f64, num-buffers: 1}}\n"
      "  - {name: b, kind: rand.normal,\n"
      "     params: {shape: '46000', dtype: f64, num-buffers: 1}}\n"
      "  - {name: s, kind: solver.lu}\n"
      "  - {name: k, kind: core.null-sink}\n"
      "links: [a -> s.a, b -> s.b, s -> k]\n",
      -1, NULL));
  run_limited (&r, dir, &space, "--backend=host", "--quiet", yaml, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "stage 's' (solver.lu): cannot allocate "
                                   "2116000000 elements of 8 bytes"));
  result_clear (&r);
  remove_dir (dir);
}

/* an alpha the product's scalar type cannot hold is refused when the graph
 * is prepared, naming it: as a float it became infinity on the GPU, and the
 * host paths that compute in doubles gave finite numbers */
static void
test_alpha_out_of_range (void)
{
  static const struct
  {
    const char *kind, *inputs[2], *shapes[2];
  } cases[] = {
    { "blas.gemm", { "a", "b" }, { "4x4", "4x4" } },
    { "blas.gemv", { "a", "x" }, { "4x4", "4" } },
    { "blas.axpy", { "x", "y" }, { "4", "4" } },
    { "blaslt.matmul", { "a", "b" }, { "4x4", "4x4" } },
    { "dnn.conv2d", { "in", "weights" }, { "1x1x4x4", "1x1x3x3" } },
  };
  g_autofree gchar *dir = g_dir_make_tmp ("accel-alpha-XXXXXX", NULL);
  g_autofree gchar *yaml = g_build_filename (dir, "a.yaml", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    for (guint f64 = 0; f64 < 2; f64++)
      {
        g_autofree gchar *text = g_strdup_printf (
            "pipeline: alpha\n"
            "stages:\n"
            "  - {name: %s, kind: rand.normal,\n"
            "     params: {shape: '%s', dtype: %s, num-buffers: 1}}\n"
            "  - {name: %s, kind: rand.normal,\n"
            "     params: {shape: '%s', dtype: %s, num-buffers: 1}}\n"
            "  - {name: s, kind: %s, params: {alpha: 1e39}}\n"
            "  - {name: k, kind: core.null-sink}\n"
            "links: [%s -> s.%s, %s -> s.%s, s -> k]\n",
            cases[i].inputs[0], cases[i].shapes[0], f64 ? "f64" : "f32",
            cases[i].inputs[1], cases[i].shapes[1], f64 ? "f64" : "f32",
            cases[i].kind, cases[i].inputs[0], cases[i].inputs[0],
            cases[i].inputs[1], cases[i].inputs[1]);
        g_autofree gchar *want = g_strdup_printf (
            "stage 's' (%s): alpha 1e+39 is not finite as a float, the scalar "
            "type of f32 products",
            cases[i].kind);
        Result r = { 0 };

        /* blaslt and dnn take no f64: only their f32 case */
        if (f64 && !g_str_has_prefix (cases[i].kind, "blas."))
          continue;
        g_test_message ("%s %s", cases[i].kind, f64 ? "f64" : "f32");
        g_assert_true (g_file_set_contents (yaml, text, -1, NULL));
        run_in (&r, dir, "--backend=host", "--validate", "a.yaml", NULL);
        g_assert_cmpint (r.status, ==, f64 ? 0 : 2);
        if (!f64)
          g_assert_nonnull (strstr (r.err, want));
        result_clear (&r);
      }
  /* either side of where a double rounds to infinity as a float: FLT_MAX
   * as it is printed (3.4028235e38, a little above it) was refused */
  for (guint inf = 0; inf < 2; inf++)
    {
      g_autofree gchar *text = g_strdup_printf (
          "pipeline: alpha\n"
          "stages:\n"
          "  - {name: x, kind: rand.normal, params: {shape: '4', num-buffers: "
          "1}}\n"
          "  - {name: y, kind: rand.normal, params: {shape: '4', num-buffers: "
          "1}}\n"
          "  - {name: s, kind: blas.axpy, params: {alpha: %s}}\n"
          "  - {name: k, kind: core.null-sink}\n"
          "links: [x -> s.x, y -> s.y, s -> k]\n",
          inf ? "3.4028236e38" : "3.4028235e38");
      Result r = { 0 };

      g_assert_true (g_file_set_contents (yaml, text, -1, NULL));
      run_in (&r, dir, "--backend=host", "--validate", "a.yaml", NULL);
      g_assert_cmpint (r.status, ==, inf ? 2 : 0);
      if (inf)
        g_assert_nonnull (strstr (r.err, "alpha 3.4028236e+38 is not finite"));
      result_clear (&r);
    }
  remove_dir (dir);
}

/* a FIFO with no writer as the pipeline file: given up after 10 s with a
 * status 2, where open () waited for good */
static void
test_fifo_without_writer (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-fifo-XXXXXX", NULL);
  g_autofree gchar *fifo = g_build_filename (dir, "p.yaml", NULL);

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  expect_in (2, "p.yaml:0:0: nothing to read for 10 s", dir, "--validate",
      "p.yaml", NULL);
  remove_dir (dir);
}

/* io.gst-source reading a FIFO no one writes, and io.gst-sink writing one
 * no one reads: filesrc and filesink block in open () within their state
 * change, which waited for good past preroll-timeout; both are given up
 * on at their timeouts */
static void
test_gst_fifo_without_peer (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-gst-fifo-XXXXXX", NULL);
  g_autofree gchar *fifo = g_build_filename (dir, "f", NULL);
  g_autofree gchar *source = g_strdup_printf (
      "io.gst-source preroll-timeout=300 description=\"filesrc location=%s "
      "! rawvideoparse width=8 height=8 format=rgba\" ! core.null-sink",
      fifo);
  g_autofree gchar *sink
      = g_strdup_printf ("io.pattern-source num-buffers=2 width=8 height=8 ! "
                         "io.gst-sink start-timeout=300 description=\"filesink "
                         "location=%s\"",
          fifo);

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  expect_in (2,
      "was still starting after 300 ms "
      "(preroll-timeout)",
      NULL, "--backend=host", "--no-supervise", "-e", source, NULL);

  expect_in (1,
      "stage 'gst-sink0' could not start: an "
      "element of the GStreamer pipeline was "
      "still starting after 300 ms "
      "(start-timeout)",
      NULL, "--backend=host", "--no-supervise", "-e", sink, NULL);
  remove_dir (dir);
}

/* a stage named '-' in a description: its links are written so that the
 * YAML reads them as links, not as a list */
static void
test_description_dash_name (void)
{
  Result r = { 0 };

  run_in (&r, NULL, "--validate", "-e",
      "core.test-source name=- num-buffers=1 ! core.null-sink", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "-e: valid"));
  result_clear (&r);
}

/* a graph of many stages needs a descriptor per stage's thread: under a
 * low soft limit the run raises it toward the hard one; under a low hard
 * limit it is refused naming the count and the limit, never killed by
 * GLib running out of them */
static void
test_descriptor_limit (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-fds-XXXXXX", NULL);
  g_autofree gchar *yaml = g_build_filename (dir, "many.yaml", NULL);
  g_autoptr (GString) text
      = g_string_new ("pipeline: many\nstages:\n"
                      "  - {name: s0, kind: core.test-source,\n"
                      "     params: {shape: '16', num-buffers: 5}}\n");
  g_autoptr (GString) links = g_string_new ("links: [");
  struct rlimit now;
  Limit low = { RLIMIT_NOFILE, { 64, 64 } };
  Limit soft = { RLIMIT_NOFILE, { 64, 0 } };
  Result r = { 0 };

  if (under_valgrind ())
    {
      g_test_skip ("valgrind keeps the descriptor limit from accel-run");
      remove_dir (dir);
      return;
    }
  for (guint i = 1; i < 200; i++)
    {
      g_string_append_printf (text, "  - {name: s%u, kind: core.scale}\n", i);
      g_string_append_printf (links, "s%u -> s%u, ", i - 1, i);
    }
  g_string_append (text, "  - {name: out, kind: core.null-sink}\n");
  g_string_append (links, "s199 -> out]\n");
  g_string_append (text, links->str);
  g_assert_true (g_file_set_contents (yaml, text->str, -1, NULL));

  run_limited (&r, dir, &low, "--quiet", yaml, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "file descriptors"));
  g_assert_nonnull (strstr (r.err, "for its 201 stages"));
  g_assert_nonnull (strstr (r.err, "the limit is 64"));
  result_clear (&r);

  g_assert_cmpint (getrlimit (RLIMIT_NOFILE, &now), ==, 0);
  if (now.rlim_max != RLIM_INFINITY && now.rlim_max < 1024)
    {
      g_test_message ("hard limit %lu: not raising", (gulong)now.rlim_max);
      remove_dir (dir);
      return;
    }
  soft.limit.rlim_max = now.rlim_max;
  run_limited (&r, dir, &soft, yaml, NULL);
  if (r.status != 0)
    g_printerr ("%s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "raised the limit of open files from 64"));
  result_clear (&r);
  remove_dir (dir);
}

/* a write that fails names its errno: a full disk (/dev/full) as "No space
 * left on device", a file past RLIMIT_FSIZE as "File too large" (libpng's
 * "Write Error" said neither); the frame being written when it struck is
 * cut off whole, so a rerun with the same state writes it once */
static void
test_write_errors (void)
{
  static const char *const full[][2] = {
    { "io.raw-file-sink", "cannot write frame 0 to /dev/full: No space "
                          "left on device" },
    { "core.checksum-sink", "cannot write frame 0 to /dev/full: No space "
                            "left on device" },
  };
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *out = g_build_filename (sc.dir, "out.bin", NULL);
  g_autoptr (GBytes) expected = NULL;
  g_autoptr (GBytes) cut = NULL;
  /* 7 frames of 400 bytes and part of the 8th */
  Limit fsize = { RLIMIT_FSIZE, { 3000, 3000 } };
  Result r = { 0 };

  for (guint i = 0; i < G_N_ELEMENTS (full); i++)
    {
      g_autofree gchar *text = g_strdup_printf (
          "pipeline: full\n"
          "stages:\n"
          "  - {name: src, kind: core.test-source, params: {shape: '4'}}\n"
          "  - {name: out, kind: %s, params: {location: /dev/full}}\n"
          "links: [src -> out]\n",
          full[i][0]);
      g_assert_true (g_file_set_contents (sc.yaml, text, -1, NULL));
      run_in (&r, sc.dir, "--frames=3", sc.yaml, NULL);
      g_assert_cmpint (r.status, ==, 1);
      g_assert_nonnull (strstr (r.err, full[i][1]));
      result_clear (&r);
    }

  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: fsize\n"
      "stages:\n"
      "  - {name: src, kind: io.pattern-source,\n"
      "     params: {width: 64, height: 64, pattern: noise, num-buffers: 2}}\n"
      "  - {name: out, kind: io.png-sink, params: {location: 'f-%d.png'}}\n"
      "links: [src -> out]\n",
      -1, NULL));
  run_limited (&r, sc.dir, &fsize, "--quiet", sc.yaml, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "cannot write f-0.png: File too large"));
  result_clear (&r);

  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: fsize\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source,\n"
      "     params: {shape: '100', num-buffers: 12}}\n"
      "  - {name: out, kind: io.raw-file-sink, params: {location: out.bin}}\n"
      "links: [src -> out]\n",
      -1, NULL));
  expect_in (0, NULL, sc.dir, "--quiet", sc.yaml, NULL);
  expected = contents (out);
  g_unlink (out);
  run_limited (&r, sc.dir, &fsize, "--quiet", sc.state_arg, sc.yaml, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (
      strstr (r.err, "cannot write frame 7 to out.bin: File too large"));
  result_clear (&r);
  cut = contents (out);
  g_assert_cmpuint (g_bytes_get_size (cut), ==, 7 * 400);
  assert_resumes_to (
      sc.dir, sc.state_arg, sc.yaml, out, expected, "resuming at frame 7");
}

/* as run_in(), with its stdout a pipe that no one reads: its reader has
 * gone, as after `accel-run ... | head -1` */
static void
run_stdout_gone (Result *r, const char *cwd, const char *first, ...)
{
  va_list ap;
  int fds[2];

  g_assert_true (g_unix_open_pipe (fds, FD_CLOEXEC, NULL));
  close (fds[0]);
  va_start (ap, first);
  run_va (r, cwd, NULL, fds[1], first, ap);
  va_end (ap);
}

/* as run_in(), with its stdout sent to the file @out, opened with
 * @flags besides O_WRONLY | O_CREAT */
static void
run_stdout_opened (Result *r, const char *cwd, const char *out, int flags,
    const char *first, ...)
{
  va_list ap;
  int fd = g_open (out, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);

  g_assert_cmpint (fd, >=, 0);
  va_start (ap, first);
  run_va (r, cwd, NULL, fd, first, ap);
  va_end (ap);
}

/* @out emptied first and appended to as a shell's >> does (an fdsink
 * whose description starts again cannot seek back to the start of its
 * segment there, so it may) */
#define run_stdout_to(r, cwd, out, ...)                                        \
  run_stdout_opened (r, cwd, out, O_TRUNC | O_APPEND, __VA_ARGS__)
/* @out opened as a shell's >> does: kept */
#define run_stdout_appended(r, cwd, out, ...)                                  \
  run_stdout_opened (r, cwd, out, O_APPEND, __VA_ARGS__)
/* @out opened as a shell's > does: written where its offset is, which an
 * fdsink seeks */
#define run_stdout_over(r, cwd, out, ...)                                      \
  run_stdout_opened (r, cwd, out, O_TRUNC, __VA_ARGS__)

/* an io.gst-sink whose description writes to stdout (fdsink's default,
 * filesink to /dev/stdout): its frames alone reach stdout, the progress
 * goes to stderr and --stats - is refused, as for io.raw-file-sink (they
 * were written into its frames); a stdout opened to append is appended
 * to */
static void
test_gst_sink_to_stdout (void)
{
  static const char *const descriptions[] = {
    "io.pattern-source width=8 height=8 num-buffers=3 ! io.gst-sink "
    "description=fdsink",
    "io.pattern-source width=8 height=8 num-buffers=3 ! io.gst-sink "
    "description=\"filesink location=/dev/stdout\"",
  };
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *out = g_build_filename (sc.dir, "out.raw", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (descriptions); i++)
    {
      Result r = { 0 };
      GStatBuf st;

      run_stdout_to (
          &r, NULL, out, "--no-supervise", "-e", descriptions[i], NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_nonnull (strstr (r.err, "3 frames"));
      g_assert_cmpint (g_stat (out, &st), ==, 0);
      g_assert_cmpint (st.st_size, ==, 3 * 8 * 8 * 4);
      result_clear (&r);
      run_stdout_to (&r, NULL, out, "--no-supervise", "--stats=-", "-e",
          descriptions[i], NULL);
      g_assert_cmpint (r.status, ==, 2);
      g_assert_nonnull (strstr (r.err, "--stats - would write into the "
                                       "frames that stage 'gst-sink0'"));
      result_clear (&r);

      /* a file opened to append (>>) keeps what it held (the filesink
       * emptied it) */
      g_assert_true (g_file_set_contents (out, "kept\n", -1, NULL));
      run_stdout_appended (
          &r, NULL, out, "--no-supervise", "-e", descriptions[i], NULL);
      g_assert_cmpint (r.status, ==, 0);
      {
        g_autoptr (GBytes) bytes = contents (out);

        g_assert_cmpuint (g_bytes_get_size (bytes), ==, 5 + 3 * 8 * 8 * 4);
        g_assert_cmpmem (g_bytes_get_data (bytes, NULL), 5, "kept\n", 5);
      }
      result_clear (&r);
    }
}

/* the file an io.gst-sink's description writes (a filesink's location)
 * is checked as a sink's own location is: a run that would write over its
 * own input (a raw file, a filesrc's), another sink's file, --stats, the
 * pipeline file or a state file is refused before a frame (status 2). It
 * emptied the input, or replaced the others, and the run ended 0 */
static void
test_gst_sink_files_checked (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *input = g_build_filename (sc.dir, "in.raw", NULL);
  g_autofree gchar *self = g_strdup_printf (
      "pipeline: self\n"
      "stages:\n"
      "  - {name: p, kind: io.pattern-source, params: {num-buffers: 3, "
      "width: 8, height: 8}}\n"
      "  - {name: out, kind: io.gst-sink, params: {description: "
      "\"filesink location=%s\"}}\n"
      "links: [p -> out]\n",
      sc.yaml);
  g_autoptr (GBytes) before = write_pattern (input, 3 * 8 * 8 * 4);
  g_autoptr (GBytes) after = NULL;

  expect_in (2,
      "stage 'gst-sink0' (io.gst-sink) writes in.raw, which stage "
      "'raw-file-source0' (io.raw-file-source) reads: the run would write "
      "over its own input",
      sc.dir, "--no-supervise", "-e",
      "io.raw-file-source location=in.raw format=RGBA8 width=8 height=8 ! "
      "io.gst-sink description=\"filesink location=in.raw\"",
      NULL);
  expect_in (2, "which stage 'gst-source0' (io.gst-source) reads", sc.dir,
      "--no-supervise", "-e",
      "io.gst-source description=\"filesrc location=in.raw ! rawvideoparse "
      "format=rgba width=8 height=8\" ! io.gst-sink "
      "description=\"filesink location=in.raw\"",
      NULL);
  after = contents (input);
  g_assert_true (g_bytes_equal (before, after));

  expect_in (2, "their frames would mix in one file", sc.dir, "--no-supervise",
      "-e",
      "io.pattern-source num-buffers=3 width=8 height=8 name=s ! "
      "io.gst-sink description=\"filesink location=dup.raw\" s. ! "
      "io.raw-file-sink location=dup.raw",
      NULL);
  expect_in (2, "--stats o.raw is where stage 'gst-sink0' writes its frames",
      sc.dir, "--no-supervise", "--stats=o.raw", "-e",
      "io.pattern-source num-buffers=3 width=8 height=8 ! io.gst-sink "
      "description=\"filesink location=o.raw\"",
      NULL);
  g_assert_cmpint (g_mkdir (sc.state, 0700), ==, 0);
  expect_in (2, "a file of the state directory", sc.dir, "--no-supervise",
      "--state-dir=state", "-e",
      "io.pattern-source num-buffers=3 width=8 height=8 name=p ! io.gst-sink "
      "description=\"filesink location=state/c.commits\" p. ! "
      "core.checksum-sink name=c location=c.txt",
      NULL);
  g_assert_true (g_file_set_contents (sc.yaml, self, -1, NULL));
  expect_in (2, "is the pipeline file itself", sc.dir, "--no-supervise",
      sc.yaml, NULL);
  g_clear_pointer (&after, g_bytes_unref);
  after = contents (sc.yaml);
  g_assert_cmpmem (g_bytes_get_data (after, NULL), g_bytes_get_size (after),
      self, strlen (self));
}

/* an io.gst-source's description may record what it reads (a tee to a
 * filesink): that file is checked as a sink's is, before the description
 * prerolls, which opens it. It was taken for a file the source reads:
 * --validate emptied the pipeline file, a run emptied another source's
 * input or its own, status 0 */
static void
test_gst_source_recording_checked (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *input = g_build_filename (sc.dir, "in.raw", NULL);
  g_autofree gchar *record = g_build_filename (sc.dir, "rec.raw", NULL);
  /* a description that records into %s */
#define RECORDING                                                              \
  "videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,width=8,height=8 ! "   \
  "tee name=t ! queue ! filesink location=%s t. ! queue"
  g_autofree gchar *into_input = g_strdup_printf (
      "io.gst-source description=\"" RECORDING "\" ! core.checksum-sink "
      "io.raw-file-source location=in.raw format=RGBA8 width=8 height=8 ! "
      "core.checksum-sink",
      "in.raw");
  g_autofree gchar *into_self = g_strdup_printf (
      "pipeline: self\n"
      "stages:\n"
      "  - {name: in, kind: io.gst-source, params: {description: \"" RECORDING
      "\"}}\n"
      "  - {name: out, kind: core.checksum-sink}\n"
      "links: [in -> out]\n",
      sc.yaml);
  g_autofree gchar *recording = g_strdup_printf (
      "io.gst-source description=\"" RECORDING "\" ! core.checksum-sink",
      "rec.raw");
#undef RECORDING
  g_autoptr (GBytes) before = write_pattern (input, 3 * 8 * 8 * 4);
  g_autoptr (GBytes) after = NULL, self = NULL, recorded = NULL;
  Result r = { 0 };

  expect_in (2,
      "stage 'raw-file-source0' (io.raw-file-source) reads in.raw, which "
      "stage 'gst-source0' (io.gst-source) writes: the run would write over "
      "its own input",
      sc.dir, "--no-supervise", "-e", into_input, NULL);
  expect_in (2,
      "stage 'gst-source0' (io.gst-source): its description writes in.raw, "
      "which it reads",
      sc.dir, "--no-supervise", "-e",
      "io.gst-source description=\"filesrc location=in.raw ! rawvideoparse "
      "format=rgba width=8 height=8 ! tee name=t ! queue ! filesink "
      "location=in.raw t. ! queue\" ! core.checksum-sink",
      NULL);
  after = contents (input);
  g_assert_true (g_bytes_equal (before, after));

  g_assert_true (g_file_set_contents (sc.yaml, into_self, -1, NULL));
  expect_in (
      2, "is the pipeline file itself", sc.dir, "--validate", sc.yaml, NULL);
  self = contents (sc.yaml);
  g_assert_cmpmem (g_bytes_get_data (self, NULL), g_bytes_get_size (self),
      into_self, strlen (into_self));

  /* a recording into a file of its own is what it was */
  run_in (&r, sc.dir, "--no-supervise", "--quiet", "-e", recording, NULL);
  g_assert_cmpint (r.status, ==, 0);
  result_clear (&r);
  recorded = contents (record);
  g_assert_cmpuint (g_bytes_get_size (recorded), ==, 3 * 8 * 8 * 4);
}

/* an io.png-sink writes a file per frame: any file of its pattern is one
 * it writes, refused to another sink and to --stats (only frame 0's was
 * compared: frame 1's image was replaced, status 0); a name of another
 * pattern is not (q10.raw against q%d.png) */
static void
test_png_pattern_files_checked (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *stats = g_build_filename (sc.dir, "q10.raw", NULL);
  g_autofree gchar *sub = g_build_filename (sc.dir, "sub", NULL);

  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  expect_in (2, "--stats p00001.png is where stage 'png-sink0' writes", sc.dir,
      "--no-supervise", "--stats=p00001.png", "-e",
      "io.pattern-source num-buffers=3 width=8 height=8 ! io.png-sink "
      "location=p%05d.png",
      NULL);
  expect_in (2,
      "stage 'raw-file-sink0' (io.raw-file-sink) writes sub/../r00001.png, "
      "one of the files stage 'png-sink0' (io.png-sink) writes",
      sc.dir, "--no-supervise", "-e",
      "io.pattern-source num-buffers=3 width=8 height=8 name=s ! io.png-sink "
      "location=r%05d.png s. ! io.raw-file-sink location=sub/../r00001.png",
      NULL);
  g_assert_false (g_file_test (stats, G_FILE_TEST_EXISTS));
  expect_in (0, NULL, sc.dir, "--no-supervise", "--quiet", "--stats=q10.raw",
      "-e",
      "io.pattern-source num-buffers=3 width=8 height=8 ! io.png-sink "
      "location=q%d.png",
      NULL);
  g_assert_true (g_file_test (stats, G_FILE_TEST_EXISTS));
}

/* the timestamps of the buffers in @path, a gdppay stream: GDP 1.0
 * packets, each a 62-byte header (big-endian: the payload's type at byte
 * 4, 1 for a buffer; its length at 6; the timestamp at 10) and the
 * payload */
static GArray *
gdp_buffer_timestamps (const char *path)
{
  g_autoptr (GBytes) bytes = contents (path);
  GArray *pts = g_array_new (FALSE, FALSE, sizeof (guint64));
  gsize size = 0, at = 0;
  const guint8 *p = bytes ? g_bytes_get_data (bytes, &size) : NULL;

  while (at + 62 <= size)
    {
      const guint8 *h = p + at;
      guint32 length = (guint32)h[6] << 24 | h[7] << 16 | h[8] << 8 | h[9];
      guint64 ts = 0;

      for (guint i = 0; i < 8; i++)
        ts = ts << 8 | h[10 + i];
      if ((h[4] << 8 | h[5]) == 1)
        g_array_append_val (pts, ts);
      at += 62 + length;
    }
  g_assert_cmpuint (at, ==, size);
  return pts;
}

/* @pts holds the timestamps of frames @first to @last at 50/1, but
 * @missing (G_MAXUINT: none) */
static void
assert_frame_timestamps (GArray *pts, guint first, guint last, guint missing)
{
  guint n = 0;

  for (guint s = first; s <= last; s++)
    {
      if (s == missing)
        continue;
      g_assert_cmpuint (n, <, pts->len);
      g_assert_cmpuint (
          g_array_index (pts, guint64, n), ==, (guint64)s * 20000000);
      n++;
    }
  g_assert_cmpuint (n, ==, pts->len);
}

/* an io.gst-sink synced to the clock (its identity, here) that goes on
 * at a later frame, resumed from a state directory or restarted by its
 * supervisor, starts its segment at that frame: the frame waited for the
 * time already done (frame 300 at 50/1 six seconds), and the run took
 * twice as long. The frames keep their timestamps (gdppay writes them).
 * That wait is the clock's, however idle or loaded the machine: the runs
 * are held against it, with seconds to spare for a slow start */
static void
test_gst_sink_synced_goes_on (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *out = g_build_filename (sc.dir, "out.gdp", NULL);
  g_autoptr (GArray) pts = NULL;
  const char *resuming;
  gint64 t0, crashed, resumed;
  guint first;
  Result r = { 0 };

  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: synced\n"
      "stages:\n"
      "  - {name: src, kind: io.pattern-source,\n"
      "     params: {width: 8, height: 8, framerate: 50/1, num-buffers: 305}}\n"
      "  - {name: out, kind: io.gst-sink, supervision: {on-fault: restart},\n"
      "     params: {framerate: 50/1,\n"
      "              description: 'identity sync=true ! gdppay ! fdsink'}}\n"
      "links: [src -> out]\n",
      -1, NULL));

  /* killed at frame 300, six seconds in, and resumed */
  g_setenv ("ACCEL_FAULT", "out:crash:300", TRUE);
  t0 = g_get_monotonic_time ();
  run_stdout_to (
      &r, sc.dir, out, "--no-supervise", sc.state_arg, sc.yaml, NULL);
  crashed = g_get_monotonic_time () - t0;
  g_unsetenv ("ACCEL_FAULT");
  if (r.err && strstr (r.err, "no element \"gdppay\""))
    {
      g_test_skip ("GStreamer element gdppay is missing");
      result_clear (&r);
      return;
    }
  g_assert_cmpint (r.status, ==, -1); /* killed */
  result_clear (&r);
  t0 = g_get_monotonic_time ();
  run_stdout_to (
      &r, sc.dir, out, "--no-supervise", sc.state_arg, sc.yaml, NULL);
  resumed = g_get_monotonic_time () - t0;
  g_test_message ("crashed after %" G_GINT64_FORMAT
                  " ms, resumed in %" G_GINT64_FORMAT " ms; %s",
      crashed / 1000, resumed / 1000, r.err);
  g_assert_cmpint (r.status, ==, 0);
  resuming = strstr (r.err, "resuming at frame ");
  g_assert_nonnull (resuming);
  first = (guint)atoi (resuming + strlen ("resuming at frame "));
  g_assert_cmpuint (first, >, 250);
  /* the frames left take 0.1 s; a resume that waited for the first one's
   * timestamp took that long or more (five seconds), whatever the load */
  g_assert_cmpint (resumed, <, first * 20000 - G_USEC_PER_SEC);
  pts = gdp_buffer_timestamps (out);
  assert_frame_timestamps (pts, first, 304, G_MAXUINT);
  g_clear_pointer (&pts, g_array_unref);
  result_clear (&r);

  /* a fault at frame 300 restarts the sink, which skips it */
  remove_dir (sc.state);
  g_setenv ("ACCEL_FAULT", "out:library:300", TRUE);
  t0 = g_get_monotonic_time ();
  run_stdout_to (&r, sc.dir, out, "--no-supervise", sc.yaml, NULL);
  resumed = g_get_monotonic_time () - t0;
  g_unsetenv ("ACCEL_FAULT");
  g_test_message (
      "restarted: %" G_GINT64_FORMAT " ms; %s", resumed / 1000, r.err);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_nonnull (
      strstr (r.err, "skipped 1 frame after faults (1 restarts)"));
  /* 6.1 s of frames; a restart that waited for frame 301's timestamp
   * took 6 s more, 12 s or more whatever the load */
  g_assert_cmpint (resumed, <, 2 * 300 * 20000 - G_USEC_PER_SEC);
  pts = gdp_buffer_timestamps (out);
  assert_frame_timestamps (pts, 0, 304, 300);
  result_clear (&r);
}

/* an io.gst-sink whose fdsink writes to a file it can seek in (stdout
 * sent there by a shell's >) cannot restart or resume, as a filesink
 * cannot: the new pipeline's fdsink sought back to the start of its
 * segment and wrote frames 7 to 9 over 0 to 6 (a run that said only
 * "1 skipped"). Appended to (>>) it goes on, as
 * /accel-run/gst-sink-synced-goes-on does */
static void
test_gst_sink_fdsink_file_refused (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *out = g_build_filename (sc.dir, "out.gdp", NULL);
  g_autoptr (GArray) pts = NULL;
  Result r = { 0 };

  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: fd-file\n"
      "stages:\n"
      "  - {name: src, kind: io.pattern-source,\n"
      "     params: {width: 8, height: 8, framerate: 50/1, num-buffers: 10}}\n"
      "  - {name: out, kind: io.gst-sink, supervision: {on-fault: restart},\n"
      "     params: {framerate: 50/1, description: 'gdppay ! fdsink'}}\n"
      "links: [src -> out]\n",
      -1, NULL));

  g_setenv ("ACCEL_FAULT", "out:library:7", TRUE);
  run_stdout_over (&r, sc.dir, out, "--no-supervise", sc.yaml, NULL);
  g_unsetenv ("ACCEL_FAULT");
  g_test_message ("status %d: %s", r.status, r.err);
  if (r.err && strstr (r.err, "no element \"gdppay\""))
    {
      g_test_skip ("GStreamer element gdppay is missing");
      result_clear (&r);
      return;
    }
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "cannot restart: its element 'fdsink"));
  g_assert_nonnull (strstr (r.err, "would write its files again"));
  result_clear (&r);
  /* the frames before the fault, from the first */
  pts = gdp_buffer_timestamps (out);
  g_assert_cmpuint (pts->len, >, 0);
  assert_frame_timestamps (pts, 0, pts->len - 1, G_MAXUINT);

  /* killed at frame 7 and resumed into the file emptied again */
  g_setenv ("ACCEL_FAULT", "out:crash:7", TRUE);
  run_stdout_over (
      &r, sc.dir, out, "--no-supervise", sc.state_arg, sc.yaml, NULL);
  g_unsetenv ("ACCEL_FAULT");
  g_assert_cmpint (r.status, ==, -1); /* killed */
  result_clear (&r);
  run_stdout_over (
      &r, sc.dir, out, "--no-supervise", sc.state_arg, sc.yaml, NULL);
  g_test_message ("status %d: %s", r.status, r.err);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "cannot resume: its element 'fdsink"));
  g_assert_nonnull (strstr (r.err, "would write its files again"));
  result_clear (&r);
}

/* a reader of the progress that goes away does not end the run (it used to
 * die of SIGPIPE, silently, its outputs cut short); stats that must reach
 * stdout and cannot are an error that says so */
static void
test_stdout_gone (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *stats = g_build_filename (sc.dir, "stats.json", NULL);
  g_autofree gchar *text = NULL;
  Result r = { 0 };

  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: gone\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source,\n"
      "     params: {shape: 64, num-buffers: 50}}\n"
      "  - {name: out, kind: core.checksum-sink, params: {location: sums}}\n"
      "links: [src -> out]\n",
      -1, NULL));
  run_stdout_gone (&r, sc.dir, "--stats", stats, sc.yaml, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_get_contents (stats, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\"frames\": 50,"));
  g_assert_nonnull (strstr (text, "\"completed\": true"));
  result_clear (&r);

  run_stdout_gone (&r, sc.dir, "--quiet", "--stats=-", sc.yaml, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "cannot write stdout: Broken pipe"));
  result_clear (&r);

  /* what these print is all they do: they exited 0, having written
   * nothing (`accel-run --print-yaml -e ... > p.yaml` on a full disk) */
  run_stdout_gone (&r, sc.dir, "--list", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "cannot write stdout: Broken pipe"));
  result_clear (&r);
  run_stdout_gone (&r, sc.dir, "--describe", "core.scale", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "cannot write stdout: Broken pipe"));
  result_clear (&r);
  run_stdout_gone (&r, sc.dir, "--print-yaml", "-e",
      "core.test-source ! core.null-sink", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "cannot write stdout: Broken pipe"));
  result_clear (&r);
  run_stdout_gone (&r, sc.dir, "--validate", sc.yaml, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "cannot write stdout: Broken pipe"));
  result_clear (&r);
  /* --quiet prints nothing: nothing to lose */
  run_stdout_gone (&r, sc.dir, "--validate", "--quiet", sc.yaml, NULL);
  g_assert_cmpint (r.status, ==, 0);
  result_clear (&r);

  /* a --dot that cannot be written is a report lost, as --stats: 1 (it
   * was 2, a pipeline refused) */
  run_in (&r, sc.dir, "--validate", "--dot=/dev/full", sc.yaml, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "cannot write /dev/full"));
  result_clear (&r);
}

typedef struct
{
  const char *path;
  GByteArray *bytes;
} FifoReader;

static gpointer
read_fifo (gpointer data)
{
  FifoReader *f = data;
  int fd = g_open (f->path, O_RDONLY | O_CLOEXEC, 0);
  guint8 chunk[4096];
  gssize got;

  g_assert_cmpint (fd, >=, 0);
  while ((got = read (fd, chunk, sizeof (chunk))) > 0)
    g_byte_array_append (f->bytes, chunk, (guint)got);
  close (fd);
  return NULL;
}

/* 50 frames of 64 floats into the raw file %s */
#define RAW_SINK_YAML                                                          \
  "pipeline: out\n"                                                            \
  "stages:\n"                                                                  \
  "  - {name: src, kind: core.test-source,\n"                                  \
  "     params: {shape: 64, num-buffers: 50}}\n"                               \
  "  - {name: out, kind: io.raw-file-sink, params: {location: '%s'}}\n"        \
  "links: [src -> out]\n"

/* frames written to stdout (/dev/stdout into another program) or a FIFO:
 * the bytes of a file, with the progress on stderr instead of among them;
 * --stats - is refused there */
static void
test_frames_to_stdout (void)
{
  g_auto (Scratch) sc = scratch_new ();
  g_autofree gchar *ref = g_build_filename (sc.dir, "ref.raw", NULL);
  g_autofree gchar *out = g_build_filename (sc.dir, "out.raw", NULL);
  g_autofree gchar *fifo = g_build_filename (sc.dir, "frames", NULL);
  g_autofree gchar *expected = NULL, *got = NULL;
  gsize expected_len, got_len;
  FifoReader reader = { fifo, g_byte_array_new () };
  g_autofree gchar *to_ref = g_strdup_printf (RAW_SINK_YAML, ref);
  g_autofree gchar *to_stdout = g_strdup_printf (RAW_SINK_YAML, "/dev/stdout");
  g_autofree gchar *to_fifo = g_strdup_printf (RAW_SINK_YAML, fifo);
  GThread *t;
  Result r = { 0 };

  g_assert_true (g_file_set_contents (sc.yaml, to_ref, -1, NULL));
  expect_in (0, NULL, sc.dir, "--quiet", sc.yaml, NULL);
  g_assert_true (g_file_get_contents (ref, &expected, &expected_len, NULL));
  g_assert_cmpuint (expected_len, ==, 50 * 64 * sizeof (float));

  g_assert_true (g_file_set_contents (sc.yaml, to_stdout, -1, NULL));
  run_stdout_to (&r, sc.dir, out, sc.yaml, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "50 frames"));
  g_assert_true (g_file_get_contents (out, &got, &got_len, NULL));
  g_assert_cmpmem (got, got_len, expected, expected_len);
  result_clear (&r);

  run_stdout_to (&r, sc.dir, out, "--stats=-", sc.yaml, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "--stats - would write into the frames "
                                   "that stage 'out' writes to stdout"));
  result_clear (&r);

  /* a file opened to append (>>) keeps what it held: opened again by
   * name, it was emptied, and held the frames alone */
  g_assert_true (g_file_set_contents (out, "held", 4, NULL));
  run_stdout_appended (&r, sc.dir, out, "--quiet", sc.yaml, NULL);
  g_assert_cmpint (r.status, ==, 0);
  result_clear (&r);
  g_clear_pointer (&got, g_free);
  g_assert_true (g_file_get_contents (out, &got, &got_len, NULL));
  g_assert_cmpuint (got_len, ==, 4 + expected_len);
  g_assert_cmpmem (got, 4, "held", 4);
  g_assert_cmpmem (got + 4, got_len - 4, expected, expected_len);

  /* frames on stderr would mix with the run's messages: refused, a
   * file sink's or an fdsink's in io.gst-sink's description */
  {
    g_autofree gchar *to_stderr
        = g_strdup_printf (RAW_SINK_YAML, "/dev/stderr");
    g_assert_true (g_file_set_contents (sc.yaml, to_stderr, -1, NULL));
    expect_in (2, "stage 'out' writes its frames to stderr", sc.dir, "--quiet",
        sc.yaml, NULL);
    expect_in (2, "stage 'out' writes its frames to stderr", sc.dir, "--quiet",
        "-e",
        "io.pattern-source num-buffers=2 ! io.gst-sink name=out "
        "description=\"fdsink fd=2\"",
        NULL);
  }

  /* an fdsink given a descriptor that is not open writes to fd 1 */
  g_assert_true (g_file_set_contents (sc.yaml,
      "pipeline: out\n"
      "stages:\n"
      "  - {name: src, kind: io.pattern-source, params: {num-buffers: 3}}\n"
      "  - {name: out, kind: io.gst-sink, params: {description: "
      "'fdsink fd=99'}}\n"
      "links: [src -> out]\n",
      -1, NULL));
  run_stdout_to (&r, sc.dir, out, "--stats=-", sc.yaml, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "--stats - would write into the frames "
                                   "that stage 'out' writes to stdout"));
  result_clear (&r);

  /* a FIFO cannot be sought or cut back: the frames are appended */
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_true (g_file_set_contents (sc.yaml, to_fifo, -1, NULL));
  t = g_thread_new ("fifo", read_fifo, &reader);
  run_in (&r, sc.dir, "--quiet", sc.yaml, NULL);
  g_thread_join (t);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpmem (
      reader.bytes->data, reader.bytes->len, expected, expected_len);
  g_byte_array_unref (reader.bytes);
  g_unlink (fifo);
  result_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/accel-run/json-reader", test_json_reader);
  g_test_add_func ("/accel-run/validate", test_validate);
  g_test_add_func ("/accel-run/usage", test_usage);
  g_test_add_func (
      "/accel-run/stats-stdout-escaped", test_stats_stdout_escaped);
  g_test_add_func ("/accel-run/stats-name-not-utf8", test_stats_name_not_utf8);
  g_test_add_func ("/accel-run/dot-image", test_dot_image);
  g_test_add_func ("/accel-run/report-files", test_report_files);
  g_test_add_func ("/accel-run/sigterm", test_sigterm);
  g_test_add_func ("/accel-run/sighup", test_sighup);
  g_test_add_func ("/accel-run/sighup-under-nohup", test_sighup_under_nohup);
  g_test_add_func (
      "/accel-run/sigint-while-joining", test_sigint_while_joining);
  g_test_add_func ("/accel-run/world-interrupts", test_world_interrupts);
  g_test_add_func ("/accel-run/second-sigint", test_second_sigint);
  g_test_add_func ("/accel-run/sigterm-bounded", test_sigterm_bounded);
  g_test_add_func ("/accel-run/escalation-ends-run", test_escalation_ends_run);
  g_test_add_func ("/accel-run/fault-stop-counted", test_fault_stop_counted);
  g_test_add_func (
      "/accel-run/host-scratch-too-big", test_host_scratch_too_big);
  g_test_add_func ("/accel-run/fifo-without-writer", test_fifo_without_writer);
  g_test_add_func ("/accel-run/alpha-out-of-range", test_alpha_out_of_range);
  g_test_add_func (
      "/accel-run/description-dash-name", test_description_dash_name);
  g_test_add_func (
      "/accel-run/resume-checksum-in-place", test_resume_checksum_in_place);
  g_test_add_func (
      "/accel-run/checkpoint-name-checked", test_checkpoint_name_checked);
  g_test_add_func (
      "/accel-run/checkpoint-body-checked", test_checkpoint_body_checked);
  g_test_add_func (
      "/accel-run/checkpoint-stage-checked", test_checkpoint_stage_checked);
  g_test_add_func ("/accel-run/checkpoint-state-dir-checked",
      test_checkpoint_state_dir_checked);
  g_test_add_func ("/accel-run/checkpoint-unidentified-refused",
      test_checkpoint_unidentified_refused);
  g_test_add_func ("/accel-run/checkpoint-unidentified-old-dir",
      test_checkpoint_unidentified_old_dir);
  g_test_add_func (
      "/accel-run/stateless-marker-checked", test_stateless_marker_checked);
  g_test_add_func ("/accel-run/validate-state-dir", test_validate_state_dir);
  g_test_add_func ("/accel-run/state-dir-unusable", test_state_dir_unusable);
  g_test_add_func ("/accel-run/state-dir-removed", test_state_dir_removed);
  g_test_add_func ("/accel-run/thread-limit", test_thread_limit);
  g_test_add_func (
      "/accel-run/skips-said-on-failure", test_skips_said_on_failure);
  g_test_add_func (
      "/accel-run/plugin-path-unreadable", test_plugin_path_unreadable);
  g_test_add_func ("/accel-run/plugins-on-demand", test_plugins_on_demand);
  g_test_add_func (
      "/accel-run/plugin-unloadable-said", test_plugin_unloadable_said);
  g_test_add_func (
      "/accel-run/checksum-fifo-with-state", test_checksum_fifo_with_state);
  g_test_add_func (
      "/accel-run/application-stages-refused", test_application_stages_refused);
  g_test_add_func (
      "/accel-run/stats-when-start-fails", test_stats_when_start_fails);
  g_test_add_func ("/accel-run/stats-after-resume", test_stats_after_resume);
  g_test_add_func (
      "/accel-run/report-to-stdout-appends", test_report_to_stdout_appends);
  g_test_add_func (
      "/accel-run/dashes-and-validate-dot", test_dashes_and_validate_dot);
  g_test_add_func ("/accel-run/backend-over-env", test_backend_over_env);
  g_test_add_func ("/accel-run/list-and-describe", test_list_and_describe);
  g_test_add_func (
      "/accel-run/dot-frames-stats-set", test_dot_frames_stats_set);
  g_test_add_func ("/accel-run/sigint", test_sigint);
  g_test_add_func ("/accel-run/runtime-error", test_runtime_error);
  g_test_add_func ("/accel-run/oom-retry-said", test_oom_retry_said);
  g_test_add_func ("/accel-run/echoes-escaped", test_echoes_escaped);
  g_test_add_func (
      "/accel-run/stream-frame-too-large", test_stream_frame_too_large);
  g_test_add_func ("/accel-run/examples-run", test_examples_run);
  g_test_add_func ("/accel-run/resume-after-crash", test_resume_after_crash);
  g_test_add_func (
      "/accel-run/resume-without-checkpoint", test_resume_without_checkpoint);
  g_test_add_func ("/accel-run/hung-stage-left", test_hung_stage_left);
  g_test_add_func (
      "/accel-run/shared-files-refused", test_shared_files_refused);
  g_test_add_func (
      "/accel-run/shared-files-across-ranks", test_shared_files_across_ranks);
  g_test_add_func (
      "/accel-run/input-written-across-ranks", test_input_written_across_ranks);
  g_test_add_func ("/accel-run/join-says-dropped", test_join_says_dropped);
  g_test_add_func ("/accel-run/state-files-checked", test_state_files_checked);
  g_test_add_func ("/accel-run/resume-drops-later-checkpoints",
      test_resume_drops_later_checkpoints);
  g_test_add_func (
      "/accel-run/live-wait-not-deadline", test_live_wait_not_deadline);
  g_test_add_func ("/accel-run/gst-reserved-name", test_gst_reserved_name);
  g_test_add_func ("/accel-run/hung-after-failure", test_hung_after_failure);
  g_test_add_func ("/accel-run/stopped-is-not-hung", test_stopped_is_not_hung);
  g_test_add_func ("/accel-run/stopped-is-not-late", test_stopped_is_not_late);
  g_test_add_func ("/accel-run/stopped-while-hung", test_stopped_while_hung);
  g_test_add_func ("/accel-run/interrupt-start", test_interrupt_start);
  g_test_add_func ("/accel-run/hung-sink", test_hung_sink);
  g_test_add_func (
      "/accel-run/input-digest-interrupted", test_input_digest_interrupted);
  g_test_add_func (
      "/accel-run/test-source-kind-params", test_test_source_kind_params);
  g_test_add_func (
      "/accel-run/fault-for-missing-stage", test_fault_for_missing_stage);
  g_test_add_func ("/accel-run/says-resume", test_says_resume);
  g_test_add_func ("/accel-run/state-dir-locked", test_state_dir_locked);
  g_test_add_func (
      "/accel-run/sigint-video-playable", test_sigint_video_playable);
  g_test_add_func (
      "/accel-run/resume-verifies-output", test_resume_verifies_output);
  g_test_add_func ("/accel-run/resume-verifies-png", test_resume_verifies_png);
  g_test_add_func ("/accel-run/resume-refuses-live", test_resume_refuses_live);
  g_test_add_func ("/accel-run/resume-refuses-pipe", test_resume_refuses_pipe);
  g_test_add_func (
      "/accel-run/live-clean-end-rerun", test_live_clean_end_rerun);
  g_test_add_func ("/accel-run/resume-gst-refused", test_resume_gst_refused);
  g_test_add_func ("/accel-run/gst-sink-longest-eos-timeout",
      test_gst_sink_longest_eos_timeout);
  g_test_add_func (
      "/accel-run/gst-fifo-without-peer", test_gst_fifo_without_peer);
  g_test_add_func (
      "/accel-run/resume-past-frame-limit", test_resume_past_frame_limit);
  g_test_add_func ("/accel-run/resume-refuses-changed-input",
      test_resume_refuses_changed_input);
  g_test_add_func (
      "/accel-run/resume-refuses-grown-loop", test_resume_refuses_grown_loop);
  g_test_add_func ("/accel-run/resume-refuses-input-changed-far",
      test_resume_refuses_input_changed_far);
  g_test_add_func (
      "/accel-run/resume-old-input-line", test_resume_old_input_line);
  g_test_add_func ("/accel-run/resume-refuses-changed-sums",
      test_resume_refuses_changed_sums);
  g_test_add_func ("/accel-run/signal-after-loop", test_signal_after_loop);
  g_test_add_func (
      "/accel-run/signal-after-run-over", test_signal_after_run_over);
  g_test_add_func ("/accel-run/signals-while-output-blocked",
      test_signals_while_output_blocked);
  g_test_add_func ("/accel-run/report-file-refused", test_report_file_refused);
  g_test_add_func (
      "/accel-run/report-file-refused-inputs", test_report_file_refused_inputs);
  g_test_add_func ("/accel-run/gst-source-error-other-branch",
      test_gst_source_error_other_branch);
  g_test_add_func (
      "/accel-run/gst-source-error-resumed", test_gst_source_error_resumed);
  g_test_add_func ("/accel-run/gst-source-fault-before-pull",
      test_gst_source_fault_before_pull);
  g_test_add_func (
      "/accel-run/gst-sink-padding-zeroed", test_gst_sink_padding_zeroed);
  g_test_add_func ("/accel-run/gst-sink-to-stdout", test_gst_sink_to_stdout);
  g_test_add_func (
      "/accel-run/gst-sink-files-checked", test_gst_sink_files_checked);
  g_test_add_func ("/accel-run/gst-source-recording-checked",
      test_gst_source_recording_checked);
  g_test_add_func (
      "/accel-run/png-pattern-files-checked", test_png_pattern_files_checked);
  g_test_add_func (
      "/accel-run/gst-sink-synced-goes-on", test_gst_sink_synced_goes_on);
  g_test_add_func ("/accel-run/gst-sink-fdsink-file-refused",
      test_gst_sink_fdsink_file_refused);
  g_test_add_func ("/accel-run/raw-sink-dev-null-with-state",
      test_raw_sink_dev_null_with_state);
  g_test_add_func ("/accel-run/resume-refuses-changed-file",
      test_resume_refuses_changed_file);
  g_test_add_func ("/accel-run/resume-refuses-unreadable-file",
      test_resume_refuses_unreadable_file);
  g_test_add_func ("/accel-run/state-fingerprint", test_state_fingerprint);
  g_test_add_func ("/accel-run/validate-locations", test_validate_locations);
  g_test_add_func ("/accel-run/descriptor-limit", test_descriptor_limit);
  g_test_add_func ("/accel-run/write-errors", test_write_errors);
  g_test_add_func ("/accel-run/stdout-gone", test_stdout_gone);
  g_test_add_func ("/accel-run/frames-to-stdout", test_frames_to_stdout);
  return g_test_run ();
}
