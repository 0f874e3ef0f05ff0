/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* solver.* on a GPU (cuSOLVER): factorizations of fresh random matrices
 * checked by reconstruction with the host tests' bounds, their unique parts
 * (x, singular values, eigenvalues) against the host backend (LAPACKE) on
 * the same inputs; sizes 1, 17, 256 and 1000; singular and indefinite
 * matrices through devInfo; the transposes against their host references.
 * Skips without a GPU. */
#include <cuda_runtime_api.h>
#include <math.h>

#include "accel-test.h"
#include "accelsolvertranspose.h"
#include "numeric-reference.h"
#include "solver-check.h"
#include "tensor-io.h"

static const gint64 sizes[] = { 1, 17, 256, 1000 };

static void
test_case (gconstpointer data)
{
  const SolverCase *c = data;
  g_autoptr (SolverData) d = solver_data_new (c, 1);
  g_autoptr (GPtrArray) gpu = solver_case_run (c, d, FALSE);
  g_autoptr (GPtrArray) host = solver_case_run (c, d, TRUE);
  double err = solver_case_check (c, d, gpu);
  double diff = solver_compare_runs (c, gpu, host);

  g_test_message ("%s: largest reconstruction error %.3g, GPU against host "
                  "%.3g",
      c->path, err, diff);
  g_assert_cmpfloat (diff, <=, solver_tolerance (c->dtype));
}

static void
free_case (gpointer data)
{
  SolverCase *c = data;

  g_free ((gchar *)c->path);
  g_free (c);
}

static void
add (const char *kind, AccelDType dtype, gint64 batch, gint64 m, gint64 n,
    gint64 nrhs)
{
  SolverCase *c = g_new0 (SolverCase, 1);

  c->path = g_strdup_printf ("/solver-gpu/%s/%s/%" G_GINT64_FORMAT
                             "x%" G_GINT64_FORMAT "/batch-%" G_GINT64_FORMAT
                             "/nrhs-%" G_GINT64_FORMAT,
      kind + 7, accel_dtype_to_string (dtype), m, n, batch, nrhs);
  c->kind = kind;
  c->dtype = dtype;
  c->batch = batch;
  c->m = m;
  c->n = n;
  c->nrhs = nrhs;
  g_test_add_data_func_full (c->path, c, test_case, free_case);
}

static void
test_singular (void)
{
  const SolverCase lu = { "", "solver.lu", ACCEL_DTYPE_F64, 3, 12, 12, 0 };
  const SolverCase lu32 = { "", "solver.lu", ACCEL_DTYPE_F32, 0, 7, 7, 2 };

  solver_expect_bad_input (&lu, 1, 4, FALSE, "a is singular: pivot ");
  solver_expect_bad_input (&lu32, 0, 6, FALSE, "a is singular: pivot ");
}

static void
test_not_positive_definite (void)
{
  const SolverCase chol
      = { "", "solver.cholesky", ACCEL_DTYPE_F32, 4, 16, 16, 0 };
  const SolverCase chol64
      = { "", "solver.cholesky", ACCEL_DTYPE_F64, 0, 5, 5, 3 };

  solver_expect_bad_input (&chol, 2, 8, FALSE,
      "a is not positive definite: its leading minor of order 9 is not "
      "positive");
  solver_expect_bad_input (&chol64, 0, 0, FALSE,
      "a is not positive definite: its leading minor of order 1 is not "
      "positive");
}

/* Q of 2 100 000 rows is more tiles tall (32 rows each) than a grid may be
 * (65535): the transposes stride. Checked by reconstruction alone: R's
 * entries off the diagonal are sums of two million products that nearly
 * cancel, which GPU and host round apart by more than the other cases'
 * relative bound */
static void
test_tall_qr (void)
{
  const SolverCase c = { "", "solver.qr", ACCEL_DTYPE_F64, 0, 2100000, 3 };
  g_autoptr (SolverData) d = solver_data_new (&c, 1);
  g_autoptr (GPtrArray) gpu = solver_case_run (&c, d, FALSE);

  g_test_message (
      "largest reconstruction error %.3g", solver_case_check (&c, d, gpu));
}

/* NaN and infinities fail the frame as on the host: cuSOLVER would factor
 * them into NaN */
static void
test_nonfinite (void)
{
  const SolverCase lu = { "", "solver.lu", ACCEL_DTYPE_F64, 3, 12, 12, 2 };
  const SolverCase chol
      = { "", "solver.cholesky", ACCEL_DTYPE_F32, 0, 9, 9, 0 };
  const SolverCase qr = { "", "solver.qr", ACCEL_DTYPE_F32, 2, 11, 5 };

  solver_expect_nonfinite (&lu, 0, 1, 4, 7, NAN, FALSE);
  solver_expect_nonfinite (&lu, 1, 2, 11, 1, INFINITY, FALSE);
  solver_expect_nonfinite (&chol, 0, 0, 8, 0, -INFINITY, FALSE);
  solver_expect_nonfinite (&qr, 0, 1, 10, 4, NAN, FALSE);
}

