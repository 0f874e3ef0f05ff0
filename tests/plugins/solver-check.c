/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the factorization cases of the solver tests */
#include <float.h>
#include <math.h>
#include <string.h>

#include "accel-test.h"
#include "numeric-reference.h"
#include "solver-check.h"
#include "tensor-io.h"

double
solver_tolerance (AccelDType dtype)
{
  return dtype == ACCEL_DTYPE_F64 ? 1e-11 : 1e-4;
}

static gboolean
is (const SolverCase *c, const char *kind)
{
  return g_str_equal (c->kind, kind);
}

static gboolean
has_rhs (const SolverCase *c)
{
  return is (c, "solver.lu") || is (c, "solver.cholesky");
}

static gint64
batch_of (const SolverCase *c)
{
  return MAX (c->batch, 1);
}

static void
init_type (AccelType *t, const SolverCase *c, gint rank, gint64 d0, gint64 d1)
{
  gint64 dims[3];
  gint n = 0;

  if (c->batch)
    dims[n++] = c->batch;
  dims[n++] = d0;
  if (rank == 2)
    dims[n++] = d1;
  accel_type_init_tensor (t, c->dtype, ACCEL_MEMORY_DEVICE, n, dims);
}

/* one matrix, m x n row-major, fit for @c's kind */
static void
fill_matrix (const SolverCase *c, double *a)
{
  gint64 m = c->m, n = c->n;

  for (gint64 i = 0; i < m * n; i++)
    a[i] = g_test_rand_double_range (-1.0, 1.0);
  if (is (c, "solver.lu"))
    /* a random matrix shifted away from singular */
    for (gint64 i = 0; i < n; i++)
      a[i * n + i] += 2.0 + sqrt ((double)n);
  else if (is (c, "solver.cholesky"))
    {
      /* M M^T / n + I: symmetric positive definite, well conditioned */
      g_autofree double *mm = g_memdup2 (a, m * n * sizeof (double));
      for (gint64 i = 0; i < n; i++)
        for (gint64 j = 0; j <= i; j++)
          {
            double sum = 0.0;
            for (gint64 l = 0; l < n; l++)
              sum += mm[i * n + l] * mm[j * n + l];
            a[i * n + j] = a[j * n + i] = sum / n + (i == j);
          }
    }
  else if (is (c, "solver.eigh"))
    for (gint64 i = 0; i < n; i++)
      for (gint64 j = 0; j < i; j++)
        a[j * n + i] = a[i * n + j];
}

SolverData *
solver_data_new (const SolverCase *c, guint n_frames)
{
  SolverData *d = g_new0 (SolverData, 1);
  gint64 per_a = c->m * c->n, per_b = c->n * MAX (c->nrhs, 1);

  d->n_inputs = has_rhs (c) ? 2 : 1;
  init_type (&d->types[0], c, 2, c->m, c->n);
  if (has_rhs (c))
    init_type (&d->types[1], c, c->nrhs ? 2 : 1, c->n, c->nrhs);
  for (guint p = 0; p < d->n_inputs; p++)
    {
      d->inputs[p]
          = g_ptr_array_new_with_free_func ((GDestroyNotify)g_bytes_unref);
      d->values[p] = g_ptr_array_new_with_free_func (g_free);
    }

  if (is (c, "solver.qr"))
    {
      d->outputs[0] = "q";
      d->outputs[1] = "r";
      d->n_outputs = 2;
    }
  else if (is (c, "solver.svd"))
    {
      d->outputs[0] = "s";
      d->outputs[1] = "u";
      d->outputs[2] = "vt";
      d->n_outputs = 3;
    }
  else if (is (c, "solver.eigh"))
    {
      d->outputs[0] = "w";
      d->outputs[1] = "v";
      d->n_outputs = 2;
    }
  else
    {
      d->outputs[0] = "x";
      d->n_outputs = 1;
    }

  for (guint f = 0; f < n_frames; f++)
    {
      gint64 batch = batch_of (c);
      double *a = g_new (double, batch *per_a);
      GBytes *bytes;
      gsize n;

      for (gint64 i = 0; i < batch; i++)
        fill_matrix (c, a + i * per_a);
      /* the checks take the values the stage takes */
      bytes = test_from_double (c->dtype, a, batch * per_a);
      g_free (a);
      g_ptr_array_add (d->inputs[0], bytes);
      g_ptr_array_add (d->values[0], test_to_double (c->dtype, bytes, &n));
      if (has_rhs (c))
        {
          g_autofree double *b = test_random_values (batch * per_b);
          bytes = test_from_double (c->dtype, b, batch * per_b);
          g_ptr_array_add (d->inputs[1], bytes);
          g_ptr_array_add (d->values[1], test_to_double (c->dtype, bytes, &n));
        }
    }
  return d;
}

