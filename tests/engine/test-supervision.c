/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* supervision: what a stage does when a frame fails, with injected faults */
#include "accel-test.h"
#include "test-stages.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* src -> work (a core.scale) -> checksum sink, with no fault scheduled */
typedef struct
{
  AccelGraph *graph;
  AccelStage *src, *work, *sink; /* the graph's */
  GError *error;
} Chain;

static void
chain_set_up (Chain *c, gconstpointer data)
{
  accel_fault_clear ();
  c->graph = accel_graph_new ("supervised");
  c->src = accel_test_stage (c->graph, "core.test-source", "src");
  c->work = accel_test_stage (c->graph, "core.scale", "work");
  c->sink = accel_test_stage (c->graph, "core.checksum-sink", "sink");
  g_object_set (c->src, "shape", "256", NULL);
  g_assert_true (accel_graph_link (c->graph, "src", "work", &c->error));
  g_assert_true (accel_graph_link (c->graph, "work", "sink", &c->error));
  g_assert_no_error (c->error);
}

static void
chain_tear_down (Chain *c, gconstpointer data)
{
  accel_graph_stop (c->graph);
  g_clear_object (&c->graph);
  g_clear_error (&c->error);
  accel_fault_clear ();
}

/* the source ends after @n frames (-1: never) */
static void
chain_set_frames (Chain *c, gint64 n)
{
  g_object_set (c->src, "num-buffers", n, NULL);
}

static guint64
received (Chain *c)
{
  return accel_checksum_sink_get_n_received (c->sink);
}

/* the sequences the sink saw, as "0 1 2 ..." */
static gchar *
sequences (Chain *c)
{
  g_autoptr (GArray) seqs = accel_checksum_sink_get_sequences (c->sink);
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < seqs->len; i++)
    g_string_append_printf (s, "%s%" G_GUINT64_FORMAT, i ? " " : "",
        g_array_index (seqs, guint64, i));
  return g_string_free (s, FALSE);
}

static void
test_resume_skips_bad_input (Chain *c, gconstpointer data)
{
  g_autofree gchar *seqs = NULL;

  chain_set_frames (c, 8);
  accel_fault_inject ("work", ACCEL_FAULT_INVALID_INPUT, 3);
  g_assert_true (accel_graph_run (c->graph, &c->error));
  g_assert_no_error (c->error);
  seqs = sequences (c);
  g_assert_cmpstr (seqs, ==, "0 1 2 4 5 6 7");
  g_assert_cmpuint (accel_stage_get_n_skipped (c->work), ==, 1);
  g_assert_cmpuint (accel_stage_get_n_restarts (c->work), ==, 0);
}

/* each run counts its own faults: a graph started again after a run that
 * skipped a frame, restarted a stage and failed reports none of them */
static void
test_counts_per_run (Chain *c, gconstpointer data)
{
  g_autofree gchar *fault = NULL;

  chain_set_frames (c, 20);
  g_object_set (c->work, "max-restarts", 2, NULL);
  accel_fault_inject ("work", ACCEL_FAULT_INVALID_INPUT, 1);
  for (guint64 s = 2; s < 5; s++)
    accel_fault_inject ("work", ACCEL_FAULT_LIBRARY, s);
  g_assert_false (accel_graph_run (c->graph, &c->error));
  g_clear_error (&c->error);
  g_assert_cmpuint (accel_stage_get_n_skipped (c->work), >=, 1);
  g_assert_cmpuint (accel_stage_get_n_restarts (c->work), ==, 2);

  accel_fault_clear ();
  g_assert_true (accel_graph_run (c->graph, &c->error));
  g_assert_no_error (c->error);
  g_assert_cmpuint (accel_stage_get_n_skipped (c->work), ==, 0);
  g_assert_cmpuint (accel_stage_get_n_restarts (c->work), ==, 0);
  g_assert_cmpuint (accel_stage_get_n_processed (c->work), ==, 20);
  g_assert_cmpuint (accel_stage_get_n_processed (c->sink), ==, 20);
  fault = accel_stage_dup_first_fault (c->work);
  g_assert_null (fault);
}

/* a sink's host part (render ()) that fails is supervised as process ()
 * is: on-fault resume skips the frame, where the graph failed whatever
 * on-fault said; one that fails without saying why is a fault too, with
 * an error that says so, where the frame was counted as done */
