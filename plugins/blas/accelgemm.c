/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel blas plugin: blas.gemm, out = alpha op(A) op(B), one product or a
 * strided batch of them */
#define G_LOG_DOMAIN "accel-blas"

#include "accelblas-private.h"
#include "accelgemm.h"
#include "accelscalar.h"

struct _AccelGemm
{
  AccelStage parent;

  gboolean transa, transb;
  double alpha;

  AccelGemmShape shape;
  AccelBlasGpu gpu;
  AccelDenseHost host;
};

G_DEFINE_FINAL_TYPE (AccelGemm, accel_gemm, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_TRANSA,
  PROP_TRANSB,
  PROP_ALPHA,
};

static gboolean
accel_gemm_stage_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelGemm *self = ACCEL_GEMM (stage);

  return accel_dense_gemm_negotiate (stage, &in_types[0], &in_types[1],
             self->transa, self->transb, TRUE, &self->shape, &out_types[0],
             error)
         && accel_scalar_check (
             stage, "alpha", self->alpha, self->shape.dtype, FALSE, error);
}

static gboolean
accel_gemm_start (AccelStage *stage, GError **error)
{
  AccelGemm *self = ACCEL_GEMM (stage);

  if (accel_stage_is_host (stage))
    return accel_dense_host_start (stage, &self->shape, &self->host, error);
  return accel_blas_gpu_start (
      stage, &self->gpu, CUBLAS_POINTER_MODE_HOST, error);
}

static void
accel_gemm_stop (AccelStage *stage)
{
  AccelGemm *self = ACCEL_GEMM (stage);

  accel_blas_gpu_stop (stage, &self->gpu);
  accel_dense_host_clear (&self->host);
}

static AccelFlow
accel_gemm_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelGemm *self = ACCEL_GEMM (stage);
  gconstpointer a = accel_buffer_get_data (frame->inputs[0]);
  gconstpointer b = accel_buffer_get_data (frame->inputs[1]);
  gpointer out = accel_buffer_get_data (frame->outputs[0]);

  if (!accel_scalar_check (
          stage, "alpha", self->alpha, self->shape.dtype, TRUE, error))
    return ACCEL_FLOW_ERROR;
  if (accel_stage_is_host (stage))
    {
      accel_dense_gemm_host (
          &self->shape, &self->host, self->alpha, 0.0, a, b, out);
      return ACCEL_FLOW_OK;
    }
  if (!accel_blas_gpu_bind (stage, &self->gpu, frame, error)
      || !accel_gemm_gpu (
          stage, &self->gpu, &self->shape, self->alpha, 0.0, a, b, out, error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_gemm_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelGemm *self = ACCEL_GEMM (object);

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
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_gemm_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelGemm *self = ACCEL_GEMM (object);

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
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_gemm_class_init (AccelGemmClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = accel_gemm_set_property;
  gobject_class->get_property = accel_gemm_get_property;
  stage_class->negotiate = accel_gemm_stage_negotiate;
  stage_class->start = accel_gemm_start;
  stage_class->stop = accel_gemm_stop;
  stage_class->process = accel_gemm_process;
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

  accel_stage_class_set_metadata (stage_class, "blas.gemm",
      "General matrix product of row-major matrices, out = alpha op(A) "
      "op(B), or a strided batch of them, out[i] = alpha op(A[i]) op(B[i]) "
      "where either input may be one matrix the batch shares; f32, f64, or "
      "f16 and bf16 accumulated in f32");
  accel_blas_class_add_matrix_port (stage_class, ACCEL_PORT_INPUT, "a",
      ACCEL_RANK_ANY,
      "[m, k] or [batch, m, k] (transa: k and m swapped), f32, f64, f16 or "
      "bf16");
  accel_blas_class_add_matrix_port (stage_class, ACCEL_PORT_INPUT, "b",
      ACCEL_RANK_ANY,
      "[k, n] or [batch, k, n] (transb: n and k swapped), the dtype of a");
  accel_blas_class_add_matrix_port (stage_class, ACCEL_PORT_OUTPUT, "out",
      ACCEL_RANK_ANY, "[m, n], or [batch, m, n] when an input is a batch");
}

static void
accel_gemm_init (AccelGemm *self)
{
}
