/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel-run's worker supervision on a GPU with real sticky faults: a
 * kernel's illegal address at frame N of M poisons the worker's context;
 * the supervisor starts a new worker, which resumes from the commit log and
 * the simulation's checkpoint. The run must complete, its sink must see
 * every sequence exactly once, and the checksums must equal a fault-free
 * run's. Skips without a GPU. */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "accel-test.h"

#define FRAMES 40

/* a simulation (stateful: it is checkpointed and restored), effects on
 * its frames (echo is stateful too), and a sink that records "sequence
 * sha256" per frame */
static const char *pipelines[] = {
  "pipeline: fault-recovery-fluid\n"
  "stages:\n"
  "  - {name: sim, kind: realtime.fluid,\n"
  "     params: {grid-size: 96, num-buffers: 40, snapshot-interval: 8}}\n"
  "  - {name: fx, kind: realtime.effects,\n"
  "     params: {effects: 'contrast=1.2 saturation=0.8 vignette=0.4'}}\n"
  "  - {name: check, kind: core.checksum-sink,\n"
  "     params: {location: sums.txt}}\n"
  "links: [sim -> fx, fx -> check]\n",
  "pipeline: fault-recovery-particles\n"
  "stages:\n"
  "  - {name: sim, kind: realtime.particles,\n"
  "     params: {capacity: 200000, emit-rate: 3000, curl: 0.5,\n"
  "              attractor-strength: 4, collide-radius: 0.01,\n"
  "              num-buffers: 40, snapshot-interval: 8}}\n"
  "  - {name: draw, kind: realtime.splat,\n"
  "     params: {width: 320, height: 240, scale: 110}}\n"
  "  - {name: fx, kind: realtime.effects,\n"
  "     params: {effects: 'contrast=1.2 vignette=0.4 echo=0.8'}}\n"
  "  - {name: check, kind: core.checksum-sink,\n"
  "     params: {location: sums.txt}}\n"
  "links: [sim -> draw, draw -> fx, fx -> check]\n",
};

typedef struct
{
  gchar *sums;
  gchar *err;
  int status;
} Run;

static void
run_clear (Run *r)
{
  g_free (r->sums);
  g_free (r->err);
}

static void
remove_tree (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d && (name = g_dir_read_name (d)))
    {
      g_autofree gchar *p = g_build_filename (dir, name, NULL);

      if (g_file_test (p, G_FILE_TEST_IS_DIR))
        remove_tree (p);
      else
        g_unlink (p);
    }
  g_rmdir (dir);
}

/* runs @yaml in a fresh directory with @faults (NULL: none) */
static void
run_pipeline (Run *r, const char *yaml, const char *faults)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-supervise-XXXXXX", NULL);
  g_autofree gchar *file = g_build_filename (dir, "p.yaml", NULL);
  g_autofree gchar *state = g_build_filename (dir, "state", NULL);
  g_autofree gchar *sums = g_build_filename (dir, "sums.txt", NULL);
  g_autofree gchar *state_arg = g_strdup_printf ("--state-dir=%s", state);
  const char *argv[]
      = { g_getenv ("ACCEL_RUN"), "--quiet", state_arg, file, NULL };
  g_autoptr (GSubprocessLauncher) launcher
      = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr (GSubprocess) p = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_true (g_file_set_contents (file, yaml, -1, NULL));
  g_subprocess_launcher_set_cwd (launcher, dir);
  if (faults)
    g_subprocess_launcher_setenv (launcher, "ACCEL_FAULT", faults, TRUE);
  else
    g_subprocess_launcher_unsetenv (launcher, "ACCEL_FAULT");
  p = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);
  g_assert_true (
      g_subprocess_communicate_utf8 (p, NULL, NULL, NULL, &r->err, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (p));
  r->status = g_subprocess_get_exit_status (p);
  if (!g_file_get_contents (sums, &r->sums, NULL, NULL))
    r->sums = g_strdup ("");
  remove_tree (dir);
}

