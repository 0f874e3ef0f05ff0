/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel blaslt plugin: AccelLtMatmul, the matrix product with a fused
 * epilogue that blaslt.matmul and blaslt.matmul-bias share: cuBLASLt on a
 * GPU, OpenBLAS and a plain C epilogue on the host */
#define G_LOG_DOMAIN "accel-blaslt"

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <string.h>

#include "acceldense.h"
#include "accelhalf.h"
#include "accelhostscratch.h"
#include "accelblaslt-private.h"
#include "accelscalar.h"

/* what cuBLAS asks for on Hopper */
#define WORKSPACE_SIZE ((gsize)32 << 20)

typedef struct
{
  /* properties */
  gboolean transa, transb;
  double alpha;
  AccelLtEpilogue epilogue;

  /* from negotiation */
  AccelGemmShape shape;
  AccelLtEpilogue effective; /* with the bias of blaslt.matmul-bias */

  /* GPU; the layouts in cuBLASLt's order: its A is our B (see start) */
  cublasLtHandle_t lt;
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t layout_a, layout_b, layout_d;
  cublasLtMatmulAlgo_t algo;
  gpointer workspace;

  /* host: f32 scratch of f16 and bf16 */
  AccelDenseHost host;
  float *bias;
} AccelLtMatmulPrivate;

G_DEFINE_ENUM_TYPE (AccelLtEpilogue, accel_lt_epilogue,
    G_DEFINE_ENUM_VALUE (ACCEL_LT_EPILOGUE_NONE, "none"),
    G_DEFINE_ENUM_VALUE (ACCEL_LT_EPILOGUE_BIAS, "bias"),
    G_DEFINE_ENUM_VALUE (ACCEL_LT_EPILOGUE_RELU, "relu"),
    G_DEFINE_ENUM_VALUE (ACCEL_LT_EPILOGUE_GELU, "gelu"),
    G_DEFINE_ENUM_VALUE (ACCEL_LT_EPILOGUE_BIAS_RELU, "bias-relu"),
    G_DEFINE_ENUM_VALUE (ACCEL_LT_EPILOGUE_BIAS_GELU, "bias-gelu"))

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (
    AccelLtMatmul, accel_lt_matmul, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_TRANSA,
  PROP_TRANSB,
  PROP_ALPHA,
  PROP_EPILOGUE,
};

enum
{
  PORT_A,
  PORT_B,
  PORT_BIAS,
};

static gboolean
epilogue_has_bias (AccelLtEpilogue e)
{
  return e == ACCEL_LT_EPILOGUE_BIAS || e == ACCEL_LT_EPILOGUE_BIAS_RELU
         || e == ACCEL_LT_EPILOGUE_BIAS_GELU;
}

static const char *
epilogue_nick (AccelLtEpilogue e)
{
  GEnumClass *klass = g_type_class_ref (ACCEL_TYPE_LT_EPILOGUE);
  GEnumValue *v = g_enum_get_value (klass, e);

  g_type_class_unref (klass);
  return v ? v->value_nick : "?";
}