void
solver_data_free (SolverData *data)
{
  for (guint p = 0; p < data->n_inputs; p++)
    {
      g_ptr_array_unref (data->inputs[p]);
      g_ptr_array_unref (data->values[p]);
    }
  g_free (data);
}

AccelGraph *
solver_graph_new (const SolverCase *c, const SolverData *data, gboolean host)
{
  static const char *const inputs[] = { "a", "b" };
  g_autoptr (GError) error = NULL;
  AccelGraph *g = accel_graph_new (c->kind);
  AccelStage *stage;

  if (host)
    accel_graph_set_device (g, accel_device_get_host ());
  stage = accel_test_stage (g, c->kind, "stage");
  for (guint p = 0; p < data->n_inputs; p++)
    {
      AccelStage *src = accel_test_stage (g, "test.tensor-source", inputs[p]);
      test_tensor_source_set_type (TEST_TENSOR_SOURCE (src), &data->types[p]);
      for (guint f = 0; f < data->inputs[p]->len; f++)
        test_tensor_source_push (
            TEST_TENSOR_SOURCE (src), data->inputs[p]->pdata[f]);
      g_assert_true (
          accel_graph_link_ports (g, src, "out", stage, inputs[p], &error));
      g_assert_no_error (error);
    }
  for (guint o = 0; o < data->n_outputs; o++)
    {
      AccelStage *sink
          = accel_test_stage (g, "test.tensor-sink", data->outputs[o]);
      g_assert_true (accel_graph_link_ports (
          g, stage, data->outputs[o], sink, "in", &error));
      g_assert_no_error (error);
    }
  return g;
}

GPtrArray *
solver_case_run (const SolverCase *c, const SolverData *data, gboolean host)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = solver_graph_new (c, data, host);
  GPtrArray *outputs
      = g_ptr_array_new_with_free_func ((GDestroyNotify)g_ptr_array_unref);

  g_assert_true (accel_graph_run (g, &error));
  g_assert_no_error (error);
  for (guint o = 0; o < data->n_outputs; o++)
    g_ptr_array_add (outputs,
        test_tensor_sink_get_frames (
            TEST_TENSOR_SINK (accel_graph_get_stage (g, data->outputs[o]))));
  return outputs;
}

/* frame @f of output @o as doubles */
static double *
output (const SolverCase *c, GPtrArray *outputs, guint o, guint f, gsize *n)
{
  GPtrArray *frames = outputs->pdata[o];

  return test_to_double (c->dtype, frames->pdata[f], n);
}

static double
frobenius (const double *x, gsize n)
{
  double sum = 0.0;

  for (gsize i = 0; i < n; i++)
    sum += x[i] * x[i];
  return sqrt (sum);
}

/* ||X^T X - I|| / sqrt (cols) of a rows x cols row-major X (orthonormal
 * columns); with @rows_orthonormal, of X X^T instead */