/* each line "N hash", N = 0, 1, 2 ... in order: each sequence once */
static void
assert_every_sequence_once (const char *sums)
{
  g_auto (GStrv) lines = g_strsplit (sums, "\n", -1);
  guint n = 0;

  for (; lines[n] && *lines[n]; n++)
    {
      g_autofree gchar *prefix = g_strdup_printf ("%u ", n);

      g_assert_true (g_str_has_prefix (lines[n], prefix));
    }
  g_assert_cmpuint (n, ==, FRAMES);
}

/* worker 2 faults at the first frame it steps, whichever that is */
static gchar *
fault_on_restart (void)
{
  GString *s = g_string_new ("sim:illegal-address:30:1");

  for (guint seq = 0; seq < FRAMES; seq++)
    g_string_append_printf (s, ",sim:illegal-address:%u:2", seq);
  return g_string_free (s, FALSE);
}

static void
test_recovers (gconstpointer data)
{
  const char *yaml = data;
  g_autofree gchar *on_restart = fault_on_restart ();
  struct
  {
    const char *faults;
    guint workers;
  } cases[] = {
    /* the simulation's kernel, mid-stream */
    { "sim:illegal-address:17", 2 },
    /* the effects stage, between checkpoints */
    { "fx:illegal-address:23", 2 },
    /* two in a row: the second worker faults too */
    { "sim:illegal-address:17:1,sim:illegal-address:21:2", 3 },
    /* a fault during the restart: the second worker's first frame */
    { on_restart, 3 },
  };
  Run clean = { 0 };

  if (accel_test_skip_under_sanitizer (ACCEL_TEST_FAULT_WHY))
    return;
  run_pipeline (&clean, yaml, NULL);
  g_assert_cmpint (clean.status, ==, 0);
  assert_every_sequence_once (clean.sums);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree gchar *started
          = g_strdup_printf ("starting worker %u", cases[i].workers);
      g_autofree gchar *too_many
          = g_strdup_printf ("starting worker %u", cases[i].workers + 1);
      Run r = { 0 };

      run_pipeline (&r, yaml, cases[i].faults);
      g_test_message ("case %u: exit %d, %s", i, r.status, r.err);
      /* every frame once, after workers were started again: status 4 */
      g_assert_cmpint (r.status, ==, 4);
      g_assert_nonnull (strstr (r.err, "every frame was delivered, some "
                                       "only after a retry"));
      g_assert_nonnull (strstr (r.err, started));
      g_assert_null (strstr (r.err, too_many));
      assert_every_sequence_once (r.sums);
      g_assert_cmpstr (r.sums, ==, clean.sums);
      run_clear (&r);
    }
  run_clear (&clean);
}

/* a library error (not a poisoned context) restarts the stage in its
 * worker, back to its last snapshot: the simulation makes the frames since
 * again, keeping them to itself, then the failed one, and the output is a
 * clean run's with no frame skipped (it went on from the snapshot's state,
 * and every later frame differed) */
static void
test_source_catches_up (void)
{
  const char *yaml
      = "pipeline: catch-up\n"
        "stages:\n"
        "  - {name: sim, kind: realtime.particles,\n"
        "     params: {capacity: 200000, emit-rate: 3000, curl: 0.5,\n"
        "              collide-radius: 0.01, num-buffers: 40,\n"
        "              snapshot-interval: 8}}\n"
        "  - {name: draw, kind: realtime.splat,\n"
        "     params: {width: 320, height: 240, scale: 110}}\n"
        "  - {name: check, kind: core.checksum-sink,\n"
        "     params: {location: sums.txt}}\n"
        "links: [sim -> draw, draw -> check]\n";
  Run clean = { 0 }, faulted = { 0 };

  if (accel_test_skip_under_sanitizer (ACCEL_TEST_FAULT_WHY))
    return;
  run_pipeline (&clean, yaml, NULL);
  g_assert_cmpint (clean.status, ==, 0);
  assert_every_sequence_once (clean.sums);
  run_pipeline (&faulted, yaml, "sim:library:21");
  g_test_message ("exit %d, %s", faulted.status, faulted.err);
  /* the failed frame made again: said, status 4 */
  g_assert_cmpint (faulted.status, ==, 4);
  g_assert_nonnull (strstr (faulted.err,
      "stage 'sim' (realtime.particles) ran 1 frame again after a fault (1 "
      "restart); the first: "));
  g_assert_nonnull (strstr (faulted.err,
      "stage 'sim': restarted after frame 21 failed; its state after frame "
      "16 is caught up by making frames 17 to 20 again"));
  g_assert_null (strstr (faulted.err, "starting worker 2"));
  g_assert_cmpstr (faulted.sums, ==, clean.sums);
  run_clear (&clean);
  run_clear (&faulted);
}

