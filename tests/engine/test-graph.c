/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* graphs: validation errors, end of stream through fan-out and fan-in,
 * stopping mid-stream, backpressure, stage errors */
#include "accel-test.h"
#include "json-test.h"
#include "test-stages.h"
#include "core/pattern.h"

#include <accelcore.h>

/* one test's graph, named by the test's data, and the stages it checks */
typedef struct
{
  const char *name;
  AccelGraph *graph;
  AccelGraph *other;      /* a second graph, for the tests that need one */
  AccelStage *src, *sink; /* the graph's, as the test names them */
  const char *thread;     /* when set, every stage runs on this one thread */
  GError *error;
  gint done; /* atomic: for tests with a thread of their own */
} GraphFixture;

static void
graph_set_up (GraphFixture *f, gconstpointer name)
{
  f->name = name;
  f->graph = accel_graph_new (name);
}

/* the same test with every stage on one shared thread */
static void
graph_set_up_one_thread (GraphFixture *f, gconstpointer name)
{
  graph_set_up (f, name);
  f->thread = "shared";
}

static void
graph_tear_down (GraphFixture *f, gconstpointer name)
{
  /* stopping a graph that is not running is harmless */
  accel_graph_stop (f->graph);
  g_clear_object (&f->graph);
  if (f->other)
    accel_graph_stop (f->other);
  g_clear_object (&f->other);
  g_clear_error (&f->error);
}

/* a fresh graph of the same name in place of the fixture's */
static void
graph_renew (GraphFixture *f)
{
  accel_graph_stop (f->graph);
  g_object_unref (f->graph);
  f->graph = accel_graph_new (f->name);
  f->src = f->sink = NULL;
}

static AccelStage *
add_to (GraphFixture *f, AccelGraph *g, const char *kind, const char *name)
{
  AccelStage *s = accel_test_stage (g, kind, name);

  if (f->thread)
    g_object_set (s, "thread", f->thread, NULL);
  return s;
}

static AccelStage *
add (GraphFixture *f, const char *kind, const char *name)
{
  return add_to (f, f->graph, kind, name);
}

static AccelStage *
source_to (GraphFixture *f, AccelGraph *g, const char *name, gint64 n,
    const char *shape)
{
  AccelStage *s = add_to (f, g, "core.test-source", name);

  g_object_set (s, "num-buffers", n, "shape", shape, NULL);
  return s;
}

static AccelStage *
source (GraphFixture *f, const char *name, gint64 n, const char *shape)
{
  return source_to (f, f->graph, name, n, shape);
}

static void
link_ok (AccelGraph *g, const char *a, const char *b)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (accel_graph_link (g, a, b, &error));
  g_assert_no_error (error);
}

static void
start_ok (GraphFixture *f)
{
  g_assert_true (accel_graph_start (f->graph, &f->error));
  g_assert_no_error (f->error);
}

/* starts the graph and waits up to @seconds for its end, without error */
static void
run_ok (GraphFixture *f, gint64 seconds)
{
  start_ok (f);
  g_assert_true (
      accel_graph_wait (f->graph, seconds * G_TIME_SPAN_SECOND, &f->error));
  g_assert_no_error (f->error);
}

/* a source's num-buffers ends its stream before a buffer is taken for the
 * frame past it: buffers of 16 EiB (2^31 x 2^31 floats), which no host
 * allocates, were taken to learn that no frame came, and the run failed */
static void
test_source_end_takes_no_buffer (GraphFixture *f, gconstpointer data)
{
  const char *huge = "2147483647x2147483647";
  AccelStage *noise = add (f, "rand.uniform", "noise");
  AccelStage *a, *b;

  source (f, "src", 0, huge);
  g_object_set (noise, "shape", huge, "num-buffers", (gint64)0, NULL);
  a = add (f, "core.null-sink", "a");
  b = add (f, "core.null-sink", "b");
  link_ok (f->graph, "src", "a");
  link_ok (f->graph, "noise", "b");
  g_assert_true (accel_graph_run (f->graph, &f->error));
  g_assert_no_error (f->error);
  g_assert_cmpuint (accel_stage_get_n_processed (a), ==, 0);
  g_assert_cmpuint (accel_stage_get_n_processed (b), ==, 0);
}

/* ... but with a frame to make it fails the graph at once: a size past all
 * the memory there is never fits, and is no out-of-memory to retry (no
 * message says it is made again) or restart for (it would restart until
 * it escalates, each frame counted as skipped) */
