/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* blas.* on a GPU (cuBLAS): against the host backend (OpenBLAS) on the same
 * fresh random inputs, and against the double precision reference where it
 * is cheap, with the host tests' bounds; sizes 1, 17, 256 and 1000, every
 * dtype; replayed in graph mode, the bytes of stream launches. Skips
 * without a GPU. */
#include "accel-test.h"
#include "blas-check.h"
#include "tensor-io.h"

static const gint64 sizes[] = { 1, 17, 256, 1000 };
static const AccelDType dtypes[] = {
  ACCEL_DTYPE_F32,
  ACCEL_DTYPE_F64,
  ACCEL_DTYPE_F16,
  ACCEL_DTYPE_BF16,
};

static void
test_case (gconstpointer data)
{
  const BlasCase *c = data;
  /* the naive reference up to 256^3 multiply-adds per product */
  gboolean reference = c->m * c->n * MAX (c->k, 1) <= 256 * 256 * 256;
  g_autoptr (BlasData) d = blas_data_new (c, 2, reference);
  g_autoptr (GPtrArray) gpu = blas_case_run (c, d, FALSE);
  g_autoptr (GPtrArray) host = blas_case_run (c, d, TRUE);
  double err = reference ? blas_case_check (c, d, gpu) : -1.0;
  double diff = blas_compare_runs (c, d, gpu, host);

  g_test_message (
      "%s: relative error %.3g, GPU against host %.3g", c->path, err, diff);
  g_assert_cmpfloat (diff, <=, blas_tolerance (c->dtype));
}

/* transa flipped once the graph is prepared: the GPU keeps the negotiated
 * product too */
static void
test_transa_fixed (gconstpointer data)
{
  const BlasCase *c = data;
  g_autoptr (BlasData) d = blas_data_new (c, 2, TRUE);
  g_autoptr (GPtrArray) gpu = blas_case_run_transa_flipped (c, d, FALSE);

  blas_case_check (c, d, gpu);
}

static void
free_case (gpointer data)
{
  BlasCase *c = data;

  g_free ((gchar *)c->path);
  g_free (c);
}

typedef struct
{
  const BlasCase *c;
  const BlasData *d;
} GraphModeRun;

static AccelGraph *
build_gpu (gconstpointer data)
{
  const GraphModeRun *run = data;

  return blas_graph_new (run->c, run->d, FALSE);
}

/* replayed from a captured graph, the same bytes as launched, on the same
 * inputs: 16 frames, past the pools' cycle, so that replays read new
 * inputs in old places */
static void
test_graph_mode (gconstpointer data)
{
  g_autoptr (BlasData) d = blas_data_new (data, 16, FALSE);
  GraphModeRun run = { data, d };

  test_tensor_assert_graph_mode_exact (build_gpu, &run);
}

static void
add_test (GTestDataFunc test, const char *group, const char *kind,
    AccelDType dtype, gint64 batch, gint64 m, gint64 n, gint64 k,
    gboolean transa, gboolean transb, gint shared, double alpha, double beta,
    const char *variant)
{
  BlasCase *c = g_new0 (BlasCase, 1);

  c->path = g_strdup_printf ("/blas-gpu/%s%s/%s/%" G_GINT64_FORMAT "%s", group,
      kind + 5, accel_dtype_to_string (dtype), m, variant);
  c->kind = kind;
  c->dtype = dtype;
  c->batch = batch;
  c->m = m;
  c->n = n;
  c->k = k;
  c->transa = transa;
  c->transb = transb;
  c->shared = shared;
  c->alpha = alpha;
  c->beta = beta;
  g_test_add_data_func_full (c->path, c, test, free_case);
}

static void
add (const char *kind, AccelDType dtype, gint64 batch, gint64 m, gint64 n,
    gint64 k, gboolean transa, gboolean transb, gint shared, double alpha,
    double beta, const char *variant)
{
  add_test (test_case, "", kind, dtype, batch, m, n, k, transa, transb, shared,
      alpha, beta, variant);
}

int
main (int argc, char **argv)
{
  accel_test_require_gpu ();
  g_test_init (&argc, &argv, NULL);
  test_tensor_stages_register ();

  for (guint t = 0; t < G_N_ELEMENTS (dtypes); t++)
    {
      AccelDType dt = dtypes[t];

      for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
        {
          gint64 s = sizes[i];

          add ("blas.gemm", dt, 0, s, s, s, FALSE, FALSE, 0, 1.0, 0.0, "");
          add ("blas.gemm-c", dt, 0, s, s, s, FALSE, TRUE, 0, 1.5, -0.5, "");
          add ("blas.gemv", dt, 0, s, 1, s, FALSE, FALSE, 0, 1.0, 0.0, "");
          add ("blas.axpy", dt, 0, s, s, 0, FALSE, FALSE, 0, -2.0, 0.0, "");
          /* s x 16: an f16 dot product of s x s elements would overflow */
          add ("blas.dot", dt, 0, s, 16, 0, FALSE, FALSE, 0, 1.0, 0.0, "");
          if (s <= 256)
            add ("blas.gemm", dt, 4, s, s, s, FALSE, FALSE, 0, 1.0, 0.0,
                "-batch");
        }
      /* every transpose and shape in cuBLAS's column-major terms */
      add ("blas.gemm", dt, 0, 17, 33, 65, TRUE, FALSE, 0, 1.0, 0.0, "-ta");
      add ("blas.gemm", dt, 0, 17, 33, 65, FALSE, TRUE, 0, 1.0, 0.0, "-tb");
      add ("blas.gemm", dt, 0, 17, 33, 65, TRUE, TRUE, 0, 0.5, 0.0, "-tab");
      add (
          "blas.gemm", dt, 3, 17, 9, 31, TRUE, FALSE, 1, 1.0, 0.0, "-shared-a");
      add (
          "blas.gemm", dt, 3, 17, 9, 31, FALSE, TRUE, 2, 1.0, 0.0, "-shared-b");
      add ("blas.gemv", dt, 0, 17, 1, 40, TRUE, FALSE, 0, -1.0, 0.0, "-ta");
      add_test (test_transa_fixed, "transa-fixed/", "blas.gemv", dt, 0, 2, 1,
          64, FALSE, FALSE, 0, 1.0, 0.0, "");
      add_test (test_graph_mode, "graph-mode/", "blas.gemm-c", dt, 0, 17, 17,
          17, FALSE, TRUE, 0, 1.5, -0.5, "");
      add_test (test_graph_mode, "graph-mode/", "blas.gemm", dt, 3, 64, 48, 32,
          FALSE, FALSE, 0, 1.0, 0.0, "-batch");
    }
  return g_test_run ();
}
