/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel plugins: dense matrix products, shared by the blas and blaslt
 * plugins: their shape checks and their host implementation (OpenBLAS,
 * f16 and bf16 through f32) */
#include <cblas.h>
#include <string.h>

#include "acceldense.h"
#include "accelhalf.h"
#include "accelhostscratch.h"

/**
 * accel_dense_mismatch:
 * @stage: the negotiating stage
 * @error: return location for a #GError, or %NULL
 * @format: what disagrees, printf-style
 *
 * Sets @error to %ACCEL_ERROR_TYPE_MISMATCH, "stage 'name' (kind): what".
 *
 * Returns: %FALSE.
 */
gboolean
accel_dense_mismatch (
    AccelStage *stage, GError **error, const char *format, ...)
{
  g_autofree gchar *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH,
      "stage '%s' (%s): %s", accel_stage_get_name (stage),
      accel_stage_get_kind_name (stage), what);
  return FALSE;
}

/**
 * accel_dense_dims_to_string:
 * @type: a tensor type
 *
 * Returns: (transfer full): its dimensions as "64x32".
 */
gchar *
accel_dense_dims_to_string (const AccelType *type)
{
  GString *s = g_string_new (NULL);

  for (gint d = 0; d < type->n_dims; d++)
    g_string_append_printf (
        s, "%s%" G_GINT64_FORMAT, d ? "x" : "", type->dims[d]);
  if (type->n_dims <= 0)
    g_string_append (s, "a scalar");
  return g_string_free (s, FALSE);
}

/**
 * accel_dense_check_dtype:
 * @stage: the negotiating stage
 * @port: the input's name
 * @type: its type
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE for a non-empty tensor of f32, f64, f16 or bf16;
 * otherwise %FALSE with %ACCEL_ERROR_TYPE_MISMATCH.
 */
gboolean
accel_dense_check_dtype (
    AccelStage *stage, const char *port, const AccelType *type, GError **error)
{
  if (type->kind != ACCEL_KIND_TENSOR)
    return accel_dense_mismatch (stage, error, "%s is a %s, not a tensor", port,
        accel_kind_to_string (type->kind));
  switch (type->dtype)
    {
    case ACCEL_DTYPE_F32:
    case ACCEL_DTYPE_F64:
    case ACCEL_DTYPE_F16:
    case ACCEL_DTYPE_BF16:
      break;
    default:
      return accel_dense_mismatch (stage, error,
          "%s is %s; the stage takes f32, f64, f16 or bf16", port,
          accel_dtype_to_string (type->dtype));
    }
  for (gint d = 0; d < type->n_dims; d++)
    if (type->dims[d] < 1 || type->dims[d] > G_MAXINT32)
      {
        g_autofree gchar *dims = accel_dense_dims_to_string (type);
        return accel_dense_mismatch (stage, error,
            "%s is %s; every dimension must be between 1 and 2^31 - 1", port,
            dims);
      }
  return TRUE;
}

/* "a is 64x32", or "a is 32x64 (used transposed)" */
static gchar *
describe_operand (const char *name, const AccelType *type, gboolean trans)
{
  g_autofree gchar *dims = accel_dense_dims_to_string (type);

  return g_strdup_printf (
      "%s is %s%s", name, dims, trans ? " (used transposed)" : "");
}

/**
 * accel_dense_gemm_negotiate:
 * @stage: the negotiating stage
 * @a: the type of input a
 * @b: the type of input b
 * @transa: the stage uses A transposed
 * @transb: the stage uses B transposed
 * @batched: a and b may be [batch, rows, cols] (one of them may be a single
 *   matrix that the batch shares); with both matrices, a single product
 * @shape: (out): the product
 * @out: (out): the output type, [batch, m, n] when an input is a batch,
 *   otherwise [m, n]
 * @error: return location for a #GError, or %NULL
 *
 * Called from negotiate().
 *
 * Returns: %TRUE when a and b make a product; otherwise %FALSE with
 * %ACCEL_ERROR_TYPE_MISMATCH naming the stage and both shapes.
 */
