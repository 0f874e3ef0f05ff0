/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* hop overhead: a chain of K pass-through GPU stages against a raw CUDA
 * loop launching the same kernels on one stream, in the same run */
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <time.h>

#include "accel-test.h"
#include "core/pattern.h"

#define N_ELEMENTS (64 * 1024) /* 256 KiB of f32: a small kernel */

static double
cpu_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void
check (int status, const char *what)
{
  if (status != cudaSuccess)
    g_error ("%s: %s", what, cudaGetErrorString (status));
}

/* scale i reads bufs[i] and writes the next, wrapping at @n_bufs: two
 * buffers ping-pong, K + 1 make a chain */
static void
enqueue_scales (cudaStream_t stream, float **bufs, guint n_bufs, guint k)
{
  for (guint i = 0; i < k; i++)
    check (accel_scale_f32 (stream, bufs[i % n_bufs], bufs[(i + 1) % n_bufs],
               N_ELEMENTS, 1.0f, 0.0f, 0),
        "scale");
}

static void
capture_scales (cudaStream_t stream, float **bufs, guint n_bufs, guint k,
    cudaGraph_t *captured, cudaGraphExec_t *exec)
{
  check (cudaStreamBeginCapture (stream, cudaStreamCaptureModeThreadLocal),
      "capture");
  enqueue_scales (stream, bufs, n_bufs, k);
  check (cudaStreamEndCapture (stream, captured), "end capture");
  check (cudaGraphInstantiate (exec, *captured, 0), "instantiate");
}

/* what the pipeline does, by hand: fill, then K scales, on one stream;
 * with @graph the K scales captured once into a CUDA graph and replayed
 * per buffer after the fill, what graph mode aims at */
static void
raw_loop (guint k, guint n_buffers, gboolean graph, double *wall, double *cpu)
{
  cudaStream_t stream;
  cudaGraph_t captured = NULL;
  cudaGraphExec_t exec = NULL;
  float *bufs[2];
  gint64 t0;
  double c0;

  check (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking), "stream");
  check (cudaMalloc ((void **)&bufs[0], N_ELEMENTS * 4), "malloc");
  check (cudaMalloc ((void **)&bufs[1], N_ELEMENTS * 4), "malloc");
  if (graph)
    capture_scales (stream, bufs, 2, k, &captured, &exec);
  check (cudaDeviceSynchronize (), "sync");

  t0 = g_get_monotonic_time ();
  c0 = cpu_seconds ();
  for (guint b = 0; b < n_buffers; b++)
    {
      check (
          accel_pattern_fill_f32 (stream, bufs[0], N_ELEMENTS, b, 0), "fill");
      if (graph)
        check (cudaGraphLaunch (exec, stream), "launch");
      else
        enqueue_scales (stream, bufs, 2, k);
    }
  check (cudaStreamSynchronize (stream), "sync");
  *wall = (g_get_monotonic_time () - t0) * 1e-6;
  *cpu = cpu_seconds () - c0;

  if (graph)
    {
      cudaGraphExecDestroy (exec);
      cudaGraphDestroy (captured);
    }
  cudaFree (bufs[0]);
  cudaFree (bufs[1]);
  cudaStreamDestroy (stream);
}

/* the hand-made graph as graph mode runs it: every stage's pool cycles
 * through its buffers in step, so @n_graphs graphs of the K scales, each on
 * its own K + 1 buffers, are launched in turn after their fill; tells what
 * the GPU pays for switching between graphs rather than for the engine */
#define MAX_HAND_GRAPHS 8
static void
hand_graphs (guint k, guint n_buffers, guint n_graphs, double *wall)
{
  cudaStream_t stream;
  cudaGraph_t captured[MAX_HAND_GRAPHS];
  cudaGraphExec_t exec[MAX_HAND_GRAPHS];
  float *bufs[MAX_HAND_GRAPHS][9];
  gint64 t0;

  g_assert_true (k <= 8 && n_graphs <= MAX_HAND_GRAPHS);
  check (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking), "stream");
  for (guint g = 0; g < n_graphs; g++)
    {
      for (guint i = 0; i <= k; i++)
        check (cudaMalloc ((void **)&bufs[g][i], N_ELEMENTS * 4), "malloc");
      capture_scales (stream, bufs[g], k + 1, k, &captured[g], &exec[g]);
    }
  check (cudaDeviceSynchronize (), "sync");

  t0 = g_get_monotonic_time ();
  for (guint b = 0; b < n_buffers; b++)
    {
      guint g = b % n_graphs;
      check (accel_pattern_fill_f32 (stream, bufs[g][0], N_ELEMENTS, b, 0),
          "fill");
      check (cudaGraphLaunch (exec[g], stream), "launch");
    }
  check (cudaStreamSynchronize (stream), "sync");
  *wall = (g_get_monotonic_time () - t0) * 1e-6;

  for (guint g = 0; g < n_graphs; g++)
    {
      cudaGraphExecDestroy (exec[g]);
      cudaGraphDestroy (captured[g]);
      for (guint i = 0; i <= k; i++)
        cudaFree (bufs[g][i]);
    }
  cudaStreamDestroy (stream);
}

