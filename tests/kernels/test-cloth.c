/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the cloth's host reference: constraints converge with sweeps, pins hold,
 * nothing enters the sphere or turns NaN, the frame shows the cloth; the
 * stage in a graph gives the reference's frames and, restarted after a
 * fault, catches up from its snapshot */
#include <math.h>
#include <string.h>

#include "accel-test.h"
#include "cloth/cloth.h"

typedef struct
{
  AccelClothParams p;
  gpointer block;
  AccelClothState s;
} Cloth;

static void
cloth_init (Cloth *c, int w, int h, int iterations)
{
  accel_cloth_params_init (&c->p, w, h);
  c->p.iterations = iterations;
  c->block = g_malloc0 (accel_cloth_state_size (w, h));
  accel_cloth_state_init (&c->s, c->block, w, h);
  g_assert_cmpint (accel_cloth_reset_host (&c->p, &c->s), ==, 0);
}

static void
run (Cloth *c, int steps)
{
  for (int k = 0; k < steps; k++)
    g_assert_cmpint (accel_cloth_step_host (&c->p, &c->s), ==, 0);
}

/* more sweeps, less stretch: the structural strain after the cloth has
 * fallen, with 2 and with 40 sweeps per step */
static void
test_strain_shrinks (void)
{
  Cloth loose, tight;
  float e_loose, e_tight;

  cloth_init (&loose, 32, 32, 2);
  cloth_init (&tight, 32, 32, 40);
  run (&loose, 60);
  run (&tight, 60);
  e_loose = accel_cloth_max_strain_host (&loose.p, &loose.s);
  e_tight = accel_cloth_max_strain_host (&tight.p, &tight.s);
  g_test_message ("max strain: %g with 2 sweeps, %g with 40", e_loose, e_tight);
  g_assert_cmpfloat (e_loose, >, 0.05f);
  g_assert_cmpfloat (e_tight, <, e_loose / 4.0f);
  g_free (loose.block);
  g_free (tight.block);
}

/* coloured Gauss-Seidel stretches less than Jacobi after as many sweeps:
 * the structural strain of a hanging cloth and of one held in the wind
 * against a sphere, after 60 steps of 10 and of 20 sweeps each (measured:
 * 0.2 to 0.5 of Jacobi's) */
static void
test_gauss_seidel_converges_faster (void)
{
  static const int sweeps[] = { 10, 20 };

  for (guint k = 0; k < G_N_ELEMENTS (sweeps); k++)
    for (int windy = 0; windy < 2; windy++)
      {
        Cloth jacobi, gs;
        float e_jacobi, e_gs;

        cloth_init (&jacobi, 40, 40, sweeps[k]);
        cloth_init (&gs, 40, 40, sweeps[k]);
        gs.p.solver = ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL;
        if (windy)
          {
            jacobi.p.wind[2] = gs.p.wind[2] = 6.0f;
            jacobi.p.sphere[1] = gs.p.sphere[1] = -0.5f;
            jacobi.p.sphere[3] = gs.p.sphere[3] = 0.4f;
          }
        run (&jacobi, 60);
        run (&gs, 60);
        e_jacobi = accel_cloth_max_strain_host (&jacobi.p, &jacobi.s);
        e_gs = accel_cloth_max_strain_host (&gs.p, &gs.s);
        g_test_message ("%d sweeps%s: max strain %g Jacobi, %g Gauss-Seidel",
            sweeps[k], windy ? ", wind and sphere" : "", e_jacobi, e_gs);
        g_assert_true (isfinite (e_gs));
        g_assert_cmpfloat (e_gs, <, e_jacobi * 0.6f);
        g_free (jacobi.block);
        g_free (gs.block);
      }
}

/* pinned corners stay where they were put; the rest falls, stays finite
 * and out of the sphere, in wind and with the whole top row pinned too */
#define PIN_SOLVER(pin, solver) GINT_TO_POINTER ((pin) | (solver) << 8)