static gboolean
accel_lt_matmul_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelLtMatmul *self = ACCEL_LT_MATMUL (stage);
  AccelLtMatmulPrivate *priv = accel_lt_matmul_get_instance_private (self);
  gboolean has_bias = ACCEL_LT_MATMUL_GET_CLASS (self)->has_bias;
  AccelGemmShape *s = &priv->shape;

  if (!has_bias && epilogue_has_bias (priv->epilogue))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "stage '%s' (%s): epilogue %s needs a bias input: use "
          "blaslt.matmul-bias",
          accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
          epilogue_nick (priv->epilogue));
      return FALSE;
    }
  if (!accel_dense_gemm_negotiate (stage, &in_types[PORT_A], &in_types[PORT_B],
          priv->transa, priv->transb, FALSE, s, &out_types[0], error))
    return FALSE;
  if (s->dtype == ACCEL_DTYPE_F64)
    return accel_dense_mismatch (stage, error,
        "a and b are f64; the stage takes f32, f16 or bf16 (blas.gemm "
        "multiplies f64)");

  priv->effective = priv->epilogue;
  if (has_bias)
    {
      const AccelType *bias = &in_types[PORT_BIAS];

      if (bias->kind != ACCEL_KIND_TENSOR || bias->dtype != s->dtype
          || bias->n_dims != 1 || bias->dims[0] != s->n)
        {
          g_autofree gchar *have = accel_type_to_string (bias);
          return accel_dense_mismatch (stage, error,
              "bias is %s but the product is %" G_GINT64_FORMAT
              "x%" G_GINT64_FORMAT "; bias must be %s [%" G_GINT64_FORMAT
              "], one value per column",
              have, s->m, s->n, accel_dtype_to_string (s->dtype), s->n);
        }
      switch (priv->epilogue)
        {
        case ACCEL_LT_EPILOGUE_RELU:
          priv->effective = ACCEL_LT_EPILOGUE_BIAS_RELU;
          break;
        case ACCEL_LT_EPILOGUE_GELU:
          priv->effective = ACCEL_LT_EPILOGUE_BIAS_GELU;
          break;
        case ACCEL_LT_EPILOGUE_NONE:
          priv->effective = ACCEL_LT_EPILOGUE_BIAS;
          break;
        default:
          break;
        }
    }
  return accel_scalar_check (
      stage, "alpha", priv->alpha, priv->shape.dtype, FALSE, error);
}

static cublasLtEpilogue_t
lt_epilogue (AccelLtEpilogue e)
{
  switch (e)
    {
    case ACCEL_LT_EPILOGUE_BIAS:
      return CUBLASLT_EPILOGUE_BIAS;
    case ACCEL_LT_EPILOGUE_RELU:
      return CUBLASLT_EPILOGUE_RELU;
    case ACCEL_LT_EPILOGUE_GELU:
      return CUBLASLT_EPILOGUE_GELU;
    case ACCEL_LT_EPILOGUE_BIAS_RELU:
      return CUBLASLT_EPILOGUE_RELU_BIAS;
    case ACCEL_LT_EPILOGUE_BIAS_GELU:
      return CUBLASLT_EPILOGUE_GELU_BIAS;
    default:
      return CUBLASLT_EPILOGUE_DEFAULT;
    }
}

static cudaDataType
lt_dtype (AccelDType dtype)
{
  switch (dtype)
    {
    case ACCEL_DTYPE_F16:
      return CUDA_R_16F;
    case ACCEL_DTYPE_BF16:
      return CUDA_R_16BF;
    default:
      return CUDA_R_32F;
    }
}

static void
stop_gpu (AccelLtMatmul *self)
{
  AccelStage *stage = ACCEL_STAGE (self);
  AccelLtMatmulPrivate *priv = accel_lt_matmul_get_instance_private (self);

  if (priv->layout_a)
    accel_cublaslt_check (
        stage, cublasLtMatrixLayoutDestroy (priv->layout_a), NULL);
  if (priv->layout_b)
    accel_cublaslt_check (
        stage, cublasLtMatrixLayoutDestroy (priv->layout_b), NULL);
  if (priv->layout_d)
    accel_cublaslt_check (
        stage, cublasLtMatrixLayoutDestroy (priv->layout_d), NULL);
  if (priv->desc)
    accel_cublaslt_check (stage, cublasLtMatmulDescDestroy (priv->desc), NULL);
  if (priv->workspace)
    accel_cuda_check (
        cudaFreeAsync (priv->workspace,
            accel_stream_get_handle (accel_stage_get_stream (stage))),
        NULL);
  if (priv->lt)
    accel_cublaslt_check (stage, cublasLtDestroy (priv->lt), NULL);
  priv->layout_a = priv->layout_b = priv->layout_d = NULL;
  priv->desc = NULL;
  priv->workspace = NULL;
  priv->lt = NULL;
}

static gboolean
set_desc (AccelStage *stage, cublasLtMatmulDesc_t desc,
    cublasLtMatmulDescAttributes_t attr, const void *value, gsize size,
    GError **error)
{
  return accel_cublaslt_check (
      stage, cublasLtMatmulDescSetAttribute (desc, attr, value, size), error);
}

