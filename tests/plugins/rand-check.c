/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the random source cases of the host and GPU tests */
#include <math.h>
#include <string.h>

#include "accel-test.h"
#include "numeric-reference.h"
#include "rand-check.h"
#include "tensor-io.h"

GPtrArray *
rand_run (const RandCase *c, gboolean host, gint64 n_frames,
    const char *state_dir, guint64 fault_sequence, GArray **sequences)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new (c->kind);
  gboolean uniform = g_str_equal (c->kind, "rand.uniform");
  AccelStage *src, *sink;
  GPtrArray *frames;

  if (host)
    accel_graph_set_device (g, accel_device_get_host ());
  if (state_dir)
    accel_graph_set_state_dir (g, state_dir, 0);
  src = accel_test_stage (g, c->kind, "rand");
  sink = accel_test_stage (g, "test.tensor-sink", "sink");
  g_object_set (src, "shape", c->shape, "dtype", c->dtype, "seed", c->seed,
      "num-buffers", n_frames, uniform ? "low" : "mean", c->parameters[0],
      uniform ? "high" : "stddev", c->parameters[1], NULL);
  test_stage_set_enum (src, "generator", c->generator);
  if (fault_sequence > 0)
    {
      g_object_set (src, "on-fault", ACCEL_SUPERVISION_RESTART, NULL);
      accel_fault_inject ("rand", ACCEL_FAULT_LIBRARY, fault_sequence);
    }
  g_assert_true (accel_graph_link (g, "rand", "sink", &error));
  frames = test_tensor_run (g, "sink");
  accel_fault_clear ();
  if (fault_sequence > 0)
    g_assert_cmpuint (accel_stage_get_n_restarts (src), ==, 1);
  if (sequences)
    *sequences = test_tensor_sink_get_sequences (TEST_TENSOR_SINK (sink));
  return frames;
}

void
rand_check_distribution (const RandCase *c, GPtrArray *frames)
{
  AccelDType dtype = accel_dtype_from_string (c->dtype);
  const double *p = c->parameters;
  g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (double));
  double mu, var, mean, variance, m4, se_mean, se_var, d, critical;
  TestCdf cdf;

  for (guint f = 0; f < frames->len; f++)
    {
      gsize n;
      g_autofree double *x = test_to_double (dtype, frames->pdata[f], &n);
      g_array_append_vals (all, x, n);
    }

  if (g_str_equal (c->kind, "rand.uniform"))
    {
      mu = (p[0] + p[1]) / 2;
      var = (p[1] - p[0]) * (p[1] - p[0]) / 12;
      cdf = test_cdf_uniform;
      for (guint i = 0; i < all->len; i++)
        {
          double v = g_array_index (all, double, i);
          g_assert_cmpfloat (v, >=, p[0]);
          g_assert_cmpfloat (v, <=, p[1]);
        }
    }
  else if (g_str_equal (c->kind, "rand.normal"))
    {
      mu = p[0];
      var = p[1] * p[1];
      cdf = test_cdf_normal;
    }
  else
    {
      mu = exp (p[0] + p[1] * p[1] / 2);
      var = (exp (p[1] * p[1]) - 1) * exp (2 * p[0] + p[1] * p[1]);
      cdf = test_cdf_log_normal;
    }
  for (guint i = 0; i < all->len; i++)
    g_assert_true (isfinite (g_array_index (all, double, i)));

  test_moments ((double *)all->data, all->len, &mean, &variance, &m4);
  se_mean = sqrt (var / all->len);
  se_var = sqrt ((m4 - variance * variance) / all->len);
  d = test_ks_statistic ((double *)all->data, all->len, cdf, p);
  /* sqrt (-log (alpha / 2) / 2) for alpha = 1e-6 */
  critical = 2.693 / sqrt ((double)all->len);
  g_test_message ("%s %s %s: %u values, mean %.6g (%.6g, %.2f se), "
                  "variance %.6g (%.6g, %.2f se), KS %.3g (critical %.3g)",
      c->kind, c->generator, c->dtype, all->len, mean, mu,
      (mean - mu) / se_mean, variance, var, (variance - var) / se_var, d,
      critical);
  g_assert_cmpfloat (fabs (mean - mu), <=, 6 * se_mean);
  g_assert_cmpfloat (fabs (variance - var), <=, 6 * se_var);
  g_assert_cmpfloat (d, <=, critical);
}