static double
orthogonality (
    const double *x, gint64 rows, gint64 cols, gboolean rows_orthonormal)
{
  gint64 k = rows_orthonormal ? rows : cols;
  double sum = 0.0;

  for (gint64 i = 0; i < k; i++)
    for (gint64 j = 0; j < k; j++)
      {
        double dot = 0.0;
        if (rows_orthonormal)
          for (gint64 l = 0; l < cols; l++)
            dot += x[i * cols + l] * x[j * cols + l];
        else
          for (gint64 l = 0; l < rows; l++)
            dot += x[l * cols + i] * x[l * cols + j];
        dot -= i == j;
        sum += dot * dot;
      }
  return sqrt (sum / k);
}

/* ||A - L diag (d) R|| / ||A|| for A m x n, L m x k, R k x n (d NULL: the
 * identity) */
static double
reconstruction (const double *a, gint64 m, gint64 n, const double *l,
    const double *d, const double *r, gint64 k)
{
  double diff = 0.0;

  for (gint64 i = 0; i < m; i++)
    for (gint64 j = 0; j < n; j++)
      {
        double sum = 0.0;
        for (gint64 p = 0; p < k; p++)
          sum += l[i * k + p] * (d ? d[p] : 1.0) * r[p * n + j];
        diff += (a[i * n + j] - sum) * (a[i * n + j] - sum);
      }
  return sqrt (diff) / MAX (frobenius (a, m * n), 1e-300);
}

/* ||A x - b|| / ||b|| */
static double
residual (
    const double *a, gint64 n, const double *x, const double *b, gint64 nrhs)
{
  double diff = 0.0;

  for (gint64 i = 0; i < n; i++)
    for (gint64 j = 0; j < nrhs; j++)
      {
        double sum = 0.0;
        for (gint64 l = 0; l < n; l++)
          sum += a[i * n + l] * x[l * nrhs + j];
        diff += (sum - b[i * nrhs + j]) * (sum - b[i * nrhs + j]);
      }
  return sqrt (diff) / MAX (frobenius (b, n * nrhs), 1e-300);
}

static double
check_frame (
    const SolverCase *c, const SolverData *data, GPtrArray *outputs, guint f)
{
  gint64 m = c->m, n = c->n, k = MIN (m, n), nrhs = MAX (c->nrhs, 1);
  const double *a = data->values[0]->pdata[f];
  double tol = solver_tolerance (c->dtype), worst = 0.0;
  g_autofree double *o0 = NULL, *o1 = NULL, *o2 = NULL;
  gsize n0, n1 = 0, n2 = 0;

  o0 = output (c, outputs, 0, f, &n0);
  if (data->n_outputs > 1)
    o1 = output (c, outputs, 1, f, &n1);
  if (data->n_outputs > 2)
    o2 = output (c, outputs, 2, f, &n2);

  for (gint64 i = 0; i < batch_of (c); i++)
    {
      const double *ai = a + i * m * n;
      double e[3] = { 0.0, 0.0, 0.0 };

      if (has_rhs (c))
        {
          g_assert_cmpuint (n0, ==, batch_of (c) * n * nrhs);
          e[0] = residual (ai, n, o0 + i * n * nrhs,
              (const double *)data->values[1]->pdata[f] + i * n * nrhs, nrhs);
        }
      else if (is (c, "solver.qr"))
        {
          const double *q = o0 + i * m * k, *r = o1 + i * k * n;
          g_assert_cmpuint (n0, ==, batch_of (c) * m * k);
          g_assert_cmpuint (n1, ==, batch_of (c) * k * n);
          for (gint64 row = 0; row < k; row++)
            for (gint64 col = 0; col < MIN (row, n); col++)
              g_assert_cmpfloat (r[row * n + col], ==, 0.0);
          e[0] = reconstruction (ai, m, n, q, NULL, r, k);
          e[1] = orthogonality (q, m, k, FALSE);
        }
      else if (is (c, "solver.svd"))
        {
          const double *s = o0 + i * k, *u = o1 + i * m * k;
          const double *vt = o2 + i * k * n;
          g_assert_cmpuint (n0, ==, batch_of (c) * k);
          g_assert_cmpuint (n1, ==, batch_of (c) * m * k);
          g_assert_cmpuint (n2, ==, batch_of (c) * k * n);
          for (gint64 p = 0; p < k; p++)
            {
              g_assert_cmpfloat (s[p], >=, 0.0);
              if (p)
                g_assert_cmpfloat (s[p], <=, s[p - 1]);
            }
          e[0] = reconstruction (ai, m, n, u, s, vt, k);
          e[1] = orthogonality (u, m, k, FALSE);
          e[2] = orthogonality (vt, k, n, TRUE);
        }
      else
        {
          const double *w = o0 + i * n, *v = o1 + i * n * n;
          g_autofree double *vt = g_new (double, n *n);
          g_assert_cmpuint (n0, ==, batch_of (c) * n);
          g_assert_cmpuint (n1, ==, batch_of (c) * n * n);
          for (gint64 p = 1; p < n; p++)
            g_assert_cmpfloat (w[p], >=, w[p - 1]);
          for (gint64 r = 0; r < n; r++)
            for (gint64 col = 0; col < n; col++)
              vt[col * n + r] = v[r * n + col];
          e[0] = reconstruction (ai, n, n, v, w, vt, n);
          e[1] = orthogonality (v, n, n, FALSE);
        }
      for (guint j = 0; j < 3; j++)
        {
          g_assert_cmpfloat (e[j], <=, tol);
          worst = MAX (worst, e[j]);
        }
    }
  return worst;
}

