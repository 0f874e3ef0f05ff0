/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* blas.* on the host backend (OpenBLAS): against a plain C double precision
 * reference on fresh random inputs, shape mismatches at link time, and the
 * f16/bf16 rounding the host path shares with blaslt */
#include <math.h>
#include <string.h>

#include "accel-test.h"
#include "accelhalf.h"
#include "blas-check.h"
#include "tensor-io.h"

#define F32 ACCEL_DTYPE_F32
#define F64 ACCEL_DTYPE_F64
#define F16 ACCEL_DTYPE_F16
#define BF16 ACCEL_DTYPE_BF16

static const BlasCase cases[] = {
  { "/blas/gemm/f32", "blas.gemm", F32, 0, 64, 48, 32, FALSE, FALSE, 0, 1.0 },
  { "/blas/gemm/f32-alpha", "blas.gemm", F32, 0, 17, 5, 23, FALSE, FALSE, 0,
      -2.5 },
  { "/blas/gemm/f32-transa", "blas.gemm", F32, 0, 33, 20, 41, TRUE, FALSE, 0,
      1.0 },
  { "/blas/gemm/f32-transb", "blas.gemm", F32, 0, 12, 31, 7, FALSE, TRUE, 0,
      1.0 },
  { "/blas/gemm/f32-transab", "blas.gemm", F32, 0, 19, 13, 29, TRUE, TRUE, 0,
      0.5 },
  { "/blas/gemm/f32-one", "blas.gemm", F32, 0, 1, 1, 1, FALSE, FALSE, 0, 1.0 },
  { "/blas/gemm/f32-vectors", "blas.gemm", F32, 0, 1, 1, 300, FALSE, FALSE, 0,
      1.0 },
  { "/blas/gemm/f64", "blas.gemm", F64, 0, 40, 50, 60, FALSE, TRUE, 0, 1.5 },
  { "/blas/gemm/f16", "blas.gemm", F16, 0, 64, 32, 128, FALSE, FALSE, 0, 1.0 },
  { "/blas/gemm/f16-transab", "blas.gemm", F16, 0, 17, 9, 33, TRUE, TRUE, 0,
      0.25 },
  { "/blas/gemm/bf16", "blas.gemm", BF16, 0, 48, 40, 96, FALSE, FALSE, 0, 1.0 },
  { "/blas/gemm/bf16-transa", "blas.gemm", BF16, 0, 5, 70, 21, TRUE, FALSE, 0,
      2.0 },
  { "/blas/gemm-c/f32", "blas.gemm-c", F32, 0, 30, 20, 10, FALSE, FALSE, 0, 1.0,
      0.5 },
  { "/blas/gemm-c/f64-transb", "blas.gemm-c", F64, 0, 9, 14, 11, FALSE, TRUE, 0,
      -1.0, 2.0 },
  { "/blas/gemm-c/f16", "blas.gemm-c", F16, 0, 16, 24, 40, TRUE, FALSE, 0, 1.0,
      1.0 },
  { "/blas/gemm-c/bf16-beta0", "blas.gemm-c", BF16, 0, 8, 8, 8, FALSE, FALSE, 0,
      1.0, 0.0 },
  { "/blas/gemm-batched/f32", "blas.gemm", F32, 5, 12, 10, 8, FALSE, FALSE, 0,
      1.0 },
  { "/blas/gemm-batched/f32-shared-a", "blas.gemm", F32, 4, 7, 9, 11, TRUE,
      FALSE, 1, 1.0 },
  { "/blas/gemm-batched/f64-shared-b", "blas.gemm", F64, 3, 16, 4, 6, FALSE,
      TRUE, 2, -0.5 },
  { "/blas/gemm-batched/f16", "blas.gemm", F16, 6, 8, 16, 24, FALSE, TRUE, 0,
      1.0 },
  { "/blas/gemm-batched/bf16-shared-b", "blas.gemm", BF16, 3, 10, 6, 12, TRUE,
      FALSE, 2, 1.0 },
  { "/blas/gemv/f32", "blas.gemv", F32, 0, 50, 1, 40, FALSE, FALSE, 0, 1.0 },
  { "/blas/gemv/f32-transa", "blas.gemv", F32, 0, 23, 1, 37, TRUE, FALSE, 0,
      -1.5 },
  { "/blas/gemv/f64", "blas.gemv", F64, 0, 17, 1, 64, FALSE, FALSE, 0, 2.0 },
  { "/blas/gemv/f16-transa", "blas.gemv", F16, 0, 33, 1, 65, TRUE, FALSE, 0,
      1.0 },
  { "/blas/gemv/bf16", "blas.gemv", BF16, 0, 20, 1, 30, FALSE, FALSE, 0, 1.0 },
  { "/blas/axpy/f32", "blas.axpy", F32, 0, 30, 40, 0, FALSE, FALSE, 0, 1.5 },
  { "/blas/axpy/f64", "blas.axpy", F64, 0, 1, 1000, 0, FALSE, FALSE, 0, -0.5 },
  { "/blas/axpy/f16", "blas.axpy", F16, 0, 17, 3, 0, FALSE, FALSE, 0, 0.5 },
  { "/blas/axpy/bf16", "blas.axpy", BF16, 0, 1, 1, 0, FALSE, FALSE, 0, 2.0 },
  { "/blas/dot/f32", "blas.dot", F32, 0, 1, 1000, 0 },
  { "/blas/dot/f64", "blas.dot", F64, 0, 17, 17, 0 },
  { "/blas/dot/f16", "blas.dot", F16, 0, 8, 32, 0 },
  { "/blas/dot/bf16", "blas.dot", BF16, 0, 1, 1, 0 },
};

