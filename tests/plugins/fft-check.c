/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the FFT cases of the host and GPU tests */
#include <string.h>

#include "fft-check.h"
#include "numeric-reference.h"
#include "tensor-io.h"

#define C64 ACCEL_DTYPE_C64
#define C128 ACCEL_DTYPE_C128
#define F32 ACCEL_DTYPE_F32
#define F64 ACCEL_DTYPE_F64

const FftCase fft_cases[] = {
  { "/fft/forward/c2c/f32/1d-batched", "fft.forward", "auto", C64, 2,
      { 4, 100 }, 1 },
  { "/fft/forward/c2c/f64/2d-batched", "fft.forward", "c2c", C128, 3,
      { 3, 12, 10 }, 2 },
  { "/fft/forward/c2c/f32/3d", "fft.forward", "auto", C64, 3, { 6, 5, 8 } },
  { "/fft/forward/c2c/f64/1d-prime-normalized", "fft.forward", "auto", C128, 1,
      { 97 }, 0, 0, TRUE },
  { "/fft/forward/r2c/f32/1d-batched", "fft.forward", "auto", F32, 2, { 3, 64 },
      1 },
  { "/fft/forward/r2c/f64/1d-odd", "fft.forward", "r2c", F64, 2, { 2, 45 }, 1 },
  { "/fft/forward/r2c/f64/2d", "fft.forward", "auto", F64, 2, { 10, 9 } },
  { "/fft/forward/r2c/f32/3d-batched", "fft.forward", "auto", F32, 4,
      { 2, 4, 6, 10 }, 3 },
  { "/fft/inverse/c2c/f64/1d-batched", "fft.inverse", "auto", C128, 2,
      { 5, 16 }, 1 },
  { "/fft/inverse/c2c/f32/2d-normalized", "fft.inverse", "c2c", C64, 2,
      { 8, 12 }, 0, 0, TRUE },
  { "/fft/inverse/c2r/f32/1d-batched", "fft.inverse", "c2r", C64, 2, { 3, 33 },
      1 },
  { "/fft/inverse/c2r/f64/1d-odd", "fft.inverse", "c2r", C128, 2, { 2, 33 }, 1,
      65 },
  { "/fft/inverse/c2r/f32/2d-normalized", "fft.inverse", "c2r", C64, 2,
      { 12, 9 }, 2, 0, TRUE },
  { "/fft/inverse/c2r/f64/3d", "fft.inverse", "c2r", C128, 3, { 4, 6, 5 } },
};
const guint fft_n_cases = G_N_ELEMENTS (fft_cases);

double
fft_tolerance (AccelDType dtype)
{
  return dtype == F64 || dtype == C128 ? 1e-12 : 1e-5;
}

static gboolean
is_double (AccelDType dtype)
{
  return dtype == F64 || dtype == C128;
}

/* the transform the case asks for: rank, logical sizes, batch */
typedef struct
{
  gint rank;
  gint64 n[3];
  gint64 batch;
  gint64 points;    /* of one transform */
  gint64 half_last; /* n_last / 2 + 1 */
  gint64 half;      /* complex values of one half spectrum */
  gboolean r2c, c2r;
} Shape;

static void
case_shape (const FftCase *c, Shape *s)
{
  gint first;

  memset (s, 0, sizeof (*s));
  s->rank = c->rank ? c->rank : MIN (c->n_dims, 3);
  first = c->n_dims - s->rank;
  s->batch = 1;
  for (gint i = 0; i < first; i++)
    s->batch *= c->dims[i];
  for (gint i = 0; i < s->rank; i++)
    s->n[i] = c->dims[first + i];
  s->c2r = g_str_equal (c->type, "c2r");
  s->r2c = c->dtype == F32 || c->dtype == F64;
  if (s->c2r)
    s->n[s->rank - 1]
        = c->real_length ? c->real_length : 2 * (c->dims[c->n_dims - 1] - 1);
  s->points = 1;
  for (gint i = 0; i < s->rank; i++)
    s->points *= s->n[i];
  s->half_last = s->n[s->rank - 1] / 2 + 1;
  s->half = s->points / s->n[s->rank - 1] * s->half_last;
}

/* the half spectrum (last index < n/2 + 1) of full complex spectra */
static double *
take_half (const Shape *s, const double *full)
{
  gint64 n_last = s->n[s->rank - 1];
  gint64 rows = s->batch * (s->points / n_last);
  double *half = g_new (double, 2 * rows * s->half_last);

  for (gint64 r = 0; r < rows; r++)
    memcpy (half + 2 * r * s->half_last, full + 2 * r * n_last,
        2 * s->half_last * sizeof (double));
  return half;
}

static double *
real_to_complex (const double *x, gsize n)
{
  double *z = g_new0 (double, 2 * n);

  for (gsize i = 0; i < n; i++)
    z[2 * i] = x[i];
  return z;
}

static void
scale (double *x, gsize n, double f)
{
  for (gsize i = 0; i < n; i++)
    x[i] *= f;
}

