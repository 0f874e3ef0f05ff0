/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the dense product cases of the blas and blaslt tests */
#include <math.h>
#include <string.h>

#include "accel-test.h"
#include "blas-check.h"
#include "numeric-reference.h"
#include "tensor-io.h"

double
blas_tolerance (AccelDType dtype)
{
  switch (dtype)
    {
    case ACCEL_DTYPE_F64:
      return 1e-12;
    case ACCEL_DTYPE_F32:
      return 1e-5;
    default:
      return 1e-2;
    }
}

/* binary16 of a value it holds exactly (the test's grid: k / 1024) */
static guint16
f16_encode_exact (double v)
{
  guint16 sign = v < 0 ? 0x8000 : 0;
  int e;
  double mantissa;

  if (v == 0.0)
    return sign;
  mantissa
      = frexp (fabs (v), &e); /* |v| = mantissa 2^e, mantissa in [0.5, 1) */
  return sign | (guint16)((e - 1 + 15) << 10)
         | (guint16)((mantissa * 2.0 - 1.0) * 1024.0);
}

static double
f16_decode (guint16 h)
{
  int e = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double v;

  if (e == 0x1f)
    v = mantissa ? NAN : INFINITY;
  else if (e == 0)
    v = ldexp (mantissa, -24);
  else
    v = ldexp (1024 + mantissa, e - 25);
  return h & 0x8000 ? -v : v;
}

static guint16
bf16_encode_exact (double v)
{
  float f = (float)v;
  guint32 u;

  memcpy (&u, &f, sizeof (u));
  g_assert_cmpuint (u & 0xffff, ==, 0);
  return (guint16)(u >> 16);
}

static double
bf16_decode (guint16 b)
{
  guint32 u = (guint32)b << 16;
  float f;

  memcpy (&f, &u, sizeof (f));
  return f;
}

GBytes *
blas_random_tensor (AccelDType dtype, gsize n, double **values)
{
  double *v = g_new (double, MAX (n, 1));
  gsize es = accel_dtype_get_size (dtype);
  guint8 *data = g_malloc (MAX (n * es, 1));

  for (gsize i = 0; i < n; i++)
    switch (dtype)
      {
      case ACCEL_DTYPE_F64:
        v[i] = g_test_rand_double_range (-1.0, 1.0);
        ((double *)data)[i] = v[i];
        break;
      case ACCEL_DTYPE_F32:
        ((float *)data)[i] = (float)g_test_rand_double_range (-1.0, 1.0);
        v[i] = ((float *)data)[i];
        break;
      case ACCEL_DTYPE_F16:
        v[i] = g_test_rand_int_range (-1024, 1025) / 1024.0;
        ((guint16 *)data)[i] = f16_encode_exact (v[i]);
        break;
      default:
        v[i] = g_test_rand_int_range (-128, 129) / 128.0;
        ((guint16 *)data)[i] = bf16_encode_exact (v[i]);
        break;
      }
  *values = v;
  return g_bytes_new_take (data, n * es);
}

double *
blas_tensor_to_double (AccelDType dtype, GBytes *data, gsize *n)
{
  gsize size;
  const guint8 *p = g_bytes_get_data (data, &size);
  gsize count = size / accel_dtype_get_size (dtype);
  double *out = g_new (double, MAX (count, 1));

  for (gsize i = 0; i < count; i++)
    switch (dtype)
      {
      case ACCEL_DTYPE_F64:
        out[i] = ((const double *)p)[i];
        break;
      case ACCEL_DTYPE_F32:
        out[i] = ((const float *)p)[i];
        break;
      case ACCEL_DTYPE_F16:
        out[i] = f16_decode (((const guint16 *)p)[i]);
        break;
      default:
        out[i] = bf16_decode (((const guint16 *)p)[i]);
        break;
      }
  *n = count;
  return out;
}

static gboolean
is (const BlasCase *c, const char *kind)
{
  return g_str_equal (c->kind, kind);
}

static gboolean
is_product (const BlasCase *c)
{
  return g_str_has_prefix (c->kind, "blas.gemm")
         || g_str_has_prefix (c->kind, "blaslt.");
}

static void
add_port (BlasData *d, const char *name, AccelDType dtype, gint n_dims,
    const gint64 *dims)
{
  d->ports[d->n_inputs] = name;
  accel_type_init_tensor (
      &d->types[d->n_inputs], dtype, ACCEL_MEMORY_DEVICE, n_dims, dims);
  d->n_inputs++;
}

/* a [batch,] rows x cols port, the batch left out where it is shared */
static void
add_matrix_port (BlasData *d, const BlasCase *c, const char *name,
    gboolean shared, gint64 rows, gint64 cols)
{
  gint64 dims[3] = { c->batch, rows, cols };

  if (c->batch && !shared)
    add_port (d, name, c->dtype, 3, dims);
  else
    add_port (d, name, c->dtype, 2, dims + 1);
}

