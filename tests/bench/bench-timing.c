/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* benchmarks: the GPU time of enqueued work, by CUDA events, launched or
 * captured once and replayed; the wall time of a pipeline */
#include "bench-timing.h"

/* the mean time of @reps runs of @fn on @stream, after one to warm up */
float
bench_time_ms (cudaStream_t stream, int reps, BenchEnqueue fn, void *data)
{
  cudaEvent_t a, b;
  float ms;

  cudaEventCreate (&a);
  cudaEventCreate (&b);
  fn (stream, data);
  cudaEventRecord (a, stream);
  for (int i = 0; i < reps; i++)
    fn (stream, data);
  cudaEventRecord (b, stream);
  cudaEventSynchronize (b);
  cudaEventElapsedTime (&ms, a, b);
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  return ms / reps;
}

static void
launch_graph (cudaStream_t stream, void *exec)
{
  cudaGraphLaunch (exec, stream);
}

/* the same, with @fn's work captured once into a CUDA graph and the graph
 * launched instead */
float
bench_graph_time_ms (cudaStream_t stream, int reps, BenchEnqueue fn, void *data)
{
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  float ms;

  cudaStreamBeginCapture (stream, cudaStreamCaptureModeThreadLocal);
  fn (stream, data);
  if (cudaStreamEndCapture (stream, &graph) != cudaSuccess
      || cudaGraphInstantiate (&exec, graph, 0) != cudaSuccess)
    g_error ("could not capture the benchmark's work");
  ms = bench_time_ms (stream, reps, launch_graph, exec);
  cudaGraphExecDestroy (exec);
  cudaGraphDestroy (graph);
  return ms;
}

/* runs the pipeline @yaml in graph mode @mode: seconds from start to end */
double
bench_pipeline_seconds (const char *yaml, AccelCaptureMode mode)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g
      = accel_graph_new_from_yaml_string (yaml, "bench", &error);
  gint64 t0;

  if (!g)
    g_error ("%s", error->message);
  accel_graph_set_capture_mode (g, mode);
  if (!accel_graph_prepare (g, &error))
    g_error ("%s", error->message);
  t0 = g_get_monotonic_time ();
  if (!accel_graph_run (g, &error))
    g_error ("%s", error->message);
  return (g_get_monotonic_time () - t0) * 1e-6;
}

/* @yaml (a source of @frames frames into a sink) with stream launches and
 * in graph mode, in the same run: prints the frame rates and their ratio */
void
bench_pipeline_report (const char *what, const char *yaml, guint frames)
{
  double off = bench_pipeline_seconds (yaml, ACCEL_CAPTURE_OFF);
  double on = bench_pipeline_seconds (yaml, ACCEL_CAPTURE_AUTO);

  g_print ("%s in a pipeline: %.0f frames/s with stream launches, %.0f in "
           "graph mode: %.2fx\n",
      what, frames / off, frames / on, off / on);
}