static void
test_render_fault_supervised (void)
{
  for (guint silent = 0; silent < 2; silent++)
    {
      g_autoptr (AccelGraph) graph = accel_graph_new ("render");
      g_autoptr (GError) error = NULL;
      AccelStage *src = accel_test_stage (graph, "core.test-source", "src");
      AccelStage *sink = accel_test_stage (graph, "test.render-failer", "out");
      g_autofree gchar *fault = NULL;

      g_object_set (src, "shape", "16", "num-buffers", (gint64)5, NULL);
      g_object_set (
          sink, "on-fault", ACCEL_SUPERVISION_RESUME, "silent", silent, NULL);
      g_assert_true (accel_graph_link (graph, "src", "out", &error));
      g_assert_true (accel_graph_run (graph, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (accel_stage_get_n_skipped (sink), ==, 1);
      g_assert_cmpuint (accel_stage_get_n_processed (sink), ==, 4);
      fault = accel_stage_dup_first_fault (sink);
      g_assert_cmpstr (fault, ==,
          silent ? "render () failed without saying why"
                 : "render refuses frame 2");
    }
}

/* an error of another domain is a fault of no known class: escalated by
 * on-fault auto. It went by its code alone, and G_FILE_ERROR_NOSPC, the
 * number of ACCEL_ERROR_DEADLINE, restarted the stage */
static void
test_other_domain_escalates (void)
{
  g_autoptr (AccelGraph) graph = accel_graph_new ("domain");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (graph, "core.test-source", "src");
  AccelStage *sink = accel_test_stage (graph, "test.render-failer", "out");

  g_object_set (src, "shape", "16", "num-buffers", (gint64)5, NULL);
  g_object_set (sink, "file-error", TRUE, NULL);
  g_assert_true (accel_graph_link (graph, "src", "out", &error));
  g_assert_false (accel_graph_run (graph, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOSPC);
  g_assert_cmpuint (accel_stage_get_n_restarts (sink), ==, 0);
}

/* a checkpoint that cannot be saved loses no frame: it was a fault of the
 * frame just handed on, counted skipped (exit status 3 from accel-run with
 * every frame written), and restarted the stage. Said once, and once more
 * when they are saved again. What a write cut short (killed) left, the
 * size of the state, is removed by the next save (it stayed for good) */
static void
test_checkpoint_not_saved (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-ckpt-XXXXXX", NULL);
  g_autofree gchar *blocked
      = g_build_filename (dir, "count.checkpoint.10", NULL);
  g_autofree gchar *leftover
      = g_build_filename (dir, "count.checkpoint.40.Ab12Cd", NULL);
  g_autofree gchar *other
      = g_build_filename (dir, "count.checkpoint.notes", NULL);
  g_autoptr (AccelGraph) graph = accel_graph_new ("checkpoints");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (graph, "core.test-source", "src");
  AccelStage *count = accel_test_stage (graph, "test.counter", "count");
  AccelStage *sink = accel_test_stage (graph, "core.null-sink", "sink");

  /* the file is renamed onto a directory there: refused */
  g_assert_cmpint (g_mkdir (blocked, 0700), ==, 0);
  g_assert_true (g_file_set_contents (leftover, "cut", -1, NULL));
  g_assert_true (g_file_set_contents (other, "kept", -1, NULL));
  g_object_set (src, "shape", "16", "num-buffers", (gint64)30, NULL);
  g_object_set (count, "snapshot-interval", 10, NULL);
  g_assert_true (accel_graph_link (graph, "src", "count", &error));
  g_assert_true (accel_graph_link (graph, "count", "sink", &error));
  accel_graph_set_state_dir (graph, dir, 0);
  g_test_expect_message ("accel-stage", G_LOG_LEVEL_MESSAGE,
      "stage 'count': its checkpoint at frame 10 was not saved (*); the run "
      "goes on*");
  g_test_expect_message ("accel-stage", G_LOG_LEVEL_MESSAGE,
      "stage 'count': its checkpoints are saved again, from frame 20");
  g_assert_true (accel_graph_run (graph, &error));
  g_assert_no_error (error);
  g_test_assert_expected_messages ();
  g_assert_cmpuint (accel_stage_get_n_skipped (count), ==, 0);
  g_assert_cmpuint (accel_stage_get_n_restarts (count), ==, 0);
  g_assert_cmpuint (accel_stage_get_n_processed (sink), ==, 30);
  g_assert_false (g_file_test (leftover, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (other, G_FILE_TEST_EXISTS));
  accel_test_remove_tree (dir);
}

static void
test_restart_after_library_error (Chain *c, gconstpointer data)
{
  g_autofree gchar *seqs = NULL;

  chain_set_frames (c, 8);
  accel_fault_inject ("work", ACCEL_FAULT_LIBRARY, 5);
  g_assert_true (accel_graph_run (c->graph, &c->error));
  seqs = sequences (c);
  g_assert_cmpstr (seqs, ==, "0 1 2 3 4 6 7");
  g_assert_cmpuint (accel_stage_get_n_restarts (c->work), ==, 1);
}

static void
test_restart_intensity (Chain *c, gconstpointer data)
{
  chain_set_frames (c, 20);
  g_object_set (c->work, "max-restarts", 2, NULL);
  for (guint64 s = 2; s < 5; s++)
    accel_fault_inject ("work", ACCEL_FAULT_LIBRARY, s);
  g_assert_false (accel_graph_run (c->graph, &c->error));
  g_assert_error (c->error, ACCEL_ERROR, ACCEL_ERROR_LIBRARY);
  g_assert_cmpstr (c->error->message, ==,
      "stage 'work' (core.scale): restarted 2 times within 10000 ms, "
      "escalating: injected library error (STATUS_INTERNAL_ERROR)");
  g_assert_cmpuint (accel_stage_get_n_restarts (c->work), ==, 2);
}

/* each run counts its own restarts against the intensity: a second run
 * within the window escalated at its first fault, counting the first
 * run's */
static void
test_restart_intensity_per_run (Chain *c, gconstpointer data)
{
  chain_set_frames (c, 20);
  g_object_set (c->work, "max-restarts", 2, NULL);
  for (guint run = 0; run < 2; run++)
    {
      for (guint64 s = 2; s < 5; s++)
        accel_fault_inject ("work", ACCEL_FAULT_LIBRARY, s);
      g_assert_false (accel_graph_run (c->graph, &c->error));
      g_assert_error (c->error, ACCEL_ERROR, ACCEL_ERROR_LIBRARY);
      g_assert_nonnull (strstr (c->error->message, "restarted 2 times"));
      g_assert_cmpuint (accel_stage_get_n_restarts (c->work), ==, 2);
      g_clear_error (&c->error);
      accel_fault_clear ();
    }
}

/* faults that come back slower than the restart window, with no frame
 * through between them (each frame fails after 5 ms; a start that times
 * out, in io.gst-sink): past max-restarts in a row the fault escalates,
 * where the stage restarted for good and every frame was lost */
static void
test_restarts_without_progress (void)
{
  g_autoptr (AccelGraph) graph = accel_graph_new ("idle");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (graph, "core.test-source", "src");
  AccelStage *k = accel_test_stage (graph, "test.misbehaver", "k");

  accel_test_stage (graph, "core.null-sink", "sink");
  g_object_set (src, "shape", "16", "num-buffers", (gint64)50, NULL);
  g_object_set (k, "flow", ACCEL_FLOW_ERROR, "set-error", TRUE, "every", TRUE,
      "sleep-ms", 5, "on-fault", ACCEL_SUPERVISION_RESTART, "max-restarts", 2,
      "restart-window", (gint64)1, NULL);
  g_assert_true (accel_graph_link (graph, "src", "k", &error));
  g_assert_true (accel_graph_link (graph, "k", "sink", &error));
  g_assert_false (accel_graph_run (graph, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT);
  g_assert_cmpstr (error->message, ==,
      "stage 'k' (test.misbehaver): restarted 2 times with no frame through "
      "between them, escalating: frame 4 is odd");
  g_assert_cmpuint (accel_stage_get_n_restarts (k), ==, 2);
}

static void
test_oom_retries_once (Chain *c, gconstpointer data)
{
  /* one failure: the retry after trimming the pools succeeds */
  chain_set_frames (c, 8);
  accel_fault_inject ("work", ACCEL_FAULT_OUT_OF_MEMORY, 4);
  g_test_expect_message ("accel-stage", G_LOG_LEVEL_MESSAGE,
      "stage 'work': frame 4 ran out of memory (injected allocation "
      "failure); its pools' free buffers are given back and it is made "
      "again");
  g_assert_true (accel_graph_run (c->graph, &c->error));
  g_test_assert_expected_messages ();
  g_assert_cmpuint (received (c), ==, 8);
  g_assert_cmpuint (accel_stage_get_n_restarts (c->work), ==, 0);
  g_assert_cmpuint (accel_stage_get_n_skipped (c->work), ==, 0);

  /* two, on a new chain: the strategy applies (restart, the frame is
   * lost) */
  chain_tear_down (c, data);
  chain_set_up (c, data);
  chain_set_frames (c, 8);
  accel_fault_inject ("work", ACCEL_FAULT_OUT_OF_MEMORY, 4);
  accel_fault_inject ("work", ACCEL_FAULT_OUT_OF_MEMORY, 4);
  g_assert_true (accel_graph_run (c->graph, &c->error));
  g_assert_cmpuint (received (c), ==, 7);
  g_assert_cmpuint (accel_stage_get_n_restarts (c->work), ==, 1);
}

/* a restarted sink goes on with its file: a run with a fault in the sink
 * writes the lines of a fault-free run, less the failed frame's */
static void
test_restarted_sink_keeps_file (Chain *c, gconstpointer data)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-restart-XXXXXX", NULL);
  g_autofree gchar *path = g_build_filename (dir, "sums", NULL);
  g_autofree gchar *clean = NULL, *faulty = NULL;
  g_autofree gchar *digest = NULL, *want_digest = NULL;
  g_auto (GStrv) lines = NULL;
  GString *want = g_string_new (NULL);

  chain_set_frames (c, 8);
  g_object_set (c->sink, "location", path, NULL);
  g_assert_true (accel_graph_run (c->graph, &c->error));
  g_assert_true (g_file_get_contents (path, &clean, NULL, &c->error));

  chain_tear_down (c, data);
  chain_set_up (c, data);
  chain_set_frames (c, 8);
  g_object_set (
      c->sink, "location", path, "on-fault", ACCEL_SUPERVISION_RESTART, NULL);
  accel_fault_inject ("sink", ACCEL_FAULT_LIBRARY, 5);
  g_assert_true (accel_graph_run (c->graph, &c->error));
  g_assert_no_error (c->error);
  g_assert_cmpuint (accel_stage_get_n_restarts (c->sink), ==, 1);
  g_assert_true (g_file_get_contents (path, &faulty, NULL, &c->error));
  /* and its results: the digest is the file's */
  g_assert_cmpuint (received (c), ==, 7);
  digest = accel_checksum_sink_dup_digest (c->sink);
  want_digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, faulty, -1);
  g_assert_cmpstr (digest, ==, want_digest);

  lines = g_strsplit (clean, "\n", -1);
  for (guint i = 0; lines[i] && *lines[i]; i++)
    if (!g_str_has_prefix (lines[i], "5 "))
      g_string_append_printf (want, "%s\n", lines[i]);
  g_assert_cmpstr (faulty, ==, want->str);
  g_string_free (want, TRUE);
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_stop_ends_stream (Chain *c, gconstpointer data)
{
  g_autofree gchar *seqs = NULL;

  chain_set_frames (c, -1);
  g_object_set (c->work, "on-fault", ACCEL_SUPERVISION_STOP, NULL);
  accel_fault_inject ("work", ACCEL_FAULT_LIBRARY, 5);
  g_assert_true (accel_graph_start (c->graph, &c->error));
  g_assert_true (accel_graph_wait (c->graph, 10 * G_USEC_PER_SEC, &c->error));
  g_assert_no_error (c->error);
  seqs = sequences (c);
  g_assert_cmpstr (seqs, ==, "0 1 2 3 4");
  accel_graph_stop (c->graph);
  /* every frame the source made is accounted for: taken, skipped or
   * dropped (the one it made as the stream ended was in none) */
  g_assert_cmpuint (accel_stage_get_n_processed (c->src), ==,
      accel_stage_get_n_processed (c->work)
          + accel_stage_get_n_skipped (c->work)
          + accel_stage_get_n_dropped (c->work));
}

static void
test_watchdog (Chain *c, gconstpointer data)
{
  chain_set_frames (c, 6);
  g_object_set (c->work, "deadline", (gint64)20, NULL);
  accel_fault_inject ("work", ACCEL_FAULT_HANG, 2);
  g_assert_true (accel_graph_run (c->graph, &c->error));
  g_assert_no_error (c->error);
  g_assert_cmpuint (received (c), ==, 5);
  g_assert_cmpuint (accel_stage_get_n_restarts (c->work), ==, 1);
}

/* a frame that does not return: the graph fails naming the stage and the
 * frame once the frame has run past the stage's watchdog, long before the
 * frame returns (the injected hang sleeps two deadlines, 4 s) */
static void
test_watchdog_hung (Chain *c, gconstpointer data)
{
  gint64 t0;

  chain_set_frames (c, 6);
  g_object_set (
      c->work, "deadline", (gint64)2000, "watchdog", (gint64)100, NULL);
  accel_fault_inject ("work", ACCEL_FAULT_HANG, 2);
  g_assert_true (accel_graph_start (c->graph, &c->error));
  t0 = g_get_monotonic_time ();
  g_assert_false (accel_graph_wait (c->graph, -1, &c->error));
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 3 * G_USEC_PER_SEC);
  g_assert_error (c->error, ACCEL_ERROR, ACCEL_ERROR_HUNG);
  g_assert_true (g_str_has_prefix (
      c->error->message, "stage 'work' (core.scale): frame 2 has run for "));
  g_assert_nonnull (strstr (c->error->message,
      "past its 100 ms watchdog: the stage is hung, and its thread cannot "
      "be stopped"));
  /* the stop waits for the frame */
  accel_graph_stop (c->graph);
  g_assert_cmpuint (received (c), <=, 2);
}

/* in a child: on a GPU the injected fault really poisons the context */
static void
test_poisoned_context_escalates (Chain *c, gconstpointer data)
{
  if (g_test_subprocess ())
    {
      chain_set_frames (c, 8);
      /* not even resume keeps a stage on a poisoned context */
      g_object_set (c->work, "on-fault", ACCEL_SUPERVISION_RESUME, NULL);
      accel_fault_inject ("work", ACCEL_FAULT_ILLEGAL_ADDRESS, 1);
      g_assert_false (accel_graph_run (c->graph, &c->error));
      g_assert_error (c->error, ACCEL_ERROR, ACCEL_ERROR_CONTEXT_POISONED);
      g_assert_true (g_str_has_prefix (c->error->message, "stage 'work'"));
      return;
    }
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, 0);
  g_test_trap_assert_passed ();
}

/* src -> work -> slow -> sink, "work" escalating a library error at frame
 * @fault_at, "slow" taking @sleep_ms a frame, the source never ending */
static AccelGraph *
escalating_graph (const char *name, gint sleep_ms, guint64 fault_at)
{
  AccelGraph *graph = accel_graph_new (name);
  GError *error = NULL;
  AccelStage *src = accel_test_stage (graph, "core.test-source", "src");
  AccelStage *work = accel_test_stage (graph, "core.scale", "work");
  AccelStage *slow = accel_test_stage (graph, "test.misbehaver", "slow");

  accel_test_stage (graph, "core.checksum-sink", "sink");
  g_object_set (src, "shape", "256", "num-buffers", (gint64)-1, NULL);
  g_object_set (work, "on-fault", ACCEL_SUPERVISION_ESCALATE, NULL);
  g_object_set (slow, "sleep-ms", sleep_ms, NULL);
  g_assert_true (accel_graph_link (graph, "src", "work", &error));
  g_assert_true (accel_graph_link (graph, "work", "slow", &error));
  g_assert_true (accel_graph_link (graph, "slow", "sink", &error));
  g_assert_no_error (error);
  accel_fault_clear ();
  accel_fault_inject ("work", ACCEL_FAULT_LIBRARY, fault_at);
  return graph;
}

/* an escalated fault lets the frames the failed stage handed on reach the
 * sinks, and the graph's other branches end their streams: stopped at
 * once, the sink behind a slow stage got 7 of the 12 frames before the
 * one that failed */
static void
test_escalation_drains (void)
{
  g_autoptr (AccelGraph) graph = escalating_graph ("drains", 5, 12);
  g_autoptr (GError) error = NULL;
  AccelStage *side = accel_test_stage (graph, "core.checksum-sink", "side");
  g_autoptr (GArray) seqs = NULL;

  /* and src -> side, a branch of its own */
  g_assert_true (accel_graph_link (graph, "src", "side", &error));
  g_assert_false (accel_graph_run (graph, &error));
  accel_fault_clear ();
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_LIBRARY);
  g_assert_true (g_str_has_prefix (error->message, "stage 'work'"));
  seqs = accel_checksum_sink_get_sequences (
      accel_graph_get_stage (graph, "sink"));
  g_assert_cmpuint (seqs->len, ==, 12);
  for (guint i = 0; i < seqs->len; i++)
    g_assert_cmpuint (g_array_index (seqs, guint64, i), ==, i);
  g_assert_cmpuint (accel_checksum_sink_get_n_received (side), >=, 12);
  accel_graph_stop (graph);
}

static void
note_message (const gchar *domain, GLogLevelFlags level, const gchar *message,
    gpointer data)
{
  GString *said = data;

  g_string_append_printf (said, "%s\n", message);
}

/* the drain is bounded: frames that take too long to reach the sinks are
 * given up after 5 s, saying so and naming the sink cut short */
static void
test_escalation_drain_bounded (void)
{
  g_autoptr (AccelGraph) graph = escalating_graph ("bounded", 2000, 4);
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) said = g_string_new (NULL);
  AccelStage *sink = accel_graph_get_stage (graph, "sink");
  gint64 t0 = g_get_monotonic_time ();
  guint handler = g_log_set_handler (
      "accel-graph", G_LOG_LEVEL_MESSAGE, note_message, said);

  g_assert_false (accel_graph_run (graph, &error));
  g_log_remove_handler ("accel-graph", handler);
  accel_fault_clear ();
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_LIBRARY);
  /* the four frames in flight take 8 s; the drain gives up after 5, and
   * the stop waits for the frame at work */
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 7500 * 1000);
  g_assert_cmpuint (accel_checksum_sink_get_n_received (sink), <, 4);
  g_assert_nonnull (strstr (said->str,
      "graph 'bounded' failed, and after 5 s 'sink' had not finished the "
      "frames in flight: they are lost"));
  accel_graph_stop (graph);
}