static void
test_case (gconstpointer data)
{
  const BlasCase *c = data;
  g_autoptr (BlasData) d = blas_data_new (c, 2, TRUE);
  g_autoptr (GPtrArray) out = blas_case_run (c, d, TRUE);
  double err = blas_case_check (c, d, out);

  g_test_message ("%s: relative error %.3g", c->path, err);
}

/* @c's graph with input @port's type replaced by @type fails to prepare
 * with a type mismatch, whose message is @message or holds @part */
static void
expect_mismatch (const BlasCase *c, guint port, const AccelType *type,
    const char *message, const char *part)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (BlasData) d = blas_data_new (c, 0, FALSE);
  g_autoptr (AccelGraph) g = NULL;

  d->types[port] = *type;
  g = blas_graph_new (c, d, TRUE);
  g_assert_false (accel_graph_prepare (g, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH);
  g_test_message ("%s", error->message);
  if (message)
    test_assert_stage_message (error->message, message);
  if (part)
    g_assert_nonnull (strstr (error->message, part));
}

static void
test_link_errors (void)
{
  const BlasCase gemm
      = { "", "blas.gemm", F32, 0, 64, 16, 32, FALSE, FALSE, 0, 1.0 };
  const BlasCase gemm_t
      = { "", "blas.gemm", F32, 0, 64, 16, 32, TRUE, FALSE, 0, 1.0 };
  const BlasCase batched
      = { "", "blas.gemm", F32, 4, 8, 8, 8, FALSE, FALSE, 0, 1.0 };
  const BlasCase gemm_c
      = { "", "blas.gemm-c", F32, 0, 6, 5, 4, FALSE, FALSE, 0, 1.0, 1.0 };
  const BlasCase gemv
      = { "", "blas.gemv", F32, 0, 10, 1, 20, FALSE, FALSE, 0, 1.0 };
  const BlasCase dot = { "", "blas.dot", F32, 0, 3, 4, 0 };
  const gint64 b_dims[] = { 48, 16 }, b3[] = { 5, 8, 8 }, c_dims[] = { 5, 6 };
  const gint64 x_dims[] = { 21 }, y_dims[] = { 4, 3 };
  AccelType t;

  accel_type_init_tensor (&t, F32, ACCEL_MEMORY_DEVICE, 2, b_dims);
  expect_mismatch (&gemm, 1, &t,
      "stage 'stage' (blas.gemm): a is 64x32 but b is 48x16; inner "
      "dimensions 32 and 48 differ",
      NULL);
  expect_mismatch (&gemm_t, 1, &t,
      "stage 'stage' (blas.gemm): a is 32x64 (used transposed) but b is "
      "48x16; inner dimensions 32 and 48 differ",
      NULL);
  accel_type_init_tensor (&t, F64, ACCEL_MEMORY_DEVICE, 2, b_dims);
  expect_mismatch (&gemm, 1, &t, NULL, "a is f32 but b is f64");
  accel_type_init_tensor (&t, ACCEL_DTYPE_I32, ACCEL_MEMORY_DEVICE, 2, b_dims);
  expect_mismatch (
      &gemm, 1, &t, NULL, "b is i32; the stage takes f32, f64, f16 or bf16");
  accel_type_init_tensor (&t, F32, ACCEL_MEMORY_DEVICE, 1, x_dims);
  expect_mismatch (&gemm, 1, &t, NULL,
      "a has rank 2 and b rank 1; each must be a matrix [rows, cols] or a "
      "batch of them [batch, rows, cols]");
  accel_type_init_tensor (&t, F32, ACCEL_MEMORY_DEVICE, 3, b3);
  expect_mismatch (&batched, 1, &t, NULL,
      "a is 4x8x8 but b is 5x8x8; batches of 4 and 5 differ");
  accel_type_init_tensor (&t, F32, ACCEL_MEMORY_DEVICE, 2, c_dims);
  expect_mismatch (&gemm_c, 2, &t, NULL,
      "c is tensor<f32>[5x6]@device but the product is f32 [6x5]");
  accel_type_init_tensor (&t, F32, ACCEL_MEMORY_DEVICE, 1, x_dims);
  expect_mismatch (
      &gemv, 1, &t, NULL, "a is 10x20 but x has 21 elements; it needs 20");
  accel_type_init_tensor (&t, F32, ACCEL_MEMORY_DEVICE, 2, y_dims);
  expect_mismatch (
      &dot, 1, &t, NULL, "x is 3x4 but y is 4x3; they must have one shape");
}

