/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* blaslt.matmul and blaslt.matmul-bias on the host backend (OpenBLAS and a
 * plain C epilogue): against a plain C double precision reference on fresh
 * random inputs, and what negotiation refuses */
#include <string.h>

#include "accel-test.h"
#include "blas-check.h"
#include "tensor-io.h"

#define F32 ACCEL_DTYPE_F32
#define F16 ACCEL_DTYPE_F16
#define BF16 ACCEL_DTYPE_BF16

static const BlasCase cases[] = {
  { "/blaslt/matmul/f32", "blaslt.matmul", F32, 0, 64, 48, 32, FALSE, FALSE, 0,
      1.0, 0.0, NULL },
  { "/blaslt/matmul/f32-relu", "blaslt.matmul", F32, 0, 17, 33, 9, TRUE, FALSE,
      0, 1.0, 0.0, "relu" },
  { "/blaslt/matmul/f32-gelu", "blaslt.matmul", F32, 0, 20, 10, 40, FALSE, TRUE,
      0, 2.0, 0.0, "gelu" },
  { "/blaslt/matmul/f16-relu", "blaslt.matmul", F16, 0, 32, 16, 64, FALSE,
      FALSE, 0, 1.0, 0.0, "relu" },
  { "/blaslt/matmul/bf16-gelu", "blaslt.matmul", BF16, 0, 16, 24, 48, TRUE,
      TRUE, 0, 1.0, 0.0, "gelu" },
  { "/blaslt/matmul/f32-one", "blaslt.matmul", F32, 0, 1, 1, 1, FALSE, FALSE, 0,
      1.0, 0.0, "none" },
  { "/blaslt/matmul-bias/f32", "blaslt.matmul-bias", F32, 0, 50, 30, 20, FALSE,
      FALSE, 0, 1.0, 0.0, NULL },
  { "/blaslt/matmul-bias/f32-bias-relu", "blaslt.matmul-bias", F32, 0, 7, 65,
      12, FALSE, TRUE, 0, -1.0, 0.0, "bias-relu" },
  { "/blaslt/matmul-bias/f32-gelu", "blaslt.matmul-bias", F32, 0, 33, 17, 8,
      TRUE, FALSE, 0, 1.0, 0.0, "gelu" },
  { "/blaslt/matmul-bias/f16-bias-gelu", "blaslt.matmul-bias", F16, 0, 24, 40,
      56, FALSE, FALSE, 0, 1.0, 0.0, "bias-gelu" },
  { "/blaslt/matmul-bias/bf16-bias", "blaslt.matmul-bias", BF16, 0, 9, 19, 27,
      TRUE, TRUE, 0, 0.5, 0.0, "bias" },
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

static void
expect_prepare_error (const BlasCase *c, gint port, const AccelType *type,
    gint code, const char *message)
{
  g_autoptr (BlasData) d = blas_data_new (c, 0, FALSE);
  g_autoptr (AccelGraph) g = NULL;

  if (port >= 0)
    d->types[port] = *type;
  g = blas_graph_new (c, d, TRUE);
  test_expect_prepare_error (g, code, message);
}

static void
test_link_errors (void)
{
  const BlasCase mm = { "", "blaslt.matmul", F32, 0, 64, 16, 32, FALSE, FALSE,
    0, 1.0, 0.0, NULL };
  const BlasCase mm_bias_epilogue = { "", "blaslt.matmul", F32, 0, 4, 4, 4,
    FALSE, FALSE, 0, 1.0, 0.0, "bias-gelu" };
  const BlasCase mmb = { "", "blaslt.matmul-bias", F32, 0, 8, 6, 4, FALSE,
    FALSE, 0, 1.0, 0.0, "relu" };
  const BlasCase mm64 = { "", "blaslt.matmul", ACCEL_DTYPE_F64, 0, 4, 4, 4,
    FALSE, FALSE, 0, 1.0, 0.0, NULL };
  const gint64 b_dims[] = { 48, 16 }, bias_dims[] = { 7 };
  AccelType t;

  accel_type_init_tensor (&t, F32, ACCEL_MEMORY_DEVICE, 2, b_dims);
  expect_prepare_error (&mm, 1, &t, ACCEL_ERROR_TYPE_MISMATCH,
      "stage 'stage' (blaslt.matmul): a is 64x32 but b is 48x16; inner "
      "dimensions 32 and 48 differ");
  expect_prepare_error (&mm_bias_epilogue, -1, NULL,
      ACCEL_ERROR_INVALID_PIPELINE,
      "stage 'stage' (blaslt.matmul): epilogue bias-gelu needs a bias "
      "input: use blaslt.matmul-bias");
  accel_type_init_tensor (&t, F32, ACCEL_MEMORY_DEVICE, 1, bias_dims);
  expect_prepare_error (&mmb, 2, &t, ACCEL_ERROR_TYPE_MISMATCH,
      "stage 'stage' (blaslt.matmul-bias): bias is tensor<f32>[7]@device "
      "but the product is 8x6; bias must be f32 [6], one value per column");
  expect_prepare_error (&mm64, -1, NULL, ACCEL_ERROR_TYPE_MISMATCH,
      "stage 'stage' (blaslt.matmul): a and b are f64; the stage takes f32, "
      "f16 or bf16 (blas.gemm multiplies f64)");
}

int
main (int argc, char **argv)
{
  accel_backend_set_default (ACCEL_BACKEND_HOST, NULL);
  g_test_init (&argc, &argv, NULL);
  test_tensor_stages_register ();

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    g_test_add_data_func (cases[i].path, &cases[i], test_case);
  g_test_add_func ("/blaslt/negotiate/link-errors", test_link_errors);
  return g_test_run ();
}
