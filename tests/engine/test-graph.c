/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* graphs: validation errors, end of stream through fan-out and fan-in,
 * stopping mid-stream, backpressure, stage errors */
#include "accel-test.h"
#include "test-stages.h"
#include "core/pattern.h"

/* when set, every stage runs on this one shared thread */
static const char *shared_thread;

static AccelStage *
add (AccelGraph *g, const char *kind, const char *name)
{
  AccelStage *s = accel_test_stage (g, kind, name);

  if (shared_thread)
    g_object_set (s, "thread", shared_thread, NULL);
  return s;
}

static AccelStage *
source (AccelGraph *g, const char *name, gint64 n, const char *shape)
{
  AccelStage *s = add (g, "core.test-source", name);

  g_object_set (s, "num-buffers", n, "shape", shape, NULL);
  return s;
}

static void
link_ok (AccelGraph *g, const char *a, const char *b)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (accel_graph_link (g, a, b, &error));
  g_assert_no_error (error);
}

static void
test_type_mismatch (void)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("mismatch");
  g_autoptr (GError) error = NULL;

  source (g, "numbers", 1, "16");
  add (g, "test.image-sink", "screen");
  link_ok (g, "numbers", "screen");
  g_assert_false (accel_graph_prepare (g, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH);
  /* both stages, both ports, both types */
  g_assert_cmpstr (error->message, ==,
      "cannot link 'numbers.out' "
      "(core.test-source) to 'screen.frames' (test.image-sink): output type "
      "tensor<f32>[16]@device does not fit input type "
      "image<RGBA8>[?x?]@any: kind tensor is not image");
}