static void
test_output_larger_than_memory (GraphFixture *f, gconstpointer data)
{
  AccelStage *sink;

  source (f, "src", 1, "2147483647x2147483647");
  sink = add (f, "core.null-sink", "sink");
  link_ok (f->graph, "src", "sink");
  g_assert_false (accel_graph_run (f->graph, &f->error));
  g_assert_error (f->error, ACCEL_ERROR, ACCEL_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (
      strstr (f->error->message, "cannot allocate 18446744056529682436 bytes"));
  g_assert_nonnull (strstr (f->error->message, " memory: more than the "));
  g_assert_cmpuint (accel_stage_get_n_processed (sink), ==, 0);
}

/* a graph runs again, the same frames each time; its second start left
 * each stage's start cancellable behind (the test "graph-memcheck" runs
 * this under valgrind, where a leak fails it) */
static void
test_runs_again (GraphFixture *f, gconstpointer data)
{
  AccelStage *scale, *sink;

  source (f, "src", 5, "16");
  scale = add (f, "core.scale", "scale");
  sink = add (f, "core.null-sink", "sink");
  link_ok (f->graph, "src", "scale");
  link_ok (f->graph, "scale", "sink");
  for (guint run = 0; run < 3; run++)
    {
      g_assert_true (accel_graph_run (f->graph, &f->error));
      g_assert_no_error (f->error);
      g_assert_cmpuint (accel_stage_get_n_processed (scale), ==, 5);
      g_assert_cmpuint (accel_stage_get_n_processed (sink), ==, 5);
    }
}

static void
test_type_mismatch (GraphFixture *f, gconstpointer data)
{
  source (f, "numbers", 1, "16");
  add (f, "test.image-sink", "screen");
  link_ok (f->graph, "numbers", "screen");
  g_assert_false (accel_graph_prepare (f->graph, &f->error));
  g_assert_error (f->error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH);
  /* both stages, both ports, both types */
  g_assert_cmpstr (f->error->message, ==,
      "cannot link 'numbers.out' "
      "(core.test-source) to 'screen.frames' (test.image-sink): output type "
      "tensor<f32>[16]@device does not fit input type "
      "image<RGBA8>[?x?]@any: kind tensor is not image");
}

/* src -> mid -> sink, src on thread t1 and sink on @sink_thread */
static void
add_through_mid (GraphFixture *f, const char *sink_thread)
{
  g_object_set (source (f, "src", 64, "4"), "thread", "t1", NULL);
  add (f, "core.scale", "mid");
  g_object_set (add (f, "core.null-sink", "sink"), "thread", sink_thread, NULL);
  link_ok (f->graph, "src", "mid");
  link_ok (f->graph, "mid", "sink");
}

/* a thread that a path leaves and comes back to is refused, the path
 * named: a full mailbox on the way would stop it for good. The same path
 * ending on a thread of its own runs */
static void
test_thread_left_and_returned (GraphFixture *f, gconstpointer data)
{
  add_through_mid (f, "t1");
  g_assert_false (accel_graph_prepare (f->graph, &f->error));
  g_assert_error (f->error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (f->error->message, ==,
      "stages 'src' and 'sink' share thread 't1', but the path 'src' -> "
      "'mid' -> 'sink' leaves it and comes back: a full mailbox on the way "
      "would stop both for good; put the stages between them on 't1' too, "
      "or the two on threads of their own");
  g_clear_error (&f->error);

  graph_renew (f);
  add_through_mid (f, "t2");
  run_ok (f, 10);
}

/* src -> a -> pair.a and src -> b -> pair.b, a and b on thread x, src on
 * @src_thread and pair on @pair_thread (NULL: their own) */
static void
add_split_on_thread (
    GraphFixture *f, const char *src_thread, const char *pair_thread)
{
  g_object_set (source (f, "src", 64, "4"), "thread", src_thread, NULL);
  g_object_set (add (f, "core.scale", "a"), "thread", "x", NULL);
  g_object_set (add (f, "core.scale", "b"), "thread", "x", NULL);
  g_object_set (add (f, "test.pair-sink", "pair"), "thread", pair_thread, NULL);
  link_ok (f->graph, "src", "a");
  link_ok (f->graph, "src", "b");
  link_ok (f->graph, "a", "pair.a");
  link_ok (f->graph, "b", "pair.b");
}

/* two stages of one thread whose frames meet at a join off it: once the
 * join's mailbox from the first is full, the thread waits for room there
 * while the join waits for the second's frame, which only that thread
 * runs (it stopped after 4 frames, for good, and --validate passed it) */
static void
test_thread_split_and_joined (GraphFixture *f, gconstpointer data)
{
  add_split_on_thread (f, NULL, NULL);
  g_assert_false (accel_graph_prepare (f->graph, &f->error));
  g_assert_error (f->error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (f->error->message, ==,
      "stages 'a' and 'b' share thread 'x', and their frames meet at 'pair' "
      "off it: once the frames from 'a' fill the mailbox on their way, the "
      "thread waits for room there while 'pair' waits for a frame from 'b', "
      "which only that thread runs; put 'pair' on 'x' too, or the two on "
      "threads of their own");
  g_clear_error (&f->error);

  /* the join on the thread, or the frames coming into it at src, which
   * hands each to a and then b by calls before the next: both run */
  for (guint i = 0; i < 2; i++)
    {
      graph_renew (f);
      add_split_on_thread (f, i ? "x" : NULL, i ? NULL : "x");
      run_ok (f, 10);
    }
}

/* a -> sink and b -> pair.a, a and b on thread x; sink and c on thread
 * @y_thread, c -> pair.b: a's frames and b's meet at 'pair' through thread
 * y, which waits for room at 'pair' while x waits for room at 'sink' (it
 * stopped after 8 frames, for good, and --validate passed it); with sink
 * on a thread of its own, both run */
static void
test_thread_split_joined_through_thread (GraphFixture *f, gconstpointer data)
{
  for (guint i = 0; i < 2; i++)
    {
      const char *y = i == 0 ? "y" : NULL;

      if (i > 0)
        graph_renew (f);
      g_object_set (source (f, "a", 64, "4"), "thread", "x", NULL);
      g_object_set (source (f, "b", 64, "4"), "thread", "x", NULL);
      g_object_set (source (f, "c", 64, "4"), "thread", "y", NULL);
      g_object_set (add (f, "core.null-sink", "sink"), "thread", y, NULL);
      add (f, "test.pair-sink", "pair");
      link_ok (f->graph, "a", "sink");
      link_ok (f->graph, "b", "pair.a");
      link_ok (f->graph, "c", "pair.b");
      if (i > 0)
        {
          run_ok (f, 64);
          break;
        }
      g_assert_false (accel_graph_prepare (f->graph, &f->error));
      g_assert_error (f->error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
      g_assert_true (g_str_has_prefix (f->error->message,
          "stages 'a' and 'b' share thread 'x', and their frames meet at "
          "'pair' off it"));
      g_clear_error (&f->error);
    }
}

/* every stage on thread x, a frame of whose has to wait for a free
 * buffer off the thread: it waited in the pool, holding the thread, for
 * good (or to the pool's timeout, 10 s by default, losing the frame).
 * - "transform": src -> a -> pair.a and src -> b -> pair.b, a's pool one
 *   buffer that never times out, b skipping frame 2. Pair keeps a's frame
 *   2 until b's frame 3 shows it has no partner, and b makes that only
 *   once the thread has run a's frame 3, which needs that buffer.
 * - "source": src -> pair.a and src2 -> pair.b, src's pool so. Pair keeps
 *   src's frame 0 until src2 makes its own, which it does only once src's
 *   frame 1 has let the thread go */
static void
test_buffer_wait_on_shared_thread (GraphFixture *f, gconstpointer data)
{
  gboolean transform = g_str_equal (data, "transform");
  const char *waits = transform ? "a" : "src";
  g_autoptr (GArray) pairs = NULL;
  AccelStage *pair;

  f->thread = "x";
  source (f, "src", 64, "4");
  add (f, "test.pair-sink", "pair");
  if (transform)
    {
      add (f, "core.scale", "a");
      add (f, "core.scale", "b");
      link_ok (f->graph, "src", "a");
      link_ok (f->graph, "a", "pair.a");
      link_ok (f->graph, "src", "b");
      link_ok (f->graph, "b", "pair.b");
      g_object_set (accel_graph_get_stage (f->graph, "b"), "on-fault",
          ACCEL_SUPERVISION_RESUME, NULL);
      accel_fault_inject ("b", ACCEL_FAULT_INVALID_INPUT, 2);
    }
  else
    {
      source (f, "src2", 64, "4");
      link_ok (f->graph, "src", "pair.a");
      link_ok (f->graph, "src2", "pair.b");
    }
  g_object_set (accel_graph_get_stage (f->graph, waits), "pool-size", 1,
      "pool-timeout", (gint64)-1, NULL);
  run_ok (f, 20);
  pair = accel_graph_get_stage (f->graph, "pair");
  pairs = test_pair_sink_get_pairs (TEST_PAIR_SINK (pair));
  /* every frame (but the one skipped), each with its partner */
  g_assert_cmpuint (pairs->len, ==, 2 * (transform ? 63 : 64));
  for (guint i = 0; i < pairs->len; i += 2)
    g_assert_cmpuint (g_array_index (pairs, guint64, i), ==,
        g_array_index (pairs, guint64, i + 1));
  g_assert_cmpuint (
      accel_stage_get_n_skipped (accel_graph_get_stage (f->graph, waits)), ==,
      0);
}

/* src -> sc on thread x, -> out, sc's pool one buffer, out an app sink
 * that keeps what it is given until pulled: a frame of sc soon waits for
 * its buffer. Starts the graph and returns how many frames sc had done
 * then; the frame after them waits, and a parameter set to 2 is posted */
static guint64
start_with_param_posted (GraphFixture *f)
{
  AccelStage *src, *sc, *out;
  guint64 taken;

  f->thread = "x";
  src = source (f, "src", 6, "4");
  sc = add (f, "core.scale", "sc");
  out = add (f, "io.app-sink", "out");
  g_object_set (sc, "pool-size", 1, "pool-timeout", (gint64)-1, NULL);
  /* an app sink waits in its thread when full: one of its own */
  g_object_set (out, "max-buffers", 1, "thread", "", NULL);
  link_ok (f->graph, "src", "sc");
  link_ok (f->graph, "sc", "out");
  start_ok (f);
  /* out holds frame 0 and waits with frame 1; src hands each frame to sc
   * by a call: once it has made three, sc holds frame 2, which waits,
   * and takes none past it */
  accel_test_wait_processed (src, 3);
  taken = accel_stage_get_n_processed (sc);
  accel_test_set_param_async (sc, "scale", 2.0);
  return taken;
}

/* a parameter posted while a frame waits for its buffer applies after
 * that frame, which the stage took before it (it applied to it: the
 * frame's values came out scaled anew) */
static void
test_buffer_wait_param_after_frame (GraphFixture *f, gconstpointer data)
{
  guint64 taken = start_with_param_posted (f), n = 0;
  AccelStage *out = accel_graph_get_stage (f->graph, "out");
  gboolean scaled_anew = FALSE;
  AccelBuffer *buf;

  for (;;)
    {
      float first, values;

      g_signal_emit_by_name (
          out, "pull-buffer", (gint64)(10 * G_USEC_PER_SEC), &buf);
      if (!buf)
        break;
      /* the test source's frame s starts with 131 s mod 1021; frames up
       * to the one that waited are scaled by 1. The stage may have gone
       * on past it between the count and the post (its buffer came back
       * meanwhile): a frame or two more by 1, then every one by 2 */
      first = ((const float *)accel_buffer_get_data (buf))[0];
      values = (float)((131 * n) % 1021);
      scaled_anew |= n > taken && first == 2.0f * values && values != 0.0f;
      g_assert_cmpfloat (first, ==, values * (scaled_anew ? 2.0f : 1.0f));
      g_assert_cmpuint (accel_buffer_get_sequence (buf), ==, n);
      accel_buffer_unref (buf);
      n++;
    }
  g_assert_cmpuint (n, ==, 6);
  /* out held the rest back: the last frames came after the post */
  g_assert_true (scaled_anew);
  g_assert_true (
      accel_graph_wait (f->graph, 10 * G_TIME_SPAN_SECOND, &f->error));
  g_assert_no_error (f->error);
}

/* and is set when the graph stops first, as on a stage that waited in its
 * pool (it was dropped with the frame) */
static void
test_buffer_wait_param_at_stop (GraphFixture *f, gconstpointer data)
{
  gfloat scale = 0;

  start_with_param_posted (f);
  accel_graph_stop (f->graph);
  g_object_get (accel_graph_get_stage (f->graph, "sc"), "scale", &scale, NULL);
  g_assert_cmpfloat (scale, ==, 2.0f);
}

/* src -> pair.a and src -> b -> pair.b, src's pool one buffer that never
 * times out, b skipping frame 2; every stage on thread x, or each on one
 * of its own (@data "apart"). Pair kept src's frame 2 until b's frame 3 came,
 * which needed src's frame 3, which needed that very buffer: it waited for
 * good (to the pool's timeout by default, a second frame lost). Now b's
 * skip tells pair at once that frame 2 will not come */
static void
test_skip_tells_join (GraphFixture *f, gconstpointer data)
{
  g_autoptr (GArray) pairs = NULL;
  AccelStage *b;

  if (!g_str_equal (data, "apart"))
    f->thread = "x";
  source (f, "src", 64, "4");
  b = add (f, "core.scale", "b");
  add (f, "test.pair-sink", "pair");
  link_ok (f->graph, "src", "pair.a");
  link_ok (f->graph, "src", "b");
  link_ok (f->graph, "b", "pair.b");
  g_object_set (accel_graph_get_stage (f->graph, "src"), "pool-size", 1,
      "pool-timeout", (gint64)-1, NULL);
  g_object_set (b, "on-fault", ACCEL_SUPERVISION_RESUME, NULL);
  accel_fault_inject ("b", ACCEL_FAULT_INVALID_INPUT, 2);
  run_ok (f, 20);
  pairs = test_pair_sink_get_pairs (
      TEST_PAIR_SINK (accel_graph_get_stage (f->graph, "pair")));
  g_assert_cmpuint (pairs->len, ==, 2 * 63);
  for (guint i = 0; i < pairs->len; i += 2)
    {
      g_assert_cmpuint (g_array_index (pairs, guint64, i), ==,
          g_array_index (pairs, guint64, i + 1));
      g_assert_cmpuint (g_array_index (pairs, guint64, i), !=, 2);
    }
  g_assert_cmpuint (accel_stage_get_n_skipped (b), ==, 1);
}

/* joins in a row: the source s2 gives up its frame 2 (sources send no
 * gaps: their numbers are their own), so mix drops src's frame 2 as having
 * no partner. pair, below it, holds src's frame 2, src's only buffer,
 * until it learns that mix's frame 2 will not come: mix now says so. It
 * waited for good */
static void
test_join_drop_tells_join (GraphFixture *f, gconstpointer data)
{
  g_autoptr (GArray) pairs = NULL;
  AccelStage *src, *s2;

  f->thread = "x";
  src = source (f, "src", 40, "");
  s2 = source (f, "s2", 40, "");
  g_object_set (src, "format", "RGBA8", "width", 8, "height", 8, "pool-size", 1,
      "pool-timeout", (gint64)-1, NULL);
  g_object_set (s2, "format", "RGBA8", "width", 8, "height", 8, "on-fault",
      ACCEL_SUPERVISION_RESUME, NULL);
  add (f, "realtime.blend", "mix");
  add (f, "test.pair-sink", "pair");
  link_ok (f->graph, "src", "mix.a");
  link_ok (f->graph, "s2", "mix.b");
  link_ok (f->graph, "mix", "pair.a");
  link_ok (f->graph, "src", "pair.b");
  accel_fault_inject ("s2", ACCEL_FAULT_INVALID_INPUT, 2);
  run_ok (f, 20);
  pairs = test_pair_sink_get_pairs (
      TEST_PAIR_SINK (accel_graph_get_stage (f->graph, "pair")));
  for (guint i = 0; i < pairs->len; i += 2)
    {
      guint64 seq = g_array_index (pairs, guint64, i);
      g_assert_cmpuint (seq, ==, g_array_index (pairs, guint64, i + 1));
      g_assert_cmpuint (seq, !=, 2);
    }
  g_assert_cmpuint (pairs->len, >=, 2 * 38);
  g_assert_cmpuint (accel_stage_get_n_skipped (s2), ==, 1);
}

/* a stage of three outputs on thread x whose frame waits for a buffer of
 * its second output, held by an app sink no one pulls: the frame fails at
 * the pool's timeout (an earlier output's buffer restarted the wait at
 * each try, and it waited for good) */
static void
test_buffer_wait_times_out_on_any_output (GraphFixture *f, gconstpointer data)
{
  gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  AccelStage *an, *stats;

  f->thread = "x";
  g_object_set (source (f, "src", 50, ""), "format", "RGBA8", "width", 8,
      "height", 8, NULL);
  an = add (f, "realtime.analysis", "an");
  add (f, "core.null-sink", "img");
  stats = add (f, "io.app-sink", "stats");
  add (f, "core.null-sink", "hist");
  g_object_set (stats, "thread", "", NULL);
  g_object_set (an, "pool-size", 1, "pool-timeout", (gint64)200, "on-fault",
      ACCEL_SUPERVISION_STOP, NULL);
  g_object_set (stats, "max-buffers", 1, NULL);
  link_ok (f->graph, "src", "an");
  link_ok (f->graph, "an.out", "img");
  link_ok (f->graph, "an.stats", "stats");
  link_ok (f->graph, "an.histogram", "hist");
  start_ok (f);
  /* the frame that timed out is skipped, and the stage stops there */
  while (accel_stage_get_n_skipped (an) == 0 && g_get_monotonic_time () < end)
    g_usleep (1000);
  g_assert_cmpuint (accel_stage_get_n_skipped (an), ==, 1);
  g_assert_cmpuint (accel_stage_get_n_processed (an), <=, 2);
  accel_graph_stop (f->graph);
}

/* two chains crossing two named threads: s1 (io) -> x (compute) and
 * s2 (compute) -> y (io). No path leaves a thread and comes back, but
 * each thread waits in a push for the other; it was accepted and hung */
static void
test_threads_in_a_ring (GraphFixture *f, gconstpointer data)
{
  const char *const stages[][3] = {
    { "s1", "core.test-source", "io" },
    { "x", "core.scale", "compute" },
    { "k1", "core.null-sink", NULL },
    { "s2", "core.test-source", "compute" },
    { "y", "core.scale", "io" },
    { "k2", "core.null-sink", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (stages); i++)
    g_object_set (add (f, stages[i][1], stages[i][0]), "thread",
        stages[i][2] ? stages[i][2] : "", NULL);
  link_ok (f->graph, "s1", "x");
  link_ok (f->graph, "x", "k1");
  link_ok (f->graph, "s2", "y");
  link_ok (f->graph, "y", "k2");
  g_assert_false (accel_graph_prepare (f->graph, &f->error));
  g_assert_error (f->error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (f->error->message, ==,
      "threads wait on each other in a ring: 's1' (thread 'io') -> 'x' "
      "(thread 'compute'), 's2' (thread 'compute') -> 'y' (thread 'io'); "
      "with their mailboxes full each would wait for the next for good: put "
      "the stages of the ring on one thread, or on threads of their own");
}

static void
test_invalid_graphs (GraphFixture *f, gconstpointer data)
{
  AccelStage *dup;

  f->other = accel_graph_new ("empty");
  f->src = source (f, "src", 1, "4");
  add (f, "core.scale", "a");
  add (f, "core.scale", "b");
  f->sink = add (f, "core.null-sink", "sink");

  dup = accel_stage_new ("core.scale", "a", NULL);
  g_assert_false (accel_graph_add (f->graph, dup, &f->error));
  g_assert_cmpstr (
      f->error->message, ==, "graph 'invalid' already has a stage named 'a'");
  g_clear_error (&f->error);
  g_object_unref (dup);

  g_assert_false (accel_graph_link (f->graph, "src", "nowhere", &f->error));
  g_assert_cmpstr (
      f->error->message, ==, "graph 'invalid' has no stage named 'nowhere'");
  g_clear_error (&f->error);
  g_assert_false (accel_graph_link (f->graph, "src.bogus", "a", &f->error));
  g_assert_cmpstr (f->error->message, ==,
      "stage 'src' (core.test-source) has no output port 'bogus'");
  g_clear_error (&f->error);
  g_assert_false (accel_graph_link (f->graph, "sink", "a", &f->error));
  g_assert_cmpstr (f->error->message, ==,
      "stage 'sink' (core.null-sink) has no output ports");
  g_clear_error (&f->error);

  /* an input left unlinked */
  link_ok (f->graph, "src", "a");
  g_assert_false (accel_graph_prepare (f->graph, &f->error));
  g_assert_error (f->error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (
      f->error->message, ==, "input 'b.in' (core.scale) is not linked");
  g_clear_error (&f->error);

  g_assert_false (accel_graph_prepare (f->other, &f->error));
  g_assert_cmpstr (f->error->message, ==, "graph 'empty' has no stages");
}

static void
test_unlinked_and_cycle (GraphFixture *f, gconstpointer data)
{
  f->other = accel_graph_new ("loop");
  f->src = source (f, "src", 1, "4");
  f->sink = add (f, "core.null-sink", "sink");
  add (f, "test.pair-sink", "pair");
  link_ok (f->graph, "src", "sink");
  link_ok (f->graph, "src", "pair.a");
  g_assert_false (accel_graph_link (f->graph, "src", "pair.a", &f->error));
  g_assert_cmpstr (
      f->error->message, ==, "input 'pair.a' is already linked to 'src.out'");
  g_clear_error (&f->error);
  g_assert_false (accel_graph_prepare (f->graph, &f->error));
  g_assert_cmpstr (
      f->error->message, ==, "input 'pair.b' (test.pair-sink) is not linked");
  g_clear_error (&f->error);

  source_to (f, f->other, "src", 1, "4");
  add_to (f, f->other, "test.pair-sink", "join");
  add_to (f, f->other, "core.scale", "x");
  add_to (f, f->other, "core.scale", "y");
  link_ok (f->other, "src", "join.a");
  link_ok (f->other, "x", "y");
  link_ok (f->other, "y", "x");
  link_ok (f->other, "y", "join.b");
  g_assert_false (accel_graph_prepare (f->other, &f->error));
  g_assert_error (f->error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (
      f->error->message, ==, "graph 'loop' has a cycle through 'x', 'y'");
}

/* the digest a checksum sink computes, from the host references */
static gchar *
expected_digest (guint64 n, gsize len, gfloat scale, gfloat offset)
{
  g_autoptr (GChecksum) all = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree gfloat *a = g_new (gfloat, len), *b = g_new (gfloat, len);

  for (guint64 s = 0; s < n; s++)
    {
      g_autofree gchar *sum = NULL, *line = NULL;
      accel_pattern_fill_f32_host (a, len, s);
      accel_scale_f32_host (a, b, len, scale, offset);
      sum = g_compute_checksum_for_data (
          G_CHECKSUM_SHA256, (guchar *)b, len * sizeof (gfloat));
      line = g_strdup_printf ("%" G_GUINT64_FORMAT " %s\n", s, sum);
      g_checksum_update (all, (guchar *)line, -1);
    }
  return g_strdup (g_checksum_get_string (all));
}

static void
test_fan_out_fan_in_eos (GraphFixture *f, gconstpointer data)
{
  g_autoptr (GArray) pairs = NULL;
  g_autofree gchar *digest = NULL, *expected = NULL;
  AccelStage *pair;
  const guint64 n = 50;

  f->src = source (f, "src", (gint64)n, "1000");
  g_object_set (
      add (f, "core.scale", "twice"), "scale", 2.0f, "offset", 1.0f, NULL);
  add (f, "core.scale", "same");
  f->sink = add (f, "core.checksum-sink", "sum");
  pair = add (f, "test.pair-sink", "pair");
  link_ok (f->graph, "src", "twice");
  link_ok (f->graph, "src", "same");
  link_ok (f->graph, "twice", "sum");
  link_ok (f->graph, "twice", "pair.a");
  link_ok (f->graph, "same", "pair.b");

  g_assert_true (accel_graph_run (f->graph, &f->error));
  g_assert_no_error (f->error);

  pairs = test_pair_sink_get_pairs (TEST_PAIR_SINK (pair));
  g_assert_cmpuint (pairs->len, ==, 2 * n);
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpuint (g_array_index (pairs, guint64, 2 * i), ==, i);
      g_assert_cmpuint (g_array_index (pairs, guint64, 2 * i + 1), ==, i);
    }
  g_assert_cmpuint (accel_stage_get_n_dropped (pair), ==, 0);

  g_assert_cmpuint (accel_checksum_sink_get_n_received (f->sink), ==, n);
  digest = accel_checksum_sink_dup_digest (f->sink);
  expected = expected_digest (n, 1000, 2.0f, 1.0f);
  g_assert_cmpstr (digest, ==, expected);
}

/* a fan-in ends with its shortest input: an endless source there learns
 * that nothing more is taken and ends too, and a source that also feeds
 * another branch goes on with that one alone (as GStreamer's EOS returned
 * upstream) */
static void
test_fan_in_ends_with_shortest_in (GraphFixture *f, guint mailbox_size)
{
  g_autoptr (GArray) pairs = NULL;
  AccelStage *pair, *endless;
  const guint64 n = 40;

  source (f, "few", 5, "100");
  endless = source (f, "endless", -1, "100");
  f->src = source (f, "many", (gint64)n, "100");
  add (f, "core.scale", "mid");
  pair = add (f, "test.pair-sink", "pair");
  add (f, "test.pair-sink", "pair2");
  f->sink = add (f, "core.checksum-sink", "sum");
  if (mailbox_size > 0)
    for (const char *const *name = (const char *const[]){ "few", "endless",
             "many", "mid", "pair", "pair2", "sum", NULL };
         *name; name++)
      g_object_set (accel_graph_get_stage (f->graph, *name), "mailbox-size",
          mailbox_size, NULL);
  link_ok (f->graph, "few", "pair.a");
  link_ok (f->graph, "endless", "mid");
  link_ok (f->graph, "mid", "pair.b");
  /* many feeds pair2 (ended by few) and sum, which wants all of it */
  link_ok (f->graph, "few", "pair2.a");
  link_ok (f->graph, "many", "pair2.b");
  link_ok (f->graph, "many", "sum");

  g_assert_true (accel_graph_run (f->graph, &f->error));
  g_assert_no_error (f->error);

  pairs = test_pair_sink_get_pairs (TEST_PAIR_SINK (pair));
  g_assert_cmpuint (pairs->len, ==, 2 * 5);
  g_assert_cmpuint (accel_checksum_sink_get_n_received (f->sink), ==, n);
  /* the endless source stopped within a few frames of the end */
  g_assert_cmpuint (accel_stage_get_n_processed (endless), <, 5 + 64);
  /* many's frames past few's end found no partner: still counted once the
   * run stopped and the mailboxes are gone */
  g_test_message ("pair2 dropped %" G_GUINT64_FORMAT,
      accel_stage_get_n_dropped (accel_graph_get_stage (f->graph, "pair2")));
  g_assert_cmpuint (
      accel_stage_get_n_dropped (accel_graph_get_stage (f->graph, "pair2")), >,
      0);
}

static void
test_fan_in_ends_with_shortest (GraphFixture *f, gconstpointer data)
{
  test_fan_in_ends_with_shortest_in (f, 0);
}

/* the frames in flight in /stats.json's terms */
static guint64
frames_in_flight (AccelGraph *g)
{
  g_autofree gchar *json = accel_graph_metrics_to_json (g);
  const char *at = strstr (json, "\"frames_in_flight\": ");

  g_assert_nonnull (at);
  return g_ascii_strtoull (at + strlen ("\"frames_in_flight\": "), NULL, 10);
}

/* every frame of a sink past its first 8 (the warm-up) is an end-to-end
 * sample: the source notes when its frame began before handing it on (it
 * noted it after, so a sink on the source's thread found no origin and
 * the histogram stayed empty, and one on a thread of its own lost a
 * sample now and then) */
static void
test_end_to_end_samples (GraphFixture *f, gconstpointer data)
{
  g_autofree gchar *json = NULL;
  const char *at;

  source (f, "src", 500, "16");
  add (f, "core.scale", "mid");
  add (f, "core.null-sink", "out");
  link_ok (f->graph, "src", "mid");
  link_ok (f->graph, "mid", "out");
  run_ok (f, 60);
  json = accel_graph_metrics_to_json (f->graph);
  at = strstr (json, "\"end_to_end\": ");
  g_assert_nonnull (at);
  at = strstr (at, "\"count\": ");
  g_assert_nonnull (at);
  g_assert_cmpuint (
      g_ascii_strtoull (at + strlen ("\"count\": "), NULL, 10), ==, 500 - 8);
}

/* once @endless has made 2000 frames, what the running graph has in
 * flight is what its mailboxes and pools hold, not a count that grows;
 * then the graph stops */
static void
assert_few_in_flight (GraphFixture *f, AccelStage *endless)
{
  guint64 in_flight;

  accel_test_wait_processed (endless, 2000);
  in_flight = frames_in_flight (f->graph);
  g_test_message ("%" G_GUINT64_FORMAT " frames in flight", in_flight);
  g_assert_cmpuint (in_flight, <, 64);
  accel_graph_stop (f->graph);
}

/* each branch of a graph is held to its own sources: a short branch that
 * ended, beside an endless one, leaves nothing in flight but what the
 * endless one's mailboxes and pools hold (it was the endless source's count
 * less the short sink's, growing without end) */
static void
test_in_flight_per_branch (GraphFixture *f, gconstpointer data)
{
  AccelStage *endless, *short_sink;

  source (f, "few", 5, "16");
  endless = source (f, "many", -1, "16");
  short_sink = add (f, "core.null-sink", "few-out");
  add (f, "core.null-sink", "many-out");
  link_ok (f->graph, "few", "few-out");
  link_ok (f->graph, "many", "many-out");
  start_ok (f);
  accel_test_wait_processed (short_sink, 5);
  assert_few_in_flight (f, endless);
}

/* frames a stage withholds (ACCEL_FLOW_SKIP) never reach the sink: they
 * are not in flight (they were counted so, growing without end) */
static void
test_in_flight_withheld (GraphFixture *f, gconstpointer data)
{
  AccelStage *src, *k;

  src = source (f, "src", -1, "16");
  k = add (f, "test.failer", "k");
  add (f, "core.null-sink", "out");
  g_object_set (k, "on-fault", ACCEL_SUPERVISION_RESUME, NULL);
  link_ok (f->graph, "src", "k");
  link_ok (f->graph, "k", "out");
  start_ok (f);
  assert_few_in_flight (f, src);
}

/* a transform that withholds frame 1 (ACCEL_FLOW_SKIP) and passes the
 * others on, unwritten (nothing reads them) */
#define TEST_TYPE_HOLD (test_hold_get_type ())
G_DECLARE_FINAL_TYPE (TestHold, test_hold, TEST, HOLD, AccelStage)

struct _TestHold
{
  AccelStage parent;
};
G_DEFINE_FINAL_TYPE (TestHold, test_hold, ACCEL_TYPE_STAGE)

static AccelFlow
hold_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  return frame->sequence == 1 ? ACCEL_FLOW_SKIP : ACCEL_FLOW_OK;
}

static void
test_hold_class_init (TestHoldClass *klass)
{
  AccelStageClass *sc = ACCEL_STAGE_CLASS (klass);
  AccelType any;

  sc->process = hold_process;
  accel_type_init_any (&any);
  accel_stage_class_add_port (sc, ACCEL_PORT_INPUT, "in", &any, NULL);
  accel_stage_class_add_port (sc, ACCEL_PORT_OUTPUT, "out", &any, NULL);
}

static void
test_hold_init (TestHold *self)
{
}

/* a sink of two inputs whose first frame waits until the gate opens, so
 * that frames stay in flight for as long as the test reads them; it blocks
 * its thread, which on a GPU would otherwise be its producers' too */
#define TEST_TYPE_GATE (test_gate_get_type ())
G_DECLARE_FINAL_TYPE (TestGate, test_gate, TEST, GATE, AccelStage)

struct _TestGate
{
  AccelStage parent;
  GMutex lock;
  GCond cond;
  gboolean open;
};
G_DEFINE_FINAL_TYPE (TestGate, test_gate, ACCEL_TYPE_STAGE)

static AccelFlow
gate_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  TestGate *self = TEST_GATE (stage);

  g_mutex_lock (&self->lock);
  while (!self->open)
    g_cond_wait (&self->cond, &self->lock);
  g_mutex_unlock (&self->lock);
  return ACCEL_FLOW_OK;
}

static void
gate_open (TestGate *self)
{
  g_mutex_lock (&self->lock);
  self->open = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
}

static void
gate_finalize (GObject *object)
{
  TestGate *self = TEST_GATE (object);

  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  G_OBJECT_CLASS (test_gate_parent_class)->finalize (object);
}

static void
test_gate_class_init (TestGateClass *klass)
{
  AccelStageClass *sc = ACCEL_STAGE_CLASS (klass);
  AccelType any;

  G_OBJECT_CLASS (klass)->finalize = gate_finalize;
  sc->process = gate_process;
  accel_stage_class_set_blocking (sc, TRUE);
  accel_type_init_any (&any);
  accel_stage_class_add_port (sc, ACCEL_PORT_INPUT, "a", &any, NULL);
  accel_stage_class_add_port (sc, ACCEL_PORT_INPUT, "b", &any, NULL);
}

static void
test_gate_init (TestGate *self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
}

static AccelStage *
add_new (GraphFixture *f, GType type, const char *name)
{
  g_autoptr (AccelStage) stage = g_object_new (type, "name", name, NULL);

  g_assert_true (accel_graph_add (f->graph, stage, &f->error));
  g_assert_no_error (f->error);
  return stage;
}

/* the frames in flight of a sink behind a diamond, exactly: its own
 * source's frames (not those of the branch beside it) less the one
 * withheld above it, counted once though both of its inputs lead there */
static void
test_in_flight_diamond (GraphFixture *f, gconstpointer data)
{
  AccelStage *src, *hold, *other, *gate;

  src = source (f, "src", 4, "16");
  hold = add_new (f, TEST_TYPE_HOLD, "hold");
  gate = add_new (f, TEST_TYPE_GATE, "gate");
  source (f, "more", 8, "16");
  other = add (f, "core.null-sink", "other");
  link_ok (f->graph, "src", "hold");
  link_ok (f->graph, "hold", "gate.a");
  link_ok (f->graph, "hold", "gate.b");
  link_ok (f->graph, "more", "other");
  start_ok (f);
  /* the gate holds frame 0; frames 2 and 3 wait in its mailboxes */
  accel_test_wait_processed (src, 4);
  accel_test_wait_processed (hold, 4);
  accel_test_wait_processed (other, 8);
  g_assert_cmpuint (frames_in_flight (f->graph), ==, 3);
  gate_open (TEST_GATE (gate));
  g_assert_true (accel_graph_wait (f->graph, -1, &f->error));
  g_assert_no_error (f->error);
  g_assert_cmpuint (accel_stage_get_n_processed (gate), ==, 3);
  g_assert_cmpuint (frames_in_flight (f->graph), ==, 0);
}

/* a stage's frame counter in /stats.json's terms */
static guint64
json_frames (Json *json, const char *stage)
{
  GPtrArray *stages = json_member (json, "stages", JSON_ARRAY)->items;

  for (guint i = 0; i < stages->len; i++)
    if (g_str_equal (
            json_member (stages->pdata[i], "name", JSON_STRING)->string, stage))
      return (guint64)json_member (stages->pdata[i], "frames", JSON_NUMBER)
          ->number;
  g_assert_not_reached ();
}

/* the metrics read the counters of the frames in flight first, sinks before
 * sources, and a source counts its frame before it hands it on: a sink
 * never shows more frames than its source (it counted it after, and 1 to
 * 22 scrapes in 1000 had the sink a frame ahead). Read in the graph's order,
 * with the other stages' work between the source and the sink (made long here
 * by stages whose latencies fill their rings), a fast sink had overtaken its
 * source by many frames, and nothing was ever in flight */
static void
test_metrics_read_sinks_first (GraphFixture *f, gconstpointer data)
{
  g_autoptr (GPtrArray) sinks = g_ptr_array_new ();
  AccelStage *out;

  source (f, "src", -1, "16");
  for (guint i = 0; i < 10; i++)
    {
      g_autofree gchar *from = g_strdup_printf ("few%u", i);
      g_autofree gchar *to = g_strdup_printf ("few%u-out", i);

      g_object_set (source (f, from, 1100, "16"), "thread", "few", NULL);
      g_ptr_array_add (sinks, add (f, "core.null-sink", to));
      g_object_set (sinks->pdata[i], "thread", "few", NULL);
      link_ok (f->graph, from, to);
    }
  out = add (f, "core.null-sink", "out");
  link_ok (f->graph, "src", "out");
  start_ok (f);
  for (guint i = 0; i < sinks->len; i++)
    accel_test_wait_processed (sinks->pdata[i], 1100);
  accel_test_wait_processed (out, 2000);

  for (guint i = 0; i < 1000; i++)
    {
      g_autofree gchar *text = accel_graph_metrics_to_json (f->graph);
      g_autoptr (Json) json = json_parse (text);

      g_assert_nonnull (json);
      g_assert_cmpuint (
          json_frames (json, "out"), <=, json_frames (json, "src"));
    }
  accel_graph_stop (f->graph);
}

/* a stage class registered under no kind name, as a binding's subclass of
 * AccelStage is */
#define TEST_TYPE_KINDLESS (test_kindless_get_type ())
G_DECLARE_FINAL_TYPE (TestKindless, test_kindless, TEST, KINDLESS, AccelStage)

struct _TestKindless
{
  AccelStage parent;
};
G_DEFINE_FINAL_TYPE (TestKindless, test_kindless, ACCEL_TYPE_STAGE)

static void
test_kindless_class_init (TestKindlessClass *klass)
{
  AccelType out;

  /* a port, and no accel_stage_class_set_metadata () */
  accel_type_init_any (&out);
  accel_stage_class_add_port (
      ACCEL_STAGE_CLASS (klass), ACCEL_PORT_OUTPUT, "out", &out, NULL);
}

static void
test_kindless_init (TestKindless *self)
{
}

/* the metrics of a stage without a kind name: its kind is empty, as in the
 * DOT text (the JSON writer once read the missing name) */
static void
test_metrics_kindless (GraphFixture *f, gconstpointer data)
{
  g_autoptr (AccelStage) stage
      = g_object_new (TEST_TYPE_KINDLESS, "name", "mine", NULL);
  g_autofree gchar *prometheus = NULL;
  g_autofree gchar *text = NULL;
  g_autoptr (Json) json = NULL;
  Json *st;

  g_assert_null (accel_stage_get_kind_name (stage));
  g_assert_true (accel_graph_add (f->graph, stage, &f->error));
  g_assert_no_error (f->error);
  prometheus = accel_graph_metrics_to_prometheus (f->graph);
  g_assert_nonnull (strstr (prometheus, "stage=\"mine\""));
  text = accel_graph_metrics_to_json (f->graph);
  json = json_parse (text);
  g_assert_nonnull (json);
  st = json_member (json, "stages", JSON_ARRAY)->items->pdata[0];
  g_assert_cmpstr (json_member (st, "name", JSON_STRING)->string, ==, "mine");
  g_assert_cmpstr (json_member (st, "kind", JSON_STRING)->string, ==, "");
}

/* a process that is a rank of a world labels every series with its rank
 * and the world's size: each rank serves its own graph, the same graph, and
 * every rank's /metrics read alike. A process alone has neither */
static void
test_metrics_rank (GraphFixture *f, gconstpointer data)
{
  g_autoptr (AccelWorld) world = accel_world_new ("127.0.0.1:1", 1, 3);
  g_autofree gchar *alone = NULL;
  g_autofree gchar *json_alone = NULL;
  g_autofree gchar *prometheus = NULL;
  g_autofree gchar *text = NULL;
  g_autoptr (Json) json = NULL;
  g_auto (GStrv) lines = NULL;
  guint samples = 0;

  source (f, "src", 1, "16");
  alone = accel_graph_metrics_to_prometheus (f->graph);
  json_alone = accel_graph_metrics_to_json (f->graph);
  accel_world_set_default (world);
  prometheus = accel_graph_metrics_to_prometheus (f->graph);
  text = accel_graph_metrics_to_json (f->graph);
  accel_world_set_default (NULL);

  g_assert_null (strstr (alone, "rank"));
  g_assert_null (strstr (json_alone, "rank"));
  lines = g_strsplit (prometheus, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      if (!lines[i][0] || lines[i][0] == '#')
        continue;
      g_assert_true (g_str_has_prefix (strchr (lines[i], '{'),
          "{graph=\"test\",rank=\"1\",world_size=\"3\""));
      samples++;
    }
  g_assert_cmpuint (samples, >, 20);
  g_assert_nonnull (strstr (prometheus,
      "accel_graph_frames_in_flight{graph=\"test\",rank=\"1\",world_size="
      "\"3\"} 0\n"));
  json = json_parse (text);
  g_assert_nonnull (json);
  g_assert_cmpfloat (json_member (json, "rank", JSON_NUMBER)->number, ==, 1);
  g_assert_cmpfloat (
      json_member (json, "world_size", JSON_NUMBER)->number, ==, 3);
}

/* names that are not UTF-8 (a graph is named after its file's path) are
 * written as UTF-8 all the same, each other byte as \xNN; UTF-8 passes */
static void
test_metrics_utf8 (GraphFixture *f, gconstpointer data)
{
  g_autofree gchar *prometheus = NULL;
  g_autofree gchar *text = NULL;
  g_autoptr (Json) json = NULL;
  Json *st;

  /* the graph is "caf\xe9" (Latin-1), the stage "s\u00e9" and a lone
   * lead byte */
  source (f, "s\xc3\xa9\xc3", 1, "16");
  prometheus = accel_graph_metrics_to_prometheus (f->graph);
  g_assert_true (g_utf8_validate (prometheus, -1, NULL));
  g_assert_nonnull (strstr (prometheus,
      "accel_stage_frames_total{graph=\"caf\\\\xe9\",stage=\"s\xc3\xa9"
      "\\\\xc3\"} 0\n"));
  text = accel_graph_metrics_to_json (f->graph);
  g_assert_true (g_utf8_validate (text, -1, NULL));
  json = json_parse (text);
  g_assert_nonnull (json);
  g_assert_cmpstr (
      json_member (json, "graph", JSON_STRING)->string, ==, "caf\\xe9");
  st = json_member (json, "stages", JSON_ARRAY)->items->pdata[0];
  g_assert_cmpstr (
      json_member (st, "name", JSON_STRING)->string, ==, "s\xc3\xa9\\xc3");
}

/* stages on one thread never wait for room in each other's mailboxes: a
 * push that finds none parks its output until the consumer has taken
 * frames. Waiting instead (in a nested main loop) hung now and then here,
 * where two fan-ins each wait on a source the other's wait is stacked on:
 * the same graph, many times, every other time with mailboxes one frame
 * deep */
static void
test_fan_ins_never_wait_on_each_other (GraphFixture *f, gconstpointer data)
{
  for (guint round = 0; round < 100; round++)
    {
      if (round > 0)
        graph_renew (f);
      /* odd rounds: room for one frame */
      test_fan_in_ends_with_shortest_in (f, round % 2 ? 1 : 0);
    }
}

/* a consumer that has parked its own outputs takes no frame, so a producer
 * on its thread parks too rather than queueing there: a source with one
 * buffer gets it back before it produces again, and never waits for it on
 * the thread that would give it back. Here the fan-in fills its first input
 * (the scale then parks) before its second source runs */
static void
test_small_pool_behind_parked_stage (GraphFixture *f, gconstpointer data)
{
  g_autoptr (GArray) pairs = NULL;
  AccelStage *pair;
  const gint64 n = 24;

  f->src = source (f, "src", n, "4096");
  source (f, "late", n, "4096");
  add (f, "core.scale", "mid");
  pair = add (f, "test.pair-sink", "pair");
  g_object_set (f->src, "pool-size", 1, "pool-timeout", (gint64)2000, NULL);
  link_ok (f->graph, "src", "mid");
  link_ok (f->graph, "mid", "pair.a");
  link_ok (f->graph, "late", "pair.b");

  g_assert_true (accel_graph_run (f->graph, &f->error));
  g_assert_no_error (f->error);
  g_assert_cmpuint (accel_stage_get_n_restarts (f->src), ==, 0);
  pairs = test_pair_sink_get_pairs (TEST_PAIR_SINK (pair));
  g_assert_cmpuint (pairs->len, ==, 2 * n);
}

/* random graphs, every mailbox one to four frames deep: sources through
 * chains of scales, each chain's end feeding a checksum sink, fan-in sinks
 * (which end with their shortest input) or both; in a third of the chains
 * a stage faults once (resumed or restarted), skipping a frame. Every graph
 * ends (no stage waits on another for room), and every checksum sink gets
 * each frame of its source but the one skipped, whichever fan-ins ended
 * before */
static void
test_random_graphs_end (GraphFixture *f, gconstpointer data)
{
  for (guint round = 0; round < 40; round++)
    {
      g_autoptr (GRand) rand = g_rand_new_with_seed (round);
      g_autoptr (GPtrArray) ends = g_ptr_array_new_with_free_func (g_free);
      g_autoptr (GPtrArray) sums = g_ptr_array_new ();
      g_autoptr (GArray) expected = g_array_new (FALSE, FALSE, sizeof (gint64));
      guint n_sources = g_rand_int_range (rand, 1, 4);
      guint n_pairs = g_rand_int_range (rand, 0, 3);
      GPtrArray *stages;

      if (round > 0)
        graph_renew (f);
      for (guint i = 0; i < n_sources; i++)
        {
          g_autofree gchar *name = g_strdup_printf ("src%u", i);
          gint64 n = g_rand_int_range (rand, 3, 40), received = n;
          guint n_scales = g_rand_int_range (rand, 0, 4);
          gchar *end = g_strdup (name);

          source (f, name, n, "64");
          for (guint k = 0; k < n_scales; k++)
            {
              g_autofree gchar *scale = g_strdup_printf ("%s-s%u", name, k);
              add (f, "core.scale", scale);
              link_ok (f->graph, end, scale);
              g_free (end);
              end = g_strdup (scale);
            }
          g_ptr_array_add (ends, end);
          if (g_rand_int_range (rand, 0, 3) == 0)
            {
              guint at = g_rand_int_range (rand, 0, n_scales + 1);
              g_autofree gchar *who
                  = at == 0 ? g_strdup (name)
                            : g_strdup_printf ("%s-s%u", name, at - 1);

              accel_fault_inject (who, ACCEL_FAULT_INVALID_INPUT,
                  (guint64)g_rand_int_range (rand, 0, (gint32)n));
              g_object_set (accel_graph_get_stage (f->graph, who), "on-fault",
                  g_rand_boolean (rand) ? ACCEL_SUPERVISION_RESUME
                                        : ACCEL_SUPERVISION_RESTART,
                  NULL);
              received--;
            }
          /* a chain's end feeds a checksum sink, unless a fan-in takes it
           * alone below */
          if (g_rand_boolean (rand) || n_pairs == 0)
            {
              g_autofree gchar *sum = g_strdup_printf ("%s-sum", name);
              g_ptr_array_add (sums, add (f, "core.checksum-sink", sum));
              link_ok (f->graph, end, sum);
              g_array_append_val (expected, received);
            }
        }
      for (guint i = 0; i < n_pairs; i++)
        {
          g_autofree gchar *pair = g_strdup_printf ("pair%u", i);
          g_autofree gchar *a = g_strdup_printf ("%s.a", pair);
          g_autofree gchar *b = g_strdup_printf ("%s.b", pair);

          add (f, "test.pair-sink", pair);
          link_ok (
              f->graph, ends->pdata[g_rand_int_range (rand, 0, ends->len)], a);
          link_ok (
              f->graph, ends->pdata[g_rand_int_range (rand, 0, ends->len)], b);
        }
      /* a chain's end that nothing took goes to a null sink */
      for (guint i = 0; i < ends->len; i++)
        {
          g_autofree gchar *null = g_strdup_printf ("null%u", i);
          add (f, "core.null-sink", null);
          link_ok (f->graph, ends->pdata[i], null);
        }
      stages = accel_graph_get_stages (f->graph);
      for (guint i = 0; i < stages->len; i++)
        g_object_set (stages->pdata[i], "mailbox-size",
            (guint)g_rand_int_range (rand, 1, 5), NULL);

      g_assert_true (accel_graph_run (f->graph, &f->error));
      g_assert_no_error (f->error);
      accel_fault_clear ();
      for (guint i = 0; i < sums->len; i++)
        g_assert_cmpuint (accel_checksum_sink_get_n_received (sums->pdata[i]),
            ==, (guint64)g_array_index (expected, gint64, i));
    }
}

static guint
pairs_taken (AccelStage *pair)
{
  g_autoptr (GArray) pairs = test_pair_sink_get_pairs (TEST_PAIR_SINK (pair));

  return pairs->len;
}

/* waits up to 10 s for @pair to have taken more than @n pairs */
static gboolean
wait_for_pairs (AccelStage *pair, guint n)
{
  for (gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
       g_get_monotonic_time () < end; g_usleep (1000))
    if (pairs_taken (pair) > n)
      return TRUE;
  return FALSE;
}

/* flushes mid-stream, into a fan-in whose inputs fill (on one thread, the
 * scale parks its outputs): queued and parked buffers are dropped, and the
 * frames flow again after it */
static void
test_flush_mid_stream (GraphFixture *f, gconstpointer data)
{
  AccelStage *pair, *other;

  f->src = source (f, "src", -1, "1024");
  other = source (f, "other", -1, "1024");
  add (f, "core.scale", "mid");
  pair = add (f, "test.pair-sink", "pair");
  link_ok (f->graph, "src", "mid");
  link_ok (f->graph, "mid", "pair.a");
  link_ok (f->graph, "other", "pair.b");

  start_ok (f);
  g_assert_true (wait_for_pairs (pair, 20));
  for (guint i = 0; i < 8; i++)
    {
      accel_stage_flush_async (i % 2 ? other : f->src);
      g_usleep (500);
    }
  g_assert_true (wait_for_pairs (pair, pairs_taken (pair) + 20));
  /* still running, and no stage failed */
  g_assert_false (accel_graph_wait (f->graph, 0, &f->error));
  g_assert_error (f->error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT);
  accel_graph_stop (f->graph);
}

static void
test_stop_mid_stream (GraphFixture *f, gconstpointer data)
{
  for (guint round = 0; round < 10; round++)
    {
      gint64 t0;

      if (round > 0)
        graph_renew (f);
      f->src = source (f, "src", -1, "4096");
      add (f, "core.scale", "a");
      add (f, "core.scale", "b");
      f->sink = add (f, "test.slow-sink", "slow");
      add (f, "core.null-sink", "fast");
      link_ok (f->graph, "src", "a");
      link_ok (f->graph, "a", "b");
      link_ok (f->graph, "b", "slow");
      link_ok (f->graph, "a", "fast");
      start_ok (f);
      g_usleep (5000 * (round + 1));

      t0 = g_get_monotonic_time ();
      accel_graph_stop (f->graph);
      g_assert_cmpint (g_get_monotonic_time () - t0, <, G_USEC_PER_SEC);
      /* stopping twice is harmless */
      accel_graph_stop (f->graph);
    }
}

static void
test_backpressure (GraphFixture *f, gconstpointer data)
{
  AccelStage *mid;
  AccelPool *pool;
  guint64 produced, consumed;

  f->src = source (f, "src", -1, "1024");
  mid = add (f, "core.scale", "mid");
  f->sink = add (f, "test.slow-sink", "slow");
  g_object_set (f->src, "mailbox-size", 2, "pool-timeout", (gint64)-1, NULL);
  g_object_set (mid, "mailbox-size", 2, NULL);
  g_object_set (f->sink, "mailbox-size", 2, NULL);
  link_ok (f->graph, "src", "mid");
  link_ok (f->graph, "mid", "slow");

  g_assert_true (accel_graph_start (f->graph, &f->error));
  /* waited for, not slept: a loaded machine may take long to get there */
  for (gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
       accel_stage_get_n_processed (f->sink) <= 20
       && g_get_monotonic_time () < end;)
    g_usleep (1000);
  produced = accel_stage_get_n_processed (f->src);
  consumed = accel_stage_get_n_processed (f->sink);
  pool = accel_stage_get_output_pool (f->src, 0);
  /* the slow sink sets the pace, and the source is never more than the
   * buffers in flight ahead */
  g_assert_cmpuint (consumed, >, 20);
  g_assert_cmpuint (produced, <=, consumed + 2 * (2 + 3) + 2);
  g_assert_cmpuint (accel_pool_get_peak_outstanding (pool), <=,
      accel_pool_get_max_buffers (pool));
  g_assert_cmpuint (accel_pool_get_max_buffers (pool), ==, 2 + 3);
  accel_graph_stop (f->graph);
}

static void
test_stage_error (GraphFixture *f, gconstpointer data)
{
  f->src = source (f, "src", -1, "64");
  g_object_set (add (f, "test.failer", "picky"), "on-fault",
      ACCEL_SUPERVISION_ESCALATE, NULL);
  f->sink = add (f, "core.null-sink", "sink");
  link_ok (f->graph, "src", "picky");
  link_ok (f->graph, "picky", "sink");
  g_assert_false (accel_graph_run (f->graph, &f->error));
  g_assert_error (f->error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT);
  g_assert_cmpstr (f->error->message, ==,
      "stage 'picky' (test.failer): sequence 3 is not welcome");
}

static void
test_send_eos_and_frame_limit (GraphFixture *f, gconstpointer data)
{
  AccelStage *sink2;

  f->other = accel_graph_new ("interrupted");
  f->src = source (f, "src", -1, "64");
  f->sink = add (f, "core.checksum-sink", "sink");
  link_ok (f->graph, "src", "sink");
  accel_graph_set_frame_limit (f->graph, 7);
  g_assert_true (accel_graph_run (f->graph, &f->error));
  g_assert_cmpuint (accel_checksum_sink_get_n_received (f->sink), ==, 7);

  source_to (f, f->other, "src", -1, "64");
  sink2 = add_to (f, f->other, "core.checksum-sink", "sink");
  link_ok (f->other, "src", "sink");
  g_assert_true (accel_graph_start (f->other, &f->error));
  g_usleep (10000);
  accel_graph_send_eos (f->other);
  g_assert_true (accel_graph_wait (f->other, 5 * G_USEC_PER_SEC, &f->error));
  g_assert_no_error (f->error);
  /* everything produced before the end arrived */
  g_assert_cmpuint (accel_checksum_sink_get_n_received (sink2), ==,
      accel_stage_get_n_processed (accel_graph_get_stage (f->other, "src")));
  accel_graph_stop (f->other);
}

/* an endless source -> core.scale -> null sink, started; returns the
 * scale stage */
static AccelStage *
start_scaled (GraphFixture *f)
{
  AccelStage *scale;

  f->src = source (f, "src", -1, "64");
  scale = add (f, "core.scale", "scale");
  f->sink = add (f, "core.null-sink", "sink");
  link_ok (f->graph, "src", "scale");
  link_ok (f->graph, "scale", "sink");
  g_assert_true (accel_graph_start (f->graph, &f->error));
  return scale;
}

static void
test_param_async (GraphFixture *f, gconstpointer data)
{
  GValue v = G_VALUE_INIT;
  AccelStage *scale;
  gfloat got;

  scale = start_scaled (f);

  g_value_init (&v, G_TYPE_FLOAT);
  g_value_set_float (&v, 3.5f);
  g_assert_true (accel_stage_set_param_async (scale, "scale", &v));
  g_assert_false (accel_stage_set_param_async (scale, "no-such", &v));
  {
    /* what sizes a source's output is fixed: it was taken and ignored */
    GValue shape = G_VALUE_INIT;

    g_value_init (&shape, G_TYPE_STRING);
    g_value_set_static_string (&shape, "64");
    g_assert_false (accel_stage_set_param_async (
        accel_graph_get_stage (f->graph, "src"), "shape", &shape));
    g_value_unset (&shape);
  }
  for (gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
       g_get_monotonic_time () < end;)
    {
      g_object_get (scale, "scale", &got, NULL);
      if (got == 3.5f)
        break;
      g_usleep (1000);
    }
  g_assert_cmpfloat (got, ==, 3.5f);
  accel_graph_stop (f->graph);
}

/* another thread's control calls while the graph stops: each either
 * reaches the running stage or finds it stopped, never a freed mailbox
 * (under ASan and valgrind, a use after free) */
typedef struct
{
  AccelGraph *graph;
  AccelStage *scale;
  gint done;
  gint calls;
} Controller;

static gpointer
control_loop (gpointer data)
{
  Controller *c = data;
  GValue v = G_VALUE_INIT;

  g_value_init (&v, G_TYPE_FLOAT);
  g_value_set_float (&v, 2.0f);
  while (!g_atomic_int_get (&c->done))
    {
      g_assert_true (accel_stage_set_param_async (c->scale, "scale", &v));
      accel_stage_flush_async (c->scale);
      accel_graph_send_eos (c->graph);
      g_atomic_int_inc (&c->calls);
    }
  return NULL;
}

static void
test_control_while_stopping (GraphFixture *f, gconstpointer data)
{
  for (guint round = 0; round < 20; round++)
    {
      Controller c = { 0 };
      GThread *thread;

      if (round > 0)
        graph_renew (f);
      c.graph = f->graph;
      c.scale = start_scaled (f);
      thread = g_thread_new ("control", control_loop, &c);
      /* the calls have begun while the graph runs */
      while (!g_atomic_int_get (&c.calls))
        g_thread_yield ();
      g_usleep (200 * round);
      accel_graph_stop (f->graph);
      g_atomic_int_set (&c.done, TRUE);
      g_thread_join (thread);
    }
}

typedef struct
{
  AccelGraph *graph;
  gboolean ok;
  GError *error;
  gint64 t;
} Waiter;

static gpointer
wait_long (gpointer data)
{
  Waiter *w = data;

  w->ok = accel_graph_wait (w->graph, 20 * G_USEC_PER_SEC, &w->error);
  w->t = g_get_monotonic_time ();
  return NULL;
}

/* a wait with a timeout returns as soon as another thread stops the graph,
 * with STOPPED: it does not sit out its timeout */
static void
test_stop_wakes_wait (GraphFixture *f, gconstpointer data)
{
  Waiter w = { f->graph };
  GThread *thread;
  gint64 t0;

  f->src = source (f, "src", -1, "64");
  f->sink = add (f, "core.null-sink", "sink");
  link_ok (f->graph, "src", "sink");
  g_assert_true (accel_graph_start (f->graph, &f->error));
  thread = g_thread_new ("waiter", wait_long, &w);
  for (gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
       accel_stage_get_n_processed (f->sink) == 0
       && g_get_monotonic_time () < end;)
    g_usleep (1000);
  t0 = g_get_monotonic_time ();
  accel_graph_stop (f->graph);
  g_thread_join (thread);
  g_assert_cmpint (w.t - t0, <, 5 * G_USEC_PER_SEC);
  g_assert_false (w.ok);
  g_assert_error (w.error, ACCEL_ERROR, ACCEL_ERROR_STOPPED);
  g_clear_error (&w.error);
  /* and a wait after the stop does not block either */
  g_assert_false (accel_graph_wait (f->graph, -1, &w.error));
  g_assert_error (w.error, ACCEL_ERROR, ACCEL_ERROR_STOPPED);
  g_clear_error (&w.error);
}

/* waiting on a graph that never started: nothing would end the wait, so
 * it fails at once saying so */
static void
test_wait_before_start (GraphFixture *f, gconstpointer data)
{
  f->src = source (f, "src", 3, "64");
  f->sink = add (f, "core.null-sink", "sink");
  link_ok (f->graph, "src", "sink");
  g_assert_false (accel_graph_wait (f->graph, -1, &f->error));
  g_assert_error (f->error, ACCEL_ERROR, ACCEL_ERROR_FAILED);
  g_assert_true (g_str_has_suffix (
      f->error->message, "a wait needs it started (accel_graph_start)"));
  g_clear_error (&f->error);
}

static void
stop_from_here (GObject *stage, GParamSpec *pspec, gpointer graph)
{
  accel_graph_stop (graph);
}

/* stopping a graph from one of its stages' threads would wait for that
 * very thread: a critical, not an abort or a hang */
static void
test_stop_from_stage_thread (GraphFixture *f, gconstpointer data)
{
  if (g_test_subprocess ())
    {
      GValue v = G_VALUE_INIT;
      AccelStage *scale;

      scale = start_scaled (f);
      g_signal_connect (
          scale, "notify::scale", G_CALLBACK (stop_from_here), f->graph);
      g_value_init (&v, G_TYPE_FLOAT);
      g_value_set_float (&v, 3.5f);
      g_assert_true (accel_stage_set_param_async (scale, "scale", &v));
      /* the critical ends this process; the stage's thread raises it */
      accel_graph_wait (f->graph, 10 * G_USEC_PER_SEC, NULL);
      return;
    }
  g_test_trap_subprocess (NULL, 10 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*CRITICAL*accel_graph_stop*on_stage_thread*");
}

static void
unref_from_here (GObject *stage, GParamSpec *pspec, gpointer graph)
{
  g_object_unref (graph);
}

/* the last reference to a running graph dropped on one of its stages'
 * threads (a handler's, or Python collecting the graph there): the graph
 * is stopped from a thread of its own and then freed. It was freed on the
 * spot, its threads still running (a use after free), after a critical
 * from the stop it could not do there */
static void
test_last_unref_on_stage_thread (GraphFixture *f, gconstpointer data)
{
  AccelGraph *graph = f->graph;
  gpointer alive = graph;
  GValue v = G_VALUE_INIT;
  AccelStage *scale;
  gint64 end;

  scale = start_scaled (f);
  /* the graph's only reference is the handler's from here (the fixture
   * tears down another) */
  f->graph = accel_graph_new ("other");
  g_object_add_weak_pointer (G_OBJECT (graph), &alive);
  g_signal_connect (
      scale, "notify::scale", G_CALLBACK (unref_from_here), graph);
  g_value_init (&v, G_TYPE_FLOAT);
  g_value_set_float (&v, 3.5f);
  g_assert_true (accel_stage_set_param_async (scale, "scale", &v));
  end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (g_atomic_pointer_get (&alive) && g_get_monotonic_time () < end)
    g_usleep (1000);
  g_assert_null (g_atomic_pointer_get (&alive));
}

static void
test_dot (GraphFixture *f, gconstpointer data)
{
  g_autofree gchar *dot = NULL;

  f->src = source (f, "src", 1, "8x8");
  f->sink = add (f, "core.null-sink", "sink");
  link_ok (f->graph, "src", "sink");
  g_assert_true (accel_graph_prepare (f->graph, &f->error));
  dot = accel_graph_to_dot (f->graph);
  g_assert_true (g_str_has_prefix (dot, "digraph \"dotted\" {"));
  g_assert_nonnull (strstr (dot, "\"src\" -> \"sink\" [label=\"out -> in\\n"
                                 "tensor<f32>[8x8]@device\"]"));
}

/* graph: on is refused at prepare for a kind that cannot be captured,
 * naming the stage; accepted for one that can */
static void
test_graph_on_refused (GraphFixture *f, gconstpointer data)
{
  f->src = source (f, "src", 1, "8");
  g_object_set (f->src, "graph", ACCEL_CAPTURE_ON, NULL);
  g_object_set (
      add (f, "core.scale", "scale"), "graph", ACCEL_CAPTURE_ON, NULL);
  f->sink = add (f, "core.null-sink", "sink");
  link_ok (f->graph, "src", "scale");
  link_ok (f->graph, "scale", "sink");
  g_assert_false (accel_graph_prepare (f->graph, &f->error));
  g_assert_error (f->error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_true (g_str_has_prefix (f->error->message,
      "stage 'src' (core.test-source) has graph: on, but its kind cannot be "
      "captured"));

  g_clear_error (&f->error);
  graph_renew (f);
  f->src = source (f, "src", 3, "8");
  g_object_set (
      add (f, "core.scale", "scale"), "graph", ACCEL_CAPTURE_ON, NULL);
  f->sink = add (f, "core.null-sink", "sink");
  link_ok (f->graph, "src", "scale");
  link_ok (f->graph, "scale", "sink");
  g_assert_true (accel_graph_run (f->graph, &f->error));
  g_assert_no_error (f->error);
}

/* buffers the graph's pools may still allocate before their bounds, and
 * one each for an allocation under way while this counts */
static guint64
pool_headroom (AccelGraph *g)
{
  GPtrArray *stages = accel_graph_get_stages (g);
  guint64 n = 0;

  for (guint i = 0; i < stages->len; i++)
    for (guint o = 0; o < accel_stage_get_n_outputs (stages->pdata[i]); o++)
      {
        AccelPool *pool = accel_stage_get_output_pool (stages->pdata[i], o);
        n += accel_pool_get_max_buffers (pool)
             - accel_pool_get_n_allocated (pool) + 1;
      }
  return n;
}

/* after warming up, 1 000 frames allocate nothing but what their pools
 * may still grow by (threads on the host take their time to need every
 * buffer of a pool) */
static void
test_steady_state_allocations (GraphFixture *f, gconstpointer data)
{
  guint64 allocations, headroom;

  f->src = source (f, "src", 1400, "1024");
  add (f, "core.scale", "a");
  add (f, "core.scale", "b");
  f->sink = add (f, "core.null-sink", "sink");
  link_ok (f->graph, "src", "a");
  link_ok (f->graph, "a", "b");
  link_ok (f->graph, "b", "sink");
  g_assert_true (accel_graph_start (f->graph, &f->error));
  accel_test_wait_processed (f->sink, 200);
  allocations = accel_debug_get_n_allocations ();
  headroom = pool_headroom (f->graph);
  accel_test_wait_processed (f->sink, 1200);
  g_assert_cmpuint (
      accel_debug_get_n_allocations (), <=, allocations + headroom);
  g_assert_true (accel_graph_wait (f->graph, -1, &f->error));
  g_assert_no_error (f->error);
}

/* source (10 frames) -> scale -> checksum sink; the sink's checksums */
static GStrv
scaled_checksums (GraphFixture *f, AccelGraph *g, float scale)
{
  source_to (f, g, "src", 10, "64");
  g_object_set (add_to (f, g, "core.scale", "k"), "scale", scale, NULL);
  add_to (f, g, "core.checksum-sink", "sink");
  link_ok (g, "src", "k");
  link_ok (g, "k", "sink");
  g_assert_true (accel_graph_run (g, &f->error));
  g_assert_no_error (f->error);
  return accel_checksum_sink_dup_checksums (accel_graph_get_stage (g, "sink"));
}

/* a stepped graph never runs ahead of its steps, and a parameter set
 * between two steps applies exactly from the next frame: frames 0-4 are
 * those of scale 1, frames 5-9 those of scale 2 */
static void
test_stepped (GraphFixture *f, gconstpointer data)
{
  g_autoptr (AccelGraph) one = accel_graph_new ("one");
  g_autoptr (AccelGraph) two = accel_graph_new ("two");
  g_auto (GStrv) by_one = scaled_checksums (f, one, 1.0f);
  g_auto (GStrv) by_two = scaled_checksums (f, two, 2.0f);
  g_auto (GStrv) stepped = NULL;
  AccelStage *k;
  GValue v = G_VALUE_INIT;

  f->src = source (f, "src", 10, "64");
  k = add (f, "core.scale", "k");
  f->sink = add (f, "core.checksum-sink", "sink");
  link_ok (f->graph, "src", "k");
  link_ok (f->graph, "k", "sink");
  accel_graph_set_stepped (f->graph, TRUE);
  g_assert_true (accel_graph_start (f->graph, &f->error));
  g_usleep (20000);
  g_assert_cmpuint (accel_stage_get_n_processed (f->src), ==, 0);

  g_value_init (&v, G_TYPE_FLOAT);
  g_value_set_float (&v, 2.0f);
  for (guint i = 0; i < 10; i++)
    {
      if (i == 5)
        g_assert_true (accel_stage_set_param_async (k, "scale", &v));
      g_assert_true (
          accel_graph_step (f->graph, 10 * G_USEC_PER_SEC, &f->error));
      g_assert_no_error (f->error);
      /* the source counts its frame once handed on: never ahead */
      g_assert_cmpuint (accel_stage_get_n_processed (f->src), <=, i + 1);
      g_assert_cmpuint (accel_stage_get_n_processed (f->sink), ==, i + 1);
    }
  g_value_unset (&v);
  /* the source's last frame is behind it: this step and every later one
   * fail (a later one passed, with no frame, once every sink had ended) */
  for (guint i = 0; i < 3; i++)
    {
      g_assert_false (
          accel_graph_step (f->graph, 10 * G_USEC_PER_SEC, &f->error));
      g_assert_error (f->error, ACCEL_ERROR, ACCEL_ERROR_STOPPED);
      g_clear_error (&f->error);
    }
  g_assert_cmpuint (accel_stage_get_n_processed (f->sink), ==, 10);
  g_assert_true (accel_graph_wait (f->graph, -1, &f->error));

  stepped = accel_checksum_sink_dup_checksums (f->sink);
  g_assert_cmpuint (g_strv_length (stepped), ==, 10);
  for (guint i = 0; i < 10; i++)
    g_assert_cmpstr (stepped[i], ==, i < 5 ? by_one[i] : by_two[i]);
  g_assert_cmpstr (by_one[7], !=, by_two[7]);
}

/* a frame a middle stage skips never reaches the sinks below it: its step
 * is over all the same, where it waited for good (or to its timeout) */
static void
test_stepped_skip (GraphFixture *f, gconstpointer data)
{
  AccelStage *k;

  f->src = source (f, "src", 6, "64");
  k = add (f, "core.scale", "k");
  f->sink = add (f, "core.checksum-sink", "sink");
  add (f, "core.null-sink", "other");
  link_ok (f->graph, "src", "k");
  link_ok (f->graph, "k", "sink");
  link_ok (f->graph, "src", "other");
  accel_fault_inject ("k", ACCEL_FAULT_INVALID_INPUT, 2);
  g_object_set (k, "on-fault", ACCEL_SUPERVISION_RESUME, NULL);
  accel_graph_set_stepped (f->graph, TRUE);
  g_assert_true (accel_graph_start (f->graph, &f->error));
  for (guint i = 0; i < 6; i++)
    {
      g_assert_true (
          accel_graph_step (f->graph, 10 * G_USEC_PER_SEC, &f->error));
      g_assert_no_error (f->error);
      g_assert_cmpuint (
          accel_stage_get_n_processed (f->sink), ==, i < 2 ? i + 1 : i);
    }
  g_assert_cmpuint (accel_stage_get_n_skipped (k), ==, 1);
  g_assert_false (accel_graph_step (f->graph, 10 * G_USEC_PER_SEC, &f->error));
  g_assert_error (f->error, ACCEL_ERROR, ACCEL_ERROR_STOPPED);
  g_clear_error (&f->error);
  g_assert_true (accel_graph_wait (f->graph, -1, &f->error));
}

/* a frame that both branches above a join skip is one frame that never
 * reaches it: the next step waits for its own frame. It was counted once
 * per branch, and the step after it returned as the second branch's skip
 * came, before its frame reached the join (the application saw the
 * frame before it) */
static void
test_stepped_skip_joined (GraphFixture *f, gconstpointer data)
{
  AccelStage *a, *b;

  f->src = source (f, "src", 6, "64");
  a = add (f, "core.scale", "a");
  b = add (f, "core.scale", "b");
  f->sink = add (f, "test.pair-sink", "join");
  link_ok (f->graph, "src", "a");
  link_ok (f->graph, "src", "b");
  link_ok (f->graph, "a", "join.a");
  link_ok (f->graph, "b", "join.b");
  /* both skip frame 2; b a second later, as frame 2 outlasts its
   * deadline: its skip comes during the next step */
  accel_fault_inject ("a", ACCEL_FAULT_INVALID_INPUT, 2);
  accel_fault_inject ("b", ACCEL_FAULT_HANG, 2);
  g_object_set (a, "on-fault", ACCEL_SUPERVISION_RESUME, NULL);
  g_object_set (
      b, "on-fault", ACCEL_SUPERVISION_RESUME, "deadline", (gint64)100, NULL);
  accel_graph_set_stepped (f->graph, TRUE);
  start_ok (f);
  for (guint i = 0; i < 6; i++)
    {
      g_autoptr (GArray) pairs = NULL;

      g_assert_true (
          accel_graph_step (f->graph, 10 * G_USEC_PER_SEC, &f->error));
      g_assert_no_error (f->error);
      g_assert_cmpuint (
          accel_stage_get_n_processed (f->sink), ==, i < 2 ? i + 1 : i);
      pairs = test_pair_sink_get_pairs (TEST_PAIR_SINK (f->sink));
      if (i != 2)
        g_assert_cmpuint (
            g_array_index (pairs, guint64, pairs->len - 1), ==, i);
    }
  g_assert_cmpuint (accel_stage_get_n_skipped (a), ==, 1);
  g_assert_cmpuint (accel_stage_get_n_skipped (b), ==, 1);
  g_assert_false (accel_graph_step (f->graph, 10 * G_USEC_PER_SEC, &f->error));
  g_assert_error (f->error, ACCEL_ERROR, ACCEL_ERROR_STOPPED);
  g_clear_error (&f->error);
  g_assert_true (accel_graph_wait (f->graph, -1, &f->error));
}

/* a step past one source's last frame, another's still to come: the
 * step is through once the sink still running has its frame (it waited
 * for the ended one's for good, or to its timeout) */
static void
test_step_past_one_source (GraphFixture *f, gconstpointer data)
{
  AccelStage *short_sink, *long_sink;

  source (f, "short", 2, "8");
  source (f, "long", 5, "8");
  short_sink = add (f, "core.checksum-sink", "short-sink");
  long_sink = add (f, "core.checksum-sink", "long-sink");
  link_ok (f->graph, "short", "short-sink");
  link_ok (f->graph, "long", "long-sink");
  accel_graph_set_stepped (f->graph, TRUE);
  start_ok (f);
  for (guint i = 0; i < 5; i++)
    {
      g_assert_true (
          accel_graph_step (f->graph, 10 * G_USEC_PER_SEC, &f->error));
      g_assert_no_error (f->error);
      g_assert_cmpuint (accel_stage_get_n_processed (long_sink), ==, i + 1);
      g_assert_cmpuint (
          accel_stage_get_n_processed (short_sink), ==, MIN (i + 1, 2));
    }
  g_assert_false (accel_graph_step (f->graph, 10 * G_USEC_PER_SEC, &f->error));
  g_assert_error (f->error, ACCEL_ERROR, ACCEL_ERROR_STOPPED);
  g_clear_error (&f->error);
  g_assert_true (accel_graph_wait (f->graph, -1, &f->error));
}

/* a stage with nothing linked after it makes every frame: it ended after
 * its first, and its upstream counted the rest dropped */
static void
test_leaf_stage_goes_on (GraphFixture *f, gconstpointer data)
{
  AccelStage *leaf;

  f->src = source (f, "src", 6, "8");
  leaf = add (f, "core.scale", "leaf");
  f->sink = add (f, "core.checksum-sink", "sink");
  link_ok (f->graph, "src", "leaf");
  link_ok (f->graph, "src", "sink");
  g_assert_true (accel_graph_run (f->graph, &f->error));
  g_assert_no_error (f->error);
  g_assert_cmpuint (accel_stage_get_n_processed (f->sink), ==, 6);
  g_assert_cmpuint (accel_stage_get_n_processed (leaf), ==, 6);
  g_assert_cmpuint (accel_stage_get_n_dropped (leaf), ==, 0);
}

/* a step that timed out leaves its frame on its way: the next step waits
 * for a frame of its own, where it returned as the late frame came */
static void
test_step_after_timeout (GraphFixture *f, gconstpointer data)
{
  f->src = source (f, "src", 4, "64");
  add (f, "core.scale", "k");
  f->sink = add (f, "core.checksum-sink", "sink");
  link_ok (f->graph, "src", "k");
  link_ok (f->graph, "k", "sink");
  /* frames 0 and 1 take a second each */
  accel_fault_inject ("k", ACCEL_FAULT_HANG, 0);
  accel_fault_inject ("k", ACCEL_FAULT_HANG, 1);
  accel_graph_set_stepped (f->graph, TRUE);
  start_ok (f);
  g_assert_false (accel_graph_step (f->graph, 50 * 1000, &f->error));
  g_assert_error (f->error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT);
  g_clear_error (&f->error);
  g_assert_true (accel_graph_step (f->graph, 10 * G_USEC_PER_SEC, &f->error));
  g_assert_no_error (f->error);
  g_assert_cmpuint (accel_stage_get_n_processed (f->sink), ==, 2);
  accel_graph_stop (f->graph);
}

/* a stop from another thread while the graph starts, again and again: it
 * came between the graph's state and its stages' beginning, and a source
 * began on no thread (a crash) */
static gpointer
stop_until_done (gpointer data)
{
  GraphFixture *f = data;

  while (!g_atomic_int_get (&f->done))
    {
      accel_graph_stop (f->graph);
      g_thread_yield ();
    }
  return NULL;
}

static void
test_start_races_stop (GraphFixture *f, gconstpointer data)
{
  gint64 end = g_get_monotonic_time () + G_USEC_PER_SEC;
  GThread *stopper;

  source (f, "src", -1, "16");
  add (f, "core.scale", "k");
  add (f, "core.null-sink", "sink");
  link_ok (f->graph, "src", "k");
  link_ok (f->graph, "k", "sink");
  stopper = g_thread_new ("stopper", stop_until_done, f);
  while (g_get_monotonic_time () < end)
    accel_graph_start (f->graph, NULL);
  g_atomic_int_set (&f->done, TRUE);
  g_thread_join (stopper);
  accel_graph_stop (f->graph);
}

/* a stage that withholds frames (ACCEL_FLOW_SKIP) in a stepped graph:
 * they reach no sink, and each step waited for one to its timeout */
static void
test_stepped_withheld (GraphFixture *f, gconstpointer data)
{
  AccelStage *k;

  f->src = source (f, "src", 6, "64");
  k = add (f, "test.failer", "k");
  f->sink = add (f, "core.null-sink", "sink");
  link_ok (f->graph, "src", "k");
  link_ok (f->graph, "k", "sink");
  /* frame 3 fails and is skipped; every other one is withheld */
  g_object_set (k, "on-fault", ACCEL_SUPERVISION_RESUME, NULL);
  accel_graph_set_stepped (f->graph, TRUE);
  g_assert_true (accel_graph_start (f->graph, &f->error));
  for (guint i = 0; i < 6; i++)
    {
      g_assert_true (
          accel_graph_step (f->graph, 10 * G_USEC_PER_SEC, &f->error));
      g_assert_no_error (f->error);
    }
  g_assert_cmpuint (accel_stage_get_n_processed (f->sink), ==, 0);
  g_assert_cmpuint (accel_stage_get_n_skipped (k), ==, 1);
  g_assert_cmpuint (accel_stage_get_n_withheld (k), ==, 5);
  g_assert_false (accel_graph_step (f->graph, 10 * G_USEC_PER_SEC, &f->error));
  g_assert_error (f->error, ACCEL_ERROR, ACCEL_ERROR_STOPPED);
  g_clear_error (&f->error);
  g_assert_true (accel_graph_wait (f->graph, -1, &f->error));
}

/* a process () that returns what is no AccelFlow: a critical, and the
 * frame fails as a fault of the stage (every frame after it was dropped
 * without a word); one that sets an error but returns OK: a warning, the
 * error dropped and the frame handed on (the error leaked) */
static void
test_flow_checked (GraphFixture *f, gconstpointer data)
{
  AccelStage *k;

  f->src = source (f, "src", 6, "16");
  k = add (f, "test.misbehaver", "k");
  f->sink = add (f, "core.null-sink", "sink");
  link_ok (f->graph, "src", "k");
  link_ok (f->graph, "k", "sink");
  g_object_set (k, "flow", 42, "on-fault", ACCEL_SUPERVISION_RESUME, NULL);
  g_test_expect_message ("accel-stage", G_LOG_LEVEL_CRITICAL,
      "stage 'k': process () returned 42, which is no AccelFlow");
  g_assert_true (accel_graph_run (f->graph, &f->error));
  g_assert_no_error (f->error);
  g_test_assert_expected_messages ();
  g_assert_cmpuint (accel_stage_get_n_processed (f->sink), ==, 5);
  g_assert_cmpuint (accel_stage_get_n_skipped (k), ==, 1);
  g_assert_false (accel_graph_check_complete (f->graph, &f->error));
  g_assert_error (f->error, ACCEL_ERROR, ACCEL_ERROR_INCOMPLETE);
  g_assert_cmpstr (f->error->message, ==,
      "stage 'k' (test.misbehaver) skipped 1 frame after faults (0 "
      "restarts); the first: process () returned 42, which is no "
      "AccelFlow\nthe run ended without every frame: 1 skipped, 0 lost");
  g_clear_error (&f->error);

  g_object_set (k, "flow", ACCEL_FLOW_OK, "set-error", TRUE, NULL);
  g_test_expect_message ("accel-stage", G_LOG_LEVEL_WARNING,
      "stage 'k': process () set an error but did not return "
      "ACCEL_FLOW_ERROR; the error is dropped: frame 2 is odd");
  g_assert_true (accel_graph_run (f->graph, &f->error));
  g_test_assert_expected_messages ();
  g_assert_cmpuint (accel_stage_get_n_processed (f->sink), ==, 6);
  g_assert_true (accel_graph_check_complete (f->graph, &f->error));
  g_assert_no_error (f->error);

  /* a run that failed handed on only what came before the failure */
  g_object_set (k, "flow", ACCEL_FLOW_ERROR, "on-fault",
      ACCEL_SUPERVISION_ESCALATE, NULL);
  g_assert_false (accel_graph_run (f->graph, &f->error));
  g_clear_error (&f->error);
  g_assert_false (accel_graph_check_complete (f->graph, &f->error));
  g_assert_error (f->error, ACCEL_ERROR, ACCEL_ERROR_INCOMPLETE);
  g_assert_true (g_str_has_prefix (
      f->error->message, "the run failed before its end: stage 'k' "));
}

/* a sink's frames withheld (ACCEL_FLOW_SKIP) are counted: they were in
 * no count */
static void
test_sink_withheld (GraphFixture *f, gconstpointer data)
{
  f->src = source (f, "src", 6, "16");
  f->sink = add (f, "test.skip-sink", "sink");
  link_ok (f->graph, "src", "sink");
  g_assert_true (accel_graph_run (f->graph, &f->error));
  g_assert_no_error (f->error);
  g_assert_cmpuint (accel_stage_get_n_withheld (f->sink), ==, 3);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  test_stages_register ();
  g_test_add ("/graph/runs-again", GraphFixture, "again", graph_set_up,
      test_runs_again, graph_tear_down);
  g_test_add ("/graph/type-mismatch-names-both", GraphFixture, "mismatch",
      graph_set_up, test_type_mismatch, graph_tear_down);
  g_test_add ("/graph/thread-left-and-returned", GraphFixture, "returning",
      graph_set_up, test_thread_left_and_returned, graph_tear_down);
  g_test_add ("/graph/thread-split-and-joined", GraphFixture, NULL,
      graph_set_up, test_thread_split_and_joined, graph_tear_down);
  g_test_add ("/graph/thread-split-joined-through-thread", GraphFixture, NULL,
      graph_set_up, test_thread_split_joined_through_thread, graph_tear_down);
  g_test_add ("/graph/buffer-wait-on-shared-thread/transform", GraphFixture,
      "transform", graph_set_up, test_buffer_wait_on_shared_thread,
      graph_tear_down);
  g_test_add ("/graph/buffer-wait-on-shared-thread/source", GraphFixture,
      "source", graph_set_up, test_buffer_wait_on_shared_thread,
      graph_tear_down);
  g_test_add ("/graph/buffer-wait-on-shared-thread/param-after-frame",
      GraphFixture, "param", graph_set_up, test_buffer_wait_param_after_frame,
      graph_tear_down);
  g_test_add ("/graph/buffer-wait-on-shared-thread/param-at-stop", GraphFixture,
      "param-stop", graph_set_up, test_buffer_wait_param_at_stop,
      graph_tear_down);
  g_test_add ("/graph/buffer-wait-on-shared-thread/times-out-on-any-output",
      GraphFixture, "timeout", graph_set_up,
      test_buffer_wait_times_out_on_any_output, graph_tear_down);
  g_test_add ("/graph/skip-tells-join/one-thread", GraphFixture, "one",
      graph_set_up, test_skip_tells_join, graph_tear_down);
  g_test_add ("/graph/skip-tells-join/apart", GraphFixture, "apart",
      graph_set_up, test_skip_tells_join, graph_tear_down);
  g_test_add ("/graph/join-drop-tells-join", GraphFixture, NULL, graph_set_up,
      test_join_drop_tells_join, graph_tear_down);
  g_test_add ("/graph/step-after-timeout", GraphFixture, NULL, graph_set_up,
      test_step_after_timeout, graph_tear_down);
  g_test_add ("/graph/step-past-one-source", GraphFixture, NULL, graph_set_up,
      test_step_past_one_source, graph_tear_down);
  g_test_add ("/graph/leaf-stage-goes-on", GraphFixture, NULL, graph_set_up,
      test_leaf_stage_goes_on, graph_tear_down);
  g_test_add ("/graph/start-races-stop", GraphFixture, NULL, graph_set_up,
      test_start_races_stop, graph_tear_down);
  g_test_add ("/graph/flow-checked", GraphFixture, NULL, graph_set_up,
      test_flow_checked, graph_tear_down);
  g_test_add ("/graph/sink-withheld", GraphFixture, NULL, graph_set_up,
      test_sink_withheld, graph_tear_down);
  g_test_add ("/graph/threads-in-a-ring", GraphFixture, "ring", graph_set_up,
      test_threads_in_a_ring, graph_tear_down);
  g_test_add ("/graph/invalid", GraphFixture, "invalid", graph_set_up,
      test_invalid_graphs, graph_tear_down);
  g_test_add ("/graph/unlinked-and-cycle", GraphFixture, "open", graph_set_up,
      test_unlinked_and_cycle, graph_tear_down);
  g_test_add ("/graph/fan-out-fan-in-eos", GraphFixture, "diamond",
      graph_set_up, test_fan_out_fan_in_eos, graph_tear_down);
  g_test_add ("/graph/fan-in-ends-with-shortest", GraphFixture, "shortest",
      graph_set_up, test_fan_in_ends_with_shortest, graph_tear_down);
  g_test_add ("/graph/in-flight-withheld", GraphFixture, "withheld",
      graph_set_up, test_in_flight_withheld, graph_tear_down);
  g_test_add ("/graph/end-to-end-samples", GraphFixture, "e2e", graph_set_up,
      test_end_to_end_samples, graph_tear_down);
  g_test_add ("/graph/end-to-end-samples/one-thread", GraphFixture, "e2e",
      graph_set_up_one_thread, test_end_to_end_samples, graph_tear_down);
  g_test_add ("/graph/in-flight-per-branch", GraphFixture, "branches",
      graph_set_up, test_in_flight_per_branch, graph_tear_down);
  g_test_add ("/graph/in-flight-diamond", GraphFixture, "behind-diamond",
      graph_set_up, test_in_flight_diamond, graph_tear_down);
  g_test_add ("/graph/metrics-read-sinks-first", GraphFixture, "fast",
      graph_set_up, test_metrics_read_sinks_first, graph_tear_down);
  g_test_add ("/graph/metrics-kindless-stage", GraphFixture, "kindless",
      graph_set_up, test_metrics_kindless, graph_tear_down);
  g_test_add ("/graph/metrics-rank", GraphFixture, "test", graph_set_up,
      test_metrics_rank, graph_tear_down);
  g_test_add ("/graph/metrics-utf8", GraphFixture, "caf\xe9", graph_set_up,
      test_metrics_utf8, graph_tear_down);
  g_test_add ("/graph/stop-mid-stream", GraphFixture, "endless", graph_set_up,
      test_stop_mid_stream, graph_tear_down);
  g_test_add ("/graph/backpressure", GraphFixture, "pressure", graph_set_up,
      test_backpressure, graph_tear_down);
  g_test_add ("/graph/stage-error-names-stage", GraphFixture, "failing",
      graph_set_up, test_stage_error, graph_tear_down);
  g_test_add ("/graph/send-eos-and-frame-limit", GraphFixture, "limited",
      graph_set_up, test_send_eos_and_frame_limit, graph_tear_down);
  g_test_add ("/graph/param-async", GraphFixture, "params", graph_set_up,
      test_param_async, graph_tear_down);
  g_test_add ("/graph/control-while-stopping", GraphFixture, "controlled",
      graph_set_up, test_control_while_stopping, graph_tear_down);
  g_test_add ("/graph/graph-on-refused", GraphFixture, "captured", graph_set_up,
      test_graph_on_refused, graph_tear_down);
  g_test_add ("/graph/steady-state-allocations", GraphFixture, "steady",
      graph_set_up, test_steady_state_allocations, graph_tear_down);
  g_test_add ("/graph/one-thread/steady-state-allocations", GraphFixture,
      "steady", graph_set_up_one_thread, test_steady_state_allocations,
      graph_tear_down);
  g_test_add ("/graph/stepped", GraphFixture, "stepped", graph_set_up,
      test_stepped, graph_tear_down);
  g_test_add ("/graph/source-end-takes-no-buffer", GraphFixture,
      "source-end-takes-no-buffer", graph_set_up,
      test_source_end_takes_no_buffer, graph_tear_down);
  g_test_add ("/graph/output-larger-than-memory", GraphFixture,
      "output-larger-than-memory", graph_set_up, test_output_larger_than_memory,
      graph_tear_down);
  g_test_add ("/graph/stepped-withheld", GraphFixture, "stepped-withheld",
      graph_set_up, test_stepped_withheld, graph_tear_down);
  g_test_add ("/graph/stepped-skip", GraphFixture, "stepped-skip", graph_set_up,
      test_stepped_skip, graph_tear_down);
  g_test_add ("/graph/stepped-skip-joined", GraphFixture, "stepped-skip-joined",
      graph_set_up, test_stepped_skip_joined, graph_tear_down);
  g_test_add ("/graph/one-thread/stepped", GraphFixture, "stepped",
      graph_set_up_one_thread, test_stepped, graph_tear_down);
  g_test_add ("/graph/one-thread/stepped-skip-joined", GraphFixture,
      "stepped-skip-joined", graph_set_up_one_thread, test_stepped_skip_joined,
      graph_tear_down);
  g_test_add ("/graph/dot", GraphFixture, "dotted", graph_set_up, test_dot,
      graph_tear_down);
  g_test_add ("/graph/stop-wakes-wait", GraphFixture, "woken", graph_set_up,
      test_stop_wakes_wait, graph_tear_down);
  g_test_add ("/graph/wait-before-start", GraphFixture, "unstarted",
      graph_set_up, test_wait_before_start, graph_tear_down);
  g_test_add ("/graph/stop-from-stage-thread", GraphFixture, "self-stop",
      graph_set_up, test_stop_from_stage_thread, graph_tear_down);
  g_test_add ("/graph/last-unref-on-stage-thread", GraphFixture, "dropped",
      graph_set_up, test_last_unref_on_stage_thread, graph_tear_down);
  g_test_add ("/graph/one-thread/fan-out-fan-in-eos", GraphFixture, "diamond",
      graph_set_up_one_thread, test_fan_out_fan_in_eos, graph_tear_down);
  g_test_add ("/graph/one-thread/fan-in-ends-with-shortest", GraphFixture,
      "shortest", graph_set_up_one_thread, test_fan_in_ends_with_shortest,
      graph_tear_down);
  g_test_add ("/graph/one-thread/fan-ins-never-wait-on-each-other",
      GraphFixture, "shortest", graph_set_up_one_thread,
      test_fan_ins_never_wait_on_each_other, graph_tear_down);
  g_test_add ("/graph/one-thread/small-pool-behind-parked-stage", GraphFixture,
      "small-pool", graph_set_up_one_thread,
      test_small_pool_behind_parked_stage, graph_tear_down);
  g_test_add ("/graph/random-graphs-end", GraphFixture, "random", graph_set_up,
      test_random_graphs_end, graph_tear_down);
  g_test_add ("/graph/flush-mid-stream", GraphFixture, "flushed", graph_set_up,
      test_flush_mid_stream, graph_tear_down);
  g_test_add ("/graph/one-thread/flush-mid-stream", GraphFixture, "flushed",
      graph_set_up_one_thread, test_flush_mid_stream, graph_tear_down);
  g_test_add ("/graph/one-thread/random-graphs-end", GraphFixture, "random",
      graph_set_up_one_thread, test_random_graphs_end, graph_tear_down);
  g_test_add ("/graph/one-thread/stop-mid-stream", GraphFixture, "endless",
      graph_set_up_one_thread, test_stop_mid_stream, graph_tear_down);
  g_test_add ("/graph/one-thread/backpressure", GraphFixture, "pressure",
      graph_set_up_one_thread, test_backpressure, graph_tear_down);
  g_test_add ("/graph/one-thread/stage-error-names-stage", GraphFixture,
      "failing", graph_set_up_one_thread, test_stage_error, graph_tear_down);
  g_test_add ("/graph/one-thread/send-eos-and-frame-limit", GraphFixture,
      "limited", graph_set_up_one_thread, test_send_eos_and_frame_limit,
      graph_tear_down);
  return g_test_run ();
}
