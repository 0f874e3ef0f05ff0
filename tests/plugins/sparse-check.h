/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the sparse product cases of the host and GPU tests: random CSR matrices,
 * the stage's products and the dense reference's */
#pragma once

#include <accel/accel.h>

typedef struct
{
  const char *path;
  const char *kind; /* sparse.spmv or sparse.spmm */
  AccelDType dtype;
  gint64 m, n, k, nnz; /* k: 0 for a vector */
  double alpha;
} SparseCase;

extern const SparseCase sparse_cases[];
extern const guint sparse_n_cases;

/* f32: 1e-5; f64: 1e-12 */
double sparse_tolerance (AccelDType dtype);

typedef struct
{
  GPtrArray *inputs[4]; /* GBytes per frame: row_offsets, col_indices,
                           values, x */
  AccelType types[4];
  GPtrArray *expected; /* double arrays, one per frame */
  gsize n_expected;
} SparseData;

SparseData *sparse_data_new (const SparseCase *c, guint n_frames);
void sparse_data_free (SparseData *data);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SparseData, sparse_data_free)

/* four sources -> @c's stage (named "stage") -> sink "sink", not run */
AccelGraph *sparse_graph_new (
    const SparseCase *c, const SparseData *data, gboolean host);
GPtrArray *sparse_case_run (
    const SparseCase *c, const SparseData *data, gboolean host);
double sparse_case_check (
    const SparseCase *c, const SparseData *data, GPtrArray *out);
double sparse_compare_runs (const SparseCase *c, GPtrArray *a, GPtrArray *b);
