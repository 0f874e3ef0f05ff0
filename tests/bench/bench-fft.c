/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fft.forward against cufftExecC2C: single-precision complex transforms of
 * 2^24 and 4096 points, each frame filled by a source stage and transformed
 * by the stage, against a loop that fills and transforms the same buffers
 * by hand on one stream, in the same run */
#include <cuda_runtime_api.h>
#include <cufft.h>

#include "bench-fill.h"

static void
check_cufft (cufftResult status, const char *what)
{
  if (status != CUFFT_SUCCESS)
    g_error ("%s: cuFFT status %d", what, status);
}

/* what the pipeline does, by hand: fill, transform, on one stream; with
 * @fill FALSE only the transforms */
static double
raw_loop (gint64 n, guint frames, gboolean fill)
{
  cudaStream_t stream;
  cufftHandle plan;
  gpointer in, out;
  gsize size = n * sizeof (cufftComplex);
  gint64 t0;
  double wall;

  bench_check_cuda (
      cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking), "stream");
  bench_check_cuda (cudaMalloc (&in, size), "malloc");
  bench_check_cuda (cudaMalloc (&out, size), "malloc");
  check_cufft (cufftPlan1d (&plan, (int)n, CUFFT_C2C, 1), "plan");
  check_cufft (cufftSetStream (plan, stream), "stream");
  bench_check_cuda (
      cudaMemsetAsync (in, BENCH_FILL_BYTE, size, stream), "fill");
  bench_check_cuda (cudaStreamSynchronize (stream), "sync");

  t0 = g_get_monotonic_time ();
  for (guint f = 0; f < frames; f++)
    {
      if (fill)
        bench_check_cuda (
            cudaMemsetAsync (in, BENCH_FILL_BYTE, size, stream), "fill");
      check_cufft (cufftExecC2C (plan, in, out, CUFFT_FORWARD), "exec");
    }
  bench_check_cuda (cudaStreamSynchronize (stream), "sync");
  wall = (g_get_monotonic_time () - t0) * 1e-6;

  cufftDestroy (plan);
  cudaFree (in);
  cudaFree (out);
  cudaStreamDestroy (stream);
  return wall;
}

static double
pipeline (gint64 n, guint frames)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("bench-fft");
  AccelStage *src;

  src = accel_test_stage (g, "bench.fill-source", "src");
  bench_fill_source_set_shape (src, ACCEL_DTYPE_C64, 1, &n);
  accel_test_stage (g, "fft.forward", "fft");
  accel_test_stage (g, "core.null-sink", "sink");
  g_assert_true (accel_graph_link (g, "src", "fft", &error));
  g_assert_true (accel_graph_link (g, "fft", "sink", &error));
  g_assert_no_error (error);
  return bench_run_graph (g, frames);
}

int
main (int argc, char **argv)
{
  const struct
  {
    gint64 n;
    guint frames;
  } sizes[] = {
    { 1 << 24, 400 },
    { 4096, 20000 },
  };
  double scale = argc > 1 ? g_ascii_strtod (argv[1], NULL) : 1.0;

  accel_test_require_gpu ();
  accel_registry_register (
      accel_registry_get_default (), BENCH_TYPE_FILL_SOURCE);
  g_print ("fft.forward against cufftExecC2C, c64, fill + transform per "
           "frame\n");
  g_print ("%10s %7s %12s %12s %12s %7s %14s\n", "points", "frames",
      "exec only/s", "raw/s", "accel/s", "ratio", "extra us/call");

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      guint frames = MAX (10, (guint)(sizes[i].frames * scale));
      double exec, raw, accel;

      /* warm up: module load, plans, pools, streams */
      raw_loop (sizes[i].n, 10, TRUE);
      pipeline (sizes[i].n, 10);

      exec = raw_loop (sizes[i].n, frames, FALSE);
      raw = raw_loop (sizes[i].n, frames, TRUE);
      accel = pipeline (sizes[i].n, frames);
      g_print ("%10" G_GINT64_FORMAT " %7u %12.0f %12.0f %12.0f %7.3f %14.2f\n",
          sizes[i].n, frames, frames / exec, frames / raw, frames / accel,
          accel / raw, (accel - raw) / frames * 1e6);
    }
  return 0;
}
