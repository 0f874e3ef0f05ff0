/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* graph mode on a GPU: every kind that can be captured gives, replayed from
 * its CUDA graph, the same bytes as with stream launches (a SHA-256 per
 * frame); its work really was replayed; the steady state allocates and
 * captures nothing; a parameter changed while running takes effect, in a
 * stepped graph exactly at the next frame.
 * Skips without a GPU. */
#include "accel-test.h"

#include <accelcore.h>

typedef struct
{
  const char *name;
  const char *yaml;            /* its checksum sink is "sum" */
  const char *const *captured; /* stages whose work must be replayed */
} Case;

#define STAGES(...) ((const char *const[]){ __VA_ARGS__, NULL })

#define IMAGE_SOURCE                                                           \
  "  - {name: src, kind: io.pattern-source, params: {pattern: noise, width: "  \
  "96, height: 64, num-buffers: 12}}\n"

static const Case cases[] = {
  { "scale chain",
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {shape: '4096', "
      "num-buffers: 12}}\n"
      "  - {name: a, kind: core.scale, params: {scale: 1.5}}\n"
      "  - {name: b, kind: core.scale, params: {offset: -2}}\n"
      "  - {name: sum, kind: core.checksum-sink}\n"
      "links: [src -> a, a -> b, b -> sum]\n",
      STAGES ("a", "b") },
  { "image filters",
      "stages:\n" IMAGE_SOURCE
      "  - {name: g, kind: realtime.gaussian-blur, params: {sigma: 2}}\n"
      "  - {name: x, kind: realtime.box-blur, params: {radius: 2}}\n"
      "  - {name: m, kind: realtime.median}\n"
      "  - {name: e, kind: realtime.sobel}\n"
      "  - {name: t, kind: realtime.threshold}\n"
      "  - {name: u, kind: realtime.unsharp, params: {amount: 1.5}}\n"
      "  - {name: sum, kind: core.checksum-sink}\n"
      "links: [src -> g, g -> x, x -> m, m -> e, e -> t, t -> u, u -> sum]\n",
      STAGES ("g", "x", "m", "e", "t", "u") },
  { "resize and convert",
      "stages:\n" IMAGE_SOURCE
      "  - {name: r, kind: realtime.resize, params: {width: 150, height: "
      "70}}\n"
      "  - {name: c, kind: realtime.convert, params: {format: NV12}}\n"
      "  - {name: sum, kind: core.checksum-sink}\n"
      "links: [src -> r, r -> c, c -> sum]\n",
      STAGES ("r", "c") },
  { "effects, blend and analysis",
      "stages:\n" IMAGE_SOURCE
      "  - {name: bars, kind: io.pattern-source, params: {pattern: smpte, "
      "width: 96, height: 64}}\n"
      "  - {name: fx, kind: realtime.effects, params: {effects: 'contrast=1.2 "
      "vignette=0.4 echo'}}\n"
      "  - {name: mix, kind: realtime.blend, params: {mode: screen}}\n"
      "  - {name: an, kind: realtime.analysis}\n"
      "  - {name: sum, kind: core.checksum-sink}\n"
      "  - {name: stats, kind: core.null-sink}\n"
      "  - {name: hist, kind: core.null-sink}\n"
      "links: [src -> fx, fx -> mix.a, bars -> mix.b, mix -> an, an.out -> "
      "sum, an.stats -> stats, an.histogram -> hist]\n",
      STAGES ("fx", "mix", "an") },
  { "fluid",
      "stages:\n"
      "  - {name: sim, kind: realtime.fluid, params: {grid-size: 128, "
      "num-buffers: 12}}\n"
      "  - {name: sum, kind: core.checksum-sink}\n"
      "links: [sim -> sum]\n",
      STAGES ("sim") },
  { "cloth without wind",
      "stages:\n"
      "  - {name: sim, kind: realtime.cloth, params: {wind: 0, num-buffers: "
      "12}}\n"
      "  - {name: sum, kind: core.checksum-sink}\n"
      "links: [sim -> sum]\n",
      STAGES ("sim") },
  { "particles splatted",
      "stages:\n"
      "  - {name: sim, kind: realtime.particles, params: {capacity: 4096, "
      "seed: 3, num-buffers: 12}}\n"
      "  - {name: render, kind: realtime.splat, params: {width: 64, height: "
      "64, scale: 32}}\n"
      "  - {name: sum, kind: core.checksum-sink}\n"
      "links: [sim -> render, render -> sum]\n",
      STAGES ("render") },
  { "particles' neighbours",
      "stages:\n"
      "  - {name: sim, kind: realtime.particles, params: {capacity: 4096, "
      "seed: 5, num-buffers: 16}}\n"
      "  - {name: nb, kind: realtime.neighbours, params: {radius: 0.1}}\n"
      "  - {name: sum, kind: core.checksum-sink}\n"
      "links: [sim -> nb, nb -> sum]\n",
      STAGES ("nb") },
  { "cuBLAS and cuBLASLt",
      "stages:\n"
      "  - {name: x, kind: rand.uniform, params: {shape: 64x96, seed: 1, "
      "num-buffers: 12}}\n"
      "  - {name: w, kind: rand.normal, params: {shape: 96x32, seed: 2}}\n"
      "  - {name: b, kind: rand.normal, params: {shape: '32', seed: 3}}\n"
      "  - {name: v, kind: rand.normal, params: {shape: '32', seed: 4}}\n"
      "  - {name: mm, kind: blaslt.matmul-bias, params: {epilogue: relu}}\n"
      "  - {name: mv, kind: blas.gemv}\n"
      "  - {name: ax, kind: blas.axpy, params: {alpha: 0.5}}\n"
      "  - {name: dt, kind: blas.dot}\n"
      "  - {name: sum, kind: core.checksum-sink}\n"
      "links: [x.out -> mm.a, w.out -> mm.b, b.out -> mm.bias, mm.out -> "
      "mv.a, v.out -> mv.x, mv.y -> ax.x, mv.y -> ax.y, ax.out -> dt.x, "
      "ax.out -> dt.y, dt -> sum]\n",
      STAGES ("mm", "mv", "ax", "dt") },
  { "cuBLAS gemm and cuBLASLt matmul",
      "stages:\n"
      "  - {name: x, kind: rand.uniform, params: {shape: 64x64, seed: 5, "
      "num-buffers: 12}}\n"
      "  - {name: y, kind: rand.uniform, params: {shape: 64x64, seed: 6}}\n"
      "  - {name: g, kind: blas.gemm}\n"
      "  - {name: m, kind: blaslt.matmul, params: {epilogue: gelu}}\n"
      "  - {name: sum, kind: core.checksum-sink}\n"
      "links: [x.out -> g.a, y.out -> g.b, g.out -> m.a, y.out -> m.b, m -> "
      "sum]\n",
      STAGES ("g", "m") },
  { "cuFFT",
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {shape: 8x1024, "
      "num-buffers: 12}}\n"
      "  - {name: f, kind: fft.forward, params: {rank: 1}}\n"
      "  - {name: i, kind: fft.inverse, params: {rank: 1, normalize: true}}\n"
      "  - {name: sum, kind: core.checksum-sink}\n"
      "links: [src -> f, f -> i, i -> sum]\n",
      STAGES ("f", "i") },
  { "cuDNN",
      "stages:\n"
      "  - {name: image, kind: rand.uniform, params: {shape: 1x3x32x32, seed: "
      "1, num-buffers: 12}}\n"
      "  - {name: w1, kind: rand.normal, params: {shape: 8x3x3x3, seed: 2, "
      "stddev: 0.2}}\n"
      "  - {name: b1, kind: rand.normal, params: {shape: '8', seed: 3}}\n"
      "  - {name: w2, kind: rand.normal, params: {shape: 4x8x3x3, seed: 4}}\n"
      "  - {name: c1, kind: dnn.conv2d-bias, params: {pad-h: 1, pad-w: 1, "
      "activation: relu}}\n"
      "  - {name: c2, kind: dnn.conv2d, params: {stride-h: 2, stride-w: 2}}\n"
      "  - {name: sum, kind: core.checksum-sink}\n"
      "links: [image.out -> c1.in, w1.out -> c1.weights, b1.out -> c1.bias, "
      "c1.out -> c2.in, w2.out -> c2.weights, c2 -> sum]\n",
      STAGES ("c1", "c2") },
  { "a copy the graph inserts, host to device",
      "stages:\n"
      "  - {name: src, kind: core.test-source, device: host, params: {shape: "
      "'65536', num-buffers: 16}}\n"
      "  - {name: a, kind: core.scale, params: {scale: -0.5}}\n"
      "  - {name: sum, kind: core.checksum-sink}\n"
      "links: [src -> a, a -> sum]\n",
      STAGES ("src.out->a.in", "a") },
  { "NVRTC",
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {shape: '65536', "
      "num-buffers: 12}}\n"
      "  - name: k\n"
      "    kind: nvrtc.kernel\n"
      "    params:\n"
      "      source: |\n"
      "        extern \"C\" __global__ void\n"
      "        kernel (const float *in, float *out, long long n)\n"
      "        {\n"
      "          long long i = blockIdx.x * (long long)blockDim.x + "
      "threadIdx.x;\n"
      "          if (i < n)\n"
      "            out[i] = in[i] * in[i] - 3.0f;\n"
      "        }\n"
      "  - {name: sum, kind: core.checksum-sink}\n"
      "links: [src -> k, k -> sum]\n",
      STAGES ("k") },
};

/* runs @c with graph mode @mode; the per-frame checksums, joined */
static gchar *
run_case (const Case *c, AccelCaptureMode mode)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *yaml
      = g_strdup_printf ("pipeline: graph-mode\n%s", c->yaml);
  g_autoptr (AccelGraph) g
      = accel_graph_new_from_yaml_string (yaml, c->name, &error);
  g_auto (GStrv) sums = NULL;

  g_assert_no_error (error);
  accel_graph_set_capture_mode (g, mode);
  g_assert_true (accel_graph_run (g, &error));
  g_assert_no_error (error);
  for (guint i = 0; c->captured[i]; i++)
    {
      AccelStage *st = accel_graph_get_stage (g, c->captured[i]);
      guint64 replayed;

      g_assert_nonnull (st);
      replayed = accel_stage_get_n_replayed (st);

      g_test_message ("%s: '%s' replayed %" G_GUINT64_FORMAT
                      " frames, captured %" G_GUINT64_FORMAT,
          c->name, c->captured[i], replayed, accel_stage_get_n_captured (st));
      if (mode == ACCEL_CAPTURE_OFF)
        g_assert_cmpuint (replayed, ==, 0);
      else
        g_assert_cmpuint (replayed, >, 0);
    }
  sums = accel_checksum_sink_dup_checksums (accel_graph_get_stage (g, "sum"));
  g_assert_cmpuint (g_strv_length (sums), >=, 10);
  return g_strjoinv ("\n", sums);
}

static void
test_same_bytes (gconstpointer data)
{
  const Case *c = data;
  g_autofree gchar *launched = run_case (c, ACCEL_CAPTURE_OFF);
  g_autofree gchar *replayed = run_case (c, ACCEL_CAPTURE_AUTO);

  g_assert_cmpstr (replayed, ==, launched);
}

static guint64
total_captured (AccelGraph *g)
{
  GPtrArray *stages = accel_graph_get_stages (g);
  guint64 n = 0;

  for (guint i = 0; i < stages->len; i++)
    n += accel_stage_get_n_captured (stages->pdata[i]);
  return n;
}

/* a source, eight small kernels and a sink, in graph mode: after warming
 * up, 1 000 frames allocate no buffer and capture no graph */
static void
test_steady_state (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("steady");
  const char *prev = "src";
  AccelStage *src, *sink;
  guint64 allocs, captures;

  src = accel_test_stage (g, "core.test-source", "src");
  g_object_set (src, "shape", "65536", "num-buffers", (gint64)1400, NULL);
  for (guint i = 0; i < 8; i++)
    {
      g_autofree gchar *name = g_strdup_printf ("k%u", i);
      accel_test_stage (g, "core.scale", name);
      g_assert_true (accel_graph_link (g, prev, name, &error));
      prev = accel_stage_get_name (accel_graph_get_stage (g, name));
    }
  sink = accel_test_stage (g, "core.null-sink", "sink");
  g_assert_true (accel_graph_link (g, prev, "sink", &error));
  g_assert_true (accel_graph_start (g, &error));
  g_assert_no_error (error);

  accel_test_wait_processed (sink, 200);
  allocs = accel_debug_get_n_allocations ();
  captures = total_captured (g);
  accel_test_wait_processed (sink, 1200);
  g_assert_cmpuint (accel_debug_get_n_allocations (), ==, allocs);
  g_assert_cmpuint (total_captured (g), ==, captures);
  g_assert_true (accel_graph_wait (g, -1, &error));
  g_assert_no_error (error);
  g_test_message ("k0 replayed %" G_GUINT64_FORMAT
                  " of 1400 frames after %" G_GUINT64_FORMAT " captures",
      accel_stage_get_n_replayed (accel_graph_get_stage (g, "k0")), captures);
  g_assert_cmpuint (
      accel_stage_get_n_replayed (accel_graph_get_stage (g, "k0")), >, 1000);
}

/* a parameter set while running on a still picture: every frame before
 * the change has one checksum, every frame after it another; a replay of
 * the graph captured with the old value would bring the first back */
static void
test_parameter_change (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("param");
  AccelStage *src, *cut, *sink;
  GValue v = G_VALUE_INIT;
  g_auto (GStrv) sums = NULL;
  guint n, switched = 0;

  src = accel_test_stage (g, "io.pattern-source", "src");
  cut = accel_test_stage (g, "realtime.threshold", "cut");
  sink = accel_test_stage (g, "core.checksum-sink", "sink");
  /* the default pattern, SMPTE bars, is the same every frame */
  g_object_set (src, "width", 64, "height", 48, NULL);
  g_assert_true (accel_graph_link (g, "src", "cut", &error));
  g_assert_true (accel_graph_link (g, "cut", "sink", &error));
  g_assert_true (accel_graph_start (g, &error));
  g_assert_no_error (error);
  accel_test_wait_processed (sink, 50);
  g_value_init (&v, G_TYPE_FLOAT);
  g_value_set_float (&v, 0.1f);
  g_assert_true (accel_stage_set_param_async (cut, "value", &v));
  g_value_unset (&v);
  accel_test_wait_processed (sink, accel_stage_get_n_processed (sink) + 50);
  accel_graph_stop (g);
  accel_graph_wait (g, -1, NULL);

  sums = accel_checksum_sink_dup_checksums (sink);
  n = g_strv_length (sums);
  for (guint i = 1; i < n; i++)
    if (!g_str_equal (sums[i], sums[i - 1]))
      {
        g_assert_cmpuint (switched, ==, 0);
        switched = i;
      }
  g_test_message ("%u frames, the new value from frame %u; %" G_GUINT64_FORMAT
                  " replayed",
      n, switched, accel_stage_get_n_replayed (cut));
  g_assert_cmpuint (switched, >=, 50);
  g_assert_cmpuint (accel_stage_get_n_replayed (cut), >, 50);
}

/* stepped, in graph mode: a parameter set between two steps applies
 * exactly at the next frame, whose graph is captured anew; the frames
 * around it are replays */
static void
test_stepped (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("stepped");
  AccelStage *cut, *sink;
  GValue v = G_VALUE_INIT;
  g_auto (GStrv) sums = NULL;

  g_object_set (accel_test_stage (g, "io.pattern-source", "src"), "width", 64,
      "height", 48, "num-buffers", (gint64)40, NULL);
  cut = accel_test_stage (g, "realtime.threshold", "cut");
  sink = accel_test_stage (g, "core.checksum-sink", "sink");
  g_assert_true (accel_graph_link (g, "src", "cut", &error));
  g_assert_true (accel_graph_link (g, "cut", "sink", &error));
  accel_graph_set_stepped (g, TRUE);
  g_assert_true (accel_graph_start (g, &error));
  g_value_init (&v, G_TYPE_FLOAT);
  g_value_set_float (&v, 0.1f);
  for (guint i = 0; i < 40; i++)
    {
      if (i == 25)
        g_assert_true (accel_stage_set_param_async (cut, "value", &v));
      g_assert_true (accel_graph_step (g, 10 * G_USEC_PER_SEC, &error));
      g_assert_no_error (error);
    }
  g_value_unset (&v);
  /* a stepped source ends only when stepped past its last frame */
  g_assert_false (accel_graph_step (g, 10 * G_USEC_PER_SEC, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED);
  g_clear_error (&error);
  g_assert_true (accel_graph_wait (g, 10 * G_USEC_PER_SEC, &error));
  sums = accel_checksum_sink_dup_checksums (sink);
  g_assert_cmpuint (g_strv_length (sums), ==, 40);
  for (guint i = 1; i < 40; i++)
    if (i == 25)
      g_assert_cmpstr (sums[i], !=, sums[i - 1]);
    else
      g_assert_cmpstr (sums[i], ==, sums[i - 1]);
  g_test_message ("threshold: %" G_GUINT64_FORMAT
                  " replayed, %" G_GUINT64_FORMAT " captured",
      accel_stage_get_n_replayed (cut), accel_stage_get_n_captured (cut));
  g_assert_cmpuint (accel_stage_get_n_replayed (cut), >, 20);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  accel_test_require_gpu ();
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree gchar *path
          = g_strdup_printf ("/graph-mode/same-bytes/%s", cases[i].name);
      g_strdelimit (path + 1, " ,", '-');
      g_test_add_data_func (path, &cases[i], test_same_bytes);
    }
  g_test_add_func ("/graph-mode/steady-state", test_steady_state);
  g_test_add_func ("/graph-mode/parameter-change", test_parameter_change);
  g_test_add_func ("/graph-mode/stepped", test_stepped);
  return g_test_run ();
}
