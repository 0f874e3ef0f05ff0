/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* blas.gemm against cublasSgemm: f32 products of 8192^3 and 256^3, each
 * frame's two operands filled by source stages and multiplied by the stage,
 * against a loop that fills and multiplies the same buffers by hand on one
 * stream, in the same run. A pipeline's time per frame is the difference of
 * two runs of N and 2N frames, so that its start and stop cancel out. */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "bench-fill.h"

static void
check_cublas (cublasStatus_t status, const char *what)
{
  if (status != CUBLAS_STATUS_SUCCESS)
    g_error ("%s: %s", what, cublasGetStatusName (status));
}

/* what the pipeline does, by hand: fill both operands, multiply, on one
 * stream; with @fill FALSE only the products. Seconds per frame. */
static double
raw_loop (gint64 n, guint frames, gboolean fill)
{
  cudaStream_t stream;
  cublasHandle_t handle;
  gpointer a, b, c;
  gsize size = n * n * sizeof (float);
  const float alpha = 1.0f, beta = 0.0f;
  gint64 t0;
  double wall;

  bench_check_cuda (
      cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking), "stream");
  bench_check_cuda (cudaMalloc (&a, size), "malloc");
  bench_check_cuda (cudaMalloc (&b, size), "malloc");
  bench_check_cuda (cudaMalloc (&c, size), "malloc");
  check_cublas (cublasCreate (&handle), "create");
  check_cublas (cublasSetStream (handle, stream), "stream");
  bench_check_cuda (cudaMemsetAsync (a, BENCH_FILL_BYTE, size, stream), "fill");
  bench_check_cuda (cudaMemsetAsync (b, BENCH_FILL_BYTE, size, stream), "fill");
  check_cublas (cublasSgemm (handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha,
                    b, n, a, n, &beta, c, n),
      "warm up");
  bench_check_cuda (cudaStreamSynchronize (stream), "sync");

  t0 = g_get_monotonic_time ();
  for (guint f = 0; f < frames; f++)
    {
      if (fill)
        {
          bench_check_cuda (
              cudaMemsetAsync (a, BENCH_FILL_BYTE, size, stream), "fill");
          bench_check_cuda (
              cudaMemsetAsync (b, BENCH_FILL_BYTE, size, stream), "fill");
        }
      check_cublas (cublasSgemm (handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n,
                        &alpha, b, n, a, n, &beta, c, n),
          "sgemm");
    }
  bench_check_cuda (cudaStreamSynchronize (stream), "sync");
  wall = (g_get_monotonic_time () - t0) * 1e-6;

  cublasDestroy (handle);
  cudaFree (a);
  cudaFree (b);
  cudaFree (c);
  cudaStreamDestroy (stream);
  return wall / frames;
}

static double
pipeline_run (gint64 n, guint frames)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("bench-blas");
  gint64 dims[2] = { n, n };
  AccelStage *a, *b, *mm;

  a = accel_test_stage (g, "bench.fill-source", "a");
  b = accel_test_stage (g, "bench.fill-source", "b");
  bench_fill_source_set_shape (a, ACCEL_DTYPE_F32, 2, dims);
  bench_fill_source_set_shape (b, ACCEL_DTYPE_F32, 2, dims);
  mm = accel_test_stage (g, "blas.gemm", "mm");
  accel_test_stage (g, "core.null-sink", "sink");
  g_assert_true (accel_graph_link_ports (g, a, "out", mm, "a", &error));
  g_assert_true (accel_graph_link_ports (g, b, "out", mm, "b", &error));
  g_assert_true (accel_graph_link (g, "mm", "sink", &error));
  g_assert_no_error (error);
  return bench_run_graph (g, frames);
}

/* seconds per frame in the steady state */
static double
pipeline (gint64 n, guint frames)
{
  double once = pipeline_run (n, frames);
  double twice = pipeline_run (n, 2 * frames);

  return (twice - once) / frames;
}

int
main (int argc, char **argv)
{
  const struct
  {
    gint64 n;
    guint frames;
  } sizes[] = {
    { 8192, 50 },
    { 256, 4000 },
  };
  double scale = argc > 1 ? g_ascii_strtod (argv[1], NULL) : 1.0;

  accel_test_require_gpu ();
  accel_registry_register (
      accel_registry_get_default (), BENCH_TYPE_FILL_SOURCE);
  g_print ("blas.gemm against cublasSgemm, f32, fill both operands + "
           "multiply per frame\n");
  g_print ("%6s %7s %13s %13s %13s %7s %14s\n", "n", "frames", "sgemm TFLOP/s",
      "raw TFLOP/s", "accel TFLOP/s", "ratio", "extra us/call");

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      gint64 n = sizes[i].n;
      guint frames = MAX (10, (guint)(sizes[i].frames * scale));
      double flop = 2.0 * n * n * n;
      double exec, raw, accel;

      /* warm up: module load, handles, pools, streams */
      raw_loop (n, 3, TRUE);
      pipeline_run (n, 3);

      exec = raw_loop (n, frames, FALSE);
      raw = raw_loop (n, frames, TRUE);
      accel = pipeline (n, frames);
      g_print ("%6" G_GINT64_FORMAT " %7u %13.2f %13.2f %13.2f %7.3f %14.2f\n",
          n, frames, flop / exec * 1e-12, flop / raw * 1e-12,
          flop / accel * 1e-12, accel / raw, (accel - raw) * 1e6);
    }
  return 0;
}