/* a wait with a timeout shorter than the drain: ACCEL_ERROR_TIMEOUT that
 * says the graph failed, not the error at once (the drain goes on) */
static void
test_escalation_drain_wait_timeout (void)
{
  g_autoptr (AccelGraph) graph = escalating_graph ("timed", 2000, 2);
  g_autoptr (GError) error = NULL;
  AccelStage *sink = accel_graph_get_stage (graph, "sink");

  g_assert_true (accel_graph_start (graph, &error));
  while (!accel_stage_graph_has_failed (sink))
    g_usleep (1000);
  g_assert_false (accel_graph_wait (graph, 100 * 1000, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT);
  g_assert_true (g_str_has_prefix (error->message, "stage 'work'"));
  g_assert_true (g_str_has_suffix (error->message,
      "graph 'timed' failed, and its sinks did not finish the frames in "
      "flight within 100 ms"));
  accel_graph_stop (graph);
  accel_fault_clear ();
}

static void
test_fault_spec (Chain *c, gconstpointer data)
{
  g_assert_false (accel_fault_inject_parse ("work:melt:3", &c->error));
  g_assert_cmpstr (c->error->message, ==,
      "fault 'work:melt:3' is not stage:kind:sequence[:worker] with kind one "
      "of "
      "illegal-address, oom, library, invalid-input, hang, crash");
  g_clear_error (&c->error);
  g_assert_false (accel_fault_inject_parse ("work:oom", &c->error));
  g_clear_error (&c->error);

  chain_set_frames (c, 6);
  g_assert_true (accel_fault_inject_parse (
      "work:invalid-input:1,work:library:3", &c->error));
  g_assert_true (accel_graph_run (c->graph, &c->error));
  g_assert_cmpuint (received (c), ==, 4);
  g_assert_cmpuint (accel_stage_get_n_skipped (c->work), ==, 2);
  g_assert_cmpuint (accel_stage_get_n_restarts (c->work), ==, 1);
}

static void
test_commit_log (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *dir = g_dir_make_tmp ("accel-commit-XXXXXX", NULL);
  g_autofree gchar *path = g_build_filename (dir, "sink.commits", NULL);
  g_autofree gchar *data = NULL;
  AccelCommitLog *log;
  gsize len;

  log = accel_commit_log_open (path, &error);
  g_assert_no_error (error);
  for (guint64 s = 0; s < 5; s++)
    g_assert_true (accel_commit_log_commit (log, s, &error));
  g_assert_true (accel_commit_log_commit (log, 7, &error));
  g_assert_true (accel_commit_log_commit (log, 3, &error));
  g_assert_cmpuint (accel_commit_log_first_uncommitted (log), ==, 5);
  accel_commit_log_close (log);

  /* read back */
  log = accel_commit_log_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (accel_commit_log_get_n_committed (log), ==, 6);
  g_assert_true (accel_commit_log_contains (log, 7));
  g_assert_false (accel_commit_log_contains (log, 6));
  g_assert_cmpuint (accel_commit_log_first_uncommitted (log), ==, 5);
  accel_commit_log_close (log);

  /* a torn last record (a crash mid-write) was never committed */
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  g_assert_true (g_file_set_contents (path, data, (gssize)len - 5, NULL));
  log = accel_commit_log_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (accel_commit_log_get_n_committed (log), ==, 5);
  g_assert_false (accel_commit_log_contains (log, 7));
  accel_commit_log_close (log);

  /* a damaged record is an error, never a guess */
  data[8 + 16 * 2 + 9] ^= 0x40;
  g_assert_true (g_file_set_contents (path, data, 8 + 16 * 5, NULL));
  g_assert_null (accel_commit_log_open (path, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH);
  g_assert_nonnull (strstr (error->message, "is corrupted at byte 40"));
  g_clear_error (&error);

  g_assert_true (g_file_set_contents (path, "garbage", -1, NULL));
  g_assert_null (accel_commit_log_open (path, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH);
  g_assert_nonnull (strstr (error->message, "is not a commit log"));

  g_unlink (path);
  g_rmdir (dir);
}

/* a file size limit 8 bytes into the fourth record: the commit fails
 * with EFBIG's message, not a full disk's (the short write's cause is its
 * rest's write) nor a stale errno, and the part written is cut off again, so
 * the commits after it (room made) stay whole and the log reads back. In
 * a subprocess: the limit is the process's */
static void
test_commit_log_short_write (void)
{
  g_autofree gchar *dir = NULL, *path = NULL;
  g_autoptr (GError) error = NULL;
  struct rlimit was, small;
  AccelCommitLog *log;

  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 30 * G_USEC_PER_SEC, 0);
      g_test_trap_assert_passed ();
      return;
    }
  dir = g_dir_make_tmp ("accel-commit-XXXXXX", NULL);
  path = g_build_filename (dir, "sink.commits", NULL);
  signal (SIGXFSZ, SIG_IGN);
  log = accel_commit_log_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &was), ==, 0);
  small = was;
  small.rlim_cur = 8 + 16 * 3 + 8;
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &small), ==, 0);
  for (guint64 s = 0; s < 3; s++)
    g_assert_true (accel_commit_log_commit (log, s, &error));
  g_assert_false (accel_commit_log_commit (log, 3, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED);
  /* the limit's own error, not a full disk's: the rest's write says it */
  g_assert_nonnull (strstr (error->message, g_strerror (EFBIG)));
  g_clear_error (&error);
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &was), ==, 0);
  for (guint64 s = 3; s < 6; s++)
    g_assert_true (accel_commit_log_commit (log, s, &error));
  accel_commit_log_close (log);

  log = accel_commit_log_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (accel_commit_log_get_n_committed (log), ==, 6);
  g_assert_cmpuint (accel_commit_log_first_uncommitted (log), ==, 6);
  accel_commit_log_close (log);
  g_unlink (path);
  g_rmdir (dir);
}

