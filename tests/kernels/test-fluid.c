/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the fluid solver's host reference: the projection removes divergence, the
 * simulation stays finite, the stage runs in a graph */
#include <math.h>

#include "accel-test.h"
#include "fluid/fluid.h"

typedef struct
{
  AccelFluidParams p;
  gpointer block;
  AccelFluidFields f;
} Sim;

static void
sim_init (Sim *s, int n, int pressure_iters)
{
  AccelFluidParams p = { n, 1.0f, 0.0f, 0.3f, pressure_iters, 20, 0.995f,
    n / 2.0f, n * 0.8f, n / 20.0f, 0.3f, -0.5f, 0.1f };

  s->p = p;
  s->block = g_malloc0 (accel_fluid_state_size (n));
  accel_fluid_fields_init (&s->f, s->block, n);
}

static float
max_speed (Sim *s)
{
  float m = 0.0f;

  for (int i = 0; i < s->p.n * s->p.n; i++)
    m = fmaxf (m, hypotf (s->f.u[i], s->f.v[i]));
  return m;
}

static void
test_projection_removes_divergence (void)
{
  Sim loose, tight;
  float d_loose, d_tight;

  sim_init (&loose, 64, 2);
  sim_init (&tight, 64, 400);
  for (int k = 0; k < 30; k++)
    {
      accel_fluid_step_host (&loose.p, &loose.f);
      accel_fluid_step_host (&tight.p, &tight.f);
    }
  d_loose = accel_fluid_max_divergence_host (&loose.f, 64);
  d_tight = accel_fluid_max_divergence_host (&tight.f, 64);
  g_test_message ("max divergence: %g with 2 iterations, %g with 400 "
                  "(max speed %g)",
      d_loose, d_tight, max_speed (&tight));
  g_assert_cmpfloat (max_speed (&tight), >, 0.1f);
  g_assert_cmpfloat (d_tight, <, 0.02f * max_speed (&tight));
  g_assert_cmpfloat (d_tight, <, d_loose / 4.0f);
  g_free (loose.block);
  g_free (tight.block);
}

static void
test_stays_finite_and_dye_flows (void)
{
  Sim s;
  guint8 *frame;
  gdouble dye = 0.0;
  guint lit = 0;

  sim_init (&s, 48, 40);
  s.p.viscosity = 0.1f;
  for (int k = 0; k < 200; k++)
    accel_fluid_step_host (&s.p, &s.f);
  for (int i = 0; i < 48 * 48; i++)
    {
      g_assert_true (isfinite (s.f.u[i]) && isfinite (s.f.v[i]));
      g_assert_true (isfinite (s.f.dye[i]));
      g_assert_cmpfloat (s.f.dye[i], >=, -1e-3f);
      dye += s.f.dye[i];
    }
  g_assert_cmpfloat (dye, >, 1.0);

  /* the dye left the injection point: rendered pixels above it are lit */
  frame = g_malloc (48 * 48 * 4);
  accel_fluid_render_host (&s.p, &s.f, frame, 48 * 4);
  for (int y = 0; y < 30; y++)
    for (int x = 0; x < 48; x++)
      lit += frame[(y * 48 + x) * 4 + 2] > 0;
  g_assert_cmpuint (lit, >, 20);
  g_free (frame);
  g_free (s.block);
}

static void
test_stage (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("fluid");
  AccelStage *sim, *sink;
  g_auto (GStrv) sums = NULL;

  sim = accel_test_stage (g, "realtime.fluid", "sim");
  sink = accel_test_stage (g, "core.checksum-sink", "sink");
  g_object_set (sim, "grid-size", 40, "num-buffers", (gint64)12, "inject-x",
      20.0f, "inject-y", 30.0f, "inject-radius", 3.0f, NULL);
  g_assert_true (accel_graph_link (g, "sim", "sink", &error));
  g_assert_true (accel_graph_run (g, &error));
  g_assert_no_error (error);
  sums = accel_checksum_sink_dup_checksums (sink);
  g_assert_cmpuint (g_strv_length (sums), ==, 12);
  /* the picture changes from frame to frame */
  g_assert_cmpstr (sums[10], !=, sums[11]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  accel_backend_set_default (ACCEL_BACKEND_HOST, NULL);
  g_test_add_func ("/fluid/projection-removes-divergence",
      test_projection_removes_divergence);
  g_test_add_func (
      "/fluid/stays-finite-and-dye-flows", test_stays_finite_and_dye_flows);
  g_test_add_func ("/fluid/stage", test_stage);
  return g_test_run ();
}