static void
test_pins_sphere_finite (gconstpointer data)
{
  int pin = GPOINTER_TO_INT (data) & 0xff;
  Cloth c;
  int w = 25, h = 19;
  double fallen = 0.0, blown = 0.0;

  cloth_init (&c, w, h, 20);
  c.p.pin = pin;
  c.p.solver = GPOINTER_TO_INT (data) >> 8;
  c.p.wind[2] = 6.0f;
  c.p.wind[0] = 2.0f;
  c.p.sphere[1] = -0.6f;
  c.p.sphere[2] = 0.2f;
  c.p.sphere[3] = 0.45f;
  g_assert_cmpint (accel_cloth_reset_host (&c.p, &c.s), ==, 0);
  run (&c, 150);
  for (int j = 0; j < h; j++)
    for (int i = 0; i < w; i++)
      {
        int k = j * w + i;
        float rx = ((float)i - (w - 1) * 0.5f) * c.p.spacing;
        float ry = ((h - 1) * 0.5f - (float)j) * c.p.spacing;
        float dx = c.s.x[k] - c.p.sphere[0], dy = c.s.y[k] - c.p.sphere[1];
        float dz = c.s.z[k] - c.p.sphere[2];
        gboolean pinned
            = j == 0
              && (pin == ACCEL_CLOTH_PIN_TOP_ROW || i == 0 || i == w - 1);

        g_assert_true (
            isfinite (c.s.x[k]) && isfinite (c.s.y[k]) && isfinite (c.s.z[k]));
        g_assert_true (isfinite (c.s.nx[k]));
        if (pinned)
          {
            g_assert_cmpfloat (c.s.x[k], ==, rx);
            g_assert_cmpfloat (c.s.y[k], ==, ry);
            g_assert_cmpfloat (c.s.z[k], ==, 0.0f);
          }
        fallen += ry - c.s.y[k];
        blown += fabsf (c.s.z[k]);
        g_assert_cmpfloat (
            sqrtf (dx * dx + dy * dy + dz * dz), >=, c.p.sphere[3]);
      }
  /* hung from its corners it sags (stretching, under Jacobi; the stiffer
   * Gauss-Seidel cloth swings about its top edge instead); from its top
   * row it cannot, and the wind blows it out of its plane */
  g_test_message ("fallen %g, blown %g, max strain %g", fallen / (w * h),
      blown / (w * h), accel_cloth_max_strain_host (&c.p, &c.s));
  if (pin == ACCEL_CLOTH_PIN_CORNERS && c.p.solver == ACCEL_CLOTH_SOLVER_JACOBI)
    g_assert_cmpfloat (fallen / (w * h), >, 0.2);
  g_assert_cmpfloat (blown / (w * h), >, 0.05);
  g_free (c.block);
}

/* the flat sheet seen head on: its middle lit, the frame's corner not */
static void
test_render (void)
{
  Cloth c;
  AccelClothView v;
  g_autofree guint64 *depth = NULL;
  g_autofree guint8 *rgba = NULL;
  guint32 centre, corner;
  float px, py;

  cloth_init (&c, 9, 7, 0);
  accel_cloth_view_init (&v, &c.p, 64, 48);
  v.cos_tilt = 1.0f;
  v.sin_tilt = 0.0f;
  v.center_y = 0.0f;
  depth = g_new (guint64, accel_cloth_depth_size (&v));
  rgba = g_malloc (64 * 48 * 4);
  g_assert_cmpint (
      accel_cloth_render_host (&c.p, &c.s, &v, depth, rgba, 64 * 4), ==, 0);
  memcpy (&centre, rgba + (24 * 64 + 32) * 4, 4);
  memcpy (&corner, rgba, 4);
  g_assert_cmphex (corner, ==, v.background);
  g_assert_cmphex (centre, !=, v.background);
  /* the normal faces the light at 0.64: shade 0.25 + 0.75 * 0.64 */
  g_assert_cmpuint (centre & 0xff, ==,
      (guint)((v.colour & 0xff) * (0.25f + 0.75f * 0.64f) + 0.5f));
  /* the cloth's projected extent: lit inside, background outside */
  px = (float)(c.p.w - 1) * c.p.spacing * 0.5f * v.scale;
  py = (float)(c.p.h - 1) * c.p.spacing * 0.5f * v.scale;
  memcpy (&corner, rgba + (24 * 64 + (int)(32 + px + 2)) * 4, 4);
  g_assert_cmphex (corner, ==, v.background);
  memcpy (&corner, rgba + ((int)(24 - py + 2) * 64 + 32) * 4, 4);
  g_assert_cmphex (corner, !=, v.background);
  g_free (c.block);
}