static void
pipeline (guint k, guint n_buffers, AccelStreamPolicy policy, gboolean segments,
    AccelCaptureMode capture, const char *thread, double *wall, double *cpu)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("hops");
  g_autofree gchar *shape = g_strdup_printf ("%d", N_ELEMENTS);
  const char *prev = "src";
  AccelStage *src;
  gint64 t0;
  double c0;

  accel_graph_set_stream_policy (g, policy, 1);
  accel_graph_set_segments (g, segments);
  accel_graph_set_capture_mode (g, capture);
  src = accel_test_stage (g, "core.test-source", "src");
  g_object_set (src, "shape", shape, "num-buffers", (gint64)n_buffers, NULL);
  g_object_set (src, "thread", thread, NULL);
  for (guint i = 0; i < k; i++)
    {
      g_autofree gchar *name = g_strdup_printf ("pass%u", i);
      g_object_set (
          accel_test_stage (g, "core.scale", name), "thread", thread, NULL);
      g_assert_true (accel_graph_link (g, prev, name, &error));
      prev = accel_stage_get_name (accel_graph_get_stage (g, name));
    }
  g_object_set (
      accel_test_stage (g, "core.null-sink", "sink"), "thread", thread, NULL);
  g_assert_true (accel_graph_link (g, prev, "sink", &error));
  g_assert_true (accel_graph_prepare (g, &error));

  t0 = g_get_monotonic_time ();
  c0 = cpu_seconds ();
  g_assert_true (accel_graph_run (g, &error));
  g_assert_no_error (error);
  *wall = (g_get_monotonic_time () - t0) * 1e-6;
  *cpu = cpu_seconds () - c0;
}

static int
cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *)a, y = *(const double *)b;

  return (x > y) - (x < y);
}

/* what the metrics cost: the default K = 4 chain with them and without
 * (ACCEL_DEBUG_NO_METRICS), alternated so drifts of the host hit both,
 * each pair in the other order from the last so neither always runs
 * first; the medians of the pairs' wall and CPU time per buffer */
#define METRICS_PAIRS 7
static void
metrics_cost (guint n)
{
  double on_w[METRICS_PAIRS], off_w[METRICS_PAIRS];
  double on_c[METRICS_PAIRS], off_c[METRICS_PAIRS];

  for (guint i = 0; i < METRICS_PAIRS; i++)
    for (guint j = 0; j < 2; j++)
      {
        gboolean on = (i + j) % 2 == 1;

        accel_debug_set_flags (on ? ACCEL_DEBUG_NONE : ACCEL_DEBUG_NO_METRICS);
        pipeline (4, n, ACCEL_STREAM_POLICY_PER_STAGE, TRUE, ACCEL_CAPTURE_AUTO,
            NULL, on ? &on_w[i] : &off_w[i], on ? &on_c[i] : &off_c[i]);
      }
  accel_debug_set_flags (ACCEL_DEBUG_NONE);
  qsort (on_w, METRICS_PAIRS, sizeof (double), cmp_double);
  qsort (off_w, METRICS_PAIRS, sizeof (double), cmp_double);
  qsort (on_c, METRICS_PAIRS, sizeof (double), cmp_double);
  qsort (off_c, METRICS_PAIRS, sizeof (double), cmp_double);
  g_print ("metrics cost, K=4 default chain, median of %d alternated runs: "
           "wall %+.2f%% (%.0f against %.0f buf/s), host CPU %+.2f%% "
           "(%.2f against %.2f us/buf)\n",
      METRICS_PAIRS,
      (on_w[METRICS_PAIRS / 2] / off_w[METRICS_PAIRS / 2] - 1) * 100,
      n / on_w[METRICS_PAIRS / 2], n / off_w[METRICS_PAIRS / 2],
      (on_c[METRICS_PAIRS / 2] / off_c[METRICS_PAIRS / 2] - 1) * 100,
      on_c[METRICS_PAIRS / 2] / n * 1e6, off_c[METRICS_PAIRS / 2] / n * 1e6);
}