static void
describe_inputs (BlasData *d, const BlasCase *c)
{
  gint64 mn[2] = { c->m, c->n };

  if (is (c, "blas.axpy") || is (c, "blas.dot"))
    {
      add_port (d, "x", c->dtype, 2, mn);
      add_port (d, "y", c->dtype, 2, mn);
      return;
    }
  if (is (c, "blas.gemv"))
    {
      add_matrix_port (
          d, c, "a", FALSE, c->transa ? c->k : c->m, c->transa ? c->m : c->k);
      add_port (d, "x", c->dtype, 1, &c->k);
      return;
    }
  add_matrix_port (d, c, "a", c->shared == 1, c->transa ? c->k : c->m,
      c->transa ? c->m : c->k);
  add_matrix_port (d, c, "b", c->shared == 2, c->transb ? c->n : c->k,
      c->transb ? c->k : c->n);
  if (is (c, "blas.gemm-c"))
    add_port (d, "c", c->dtype, 2, mn);
  if (is (c, "blaslt.matmul-bias"))
    add_port (d, "bias", c->dtype, 1, &c->n);
}

/* out[i] = alpha op(A[i]) op(B[i]), row-major; a stride of 0 shares.
 * Returns the root of the sum of the squares of every term summed (times
 * alpha): the size rounding errors grow with, which a product of random
 * terms that cancel out falls far below */
static double
reference_gemm (const BlasCase *c, gint64 n, const double *a, gint64 stride_a,
    const double *b, gint64 stride_b, double *out)
{
  gint64 batch = MAX (c->batch, 1);
  double squares = 0.0;

  for (gint64 p = 0; p < batch; p++)
    for (gint64 i = 0; i < c->m; i++)
      for (gint64 j = 0; j < n; j++)
        {
          const double *ap = a + p * stride_a, *bp = b + p * stride_b;
          double sum = 0.0;
          for (gint64 l = 0; l < c->k; l++)
            {
              double t = (c->transa ? ap[l * c->m + i] : ap[i * c->k + l])
                         * (c->transb ? bp[j * c->k + l] : bp[l * n + j]);
              sum += t;
              squares += t * t;
            }
          out[(p * c->m + i) * n + j] = c->alpha * sum;
        }
  return fabs (c->alpha) * sqrt (squares);
}

static double
gelu (double x)
{
  return 0.5 * x
         * (1.0 + tanh (sqrt (2.0 / G_PI) * (x + 0.044715 * x * x * x)));
}

/* the product into @out, then the epilogue; returns the floor of the
 * relative error's norm: the size of the products' terms (a product whose
 * random terms cancel is far smaller than its rounding error may be), and
 * before a blaslt epilogue at least the product's norm (GELU's error
 * scales with its input, which may be much larger than its output); 0 for
 * axpy (no sums) and dot (whose inputs are made not to cancel) */
static double
reference (const BlasCase *c, double **in, double *out)
{
  gsize n_vec = c->m * c->n;
  double terms;

  if (is (c, "blas.axpy"))
    {
      for (gsize i = 0; i < n_vec; i++)
        out[i] = c->alpha * in[0][i] + in[1][i];
      return 0.0;
    }
  if (is (c, "blas.dot"))
    {
      out[0] = 0.0;
      for (gsize i = 0; i < n_vec; i++)
        out[0] += in[0][i] * in[1][i];
      return 0.0;
    }
  if (is (c, "blas.gemv"))
    return reference_gemm (c, 1, in[0], 0, in[1], 0, out);

  terms = reference_gemm (c, c->n, in[0], c->shared == 1 ? 0 : c->m * c->k,
      in[1], c->shared == 2 ? 0 : c->k * c->n, out);
  if (is (c, "blas.gemm-c"))
    for (gsize i = 0; i < n_vec; i++)
      out[i] += c->beta * in[2][i];
  if (g_str_has_prefix (c->kind, "blaslt."))
    {
      gboolean bias = is (c, "blaslt.matmul-bias");
      double norm = 0.0;
      const char *e = c->epilogue ? c->epilogue : "none";
      for (gint64 i = 0; i < c->m; i++)
        for (gint64 j = 0; j < c->n; j++)
          {
            double *x = &out[i * c->n + j];
            if (bias)
              *x += in[2][j];
            norm += *x * *x;
            if (g_str_has_suffix (e, "relu"))
              *x = MAX (*x, 0.0);
            else if (g_str_has_suffix (e, "gelu"))
              *x = gelu (*x);
          }
      return MAX (sqrt (norm), terms);
    }
  return terms;
}

static gsize
n_outputs (const BlasCase *c)
{
  if (is (c, "blas.axpy"))
    return c->m * c->n;
  if (is (c, "blas.dot"))
    return 1;
  if (is (c, "blas.gemv"))
    return c->m;
  return MAX (c->batch, 1) * c->m * c->n;
}