/* a state directory whose whole name is past PATH_MAX (reached a
 * directory at a time): it cannot be looked up by that name, which is not
 * its removal ("the state directory ... was removed while this run used
 * it"). In a subprocess: it moves the working directory */
static void
test_commit_log_deep_state_dir (void)
{
  g_autofree gchar *top = NULL, *name = g_strnfill (200, 'd');
  g_autoptr (GError) error = NULL;
  AccelCommitLog *log;
  const guint depth = 25; /* 25 × 201 bytes */

  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 30 * G_USEC_PER_SEC, 0);
      g_test_trap_assert_passed ();
      return;
    }
  top = g_dir_make_tmp ("accel-deep-XXXXXX", NULL);
  g_assert_cmpint (g_chdir (top), ==, 0);
  for (guint i = 0; i < depth; i++)
    {
      g_assert_cmpint (g_mkdir (name, 0700), ==, 0);
      g_assert_cmpint (g_chdir (name), ==, 0);
    }
  log = accel_commit_log_open ("sink.commits", &error);
  g_assert_no_error (error);
  accel_commit_log_hold_lock (
      log, g_open ("lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  g_assert_true (accel_commit_log_commit (log, 0, &error));
  g_assert_true (accel_commit_log_sync (log, &error));
  g_assert_no_error (error);
  accel_commit_log_close (log);
  g_unlink ("sink.commits");
  g_unlink ("lock");
  for (guint i = 0; i < depth; i++)
    {
      g_assert_cmpint (g_chdir (".."), ==, 0);
      g_assert_cmpint (g_rmdir (name), ==, 0);
    }
  g_assert_cmpint (g_rmdir (top), ==, 0);
}

/* src -> scale -> checksum sink writing "seq sha256" lines, with state;
 * the sink's digest */
static gchar *
run_durable (const char *dir, const char *fault)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("durable");
  g_autofree gchar *out = g_build_filename (dir, "out.txt", NULL);
  AccelStage *src, *scale, *sink;

  accel_fault_clear ();
  if (fault)
    g_assert_true (accel_fault_inject_parse (fault, &error));
  src = accel_test_stage (g, "core.test-source", "src");
  scale = accel_test_stage (g, "core.scale", "scale");
  sink = accel_test_stage (g, "core.checksum-sink", "sink");
  if (g_getenv ("ACCEL_TEST_LIVE"))
    test_live_source_set_num_buffers (TEST_LIVE_SOURCE (src), 60);
  else
    g_object_set (src, "num-buffers", (gint64)60, "shape", "512", NULL);
  g_object_set (scale, "scale", 2.0f, NULL);
  g_object_set (sink, "location", out, NULL);
  g_assert_true (accel_graph_link (g, "src", "scale", &error));
  g_assert_true (accel_graph_link (g, "scale", "sink", &error));
  accel_graph_set_state_dir (g, dir, 0);
  g_assert_true (accel_graph_run (g, &error));
  g_assert_no_error (error);
  return accel_checksum_sink_dup_digest (sink);
}

static gchar *
read_output (const char *dir)
{
  g_autofree gchar *out = g_build_filename (dir, "out.txt", NULL);
  gchar *data = NULL;

  g_assert_true (g_file_get_contents (out, &data, NULL, NULL));
  return data;
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

/* how many of @graph's notes say where it resumed */
static guint
n_resume_notes (AccelGraph *graph)
{
  GPtrArray *notes = accel_graph_get_notes (graph);
  guint n = 0;

  for (guint i = 0; i < notes->len; i++)
    n += g_str_has_prefix (notes->pdata[i], "resuming at frame ");
  return n;
}

/* a graph started again with its state says where this start resumes,
 * and only that: each start's note was kept beside the last */
static void
test_notes_per_start (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-notes-XXXXXX", NULL);
  g_autofree gchar *out = g_build_filename (dir, "out.txt", NULL);
  g_autoptr (AccelGraph) g = accel_graph_new ("notes");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (g, "core.test-source", "src");
  AccelStage *sink = accel_test_stage (g, "core.checksum-sink", "sink");

  accel_fault_clear ();
  g_object_set (src, "shape", "16", NULL);
  g_object_set (sink, "location", out, NULL);
  g_assert_true (accel_graph_link (g, "src", "sink", &error));
  accel_graph_set_state_dir (g, dir, 0);
  for (guint run = 0; run < 3; run++)
    {
      g_assert_true (accel_graph_start (g, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (n_resume_notes (g), ==, run > 0);
      accel_test_wait_processed (sink, 5);
      accel_graph_stop (g);
    }
  remove_dir (dir);
}

/* the process is killed mid-stream; a new run with the same state finishes
 * the job: every frame once, output equal to a run without the crash, and
 * so is its digest */
static void
test_crash_resume_exactly_once (void)
{
  static gchar *crash_dir;
  g_autofree gchar *clean_dir = NULL;
  g_autofree gchar *expected = NULL, *got = NULL;
  g_autofree gchar *resumed = NULL, *clean = NULL, *want = NULL;

  if (g_test_subprocess ())
    {
      g_free (run_durable (g_getenv ("ACCEL_TEST_STATE"), "scale:crash:23"));
      g_assert_not_reached ();
    }
  crash_dir = g_dir_make_tmp ("accel-crash-XXXXXX", NULL);
  clean_dir = g_dir_make_tmp ("accel-clean-XXXXXX", NULL);
  g_setenv ("ACCEL_TEST_STATE", crash_dir, TRUE);
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, 0);
  g_test_trap_assert_failed ();

  /* the killed run got part of the way */
  got = read_output (crash_dir);
  g_assert_cmpuint (strlen (got), >, 0);
  g_assert_null (strstr (got, "\n23 "));
  g_clear_pointer (&got, g_free);

  resumed = run_durable (crash_dir, NULL);
  clean = run_durable (clean_dir, NULL);
  got = read_output (crash_dir);
  expected = read_output (clean_dir);
  g_assert_cmpuint (strlen (expected), ==, 60 * (2 + 1 + 64 + 1) - 10);
  g_assert_cmpstr (got, ==, expected);
  want = g_compute_checksum_for_string (G_CHECKSUM_SHA256, expected, -1);
  g_assert_cmpstr (clean, ==, want);
  g_assert_cmpstr (resumed, ==, want);

  /* a third run has nothing left to do and writes nothing twice */
  g_clear_pointer (&resumed, g_free);
  resumed = run_durable (crash_dir, NULL);
  g_clear_pointer (&got, g_free);
  got = read_output (crash_dir);
  g_assert_cmpstr (got, ==, expected);
  g_assert_cmpstr (resumed, ==, want);

  remove_dir (crash_dir);
  remove_dir (clean_dir);
  g_clear_pointer (&crash_dir, g_free);
}

/* 100 000 buffers with recoverable faults at random frames: every frame is
 * either delivered or counted as skipped, none twice, none lost. The sink
 * keeps the last records only: its file has every one */
static void
test_soak (Chain *c, gconstpointer data)
{
  const guint64 n = g_test_slow () ? 100000 : 20000;
  const char *kinds[] = { "invalid-input", "library", "oom" };
  g_autofree gchar *dir = g_dir_make_tmp ("accel-soak-XXXXXX", NULL);
  g_autofree gchar *path = g_build_filename (dir, "sums", NULL);
  g_autofree gchar *text = NULL;
  g_auto (GStrv) lines = NULL;
  g_autoptr (GArray) seqs = g_array_new (FALSE, FALSE, sizeof (guint64));
  GRand *rand = g_rand_new_with_seed (7);
  guint n_faults = 0;

  chain_set_frames (c, (gint64)n);
  g_object_set (c->sink, "location", path, NULL);
  g_object_set (c->src, "shape", "64", NULL);
  g_object_set (c->work, "max-restarts", G_MAXUINT16, NULL);
  for (guint64 s = 1; s < n; s += g_rand_int_range (rand, 1, 400))
    {
      g_autofree gchar *spec = g_strdup_printf ("work:%s:%" G_GUINT64_FORMAT,
          kinds[g_rand_int_range (rand, 0, 3)], s);
      g_assert_true (accel_fault_inject_parse (spec, &c->error));
      n_faults++;
    }
  g_rand_free (rand);

  g_assert_true (accel_graph_run (c->graph, &c->error));
  g_assert_no_error (c->error);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] && *lines[i]; i++)
    {
      guint64 seq = g_ascii_strtoull (lines[i], NULL, 10);
      g_array_append_val (seqs, seq);
    }
  g_assert_cmpuint (seqs->len, ==, received (c));
  g_unlink (path);
  g_rmdir (dir);
  for (guint i = 1; i < seqs->len; i++)
    g_assert_cmpuint (g_array_index (seqs, guint64, i - 1), <,
        g_array_index (seqs, guint64, i));
  /* an out-of-memory fault is retried and loses nothing; the rest skip one */
  g_assert_cmpuint (seqs->len + accel_stage_get_n_skipped (c->work), ==, n);
  g_assert_cmpuint (accel_stage_get_n_skipped (c->work), <=, n_faults);
  g_assert_cmpuint (accel_stage_get_n_skipped (c->work), >, 0);
  g_test_message ("%u faults, %" G_GUINT64_FORMAT " skipped, %" G_GUINT64_FORMAT
                  " restarts",
      n_faults, accel_stage_get_n_skipped (c->work),
      accel_stage_get_n_restarts (c->work));
}