static void
test_output_types (void)
{
  const struct
  {
    BlasCase c;
    const char *want;
  } cases_out[] = {
    { { "", "blas.gemm", F16, 0, 7, 5, 3, TRUE, TRUE, 0, 1.0 },
        "tensor<f16>[7x5]@device" },
    { { "", "blas.gemm", BF16, 4, 7, 5, 3, FALSE, FALSE, 1, 1.0 },
        "tensor<bf16>[4x7x5]@device" },
    { { "", "blas.gemv", F64, 0, 7, 1, 3, TRUE, FALSE, 0, 1.0 },
        "tensor<f64>[7]@device" },
    { { "", "blas.axpy", F32, 0, 2, 3, 0, FALSE, FALSE, 0, 1.0 },
        "tensor<f32>[2x3]@device" },
    { { "", "blas.dot", F16, 0, 2, 3, 0 }, "tensor<f16>[1]@device" },
  };
  g_autoptr (GError) error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (cases_out); i++)
    {
      g_autoptr (BlasData) d = blas_data_new (&cases_out[i].c, 0, FALSE);
      g_autoptr (AccelGraph) g = blas_graph_new (&cases_out[i].c, d, TRUE);
      g_autofree gchar *have = NULL;

      g_assert_true (accel_graph_prepare (g, &error));
      g_assert_no_error (error);
      have = accel_type_to_string (
          accel_stage_get_output_type (accel_graph_get_stage (g, "stage"), 0));
      g_assert_cmpstr (have, ==, cases_out[i].want);
    }
}

/* transa is read when the graph is prepared: flipped after, the frames
 * keep the negotiated product (read per frame, A^T of a 2 x 64 A wrote 64
 * values into the 2 of y) */
static void
test_gemv_transa_fixed (void)
{
  static const BlasCase c
      = { "", "blas.gemv", F32, 0, 2, 1, 64, FALSE, FALSE, 0, 1.0 };
  g_autoptr (BlasData) d = blas_data_new (&c, 3, TRUE);
  g_autoptr (GPtrArray) out = blas_case_run_transa_flipped (&c, d, TRUE);

  blas_case_check (&c, d, out);
}

