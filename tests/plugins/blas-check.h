/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the dense product cases of the blas and blaslt tests, host and GPU:
 * fresh random inputs, the stage's outputs and a plain C double precision
 * reference */
#pragma once

#include <accel/accel.h>

typedef struct
{
  const char *path;
  const char *kind;
  AccelDType dtype;
  /* products: batch (0: no batch dimension), m x k times k x n; gemv: m x k
   * times k; axpy and dot: vectors of shape m x n */
  gint64 batch, m, n, k;
  gboolean transa, transb;
  gint shared;          /* batched blas.gemm: 1: a is one matrix, 2: b is */
  double alpha;         /* not for blas.dot */
  double beta;          /* blas.gemm-c */
  const char *epilogue; /* blaslt.*, NULL for none */
} BlasCase;

/* f32: 1e-5, f64: 1e-12, f16 and bf16: 1e-2 */
double blas_tolerance (AccelDType dtype);

/* values of @dtype and the doubles they hold exactly: f32 and f64 uniform
 * in [-1, 1) rounded to @dtype, f16 and bf16 on a grid in [-1, 1] they
 * hold */
GBytes *blas_random_tensor (AccelDType dtype, gsize n, double **values);
double *blas_tensor_to_double (AccelDType dtype, GBytes *data, gsize *n);

typedef struct
{
  guint n_inputs;
  const char *ports[4];
  AccelType types[4];
  GPtrArray *inputs[4]; /* GBytes, one per frame */
  GPtrArray *expected;  /* double arrays, one per frame; empty without a
                           reference */
  GArray *floors;       /* double per frame with the reference: the norm of
                           the product before a blaslt epilogue, else 0 */
  gsize n_expected;
} BlasData;

/* @n_frames of fresh inputs; the reference only when @reference */
BlasData *blas_data_new (const BlasCase *c, guint n_frames, gboolean reference);
void blas_data_free (BlasData *data);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (BlasData, blas_data_free)

/* a source per input -> @c's stage (named "stage") -> sink "sink", not
 * run; on the host device when @host */
AccelGraph *blas_graph_new (
    const BlasCase *c, const BlasData *data, gboolean host);
GPtrArray *blas_case_run (
    const BlasCase *c, const BlasData *data, gboolean host);
/* as blas_case_run(), with @c's transa flipped once the graph is prepared:
 * the change is refused with a warning, and the frames keep the product
 * negotiated */
GPtrArray *blas_case_run_transa_flipped (
    const BlasCase *c, const BlasData *data, gboolean host);
/* asserts every output is within blas_tolerance() of the reference;
 * returns the largest relative error */
double blas_case_check (
    const BlasCase *c, const BlasData *data, GPtrArray *out);
/* the largest relative error of run @a against run @b */
double blas_compare_runs (
    const BlasCase *c, const BlasData *data, GPtrArray *a, GPtrArray *b);
