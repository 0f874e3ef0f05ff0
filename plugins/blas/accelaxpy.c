/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel blas plugin: blas.axpy, out = alpha x + y */
#define G_LOG_DOMAIN "accel-blas"

#include <cblas.h>
#include <cuda_runtime_api.h>
#include <string.h>

#include "accelaxpy.h"
#include "accelblas-private.h"
#include "accelhalf.h"
#include "accelscalar.h"

struct _AccelAxpy
{
  AccelStage parent;

  double alpha;

  AccelDType dtype;
  gint64 n;
  AccelBlasGpu gpu;
  AccelDenseHost host;
};

G_DEFINE_FINAL_TYPE (AccelAxpy, accel_axpy, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_ALPHA,
};

static gboolean
accel_axpy_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelAxpy *self = ACCEL_AXPY (stage);

  if (!accel_blas_vector_pair_negotiate (
          stage, &in_types[0], &in_types[1], &self->n, error))
    return FALSE;
  self->dtype = in_types[1].dtype;
  out_types[0] = in_types[1];
  out_types[0].memory = ACCEL_MEMORY_DEVICE;
  return accel_scalar_check (
      stage, "alpha", self->alpha, self->dtype, FALSE, error);
}

static gboolean
accel_axpy_start (AccelStage *stage, GError **error)
{
  AccelAxpy *self = ACCEL_AXPY (stage);

  if (accel_stage_is_host (stage))
    return accel_dense_host_start_vectors (stage, self->dtype, self->n,
        &self->host, &self->host.a, &self->host.c, error);
  return accel_blas_gpu_start (
      stage, &self->gpu, CUBLAS_POINTER_MODE_HOST, error);
}

static void
accel_axpy_stop (AccelStage *stage)
{
  AccelAxpy *self = ACCEL_AXPY (stage);

  accel_blas_gpu_stop (stage, &self->gpu);
  accel_dense_host_clear (&self->host);
}

static void
process_host (AccelAxpy *self, gconstpointer x, gconstpointer y, gpointer out)
{
  switch (self->dtype)
    {
    case ACCEL_DTYPE_F32:
      memcpy (out, y, self->n * sizeof (float));
      cblas_saxpy (self->n, (float)self->alpha, x, 1, out, 1);
      break;
    case ACCEL_DTYPE_F64:
      memcpy (out, y, self->n * sizeof (double));
      cblas_daxpy (self->n, self->alpha, x, 1, out, 1);
      break;
    default:
      accel_half_widen (self->dtype, x, self->host.a, self->n);
      accel_half_widen (self->dtype, y, self->host.c, self->n);
      cblas_saxpy (
          self->n, (float)self->alpha, self->host.a, 1, self->host.c, 1);
      accel_half_narrow (self->dtype, self->host.c, out, self->n);
      break;
    }
}

static AccelFlow
accel_axpy_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelAxpy *self = ACCEL_AXPY (stage);
  gconstpointer x = accel_buffer_get_data (frame->inputs[0]);
  gconstpointer y = accel_buffer_get_data (frame->inputs[1]);
  gpointer out = accel_buffer_get_data (frame->outputs[0]);
  gsize size = accel_buffer_get_size (frame->outputs[0]);
  cublasHandle_t h = self->gpu.handle;
  int n = (int)self->n;
  float alpha_f = (float)self->alpha;
  cudaDataType dt = accel_blas_cuda_dtype (self->dtype);
  gboolean ok;

  if (!accel_scalar_check (
          stage, "alpha", self->alpha, self->dtype, TRUE, error))
    return ACCEL_FLOW_ERROR;
  if (accel_stage_is_host (stage))
    {
      process_host (self, x, y, out);
      return ACCEL_FLOW_OK;
    }
  /* BLAS updates y in place; inputs are read-only, so out starts as y */
  if (!accel_blas_gpu_bind (stage, &self->gpu, frame, error)
      || !accel_cuda_check (
          cudaMemcpyAsync (out, y, size, cudaMemcpyDeviceToDevice,
              accel_stream_get_handle (frame->stream)),
          error))
    return ACCEL_FLOW_ERROR;
  switch (self->dtype)
    {
    case ACCEL_DTYPE_F32:
      ok = accel_cublas_check (
          stage, cublasSaxpy (h, n, &alpha_f, x, 1, out, 1), error);
      break;
    case ACCEL_DTYPE_F64:
      ok = accel_cublas_check (
          stage, cublasDaxpy (h, n, &self->alpha, x, 1, out, 1), error);
      break;
    default:
      ok = accel_cublas_check (stage,
          cublasAxpyEx (
              h, n, &alpha_f, CUDA_R_32F, x, dt, 1, out, dt, 1, CUDA_R_32F),
          error);
      break;
    }
  return ok ? ACCEL_FLOW_OK : ACCEL_FLOW_ERROR;
}

static void
accel_axpy_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelAxpy *self = ACCEL_AXPY (object);

  switch (prop_id)
    {
    case PROP_ALPHA:
      self->alpha = g_value_get_double (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_axpy_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelAxpy *self = ACCEL_AXPY (object);

  switch (prop_id)
    {
    case PROP_ALPHA:
      g_value_set_double (value, self->alpha);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_axpy_class_init (AccelAxpyClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = accel_axpy_set_property;
  gobject_class->get_property = accel_axpy_get_property;
  stage_class->negotiate = accel_axpy_negotiate;
  stage_class->start = accel_axpy_start;
  stage_class->stop = accel_axpy_stop;
  stage_class->process = accel_axpy_process;
  stage_class->can_capture = accel_stage_can_capture_always;

  g_object_class_install_property (gobject_class, PROP_ALPHA,
      g_param_spec_double ("alpha", "Alpha", "Factor of x", -G_MAXDOUBLE,
          G_MAXDOUBLE, 1.0, flags));

  accel_stage_class_set_metadata (stage_class, "blas.axpy",
      "Scaled vector sum, out = alpha x + y, element by element; f32, f64, "
      "or f16 and bf16 computed in f32");
  accel_blas_class_add_matrix_port (stage_class, ACCEL_PORT_INPUT, "x",
      ACCEL_RANK_ANY, "any shape, f32, f64, f16 or bf16");
  accel_blas_class_add_matrix_port (stage_class, ACCEL_PORT_INPUT, "y",
      ACCEL_RANK_ANY, "the shape and dtype of x");
  accel_blas_class_add_matrix_port (stage_class, ACCEL_PORT_OUTPUT, "out",
      ACCEL_RANK_ANY, "the shape and dtype of x");
}

static void
accel_axpy_init (AccelAxpy *self)
{
}
