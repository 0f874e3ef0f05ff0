/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bad input to the public API: a critical for misuse, a GError naming the
 * stage for a bad pipeline, never a crash */
#include "accel-test.h"

#include <math.h>
#include <string.h>
#include <sys/resource.h>

/* a shape whose f32 size is 2^64 bytes: wraps to 0 without a check */
#define WRAPPING_SHAPE "65536x65536x65536x16384"

static void
test_stage_new_null_kind (void)
{
  if (g_test_subprocess ())
    {
      accel_stage_new (NULL, "x", NULL);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*CRITICAL*accel_stage_new*kind_name != NULL*");
}

/* a tensor dimension below 0 that is not ACCEL_DIM_ANY: a critical, where
 * it was kept and printed as a wildcard */
static void
test_type_negative_dim (void)
{
  if (g_test_subprocess ())
    {
      const gint64 dims[] = { 4, -5 };
      AccelType t;

      accel_type_init_tensor (
          &t, ACCEL_DTYPE_U8, ACCEL_MEMORY_HOST, G_N_ELEMENTS (dims), dims);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr (
      "*CRITICAL*accel_type_init_tensor*dims[i] >= 0 || dims[i] == "
      "ACCEL_DIM_ANY*");
}

/* a stage's counters and ports, given no stage or no direction: a
 * critical, where they read through a null pointer */
static void
test_stage_getters_invalid (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr (AccelGraph) graph = accel_graph_new ("g");
      AccelStage *src = accel_test_stage (graph, "core.test-source", "src");

      g_assert_cmpuint (accel_stage_get_n_processed (NULL), ==, 0);
      g_assert_null (accel_stage_get_port (src, (AccelPortDirection)7, 0));
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*CRITICAL*read_counter*ACCEL_IS_STAGE*");
}

/* public calls given no stage, class, log or data: each a critical
 * naming its check, where each read through a null pointer */
typedef struct
{
  const char *path, *says;
  void (*call) (void);
} NullCall;

static void
null_latency (void)
{
  gint64 p50, p99;

  accel_stage_get_latency (NULL, &p50, &p99);
}

static void
null_n_inputs (void)
{
  accel_stage_get_n_inputs (NULL);
}

static void
null_n_outputs (void)
{
  accel_stage_get_n_outputs (NULL);
}

static void
null_find_port (void)
{
  accel_stage_find_port (NULL, ACCEL_PORT_INPUT, "in");
}

static void
null_commit_log (void)
{
  accel_stage_get_commit_log (NULL);
}

static void
null_is_live (void)
{
  accel_stage_is_live (NULL);
}

static void
null_refuses_param (void)
{
  accel_stage_refuses_param (NULL, NULL);
}

static void
null_kind_name (void)
{
  accel_stage_class_get_kind_name (NULL);
}

static void
null_digest (void)
{
  accel_digest_bytes (0, NULL, 5);
}

static void
null_log_commit (void)
{
  accel_commit_log_commit (NULL, 1, NULL);
}

static void
bad_backend (void)
{
  accel_backend_set_default ((AccelBackend)99, NULL);
}

static const NullCall null_calls[] = {
  { "latency", "*CRITICAL*accel_stage_get_latency*ACCEL_IS_STAGE*",
      null_latency },
  { "n-inputs", "*CRITICAL*accel_stage_get_n_inputs*ACCEL_IS_STAGE*",
      null_n_inputs },
  { "n-outputs", "*CRITICAL*accel_stage_get_n_outputs*ACCEL_IS_STAGE*",
      null_n_outputs },
  { "find-port", "*CRITICAL*accel_stage_find_port*ACCEL_IS_STAGE*",
      null_find_port },
  { "commit-log", "*CRITICAL*accel_stage_get_commit_log*ACCEL_IS_STAGE*",
      null_commit_log },
  { "is-live", "*CRITICAL*accel_stage_is_live*ACCEL_IS_STAGE*", null_is_live },
  { "refuses-param", "*CRITICAL*accel_stage_refuses_param*ACCEL_IS_STAGE*",
      null_refuses_param },
  { "kind-name",
      "*CRITICAL*accel_stage_class_get_kind_name*ACCEL_IS_STAGE_CLASS*",
      null_kind_name },
  { "digest", "*CRITICAL*accel_digest_bytes*data != NULL*", null_digest },
  { "log-commit", "*CRITICAL*accel_commit_log_commit*log != NULL*",
      null_log_commit },
  /* taken, and graphs then ran on the host without a word */
  { "backend", "*CRITICAL*accel_backend_set_default*ACCEL_BACKEND_HOST*",
      bad_backend },
};

static void
test_null_call (gconstpointer data)
{
  const NullCall *c = data;

  if (g_test_subprocess ())
    {
      c->call ();
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr (c->says);
}

/* a value of no enum member: a critical, where the graph took it and ran */
static void
test_graph_modes_invalid (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr (AccelGraph) graph = accel_graph_new ("g");

      accel_graph_set_stream_policy (graph, (AccelStreamPolicy)99, 1);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr (
      "*CRITICAL*accel_graph_set_stream_policy*ACCEL_STREAM_POLICY_POOLED*");
}

static void
test_link_null_ends (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr (AccelGraph) graph = accel_graph_new ("g");
      accel_test_stage (graph, "core.test-source", "src");
      accel_graph_link (graph, NULL, "src", NULL);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*CRITICAL*accel_graph_link*src != NULL*");
}

static void
test_link_ports_null_stage (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr (AccelGraph) graph = accel_graph_new ("g");
      AccelStage *sink = accel_test_stage (graph, "core.null-sink", "sink");
      accel_graph_link_ports (graph, NULL, NULL, sink, NULL, NULL);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr (
      "*CRITICAL*accel_graph_link_ports*ACCEL_IS_STAGE (src)*");
}

static void
test_add_null_stage (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr (AccelGraph) graph = accel_graph_new ("g");
      accel_graph_add (graph, NULL, NULL);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*CRITICAL*accel_graph_add*ACCEL_IS_STAGE*");
}

static void
test_link_stage_not_added (void)
{
  g_autoptr (AccelGraph) graph = accel_graph_new ("g");
  g_autoptr (AccelStage) stray
      = accel_stage_new ("core.null-sink", "stray", NULL);
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (graph, "core.test-source", "src");

  g_assert_false (
      accel_graph_link_ports (graph, src, NULL, stray, NULL, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (error->message, ==,
      "stage 'stray' (core.null-sink) is not in graph 'g': add it before "
      "linking it");
}

static void
test_stage_in_two_graphs (void)
{
  g_autoptr (AccelGraph) a = accel_graph_new ("a");
  g_autoptr (AccelGraph) b = accel_graph_new ("b");
  g_autoptr (AccelGraph) c = NULL;
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (a, "core.test-source", "src");

  g_assert_false (accel_graph_add (b, src, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (error->message, ==,
      "stage 'src' (core.test-source) is already in graph 'a': a stage "
      "belongs to one graph");
  g_clear_error (&error);

  /* once its graph is gone the stage may join another */
  g_object_ref (src);
  g_clear_object (&a);
  c = accel_graph_new ("c");
  g_assert_true (accel_graph_add (c, src, &error));
  g_assert_no_error (error);
  g_object_unref (src);
}

/* a name with '/' put a sink's files outside the state directory
 * ("../../escaped.commits"); one with '.' could not be linked by name */
static void
test_stage_name_refused (void)
{
  const char *const names[] = { "../../escaped", "a.b", "" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr (AccelGraph) graph = accel_graph_new ("names");
      g_autoptr (AccelStage) sink
          = accel_stage_new ("core.null-sink", names[i], NULL);
      g_autoptr (GError) error = NULL;
      g_autofree gchar *want = g_strdup_printf (
          "stage '%s' (core.null-sink): a stage's name is not empty and "
          "holds no '.' (links name ports as stage.port) and no '/' (its "
          "files in a state directory are named after it)",
          names[i]);

      g_assert_false (accel_graph_add (graph, sink, &error));
      g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
      g_assert_cmpstr (error->message, ==, want);
    }
}

static void
test_param_async_invalid (void)
{
  g_autoptr (AccelGraph) graph = accel_graph_new ("params");
  g_autoptr (GError) error = NULL;
  g_auto (GValue) v = G_VALUE_INIT;
  AccelStage *src = accel_test_stage (graph, "core.test-source", "src");
  AccelStage *scale = accel_test_stage (graph, "core.scale", "scale");
  guint64 spin = 1;

  accel_test_stage (graph, "core.null-sink", "sink");
  g_object_set (src, "shape", "64", NULL);
  g_assert_true (accel_graph_link (graph, "src", "scale", &error));
  g_assert_true (accel_graph_link (graph, "scale", "sink", &error));
  g_assert_true (accel_graph_start (graph, &error));
  g_assert_no_error (error);

  /* spin-ns goes to 1e10: out of range, refused before it is posted */
  g_value_init (&v, G_TYPE_UINT64);
  g_value_set_uint64 (&v, G_GUINT64_CONSTANT (20000000000));
  g_assert_false (accel_stage_set_param_async (scale, "spin-ns", &v));
  g_value_unset (&v);
  /* a string does not convert to a float; each refusal says why (a
   * caller handed only the FALSE, Python, had to guess) */
  g_value_init (&v, G_TYPE_STRING);
  g_value_set_string (&v, "fast");
  g_test_expect_message ("accel-stage", G_LOG_LEVEL_MESSAGE,
      "stage 'scale' (core.scale): set_param_async: 'scale' takes no "
      "gchararray \"fast\": it takes a gfloat");
  g_assert_false (accel_stage_set_param_async (scale, "scale", &v));
  g_test_expect_message ("accel-stage", G_LOG_LEVEL_MESSAGE,
      "stage 'scale' (core.scale): set_param_async: has no parameter "
      "'sclae'");
  g_assert_false (accel_stage_set_param_async (scale, "sclae", &v));
  g_test_assert_expected_messages ();
  /* an enum by its nick, as YAML writes it */
  g_value_set_string (&v, "resume");
  g_assert_true (accel_stage_set_param_async (scale, "on-fault", &v));
  g_value_unset (&v);
  /* a real into an integer only as a whole number it holds: a C cast
   * made NaN 0 and 2.5 2 */
  g_value_init (&v, G_TYPE_DOUBLE);
  for (guint i = 0; i < 5; i++)
    {
      const double refused[] = { NAN, INFINITY, 2.5, -1, 5e19 };
      g_value_set_double (&v, refused[i]);
      g_assert_false (accel_stage_set_param_async (scale, "spin-ns", &v));
    }
  g_value_unset (&v);
  /* nor a negative integer into an unsigned one, whose whole range
   * 4294967295 is in: a cast and a cast back gave -1 again */
  g_value_init (&v, G_TYPE_INT64);
  g_value_set_int64 (&v, -1);
  g_assert_false (accel_stage_set_param_async (scale, "spin-ns", &v));
  g_assert_false (accel_stage_set_param_async (scale, "snapshot-interval", &v));
  g_value_unset (&v);
  g_value_init (&v, G_TYPE_INT);
  g_value_set_int (&v, -1);
  g_assert_false (accel_stage_set_param_async (scale, "snapshot-interval", &v));
  g_value_unset (&v);
  /* the stage's own parameters that its start sized: a renamed stage
   * freed the name that metrics read on other threads */
  g_value_init (&v, G_TYPE_STRING);
  g_value_set_string (&v, "renamed");
  g_assert_false (accel_stage_set_param_async (scale, "name", &v));
  g_assert_false (accel_stage_set_param_async (scale, "thread", &v));
  g_assert_cmpstr (accel_stage_get_name (scale), ==, "scale");
  g_value_unset (&v);
  /* a value that converts is taken */
  g_value_init (&v, G_TYPE_INT);
  g_value_set_int (&v, 0);
  g_assert_true (accel_stage_set_param_async (scale, "spin-ns", &v));
  /* applied between two frames: poll, with a bound far above a frame */
  for (gint64 until = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
       spin != 0 && g_get_monotonic_time () < until;)
    {
      g_object_get (scale, "spin-ns", &spin, NULL);
      g_usleep (1000);
    }
  g_assert_cmpuint (spin, ==, 0);
  accel_graph_stop (graph);
}

/* src (core.test-source, shape @shape, @n_buffers frames, -1 endless) ->
 * sink (core.null-sink) in @graph; returns src */
static AccelStage *
add_src_to_sink (AccelGraph *graph, const char *shape, gint64 n_buffers)
{
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (graph, "core.test-source", "src");

  accel_test_stage (graph, "core.null-sink", "sink");
  g_object_set (src, "shape", shape, "num-buffers", n_buffers, NULL);
  g_assert_true (accel_graph_link (graph, "src", "sink", &error));
  return src;
}

/* another device for a prepared graph, whose stages are placed: a
 * critical (it was taken and read back, and the graph ran on the first) */
static void
test_device_after_prepare (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr (AccelGraph) graph = accel_graph_new ("placed");
      g_autoptr (GError) error = NULL;

      add_src_to_sink (graph, "4", 3);
      g_assert_true (accel_graph_prepare (graph, &error));
      /* what it was given: nothing changes */
      accel_graph_set_device (graph, NULL);
      accel_graph_set_device (graph, accel_device_get_host ());
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr (
      "*CRITICAL*accel_graph_set_device*GRAPH_NEW*device == graph->device*");
}

/* a call the graph's state does not allow fails with an error that says
 * why, where a critical left the caller's error unset (and a program that
 * read it crashed) */
static void
test_calls_out_of_order (void)
{
  g_autoptr (AccelGraph) graph = accel_graph_new ("order");
  g_autoptr (AccelStage) late
      = accel_stage_new ("core.null-sink", "late", NULL);
  g_autoptr (GError) error = NULL;

  add_src_to_sink (graph, "4", 3);
  g_assert_false (accel_graph_wait (graph, 0, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED);
  g_assert_cmpstr (error->message, ==,
      "graph 'order' is not prepared: a wait needs it started "
      "(accel_graph_start)");
  g_clear_error (&error);

  g_assert_true (accel_graph_prepare (graph, &error));
  g_assert_false (accel_graph_add (graph, late, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED);
  g_assert_cmpstr (error->message, ==,
      "graph 'order' is prepared: stages are added before it is prepared");
  g_clear_error (&error);
  g_assert_false (accel_graph_link (graph, "src", "sink", &error));
  g_assert_cmpstr (error->message, ==,
      "graph 'order' is prepared: stages are linked before it is prepared");
  g_clear_error (&error);

  g_assert_true (accel_graph_start (graph, &error));
  g_assert_false (accel_graph_start (graph, &error));
  g_assert_cmpstr (
      error->message, ==, "graph 'order' is running: it is started once");
  g_clear_error (&error);
  g_assert_false (accel_graph_prepare (graph, &error));
  g_assert_cmpstr (error->message, ==,
      "graph 'order' is running: it was prepared as it started");
  g_clear_error (&error);
  g_assert_true (accel_graph_wait (graph, -1, &error));
  accel_graph_stop (graph);
  /* stopped, it is prepared for a run again */
  g_assert_true (accel_graph_prepare (graph, &error));
  g_assert_no_error (error);
}

/* a stage renamed after it was added is checked again as the graph is
 * prepared: "../../evil" wrote its commit log outside the state directory,
 * and two stages of one name shared one */
static void
test_stage_renamed_after_add (void)
{
  const char *const names[] = { "../../evil", "a.b", "", "sink" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr (AccelGraph) graph = accel_graph_new ("renamed");
      g_autoptr (GError) error = NULL;
      AccelStage *other = accel_test_stage (graph, "core.null-sink", "other");

      add_src_to_sink (graph, "4", 1);
      g_assert_true (accel_graph_link (graph, "src", "other", &error));
      g_object_set (other, "name", names[i], NULL);
      g_assert_false (accel_graph_prepare (graph, &error));
      g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
      g_test_message ("%s: %s", names[i], error->message);
      g_assert_nonnull (strstr (error->message,
          i == 3 ? "has two stages named 'sink'" : "a stage's name is not"));
    }
}

/* a stage added twice is refused as it is, where its second add numbered
 * it anew (null-sink1) and named that in the error */
static void
test_stage_added_twice (void)
{
  g_autoptr (AccelGraph) graph = accel_graph_new ("twice");
  g_autoptr (AccelStage) sink = accel_stage_new ("core.null-sink", NULL, NULL);
  g_autoptr (GError) error = NULL;

  g_assert_true (accel_graph_add (graph, sink, &error));
  g_assert_cmpstr (accel_stage_get_name (sink), ==, "null-sink0");
  g_assert_false (accel_graph_add (graph, sink, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (error->message, ==,
      "stage 'null-sink0' (core.null-sink) is already in graph 'twice'");
  g_assert_cmpstr (accel_stage_get_name (sink), ==, "null-sink0");
  g_clear_error (&error);
  /* "" named no stage as "(null)" */
  g_assert_false (accel_graph_link (graph, "", "null-sink0", &error));
  g_assert_cmpstr (error->message, ==, "graph 'twice' has no stage named ''");
}

static gpointer
run_graph (gpointer graph)
{
  g_autoptr (GError) error = NULL;

  /* stopped from elsewhere: %ACCEL_ERROR_STOPPED */
  g_assert_false (accel_graph_run (graph, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED);
  return NULL;
}

/* accel_graph_stop () from another thread while accel_graph_run () waits,
 * as accel_graph_wait () invites: run's own stop then ran beside it, and
 * both joined the stages (SIGSEGV in accel_stage_join ()) */
static void
test_stop_while_run_elsewhere (void)
{
  for (guint i = 0; i < 40; i++)
    {
      g_autoptr (AccelGraph) graph = accel_graph_new ("elsewhere");
      g_autoptr (GError) error = NULL;
      AccelStage *sink;
      GThread *runner;

      add_src_to_sink (graph, "16", -1);
      sink = accel_graph_get_stage (graph, "sink");
      g_assert_true (accel_graph_prepare (graph, &error));
      runner = g_thread_new ("run", run_graph, graph);
      /* running: a stop before the start would find nothing to stop, and
       * the endless source would run on */
      while (accel_stage_get_n_processed (sink) == 0)
        g_usleep (100);
      g_usleep (500 * (i % 8));
      accel_graph_stop (graph);
      accel_graph_stop (graph);
      g_thread_join (runner);
    }
}

/* a step of a graph that is not stepped is an error, not only a critical
 * that left the error unset */
static void
test_step_not_stepped (void)
{
  g_autoptr (AccelGraph) graph = accel_graph_new ("plain");
  g_autoptr (GError) error = NULL;

  add_src_to_sink (graph, "4", 2);
  g_assert_true (accel_graph_start (graph, &error));
  g_assert_false (accel_graph_step (graph, -1, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED);
  g_assert_cmpstr (error->message, ==,
      "graph 'plain' is running: a step needs a stepped graph "
      "(accel_graph_set_stepped)");
  g_clear_error (&error);
  /* a setting the running graph read as it started: a critical, as
   * accel_graph_set_stepped () gives, where it was taken without a word */
  g_test_expect_message (
      "accel-graph", G_LOG_LEVEL_CRITICAL, "*graph->state != GRAPH_RUNNING*");
  accel_graph_set_frame_limit (graph, 1);
  g_test_assert_expected_messages ();
  g_assert_true (accel_graph_wait (graph, G_MAXINT64, &error));
  accel_graph_stop (graph);
}

/* a stepped graph stepped once stopped: %ACCEL_ERROR_STOPPED, as
 * documented, where a critical left the error unset */
static void
test_step_after_stop (void)
{
  g_autoptr (AccelGraph) graph = accel_graph_new ("stepped");
  g_autoptr (GError) error = NULL;

  add_src_to_sink (graph, "4", -1);
  accel_graph_set_stepped (graph, TRUE);
  g_assert_true (accel_graph_start (graph, &error));
  g_assert_true (accel_graph_step (graph, 30 * G_USEC_PER_SEC, &error));
  accel_graph_stop (graph);
  g_assert_false (accel_graph_step (graph, 0, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED);
}

/* a stepped graph run: refused (its steps come from the thread the run
 * blocked, which waited for good) */
static void
test_run_stepped (void)
{
  g_autoptr (AccelGraph) graph = accel_graph_new ("stepped");
  g_autoptr (GError) error = NULL;

  add_src_to_sink (graph, "4", 3);
  accel_graph_set_stepped (graph, TRUE);
  g_assert_false (accel_graph_run (graph, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "is stepped"));
}

/* a push into the full queue and a pull from the empty one of a graph
 * never started give up once the graph is finalized (they waited for
 * good: nothing would start it) */
static gpointer
push_until_refused (gpointer data)
{
  AccelStage *src = data;
  g_autoptr (GError) error = NULL;
  gint64 dims[1] = { 4 };
  AccelType type;
  gboolean ok = TRUE;

  accel_type_init_tensor (&type, ACCEL_DTYPE_F32, ACCEL_MEMORY_HOST, 1, dims);
  for (guint i = 0; ok; i++)
    {
      g_autoptr (AccelBuffer) buf
          = accel_buffer_new (accel_device_get_host (), &type, &error);

      g_assert_no_error (error);
      g_signal_emit_by_name (src, "push-buffer", buf, &error, &ok);
      g_assert_cmpuint (i, <=, 4);
    }
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED);
  g_assert_nonnull (strstr (error->message, "finalized"));
  return NULL;
}

static gpointer
pull_forever (gpointer data)
{
  AccelBuffer *buf = NULL;

  g_signal_emit_by_name (data, "pull-buffer", (gint64)-1, &buf);
  g_assert_null (buf);
  return NULL;
}

static void
test_wait_outlives_graph (void)
{
  AccelGraph *graph = accel_graph_new ("never");
  AccelStage *src = accel_test_stage (graph, "io.app-source", "src");
  AccelStage *sink = accel_test_stage (graph, "io.app-sink", "sink");
  GThread *pusher, *puller;

  g_object_set (src, "shape", "4", "dtype", "f32", "max-buffers", 4u, NULL);
  g_object_ref (src);
  g_object_ref (sink);
  pusher = g_thread_new ("push", push_until_refused, src);
  puller = g_thread_new ("pull", pull_forever, sink);
  g_usleep (200 * G_TIME_SPAN_MILLISECOND);
  g_object_unref (graph);
  g_thread_join (pusher);
  g_thread_join (puller);
  g_object_unref (src);
  g_object_unref (sink);
}

/* a stage kept after its graph is gone joins another as a new one: its
 * fixed parameters change again before the new graph is prepared, and a
 * sink no longer measures its latency against the old graph's source (a
 * pointer to it was kept: freed memory read on every frame) */
static void
test_stage_joins_new_graph (void)
{
  g_autoptr (AccelStage) sink
      = accel_stage_new ("core.null-sink", "sink", NULL);
  g_autoptr (AccelStage) scale = accel_stage_new ("core.scale", "k", NULL);
  g_autoptr (GError) error = NULL;

  for (guint run = 0; run < 2; run++)
    {
      g_autoptr (AccelGraph) graph = accel_graph_new ("again");
      AccelStage *src = accel_test_stage (graph, "core.test-source", "src");
      g_autofree gchar *thread = NULL;

      g_object_set (src, "shape", "4", "num-buffers", (gint64)40, NULL);
      /* fixed once the last graph was prepared, free again now */

      g_object_set (scale, "thread", run ? "t" : "", NULL);
      g_object_get (scale, "thread", &thread, NULL);
      g_assert_cmpstr (thread, ==, run ? "t" : "");
      g_assert_true (accel_graph_add (graph, scale, &error));
      g_assert_true (accel_graph_add (graph, sink, &error));
      g_assert_true (accel_graph_link (graph, "src", "k", &error));
      g_assert_true (accel_graph_link (graph, "k", "sink", &error));
      g_assert_true (accel_graph_run (graph, &error));
      g_assert_no_error (error);
    }
}

/* a chain of @n stages, prepared */
static AccelGraph *
prepared_chain (guint n)
{
  AccelGraph *graph = accel_graph_new ("chain");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (graph, "core.test-source", "s0");

  g_object_set (src, "shape", "4", NULL);
  for (guint i = 1; i < n; i++)
    {
      g_autofree gchar *name = g_strdup_printf ("s%u", i);
      g_autofree gchar *prev = g_strdup_printf ("s%u", i - 1);
      accel_test_stage (
          graph, i + 1 < n ? "core.scale" : "core.null-sink", name);
      g_assert_true (accel_graph_link (graph, prev, name, &error));
    }
  g_assert_true (accel_graph_prepare (graph, &error));
  g_assert_no_error (error);
  return graph;
}

/* graphs prepared first and started after: each counted the descriptors
 * its threads need against what was open at its prepare, so the last
 * starts ran out of them and GLib aborted the process ("Creating pipes
 * for GWakeup: Too many open files"); a start counts again and raises
 * the limit */
static void
test_descriptors_counted_at_start (void)
{
  struct rlimit lim;

  g_assert_cmpint (getrlimit (RLIMIT_NOFILE, &lim), ==, 0);
  if (lim.rlim_max != RLIM_INFINITY && lim.rlim_max < 2048)
    {
      g_test_skip ("the hard limit of open files is under 2048");
      return;
    }
  if (g_test_subprocess ())
    {
      g_autoptr (GPtrArray) graphs
          = g_ptr_array_new_with_free_func (g_object_unref);
      g_autoptr (GError) error = NULL;

      lim.rlim_cur = 256;
      g_assert_cmpint (setrlimit (RLIMIT_NOFILE, &lim), ==, 0);
      for (guint i = 0; i < 4; i++)
        g_ptr_array_add (graphs, prepared_chain (100));
      for (guint i = 0; i < graphs->len; i++)
        {
          g_assert_true (accel_graph_start (graphs->pdata[i], &error));
          g_assert_no_error (error);
        }
      for (guint i = 0; i < graphs->len; i++)
        accel_graph_stop (graphs->pdata[i]);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* a source of @kind with @prop set to @value, into a null sink: preparing
 * must fail naming the source */
static void
check_refused (const char *kind, const char *prop, const char *value,
    const char *dtype, const char *expected)
{
  g_autoptr (AccelGraph) graph = accel_graph_new ("huge");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (graph, kind, "src");

  accel_test_stage (graph, "core.null-sink", "sink");
  g_object_set (src, prop, value, NULL);
  if (dtype)
    g_object_set (src, "dtype", dtype, NULL);
  g_assert_true (accel_graph_link (graph, "src", "sink", &error));
  g_assert_false (accel_graph_prepare (graph, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (error->message, ==, expected);
}

static void
test_test_source_shape_overflows (void)
{
  check_refused ("core.test-source", "shape", WRAPPING_SHAPE, "f32",
      "stage 'src' (core.test-source): shape '" WRAPPING_SHAPE
      "' is too large: its size in bytes overflows");
}

static void
test_rand_shape_overflows (void)
{
  /* read as core.test-source's, so said as its */
  check_refused ("rand.uniform", "shape", WRAPPING_SHAPE, "f32",
      "stage 'src' (rand.uniform): shape '" WRAPPING_SHAPE
      "' is too large: its size in bytes overflows");
}

static void
test_raw_file_source_shape_overflows (void)
{
  g_autoptr (AccelGraph) graph = accel_graph_new ("huge");
  g_autoptr (GError) error = NULL;
  AccelStage *src = accel_test_stage (graph, "io.raw-file-source", "src");

  accel_test_stage (graph, "core.null-sink", "sink");
  g_object_set (src, "location", "/dev/null", "shape", WRAPPING_SHAPE, "dtype",
      "f32", NULL);
  g_assert_true (accel_graph_link (graph, "src", "sink", &error));
  g_assert_false (accel_graph_prepare (graph, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_nonnull (strstr (error->message, "stage 'src'"));
  g_assert_nonnull (strstr (error->message, "overflows"));
}

static void
test_dot_escapes_names (void)
{
  g_autoptr (AccelGraph) graph = accel_graph_new ("odd \"graph\"");
  g_autoptr (GError) error = NULL;
  g_autofree gchar *dot = NULL;
  g_auto (GStrv) lines = NULL;
  AccelStage *src
      = accel_test_stage (graph, "core.test-source", "say \"hi\"\\\nnow\t!");

  accel_test_stage (graph, "core.null-sink", "sink");
  g_object_set (src, "shape", "8", NULL);
  g_assert_true (accel_graph_link_ports (
      graph, src, NULL, accel_graph_get_stage (graph, "sink"), NULL, &error));
  g_assert_true (accel_graph_prepare (graph, &error));
  g_assert_no_error (error);

  dot = accel_graph_to_dot (graph);
  g_assert_true (g_str_has_prefix (dot, "digraph \"odd \\\"graph\\\"\" {\n"));
  g_assert_nonnull (strstr (dot,
      "\"say \\\"hi\\\"\\\\\\nnow !\" -> \"sink\" [label=\"out -> in\\n"
      "tensor<f32>[8]@device\"];\n"));
  /* every line a statement: no name broke one */
  lines = g_strsplit (dot, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      const char *l = lines[i];
      guint quotes = 0;
      if (!*l)
        continue;
      for (const char *p = l; *p; p++)
        {
          g_assert_false (g_ascii_iscntrl (*p));
          if (*p == '\\')
            p++;
          else if (*p == '"')
            quotes++;
        }
      g_assert_cmpuint (quotes % 2, ==, 0);
    }
}

static gpointer
start_in_thread (gpointer data)
{
  GError *error = NULL;

  accel_graph_start (data, &error);
  return error;
}

/* two threads that start one graph at once: one starts it, the other is
 * refused (both prepared it together: a crash, or a critical) */
static void
test_start_on_two_threads (void)
{
  for (guint round = 0; round < 40; round++)
    {
      g_autoptr (AccelGraph) graph = accel_graph_new ("twice");
      GError *errors[2];
      GThread *threads[2];

      add_src_to_sink (graph, "64", 2);
      for (guint i = 0; i < 2; i++)
        threads[i] = g_thread_new ("start", start_in_thread, graph);
      for (guint i = 0; i < 2; i++)
        errors[i] = g_thread_join (threads[i]);
      g_assert_true (!errors[0] != !errors[1]);
      for (guint i = 0; i < 2; i++)
        if (errors[i])
          {
            g_assert_true (
                g_str_equal (errors[i]->message,
                    "graph 'twice' is running: it is started once")
                || g_str_equal (errors[i]->message,
                    "graph 'twice' is being started on another thread: it "
                    "is started once"));
            g_clear_error (&errors[i]);
          }
      g_assert_true (accel_graph_wait (graph, -1, NULL));
      accel_graph_stop (graph);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/misuse/stage-new-null-kind", test_stage_new_null_kind);
  g_test_add_func ("/misuse/link-null-ends", test_link_null_ends);
  g_test_add_func ("/misuse/stage-getters-invalid", test_stage_getters_invalid);
  g_test_add_func ("/misuse/type-negative-dim", test_type_negative_dim);
  for (guint i = 0; i < G_N_ELEMENTS (null_calls); i++)
    {
      g_autofree gchar *path
          = g_strdup_printf ("/misuse/null/%s", null_calls[i].path);

      g_test_add_data_func (path, &null_calls[i], test_null_call);
    }
  g_test_add_func ("/misuse/graph-modes-invalid", test_graph_modes_invalid);
  g_test_add_func ("/misuse/device-after-prepare", test_device_after_prepare);
  g_test_add_func ("/misuse/link-ports-null-stage", test_link_ports_null_stage);
  g_test_add_func ("/misuse/add-null-stage", test_add_null_stage);
  g_test_add_func ("/misuse/link-stage-not-added", test_link_stage_not_added);
  g_test_add_func ("/misuse/stage-in-two-graphs", test_stage_in_two_graphs);
  g_test_add_func ("/misuse/stage-name-refused", test_stage_name_refused);
  g_test_add_func ("/misuse/param-async-invalid", test_param_async_invalid);
  g_test_add_func ("/misuse/calls-out-of-order", test_calls_out_of_order);
  g_test_add_func ("/misuse/start-on-two-threads", test_start_on_two_threads);
  g_test_add_func ("/misuse/step-after-stop", test_step_after_stop);
  g_test_add_func ("/misuse/step-not-stepped", test_step_not_stepped);
  g_test_add_func ("/misuse/run-stepped", test_run_stepped);
  g_test_add_func ("/misuse/wait-outlives-graph", test_wait_outlives_graph);
  g_test_add_func (
      "/misuse/stage-renamed-after-add", test_stage_renamed_after_add);
  g_test_add_func ("/misuse/stage-added-twice", test_stage_added_twice);
  g_test_add_func (
      "/misuse/stop-while-run-elsewhere", test_stop_while_run_elsewhere);
  g_test_add_func ("/misuse/stage-joins-new-graph", test_stage_joins_new_graph);
  g_test_add_func ("/misuse/descriptors-counted-at-start",
      test_descriptors_counted_at_start);
  g_test_add_func (
      "/overflow/test-source-shape", test_test_source_shape_overflows);
  g_test_add_func ("/overflow/rand-shape", test_rand_shape_overflows);
  g_test_add_func (
      "/overflow/raw-file-source-shape", test_raw_file_source_shape_overflows);
  g_test_add_func ("/dot/escapes-names", test_dot_escapes_names);
  return g_test_run ();
}
