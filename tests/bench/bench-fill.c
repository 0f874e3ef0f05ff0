/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* benchmarks: bench.fill-source, and what every benchmark's pipeline run
 * does */
#include <cuda_runtime_api.h>
#include <string.h>

#include "bench-fill.h"

struct _BenchFillSource
{
  AccelStage parent;
  AccelDType dtype;
  gint n_dims;
  gint64 dims[ACCEL_TYPE_MAX_DIMS];
};

G_DEFINE_FINAL_TYPE (BenchFillSource, bench_fill_source, ACCEL_TYPE_STAGE)

/* the frames' type: set before the graph is prepared */
void
bench_fill_source_set_shape (
    AccelStage *stage, AccelDType dtype, gint n_dims, const gint64 *dims)
{
  BenchFillSource *self = BENCH_FILL_SOURCE (stage);

  g_assert (n_dims <= ACCEL_TYPE_MAX_DIMS);
  self->dtype = dtype;
  self->n_dims = n_dims;
  memcpy (self->dims, dims, n_dims * sizeof (gint64));
}

static gboolean
fill_source_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  BenchFillSource *self = BENCH_FILL_SOURCE (stage);

  accel_type_init_tensor (&out_types[0], self->dtype, ACCEL_MEMORY_DEVICE,
      self->n_dims, self->dims);
  return TRUE;
}

static AccelFlow
fill_source_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelBuffer *out = frame->outputs[0];

  if (!accel_cuda_check (cudaMemsetAsync (accel_buffer_get_data (out),
                             BENCH_FILL_BYTE, accel_buffer_get_size (out),
                             accel_stream_get_handle (frame->stream)),
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
bench_fill_source_class_init (BenchFillSourceClass *klass)
{
  AccelStageClass *sc = ACCEL_STAGE_CLASS (klass);
  AccelType out;

  sc->negotiate = fill_source_negotiate;
  sc->process = fill_source_process;
  accel_stage_class_set_metadata (
      sc, "bench.fill-source", "tensors filled with a constant byte");
  accel_type_init_tensor (
      &out, ACCEL_DTYPE_ANY, ACCEL_MEMORY_DEVICE, ACCEL_RANK_ANY, NULL);
  accel_stage_class_add_port (sc, ACCEL_PORT_OUTPUT, "out", &out, NULL);
}

static void
bench_fill_source_init (BenchFillSource *self)
{
  self->dtype = ACCEL_DTYPE_F32;
  self->n_dims = 1;
  self->dims[0] = 1;
}

/* prepares @graph, runs @frames frames through it: seconds, start and stop
 * included */
double
bench_run_graph (AccelGraph *graph, guint frames)
{
  g_autoptr (GError) error = NULL;
  gint64 t0;

  accel_graph_set_frame_limit (graph, frames);
  g_assert_true (accel_graph_prepare (graph, &error));
  g_assert_no_error (error);
  t0 = g_get_monotonic_time ();
  g_assert_true (accel_graph_run (graph, &error));
  g_assert_no_error (error);
  return (g_get_monotonic_time () - t0) * 1e-6;
}

void
bench_check_cuda (int status, const char *what)
{
  if (status != cudaSuccess)
    g_error ("%s: %s", what, cudaGetErrorString (status));
}
