/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dnn.conv2d against cudnnConvolutionForward: f32 convolutions of a
 * ResNet-sized layer and of a small one, each frame's input and weights
 * filled by source stages and convolved by the stage, against a loop that
 * fills and convolves the same buffers by hand on one stream with the
 * algorithm the stage picks (cuDNN's first FMA-only heuristic choice), in
 * the same run. A pipeline's time per frame is the difference of two runs
 * of N and 2N frames, so that its start and stop cancel out. */
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include "bench-fill.h"

typedef struct
{
  const char *name;
  int n, c, h, w, k, r, pad;
  guint frames;
} Layer;

static void
check_cudnn (cudnnStatus_t status, const char *what)
{
  if (status != CUDNN_STATUS_SUCCESS)
    g_error ("%s: %s", what, cudnnGetErrorString (status));
}

static double
layer_flop (const Layer *l)
{
  int p = l->h + 2 * l->pad - l->r + 1, q = l->w + 2 * l->pad - l->r + 1;

  return 2.0 * l->n * l->k * p * q * l->c * l->r * l->r;
}

/* what the pipeline does, by hand: fill input and weights, convolve, on
 * one stream; with @fill FALSE only the convolutions. Seconds per frame. */
static double
raw_loop (const Layer *l, guint frames, gboolean fill)
{
  cudaStream_t stream;
  cudnnHandle_t handle;
  cudnnTensorDescriptor_t in_desc, out_desc;
  cudnnFilterDescriptor_t filter_desc;
  cudnnConvolutionDescriptor_t conv_desc;
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  int n_perf = 0, n, k, p, q;
  gsize in_size = (gsize)l->n * l->c * l->h * l->w * sizeof (float);
  gsize w_size = (gsize)l->k * l->c * l->r * l->r * sizeof (float);
  gsize out_size, ws_size = 0;
  gpointer in, w, out, ws = NULL;
  const float alpha = 1.0f, beta = 0.0f;
  gint64 t0;
  double wall;

  bench_check_cuda (
      cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking), "stream");
  check_cudnn (cudnnCreate (&handle), "create");
  check_cudnn (cudnnSetStream (handle, stream), "stream");
  check_cudnn (cudnnCreateTensorDescriptor (&in_desc), "desc");
  check_cudnn (cudnnCreateTensorDescriptor (&out_desc), "desc");
  check_cudnn (cudnnCreateFilterDescriptor (&filter_desc), "desc");
  check_cudnn (cudnnCreateConvolutionDescriptor (&conv_desc), "desc");
  check_cudnn (cudnnSetTensor4dDescriptor (in_desc, CUDNN_TENSOR_NCHW,
                   CUDNN_DATA_FLOAT, l->n, l->c, l->h, l->w),
      "in");
  check_cudnn (cudnnSetFilter4dDescriptor (filter_desc, CUDNN_DATA_FLOAT,
                   CUDNN_TENSOR_NCHW, l->k, l->c, l->r, l->r),
      "filter");
  check_cudnn (cudnnSetConvolution2dDescriptor (conv_desc, l->pad, l->pad, 1, 1,
                   1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
      "conv");
  check_cudnn (cudnnSetConvolutionMathType (conv_desc, CUDNN_FMA_MATH), "math");
  check_cudnn (cudnnGetConvolution2dForwardOutputDim (
                   conv_desc, in_desc, filter_desc, &n, &k, &p, &q),
      "dims");
  check_cudnn (cudnnSetTensor4dDescriptor (
                   out_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, k, p, q),
      "out");
  check_cudnn (
      cudnnGetConvolutionForwardAlgorithm_v7 (handle, in_desc, filter_desc,
          conv_desc, out_desc, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n_perf, perf),
      "heuristics");
  /* the stage's rule: the first that works, fits 256 MiB and uses FMA */
  for (int i = 0; i < n_perf; i++)
    if (perf[i].status == CUDNN_STATUS_SUCCESS
        && perf[i].memory <= ((gsize)256 << 20)
        && perf[i].mathType != CUDNN_TENSOR_OP_MATH
        && perf[i].mathType != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)
      {
        algo = perf[i].algo;
        break;
      }
  check_cudnn (cudnnGetConvolutionForwardWorkspaceSize (handle, in_desc,
                   filter_desc, conv_desc, out_desc, algo, &ws_size),
      "workspace");
  out_size = (gsize)n * k * p * q * sizeof (float);
  bench_check_cuda (cudaMalloc (&in, in_size), "malloc");
  bench_check_cuda (cudaMalloc (&w, w_size), "malloc");
  bench_check_cuda (cudaMalloc (&out, out_size), "malloc");
  if (ws_size > 0)
    bench_check_cuda (cudaMalloc (&ws, ws_size), "malloc");
  bench_check_cuda (
      cudaMemsetAsync (in, BENCH_FILL_BYTE, in_size, stream), "fill");
  bench_check_cuda (
      cudaMemsetAsync (w, BENCH_FILL_BYTE, w_size, stream), "fill");
  bench_check_cuda (cudaStreamSynchronize (stream), "sync");

  t0 = g_get_monotonic_time ();
  for (guint f = 0; f < frames; f++)
    {
      if (fill)
        {
          bench_check_cuda (
              cudaMemsetAsync (in, BENCH_FILL_BYTE, in_size, stream), "fill");
          bench_check_cuda (
              cudaMemsetAsync (w, BENCH_FILL_BYTE, w_size, stream), "fill");
        }
      check_cudnn (
          cudnnConvolutionForward (handle, &alpha, in_desc, in, filter_desc, w,
              conv_desc, algo, ws, ws_size, &beta, out_desc, out),
          "convolution");
    }
  bench_check_cuda (cudaStreamSynchronize (stream), "sync");
  wall = (g_get_monotonic_time () - t0) * 1e-6;

  cudnnDestroyConvolutionDescriptor (conv_desc);
  cudnnDestroyFilterDescriptor (filter_desc);
  cudnnDestroyTensorDescriptor (out_desc);
  cudnnDestroyTensorDescriptor (in_desc);
  cudnnDestroy (handle);
  cudaFree (ws);
  cudaFree (out);
  cudaFree (w);
  cudaFree (in);
  cudaStreamDestroy (stream);
  return wall / frames;
}

static double
pipeline_run (const Layer *l, guint frames)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("bench-dnn");
  gint64 in_dims[4] = { l->n, l->c, l->h, l->w };
  gint64 w_dims[4] = { l->k, l->c, l->r, l->r };
  AccelStage *in, *w, *conv;

  in = accel_test_stage (g, "bench.fill-source", "in");
  w = accel_test_stage (g, "bench.fill-source", "w");
  bench_fill_source_set_shape (in, ACCEL_DTYPE_F32, 4, in_dims);
  bench_fill_source_set_shape (w, ACCEL_DTYPE_F32, 4, w_dims);
  conv = accel_test_stage (g, "dnn.conv2d", "conv");
  g_object_set (conv, "pad-h", l->pad, "pad-w", l->pad, NULL);
  accel_test_stage (g, "core.null-sink", "sink");
  g_assert_true (accel_graph_link_ports (g, in, "out", conv, "in", &error));
  g_assert_true (accel_graph_link_ports (g, w, "out", conv, "weights", &error));
  g_assert_true (accel_graph_link (g, "conv", "sink", &error));
  g_assert_no_error (error);
  return bench_run_graph (g, frames);
}