gboolean
accel_dense_gemm_negotiate (AccelStage *stage, const AccelType *a,
    const AccelType *b, gboolean transa, gboolean transb, gboolean batched,
    AccelGemmShape *shape, AccelType *out, GError **error)
{
  gint64 ra, ca, rb, cb, ka, kb, dims[3];
  gint64 batch_a = 1, batch_b = 1;

  if (!accel_dense_check_dtype (stage, "a", a, error)
      || !accel_dense_check_dtype (stage, "b", b, error))
    return FALSE;
  if (a->dtype != b->dtype)
    return accel_dense_mismatch (stage, error,
        "a is %s but b is %s; both must have one dtype",
        accel_dtype_to_string (a->dtype), accel_dtype_to_string (b->dtype));

  if (!batched && (a->n_dims != 2 || b->n_dims != 2))
    return accel_dense_mismatch (stage, error,
        "a has rank %d and b rank %d; both must be matrices (rank 2)",
        a->n_dims, b->n_dims);
  if (batched
      && (a->n_dims < 2 || a->n_dims > 3 || b->n_dims < 2 || b->n_dims > 3))
    return accel_dense_mismatch (stage, error,
        "a has rank %d and b rank %d; each must be a matrix [rows, cols] or "
        "a batch of them [batch, rows, cols]",
        a->n_dims, b->n_dims);
  if (a->n_dims == 3)
    batch_a = a->dims[0];
  if (b->n_dims == 3)
    batch_b = b->dims[0];
  if (a->n_dims == 3 && b->n_dims == 3 && batch_a != batch_b)
    {
      g_autofree gchar *da = accel_dense_dims_to_string (a);
      g_autofree gchar *db = accel_dense_dims_to_string (b);
      return accel_dense_mismatch (stage, error,
          "a is %s but b is %s; batches of %" G_GINT64_FORMAT
          " and %" G_GINT64_FORMAT " differ",
          da, db, batch_a, batch_b);
    }

  ra = a->dims[a->n_dims - 2];
  ca = a->dims[a->n_dims - 1];
  rb = b->dims[b->n_dims - 2];
  cb = b->dims[b->n_dims - 1];
  ka = transa ? ra : ca;
  kb = transb ? cb : rb;
  if (ka != kb)
    {
      g_autofree gchar *da = describe_operand ("a", a, transa);
      g_autofree gchar *db = describe_operand ("b", b, transb);
      return accel_dense_mismatch (stage, error,
          "%s but %s; inner dimensions %" G_GINT64_FORMAT
          " and %" G_GINT64_FORMAT " differ",
          da, db, ka, kb);
    }

  shape->dtype = a->dtype;
  shape->transa = transa;
  shape->transb = transb;
  shape->batch = MAX (batch_a, batch_b);
  shape->m = transa ? ca : ra;
  shape->n = transb ? rb : cb;
  shape->k = ka;
  shape->lda = ca;
  shape->ldb = cb;
  shape->stride_a = a->n_dims == 3 || !batched ? ra * ca : 0;
  shape->stride_b = b->n_dims == 3 || !batched ? rb * cb : 0;

  dims[0] = shape->batch;
  dims[1] = shape->m;
  dims[2] = shape->n;
  if (a->n_dims == 3 || b->n_dims == 3)
    accel_type_init_tensor (out, shape->dtype, ACCEL_MEMORY_DEVICE, 3, dims);
  else
    accel_type_init_tensor (
        out, shape->dtype, ACCEL_MEMORY_DEVICE, 2, dims + 1);
  return TRUE;
}

/**
 * accel_dense_gemm_a_elements:
 * @s: a negotiated product
 *
 * Returns: the elements of input a, the whole batch.
 */
gsize
accel_dense_gemm_a_elements (const AccelGemmShape *s)
{
  gint64 one = (s->transa ? s->k : s->m) * s->lda;

  return s->stride_a ? s->batch * one : one;
}

/**
 * accel_dense_gemm_b_elements:
 * @s: a negotiated product
 *
 * Returns: the elements of input b, the whole batch.
 */
gsize
accel_dense_gemm_b_elements (const AccelGemmShape *s)
{
  gint64 one = (s->transb ? s->n : s->k) * s->ldb;

  return s->stride_b ? s->batch * one : one;
}

/**
 * accel_dense_host_start:
 * @stage: the stage
 * @shape: the negotiated product
 * @host: (out): the f32 scratch of an f16 or bf16 product
 * @error: return location for a #GError, or %NULL
 *
 * Makes the scratch accel_dense_gemm_host() computes half precision products
 * in. Called from start() on the host backend.
 *
 * Returns: %FALSE, with nothing made, when the scratch cannot be had.
 */
gboolean
accel_dense_host_start (AccelStage *stage, const AccelGemmShape *shape,
    AccelDenseHost *host, GError **error)
{
  memset (host, 0, sizeof (*host));
  if (!accel_dtype_is_half (shape->dtype))
    return TRUE;
  if ((host->a = accel_host_scratch_new (
           stage, accel_dense_gemm_a_elements (shape), sizeof (float), error))
      && (host->b = accel_host_scratch_new (stage,
              accel_dense_gemm_b_elements (shape), sizeof (float), error))
      && (host->c = accel_host_scratch_new (stage,
              shape->batch * shape->m * shape->n, sizeof (float), error)))
    return TRUE;
  accel_dense_host_clear (host);
  return FALSE;
}

/**
 * accel_dense_host_start_vectors:
 * @stage: the stage
 * @dtype: its vectors' dtype
 * @n: their length
 * @host: the stage's host scratch, empty
 * @first: (out): where in @host the first f32 copy goes
 * @second: (out): where in @host the second goes
 * @error: return location for a #GError, or %NULL
 *
 * The f32 scratch of an f16 or bf16 vector stage (axpy, dot): two vectors
 * of @n floats, none for other dtypes. Called from start() on the host
 * backend.
 *
 * Returns: %FALSE, with nothing made, when the scratch cannot be had.
 */