FftData *
fft_data_new (const FftCase *c, guint n_frames)
{
  FftData *data = g_new0 (FftData, 1);
  int sign = g_str_equal (c->kind, "fft.forward") ? -1 : 1;
  double norm;
  Shape s;

  case_shape (c, &s);
  norm = c->normalize ? 1.0 / s.points : 1.0;
  data->inputs = g_ptr_array_new_with_free_func ((GDestroyNotify)g_bytes_unref);
  data->expected = g_ptr_array_new_with_free_func (g_free);
  for (guint f = 0; f < n_frames; f++)
    {
      gsize total = s.batch * s.points, n;
      g_autofree double *x = test_random_values (2 * total);
      g_autofree double *rounded = NULL, *full = NULL, *z = NULL;
      double *expected;
      GBytes *in;

      if (s.c2r)
        {
          /* a spectrum of a real signal, so the c2r inverse is exact: the
           * signal times N */
          g_autofree double *half = NULL;
          z = real_to_complex (x, total);
          full = g_new (double, 2 * total);
          test_dft (z, full, s.rank, s.n, s.batch, -1);
          half = take_half (&s, full);
          in = test_from_double (c->dtype, half, 2 * s.batch * s.half);
          expected = g_memdup2 (x, total * sizeof (double));
          scale (expected, total, s.points * norm);
          data->n_expected = total;
        }
      else
        {
          gsize n_in = s.r2c ? total : 2 * total;
          in = test_from_double (c->dtype, x, n_in);
          /* the reference reads the values the stage reads */
          rounded = test_to_double (c->dtype, in, &n);
          z = s.r2c ? real_to_complex (rounded, total)
                    : g_memdup2 (rounded, 2 * total * sizeof (double));
          full = g_new (double, 2 * total);
          test_dft (z, full, s.rank, s.n, s.batch, sign);
          expected = s.r2c ? take_half (&s, full)
                           : g_memdup2 (full, 2 * total * sizeof (double));
          data->n_expected = s.r2c ? (gsize)(2 * s.batch * s.half) : 2 * total;
          scale (expected, data->n_expected, norm);
        }
      g_ptr_array_add (data->inputs, in);
      g_ptr_array_add (data->expected, expected);
    }
  return data;
}

FftData *
fft_data_inputs_new (const FftCase *c, guint n_frames)
{
  FftData *data = g_new0 (FftData, 1);
  Shape s;

  case_shape (c, &s);
  data->expected = g_ptr_array_new_with_free_func (g_free);
  if (s.c2r)
    {
      AccelDType real = is_double (c->dtype) ? F64 : F32;
      g_autoptr (GPtrArray) signals
          = g_ptr_array_new_with_free_func ((GDestroyNotify)g_bytes_unref);
      AccelType type;

      accel_type_init_tensor (
          &type, real, ACCEL_MEMORY_DEVICE, c->n_dims, c->dims);
      type.dims[c->n_dims - 1] = s.n[s.rank - 1];
      for (guint f = 0; f < n_frames; f++)
        {
          g_autofree double *x = test_random_values (s.batch * s.points);
          g_ptr_array_add (
              signals, test_from_double (real, x, s.batch * s.points));
        }
      data->inputs = test_tensor_transform (
          "fft.forward", TRUE, &type, signals, "rank", s.rank, NULL);
      return data;
    }

  data->inputs = g_ptr_array_new_with_free_func ((GDestroyNotify)g_bytes_unref);
  for (guint f = 0; f < n_frames; f++)
    {
      gsize n = s.batch * s.points * (s.r2c ? 1 : 2);
      g_autofree double *x = test_random_values (n);
      g_ptr_array_add (data->inputs, test_from_double (c->dtype, x, n));
    }
  return data;
}

void
fft_data_free (FftData *data)
{
  g_ptr_array_unref (data->inputs);
  g_ptr_array_unref (data->expected);
  g_free (data);
}

GPtrArray *
fft_case_run (const FftCase *c, const FftData *data, gboolean host)
{
  /* the kind's type is there once the kind is asked for: its plugin is
   * loaded then */
  g_autoptr (GTypeClass) klass = g_type_class_ref (
      accel_registry_lookup (accel_registry_get_default (), c->kind));
  GParamSpec *pspec
      = g_object_class_find_property (G_OBJECT_CLASS (klass), "type");
  GEnumValue *v;
  AccelType type;
  GPtrArray *out;

  g_assert_nonnull (pspec);
  v = g_enum_get_value_by_nick (G_PARAM_SPEC_ENUM (pspec)->enum_class, c->type);
  g_assert_nonnull (v);
  accel_type_init_tensor (
      &type, c->dtype, ACCEL_MEMORY_DEVICE, c->n_dims, c->dims);
  out = test_tensor_transform (c->kind, host, &type, data->inputs, "type",
      v->value, "rank", c->rank, "real-length", c->real_length, "normalize",
      c->normalize, NULL);
  g_assert_cmpuint (out->len, ==, data->inputs->len);
  return out;
}

static AccelDType
out_dtype (const FftCase *c)
{
  return is_double (c->dtype) ? F64 : F32;
}

double
fft_case_check (const FftCase *c, const FftData *data, GPtrArray *out)
{
  double worst = 0.0;

  for (guint f = 0; f < out->len; f++)
    {
      gsize n;
      g_autofree double *y = test_to_double (out_dtype (c), out->pdata[f], &n);
      double err;

      g_assert_cmpuint (n, ==, data->n_expected);
      err = test_rel_error (y, data->expected->pdata[f], n);
      g_assert_cmpfloat (err, <=, fft_tolerance (c->dtype));
      worst = MAX (worst, err);
    }
  return worst;
}

double
fft_compare_runs (const FftCase *c, GPtrArray *a, GPtrArray *b)
{
  double worst = 0.0;

  g_assert_cmpuint (a->len, ==, b->len);
  for (guint f = 0; f < a->len; f++)
    {
      gsize na, nb;
      g_autofree double *x = test_to_double (out_dtype (c), a->pdata[f], &na);
      g_autofree double *y = test_to_double (out_dtype (c), b->pdata[f], &nb);
      g_assert_cmpuint (na, ==, nb);
      worst = MAX (worst, test_rel_error (x, y, na));
    }
  return worst;
}