/* the host path's f16 and bf16 rounding, bit by bit */
static void
test_half_rounding (void)
{
  /* exact values */
  g_assert_cmphex (accel_f32_to_f16 (1.0f), ==, 0x3c00);
  g_assert_cmphex (accel_f32_to_f16 (-2.0f), ==, 0xc000);
  g_assert_cmphex (accel_f32_to_f16 (65504.0f), ==, 0x7bff);
  g_assert_cmphex (accel_f32_to_f16 (ldexpf (1.0f, -14)), ==, 0x0400);
  g_assert_cmphex (accel_f32_to_f16 (ldexpf (1.0f, -24)), ==, 0x0001);
  g_assert_cmphex (accel_f32_to_f16 (0.0f), ==, 0x0000);
  g_assert_cmphex (accel_f32_to_f16 (-0.0f), ==, 0x8000);
  /* ties to even: 1 + 2^-11 lies halfway between 1 and 1 + 2^-10 */
  g_assert_cmphex (accel_f32_to_f16 (1.0f + ldexpf (1.0f, -11)), ==, 0x3c00);
  g_assert_cmphex (
      accel_f32_to_f16 (1.0f + 3 * ldexpf (1.0f, -11)), ==, 0x3c02);
  g_assert_cmphex (accel_f32_to_f16 (1.0f + ldexpf (1.2f, -11)), ==, 0x3c01);
  /* a carry into the exponent; overflow; subnormal rounding */
  g_assert_cmphex (accel_f32_to_f16 (2.0f - ldexpf (1.0f, -12)), ==, 0x4000);
  g_assert_cmphex (accel_f32_to_f16 (65520.0f), ==, 0x7c00);
  g_assert_cmphex (accel_f32_to_f16 (65519.0f), ==, 0x7bff);
  g_assert_cmphex (accel_f32_to_f16 (ldexpf (1.5f, -24)), ==, 0x0002);
  g_assert_cmphex (accel_f32_to_f16 (ldexpf (1.0f, -26)), ==, 0x0000);
  g_assert_cmphex (accel_f32_to_f16 (INFINITY), ==, 0x7c00);
  g_assert_cmphex (accel_f32_to_f16 (NAN) & 0x7e00, ==, 0x7e00);

  g_assert_cmpfloat (accel_f16_to_f32 (0x3c00), ==, 1.0f);
  g_assert_cmpfloat (accel_f16_to_f32 (0x7bff), ==, 65504.0f);
  g_assert_cmpfloat (accel_f16_to_f32 (0x0001), ==, ldexpf (1.0f, -24));
  g_assert_cmpfloat (accel_f16_to_f32 (0x83ff), ==, -ldexpf (1023.0f, -24));
  g_assert_true (isinf (accel_f16_to_f32 (0xfc00)));
  g_assert_true (isnan (accel_f16_to_f32 (0x7e00)));
  /* every finite f16 survives the round trip */
  for (guint h = 0; h < 0x10000; h++)
    if ((h & 0x7c00) != 0x7c00)
      g_assert_cmphex (accel_f32_to_f16 (accel_f16_to_f32 (h)), ==, h);

  g_assert_cmphex (accel_f32_to_bf16 (1.0f), ==, 0x3f80);
  g_assert_cmphex (accel_f32_to_bf16 (1.0f + ldexpf (1.0f, -8)), ==, 0x3f80);
  g_assert_cmphex (
      accel_f32_to_bf16 (1.0f + 3 * ldexpf (1.0f, -8)), ==, 0x3f82);
  g_assert_cmphex (accel_f32_to_bf16 (-3.0f), ==, 0xc040);
  g_assert_cmphex (accel_f32_to_bf16 (NAN) & 0x7fc0, ==, 0x7fc0);
  g_assert_cmpfloat (accel_bf16_to_f32 (0x3f80), ==, 1.0f);
  for (guint b = 0; b < 0x10000; b++)
    if ((b & 0x7f80) != 0x7f80)
      g_assert_cmphex (accel_f32_to_bf16 (accel_bf16_to_f32 (b)), ==, b);
}

int
main (int argc, char **argv)
{
  accel_backend_set_default (ACCEL_BACKEND_HOST, NULL);
  g_test_init (&argc, &argv, NULL);
  test_tensor_stages_register ();

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    g_test_add_data_func (cases[i].path, &cases[i], test_case);
  g_test_add_func ("/blas/negotiate/link-errors", test_link_errors);
  g_test_add_func ("/blas/negotiate/output-types", test_output_types);
  g_test_add_func ("/blas/half/rounding", test_half_rounding);
  g_test_add_func ("/blas/gemv/transa-fixed", test_gemv_transa_fixed);
  return g_test_run ();
}