double
solver_case_check (
    const SolverCase *c, const SolverData *data, GPtrArray *outputs)
{
  GPtrArray *first = outputs->pdata[0];
  double worst = 0.0;

  g_assert_cmpuint (outputs->len, ==, data->n_outputs);
  g_assert_cmpuint (first->len, ==, data->inputs[0]->len);
  for (guint f = 0; f < first->len; f++)
    worst = MAX (worst, check_frame (c, data, outputs, f));
  return worst;
}

double
solver_compare_runs (const SolverCase *c, GPtrArray *a, GPtrArray *b)
{
  /* x, s and w are output 0; of a QR factorization R (output 1) in
   * magnitude, since either side may flip the sign of a row of R with the
   * column of Q */
  gboolean qr = is (c, "solver.qr");
  GPtrArray *fa = a->pdata[qr ? 1 : 0], *fb = b->pdata[qr ? 1 : 0];
  double worst = 0.0;

  g_assert_cmpuint (fa->len, ==, fb->len);
  for (guint f = 0; f < fa->len; f++)
    {
      gsize na, nb;
      g_autofree double *x = test_to_double (c->dtype, fa->pdata[f], &na);
      g_autofree double *y = test_to_double (c->dtype, fb->pdata[f], &nb);

      g_assert_cmpuint (na, ==, nb);
      for (gsize i = 0; qr && i < na; i++)
        {
          x[i] = fabs (x[i]);
          y[i] = fabs (y[i]);
        }
      worst = MAX (worst, test_rel_error (x, y, na));
    }
  return worst;
}

/* replaces frame 0's input @port by the same values after @change */
static void
change_frame0 (const SolverCase *c, SolverData *d, guint port,
    void (*change) (double *values, gpointer data), gpointer data)
{
  gsize size;
  g_autofree double *v = NULL;
  GBytes *old = g_ptr_array_steal_index (d->inputs[port], 0);

  v = test_to_double (c->dtype, old, &size);
  g_bytes_unref (old);
  change (v, data);
  g_ptr_array_insert (d->inputs[port], 0, test_from_double (c->dtype, v, size));
  g_free (d->values[port]->pdata[0]);
  d->values[port]->pdata[0] = g_steal_pointer (&v);
}

typedef struct
{
  const SolverCase *c;
  guint port;
  gint64 index, row, col;
  double value;
} Change;