typedef struct
{
  const char *name;
  AccelStreamPolicy policy;
  gboolean segments;
  AccelCaptureMode capture;
  const char *thread; /* NULL: a thread per stage, or per segment */
} Config;

int
main (int argc, char **argv)
{
  guint ks[] = { 1, 4, 8 };
  const Config configs[] = {
    { "segments, graphs (the default)", ACCEL_STREAM_POLICY_PER_STAGE, TRUE,
        ACCEL_CAPTURE_AUTO, NULL },
    { "segments, stream launches", ACCEL_STREAM_POLICY_PER_STAGE, TRUE,
        ACCEL_CAPTURE_OFF, NULL },
    { "threads, streams per stage", ACCEL_STREAM_POLICY_PER_STAGE, FALSE,
        ACCEL_CAPTURE_OFF, NULL },
    { "one thread, streams per stage", ACCEL_STREAM_POLICY_PER_STAGE, FALSE,
        ACCEL_CAPTURE_OFF, "chain" },
    { "one thread, one stream", ACCEL_STREAM_POLICY_SINGLE, FALSE,
        ACCEL_CAPTURE_OFF, "chain" },
  };
  guint n = argc > 1 ? (guint)atoi (argv[1]) : 20000;

  accel_test_require_gpu ();
  g_print ("hop overhead: %u buffers of %d f32, one kernel per stage\n", n,
      N_ELEMENTS);
  g_print ("%-30s %2s %10s %10s %6s %11s %11s %11s\n", "configuration", "K",
      "raw buf/s", "accel", "ratio", "raw cpu/b", "accel cpu/b", "host us/hop");

  /* warm up: module load, pools, streams */
  {
    double w, c;
    raw_loop (4, 200, FALSE, &w, &c);
    pipeline (4, 200, ACCEL_STREAM_POLICY_PER_STAGE, TRUE, ACCEL_CAPTURE_AUTO,
        NULL, &w, &c);
    raw_loop (4, 200, TRUE, &w, &c);
  }

  for (guint p = 0; p < G_N_ELEMENTS (configs); p++)
    for (guint i = 0; i < G_N_ELEMENTS (ks); i++)
      {
        double rw, rc, pw, pc;
        /* ratio: time against the raw loop, measured just before; engine
         * host time per hop: CPU beyond the raw launches over K + 1 links */
        raw_loop (ks[i], n, FALSE, &rw, &rc);
        pipeline (ks[i], n, configs[p].policy, configs[p].segments,
            configs[p].capture, configs[p].thread, &pw, &pc);
        g_print ("%-30s %2u %10.0f %10.0f %6.3f %9.2fus %9.2fus %9.2fus\n",
            configs[p].name, ks[i], n / rw, n / pw, pw / rw, rc / n * 1e6,
            pc / n * 1e6, (pc - rc) / n / (ks[i] + 1) * 1e6);
      }

  metrics_cost (n);

  /* graph mode against stream launches and against the hand-made graph,
   * K = 8, measured back to back */
  {
    double gw, gc, sw, sc, hw, hc;
    raw_loop (8, n, TRUE, &hw, &hc);
    pipeline (8, n, ACCEL_STREAM_POLICY_PER_STAGE, TRUE, ACCEL_CAPTURE_AUTO,
        NULL, &gw, &gc);
    pipeline (8, n, ACCEL_STREAM_POLICY_PER_STAGE, TRUE, ACCEL_CAPTURE_OFF,
        NULL, &sw, &sc);
    g_print ("K=8 graph mode: %.0f buf/s, %.2fx stream launches (%.0f buf/s), "
             "%.3f of a hand-captured graph's time (%.0f buf/s)\n",
        n / gw, sw / gw, n / sw, gw / hw, n / hw);
  }

  /* the hand-made graph launched in turn with others like it, as graph
   * mode's pools cycle (seven buffers a pool by default: seven graphs) */
  {
    double one, seven;
    hand_graphs (8, n, 1, &one);
    hand_graphs (8, n, 7, &seven);
    g_print ("K=8 hand-captured graphs: one graph %.0f buf/s, seven in turn "
             "%.0f buf/s (%.3f of one's time)\n",
        n / one, n / seven, seven / one);
  }
  return 0;
}
