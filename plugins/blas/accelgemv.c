/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel blas plugin: blas.gemv, y = alpha op(A) x */
#define G_LOG_DOMAIN "accel-blas"

#include <cblas.h>
#include <string.h>

#include "accelblas-private.h"
#include "accelgemv.h"
#include "accelscalar.h"

struct _AccelGemv
{
  AccelStage parent;

  gboolean transa;
  double alpha;

  /* the product as a matrix product with one column: f16 and bf16 go
   * through it, as cuBLAS has no half precision gemv */
  AccelGemmShape shape;
  gint64 rows, cols; /* of A as stored */
  AccelBlasGpu gpu;
  AccelDenseHost host;
};

G_DEFINE_FINAL_TYPE (AccelGemv, accel_gemv, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_TRANSA,
  PROP_ALPHA,
};

static gboolean
accel_gemv_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelGemv *self = ACCEL_GEMV (stage);
  const AccelType *a = &in_types[0], *x = &in_types[1];
  gint64 want;

  if (!accel_dense_check_dtype (stage, "a", a, error)
      || !accel_dense_check_dtype (stage, "x", x, error))
    return FALSE;
  if (a->dtype != x->dtype)
    return accel_dense_mismatch (stage, error,
        "a is %s but x is %s; both must have one dtype",
        accel_dtype_to_string (a->dtype), accel_dtype_to_string (x->dtype));
  self->rows = a->dims[0];
  self->cols = a->dims[1];
  want = self->transa ? self->rows : self->cols;
  if (x->dims[0] != want)
    {
      g_autofree gchar *da = accel_dense_dims_to_string (a);
      return accel_dense_mismatch (stage, error,
          "a is %s%s but x has %" G_GINT64_FORMAT
          " elements; it needs %" G_GINT64_FORMAT,
          da, self->transa ? " (used transposed)" : "", x->dims[0], want);
    }

  memset (&self->shape, 0, sizeof (self->shape));
  self->shape.dtype = a->dtype;
  self->shape.transa = self->transa;
  self->shape.batch = 1;
  self->shape.m = self->transa ? self->cols : self->rows;
  self->shape.n = 1;
  self->shape.k = want;
  self->shape.lda = self->cols;
  self->shape.ldb = 1;
  accel_type_init_tensor (
      &out_types[0], a->dtype, ACCEL_MEMORY_DEVICE, 1, &self->shape.m);
  return accel_scalar_check (
      stage, "alpha", self->alpha, self->shape.dtype, FALSE, error);
}

static gboolean
accel_gemv_start (AccelStage *stage, GError **error)
{
  AccelGemv *self = ACCEL_GEMV (stage);

  if (accel_stage_is_host (stage))
    return accel_dense_host_start (stage, &self->shape, &self->host, error);
  return accel_blas_gpu_start (
      stage, &self->gpu, CUBLAS_POINTER_MODE_HOST, error);
}

static void
accel_gemv_stop (AccelStage *stage)
{
  AccelGemv *self = ACCEL_GEMV (stage);

  accel_blas_gpu_stop (stage, &self->gpu);
  accel_dense_host_clear (&self->host);
}

static void
process_host (AccelGemv *self, gconstpointer a, gconstpointer x, gpointer y)
{
  enum CBLAS_TRANSPOSE ta = self->shape.transa ? CblasTrans : CblasNoTrans;

  switch (self->shape.dtype)
    {
    case ACCEL_DTYPE_F32:
      /* beta 0 would scale y, NaN included: start from zeros */
      memset (y, 0, self->shape.m * sizeof (float));
      cblas_sgemv (CblasRowMajor, ta, self->rows, self->cols,
          (float)self->alpha, a, self->cols, x, 1, 0.0f, y, 1);
      break;
    case ACCEL_DTYPE_F64:
      memset (y, 0, self->shape.m * sizeof (double));
      cblas_dgemv (CblasRowMajor, ta, self->rows, self->cols, self->alpha, a,
          self->cols, x, 1, 0.0, y, 1);
      break;
    default:
      accel_dense_gemm_host (
          &self->shape, &self->host, self->alpha, 0.0, a, x, y);
      break;
    }
}

