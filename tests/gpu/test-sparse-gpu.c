/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sparse.spmv and sparse.spmm on a GPU (cuSPARSE): against the product
 * through the dense matrix and against the host backend, on the same fresh
 * random CSR matrices; replayed in graph mode, the bytes of stream
 * launches. Skips without a GPU. */
#include "accel-test.h"
#include "sparse-check.h"
#include "tensor-io.h"

static void
test_case (gconstpointer data)
{
  const SparseCase *c = data;
  g_autoptr (SparseData) d = sparse_data_new (c, 3);
  g_autoptr (GPtrArray) gpu = sparse_case_run (c, d, FALSE);
  g_autoptr (GPtrArray) host = sparse_case_run (c, d, TRUE);
  double err = sparse_case_check (c, d, gpu);
  double diff = sparse_compare_runs (c, gpu, host);

  g_test_message (
      "%s: relative error %.3g, GPU against host %.3g", c->path, err, diff);
  g_assert_cmpfloat (diff, <=, 2 * sparse_tolerance (c->dtype));
}

/* sizes where cuSPARSE picks its own algorithms: GPU against host */
static const SparseCase large[] = {
  { "/sparse-gpu/large/spmv/f32", "sparse.spmv", ACCEL_DTYPE_F32, 2000, 1500, 0,
      60000, 1.0 },
  { "/sparse-gpu/large/spmm/f64", "sparse.spmm", ACCEL_DTYPE_F64, 800, 600, 32,
      20000, -1.0 },
};

static void
test_large (gconstpointer data)
{
  const SparseCase *c = data;
  g_autoptr (SparseData) d = sparse_data_new (c, 2);
  g_autoptr (GPtrArray) gpu = sparse_case_run (c, d, FALSE);
  g_autoptr (GPtrArray) host = sparse_case_run (c, d, TRUE);
  double diff = sparse_compare_runs (c, gpu, host);

  g_test_message ("%s: GPU against host %.3g", c->path, diff);
  g_assert_cmpfloat (diff, <=, sparse_tolerance (c->dtype));
}

typedef struct
{
  const SparseCase *c;
  const SparseData *d;
} GraphModeRun;

static AccelGraph *
build_sparse (gconstpointer data)
{
  const GraphModeRun *run = data;

  return sparse_graph_new (run->c, run->d, FALSE);
}

/* replayed from a captured graph, the same bytes as launched, on the same
 * inputs: 16 frames, past the pools' cycle, so that replays read new
 * inputs in old places */
static void
test_graph_mode (gconstpointer data)
{
  g_autoptr (SparseData) d = sparse_data_new (data, 16);
  GraphModeRun run = { data, d };

  test_tensor_assert_graph_mode_exact (build_sparse, &run);
}

int
main (int argc, char **argv)
{
  accel_test_require_gpu ();
  g_test_init (&argc, &argv, NULL);
  test_tensor_stages_register ();

  for (guint i = 0; i < sparse_n_cases; i++)
    {
      g_autofree gchar *path
          = g_strconcat ("/sparse-gpu", sparse_cases[i].path + 7, NULL);
      g_test_add_data_func (path, &sparse_cases[i], test_case);
    }
  for (guint i = 0; i < G_N_ELEMENTS (large); i++)
    g_test_add_data_func (large[i].path, &large[i], test_large);
  for (guint i = 0; i < sparse_n_cases; i++)
    {
      g_autofree gchar *path = g_strconcat (
          "/sparse-gpu/graph-mode", sparse_cases[i].path + 7, NULL);
      g_test_add_data_func (path, &sparse_cases[i], test_graph_mode);
    }
  return g_test_run ();
}