/* a pivot whose reciprocal overflows fails the frame as on the host,
 * found by the search of x on the device */
static void
test_tiny_pivot (void)
{
  const SolverCase lu = { "", "solver.lu", ACCEL_DTYPE_F64, 3, 12, 12, 2 };
  const SolverCase lu32 = { "", "solver.lu", ACCEL_DTYPE_F32, 0, 7, 7, 0 };

  solver_expect_tiny_pivot (&lu, 1, FALSE);
  solver_expect_tiny_pivot (&lu32, 0, FALSE);
}

/* the tiles' edges: sizes around and across 32, and the upper mask */
static void
test_transpose (void)
{
  static const gint64 shapes[][2] = {
    { 1, 1 },
    { 1, 33 },
    { 31, 1 },
    { 32, 32 },
    { 33, 65 },
    { 100, 7 },
    /* more tiles down than a grid may be tall (65535) */
    { 2100000, 3 },
  };
  cudaStream_t stream;

  g_assert_cmpint (
      cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    for (int upper = 0; upper < 2; upper++)
      {
        gint64 rows = shapes[i][0], cols = shapes[i][1];
        gsize in_ld = rows + 3, out_ld = cols + 5;
        gsize in_n = in_ld * cols, out_n = out_ld * rows;
        g_autofree double *values = test_random_values (in_n);
        g_autofree float *in = g_new (float, in_n);
        g_autofree float *want = g_new0 (float, out_n);
        g_autofree float *have = g_new0 (float, out_n);
        float *d_in, *d_out;

        for (gsize j = 0; j < in_n; j++)
          in[j] = (float)values[j];
        accel_solver_transpose_f32_host (
            in, in_ld, want, rows, cols, out_ld, upper);
        g_assert_cmpint (cudaMalloc ((void **)&d_in, in_n * 4), ==, 0);
        g_assert_cmpint (cudaMalloc ((void **)&d_out, out_n * 4), ==, 0);
        /* on the transpose's stream: a non-blocking stream does not wait
         * for the legacy stream's cudaMemcpy () or cudaMemset () */
        g_assert_cmpint (cudaMemcpyAsync (d_in, in, in_n * 4,
                             cudaMemcpyHostToDevice, stream),
            ==, 0);
        g_assert_cmpint (cudaMemsetAsync (d_out, 0, out_n * 4, stream), ==, 0);
        g_assert_cmpint (accel_solver_transpose_f32 (stream, d_in, in_ld, d_out,
                             rows, cols, out_ld, upper),
            ==, 0);
        g_assert_cmpint (cudaStreamSynchronize (stream), ==, 0);
        g_assert_cmpint (
            cudaMemcpy (have, d_out, out_n * 4, cudaMemcpyDeviceToHost), ==, 0);
        g_assert_cmpmem (have, out_n * 4, want, out_n * 4);
        cudaFree (d_in);
        cudaFree (d_out);
      }
  cudaStreamDestroy (stream);
}

int
main (int argc, char **argv)
{
  static const AccelDType dtypes[] = { ACCEL_DTYPE_F32, ACCEL_DTYPE_F64 };

  accel_test_require_gpu ();
  g_test_init (&argc, &argv, NULL);
  test_tensor_stages_register ();

  for (guint t = 0; t < G_N_ELEMENTS (dtypes); t++)
    {
      AccelDType dt = dtypes[t];

      for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
        {
          gint64 s = sizes[i];
          add ("solver.qr", dt, 0, s, s, 0);
          add ("solver.lu", dt, 0, s, s, 0);
          add ("solver.cholesky", dt, 0, s, s, 0);
          add ("solver.svd", dt, 0, s, s, 0);
          add ("solver.eigh", dt, 0, s, s, 0);
        }
      /* tall and wide, several right-hand sides, batches */
      add ("solver.qr", dt, 0, 40, 17, 0);
      add ("solver.qr", dt, 3, 17, 40, 0);
      add ("solver.svd", dt, 0, 40, 17, 0);
      add ("solver.svd", dt, 3, 17, 40, 0);
      add ("solver.lu", dt, 4, 17, 17, 5);
      add ("solver.cholesky", dt, 4, 17, 17, 5);
      add ("solver.eigh", dt, 3, 17, 17, 0);
    }
  /* a QR whose Q is more tiles tall than a grid may be */
  g_test_add_func ("/solver-gpu/qr/taller-than-a-grid", test_tall_qr);
  g_test_add_func ("/solver-gpu/lu/singular", test_singular);
  g_test_add_func (
      "/solver-gpu/cholesky/not-positive-definite", test_not_positive_definite);
  g_test_add_func ("/solver-gpu/transpose", test_transpose);
  g_test_add_func ("/solver-gpu/nonfinite", test_nonfinite);
  g_test_add_func ("/solver-gpu/lu/tiny-pivot", test_tiny_pivot);
  g_test_add_data_func (
      "/solver-gpu/overflow", GINT_TO_POINTER (FALSE), solver_check_overflow);
  return g_test_run ();
}