static void
test_invalid_graphs (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("invalid");
  g_autoptr (AccelGraph) empty = accel_graph_new ("empty");
  AccelStage *dup;

  source (g, "src", 1, "4");
  add (g, "core.scale", "a");
  add (g, "core.scale", "b");
  add (g, "core.null-sink", "sink");

  dup = accel_stage_new ("core.scale", "a", NULL);
  g_assert_false (accel_graph_add (g, dup, &error));
  g_assert_cmpstr (
      error->message, ==, "graph 'invalid' already has a stage named 'a'");
  g_clear_error (&error);
  g_object_unref (dup);

  g_assert_false (accel_graph_link (g, "src", "nowhere", &error));
  g_assert_cmpstr (
      error->message, ==, "graph 'invalid' has no stage named 'nowhere'");
  g_clear_error (&error);
  g_assert_false (accel_graph_link (g, "src.bogus", "a", &error));
  g_assert_cmpstr (error->message, ==,
      "stage 'src' (core.test-source) has no output port 'bogus'");
  g_clear_error (&error);
  g_assert_false (accel_graph_link (g, "sink", "a", &error));
  g_assert_cmpstr (
      error->message, ==, "stage 'sink' (core.null-sink) has no output ports");
  g_clear_error (&error);

  /* an input left unlinked */
  link_ok (g, "src", "a");
  g_assert_false (accel_graph_prepare (g, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (
      error->message, ==, "input 'b.in' (core.scale) is not linked");
  g_clear_error (&error);

  g_assert_false (accel_graph_prepare (empty, &error));
  g_assert_cmpstr (error->message, ==, "graph 'empty' has no stages");
}

static void
test_unlinked_and_cycle (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("open");
  g_autoptr (AccelGraph) c = accel_graph_new ("loop");

  source (g, "src", 1, "4");
  add (g, "core.null-sink", "sink");
  add (g, "test.pair-sink", "pair");
  link_ok (g, "src", "sink");
  link_ok (g, "src", "pair.a");
  g_assert_false (accel_graph_link (g, "src", "pair.a", &error));
  g_assert_cmpstr (
      error->message, ==, "input 'pair.a' is already linked to 'src.out'");
  g_clear_error (&error);
  g_assert_false (accel_graph_prepare (g, &error));
  g_assert_cmpstr (
      error->message, ==, "input 'pair.b' (test.pair-sink) is not linked");
  g_clear_error (&error);

  source (c, "src", 1, "4");
  add (c, "test.pair-sink", "join");
  add (c, "core.scale", "x");
  add (c, "core.scale", "y");
  link_ok (c, "src", "join.a");
  link_ok (c, "x", "y");
  link_ok (c, "y", "x");
  link_ok (c, "y", "join.b");
  g_assert_false (accel_graph_prepare (c, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (
      error->message, ==, "graph 'loop' has a cycle through 'x', 'y'");
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
test_fan_out_fan_in_eos (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("diamond");
  g_autoptr (GArray) pairs = NULL;
  g_autofree gchar *digest = NULL, *expected = NULL;
  AccelStage *sum, *pair;
  const guint64 n = 50;

  source (g, "src", (gint64)n, "1000");
  g_object_set (
      add (g, "core.scale", "twice"), "scale", 2.0f, "offset", 1.0f, NULL);
  add (g, "core.scale", "same");
  sum = add (g, "core.checksum-sink", "sum");
  pair = add (g, "test.pair-sink", "pair");
  link_ok (g, "src", "twice");
  link_ok (g, "src", "same");
  link_ok (g, "twice", "sum");
  link_ok (g, "twice", "pair.a");
  link_ok (g, "same", "pair.b");

  g_assert_true (accel_graph_run (g, &error));
  g_assert_no_error (error);

  pairs = test_pair_sink_get_pairs (TEST_PAIR_SINK (pair));
  g_assert_cmpuint (pairs->len, ==, 2 * n);
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpuint (g_array_index (pairs, guint64, 2 * i), ==, i);
      g_assert_cmpuint (g_array_index (pairs, guint64, 2 * i + 1), ==, i);
    }
  g_assert_cmpuint (accel_stage_get_n_dropped (pair), ==, 0);

  g_assert_cmpuint (
      accel_checksum_sink_get_n_received (ACCEL_CHECKSUM_SINK (sum)), ==, n);
  digest = accel_checksum_sink_dup_digest (ACCEL_CHECKSUM_SINK (sum));
  expected = expected_digest (n, 1000, 2.0f, 1.0f);
  g_assert_cmpstr (digest, ==, expected);
}

/* a fan-in ends with its shortest input: an endless source there learns
 * that nothing more is taken and ends too, and a source that also feeds
 * another branch goes on with that one alone (as GStreamer's EOS returned
 * upstream) */
static void
test_fan_in_ends_with_shortest (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("shortest");
  g_autoptr (GArray) pairs = NULL;
  AccelStage *pair, *sum, *endless;
  const guint64 n = 40;

  source (g, "few", 5, "100");
  endless = source (g, "endless", -1, "100");
  source (g, "many", (gint64)n, "100");
  add (g, "core.scale", "mid");
  pair = add (g, "test.pair-sink", "pair");
  add (g, "test.pair-sink", "pair2");
  sum = add (g, "core.checksum-sink", "sum");
  link_ok (g, "few", "pair.a");
  link_ok (g, "endless", "mid");
  link_ok (g, "mid", "pair.b");
  /* many feeds pair2 (ended by few) and sum, which wants all of it */
  link_ok (g, "few", "pair2.a");
  link_ok (g, "many", "pair2.b");
  link_ok (g, "many", "sum");

  g_assert_true (accel_graph_run (g, &error));
  g_assert_no_error (error);

  pairs = test_pair_sink_get_pairs (TEST_PAIR_SINK (pair));
  g_assert_cmpuint (pairs->len, ==, 2 * 5);
  g_assert_cmpuint (
      accel_checksum_sink_get_n_received (ACCEL_CHECKSUM_SINK (sum)), ==, n);
  /* the endless source stopped within a few frames of the end */
  g_assert_cmpuint (accel_stage_get_n_processed (endless), <, 5 + 64);
}

static void
test_stop_mid_stream (void)
{
  for (guint round = 0; round < 10; round++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (AccelGraph) g = accel_graph_new ("endless");
      gint64 t0;

      source (g, "src", -1, "4096");
      add (g, "core.scale", "a");
      add (g, "core.scale", "b");
      add (g, "test.slow-sink", "slow");
      add (g, "core.null-sink", "fast");
      link_ok (g, "src", "a");
      link_ok (g, "a", "b");
      link_ok (g, "b", "slow");
      link_ok (g, "a", "fast");
      g_assert_true (accel_graph_start (g, &error));
      g_assert_no_error (error);
      g_usleep (5000 * (round + 1));

      t0 = g_get_monotonic_time ();
      accel_graph_stop (g);
      g_assert_cmpint (g_get_monotonic_time () - t0, <, G_USEC_PER_SEC);
      /* stopping twice is harmless */
      accel_graph_stop (g);
    }
}

static void
test_backpressure (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("pressure");
  AccelStage *src, *mid, *slow;
  AccelPool *pool;
  guint64 produced, consumed;

  src = source (g, "src", -1, "1024");
  mid = add (g, "core.scale", "mid");
  slow = add (g, "test.slow-sink", "slow");
  g_object_set (src, "mailbox-size", 2, "pool-timeout", (gint64)-1, NULL);
  g_object_set (mid, "mailbox-size", 2, NULL);
  g_object_set (slow, "mailbox-size", 2, NULL);
  link_ok (g, "src", "mid");
  link_ok (g, "mid", "slow");

  g_assert_true (accel_graph_start (g, &error));
  g_usleep (200000);
  produced = accel_stage_get_n_processed (src);
  consumed = accel_stage_get_n_processed (slow);
  pool = accel_stage_get_output_pool (src, 0);
  /* the slow sink sets the pace: about 100 buffers in 200 ms, and the
   * source is never more than the buffers in flight ahead */
  g_assert_cmpuint (consumed, >, 20);
  g_assert_cmpuint (produced, <=, consumed + 2 * (2 + 3) + 2);
  g_assert_cmpuint (accel_pool_get_peak_outstanding (pool), <=,
      accel_pool_get_max_buffers (pool));
  g_assert_cmpuint (accel_pool_get_max_buffers (pool), ==, 2 + 3);
  accel_graph_stop (g);
}

static void
test_stage_error (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("failing");

  source (g, "src", -1, "64");
  g_object_set (add (g, "test.failer", "picky"), "on-fault",
      ACCEL_SUPERVISION_ESCALATE, NULL);
  add (g, "core.null-sink", "sink");
  link_ok (g, "src", "picky");
  link_ok (g, "picky", "sink");
  g_assert_false (accel_graph_run (g, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT);
  g_assert_cmpstr (error->message, ==,
      "stage 'picky' (test.failer): sequence 3 is not welcome");
}

static void
test_send_eos_and_frame_limit (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("limited");
  g_autoptr (AccelGraph) h = accel_graph_new ("interrupted");
  AccelStage *sink, *sink2;

  source (g, "src", -1, "64");
  sink = add (g, "core.checksum-sink", "sink");
  link_ok (g, "src", "sink");
  accel_graph_set_frame_limit (g, 7);
  g_assert_true (accel_graph_run (g, &error));
  g_assert_cmpuint (
      accel_checksum_sink_get_n_received (ACCEL_CHECKSUM_SINK (sink)), ==, 7);

  source (h, "src", -1, "64");
  sink2 = add (h, "core.checksum-sink", "sink");
  link_ok (h, "src", "sink");
  g_assert_true (accel_graph_start (h, &error));
  g_usleep (10000);
  accel_graph_send_eos (h);
  g_assert_true (accel_graph_wait (h, 5 * G_USEC_PER_SEC, &error));
  g_assert_no_error (error);
  /* everything produced before the end arrived */
  g_assert_cmpuint (
      accel_checksum_sink_get_n_received (ACCEL_CHECKSUM_SINK (sink2)), ==,
      accel_stage_get_n_processed (accel_graph_get_stage (h, "src")));
  accel_graph_stop (h);
}

static void
test_param_async (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("params");
  GValue v = G_VALUE_INIT;
  AccelStage *scale;
  gfloat got;

  source (g, "src", -1, "64");
  scale = add (g, "core.scale", "scale");
  add (g, "core.null-sink", "sink");
  link_ok (g, "src", "scale");
  link_ok (g, "scale", "sink");
  g_assert_true (accel_graph_start (g, &error));

  g_value_init (&v, G_TYPE_FLOAT);
  g_value_set_float (&v, 3.5f);
  g_assert_true (accel_stage_set_param_async (scale, "scale", &v));
  g_assert_false (accel_stage_set_param_async (scale, "no-such", &v));
  for (guint i = 0; i < 200; i++)
    {
      g_object_get (scale, "scale", &got, NULL);
      if (got == 3.5f)
        break;
      g_usleep (1000);
    }
  g_assert_cmpfloat (got, ==, 3.5f);
  accel_graph_stop (g);
}

static void
test_dot (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("dotted");
  g_autofree gchar *dot = NULL;

  source (g, "src", 1, "8x8");
  add (g, "core.null-sink", "sink");
  link_ok (g, "src", "sink");
  g_assert_true (accel_graph_prepare (g, &error));
  dot = accel_graph_to_dot (g);
  g_assert_true (g_str_has_prefix (dot, "digraph \"dotted\" {"));
  g_assert_nonnull (strstr (dot, "\"src\" -> \"sink\" [label=\"out -> in\\n"
                                 "tensor<f32>[8x8]@device\"]"));
}

/* the same test with every stage on one thread */
static void
on_one_thread (gconstpointer test)
{
  shared_thread = "shared";
  ((GTestFunc)test) ();
  shared_thread = NULL;
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  test_stages_register ();
  g_test_add_func ("/graph/type-mismatch-names-both", test_type_mismatch);
  g_test_add_func ("/graph/invalid", test_invalid_graphs);
  g_test_add_func ("/graph/unlinked-and-cycle", test_unlinked_and_cycle);
  g_test_add_func ("/graph/fan-out-fan-in-eos", test_fan_out_fan_in_eos);
  g_test_add_func (
      "/graph/fan-in-ends-with-shortest", test_fan_in_ends_with_shortest);
  g_test_add_func ("/graph/stop-mid-stream", test_stop_mid_stream);
  g_test_add_func ("/graph/backpressure", test_backpressure);
  g_test_add_func ("/graph/stage-error-names-stage", test_stage_error);
  g_test_add_func (
      "/graph/send-eos-and-frame-limit", test_send_eos_and_frame_limit);
  g_test_add_func ("/graph/param-async", test_param_async);
  g_test_add_func ("/graph/dot", test_dot);
  g_test_add_data_func ("/graph/one-thread/fan-out-fan-in-eos",
      test_fan_out_fan_in_eos, on_one_thread);
  g_test_add_data_func ("/graph/one-thread/fan-in-ends-with-shortest",
      test_fan_in_ends_with_shortest, on_one_thread);
  g_test_add_data_func (
      "/graph/one-thread/stop-mid-stream", test_stop_mid_stream, on_one_thread);
  g_test_add_data_func (
      "/graph/one-thread/backpressure", test_backpressure, on_one_thread);
  g_test_add_data_func ("/graph/one-thread/stage-error-names-stage",
      test_stage_error, on_one_thread);
  g_test_add_data_func ("/graph/one-thread/send-eos-and-frame-limit",
      test_send_eos_and_frame_limit, on_one_thread);
  return g_test_run ();
}