BlasData *
blas_data_new (const BlasCase *c, guint n_frames, gboolean with_reference)
{
  BlasData *d = g_new0 (BlasData, 1);

  describe_inputs (d, c);
  for (guint p = 0; p < d->n_inputs; p++)
    d->inputs[p]
        = g_ptr_array_new_with_free_func ((GDestroyNotify)g_bytes_unref);
  d->expected = g_ptr_array_new_with_free_func (g_free);
  d->floors = g_array_new (FALSE, FALSE, sizeof (double));
  d->n_expected = n_outputs (c);

  for (guint f = 0; f < n_frames; f++)
    {
      double *values[4] = { NULL };

      for (guint p = 0; p < d->n_inputs; p++)
        {
          gsize n = accel_type_get_n_elements (&d->types[p]);
          g_ptr_array_add (
              d->inputs[p], blas_random_tensor (c->dtype, n, &values[p]));
        }
      if (is (c, "blas.dot"))
        {
          /* y follows x in every other element: a dot product far from 0,
           * so that its relative error means something */
          gsize n;
          guint8 *y = g_bytes_unref_to_data (
              g_ptr_array_steal_index (d->inputs[1], f), &n);
          const guint8 *x = g_bytes_get_data (d->inputs[0]->pdata[f], NULL);
          gsize es = accel_dtype_get_size (c->dtype);
          for (gint64 i = 0; i < c->m * c->n; i += 2)
            {
              memcpy (y + i * es, x + i * es, es);
              values[1][i] = values[0][i];
            }
          g_ptr_array_insert (d->inputs[1], f, g_bytes_new_take (y, n));
        }
      if (with_reference)
        {
          double *out = g_new (double, d->n_expected);
          double floor = reference (c, values, out);
          g_ptr_array_add (d->expected, out);
          g_array_append_val (d->floors, floor);
        }
      for (guint p = 0; p < d->n_inputs; p++)
        g_free (values[p]);
    }
  return d;
}

void
blas_data_free (BlasData *data)
{
  for (guint p = 0; p < data->n_inputs; p++)
    g_ptr_array_unref (data->inputs[p]);
  g_ptr_array_unref (data->expected);
  g_array_unref (data->floors);
  g_free (data);
}

AccelGraph *
blas_graph_new (const BlasCase *c, const BlasData *data, gboolean host)
{
  g_autoptr (GError) error = NULL;
  AccelGraph *g = accel_graph_new (c->kind);
  AccelStage *stage;

  if (host)
    accel_graph_set_device (g, accel_device_get_host ());
  stage = accel_test_stage (g, c->kind, "stage");
  accel_test_stage (g, "test.tensor-sink", "sink");
  if (!is (c, "blas.dot"))
    g_object_set (stage, "alpha", c->alpha, NULL);
  if (is_product (c) || is (c, "blas.gemv"))
    g_object_set (stage, "transa", c->transa, NULL);
  if (is_product (c))
    g_object_set (stage, "transb", c->transb, NULL);
  if (is (c, "blas.gemm-c"))
    g_object_set (stage, "beta", c->beta, NULL);
  if (c->epilogue)
    test_stage_set_enum (stage, "epilogue", c->epilogue);

  test_tensor_link_sources (
      g, stage, data->n_inputs, data->ports, data->types, data->inputs);
  g_assert_true (accel_graph_link (g, "stage", "sink", &error));
  g_assert_no_error (error);
  return g;
}

GPtrArray *
blas_case_run (const BlasCase *c, const BlasData *data, gboolean host)
{
  g_autoptr (AccelGraph) g = blas_graph_new (c, data, host);

  return test_tensor_run (g, "sink");
}

GPtrArray *
blas_case_run_transa_flipped (
    const BlasCase *c, const BlasData *data, gboolean host)
{
  g_autoptr (AccelGraph) g = blas_graph_new (c, data, host);
  g_autoptr (GError) error = NULL;

  g_assert_true (accel_graph_prepare (g, &error));
  g_assert_no_error (error);
  g_test_expect_message ("accel-stage", G_LOG_LEVEL_WARNING,
      "*'transa' is fixed once the graph is prepared*");
  g_object_set (accel_graph_get_stage (g, "stage"), "transa", !c->transa, NULL);
  g_test_assert_expected_messages ();
  return test_tensor_run (g, "sink");
}

double
blas_case_check (const BlasCase *c, const BlasData *data, GPtrArray *out)
{
  return test_check_frames_floored (blas_tensor_to_double, c->dtype, out,
      data->expected, data->n_expected, blas_tolerance (c->dtype),
      (const double *)data->floors->data);
}

/* against the product's norm where the reference gave it */
double
blas_compare_runs (
    const BlasCase *c, const BlasData *data, GPtrArray *a, GPtrArray *b)
{
  const double *floors
      = data->floors->len >= a->len ? (const double *)data->floors->data : NULL;

  return test_compare_frames_floored (
      blas_tensor_to_double, c->dtype, a, b, floors);
}