/* worker processes of the supervisor tests run this instead of the tests */
static int
worker_main (void)
{
  const char *dir = g_getenv ("ACCEL_TEST_STATE");
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("worker");
  g_autofree gchar *out = g_build_filename (dir, "out.txt", NULL);
  AccelStage *src, *scale, *sink;

  if (g_getenv ("ACCEL_TEST_WORKER_FAILS")
      && accel_supervisor_get_generation ()
             < (guint)atoi (g_getenv ("ACCEL_TEST_WORKER_FAILS_BEFORE")
                                ? g_getenv ("ACCEL_TEST_WORKER_FAILS_BEFORE")
                                : "1000000"))
    return atoi (g_getenv ("ACCEL_TEST_WORKER_FAILS"));
  if (g_getenv ("ACCEL_TEST_WORKER_HANGS"))
    {
      g_autofree gchar *pid_file = g_build_filename (dir, "worker.pid", NULL);
      g_autofree gchar *pid = g_strdup_printf ("%d", (int)getpid ());
      g_file_set_contents (pid_file, pid, -1, NULL);
      /* an interrupt passed on by the supervisor ends it, as Ctrl-C does */
      accel_supervisor_take_interrupts ();
      for (;;)
        pause ();
    }
  test_stages_register ();
  src = accel_stage_new (
      g_getenv ("ACCEL_TEST_LIVE") ? "test.live-source" : "core.test-source",
      "src", NULL);
  /* a stateful stage in place of the scale: its checkpoint must come back */
  scale = accel_stage_new (
      g_getenv ("ACCEL_TEST_STATEFUL") ? "test.counter" : "core.scale", "scale",
      NULL);
  if (g_getenv ("ACCEL_TEST_STATEFUL"))
    g_object_set (scale, "snapshot-interval", 10, NULL);
  sink = accel_stage_new ("core.checksum-sink", "sink", NULL);
  if (g_getenv ("ACCEL_TEST_LIVE"))
    test_live_source_set_num_buffers (TEST_LIVE_SOURCE (src), 60);
  else
    g_object_set (src, "num-buffers", (gint64)60, "shape", "512", NULL);
  if (!g_getenv ("ACCEL_TEST_STATEFUL"))
    g_object_set (scale, "scale", 2.0f, NULL);
  g_object_set (sink, "location", out, NULL);
  accel_graph_add (g, src, NULL);
  accel_graph_add (g, scale, NULL);
  accel_graph_add (g, sink, NULL);
  g_object_unref (src);
  g_object_unref (scale);
  g_object_unref (sink);
  accel_graph_link (g, "src", "scale", NULL);
  accel_graph_link (g, "scale", "sink", NULL);
  accel_graph_set_state_dir (g, dir, 0);
  accel_graph_run (g, &error);
  {
    /* how far back this worker started: the tests read it */
    g_autofree gchar *name
        = g_strdup_printf ("produced.%u", accel_supervisor_get_generation ());
    g_autofree gchar *path = g_build_filename (dir, name, NULL);
    g_autofree gchar *text = g_strdup_printf (
        "%" G_GUINT64_FORMAT, accel_stage_get_n_processed (src));
    g_file_set_contents (path, text, -1, NULL);
    g_free (name);
    g_free (path);
    g_free (text);
    name = g_strdup_printf ("lost.%u", accel_supervisor_get_generation ());
    path = g_build_filename (dir, name, NULL);
    text = g_strdup_printf ("%" G_GUINT64_FORMAT, accel_stage_get_n_lost (src));
    g_file_set_contents (path, text, -1, NULL);
  }
  /* the supervisor tells of the restart; the cause, only when asked for */
  if (error)
    g_debug (
        "worker %u: %s", accel_supervisor_get_generation (), error->message);
  return accel_supervisor_exit_status (error);
}

/* the supervisor's message for each worker it replaces */
#define KILLED "was killed by signal 9 (*)"
#define POISONED                                                               \
  "stopped because its CUDA context or its communicator was poisoned"

static void
expect_restart (guint worker, const char *why)
{
  g_autofree gchar *pattern = g_strdup_printf (
      "worker %u %s; starting worker %u", worker, why, worker + 1);

  g_test_expect_message ("accel-supervisor", G_LOG_LEVEL_MESSAGE, pattern);
}

/* runs this program as supervised workers on @dir with @fault */
static gboolean
supervise (
    const char *dir, const char *fault, guint max_restarts, GError **error)
{
  g_autofree gchar *self = g_file_read_link ("/proc/self/exe", NULL);
  const char *argv[] = { self, NULL };
  gboolean ok;

  g_setenv ("ACCEL_TEST_STATE", dir, TRUE);
  if (fault)
    g_setenv ("ACCEL_FAULT", fault, TRUE);
  ok = accel_supervisor_run (argv, max_restarts, 10000, error);
  g_unsetenv ("ACCEL_FAULT");
  g_unsetenv ("ACCEL_TEST_STATE");
  return ok;
}

/* a job finished after a worker was started again: not a plain success,
 * which accel-run tells apart (exit status 4), nor a failure */
static void
assert_retried (gboolean ok, GError **error)
{
  g_assert_false (ok);
  g_assert_error (*error, ACCEL_ERROR, ACCEL_ERROR_RETRIED);
  g_assert_nonnull (strstr ((*error)->message, "restart"));
  g_assert_nonnull (strstr (
      (*error)->message, "every frame was delivered, some only after a retry"));
  g_clear_error (error);
}

/* a worker killed, or poisoned, mid-stream is replaced; the output equals a
 * run without faults, and the run says it was retried */
static void
test_supervisor_restarts_workers (void)
{
  const struct
  {
    const char *spec;
    const char *why[3]; /* worker 1, 2, ... stopped because */
  } faults[] = {
    { "scale:crash:23", { KILLED } },
    { "scale:illegal-address:17", { POISONED } },
    /* two in a row, one at the first frame after the restart, then a crash */
    { "scale:illegal-address:17:1,scale:illegal-address:17:2,src:crash:40:3",
        { POISONED, POISONED, KILLED } },
  };
  g_autofree gchar *clean_dir = g_dir_make_tmp ("accel-clean-XXXXXX", NULL);
  g_autofree gchar *expected = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_true (supervise (clean_dir, NULL, 0, &error));
  g_assert_no_error (error);
  expected = read_output (clean_dir);

  for (guint i = 0; i < G_N_ELEMENTS (faults); i++)
    {
      g_autofree gchar *dir = g_dir_make_tmp ("accel-sup-XXXXXX", NULL);
      g_autofree gchar *got = NULL;

      for (guint w = 0; w < G_N_ELEMENTS (faults[i].why) && faults[i].why[w];
           w++)
        expect_restart (w + 1, faults[i].why[w]);
      assert_retried (supervise (dir, faults[i].spec, 3, &error), &error);
      g_test_assert_expected_messages ();
      got = read_output (dir);
      g_assert_cmpstr (got, ==, expected);
      remove_dir (dir);
    }
  remove_dir (clean_dir);
}

