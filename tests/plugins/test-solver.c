/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* solver.* on the host backend (LAPACKE): factorizations of fresh random
 * matrices checked by reconstruction, singular and indefinite matrices at
 * run time, shape mismatches at link time */
#include <math.h>
#include <string.h>

#include "accel-test.h"
#include "numeric-reference.h"
#include "solver-check.h"
#include "tensor-io.h"

#define F32 ACCEL_DTYPE_F32
#define F64 ACCEL_DTYPE_F64

static const SolverCase cases[] = {
  { "/solver/qr/f32-square", "solver.qr", F32, 0, 40, 40 },
  { "/solver/qr/f32-tall", "solver.qr", F32, 0, 60, 17 },
  { "/solver/qr/f64-wide", "solver.qr", F64, 0, 12, 33 },
  { "/solver/qr/f64-batch", "solver.qr", F64, 4, 20, 9 },
  { "/solver/qr/f32-one", "solver.qr", F32, 0, 1, 1 },
  { "/solver/lu/f32-vector", "solver.lu", F32, 0, 50, 50, 0 },
  { "/solver/lu/f64-matrix", "solver.lu", F64, 0, 33, 33, 5 },
  { "/solver/lu/f32-batch", "solver.lu", F32, 3, 17, 17, 2 },
  { "/solver/lu/f64-batch-vector", "solver.lu", F64, 5, 8, 8, 0 },
  { "/solver/lu/f32-one", "solver.lu", F32, 0, 1, 1, 0 },
  { "/solver/cholesky/f32-vector", "solver.cholesky", F32, 0, 64, 64, 0 },
  { "/solver/cholesky/f64-matrix", "solver.cholesky", F64, 0, 29, 29, 7 },
  { "/solver/cholesky/f32-batch", "solver.cholesky", F32, 4, 16, 16, 3 },
  { "/solver/svd/f32-tall", "solver.svd", F32, 0, 50, 20 },
  { "/solver/svd/f32-wide", "solver.svd", F32, 0, 15, 42 },
  { "/solver/svd/f64-square", "solver.svd", F64, 0, 31, 31 },
  { "/solver/svd/f64-batch", "solver.svd", F64, 3, 10, 6 },
  { "/solver/svd/f32-one", "solver.svd", F32, 0, 1, 1 },
  { "/solver/eigh/f32", "solver.eigh", F32, 0, 48, 48 },
  { "/solver/eigh/f64", "solver.eigh", F64, 0, 37, 37 },
  { "/solver/eigh/f32-batch", "solver.eigh", F32, 3, 12, 12 },
};

static void
test_case (gconstpointer data)
{
  const SolverCase *c = data;
  g_autoptr (SolverData) d = solver_data_new (c, 2);
  g_autoptr (GPtrArray) out = solver_case_run (c, d, TRUE);
  double err = solver_case_check (c, d, out);

  g_test_message ("%s: largest reconstruction error %.3g", c->path, err);
}

static void
test_singular (void)
{
  const SolverCase lu = { "", "solver.lu", F64, 3, 12, 12, 0 };
  const SolverCase lu32 = { "", "solver.lu", F32, 0, 7, 7, 2 };

  solver_expect_bad_input (&lu, 1, 4, TRUE, "a is singular: pivot ");
  solver_expect_bad_input (
      &lu32, 0, 6, TRUE, "a is singular: pivot 7 of 7 of its LU");
}

static void
test_not_positive_definite (void)
{
  const SolverCase chol = { "", "solver.cholesky", F32, 4, 16, 16, 0 };
  const SolverCase chol64 = { "", "solver.cholesky", F64, 0, 5, 5, 3 };

  solver_expect_bad_input (&chol, 2, 8, TRUE,
      "a is not positive definite: its leading minor of order 9 is not "
      "positive");
  solver_expect_bad_input (&chol64, 0, 0, TRUE,
      "a is not positive definite: its leading minor of order 1 is not "
      "positive");
}

/* NaN and infinities fail the frame as bad input, in a and in b, where
 * LAPACKE would call them an illegal parameter */