static gboolean
start_gpu (AccelLtMatmul *self, GError **error)
{
  AccelStage *stage = ACCEL_STAGE (self);
  AccelLtMatmulPrivate *priv = accel_lt_matmul_get_instance_private (self);
  const AccelGemmShape *s = &priv->shape;
  cudaStream_t stream
      = accel_stream_get_handle (accel_stage_get_stream (stage));
  cudaDataType dt = lt_dtype (s->dtype);
  /* cuBLASLt is column-major, and a row-major matrix read column-major is
   * its transpose: the row-major D = op(A) op(B) is computed as the
   * column-major D^T = op(B)^T op(A)^T, so cuBLASLt's A is our B and its B
   * our A, each read as stored (ld = stored columns), with the transpose
   * flags as they are. D^T is n x m, and the bias, one value per row of
   * D^T, is one value per column of our D. */
  cublasOperation_t op_a = s->transb ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t op_b = s->transa ? CUBLAS_OP_T : CUBLAS_OP_N;
  guint64 rows_b_stored = s->transb ? s->n : s->k;
  guint64 rows_a_stored = s->transa ? s->k : s->m;
  cublasLtEpilogue_t epilogue = lt_epilogue (priv->effective);
  guint64 workspace_size = WORKSPACE_SIZE;
  cublasLtMatmulPreference_t pref = NULL;
  cublasLtMatmulHeuristicResult_t result;
  int n_results = 0;

  if (!accel_cublaslt_check (stage, cublasLtCreate (&priv->lt), error))
    goto failed;
  if (!accel_cuda_check (
          cudaMallocAsync (&priv->workspace, WORKSPACE_SIZE, stream), error))
    goto failed;
  if (!accel_cublaslt_check (stage,
          cublasLtMatmulDescCreate (
              &priv->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F),
          error)
      || !set_desc (stage, priv->desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_a,
          sizeof (op_a), error)
      || !set_desc (stage, priv->desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_b,
          sizeof (op_b), error)
      || !set_desc (stage, priv->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
          sizeof (epilogue), error))
    goto failed;
  if (!accel_cublaslt_check (stage,
          cublasLtMatrixLayoutCreate (
              &priv->layout_a, dt, s->ldb, rows_b_stored, s->ldb),
          error)
      || !accel_cublaslt_check (stage,
          cublasLtMatrixLayoutCreate (
              &priv->layout_b, dt, s->lda, rows_a_stored, s->lda),
          error)
      || !accel_cublaslt_check (stage,
          cublasLtMatrixLayoutCreate (&priv->layout_d, dt, s->n, s->m, s->n),
          error))
    goto failed;

  /* the algorithm is chosen once: the shapes are fixed by negotiation */
  if (!accel_cublaslt_check (
          stage, cublasLtMatmulPreferenceCreate (&pref), error)
      || !accel_cublaslt_check (stage,
          cublasLtMatmulPreferenceSetAttribute (pref,
              CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_size,
              sizeof (workspace_size)),
          error)
      || !accel_cublaslt_check (stage,
          cublasLtMatmulAlgoGetHeuristic (priv->lt, priv->desc, priv->layout_a,
              priv->layout_b, priv->layout_d, priv->layout_d, pref, 1, &result,
              &n_results),
          error))
    goto failed;
  if (n_results < 1)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_NOT_SUPPORTED,
          "stage '%s' (%s): cuBLASLt has no algorithm for a %s product of "
          "%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
          " with epilogue %s",
          accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
          accel_dtype_to_string (s->dtype), s->m, s->n, s->k,
          epilogue_nick (priv->effective));
      goto failed;
    }
  priv->algo = result.algo;
  accel_cublaslt_check (stage, cublasLtMatmulPreferenceDestroy (pref), NULL);
  return TRUE;

  /* ERRORS */
failed:
  if (pref)
    accel_cublaslt_check (stage, cublasLtMatmulPreferenceDestroy (pref), NULL);
  stop_gpu (self);
  return FALSE;
}