static guint64
read_count (const char *dir, const char *what, guint generation)
{
  g_autofree gchar *name = g_strdup_printf ("%s.%u", what, generation);
  g_autofree gchar *path = g_build_filename (dir, name, NULL);
  g_autofree gchar *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return g_ascii_strtoull (text, NULL, 10);
}

/* a live source cannot produce again what the sinks had not committed when
 * the worker died: the next worker counts those frames as lost, and every
 * sequence still reaches the sink once */
static void
test_supervisor_counts_lost_frames (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-live-XXXXXX", NULL);
  g_autoptr (GError) error = NULL;
  g_autofree gchar *got = NULL;
  g_auto (GStrv) lines = NULL;
  guint64 resume, lost;

  g_setenv ("ACCEL_TEST_LIVE", "1", TRUE);
  expect_restart (1, KILLED);
  assert_retried (supervise (dir, "scale:crash:23", 3, &error), &error);
  g_unsetenv ("ACCEL_TEST_LIVE");
  g_test_assert_expected_messages ();

  got = read_output (dir);
  lines = g_strsplit (got, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 60 + 1);
  for (guint i = 0; i < 60; i++)
    g_assert_cmpuint (g_ascii_strtoull (lines[i], NULL, 10), ==, i);

  /* worker 2 resumed at 60 - produced2, the first frame the sink had not
   * committed; worker 1 had produced at least up to 23, where the scale
   * died, and the source runs ahead of it by no more than the queues and
   * pools between them */
  resume = 60 - read_count (dir, "produced", 2);
  lost = read_count (dir, "lost", 2);
  g_test_message ("resumed at %" G_GUINT64_FORMAT ", lost %" G_GUINT64_FORMAT,
      resume, lost);
  g_assert_cmpuint (resume, <=, 23);
  g_assert_cmpuint (lost, >=, 23 - resume + 1);
  g_assert_cmpuint (lost, <=, 23 - resume + 1 + 16);
  remove_dir (dir);
}

/* a stateful stage: a new worker restores its checkpoint, replays the frames
 * after it (the sink skips those it committed) and the output equals a run
 * without faults; without the checkpoint it would not */
static void
test_supervisor_restores_checkpoints (void)
{
  g_autofree gchar *clean_dir = g_dir_make_tmp ("accel-clean-XXXXXX", NULL);
  g_autofree gchar *dir = g_dir_make_tmp ("accel-ckpt-XXXXXX", NULL);
  g_autofree gchar *expected = NULL, *got = NULL, *ckpt = NULL;
  g_autoptr (GError) error = NULL;

  g_setenv ("ACCEL_TEST_STATEFUL", "1", TRUE);
  g_assert_true (supervise (clean_dir, NULL, 0, &error));
  expected = read_output (clean_dir);
  expect_restart (1, KILLED);
  expect_restart (2, KILLED);
  assert_retried (
      supervise (dir, "sink:crash:37,src:crash:52:2", 3, &error), &error);
  g_test_assert_expected_messages ();
  g_unsetenv ("ACCEL_TEST_STATEFUL");
  got = read_output (dir);
  g_assert_cmpstr (got, ==, expected);
  ckpt = g_build_filename (dir, "scale.checkpoint.50", NULL);
  g_assert_true (g_file_test (ckpt, G_FILE_TEST_EXISTS));
  {
    /* the last worker started from a checkpoint, not from frame 0 */
    g_autofree gchar *p = g_build_filename (dir, "produced.3", NULL);
    g_autofree gchar *text = NULL;
    g_assert_true (g_file_get_contents (p, &text, NULL, NULL));
    g_assert_cmpuint (g_ascii_strtoull (text, NULL, 10), <, 60 - 40);
    g_assert_cmpuint (g_ascii_strtoull (text, NULL, 10), >, 0);
  }
  remove_dir (dir);
  remove_dir (clean_dir);
}

static void
test_supervisor_gives_up (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-sup-XXXXXX", NULL);
  g_autoptr (GError) error = NULL;

  /* poisoned every time: restart intensity */
  g_setenv ("ACCEL_TEST_WORKER_FAILS", "75", TRUE);
  expect_restart (1, POISONED);
  expect_restart (2, POISONED);
  g_assert_false (supervise (dir, NULL, 2, &error));
  g_test_assert_expected_messages ();
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_CONTEXT_POISONED);
  g_assert_cmpstr (error->message, ==,
      "worker 3 stopped because its CUDA context or its communicator was "
      "poisoned; already "
      "restarted 2 times within 10000 ms, giving up");
  g_clear_error (&error);

  /* any other failure is not retried */
  g_setenv ("ACCEL_TEST_WORKER_FAILS", "1", TRUE);
  g_assert_false (supervise (dir, NULL, 2, &error));
  g_assert_cmpstr (error->message, ==, "worker 1 failed (exit status 1)");
  g_unsetenv ("ACCEL_TEST_WORKER_FAILS");
  remove_dir (dir);
}

/* a worker that finished with frames skipped or lost is not started again
 * (that would not bring them back), and the run says it is incomplete */
static void
test_supervisor_incomplete_worker (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-sup-XXXXXX", NULL);
  g_autofree gchar *self = g_file_read_link ("/proc/self/exe", NULL);
  const char *argv[] = { self, NULL };
  g_autoptr (GError) error = NULL;

  g_setenv ("ACCEL_TEST_STATE", dir, TRUE);
  g_setenv ("ACCEL_TEST_WORKER_FAILS", "3", TRUE);
  g_assert_false (accel_supervisor_run (argv, 3, 10000, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INCOMPLETE);
  g_assert_cmpstr (error->message, ==,
      "worker 1 finished the job with frames skipped or lost");
  g_assert_cmpint (
      accel_supervisor_exit_status (error), ==, ACCEL_EXIT_INCOMPLETE);
  g_unsetenv ("ACCEL_TEST_WORKER_FAILS");
  g_unsetenv ("ACCEL_TEST_STATE");
  remove_dir (dir);
}

/* workers that fail slower than the restart intensity counts (here a
 * window of 1 ms), and commit nothing, are given up on once more of them
 * in a row failed than the intensity allows restarts: before, they were
 * restarted for ever (here, until the fifth worker, which would have
 * finished) */
static void
test_supervisor_gives_up_without_progress (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-sup-XXXXXX", NULL);
  g_autofree gchar *self = g_file_read_link ("/proc/self/exe", NULL);
  const char *argv[] = { self, NULL };
  g_autoptr (GError) error = NULL;

  g_setenv ("ACCEL_TEST_STATE", dir, TRUE);
  g_setenv ("ACCEL_STATE_DIR", dir, TRUE);
  g_setenv ("ACCEL_TEST_WORKER_FAILS", "75", TRUE);
  g_setenv ("ACCEL_TEST_WORKER_FAILS_BEFORE", "5", TRUE);
  expect_restart (1, POISONED);
  expect_restart (2, POISONED);
  expect_restart (3, POISONED);
  g_assert_false (accel_supervisor_run (argv, 3, 1, &error));
  g_test_assert_expected_messages ();
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_CONTEXT_POISONED);
  g_assert_cmpstr (error->message, ==,
      "worker 4 stopped because its CUDA context or its communicator was "
      "poisoned; the last 4 "
      "workers stopped before committing a frame, giving up");
  g_unsetenv ("ACCEL_TEST_WORKER_FAILS");
  g_unsetenv ("ACCEL_TEST_WORKER_FAILS_BEFORE");
  g_unsetenv ("ACCEL_STATE_DIR");
  g_unsetenv ("ACCEL_TEST_STATE");
  remove_dir (dir);
}

/* the process of @pid is gone (a zombie nobody reaped is gone too) */
static gboolean
process_gone (int pid)
{
  g_autofree gchar *stat_path = g_strdup_printf ("/proc/%d/stat", pid);
  g_autofree gchar *stat = NULL;
  const char *state;

  if (kill (pid, 0) != 0)
    return TRUE;
  if (!g_file_get_contents (stat_path, &stat, NULL, NULL))
    return TRUE;
  state = strrchr (stat, ')');
  return state && state[1] == ' ' && state[2] == 'Z';
}

static void
own_process_group (gpointer data)
{
  setpgid (0, 0);
}

/* starts this program as a supervisor (in a process group of its own with
 * @own_group, as a shell starts a job) of one worker that hangs; its
 * worker's process id into @worker */
static GPid
start_hanging_supervisor (const char *dir, gboolean own_group, int *worker)
{
  g_autofree gchar *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree gchar *pid_file = g_build_filename (dir, "worker.pid", NULL);
  g_auto (GStrv) env = g_get_environ ();
  const char *argv[] = { self, NULL };
  g_autoptr (GError) error = NULL;
  g_autofree gchar *text = NULL;
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  GPid supervisor;

  env = g_environ_setenv (env, "ACCEL_TEST_SUPERVISOR", "1", TRUE);
  env = g_environ_setenv (env, "ACCEL_TEST_STATE", dir, TRUE);
  env = g_environ_setenv (env, "ACCEL_TEST_WORKER_HANGS", "1", TRUE);
  g_assert_true (
      g_spawn_async (NULL, (gchar **)argv, env, G_SPAWN_DO_NOT_REAP_CHILD,
          own_group ? own_process_group : NULL, NULL, &supervisor, &error));
  g_assert_no_error (error);
  while (!g_file_get_contents (pid_file, &text, NULL, NULL)
         && g_get_monotonic_time () < deadline)
    g_usleep (10000);
  g_assert_nonnull (text);
  *worker = atoi (text);
  g_assert_cmpint (*worker, >, 0);
  g_assert_false (process_gone (*worker));
  return supervisor;
}

