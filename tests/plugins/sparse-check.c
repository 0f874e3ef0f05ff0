/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the sparse product cases of the host and GPU tests */
#include <string.h>

#include "accel-test.h"
#include "numeric-reference.h"
#include "sparse-check.h"
#include "tensor-io.h"

#define F32 ACCEL_DTYPE_F32
#define F64 ACCEL_DTYPE_F64

const SparseCase sparse_cases[] = {
  { "/sparse/spmv/f32", "sparse.spmv", F32, 50, 40, 0, 300, 1.5 },
  { "/sparse/spmv/f64", "sparse.spmv", F64, 33, 70, 0, 500, -0.5 },
  { "/sparse/spmv/f32-empty-rows", "sparse.spmv", F32, 40, 30, 0, 10, 1.0 },
  { "/sparse/spmv/f64-one-row", "sparse.spmv", F64, 1, 64, 0, 20, 1.0 },
  { "/sparse/spmm/f32", "sparse.spmm", F32, 30, 25, 4, 150, 1.0 },
  { "/sparse/spmm/f64", "sparse.spmm", F64, 17, 50, 7, 200, 2.0 },
  { "/sparse/spmm/f32-one-column", "sparse.spmm", F32, 21, 13, 1, 60, 0.25 },
};
const guint sparse_n_cases = G_N_ELEMENTS (sparse_cases);

static const char *const ports[] = {
  "row_offsets",
  "col_indices",
  "values",
  "x",
};

double
sparse_tolerance (AccelDType dtype)
{
  return dtype == F64 ? 1e-12 : 1e-5;
}

SparseData *
sparse_data_new (const SparseCase *c, guint n_frames)
{
  SparseData *data = g_new0 (SparseData, 1);
  gint64 k = c->k ? c->k : 1;
  gint64 dims_x[2] = { c->n, k };
  gint64 m1 = c->m + 1;

  for (guint p = 0; p < 4; p++)
    data->inputs[p]
        = g_ptr_array_new_with_free_func ((GDestroyNotify)g_bytes_unref);
  data->expected = g_ptr_array_new_with_free_func (g_free);
  data->n_expected = c->m * k;
  accel_type_init_tensor (
      &data->types[0], ACCEL_DTYPE_I32, ACCEL_MEMORY_DEVICE, 1, &m1);
  accel_type_init_tensor (
      &data->types[1], ACCEL_DTYPE_I32, ACCEL_MEMORY_DEVICE, 1, &c->nnz);
  accel_type_init_tensor (
      &data->types[2], c->dtype, ACCEL_MEMORY_DEVICE, 1, &c->nnz);
  accel_type_init_tensor (
      &data->types[3], c->dtype, ACCEL_MEMORY_DEVICE, c->k ? 2 : 1, dims_x);

  for (guint f = 0; f < n_frames; f++)
    {
      g_autoptr (TestCsr) csr = test_csr_random (c->m, c->n, c->nnz);
      g_autofree double *x = test_random_values (c->n * k);
      g_autofree double *rv = NULL, *rx = NULL;
      double *y = g_new (double, c->m *k);
      GBytes *values, *xb;
      gsize n;

      values = test_from_double (c->dtype, csr->values, c->nnz);
      xb = test_from_double (c->dtype, x, c->n * k);
      /* the reference takes the values the stage takes */
      rv = test_to_double (c->dtype, values, &n);
      rx = test_to_double (c->dtype, xb, &n);
      memcpy (csr->values, rv, c->nnz * sizeof (double));
      test_csr_dense_product (csr, rx, k, c->alpha, y);

      g_ptr_array_add (data->inputs[0],
          g_bytes_new (csr->row_offsets, m1 * sizeof (gint32)));
      g_ptr_array_add (data->inputs[1],
          g_bytes_new (csr->col_indices, c->nnz * sizeof (gint32)));
      g_ptr_array_add (data->inputs[2], values);
      g_ptr_array_add (data->inputs[3], xb);
      g_ptr_array_add (data->expected, y);
    }
  return data;
}

void
sparse_data_free (SparseData *data)
{
  for (guint p = 0; p < 4; p++)
    g_ptr_array_unref (data->inputs[p]);
  g_ptr_array_unref (data->expected);
  g_free (data);
}

AccelGraph *
sparse_graph_new (const SparseCase *c, const SparseData *data, gboolean host)
{
  g_autoptr (GError) error = NULL;
  AccelGraph *g = accel_graph_new (c->kind);
  AccelStage *stage;

  if (host)
    accel_graph_set_device (g, accel_device_get_host ());
  stage = accel_test_stage (g, c->kind, "stage");
  accel_test_stage (g, "test.tensor-sink", "sink");
  g_object_set (stage, "alpha", c->alpha, NULL);
  test_tensor_link_sources (g, stage, 4, ports, data->types, data->inputs);
  g_assert_true (accel_graph_link (g, "stage", "sink", &error));
  g_assert_no_error (error);
  return g;
}

GPtrArray *
sparse_case_run (const SparseCase *c, const SparseData *data, gboolean host)
{
  g_autoptr (AccelGraph) g = sparse_graph_new (c, data, host);

  return test_tensor_run (g, "sink");
}

double
sparse_case_check (const SparseCase *c, const SparseData *data, GPtrArray *out)
{
  return test_check_frames (test_to_double, c->dtype, out, data->expected,
      data->n_expected, sparse_tolerance (c->dtype));
}

double
sparse_compare_runs (const SparseCase *c, GPtrArray *a, GPtrArray *b)
{
  return test_compare_frames (test_to_double, c->dtype, a, b);
}