static gboolean
accel_lt_matmul_start (AccelStage *stage, GError **error)
{
  AccelLtMatmul *self = ACCEL_LT_MATMUL (stage);
  AccelLtMatmulPrivate *priv = accel_lt_matmul_get_instance_private (self);

  if (!accel_stage_is_host (stage))
    return start_gpu (self, error);
  if (!accel_dense_host_start (stage, &priv->shape, &priv->host, error))
    return FALSE;
  if (accel_dtype_is_half (priv->shape.dtype)
      && !(priv->bias = accel_host_scratch_new (
               stage, priv->shape.n, sizeof (float), error)))
    {
      accel_dense_host_clear (&priv->host);
      return FALSE;
    }
  return TRUE;
}

static void
accel_lt_matmul_stop (AccelStage *stage)
{
  AccelLtMatmul *self = ACCEL_LT_MATMUL (stage);
  AccelLtMatmulPrivate *priv = accel_lt_matmul_get_instance_private (self);

  stop_gpu (self);
  accel_dense_host_clear (&priv->host);
  g_clear_pointer (&priv->bias, g_free);
}

/* the tanh approximation, as cuBLASLt computes GELU */
static inline float
gelu (float x)
{
  const float k = 0.7978845608028654f; /* sqrt (2 / pi) */

  return 0.5f * x * (1.0f + tanhf (k * (x + 0.044715f * x * x * x)));
}

static void
process_host (AccelLtMatmul *self, AccelFrame *frame)
{
  AccelLtMatmulPrivate *priv = accel_lt_matmul_get_instance_private (self);
  const AccelGemmShape *s = &priv->shape;
  gpointer out = accel_buffer_get_data (frame->outputs[0]);
  const float *bias = NULL;
  AccelLtEpilogue e = priv->effective;
  gboolean relu
      = e == ACCEL_LT_EPILOGUE_RELU || e == ACCEL_LT_EPILOGUE_BIAS_RELU;
  gboolean gelu_on
      = e == ACCEL_LT_EPILOGUE_GELU || e == ACCEL_LT_EPILOGUE_BIAS_GELU;
  float *r;

  r = accel_dense_gemm_host_f32 (s, &priv->host, priv->alpha,
      accel_buffer_get_data (frame->inputs[PORT_A]),
      accel_buffer_get_data (frame->inputs[PORT_B]), out);
  if (epilogue_has_bias (e))
    {
      gconstpointer data = accel_buffer_get_data (frame->inputs[PORT_BIAS]);

      bias = data;
      if (accel_dtype_is_half (s->dtype))
        {
          accel_half_widen (s->dtype, data, priv->bias, s->n);
          bias = priv->bias;
        }
    }
  for (gint64 i = 0; i < s->m; i++)
    {
      float *row = r + i * s->n;
      for (gint64 j = 0; j < s->n; j++)
        {
          float x = row[j] + (bias ? bias[j] : 0.0f);
          if (relu)
            x = MAX (x, 0.0f);
          else if (gelu_on)
            x = gelu (x);
          row[j] = x;
        }
    }
  if (accel_dtype_is_half (s->dtype))
    accel_half_narrow (s->dtype, r, out, s->m * s->n);
}