/* the wait status of @pid, which must end within 20 s */
static int
wait_within (GPid pid)
{
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  int status = 0;
  pid_t got;

  while ((got = waitpid (pid, &status, WNOHANG)) == 0
         && g_get_monotonic_time () < deadline)
    g_usleep (10000);
  if (got == 0)
    {
      kill (pid, SIGKILL);
      waitpid (pid, &status, 0);
    }
  g_spawn_close_pid (pid);
  g_assert_cmpint (got, ==, pid);
  return status;
}

/* a supervisor killed outright takes its worker along: the worker is told
 * (SIGTERM), not left running on its own */
static void
test_supervisor_killed_takes_worker (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-sup-XXXXXX", NULL);
  gint64 deadline;
  int worker;
  GPid supervisor = start_hanging_supervisor (dir, FALSE, &worker);

  kill (supervisor, SIGKILL);
  wait_within (supervisor);
  deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  while (!process_gone (worker) && g_get_monotonic_time () < deadline)
    g_usleep (10000);
  if (!process_gone (worker))
    kill (worker, SIGKILL);
  g_assert_true (process_gone (worker));
  remove_dir (dir);
}

/* Ctrl-C at a terminal reaches the whole job: the worker decides, and the
 * supervisor waits for it rather than die first, and starts no other */
static void
test_supervisor_interrupt_is_the_workers (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-sup-XXXXXX", NULL);
  int worker, status;
  GPid supervisor = start_hanging_supervisor (dir, TRUE, &worker);

  kill (-supervisor, SIGINT);
  status = wait_within (supervisor);
  /* the worker died of it: the run stopped, the supervisor lived to say so */
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 1);
  g_assert_true (process_gone (worker));
  remove_dir (dir);
}

/* an interrupt sent to the supervisor alone (kill of its pid, as a
 * script or a service manager sends it) is passed on to the worker, which
 * decides; it used to be noted and the worker left running */
static void
test_supervisor_passes_interrupt_on (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-sup-XXXXXX", NULL);
  int worker, status;
  GPid supervisor = start_hanging_supervisor (dir, TRUE, &worker);

  kill (supervisor, SIGINT);
  status = wait_within (supervisor);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 1);
  g_assert_true (process_gone (worker));
  remove_dir (dir);
}

/* a log of a long run holds its runs of frames, not each frame: every
 * sequence was a set's element of its own, about 50 bytes a frame for as
 * long as the run went (180 to 572 MB in 90 s of a test source). Gaps and
 * forgotten frames split the runs, and are still told apart */
static void
test_commit_log_bounded (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *dir = g_dir_make_tmp ("accel-commit-XXXXXX", NULL);
  g_autofree gchar *path = g_build_filename (dir, "sink.commits", NULL);
  const guint64 gone[] = { 500000 };
  AccelCommitLog *log = accel_commit_log_open (path, &error);
  gint64 before;
  GStatBuf st;
  g_autofree gchar *data = NULL;
  gsize len;

  g_assert_no_error (error);
  accel_commit_log_set_sync_interval (log, G_MAXINT64);
  before = accel_test_resident_bytes ();
  for (guint64 s = 0; s < 1000000; s++)
    if (s != 700000)
      g_assert_true (accel_commit_log_commit (log, s, &error));
  g_test_message ("VmRSS grew by %" G_GINT64_FORMAT " bytes over 999999 "
                  "commits",
      accel_test_resident_bytes () - before);
  g_assert_cmpint (accel_test_resident_bytes () - before, <, 8 << 20);
  g_assert_cmpuint (accel_commit_log_get_n_committed (log), ==, 999999);
  g_assert_cmpuint (accel_commit_log_first_uncommitted (log), ==, 700000);
  g_assert_false (accel_commit_log_contains (log, 700000));
  g_assert_true (accel_commit_log_contains (log, 700001));
  g_assert_true (
      accel_commit_log_forget (log, gone, G_N_ELEMENTS (gone), &error));
  g_assert_no_error (error);
  g_assert_cmpuint (accel_commit_log_first_uncommitted (log), ==, 500000);
  g_assert_true (accel_commit_log_contains (log, 499999));
  g_assert_false (accel_commit_log_contains (log, 500000));
  g_assert_true (accel_commit_log_contains (log, 500001));
  g_assert_true (accel_commit_log_commit (log, 500000, &error));
  g_assert_true (accel_commit_log_commit (log, 700000, &error));
  g_assert_cmpuint (accel_commit_log_first_uncommitted (log), ==, 1000000);
  accel_commit_log_close (log);
  /* the file too: it is written again with a pair of records a run once
   * it holds many more than that (16 MB, 16 bytes a commit, before) */
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_test_message ("the log is %" G_GINT64_FORMAT " bytes", (gint64)st.st_size);
  g_assert_cmpint (st.st_size, <, 300 * 1024);

  log = accel_commit_log_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (accel_commit_log_get_n_committed (log), ==, 1000000);
  g_assert_cmpuint (accel_commit_log_first_uncommitted (log), ==, 1000000);
  g_assert_true (accel_commit_log_forget_from (log, 999990, &error));
  g_assert_cmpuint (accel_commit_log_get_n_committed (log), ==, 999990);
  accel_commit_log_close (log);
  log = accel_commit_log_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (accel_commit_log_get_n_committed (log), ==, 999990);
  g_assert_cmpuint (accel_commit_log_first_uncommitted (log), ==, 999990);
  g_assert_false (accel_commit_log_contains (log, 999990));
  g_assert_true (accel_commit_log_contains (log, 999989));
  accel_commit_log_close (log);
  /* one run, a pair of records; its first alone is damage, not a torn
   * tail: a pair is only ever written whole */
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  g_assert_cmpuint (len, ==, 8 + 2 * 16);
  g_assert_true (g_file_set_contents (path, data, 8 + 16, NULL));
  g_assert_null (accel_commit_log_open (path, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH);
  g_assert_nonnull (strstr (error->message, "is corrupted at byte 8"));
  remove_dir (dir);
}

/* a resume forgets commits whose output is gone: the log drops them on
 * disk too (rewritten whole), and takes new commits after that */
static void
test_commit_log_forget (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *dir = g_dir_make_tmp ("accel-commit-XXXXXX", NULL);
  g_autofree gchar *path = g_build_filename (dir, "sink.commits", NULL);
  const guint64 gone[] = { 7, 3, 40 };
  g_autoptr (GArray) seqs = NULL;
  AccelCommitLog *log;

  log = accel_commit_log_open (path, &error);
  g_assert_no_error (error);
  for (guint64 s = 0; s < 10; s++)
    g_assert_true (accel_commit_log_commit (log, s, &error));
  g_assert_true (accel_commit_log_commit (log, 12, &error));
  g_assert_true (
      accel_commit_log_forget (log, gone, G_N_ELEMENTS (gone), &error));
  g_assert_no_error (error);
  g_assert_cmpuint (accel_commit_log_first_uncommitted (log), ==, 3);
  g_assert_cmpuint (accel_commit_log_get_n_committed (log), ==, 9);
  seqs = accel_commit_log_dup_sequences (log);
  g_assert_cmpuint (seqs->len, ==, 9);
  g_assert_cmpuint (g_array_index (seqs, guint64, 3), ==, 4);
  g_assert_cmpuint (g_array_index (seqs, guint64, 8), ==, 12);
  accel_commit_log_close (log);

  log = accel_commit_log_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (accel_commit_log_get_n_committed (log), ==, 9);
  g_assert_false (accel_commit_log_contains (log, 7));
  g_assert_true (accel_commit_log_forget_from (log, 5, &error));
  g_assert_cmpuint (accel_commit_log_get_n_committed (log), ==, 4);
  g_assert_false (accel_commit_log_contains (log, 12));
  /* the log goes on after a rewrite */
  g_assert_true (accel_commit_log_commit (log, 3, &error));
  g_assert_cmpuint (accel_commit_log_first_uncommitted (log), ==, 5);
  accel_commit_log_close (log);

  log = accel_commit_log_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (accel_commit_log_get_n_committed (log), ==, 5);
  g_assert_cmpuint (accel_commit_log_first_uncommitted (log), ==, 5);
  accel_commit_log_close (log);
  g_unlink (path);
  g_rmdir (dir);
}

/* src (shape @shape, @n frames) -> checksum sink, with state in @dir */
static gboolean
run_shaped (const char *dir, const char *shape, gint64 n, gboolean discard,
    GError **error)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("shaped");
  AccelStage *src = accel_test_stage (g, "core.test-source", "src");

  accel_test_stage (g, "core.checksum-sink", "sink");
  g_object_set (src, "num-buffers", n, "shape", shape, NULL);
  g_assert_true (accel_graph_link (g, "src", "sink", NULL));
  accel_graph_set_state_dir (g, dir, 0);
  accel_graph_set_discard_state (g, discard);
  return accel_graph_run (g, error);
}