static void
test_nonfinite (void)
{
  const SolverCase lu = { "", "solver.lu", F64, 3, 12, 12, 2 };
  const SolverCase chol = { "", "solver.cholesky", F32, 0, 9, 9, 0 };
  const SolverCase qr = { "", "solver.qr", F32, 2, 11, 5 };
  const SolverCase svd = { "", "solver.svd", F64, 0, 6, 8 };
  const SolverCase eigh = { "", "solver.eigh", F32, 2, 7, 7 };

  solver_expect_nonfinite (&lu, 0, 1, 4, 7, NAN, TRUE);
  solver_expect_nonfinite (&lu, 1, 2, 11, 1, INFINITY, TRUE);
  solver_expect_nonfinite (&chol, 0, 0, 8, 0, -INFINITY, TRUE);
  solver_expect_nonfinite (&chol, 1, 0, 3, 0, NAN, TRUE);
  solver_expect_nonfinite (&qr, 0, 1, 10, 4, NAN, TRUE);
  solver_expect_nonfinite (&svd, 0, 0, 0, 0, INFINITY, TRUE);
  solver_expect_nonfinite (&eigh, 0, 1, 2, 5, NAN, TRUE);
}

/* a pivot whose reciprocal overflows, in f32 and f64: OpenBLAS's getrf
 * gave NaN in x with exit 0, or LAPACKE's "parameter 5 had an illegal
 * value" */
static void
test_tiny_pivot (void)
{
  const SolverCase lu = { "", "solver.lu", F64, 3, 12, 12, 2 };
  const SolverCase lu32 = { "", "solver.lu", F32, 0, 7, 7, 0 };

  solver_expect_tiny_pivot (&lu, 1, TRUE);
  solver_expect_tiny_pivot (&lu32, 0, TRUE);
}

/* by default a stage skips a frame of bad input and goes on */
static void
test_singular_skipped (void)
{
  const SolverCase c = { "", "solver.lu", F32, 2, 6, 6, 0 };
  g_autoptr (SolverData) d = solver_data_new (&c, 3);
  g_autoptr (AccelGraph) g = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) seqs = NULL;

  solver_data_spoil (&c, d, 1, 2);
  g = solver_graph_new (&c, d, TRUE);
  g_assert_true (accel_graph_run (g, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (
      accel_stage_get_n_skipped (accel_graph_get_stage (g, "stage")), ==, 1);
  seqs = test_tensor_sink_get_sequences (
      TEST_TENSOR_SINK (accel_graph_get_stage (g, "x")));
  g_assert_cmpuint (seqs->len, ==, 2);
  g_assert_cmpuint (g_array_index (seqs, guint64, 0), ==, 1);
  g_assert_cmpuint (g_array_index (seqs, guint64, 1), ==, 2);
}

static void
expect_mismatch (
    const SolverCase *c, guint port, const AccelType *type, const char *message)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SolverData) d = solver_data_new (c, 0);
  g_autoptr (AccelGraph) g = NULL;

  d->types[port] = *type;
  g = solver_graph_new (c, d, TRUE);
  test_expect_prepare_error (g, ACCEL_ERROR_TYPE_MISMATCH, message);
}

