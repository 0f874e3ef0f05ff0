/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* reference computations of the plugin tests, in double precision */
#include <math.h>
#include <string.h>

#include "numeric-reference.h"

gsize
test_values_per_element (AccelDType dtype)
{
  return dtype == ACCEL_DTYPE_C64 || dtype == ACCEL_DTYPE_C128 ? 2 : 1;
}

double *
test_to_double (AccelDType dtype, GBytes *data, gsize *n_values)
{
  gsize size;
  gconstpointer p = g_bytes_get_data (data, &size);
  gboolean dbl = dtype == ACCEL_DTYPE_F64 || dtype == ACCEL_DTYPE_C128;
  gsize n = size / (dbl ? sizeof (double) : sizeof (float));
  double *out = g_new (double, MAX (n, 1));

  for (gsize i = 0; i < n; i++)
    out[i] = dbl ? ((const double *)p)[i] : ((const float *)p)[i];
  *n_values = n;
  return out;
}

GBytes *
test_from_double (AccelDType dtype, const double *values, gsize n)
{
  gboolean dbl = dtype == ACCEL_DTYPE_F64 || dtype == ACCEL_DTYPE_C128;

  if (dbl)
    return g_bytes_new (values, n * sizeof (double));
  else
    {
      float *f = g_new (float, MAX (n, 1));
      for (gsize i = 0; i < n; i++)
        f[i] = (float)values[i];
      return g_bytes_new_take (f, n * sizeof (float));
    }
}

double
test_rel_error_floor (
    const double *out, const double *ref, gsize n, double floor)
{
  double diff = 0.0, norm = 0.0;

  for (gsize i = 0; i < n; i++)
    {
      diff += (out[i] - ref[i]) * (out[i] - ref[i]);
      norm += ref[i] * ref[i];
    }
  norm = MAX (sqrt (norm), floor);
  return norm > 0.0 ? sqrt (diff) / norm : sqrt (diff);
}

double
test_rel_error (const double *out, const double *ref, gsize n)
{
  return test_rel_error_floor (out, ref, n, 0.0);
}

double
test_check_frames_floored (TestToDouble to_double, AccelDType dtype,
    GPtrArray *out, GPtrArray *expected, gsize n_expected, double tolerance,
    const double *floors)
{
  double worst = 0.0;

  g_assert_cmpuint (out->len, ==, expected->len);
  for (guint f = 0; f < out->len; f++)
    {
      gsize n;
      g_autofree double *y = to_double (dtype, out->pdata[f], &n);
      double err;

      g_assert_cmpuint (n, ==, n_expected);
      err = test_rel_error_floor (
          y, expected->pdata[f], n, floors ? floors[f] : 0.0);
      g_assert_cmpfloat (err, <=, tolerance);
      worst = MAX (worst, err);
    }
  return worst;
}

double
test_compare_frames_floored (TestToDouble to_double, AccelDType dtype,
    GPtrArray *a, GPtrArray *b, const double *floors)
{
  double worst = 0.0;

  g_assert_cmpuint (a->len, ==, b->len);
  for (guint f = 0; f < a->len; f++)
    {
      gsize na, nb;
      g_autofree double *x = to_double (dtype, a->pdata[f], &na);
      g_autofree double *y = to_double (dtype, b->pdata[f], &nb);

      g_assert_cmpuint (na, ==, nb);
      worst = MAX (
          worst, test_rel_error_floor (x, y, na, floors ? floors[f] : 0.0));
    }
  return worst;
}

double
test_check_frames (TestToDouble to_double, AccelDType dtype, GPtrArray *out,
    GPtrArray *expected, gsize n_expected, double tolerance)
{
  return test_check_frames_floored (
      to_double, dtype, out, expected, n_expected, tolerance, NULL);
}

double
test_compare_frames (
    TestToDouble to_double, AccelDType dtype, GPtrArray *a, GPtrArray *b)
{
  return test_compare_frames_floored (to_double, dtype, a, b, NULL);
}

double *
test_random_values (gsize n)
{
  double *x = g_new (double, MAX (n, 1));

  for (gsize i = 0; i < n; i++)
    x[i] = g_test_rand_double_range (-1.0, 1.0);
  return x;
}

