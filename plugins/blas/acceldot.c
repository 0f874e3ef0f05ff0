/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel blas plugin: blas.dot, out[0] = x . y */
#define G_LOG_DOMAIN "accel-blas"

#include <cblas.h>
#include <string.h>

#include "accelblas-private.h"
#include "acceldot.h"
#include "accelhalf.h"

struct _AccelDot
{
  AccelStage parent;

  AccelDType dtype;
  gint64 n;
  AccelBlasGpu gpu;
  AccelDenseHost host;
};

G_DEFINE_FINAL_TYPE (AccelDot, accel_dot, ACCEL_TYPE_STAGE)

static gboolean
accel_dot_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelDot *self = ACCEL_DOT (stage);
  const gint64 one = 1;

  if (!accel_blas_vector_pair_negotiate (
          stage, &in_types[0], &in_types[1], &self->n, error))
    return FALSE;
  self->dtype = in_types[0].dtype;
  accel_type_init_tensor (
      &out_types[0], self->dtype, ACCEL_MEMORY_DEVICE, 1, &one);
  return TRUE;
}

static gboolean
accel_dot_start (AccelStage *stage, GError **error)
{
  AccelDot *self = ACCEL_DOT (stage);

  if (accel_stage_is_host (stage))
    return accel_dense_host_start_vectors (stage, self->dtype, self->n,
        &self->host, &self->host.a, &self->host.b, error);
  /* the result is written to device memory: nothing waits for it */
  return accel_blas_gpu_start (
      stage, &self->gpu, CUBLAS_POINTER_MODE_DEVICE, error);
}

static void
accel_dot_stop (AccelStage *stage)
{
  AccelDot *self = ACCEL_DOT (stage);

  accel_blas_gpu_stop (stage, &self->gpu);
  accel_dense_host_clear (&self->host);
}

static void
process_host (AccelDot *self, gconstpointer x, gconstpointer y, gpointer out)
{
  float r;

  switch (self->dtype)
    {
    case ACCEL_DTYPE_F32:
      *(float *)out = cblas_sdot (self->n, x, 1, y, 1);
      break;
    case ACCEL_DTYPE_F64:
      *(double *)out = cblas_ddot (self->n, x, 1, y, 1);
      break;
    default:
      accel_half_widen (self->dtype, x, self->host.a, self->n);
      accel_half_widen (self->dtype, y, self->host.b, self->n);
      r = cblas_sdot (self->n, self->host.a, 1, self->host.b, 1);
      accel_half_narrow (self->dtype, &r, out, 1);
      break;
    }
}

static AccelFlow
accel_dot_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelDot *self = ACCEL_DOT (stage);
  gconstpointer x = accel_buffer_get_data (frame->inputs[0]);
  gconstpointer y = accel_buffer_get_data (frame->inputs[1]);
  gpointer out = accel_buffer_get_data (frame->outputs[0]);
  cublasHandle_t h = self->gpu.handle;
  int n = (int)self->n;
  cudaDataType dt = accel_blas_cuda_dtype (self->dtype);
  gboolean ok;

  if (accel_stage_is_host (stage))
    {
      process_host (self, x, y, out);
      return ACCEL_FLOW_OK;
    }
  if (!accel_blas_gpu_bind (stage, &self->gpu, frame, error))
    return ACCEL_FLOW_ERROR;
  switch (self->dtype)
    {
    case ACCEL_DTYPE_F32:
      ok = accel_cublas_check (
          stage, cublasSdot (h, n, x, 1, y, 1, out), error);
      break;
    case ACCEL_DTYPE_F64:
      ok = accel_cublas_check (
          stage, cublasDdot (h, n, x, 1, y, 1, out), error);
      break;
    default:
      ok = accel_cublas_check (stage,
          cublasDotEx (h, n, x, dt, 1, y, dt, 1, out, dt, CUDA_R_32F), error);
      break;
    }
  return ok ? ACCEL_FLOW_OK : ACCEL_FLOW_ERROR;
}

static void
accel_dot_class_init (AccelDotClass *klass)
{
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);

  stage_class->negotiate = accel_dot_negotiate;
  stage_class->start = accel_dot_start;
  stage_class->stop = accel_dot_stop;
  stage_class->process = accel_dot_process;
  stage_class->can_capture = accel_stage_can_capture_always;

  accel_stage_class_set_metadata (stage_class, "blas.dot",
      "Dot product of two vectors, out[0] = sum x[i] y[i]; f32, f64, or f16 "
      "and bf16 accumulated in f32; the result stays on the device");
  accel_blas_class_add_matrix_port (stage_class, ACCEL_PORT_INPUT, "x",
      ACCEL_RANK_ANY, "any shape, f32, f64, f16 or bf16");
  accel_blas_class_add_matrix_port (stage_class, ACCEL_PORT_INPUT, "y",
      ACCEL_RANK_ANY, "the shape and dtype of x");
  accel_blas_class_add_matrix_port (
      stage_class, ACCEL_PORT_OUTPUT, "out", 1, "[1], the dtype of x");
}

static void
accel_dot_init (AccelDot *self)
{
}