gboolean
accel_dense_host_start_vectors (AccelStage *stage, AccelDType dtype, gsize n,
    AccelDenseHost *host, float **first, float **second, GError **error)
{
  if (!accel_dtype_is_half (dtype))
    return TRUE;
  if ((*first = accel_host_scratch_new (stage, n, sizeof (float), error))
      && (*second = accel_host_scratch_new (stage, n, sizeof (float), error)))
    return TRUE;
  accel_dense_host_clear (host);
  return FALSE;
}

/**
 * accel_dense_host_clear:
 * @host: host scratch
 *
 * Frees what start() made and zeroes @host. Called from stop().
 */
void
accel_dense_host_clear (AccelDenseHost *host)
{
  g_free (host->a);
  g_free (host->b);
  g_free (host->c);
  memset (host, 0, sizeof (*host));
}

/**
 * accel_dense_gemm_host:
 * @shape: the negotiated product
 * @host: the scratch from accel_dense_host_start()
 * @alpha: factor of the product
 * @beta: factor of the addend in @c (0: @c is not read)
 * @a: A
 * @b: B
 * @c: the output (and the addend)
 *
 * c = alpha op(A) op(B) + beta c through OpenBLAS, row-major as the
 * tensors are; f16 and bf16 are widened to f32, computed and rounded back.
 */
void
accel_dense_gemm_host (const AccelGemmShape *shape, AccelDenseHost *host,
    double alpha, double beta, gconstpointer a, gconstpointer b, gpointer c)
{
  const AccelGemmShape *s = shape;
  enum CBLAS_TRANSPOSE ta = s->transa ? CblasTrans : CblasNoTrans;
  enum CBLAS_TRANSPOSE tb = s->transb ? CblasTrans : CblasNoTrans;
  gint64 stride_c = s->m * s->n;
  gsize n_c = s->batch * stride_c;

  /* with beta 0 the output is written, never read: a pool buffer may hold
   * NaN, and NaN x 0 is NaN */
  if (beta == 0.0)
    memset (c, 0, n_c * accel_dtype_get_size (s->dtype));

  if (accel_dtype_is_half (s->dtype))
    {
      accel_half_widen (s->dtype, a, host->a, accel_dense_gemm_a_elements (s));
      accel_half_widen (s->dtype, b, host->b, accel_dense_gemm_b_elements (s));
      accel_half_widen (s->dtype, c, host->c, n_c);
      for (gint64 i = 0; i < s->batch; i++)
        cblas_sgemm (CblasRowMajor, ta, tb, s->m, s->n, s->k, (float)alpha,
            host->a + i * s->stride_a, s->lda, host->b + i * s->stride_b,
            s->ldb, (float)beta, host->c + i * stride_c, s->n);
      accel_half_narrow (s->dtype, host->c, c, n_c);
      return;
    }
  for (gint64 i = 0; i < s->batch; i++)
    if (s->dtype == ACCEL_DTYPE_F64)
      cblas_dgemm (CblasRowMajor, ta, tb, s->m, s->n, s->k, alpha,
          (const double *)a + i * s->stride_a, s->lda,
          (const double *)b + i * s->stride_b, s->ldb, beta,
          (double *)c + i * stride_c, s->n);
    else
      cblas_sgemm (CblasRowMajor, ta, tb, s->m, s->n, s->k, (float)alpha,
          (const float *)a + i * s->stride_a, s->lda,
          (const float *)b + i * s->stride_b, s->ldb, (float)beta,
          (float *)c + i * stride_c, s->n);
}

/**
 * accel_dense_gemm_host_f32:
 * @shape: a negotiated product of f32, f16 or bf16 matrices, without batch
 * @host: the scratch from accel_dense_host_start()
 * @alpha: factor of the product
 * @a: A
 * @b: B
 * @out: the output
 *
 * alpha op(A) op(B) in f32 through OpenBLAS, for a caller that goes on
 * working on the f32 result before it is stored (an epilogue).
 *
 * Returns: (transfer none): the f32 result: @out for f32, the scratch for
 * f16 and bf16 (the caller rounds it into @out with accel_half_narrow()).
 */
float *
accel_dense_gemm_host_f32 (const AccelGemmShape *shape, AccelDenseHost *host,
    double alpha, gconstpointer a, gconstpointer b, gpointer out)
{
  const AccelGemmShape *s = shape;
  enum CBLAS_TRANSPOSE ta = s->transa ? CblasTrans : CblasNoTrans;
  enum CBLAS_TRANSPOSE tb = s->transb ? CblasTrans : CblasNoTrans;
  float *c = out;

  g_return_val_if_fail (s->dtype != ACCEL_DTYPE_F64 && s->batch == 1, NULL);

  if (accel_dtype_is_half (s->dtype))
    {
      accel_half_widen (s->dtype, a, host->a, accel_dense_gemm_a_elements (s));
      accel_half_widen (s->dtype, b, host->b, accel_dense_gemm_b_elements (s));
      a = host->a;
      b = host->b;
      c = host->c;
    }
  memset (c, 0, s->m * s->n * sizeof (float));
  cblas_sgemm (CblasRowMajor, ta, tb, s->m, s->n, s->k, (float)alpha, a, s->lda,
      b, s->ldb, 0.0f, c, s->n);
  return c;
}