static void
test_link_errors (void)
{
  const SolverCase lu = { "", "solver.lu", F32, 0, 16, 16, 0 };
  const SolverCase chol = { "", "solver.cholesky", F64, 4, 8, 8, 2 };
  const SolverCase qr = { "", "solver.qr", F32, 0, 8, 4 };
  const gint64 rect[] = { 16, 15 }, b15[] = { 15 }, b_batch[] = { 3, 8, 2 };
  const gint64 b8[] = { 8 };
  AccelType t;

  accel_type_init_tensor (&t, F32, ACCEL_MEMORY_DEVICE, 2, rect);
  expect_mismatch (&lu, 0, &t,
      "stage 'stage' (solver.lu): a is 16x15; each matrix must be square");
  accel_type_init_tensor (&t, F32, ACCEL_MEMORY_DEVICE, 1, b15);
  expect_mismatch (&lu, 1, &t,
      "stage 'stage' (solver.lu): a is 16x16 but b is 15; b must have 16 "
      "rows, one per row of a");
  accel_type_init_tensor (&t, F64, ACCEL_MEMORY_DEVICE, 3, b_batch);
  expect_mismatch (&chol, 1, &t,
      "stage 'stage' (solver.cholesky): a is 4x8x8 but b is 3x8x2; batches "
      "of 4 and 3 differ");
  /* the shapes b may have, in a's numbers ("[batch, ...] [8]" before) */
  accel_type_init_tensor (&t, F64, ACCEL_MEMORY_DEVICE, 1, b8);
  expect_mismatch (&chol, 1, &t,
      "stage 'stage' (solver.cholesky): a is 4x8x8 but b is 8; b must be "
      "[4, 8] or [4, 8, nrhs]");
  accel_type_init_tensor (&t, ACCEL_DTYPE_I32, ACCEL_MEMORY_DEVICE, 2, rect);
  expect_mismatch (&qr, 0, &t,
      "stage 'stage' (solver.qr): a is tensor i32; the stage takes f32 or "
      "f64");
}

static void
test_output_types (void)
{
  const struct
  {
    SolverCase c;
    const char *port;
    const char *want;
  } outs[] = {
    { { "", "solver.qr", F32, 0, 9, 4 }, "q", "tensor<f32>[9x4]@device" },
    { { "", "solver.qr", F32, 0, 9, 4 }, "r", "tensor<f32>[4x4]@device" },
    { { "", "solver.qr", F64, 2, 3, 7 }, "q", "tensor<f64>[2x3x3]@device" },
    { { "", "solver.qr", F64, 2, 3, 7 }, "r", "tensor<f64>[2x3x7]@device" },
    { { "", "solver.svd", F32, 0, 5, 8 }, "s", "tensor<f32>[5]@device" },
    { { "", "solver.svd", F32, 0, 5, 8 }, "u", "tensor<f32>[5x5]@device" },
    { { "", "solver.svd", F32, 0, 5, 8 }, "vt", "tensor<f32>[5x8]@device" },
    { { "", "solver.eigh", F64, 3, 6, 6 }, "w", "tensor<f64>[3x6]@device" },
    { { "", "solver.eigh", F64, 3, 6, 6 }, "v", "tensor<f64>[3x6x6]@device" },
    { { "", "solver.lu", F32, 2, 6, 6, 3 }, "x", "tensor<f32>[2x6x3]@device" },
  };
  g_autoptr (GError) error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (outs); i++)
    {
      g_autoptr (SolverData) d = solver_data_new (&outs[i].c, 0);
      g_autoptr (AccelGraph) g = solver_graph_new (&outs[i].c, d, TRUE);
      g_autofree gchar *have = NULL;
      AccelStage *sink;

      g_assert_true (accel_graph_prepare (g, &error));
      g_assert_no_error (error);
      sink = accel_graph_get_stage (g, outs[i].port);
      have = accel_type_to_string (accel_stage_get_input_type (sink, 0));
      g_assert_cmpstr (have, ==, outs[i].want);
    }
}

int
main (int argc, char **argv)
{
  accel_backend_set_default (ACCEL_BACKEND_HOST, NULL);
  g_test_init (&argc, &argv, NULL);
  test_tensor_stages_register ();

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    g_test_add_data_func (cases[i].path, &cases[i], test_case);
  g_test_add_func ("/solver/lu/singular", test_singular);
  g_test_add_func ("/solver/lu/singular-skipped", test_singular_skipped);
  g_test_add_func (
      "/solver/cholesky/not-positive-definite", test_not_positive_definite);
  g_test_add_func ("/solver/nonfinite", test_nonfinite);
  g_test_add_func ("/solver/lu/tiny-pivot", test_tiny_pivot);
  g_test_add_data_func (
      "/solver/overflow", GINT_TO_POINTER (TRUE), solver_check_overflow);
  g_test_add_func ("/solver/negotiate/link-errors", test_link_errors);
  g_test_add_func ("/solver/negotiate/output-types", test_output_types);
  return g_test_run ();
}
