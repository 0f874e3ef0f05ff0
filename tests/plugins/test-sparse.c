/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sparse.spmv and sparse.spmm on the host backend: against the product
 * through the dense matrix on fresh random CSR matrices, shape mismatches
 * at link time and malformed matrices at run time */
#include <string.h>

#include "accel-test.h"
#include "numeric-reference.h"
#include "sparse-check.h"
#include "tensor-io.h"

static void
test_case (gconstpointer data)
{
  const SparseCase *c = data;
  g_autoptr (SparseData) d = sparse_data_new (c, 3);
  g_autoptr (GPtrArray) out = sparse_case_run (c, d, TRUE);
  double err = sparse_case_check (c, d, out);

  g_test_message ("%s: relative error %.3g", c->path, err);
}

/* @c's graph with input @port's type replaced by @type fails to prepare
 * with a type mismatch that names @what */
static void
expect_mismatch (
    const SparseCase *c, guint port, const AccelType *type, const char *what)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SparseData) d = sparse_data_new (c, 0);
  g_autoptr (AccelGraph) g = NULL;

  d->types[port] = *type;
  g = sparse_graph_new (c, d, TRUE);
  g_assert_false (accel_graph_prepare (g, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH);
  g_test_message ("%s", error->message);
  /* the stage by name, or its port */
  g_assert_true (
      strstr (error->message, "'stage'") || strstr (error->message, "'stage."));
  g_assert_nonnull (strstr (error->message, what));
}

static void
test_link_errors (void)
{
  const SparseCase *spmv = &sparse_cases[0], *spmm = &sparse_cases[4];
  const gint64 nnz_less = spmv->nnz - 1, m1 = spmv->m + 1, n = spmm->n;
  const gint64 x_f64[] = { spmv->n };
  AccelType t;

  /* x of another dtype than the values */
  accel_type_init_tensor (&t, ACCEL_DTYPE_F64, ACCEL_MEMORY_DEVICE, 1, x_f64);
  expect_mismatch (spmv, 3, &t, "x tensor<f64>[40]@device");
  /* one value short */
  accel_type_init_tensor (
      &t, ACCEL_DTYPE_F32, ACCEL_MEMORY_DEVICE, 1, &nnz_less);
  expect_mismatch (spmv, 2, &t, "(300 and 299)");
  /* values that are no floating point numbers */
  accel_type_init_tensor (&t, ACCEL_DTYPE_I32, ACCEL_MEMORY_DEVICE, 1, &m1);
  expect_mismatch (spmv, 2, &t, "values must be f32 or f64");
  /* row offsets of the wrong dtype: the port's template refuses them */
  accel_type_init_tensor (&t, ACCEL_DTYPE_F32, ACCEL_MEMORY_DEVICE, 1, &m1);
  expect_mismatch (spmv, 0, &t, "dtype f32 is not i32");
  /* a vector where SpMM wants a matrix */
  accel_type_init_tensor (&t, ACCEL_DTYPE_F32, ACCEL_MEMORY_DEVICE, 1, &n);
  expect_mismatch (spmm, 3, &t, "rank 1 is not 2");
}

static void
test_output_shapes (void)
{
  g_autoptr (GError) error = NULL;

  for (guint i = 0; i < sparse_n_cases; i++)
    {
      const SparseCase *c = &sparse_cases[i];
      g_autoptr (SparseData) d = sparse_data_new (c, 0);
      g_autoptr (AccelGraph) g = sparse_graph_new (c, d, TRUE);
      g_autofree gchar *want = NULL, *have = NULL;

      g_assert_true (accel_graph_prepare (g, &error));
      g_assert_no_error (error);
      if (c->k)
        want = g_strdup_printf ("tensor<%s>[%" G_GINT64_FORMAT
                                "x%" G_GINT64_FORMAT "]@device",
            accel_dtype_to_string (c->dtype), c->m, c->k);
      else
        want = g_strdup_printf ("tensor<%s>[%" G_GINT64_FORMAT "]@device",
            accel_dtype_to_string (c->dtype), c->m);
      have = accel_type_to_string (
          accel_stage_get_output_type (accel_graph_get_stage (g, "stage"), 0));
      g_assert_cmpstr (have, ==, want);
    }
}

/* frame 1's matrix has a column index out of range */
static SparseData *
broken_data (const SparseCase *c)
{
  SparseData *d = sparse_data_new (c, 3);
  gsize size;
  gint32 *indices = g_bytes_unref_to_data (
      g_ptr_array_steal_index (d->inputs[1], 1), &size);

  indices[c->nnz / 2] = (gint32)c->n;
  g_ptr_array_insert (d->inputs[1], 1, g_bytes_new_take (indices, size));
  return d;
}

static void
test_malformed_escalates (void)
{
  const SparseCase *c = &sparse_cases[0];
  g_autoptr (SparseData) d = broken_data (c);
  g_autoptr (AccelGraph) g = sparse_graph_new (c, d, TRUE);
  g_autoptr (GError) error = NULL;

  g_object_set (accel_graph_get_stage (g, "stage"), "on-fault",
      ACCEL_SUPERVISION_ESCALATE, NULL);
  g_assert_false (accel_graph_run (g, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "frame 1: malformed CSR matrix"));
  g_assert_nonnull (strstr (error->message, "is outside [0, 40)"));
}

/* by default a stage skips a frame of bad input and goes on */
static void
test_malformed_skipped (void)
{
  const SparseCase *c = &sparse_cases[0];
  g_autoptr (SparseData) d = broken_data (c);
  g_autoptr (AccelGraph) g = sparse_graph_new (c, d, TRUE);
  g_autoptr (GPtrArray) out = test_tensor_run (g, "sink");
  AccelStage *stage = accel_graph_get_stage (g, "stage");
  g_autoptr (GArray) seqs = test_tensor_sink_get_sequences (
      TEST_TENSOR_SINK (accel_graph_get_stage (g, "sink")));

  g_assert_cmpuint (accel_stage_get_n_skipped (stage), ==, 1);
  g_assert_cmpuint (out->len, ==, 2);
  g_assert_cmpuint (g_array_index (seqs, guint64, 0), ==, 0);
  g_assert_cmpuint (g_array_index (seqs, guint64, 1), ==, 2);
}

int
main (int argc, char **argv)
{
  accel_backend_set_default (ACCEL_BACKEND_HOST, NULL);
  g_test_init (&argc, &argv, NULL);
  test_tensor_stages_register ();

  for (guint i = 0; i < sparse_n_cases; i++)
    g_test_add_data_func (sparse_cases[i].path, &sparse_cases[i], test_case);
  g_test_add_func ("/sparse/negotiate/output-shapes", test_output_shapes);
  g_test_add_func ("/sparse/negotiate/link-errors", test_link_errors);
  g_test_add_func ("/sparse/malformed/escalates", test_malformed_escalates);
  g_test_add_func ("/sparse/malformed/skipped", test_malformed_skipped);
  return g_test_run ();
}
