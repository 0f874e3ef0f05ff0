/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel plugins: dense matrix products, shared by the blas and blaslt
 * plugins: their shape checks and their host implementation (not
 * installed) */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

/**
 * AccelGemmShape:
 * @dtype: of a, b and the output: f32, f64, f16 or bf16
 * @transa: op(A) is A transposed
 * @transb: op(B) is B transposed
 * @batch: products per buffer (1 but for a batched blas.gemm)
 * @m: rows of op(A) and of the output
 * @n: columns of op(B) and of the output
 * @k: columns of op(A), rows of op(B)
 * @lda: stored columns of A (row-major leading dimension)
 * @ldb: stored columns of B
 * @stride_a: elements from one A of the batch to the next; 0 when the
 *   batch shares one A
 * @stride_b: the same for B
 *
 * A product out = alpha op(A) op(B) (+ beta C) of row-major matrices, as
 * negotiation found it. The output is [batch,] m x n, leading dimension n.
 */
typedef struct
{
  AccelDType dtype;
  gboolean transa, transb;
  gint64 batch;
  gint64 m, n, k;
  gint64 lda, ldb;
  gint64 stride_a, stride_b;
} AccelGemmShape;

/**
 * AccelDenseHost:
 * @a: f32 copy of input 0
 * @b: f32 copy of input 1
 * @c: f32 result (and the addend, for blas.gemm-c)
 *
 * Host scratch of f16 and bf16 stages: they compute in f32. Made in start().
 */
typedef struct
{
  float *a, *b, *c;
} AccelDenseHost;

gboolean accel_dense_check_dtype (
    AccelStage *stage, const char *port, const AccelType *type, GError **error);
gboolean accel_dense_mismatch (AccelStage *stage, GError **error,
    const char *format, ...) G_GNUC_PRINTF (3, 4);
gchar *accel_dense_dims_to_string (const AccelType *type);
gboolean accel_dense_gemm_negotiate (AccelStage *stage, const AccelType *a,
    const AccelType *b, gboolean transa, gboolean transb, gboolean batched,
    AccelGemmShape *shape, AccelType *out, GError **error);
gsize accel_dense_gemm_a_elements (const AccelGemmShape *shape);
gsize accel_dense_gemm_b_elements (const AccelGemmShape *shape);
gboolean accel_dense_host_start (AccelStage *stage, const AccelGemmShape *shape,
    AccelDenseHost *host, GError **error);
gboolean accel_dense_host_start_vectors (AccelStage *stage, AccelDType dtype,
    gsize n, AccelDenseHost *host, float **first, float **second,
    GError **error);
void accel_dense_host_clear (AccelDenseHost *host);
void accel_dense_gemm_host (const AccelGemmShape *shape, AccelDenseHost *host,
    double alpha, double beta, gconstpointer a, gconstpointer b, gpointer c);
float *accel_dense_gemm_host_f32 (const AccelGemmShape *shape,
    AccelDenseHost *host, double alpha, gconstpointer a, gconstpointer b,
    gpointer out);

G_END_DECLS