#define STAGE_W 16
#define STAGE_H 12
#define FRAME_W 96
#define FRAME_H 64
#define STAGE_FRAMES 12

/* realtime.cloth with non-default forces, pins and sphere, feeding a
 * checksum sink */
static AccelGraph *
stage_graph (AccelStage **sim, AccelStage **sink)
{
  g_autoptr (GError) error = NULL;
  AccelGraph *g = accel_graph_new ("cloth");

  *sim = accel_test_stage (g, "realtime.cloth", "sim");
  *sink = accel_test_stage (g, "core.checksum-sink", "sink");
  g_object_set (*sim, "grid-width", STAGE_W, "grid-height", STAGE_H, "width",
      FRAME_W, "height", FRAME_H, "iterations", 7, "gravity", 6.0f, "wind",
      9.0f, "sphere-x", 0.1f, "sphere-y", -0.7f, "sphere-z", 0.25f,
      "sphere-radius", 0.4f, "pin", ACCEL_CLOTH_PIN_TOP_ROW, "num-buffers",
      (gint64)STAGE_FRAMES, NULL);
  g_assert_true (accel_graph_link (g, "sim", "sink", &error));
  g_assert_no_error (error);
  return g;
}

/* one frame's line of a checksum sink's digest */
static void
digest_add (GChecksum *all, guint64 seq, const void *data, gsize size)
{
  g_autofree gchar *sum
      = g_compute_checksum_for_data (G_CHECKSUM_SHA256, data, size);
  g_autofree gchar *line
      = g_strdup_printf ("%" G_GUINT64_FORMAT " %s\n", seq, sum);

  g_checksum_update (all, (const guchar *)line, -1);
}

/* what the stage's sink reports, from the host reference: the same
 * parameters, the wind of each frame's sequence; @skip is a frame the stage
 * never ran (G_MAXUINT64: none), after which the cloth goes on from where
 * it was (@restored) or starts over */
static gchar *
stage_expected_solver (guint64 skip, gboolean restored, int solver)
{
  g_autoptr (GChecksum) all = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree guint64 *depth = NULL;
  g_autofree guint8 *rgba = g_malloc (FRAME_W * FRAME_H * 4);
  AccelClothView v;
  Cloth c;

  cloth_init (&c, STAGE_W, STAGE_H, 7);
  /* as the stage sets it: 2 units across */
  c.p.spacing = 2.0f / (float)(STAGE_W - 1);
  c.p.pin = ACCEL_CLOTH_PIN_TOP_ROW;
  c.p.solver = solver;
  c.p.sphere[0] = 0.1f;
  c.p.sphere[1] = -0.7f;
  c.p.sphere[2] = 0.25f;
  c.p.sphere[3] = 0.4f;
  g_assert_cmpint (accel_cloth_reset_host (&c.p, &c.s), ==, 0);
  accel_cloth_view_init (&v, &c.p, FRAME_W, FRAME_H);
  depth = g_new (guint64, accel_cloth_depth_size (&v));
  for (guint64 seq = 0; seq < STAGE_FRAMES; seq++)
    {
      AccelClothParams p = c.p;

      if (seq == skip)
        {
          if (!restored)
            g_assert_cmpint (accel_cloth_reset_host (&c.p, &c.s), ==, 0);
          continue;
        }
      p.gravity[1] = -6.0f;
      accel_cloth_params_set_wind (&p, 9.0f, seq);
      g_assert_cmpint (accel_cloth_step_host (&p, &c.s), ==, 0);
      g_assert_cmpint (
          accel_cloth_render_host (&p, &c.s, &v, depth, rgba, FRAME_W * 4), ==,
          0);
      digest_add (all, seq, rgba, FRAME_W * FRAME_H * 4);
    }
  g_free (c.block);
  return g_strdup (g_checksum_get_string (all));
}

