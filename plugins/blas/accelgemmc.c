/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel blas plugin: blas.gemm-c, out = alpha op(A) op(B) + beta C */
#define G_LOG_DOMAIN "accel-blas"

#include <cuda_runtime_api.h>
#include <string.h>

#include "accelblas-private.h"
#include "accelgemmc.h"
#include "accelscalar.h"

struct _AccelGemmC
{
  AccelStage parent;

  gboolean transa, transb;
  double alpha, beta;

  AccelGemmShape shape;
  AccelBlasGpu gpu;
  AccelDenseHost host;
};

G_DEFINE_FINAL_TYPE (AccelGemmC, accel_gemm_c, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_TRANSA,
  PROP_TRANSB,
  PROP_ALPHA,
  PROP_BETA,
};

static gboolean
accel_gemm_c_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelGemmC *self = ACCEL_GEMM_C (stage);
  const AccelType *c = &in_types[2];

  if (!accel_dense_gemm_negotiate (stage, &in_types[0], &in_types[1],
          self->transa, self->transb, FALSE, &self->shape, &out_types[0],
          error))
    return FALSE;
  if (c->kind != ACCEL_KIND_TENSOR || c->dtype != self->shape.dtype
      || c->n_dims != 2 || c->dims[0] != self->shape.m
      || c->dims[1] != self->shape.n)
    {
      g_autofree gchar *have = accel_type_to_string (c);
      return accel_dense_mismatch (stage, error,
          "c is %s but the product is %s [%" G_GINT64_FORMAT
          "x%" G_GINT64_FORMAT "]",
          have, accel_dtype_to_string (self->shape.dtype), self->shape.m,
          self->shape.n);
    }
  return accel_scalar_check (
             stage, "alpha", self->alpha, self->shape.dtype, FALSE, error)
         && accel_scalar_check (
             stage, "beta", self->beta, self->shape.dtype, FALSE, error);
}

static gboolean
accel_gemm_c_start (AccelStage *stage, GError **error)
{
  AccelGemmC *self = ACCEL_GEMM_C (stage);

  if (accel_stage_is_host (stage))
    return accel_dense_host_start (stage, &self->shape, &self->host, error);
  return accel_blas_gpu_start (
      stage, &self->gpu, CUBLAS_POINTER_MODE_HOST, error);
}

static void
accel_gemm_c_stop (AccelStage *stage)
{
  AccelGemmC *self = ACCEL_GEMM_C (stage);

  accel_blas_gpu_stop (stage, &self->gpu);
  accel_dense_host_clear (&self->host);
}

static AccelFlow
accel_gemm_c_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelGemmC *self = ACCEL_GEMM_C (stage);
  gconstpointer a = accel_buffer_get_data (frame->inputs[0]);
  gconstpointer b = accel_buffer_get_data (frame->inputs[1]);
  gconstpointer c = accel_buffer_get_data (frame->inputs[2]);
  gpointer out = accel_buffer_get_data (frame->outputs[0]);
  gsize size = accel_buffer_get_size (frame->outputs[0]);

  if (!accel_scalar_check (
          stage, "alpha", self->alpha, self->shape.dtype, TRUE, error))
    return ACCEL_FLOW_ERROR;
  if (!accel_scalar_check (
          stage, "beta", self->beta, self->shape.dtype, TRUE, error))
    return ACCEL_FLOW_ERROR;
  /* the product accumulates into the output, which starts as C (inputs
   * are read-only: another stage may read C too) */
  if (accel_stage_is_host (stage))
    {
      memcpy (out, c, size);
      accel_dense_gemm_host (
          &self->shape, &self->host, self->alpha, self->beta, a, b, out);
      return ACCEL_FLOW_OK;
    }
  if (!accel_blas_gpu_bind (stage, &self->gpu, frame, error)
      || !accel_cuda_check (
          cudaMemcpyAsync (out, c, size, cudaMemcpyDeviceToDevice,
              accel_stream_get_handle (frame->stream)),
          error)
      || !accel_gemm_gpu (stage, &self->gpu, &self->shape, self->alpha,
          self->beta, a, b, out, error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_gemm_c_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelGemmC *self = ACCEL_GEMM_C (object);

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;

  switch (prop_id)
    {
    case PROP_TRANSA:
      self->transa = g_value_get_boolean (value);
      break;
    case PROP_TRANSB:
      self->transb = g_value_get_boolean (value);
      break;
    case PROP_ALPHA:
      self->alpha = g_value_get_double (value);
      break;
    case PROP_BETA:
      self->beta = g_value_get_double (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_gemm_c_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelGemmC *self = ACCEL_GEMM_C (object);

  switch (prop_id)
    {
    case PROP_TRANSA:
      g_value_set_boolean (value, self->transa);
      break;
    case PROP_TRANSB:
      g_value_set_boolean (value, self->transb);
      break;
    case PROP_ALPHA:
      g_value_set_double (value, self->alpha);
      break;
    case PROP_BETA:
      g_value_set_double (value, self->beta);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_gemm_c_class_init (AccelGemmCClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = accel_gemm_c_set_property;
  gobject_class->get_property = accel_gemm_c_get_property;
  stage_class->negotiate = accel_gemm_c_negotiate;
  stage_class->start = accel_gemm_c_start;
  stage_class->stop = accel_gemm_c_stop;
  stage_class->process = accel_gemm_c_process;
  stage_class->can_capture = accel_stage_can_capture_always;

  g_object_class_install_property (gobject_class, PROP_TRANSA,
      g_param_spec_boolean ("transa", "Transpose A",
          "Use a transposed: a is then k x m (read at negotiation)", FALSE,
          flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_TRANSB,
      g_param_spec_boolean ("transb", "Transpose B",
          "Use b transposed: b is then n x k (read at negotiation)", FALSE,
          flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_ALPHA,
      g_param_spec_double ("alpha", "Alpha", "Factor of the product",
          -G_MAXDOUBLE, G_MAXDOUBLE, 1.0, flags));
  g_object_class_install_property (gobject_class, PROP_BETA,
      g_param_spec_double ("beta", "Beta", "Factor of c", -G_MAXDOUBLE,
          G_MAXDOUBLE, 1.0, flags));

  accel_stage_class_set_metadata (stage_class, "blas.gemm-c",
      "General matrix product with an addend, out = alpha op(A) op(B) + "
      "beta C, of row-major matrices; f32, f64, or f16 and bf16 accumulated "
      "in f32");
  accel_blas_class_add_matrix_port (stage_class, ACCEL_PORT_INPUT, "a", 2,
      "[m, k] (transa: [k, m]), f32, f64, f16 or bf16");
  accel_blas_class_add_matrix_port (stage_class, ACCEL_PORT_INPUT, "b", 2,
      "[k, n] (transb: [n, k]), the dtype of a");
  accel_blas_class_add_matrix_port (
      stage_class, ACCEL_PORT_INPUT, "c", 2, "[m, n], the dtype of a");
  accel_blas_class_add_matrix_port (
      stage_class, ACCEL_PORT_OUTPUT, "out", 2, "[m, n], the dtype of a");
}

static void
accel_gemm_c_init (AccelGemmC *self)
{
}