void
test_dft (const double *in, double *out, gint rank, const gint64 *dims,
    gint64 batch, int sign)
{
  gint64 points = 1;
  gint64 j_idx[3], k_idx[3];

  for (gint d = 0; d < rank; d++)
    points *= dims[d];
  for (gint64 b = 0; b < batch; b++)
    {
      const double *x = in + 2 * b * points;
      double *y = out + 2 * b * points;
      for (gint64 k = 0; k < points; k++)
        {
          double re = 0.0, im = 0.0;
          gint64 r = k;
          for (gint d = rank - 1; d >= 0; d--)
            {
              k_idx[d] = r % dims[d];
              r /= dims[d];
            }
          for (gint64 j = 0; j < points; j++)
            {
              double phase = 0.0;
              gint64 q = j;
              for (gint d = rank - 1; d >= 0; d--)
                {
                  j_idx[d] = q % dims[d];
                  q /= dims[d];
                  /* reduced mod n first: exact phases for large indices */
                  phase += (double)((j_idx[d] * k_idx[d]) % dims[d])
                           / (double)dims[d];
                }
              phase *= sign * 2.0 * G_PI;
              re += x[2 * j] * cos (phase) - x[2 * j + 1] * sin (phase);
              im += x[2 * j] * sin (phase) + x[2 * j + 1] * cos (phase);
            }
          y[2 * k] = re;
          y[2 * k + 1] = im;
        }
    }
}

void
test_moments (
    const double *x, gsize n, double *mean, double *variance, double *m4)
{
  double s = 0.0, s2 = 0.0, s4 = 0.0;

  for (gsize i = 0; i < n; i++)
    s += x[i];
  s /= n;
  for (gsize i = 0; i < n; i++)
    {
      double d = x[i] - s;
      s2 += d * d;
      s4 += d * d * d * d;
    }
  *mean = s;
  *variance = s2 / (n - 1);
  *m4 = s4 / n;
}

static int
cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *)a, y = *(const double *)b;

  return (x > y) - (x < y);
}

double
test_ks_statistic (double *x, gsize n, TestCdf cdf, const double *parameters)
{
  double d = 0.0;

  qsort (x, n, sizeof (double), cmp_double);
  for (gsize i = 0; i < n; i++)
    {
      double f = cdf (x[i], parameters);
      d = MAX (d, MAX ((double)(i + 1) / n - f, f - (double)i / n));
    }
  return d;
}

double
test_cdf_uniform (double x, const double *low_high)
{
  return CLAMP ((x - low_high[0]) / (low_high[1] - low_high[0]), 0.0, 1.0);
}

double
test_cdf_normal (double x, const double *mean_stddev)
{
  return 0.5 * erfc (-(x - mean_stddev[0]) / (mean_stddev[1] * G_SQRT2));
}

double
test_cdf_log_normal (double x, const double *mean_stddev)
{
  return x <= 0.0 ? 0.0 : test_cdf_normal (log (x), mean_stddev);
}

TestCsr *
test_csr_random (gint64 m, gint64 n, gint64 nnz)
{
  TestCsr *csr = g_new0 (TestCsr, 1);
  g_autofree gint64 *cells = g_new (gint64, m * n);
  g_autofree gboolean *used = g_new0 (gboolean, m * n);
  gint64 e = 0;

  g_assert_cmpint (nnz, <=, m * n);
  csr->m = m;
  csr->n = n;
  csr->nnz = nnz;
  csr->row_offsets = g_new0 (gint32, m + 1);
  csr->col_indices = g_new (gint32, MAX (nnz, 1));
  csr->values = g_new (double, MAX (nnz, 1));

  /* the first nnz cells of a random permutation */
  for (gint64 i = 0; i < m * n; i++)
    cells[i] = i;
  for (gint64 i = 0; i < nnz; i++)
    {
      gint64 j = i + g_test_rand_int_range (0, (gint32)(m * n - i));
      gint64 t = cells[i];
      cells[i] = cells[j];
      cells[j] = t;
      used[cells[i]] = TRUE;
    }
  for (gint64 r = 0; r < m; r++)
    {
      for (gint64 c = 0; c < n; c++)
        if (used[r * n + c])
          {
            csr->col_indices[e] = (gint32)c;
            csr->values[e] = g_test_rand_double_range (-1.0, 1.0);
            e++;
          }
      csr->row_offsets[r + 1] = (gint32)e;
    }
  return csr;
}

void
test_csr_free (TestCsr *csr)
{
  g_free (csr->row_offsets);
  g_free (csr->col_indices);
  g_free (csr->values);
  g_free (csr);
}

void
test_csr_dense_product (
    const TestCsr *csr, const double *x, gint64 k, double alpha, double *y)
{
  g_autofree double *dense = g_new0 (double, csr->m * csr->n);

  for (gint64 r = 0; r < csr->m; r++)
    for (gint32 e = csr->row_offsets[r]; e < csr->row_offsets[r + 1]; e++)
      dense[r * csr->n + csr->col_indices[e]] = csr->values[e];
  for (gint64 r = 0; r < csr->m; r++)
    for (gint64 c = 0; c < k; c++)
      {
        double sum = 0.0;
        for (gint64 j = 0; j < csr->n; j++)
          sum += dense[r * csr->n + j] * x[j * k + c];
        y[r * k + c] = alpha * sum;
      }
}