static void
spoil (double *a, gpointer data)
{
  const Change *ch = data;
  double *ai = a + ch->index * ch->c->n * ch->c->n;

  if (g_str_equal (ch->c->kind, "solver.cholesky"))
    ai[ch->row * ch->c->n + ch->row] = -100.0 * ch->c->n;
  else
    memset (ai + ch->row * ch->c->n, 0, ch->c->n * sizeof (double));
}

void
solver_data_spoil (const SolverCase *c, SolverData *d, gint64 index, gint64 row)
{
  Change ch = { c, 0, index, row, 0, 0.0 };

  change_frame0 (c, d, 0, spoil, &ch);
}

static void
poison (double *v, gpointer data)
{
  const Change *ch = data;
  /* a: m x n; b: n x nrhs, or a vector */
  gint64 rows = ch->port ? ch->c->n : ch->c->m;
  gint64 cols = ch->port ? MAX (ch->c->nrhs, 1) : ch->c->n;

  v[ch->index * rows * cols + ch->row * cols + ch->col] = ch->value;
}

void
solver_data_poison (const SolverCase *c, SolverData *d, guint port,
    gint64 index, gint64 row, gint64 col, double value)
{
  Change ch = { c, port, index, row, col, value };

  change_frame0 (c, d, port, poison, &ch);
}

/* column 0 of the matrix below the smallest normal number, its rows 0
 * and 1 not zero: the matrix is regular, but the pivot's reciprocal
 * overflows */
static void
shrink_column (double *a, gpointer data)
{
  const Change *ch = data;
  double *ai = a + ch->index * ch->c->n * ch->c->n;

  for (gint64 r = 0; r < ch->c->n; r++)
    ai[r * ch->c->n] = r < 2 ? (r + 1) * ch->value : 0.0;
}

/* runs @d through @c with its stage escalating: fails with
 * ACCEL_ERROR_INVALID_INPUT naming the stage, frame 0 and matrix @index,
 * and holding @part or, unless NULL, @or_part */
