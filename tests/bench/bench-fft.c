/* fft.forward against cufftExecC2C: single-precision complex transforms of
 * 2^24 and 4096 points, each frame filled by a source stage and transformed
 * by the stage, against a loop that fills and transforms the same buffers
 * by hand on one stream, in the same run */
#include <cuda_runtime_api.h>
#include <cufft.h>

#include "accel-test.h"

/* bench.c64-source: c64 [n] frames, filled on the GPU with a fixed byte */
#define BENCH_TYPE_C64_SOURCE (bench_c64_source_get_type ())
G_DECLARE_FINAL_TYPE (
    BenchC64Source, bench_c64_source, BENCH, C64_SOURCE, AccelStage)

struct _BenchC64Source
{
  AccelStage parent;
  gint64 n;
};

G_DEFINE_FINAL_TYPE (BenchC64Source, bench_c64_source, ACCEL_TYPE_STAGE)

#define FILL_BYTE 0x3c

static gboolean
c64_source_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  accel_type_init_tensor (&out_types[0], ACCEL_DTYPE_C64, ACCEL_MEMORY_DEVICE,
      1, &BENCH_C64_SOURCE (stage)->n);
  return TRUE;
}

static AccelFlow
c64_source_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelBuffer *out = frame->outputs[0];

  if (!accel_cuda_check (cudaMemsetAsync (accel_buffer_get_data (out),
                             FILL_BYTE, accel_buffer_get_size (out),
                             accel_stream_get_handle (frame->stream)),
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
bench_c64_source_class_init (BenchC64SourceClass *klass)
{
  AccelStageClass *sc = ACCEL_STAGE_CLASS (klass);
  AccelType out;

  sc->negotiate = c64_source_negotiate;
  sc->process = c64_source_process;
  accel_stage_class_set_metadata (sc, "bench.c64-source", "c64 frames");
  accel_type_init_tensor (&out, ACCEL_DTYPE_C64, ACCEL_MEMORY_DEVICE, 1, NULL);
  accel_stage_class_add_port (sc, ACCEL_PORT_OUTPUT, "out", &out, NULL);
}

static void
bench_c64_source_init (BenchC64Source *self)
{
}

static void
check_cuda (int status, const char *what)
{
  if (status != cudaSuccess)
    g_error ("%s: %s", what, cudaGetErrorString (status));
}

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

  check_cuda (
      cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking), "stream");
  check_cuda (cudaMalloc (&in, size), "malloc");
  check_cuda (cudaMalloc (&out, size), "malloc");
  check_cufft (cufftPlan1d (&plan, (int)n, CUFFT_C2C, 1), "plan");
  check_cufft (cufftSetStream (plan, stream), "stream");
  check_cuda (cudaMemsetAsync (in, FILL_BYTE, size, stream), "fill");
  check_cuda (cudaStreamSynchronize (stream), "sync");

  t0 = g_get_monotonic_time ();
  for (guint f = 0; f < frames; f++)
    {
      if (fill)
        check_cuda (cudaMemsetAsync (in, FILL_BYTE, size, stream), "fill");
      check_cufft (cufftExecC2C (plan, in, out, CUFFT_FORWARD), "exec");
    }
  check_cuda (cudaStreamSynchronize (stream), "sync");
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
  gint64 t0;

  src = accel_test_stage (g, "bench.c64-source", "src");
  BENCH_C64_SOURCE (src)->n = n;
  accel_test_stage (g, "fft.forward", "fft");
  accel_test_stage (g, "core.null-sink", "sink");
  g_assert_true (accel_graph_link (g, "src", "fft", &error));
  g_assert_true (accel_graph_link (g, "fft", "sink", &error));
  accel_graph_set_frame_limit (g, frames);
  g_assert_true (accel_graph_prepare (g, &error));
  g_assert_no_error (error);

  t0 = g_get_monotonic_time ();
  g_assert_true (accel_graph_run (g, &error));
  g_assert_no_error (error);
  return (g_get_monotonic_time () - t0) * 1e-6;
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
      accel_registry_get_default (), BENCH_TYPE_C64_SOURCE);
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