static AccelFlow
accel_gemv_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelGemv *self = ACCEL_GEMV (stage);
  gconstpointer a = accel_buffer_get_data (frame->inputs[0]);
  gconstpointer x = accel_buffer_get_data (frame->inputs[1]);
  gpointer y = accel_buffer_get_data (frame->outputs[0]);
  /* row-major A read column-major is A^T (cols x rows): A x is then the
   * transposed product of that reading, and A^T x the plain one */
  cublasOperation_t op = self->shape.transa ? CUBLAS_OP_N : CUBLAS_OP_T;
  int rows = (int)self->cols, cols = (int)self->rows, ld = (int)self->cols;
  float alpha_f = (float)self->alpha, beta_f = 0.0f;
  double beta_d = 0.0;
  gboolean ok;

  if (!accel_scalar_check (
          stage, "alpha", self->alpha, self->shape.dtype, TRUE, error))
    return ACCEL_FLOW_ERROR;
  if (accel_stage_is_host (stage))
    {
      process_host (self, a, x, y);
      return ACCEL_FLOW_OK;
    }
  if (!accel_blas_gpu_bind (stage, &self->gpu, frame, error))
    return ACCEL_FLOW_ERROR;
  switch (self->shape.dtype)
    {
    case ACCEL_DTYPE_F32:
      ok = accel_cublas_check (stage,
          cublasSgemv (self->gpu.handle, op, rows, cols, &alpha_f, a, ld, x, 1,
              &beta_f, y, 1),
          error);
      break;
    case ACCEL_DTYPE_F64:
      ok = accel_cublas_check (stage,
          cublasDgemv (self->gpu.handle, op, rows, cols, &self->alpha, a, ld, x,
              1, &beta_d, y, 1),
          error);
      break;
    default:
      ok = accel_gemm_gpu (
          stage, &self->gpu, &self->shape, self->alpha, 0.0, a, x, y, error);
      break;
    }
  return ok ? ACCEL_FLOW_OK : ACCEL_FLOW_ERROR;
}

static void
accel_gemv_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelGemv *self = ACCEL_GEMV (object);

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;

  switch (prop_id)
    {
    case PROP_TRANSA:
      self->transa = g_value_get_boolean (value);
      break;
    case PROP_ALPHA:
      self->alpha = g_value_get_double (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_gemv_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelGemv *self = ACCEL_GEMV (object);

  switch (prop_id)
    {
    case PROP_TRANSA:
      g_value_set_boolean (value, self->transa);
      break;
    case PROP_ALPHA:
      g_value_set_double (value, self->alpha);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_gemv_class_init (AccelGemvClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = accel_gemv_set_property;
  gobject_class->get_property = accel_gemv_get_property;
  stage_class->negotiate = accel_gemv_negotiate;
  stage_class->start = accel_gemv_start;
  stage_class->stop = accel_gemv_stop;
  stage_class->process = accel_gemv_process;
  stage_class->can_capture = accel_stage_can_capture_always;

  g_object_class_install_property (gobject_class, PROP_TRANSA,
      g_param_spec_boolean ("transa", "Transpose A",
          "Use a transposed: y = alpha A^T x (read at negotiation)", FALSE,
          flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_ALPHA,
      g_param_spec_double ("alpha", "Alpha", "Factor of the product",
          -G_MAXDOUBLE, G_MAXDOUBLE, 1.0, flags));

  accel_stage_class_set_metadata (stage_class, "blas.gemv",
      "Matrix times vector, y = alpha op(A) x, A row-major; f32, f64, or "
      "f16 and bf16 accumulated in f32");
  accel_blas_class_add_matrix_port (
      stage_class, ACCEL_PORT_INPUT, "a", 2, "[m, n], f32, f64, f16 or bf16");
  accel_blas_class_add_matrix_port (stage_class, ACCEL_PORT_INPUT, "x", 1,
      "[n] (transa: [m]), the dtype of a");
  accel_blas_class_add_matrix_port (stage_class, ACCEL_PORT_OUTPUT, "y", 1,
      "[m] (transa: [n]), the dtype of a");
}

static void
accel_gemv_init (AccelGemv *self)
{
}