/* a state directory is one graph's: another shape is refused saying what
 * changed, more frames of the same graph are not; discarding starts over
 * and keeps the new graph's fingerprint */
static void
test_state_fingerprint (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-print-XXXXXX", NULL);
  g_autofree gchar *blocker = g_build_filename (dir, "0.commits", NULL);
  g_autofree gchar *print = g_build_filename (dir, "fingerprint", NULL);
  g_autoptr (GError) error = NULL;

  g_assert_true (run_shaped (dir, "8", 4, FALSE, &error));
  g_assert_no_error (error);
  g_assert_true (run_shaped (dir, "8", 6, FALSE, &error));
  g_assert_no_error (error);
  g_assert_false (run_shaped (dir, "16", 6, FALSE, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH);
  g_assert_nonnull (strstr (
      error->message, "stage 'src' parameter 'shape' was \"8\", now \"16\""));
  g_assert_nonnull (strstr (error->message, "output 'out' type was "));
  g_clear_error (&error);
  /* a discard cut short (here by a file it cannot remove) keeps the
   * fingerprint: the old graph's logs are not taken for the new one's */
  g_assert_cmpint (g_mkdir (blocker, 0700), ==, 0);
  g_assert_false (run_shaped (dir, "16", 6, TRUE, &error));
  g_assert_nonnull (strstr (error->message, "cannot remove"));
  g_clear_error (&error);
  g_assert_cmpint (g_rmdir (blocker), ==, 0);
  g_assert_false (run_shaped (dir, "16", 6, FALSE, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH);
  g_clear_error (&error);
  g_assert_true (run_shaped (dir, "16", 6, TRUE, &error));
  g_assert_no_error (error);
  g_assert_true (run_shaped (dir, "16", 6, FALSE, &error));
  g_assert_no_error (error);
  /* a fingerprint deleted: the logs are not taken for another graph's
   * (nor for a directory from before fingerprints, which took them) */
  g_assert_cmpint (g_unlink (print), ==, 0);
  g_assert_false (run_shaped (dir, "8", 8, FALSE, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH);
  g_assert_nonnull (strstr (error->message, "holds commit logs (sink.commits) "
                                            "but no fingerprint"));
  g_clear_error (&error);
  g_assert_true (run_shaped (dir, "8", 8, TRUE, &error));
  g_assert_no_error (error);
  remove_dir (dir);
}

/* src -> scale by @scale -> checksum sink, with state in @dir */
static gboolean
run_scaled (const char *dir, float scale, GError **error)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("scaled");
  AccelStage *src = accel_test_stage (g, "core.test-source", "src");
  AccelStage *k = accel_test_stage (g, "core.scale", "k");

  accel_test_stage (g, "core.checksum-sink", "sink");
  g_object_set (src, "num-buffers", (gint64)4, "shape", "8", NULL);
  g_object_set (k, "scale", scale, NULL);
  g_assert_true (accel_graph_link (g, "src", "k", NULL));
  g_assert_true (accel_graph_link (g, "k", "sink", NULL));
  accel_graph_set_state_dir (g, dir, 0);
  return accel_graph_run (g, error);
}

/* parameters that differ below a millionth are told apart (GLib's "%f"
 * wrote 1e-7 and 4e-7 alike, and a resume mixed the two runs' frames);
 * values it writes exactly keep their text, so the state directories of
 * earlier runs still fit */
static void
test_state_fingerprint_small (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-print-XXXXXX", NULL);
  g_autofree gchar *dir2 = g_dir_make_tmp ("accel-print-XXXXXX", NULL);
  g_autofree gchar *print = g_build_filename (dir2, "fingerprint", NULL);
  g_autofree gchar *text = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_true (run_scaled (dir, 1e-7f, &error));
  g_assert_no_error (error);
  g_assert_false (run_scaled (dir, 4e-7f, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH);
  g_assert_nonnull (strstr (error->message, "parameter 'scale' was "));
  g_clear_error (&error);
  g_assert_true (run_scaled (dir2, 1.5f, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (print, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "scale\t1.500000\n"));
  remove_dir (dir);
  remove_dir (dir2);
}

int
main (int argc, char **argv)
{
  if (accel_supervisor_is_worker ())
    return worker_main ();
  /* the supervisor of the /supervisor/ tests of a hanging worker */
  if (g_getenv ("ACCEL_TEST_SUPERVISOR"))
    {
      g_autofree gchar *self = g_file_read_link ("/proc/self/exe", NULL);
      const char *worker_argv[] = { self, NULL };
      return accel_supervisor_run (worker_argv, 0, 10000, NULL) ? 0 : 1;
    }

  g_test_init (&argc, &argv, NULL);
  test_stages_register ();
  g_test_add ("/supervision/resume-skips-bad-input", Chain, NULL, chain_set_up,
      test_resume_skips_bad_input, chain_tear_down);
  g_test_add ("/supervision/counts-per-run", Chain, NULL, chain_set_up,
      test_counts_per_run, chain_tear_down);
  g_test_add ("/supervision/restart-after-library-error", Chain, NULL,
      chain_set_up, test_restart_after_library_error, chain_tear_down);
  g_test_add ("/supervision/restart-intensity", Chain, NULL, chain_set_up,
      test_restart_intensity, chain_tear_down);
  g_test_add ("/supervision/restart-intensity-per-run", Chain, NULL,
      chain_set_up, test_restart_intensity_per_run, chain_tear_down);
  g_test_add_func (
      "/supervision/restarts-without-progress", test_restarts_without_progress);
  g_test_add ("/supervision/oom-retries-once", Chain, NULL, chain_set_up,
      test_oom_retries_once, chain_tear_down);
  g_test_add ("/supervision/restarted-sink-keeps-file", Chain, NULL,
      chain_set_up, test_restarted_sink_keeps_file, chain_tear_down);
  g_test_add ("/supervision/stop-ends-stream", Chain, NULL, chain_set_up,
      test_stop_ends_stream, chain_tear_down);
  g_test_add ("/supervision/watchdog", Chain, NULL, chain_set_up, test_watchdog,
      chain_tear_down);
  g_test_add ("/supervision/watchdog-hung", Chain, NULL, chain_set_up,
      test_watchdog_hung, chain_tear_down);
  g_test_add ("/supervision/poisoned-context-escalates", Chain, NULL,
      chain_set_up, test_poisoned_context_escalates, chain_tear_down);
  g_test_add_func ("/supervision/escalation-drains", test_escalation_drains);
  g_test_add_func (
      "/supervision/escalation-drain-bounded", test_escalation_drain_bounded);
  g_test_add_func ("/supervision/escalation-drain-wait-timeout",
      test_escalation_drain_wait_timeout);
  g_test_add ("/supervision/fault-spec", Chain, NULL, chain_set_up,
      test_fault_spec, chain_tear_down);
  g_test_add_func ("/supervision/commit-log", test_commit_log);
  g_test_add_func (
      "/supervision/render-fault-supervised", test_render_fault_supervised);
  g_test_add_func (
      "/supervision/other-domain-escalates", test_other_domain_escalates);
  g_test_add_func (
      "/supervision/checkpoint-not-saved", test_checkpoint_not_saved);
  g_test_add_func (
      "/supervision/commit-log-short-write", test_commit_log_short_write);
  g_test_add_func (
      "/supervision/commit-log-deep-state-dir", test_commit_log_deep_state_dir);
  g_test_add_func ("/supervision/commit-log-forget", test_commit_log_forget);
  g_test_add_func ("/supervision/commit-log-bounded", test_commit_log_bounded);
  g_test_add_func ("/supervision/state-fingerprint", test_state_fingerprint);
  g_test_add_func (
      "/supervision/state-fingerprint-small", test_state_fingerprint_small);

  g_test_add_func (
      "/supervision/crash-resume-exactly-once", test_crash_resume_exactly_once);
  g_test_add_func ("/supervision/notes-per-start", test_notes_per_start);
  g_test_add_func (
      "/supervisor/restarts-workers", test_supervisor_restarts_workers);
  g_test_add_func ("/supervisor/gives-up", test_supervisor_gives_up);
  g_test_add_func ("/supervisor/gives-up-without-progress",
      test_supervisor_gives_up_without_progress);
  g_test_add_func ("/supervisor/incomplete-worker-not-restarted",
      test_supervisor_incomplete_worker);
  g_test_add_func (
      "/supervisor/killed-takes-worker", test_supervisor_killed_takes_worker);
  g_test_add_func ("/supervisor/interrupt-is-the-workers",
      test_supervisor_interrupt_is_the_workers);
  g_test_add_func (
      "/supervisor/passes-interrupt-on", test_supervisor_passes_interrupt_on);
  g_test_add_func (
      "/supervisor/counts-lost-frames", test_supervisor_counts_lost_frames);
  g_test_add_func (
      "/supervisor/restores-checkpoints", test_supervisor_restores_checkpoints);
  g_test_add ("/supervision/soak", Chain, NULL, chain_set_up, test_soak,
      chain_tear_down);
  return g_test_run ();
}