/* stderr up to a line holding @text (NULL: to its end), appended to @said:
 * that line, or NULL at the end */
static gchar *
read_until (GDataInputStream *err, GString *said, const char *text)
{
  gchar *line;

  while ((line = g_data_input_stream_read_line_utf8 (err, NULL, NULL, NULL)))
    {
      g_string_append_printf (said, "%s\n", line);
      if (text && strstr (line, text))
        return line;
      g_free (line);
    }
  return NULL;
}

/* SIGTERM to the supervisor of an endless run ends it cleanly (0). Sent to
 * its worker alone, the worker ended its stream early and exited 0, and so
 * did the run, short of its end without a word: it now says so (130) */
static void
test_worker_interrupted_alone (void)
{
  const char *endless = "core.test-source shape=4096 ! core.scale scale=2 ! "
                        "core.checksum-sink";

  if (accel_test_skip_under_sanitizer (ACCEL_TEST_FAULT_WHY))
    return;
  for (guint alone = 0; alone < 2; alone++)
    {
      const char *argv[] = { g_getenv ("ACCEL_RUN"), "-e", endless, NULL };
      g_autoptr (GSubprocessLauncher) launcher = g_subprocess_launcher_new (
          G_SUBPROCESS_FLAGS_STDERR_PIPE | G_SUBPROCESS_FLAGS_STDOUT_SILENCE);
      g_autoptr (GSubprocess) p = NULL;
      g_autoptr (GDataInputStream) err = NULL;
      g_autoptr (GString) said = g_string_new (NULL);
      g_autoptr (GError) error = NULL;
      g_autofree gchar *started = NULL, *running = NULL;
      GPid worker;

      g_subprocess_launcher_setenv (
          launcher, "G_MESSAGES_DEBUG", "accel-supervisor", TRUE);
      g_subprocess_launcher_unsetenv (launcher, "ACCEL_FAULT");
      p = g_subprocess_launcher_spawnv (launcher, argv, &error);
      g_assert_no_error (error);
      err = g_data_input_stream_new (g_subprocess_get_stderr_pipe (p));
      started = read_until (err, said, "worker 1 is process ");
      g_assert_nonnull (started);
      worker = atoi (strstr (started, "is process ") + strlen ("is process "));
      running = read_until (err, said, "accel-run: running");
      g_assert_nonnull (running);
      g_assert_cmpint (
          kill (
              alone ? worker : atoi (g_subprocess_get_identifier (p)), SIGTERM),
          ==, 0);
      read_until (err, said, NULL);
      g_assert_true (g_subprocess_wait (p, NULL, &error));
      g_test_message ("%s", said->str);
      g_assert_true (g_subprocess_get_if_exited (p));
      g_assert_cmpint (g_subprocess_get_exit_status (p), ==, alone ? 130 : 0);
      g_assert_true (!alone
                     == !strstr (said->str,
                         "was interrupted by a signal sent to it alone, and "
                         "stopped short of the run's end"));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  accel_test_require_gpu ();
  g_test_add_data_func (
      "/supervise/fluid-effects", pipelines[0], test_recovers);
  g_test_add_data_func (
      "/supervise/particles-effects", pipelines[1], test_recovers);
  g_test_add_func (
      "/supervise/worker-interrupted-alone", test_worker_interrupted_alone);
  g_test_add_func ("/supervise/source-catches-up", test_source_catches_up);
  return g_test_run ();
}