static void
expect_bad_input_either (const SolverCase *c, const SolverData *d, gint64 index,
    gboolean host, const char *part, const char *or_part)
{
  g_autoptr (AccelGraph) g = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree gchar *where
      = g_strdup_printf ("stage 'stage' (%s): frame 0, matrix %" G_GINT64_FORMAT
                         " of %" G_GINT64_FORMAT ": ",
          c->kind, index, MAX (c->batch, 1));

  g = solver_graph_new (c, d, host);
  g_object_set (accel_graph_get_stage (g, "stage"), "on-fault",
      ACCEL_SUPERVISION_ESCALATE, NULL);
  g_assert_false (accel_graph_run (g, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT);
  g_test_message ("%s", error->message);
  g_assert_true (g_str_has_prefix (error->message, where));
  g_assert_true (strstr (error->message, part)
                 || (or_part && strstr (error->message, or_part)));
}

static void
expect_bad_input (const SolverCase *c, const SolverData *d, gint64 index,
    gboolean host, const char *part)
{
  expect_bad_input_either (c, d, index, host, part, NULL);
}

void
solver_expect_bad_input (const SolverCase *c, gint64 index, gint64 row,
    gboolean host, const char *part)
{
  g_autoptr (SolverData) d = solver_data_new (c, 2);

  solver_data_spoil (c, d, index, row);
  expect_bad_input (c, d, index, host, part);
}

void
solver_expect_nonfinite (const SolverCase *c, guint port, gint64 index,
    gint64 row, gint64 col, double value, gboolean host)
{
  g_autoptr (SolverData) d = solver_data_new (c, 2);
  g_autofree gchar *part
      = g_strdup_printf ("%s holds NaN or an infinity at row %" G_GINT64_FORMAT
                         ", column %" G_GINT64_FORMAT "; ",
          port ? "b" : "a", row, col);

  solver_data_poison (c, d, port, index, row, col, value);
  expect_bad_input (c, d, index, host, part);
}

void
solver_expect_tiny_pivot (const SolverCase *c, gint64 index, gboolean host)
{
  g_autoptr (SolverData) d = solver_data_new (c, 2);
  Change ch
      = { c, 0, index, 0, 0, c->dtype == ACCEL_DTYPE_F64 ? 1e-310 : 1e-40 };

  change_frame0 (c, d, 0, shrink_column, &ch);
  expect_bad_input (c, d, index, host,
      "a and b are finite, but its LU factors or x are not: a is too badly "
      "scaled or ill-conditioned for ");
}

/* matrix @index of frame 0, finite, made to overflow its decomposition:
 * for Cholesky its first pivot below the smallest normal number (x =
 * b / a00 past the largest), for the others every element scaled to near
 * the largest (a column's norm overflows) */
static void
overflow_matrix (double *a, gpointer data)
{
  const Change *ch = data;
  gint64 size = ch->c->m * ch->c->n;
  double *ai = a + ch->index * size, top = 0.0;

  if (g_str_equal (ch->c->kind, "solver.cholesky"))
    {
      for (gint64 k = 0; k < ch->c->n; k++)
        ai[k] = ai[k * ch->c->n] = 0.0;
      ai[0] = ch->value;
      return;
    }
  for (gint64 k = 0; k < size; k++)
    top = MAX (top, fabs (ai[k]));
  for (gint64 k = 0; k < size; k++)
    ai[k] *= ch->value / top;
}

void
solver_expect_overflow (
    const SolverCase *c, gint64 index, gboolean host, const char *what)
{
  g_autoptr (SolverData) d = solver_data_new (c, 2);
  gboolean dbl = c->dtype == ACCEL_DTYPE_F64;
  gboolean chol = g_str_equal (c->kind, "solver.cholesky");
  Change ch = { c, 0, index, 0, 0,
    chol ? (dbl ? 1e-310 : 1e-40) : 0.9 * (dbl ? DBL_MAX : FLT_MAX) };
  g_autofree gchar *part = g_strdup_printf (
      "the input is finite, but %s %s not: it is too large or too badly "
      "scaled for %s",
      what, g_str_has_suffix (what, "s") ? "are" : "is", dbl ? "f64" : "f32");

  change_frame0 (c, d, 0, overflow_matrix, &ch);
  /* cuSOLVER's SVD and eigendecomposition may stop short of the values
   * instead (gesvd's superdiagonals do not reach zero): bad input too */
  expect_bad_input_either (
      c, d, index, host, part, host ? NULL : "did not converge");
}

void
solver_check_overflow (gconstpointer host)
{
  const SolverCase chol
      = { "", "solver.cholesky", ACCEL_DTYPE_F32, 0, 5, 5, 0 };
  const SolverCase chol64
      = { "", "solver.cholesky", ACCEL_DTYPE_F64, 2, 6, 6, 2 };
  const SolverCase qr = { "", "solver.qr", ACCEL_DTYPE_F32, 2, 7, 5 };
  const SolverCase qr64 = { "", "solver.qr", ACCEL_DTYPE_F64, 0, 6, 6 };
  const SolverCase svd = { "", "solver.svd", ACCEL_DTYPE_F32, 0, 5, 6 };
  const SolverCase eigh = { "", "solver.eigh", ACCEL_DTYPE_F32, 2, 7, 7 };
  /* the host searches QR's factors before orgqr, the GPU r */
  const char *qr_what = host ? "its factors" : "r";

  solver_expect_overflow (&chol, 0, host != NULL, "x");
  solver_expect_overflow (&chol64, 1, host != NULL, "x");
  solver_expect_overflow (&qr, 1, host != NULL, qr_what);
  solver_expect_overflow (&qr64, 0, host != NULL, qr_what);
  solver_expect_overflow (&svd, 0, host != NULL, "its singular values");
  solver_expect_overflow (&eigh, 1, host != NULL, "its eigenvalues");
}