static AccelFlow
accel_lt_matmul_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelLtMatmul *self = ACCEL_LT_MATMUL (stage);
  AccelLtMatmulPrivate *priv = accel_lt_matmul_get_instance_private (self);
  gconstpointer a = accel_buffer_get_data (frame->inputs[PORT_A]);
  gconstpointer b = accel_buffer_get_data (frame->inputs[PORT_B]);
  gpointer out = accel_buffer_get_data (frame->outputs[0]);
  float alpha = (float)priv->alpha, beta = 0.0f;

  if (!accel_scalar_check (
          stage, "alpha", priv->alpha, priv->shape.dtype, TRUE, error))
    return ACCEL_FLOW_ERROR;
  if (accel_stage_is_host (stage))
    {
      process_host (self, frame);
      return ACCEL_FLOW_OK;
    }
  if (epilogue_has_bias (priv->effective))
    {
      gconstpointer bias = accel_buffer_get_data (frame->inputs[PORT_BIAS]);

      if (!set_desc (stage, priv->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
              &bias, sizeof (bias), error))
        return ACCEL_FLOW_ERROR;
    }
  /* beta 0: C is not read, so the output stands in for it */
  if (!accel_cublaslt_check (stage,
          cublasLtMatmul (priv->lt, priv->desc, &alpha, b, priv->layout_a, a,
              priv->layout_b, &beta, out, priv->layout_d, out, priv->layout_d,
              &priv->algo, priv->workspace, WORKSPACE_SIZE,
              accel_stream_get_handle (frame->stream)),
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_lt_matmul_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelLtMatmulPrivate *priv
      = accel_lt_matmul_get_instance_private (ACCEL_LT_MATMUL (object));

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;

  switch (prop_id)
    {
    case PROP_TRANSA:
      priv->transa = g_value_get_boolean (value);
      break;
    case PROP_TRANSB:
      priv->transb = g_value_get_boolean (value);
      break;
    case PROP_ALPHA:
      priv->alpha = g_value_get_double (value);
      break;
    case PROP_EPILOGUE:
      priv->epilogue = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_lt_matmul_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelLtMatmulPrivate *priv
      = accel_lt_matmul_get_instance_private (ACCEL_LT_MATMUL (object));

  switch (prop_id)
    {
    case PROP_TRANSA:
      g_value_set_boolean (value, priv->transa);
      break;
    case PROP_TRANSB:
      g_value_set_boolean (value, priv->transb);
      break;
    case PROP_ALPHA:
      g_value_set_double (value, priv->alpha);
      break;
    case PROP_EPILOGUE:
      g_value_set_enum (value, priv->epilogue);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_lt_matmul_class_init (AccelLtMatmulClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = accel_lt_matmul_set_property;
  gobject_class->get_property = accel_lt_matmul_get_property;
  stage_class->negotiate = accel_lt_matmul_negotiate;
  stage_class->start = accel_lt_matmul_start;
  stage_class->stop = accel_lt_matmul_stop;
  stage_class->process = accel_lt_matmul_process;
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
  g_object_class_install_property (gobject_class, PROP_EPILOGUE,
      g_param_spec_enum ("epilogue", "Epilogue",
          "What is applied to the product before it is stored: none, bias, "
          "relu, gelu (tanh approximation), bias-relu, bias-gelu (read at "
          "negotiation)",
          ACCEL_TYPE_LT_EPILOGUE, ACCEL_LT_EPILOGUE_NONE,
          flags | ACCEL_PARAM_FIXED));
}

static void
accel_lt_matmul_init (AccelLtMatmul *self)
{
}

/**
 * accel_lt_matmul_class_add_ports:
 * @klass: a subclass, from its class_init, with @has_bias set
 *
 * Adds the inputs a and b (and bias), and the output out.
 */
void
accel_lt_matmul_class_add_ports (AccelLtMatmulClass *klass)
{
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  AccelType t;

  accel_type_init_tensor (&t, ACCEL_DTYPE_ANY, ACCEL_MEMORY_DEVICE, 2, NULL);
  accel_stage_class_add_port (stage_class, ACCEL_PORT_INPUT, "a", &t,
      "[m, k] (transa: [k, m]), f32, f16 or bf16");
  accel_stage_class_add_port (stage_class, ACCEL_PORT_INPUT, "b", &t,
      "[k, n] (transb: [n, k]), the dtype of a");
  if (klass->has_bias)
    {
      AccelType v;

      accel_type_init_tensor (
          &v, ACCEL_DTYPE_ANY, ACCEL_MEMORY_DEVICE, 1, NULL);
      accel_stage_class_add_port (stage_class, ACCEL_PORT_INPUT, "bias", &v,
          "[n], the dtype of a: added to each row of the product");
    }
  accel_stage_class_add_port (
      stage_class, ACCEL_PORT_OUTPUT, "out", &t, "[m, n], the dtype of a");
}