/* seconds per frame in the steady state */
static double
pipeline (const Layer *l, guint frames)
{
  double once = pipeline_run (l, frames);
  double twice = pipeline_run (l, 2 * frames);

  return (twice - once) / frames;
}

int
main (int argc, char **argv)
{
  static const Layer layers[] = {
    { "resnet 32x64x56x56 3x3", 32, 64, 56, 56, 64, 3, 1, 100 },
    { "small 1x3x32x32 3x3", 1, 3, 32, 32, 16, 3, 1, 4000 },
  };
  double scale = argc > 1 ? g_ascii_strtod (argv[1], NULL) : 1.0;

  accel_test_require_gpu ();
  accel_registry_register (
      accel_registry_get_default (), BENCH_TYPE_FILL_SOURCE);
  g_print ("dnn.conv2d against cudnnConvolutionForward, f32 (FMA), fill "
           "input + weights + convolve per frame\n");
  g_print ("%-24s %7s %13s %13s %13s %7s %14s\n", "layer", "frames",
      "conv TFLOP/s", "raw TFLOP/s", "accel TFLOP/s", "ratio", "extra us/call");

  for (guint i = 0; i < G_N_ELEMENTS (layers); i++)
    {
      const Layer *l = &layers[i];
      guint frames = MAX (10, (guint)(l->frames * scale));
      double flop = layer_flop (l);
      double exec, raw, accel;

      /* warm up: module load, handles, pools, streams */
      raw_loop (l, 3, TRUE);
      pipeline_run (l, 3);

      exec = raw_loop (l, frames, FALSE);
      raw = raw_loop (l, frames, TRUE);
      accel = pipeline (l, frames);
      g_print ("%-24s %7u %13.3f %13.3f %13.3f %7.3f %14.2f\n", l->name, frames,
          flop / exec * 1e-12, flop / raw * 1e-12, flop / accel * 1e-12,
          accel / raw, (accel - raw) * 1e6);
    }
  return 0;
}
