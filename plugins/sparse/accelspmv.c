/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel sparse plugin: sparse.spmv, y = alpha A x for a CSR matrix A */
#define G_LOG_DOMAIN "accel-sparse"

#include <cuda_runtime_api.h>

#include "accelspmv.h"
#include "accelsparse-private.h"
#include "accelsparsehost.h"
#include "accelscalar.h"

struct _AccelSpmv
{
  AccelStage parent;

  double alpha;

  AccelSparseShape shape;
  AccelSparseGpu gpu;
};

G_DEFINE_FINAL_TYPE (AccelSpmv, accel_spmv, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_ALPHA,
};

static gboolean
accel_spmv_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelSpmv *self = ACCEL_SPMV (stage);

  if (!accel_sparse_negotiate (stage, in_types, 1, &self->shape, error))
    return FALSE;
  accel_type_init_tensor (
      &out_types[0], self->shape.dtype, ACCEL_MEMORY_DEVICE, 1, &self->shape.m);
  return accel_scalar_check (
      stage, "alpha", self->alpha, self->shape.dtype, FALSE, error);
}

static gboolean
accel_spmv_start (AccelStage *stage, GError **error)
{
  AccelSpmv *self = ACCEL_SPMV (stage);

  if (accel_stage_is_host (stage))
    return TRUE;
  return accel_sparse_gpu_start (stage, &self->gpu, error);
}

static void
accel_spmv_stop (AccelStage *stage)
{
  AccelSpmv *self = ACCEL_SPMV (stage);

  accel_sparse_gpu_stop (stage, &self->gpu);
}

static AccelFlow
process_host (AccelSpmv *self, AccelFrame *frame, GError **error)
{
  AccelStage *stage = ACCEL_STAGE (self);
  const AccelSparseShape *s = &self->shape;
  const gint32 *offsets
      = accel_buffer_get_data (frame->inputs[ACCEL_SPARSE_ROW_OFFSETS]);
  const gint32 *indices
      = accel_buffer_get_data (frame->inputs[ACCEL_SPARSE_COL_INDICES]);
  gconstpointer values
      = accel_buffer_get_data (frame->inputs[ACCEL_SPARSE_VALUES]);
  gconstpointer x = accel_buffer_get_data (frame->inputs[ACCEL_SPARSE_DENSE]);
  gpointer y = accel_buffer_get_data (frame->outputs[0]);

  if (!accel_sparse_validate_host (stage, frame, s, error))
    return ACCEL_FLOW_ERROR;
  if (s->dtype == ACCEL_DTYPE_F64)
    accel_csr_spmv_f64_host (s->m, offsets, indices, values, x, y, self->alpha);
  else
    accel_csr_spmv_f32_host (s->m, offsets, indices, values, x, y, self->alpha);
  return ACCEL_FLOW_OK;
}

static AccelFlow
accel_spmv_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelSpmv *self = ACCEL_SPMV (stage);
  AccelSparseGpu *gpu = &self->gpu;
  cudaDataType dt = accel_sparse_cuda_dtype (self->shape.dtype);
  cudaStream_t stream = accel_stream_get_handle (frame->stream);
  float alpha_f = (float)self->alpha, beta_f = 0.0f;
  double alpha_d = self->alpha, beta_d = 0.0;
  gboolean f64 = self->shape.dtype == ACCEL_DTYPE_F64;
  gconstpointer alpha = f64 ? (gconstpointer)&alpha_d : (gconstpointer)&alpha_f;
  gconstpointer beta = f64 ? (gconstpointer)&beta_d : (gconstpointer)&beta_f;

  if (!accel_scalar_check (
          stage, "alpha", self->alpha, self->shape.dtype, TRUE, error))
    return ACCEL_FLOW_ERROR;
  if (accel_stage_is_host (stage))
    return process_host (self, frame, error);

  if (!accel_sparse_gpu_bind (stage, gpu, frame, &self->shape, error))
    return ACCEL_FLOW_ERROR;
  if (!gpu->workspace_known)
    {
      size_t size = 0;
      if (!accel_cusparse_check (stage,
              cusparseSpMV_bufferSize (gpu->handle,
                  CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, gpu->matrix,
                  gpu->vec_in, beta, gpu->vec_out, dt,
                  CUSPARSE_SPMV_ALG_DEFAULT, &size),
              error)
          || !accel_sparse_gpu_ensure_workspace (
              stage, gpu, size, frame, error))
        return ACCEL_FLOW_ERROR;
    }
  /* a pool buffer holds anything, NaN included, and NaN x 0 is NaN */
  if (!accel_cuda_check (
          cudaMemsetAsync (accel_buffer_get_data (frame->outputs[0]), 0,
              accel_buffer_get_size (frame->outputs[0]), stream),
          error))
    return ACCEL_FLOW_ERROR;
  if (!accel_cusparse_check (stage,
          cusparseSpMV (gpu->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha,
              gpu->matrix, gpu->vec_in, beta, gpu->vec_out, dt,
              CUSPARSE_SPMV_ALG_DEFAULT, gpu->workspace),
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_spmv_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelSpmv *self = ACCEL_SPMV (object);

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
accel_spmv_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelSpmv *self = ACCEL_SPMV (object);

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
accel_spmv_class_init (AccelSpmvClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = accel_spmv_set_property;
  gobject_class->get_property = accel_spmv_get_property;
  stage_class->negotiate = accel_spmv_negotiate;
  stage_class->start = accel_spmv_start;
  stage_class->stop = accel_spmv_stop;
  stage_class->process = accel_spmv_process;
  stage_class->can_capture = accel_stage_can_capture_always;

  g_object_class_install_property (gobject_class, PROP_ALPHA,
      g_param_spec_double ("alpha", "Alpha", "Factor of the product",
          -G_MAXDOUBLE, G_MAXDOUBLE, 1.0, flags));

  accel_stage_class_set_metadata (stage_class, "sparse.spmv",
      "Sparse matrix times dense vector, y = alpha A x, with A m x n in CSR "
      "(zero-based, 32-bit indices) given each frame on three inputs");
  accel_sparse_class_add_ports (stage_class, 1, "f32 or f64 [n]: the vector");
}

static void
accel_spmv_init (AccelSpmv *self)
{
}
