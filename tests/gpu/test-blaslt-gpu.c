/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* blaslt.matmul and blaslt.matmul-bias on a GPU (cuBLASLt): against the
 * host backend (OpenBLAS and a plain C epilogue) on the same fresh random
 * inputs, and against the double precision reference where it is cheap,
 * with the host tests' bounds; sizes 1, 17, 256 and 1000, every dtype and
 * epilogue. Skips without a GPU. */
#include "accel-test.h"
#include "blas-check.h"
#include "tensor-io.h"

static const gint64 sizes[] = { 1, 17, 256, 1000 };
static const AccelDType dtypes[] = {
  ACCEL_DTYPE_F32,
  ACCEL_DTYPE_F16,
  ACCEL_DTYPE_BF16,
};

static void
test_case (gconstpointer data)
{
  const BlasCase *c = data;
  gboolean reference = c->m * c->n * c->k <= 256 * 256 * 256;
  g_autoptr (BlasData) d = blas_data_new (c, 2, reference);
  g_autoptr (GPtrArray) gpu = blas_case_run (c, d, FALSE);
  g_autoptr (GPtrArray) host = blas_case_run (c, d, TRUE);
  double err = reference ? blas_case_check (c, d, gpu) : -1.0;
  double diff = blas_compare_runs (c, d, gpu, host);

  g_test_message (
      "%s: relative error %.3g, GPU against host %.3g", c->path, err, diff);
  g_assert_cmpfloat (diff, <=, blas_tolerance (c->dtype));
}

static void
free_case (gpointer data)
{
  BlasCase *c = data;

  g_free ((gchar *)c->path);
  g_free (c);
}

static void
add (const char *kind, AccelDType dtype, gint64 m, gint64 n, gint64 k,
    gboolean transa, gboolean transb, const char *epilogue)
{
  BlasCase *c = g_new0 (BlasCase, 1);

  c->path = g_strdup_printf ("/blaslt-gpu/%s/%s/%s/%" G_GINT64_FORMAT
                             "x%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "%s%s",
      kind + 7, epilogue, accel_dtype_to_string (dtype), m, n, k,
      transa ? "-ta" : "", transb ? "-tb" : "");
  c->kind = kind;
  c->dtype = dtype;
  c->m = m;
  c->n = n;
  c->k = k;
  c->transa = transa;
  c->transb = transb;
  c->alpha = 1.0;
  c->epilogue = epilogue;
  g_test_add_data_func_full (c->path, c, test_case, free_case);
}

int
main (int argc, char **argv)
{
  static const char *const plain[] = { "none", "relu", "gelu" };
  static const char *const biased[] = { "bias", "bias-relu", "bias-gelu" };

  accel_test_require_gpu ();
  g_test_init (&argc, &argv, NULL);
  test_tensor_stages_register ();

  for (guint t = 0; t < G_N_ELEMENTS (dtypes); t++)
    for (guint e = 0; e < 3; e++)
      {
        for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
          {
            gint64 s = sizes[i];
            add ("blaslt.matmul", dtypes[t], s, s, s, FALSE, FALSE, plain[e]);
            add ("blaslt.matmul-bias", dtypes[t], s, s, s, FALSE, FALSE,
                biased[e]);
          }
        add ("blaslt.matmul", dtypes[t], 17, 33, 65, TRUE, TRUE, plain[e]);
        add ("blaslt.matmul-bias", dtypes[t], 33, 17, 40, TRUE, FALSE,
            biased[e]);
        add ("blaslt.matmul-bias", dtypes[t], 64, 48, 32, FALSE, TRUE,
            biased[e]);
      }
  return g_test_run ();
}