static gchar *
stage_expected (guint64 skip, gboolean restored)
{
  return stage_expected_solver (skip, restored, ACCEL_CLOTH_SOLVER_JACOBI);
}

static gchar *
run_to_digest (AccelGraph *g, AccelStage *sink, guint64 n_expected)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (accel_graph_run (g, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (accel_checksum_sink_get_n_received (sink), ==, n_expected);
  return accel_checksum_sink_dup_digest (sink);
}

/* realtime.cloth in a graph on the host backend gives the host reference's
 * frames, one per tick */
static void
test_stage (void)
{
  AccelStage *sim, *sink;
  g_autoptr (AccelGraph) g = stage_graph (&sim, &sink);
  g_autofree gchar *digest = run_to_digest (g, sink, STAGE_FRAMES);
  g_autofree gchar *expected = stage_expected (G_MAXUINT64, FALSE);

  g_assert_true (accel_stage_is_host (sim));
  g_assert_cmpstr (digest, ==, expected);
}

/* solver: gauss-seidel gives the host reference's Gauss-Seidel frames,
 * unlike Jacobi's */
static void
test_stage_gauss_seidel (void)
{
  AccelStage *sim, *sink;
  g_autoptr (AccelGraph) g = stage_graph (&sim, &sink);
  g_autofree gchar *digest = NULL, *jacobi = NULL, *expected = NULL;

  g_object_set (sim, "solver", ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL, NULL);
  digest = run_to_digest (g, sink, STAGE_FRAMES);
  expected = stage_expected_solver (
      G_MAXUINT64, FALSE, ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL);
  jacobi = stage_expected (G_MAXUINT64, FALSE);
  g_assert_cmpstr (expected, !=, jacobi);
  g_assert_cmpstr (digest, ==, expected);
}

/* a fault at frame 5 restarts the stage; from its snapshot (after every
 * frame, or every third) it catches up and makes frame 5 again, so the
 * frames are a clean run's: it neither starts flat again nor, as it did,
 * skips frame 5 and goes on from the snapshot's state */
static void
test_stage_restores (void)
{
  g_autofree gchar *clean = stage_expected (G_MAXUINT64, FALSE);
  g_autofree gchar *skipped = stage_expected (5, TRUE);
  g_autofree gchar *flat = stage_expected (5, FALSE);

  g_assert_cmpstr (clean, !=, skipped);
  g_assert_cmpstr (clean, !=, flat);
  for (guint interval = 1; interval <= 3; interval += 2)
    {
      g_autoptr (GError) error = NULL;
      AccelStage *sim, *sink;
      g_autoptr (AccelGraph) g = stage_graph (&sim, &sink);
      g_autofree gchar *digest = NULL;

      g_object_set (sim, "snapshot-interval", interval, NULL);
      g_assert_true (accel_fault_inject_parse ("sim:library:5", &error));
      g_assert_no_error (error);
      digest = run_to_digest (g, sink, STAGE_FRAMES);
      accel_fault_clear ();
      g_assert_cmpuint (accel_stage_get_n_restarts (sim), ==, 1);
      g_assert_cmpuint (accel_stage_get_n_skipped (sim), ==, 0);
      g_assert_cmpstr (digest, ==, clean);
    }
}

/* the YAML names of the properties, the pin by its nick */
static void
test_stage_yaml (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new_from_yaml_string (
      "pipeline: cloth\n"
      "stages:\n"
      "  - {name: sim, kind: realtime.cloth,\n"
      "     params: {grid-width: 9, grid-height: 5, width: 40, height: 30,\n"
      "              pin: none, sphere-radius: 0, solver: gauss-seidel,\n"
      "              num-buffers: 3}}\n"
      "  - {name: sink, kind: core.checksum-sink}\n"
      "links: [sim -> sink]\n",
      "cloth.yaml", &error);

  g_assert_no_error (error);
  g_assert_true (accel_graph_run (g, &error));
  g_assert_no_error (error);
}

/* grid-size beside a grid-width or grid-height that disagrees is refused
 * whichever was set last (the last one won); beside one that agrees, or
 * alone, it runs */
static void
test_stage_grid_size_conflict (void)
{
  struct
  {
    const char *first, *second;
    gint a, b;
    gboolean refused;
  } cases[] = {
    { "grid-width", "grid-size", 64, 32, TRUE },
    { "grid-size", "grid-height", 32, 16, TRUE },
    { "grid-size", "grid-width", 32, 32, FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (AccelGraph) g = accel_graph_new ("grid");
      g_autoptr (GError) error = NULL;
      AccelStage *sim = accel_test_stage (g, "realtime.cloth", "sim");

      accel_test_stage (g, "core.null-sink", "sink");
      g_object_set (sim, cases[i].first, cases[i].a, NULL);
      g_object_set (sim, cases[i].second, cases[i].b, NULL);
      g_assert_true (accel_graph_link (g, "sim", "sink", &error));
      if (!cases[i].refused)
        {
          g_assert_true (accel_graph_prepare (g, &error));
          g_assert_no_error (error);
          continue;
        }
      g_assert_false (accel_graph_prepare (g, &error));
      g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
      g_assert_nonnull (strstr (error->message,
          "stage 'sim' (realtime.cloth): grid-size 32 sets grid-width and "
          "grid-height, which are given as"));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  accel_backend_set_default (ACCEL_BACKEND_HOST, NULL);
  g_test_add_func ("/cloth/strain-shrinks", test_strain_shrinks);
  g_test_add_func ("/cloth/gauss-seidel-converges-faster",
      test_gauss_seidel_converges_faster);
  g_test_add_data_func ("/cloth/corners",
      PIN_SOLVER (ACCEL_CLOTH_PIN_CORNERS, ACCEL_CLOTH_SOLVER_JACOBI),
      test_pins_sphere_finite);
  g_test_add_data_func ("/cloth/top-row",
      PIN_SOLVER (ACCEL_CLOTH_PIN_TOP_ROW, ACCEL_CLOTH_SOLVER_JACOBI),
      test_pins_sphere_finite);
  g_test_add_data_func ("/cloth/gauss-seidel/corners",
      PIN_SOLVER (ACCEL_CLOTH_PIN_CORNERS, ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL),
      test_pins_sphere_finite);
  g_test_add_data_func ("/cloth/gauss-seidel/top-row",
      PIN_SOLVER (ACCEL_CLOTH_PIN_TOP_ROW, ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL),
      test_pins_sphere_finite);
  g_test_add_func ("/cloth/render", test_render);
  g_test_add_func ("/cloth/stage", test_stage);
  g_test_add_func ("/cloth/stage/gauss-seidel", test_stage_gauss_seidel);
  g_test_add_func ("/cloth/stage/restores", test_stage_restores);
  g_test_add_func ("/cloth/stage/yaml", test_stage_yaml);
  g_test_add_func (
      "/cloth/stage/grid-size-conflict", test_stage_grid_size_conflict);
  return g_test_run ();
}
