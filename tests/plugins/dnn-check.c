/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the convolution cases of the dnn tests */
#include <math.h>

#include "accel-test.h"
#include "blas-check.h"
#include "dnn-check.h"
#include "numeric-reference.h"
#include "tensor-io.h"

double
dnn_tolerance (AccelDType dtype)
{
  return dtype == ACCEL_DTYPE_F32 ? 1e-5 : 1e-2;
}

static gboolean
has_bias (const DnnCase *c)
{
  return g_str_equal (c->kind, "dnn.conv2d-bias");
}

static double
activate (const char *activation, double x)
{
  if (!activation || g_str_equal (activation, "none"))
    return x;
  if (g_str_equal (activation, "relu"))
    return x > 0.0 ? x : 0.0;
  if (g_str_equal (activation, "sigmoid"))
    return 1.0 / (1.0 + exp (-x));
  if (g_str_equal (activation, "tanh"))
    return tanh (x);
  g_assert_cmpstr (activation, ==, "elu");
  return x > 0.0 ? x : exp (x) - 1.0;
}

/* straight from the definition: every tap, the padding read as zeros */
static void
reference (const DnnCase *c, gint64 p_out, gint64 q_out, const double *in,
    const double *w, const double *bias, double *out)
{
  gint64 cg = c->c / c->groups, kg = c->k / c->groups;

  for (gint64 n = 0; n < c->n; n++)
    for (gint64 k = 0; k < c->k; k++)
      for (gint64 p = 0; p < p_out; p++)
        for (gint64 q = 0; q < q_out; q++)
          {
            gint64 g = k / kg;
            double sum = 0.0;

            for (gint64 ch = 0; ch < cg; ch++)
              for (gint64 r = 0; r < c->r; r++)
                for (gint64 s = 0; s < c->s; s++)
                  {
                    gint64 y = p * c->stride_h - c->pad_h + r * c->dilation_h;
                    gint64 x = q * c->stride_w - c->pad_w + s * c->dilation_w;
                    if (y < 0 || y >= c->h || x < 0 || x >= c->w)
                      continue;
                    sum += in[((n * c->c + g * cg + ch) * c->h + y) * c->w + x]
                           * w[((k * cg + ch) * c->r + r) * c->s + s];
                  }
            sum = c->alpha * sum + (bias ? bias[k] : 0.0);
            out[((n * c->k + k) * p_out + p) * q_out + q]
                = activate (c->activation, sum);
          }
}

static void
add_port (DnnData *d, const char *name, AccelDType dtype, gint n_dims,
    const gint64 *dims)
{
  d->ports[d->n_inputs] = name;
  accel_type_init_tensor (
      &d->types[d->n_inputs], dtype, ACCEL_MEMORY_DEVICE, n_dims, dims);
  d->n_inputs++;
}

DnnData *
dnn_data_new (const DnnCase *c, guint n_frames, gboolean with_reference)
{
  DnnData *d = g_new0 (DnnData, 1);
  gint64 in_dims[4] = { c->n, c->c, c->h, c->w };
  gint64 w_dims[4] = { c->k, c->c / MAX (c->groups, 1), c->r, c->s };

  add_port (d, "in", c->dtype, 4, in_dims);
  add_port (d, "weights", c->dtype, 4, w_dims);
  if (has_bias (c))
    add_port (d, "bias", c->dtype, 1, &c->k);
  /* in 64 bits: the link-error cases go up to the largest pads */
  d->p = (c->h + 2 * (gint64)c->pad_h - (c->r - 1) * c->dilation_h - 1)
             / c->stride_h
         + 1;
  d->q = (c->w + 2 * (gint64)c->pad_w - (c->s - 1) * c->dilation_w - 1)
             / c->stride_w
         + 1;
  d->n_expected
      = d->p > 0 && d->q > 0 && d->p <= G_MAXINT32 && d->q <= G_MAXINT32 / d->p
            ? c->n * c->k * d->p * d->q
            : 0;
  for (guint p = 0; p < d->n_inputs; p++)
    d->inputs[p]
        = g_ptr_array_new_with_free_func ((GDestroyNotify)g_bytes_unref);
  d->expected = g_ptr_array_new_with_free_func (g_free);

  for (guint f = 0; f < n_frames; f++)
    {
      double *values[3] = { NULL };

      for (guint p = 0; p < d->n_inputs; p++)
        {
          gsize n = accel_type_get_n_elements (&d->types[p]);
          g_ptr_array_add (
              d->inputs[p], blas_random_tensor (c->dtype, n, &values[p]));
        }
      if (with_reference)
        {
          double *out = g_new (double, MAX (d->n_expected, 1));
          reference (c, d->p, d->q, values[0], values[1], values[2], out);
          g_ptr_array_add (d->expected, out);
        }
      for (guint p = 0; p < d->n_inputs; p++)
        g_free (values[p]);
    }
  return d;
}

void
dnn_data_free (DnnData *data)
{
  for (guint p = 0; p < data->n_inputs; p++)
    g_ptr_array_unref (data->inputs[p]);
  g_ptr_array_unref (data->expected);
  g_free (data);
}

AccelGraph *
dnn_graph_new (const DnnCase *c, const DnnData *data, gboolean host)
{
  g_autoptr (GError) error = NULL;
  AccelGraph *g = accel_graph_new (c->kind);
  AccelStage *stage;

  if (host)
    accel_graph_set_device (g, accel_device_get_host ());
  stage = accel_test_stage (g, c->kind, "stage");
  accel_test_stage (g, "test.tensor-sink", "sink");
  g_object_set (stage, "alpha", c->alpha, "pad-h", c->pad_h, "pad-w", c->pad_w,
      "stride-h", MAX (c->stride_h, 1), "stride-w", MAX (c->stride_w, 1),
      "dilation-h", MAX (c->dilation_h, 1), "dilation-w",
      MAX (c->dilation_w, 1), "groups", MAX (c->groups, 1), NULL);
  if (c->activation)
    test_stage_set_enum (stage, "activation", c->activation);

  test_tensor_link_sources (
      g, stage, data->n_inputs, data->ports, data->types, data->inputs);
  g_assert_true (accel_graph_link (g, "stage", "sink", &error));
  g_assert_no_error (error);
  return g;
}

GPtrArray *
dnn_case_run (const DnnCase *c, const DnnData *data, gboolean host)
{
  g_autoptr (AccelGraph) g = dnn_graph_new (c, data, host);

  return test_tensor_run (g, "sink");
}

double
dnn_case_check (const DnnCase *c, const DnnData *data, GPtrArray *out)
{
  return test_check_frames (blas_tensor_to_double, c->dtype, out,
      data->expected, data->n_expected, dnn_tolerance (c->dtype));
}

double
dnn_compare_runs (const DnnCase *c, GPtrArray *a, GPtrArray *b)
{
  return test_compare_frames (blas_tensor_to_double, c->dtype, a, b);
}
