/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the particle system's and the spatial index's host references: counts
 * after spawn and kill, finite state, colliders, neighbour counts against
 * brute force, the splat, and the stages in a graph */
#include <math.h>
#include <string.h>

#include "accel-test.h"
#include "particles/particles.h"
#include "spatial/spatial-grid.h"

typedef struct
{
  AccelParticlesParams p;
  gpointer a, b, work;
  AccelParticleState s[2];
  AccelParticlesScratch scratch;
  int cur;
} Sim;

static void
sim_init (Sim *sim, const AccelParticlesParams *p)
{
  sim->p = *p;
  sim->a = g_malloc0 (accel_particle_state_size (p->capacity));
  sim->b = g_malloc0 (accel_particle_state_size (p->capacity));
  sim->work = g_malloc0 (accel_particles_scratch_size (p));
  accel_particle_state_init (&sim->s[0], sim->a, p->capacity);
  accel_particle_state_init (&sim->s[1], sim->b, p->capacity);
  accel_particles_scratch_init (&sim->scratch, sim->work, p);
  sim->cur = 0;
}

static AccelParticleState *
sim_step (Sim *sim, uint64_t step)
{
  accel_particles_step_host (
      &sim->p, step, &sim->s[sim->cur], &sim->s[!sim->cur], &sim->scratch);
  sim->cur = !sim->cur;
  return &sim->s[sim->cur];
}

static void
sim_clear (Sim *sim)
{
  g_free (sim->a);
  g_free (sim->b);
  g_free (sim->work);
}

static void
assert_finite (const AccelParticleState *s)
{
  for (uint32_t i = 0; i < s->count[0]; i++)
    {
      g_assert_true (
          isfinite (s->px[i]) && isfinite (s->py[i]) && isfinite (s->pz[i]));
      g_assert_true (
          isfinite (s->vx[i]) && isfinite (s->vy[i]) && isfinite (s->vz[i]));
      g_assert_cmpfloat (s->age[i], <, s->life[i]);
    }
}

/* lives of exactly 10 steps (dt and the lifetime are exact in binary), so
 * the count is a cohort sum, limited by the free slots when emitting */
static void
test_count_spawn_kill (void)
{
  AccelParticlesParams p;
  guint cohort[64] = { 0 };
  Sim sim;

  accel_particles_params_init (&p, 50);
  p.dt = 0.0625f;
  p.emitter.lifetime = 10.5f * 0.0625f;
  p.emitter.lifetime_jitter = 0.0f;
  p.emitter.rate = 8;
  sim_init (&sim, &p);
  for (guint k = 0; k < 40; k++)
    {
      AccelParticleState *s;
      guint n_in = 0, expected = 0;
      for (guint b = 0; b < k; b++)
        n_in += cohort[b];
      cohort[k] = MIN (p.emitter.rate, p.capacity - n_in);
      /* a cohort born at step b lives through steps b .. b + 9 */
      for (guint b = 0; b <= k; b++)
        if (k - b > 9)
          cohort[b] = 0;
      for (guint b = 0; b <= k; b++)
        expected += cohort[b];
      s = sim_step (&sim, k);
      g_assert_cmpuint (s->count[0], ==, expected);
      assert_finite (s);
    }
  /* the emitter stopped: everything dies within a life */
  sim.p.emitter.rate = 0;
  for (guint k = 40; k < 51; k++)
    sim_step (&sim, k);
  g_assert_cmpuint (sim.s[sim.cur].count[0], ==, 0);
  sim_clear (&sim);
}

/* the same seed gives the same particles, another seed others */
static void
test_deterministic (void)
{
  AccelParticlesParams p;
  Sim a, b, c;
  gsize size;

  accel_particles_params_init (&p, 4096);
  p.emitter.rate = 100;
  p.curl_strength = 2.0f;
  sim_init (&a, &p);
  sim_init (&b, &p);
  p.seed = 2;
  sim_init (&c, &p);
  for (guint k = 0; k < 20; k++)
    {
      sim_step (&a, k);
      sim_step (&b, k);
      sim_step (&c, k);
    }
  size = accel_particle_state_size (p.capacity);
  g_assert_cmpmem (a.s[a.cur].count, size, b.s[b.cur].count, size);
  g_assert_cmpuint (a.s[a.cur].count[0], ==, c.s[c.cur].count[0]);
  g_assert_cmpfloat (a.s[a.cur].px[5], !=, c.s[c.cur].px[5]);
  sim_clear (&a);
  sim_clear (&b);
  sim_clear (&c);
}

/* every force at once, particle-particle collisions too: the container box
 * holds every particle, none is left in the obstacle, none is NaN */
static void
test_box_keeps_inside (void)
{
  AccelParticlesParams p;
  AccelParticleBox obstacle
      = { { -0.3f, -0.2f, -2.0f }, { 0.3f, 0.0f, 2.0f }, 0 };
  static const float lo[3] = { -1.0f, -1.0f, -1.0f }, hi[3] = { 1, 1, 1 };
  AccelParticleState *s = NULL;
  Sim sim;

  accel_particles_params_init (&p, 3000);
  p.emitter.rate = 60;
  p.emitter.speed = 6.0f;
  p.emitter.spread = 1.0f;
  p.gravity[1] = -9.0f;
  p.curl_strength = 4.0f;
  p.n_attractors = 2;
  p.attractors[0] = (AccelParticleAttractor){ 0.5f, 0.5f, 0.0f, 20.0f, 0.8f };
  p.attractors[1] = (AccelParticleAttractor){ -0.5f, 0.5f, 0.0f, -20.0f, 0.8f };
  p.boxes[p.n_boxes++] = obstacle;
  p.n_planes = 1;
  p.planes[0] = (AccelParticlePlane){ 0.0f, 0.70710678f, 0.70710678f, -1.2f };
  p.collide_radius = 0.02f;
  accel_particles_params_set_grid (&p, lo, hi);
  sim_init (&sim, &p);
  for (guint k = 0; k < 150; k++)
    s = sim_step (&sim, k);
  g_assert_cmpuint (s->count[0], >, 1000);
  assert_finite (s);
  for (uint32_t i = 0; i < s->count[0]; i++)
    {
      float x[3] = { s->px[i], s->py[i], s->pz[i] };
      for (int a = 0; a < 3; a++)
        {
          g_assert_cmpfloat (x[a], >=, -1.0f);
          g_assert_cmpfloat (x[a], <=, 1.0f);
        }
      g_assert_false (
          x[0] > -0.3f && x[0] < 0.3f && x[1] > -0.2f && x[1] < 0.0f);
    }
  sim_clear (&sim);
}

/* two overlapping particles at rest are pushed to two radii apart */
static void
test_push_apart (void)
{
  AccelParticlesParams p;
  static const float lo[3] = { -1.0f, -1.0f, -1.0f }, hi[3] = { 1, 1, 1 };
  AccelParticleState *s;
  Sim sim;
  float d;

  accel_particles_params_init (&p, 16);
  p.emitter.rate = 0;
  p.gravity[1] = 0.0f;
  p.collide_radius = 0.05f;
  accel_particles_params_set_grid (&p, lo, hi);
  sim_init (&sim, &p);
  s = &sim.s[0];
  s->count[0] = 2;
  s->px[0] = 0.0f;
  s->px[1] = 0.04f;
  for (int i = 0; i < 2; i++)
    {
      s->py[i] = s->pz[i] = s->vx[i] = s->vy[i] = s->vz[i] = s->age[i] = 0;
      s->life[i] = 10.0f;
    }
  s = sim_step (&sim, 0);
  g_assert_cmpuint (s->count[0], ==, 2);
  d = s->px[1] - s->px[0];
  g_assert_cmpfloat_with_epsilon (d, 0.1f, 1e-6f);
  sim_clear (&sim);
}

/* random points, some outside the grid's box: each query's count equals a
 * brute-force count, the index is a permutation, ordered by cell then
 * index */
static void
test_neighbours_brute_force (void)
{
  const guint n = 3000, nq = 500;
  static const float lo[3] = { 0.0f, 0.0f, 0.0f }, hi[3] = { 1, 1, 0.5f };
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  g_autofree float *xyz = g_new (float, 3 * (n + nq));
  g_autofree guint32 *counts = g_new (guint32, nq);
  g_autofree guint8 *seen = g_new0 (guint8, n);
  g_autofree gpointer block = NULL;
  float *x = xyz, *y = x + n, *z = y + n, *q = z + n;
  AccelSpatialGrid g;
  AccelSpatialIndex ix;
  guint32 count = n - 17; /* the last points are not indexed */
  float r = 0.07f;

  for (guint i = 0; i < 3 * (n + nq); i++)
    xyz[i] = (float)g_rand_double_range (rand, -0.1, 1.1);
  accel_spatial_grid_init (&g, lo, hi, 0.05f);
  block = g_malloc (accel_spatial_index_size (&g, n));
  accel_spatial_index_init (&ix, block, &g, n);
  accel_spatial_build_host (&g, x, y, z, n, &count, &ix);

  g_assert_cmpuint (ix.cell_start[accel_spatial_grid_n_cells (&g)], ==, count);
  for (guint k = 0; k < count; k++)
    {
      guint32 i = ix.sorted[k];
      g_assert_cmpuint (i, <, count);
      g_assert_false (seen[i]);
      seen[i] = 1;
      if (k > 0)
        {
          guint32 prev = ix.sorted[k - 1];
          g_assert_true (ix.cell_of[prev] < ix.cell_of[i]
                         || (ix.cell_of[prev] == ix.cell_of[i] && prev < i));
        }
    }

  accel_spatial_count_neighbours_host (
      &g, &ix, x, y, z, q, q + nq, q + 2 * nq, nq, r, counts);
  for (guint k = 0; k < nq; k++)
    {
      guint32 brute = 0;
      for (guint i = 0; i < count; i++)
        brute += spatial_dist2 (
                     x[i] - q[k], y[i] - q[nq + k], z[i] - q[2 * nq + k])
                 <= r * r;
      g_assert_cmpuint (counts[k], ==, brute);
    }
  /* an indexed point counts itself */
  accel_spatial_count_neighbours_host (&g, &ix, x, y, z, x, y, z, 1, r, counts);
  g_assert_cmpuint (counts[0], >=, 1);
}

/* three particles: the pixels of their discs are lit, and only those */
static void
test_splat_lights_particles (void)
{
  AccelSplatParams sp = { 37, 29, 0.0f, 0.0f, 10.0f, 1, 0x00000000u, 1.0f };
  float pos[3][2] = { { 0.0f, 0.0f }, { -1.5f, 1.0f }, { 1.55f, -1.2f } };
  AccelParticleState s;
  g_autofree gpointer block = g_malloc0 (accel_particle_state_size (16));
  g_autofree guint32 *accum
      = g_new (guint32, accel_particles_splat_accum_size (&sp));
  g_autofree guint8 *rgba = g_malloc (37 * 4 * 29);
  guint lit = 0;

  accel_particle_state_init (&s, block, 16);
  s.count[0] = 3;
  for (int i = 0; i < 3; i++)
    {
      s.px[i] = pos[i][0];
      s.py[i] = pos[i][1];
      s.colour[i] = 0xff2080ffu;
      s.life[i] = 1.0f;
      s.age[i] = 0.25f * i;
    }
  /* a fourth past the count is not drawn */
  s.px[3] = 1.0f;
  s.life[3] = 1.0f;
  s.colour[3] = 0xffffffffu;
  accel_particles_splat_host (&sp, &s, 16, accum, rgba, 37 * 4);
  for (int y = 0; y < 29; y++)
    for (int x = 0; x < 37; x++)
      {
        const guint8 *px = rgba + (y * 37 + x) * 4;
        gboolean near = FALSE;
        for (int i = 0; i < 3; i++)
          {
            int cx = (int)floorf (pos[i][0] * 10.0f + 18.5f);
            int cy = (int)floorf (-pos[i][1] * 10.0f + 14.5f);
            near = near || (x - cx) * (x - cx) + (y - cy) * (y - cy) <= 1;
          }
        if (near)
          {
            g_assert_cmpuint (px[0], >, 0);
            g_assert_cmpuint (px[3], >, 0);
            lit++;
          }
        else
          {
            g_assert_cmpuint (px[0] | px[1] | px[2] | px[3], ==, 0);
          }
      }
  g_assert_cmpuint (lit, ==, 15);
  /* the youngest is brightest: colour fades towards black with age */
  g_assert_cmpuint (rgba[(14 * 37 + 18) * 4], ==, 255);
  g_assert_cmpuint (rgba[(26 * 37 + 34) * 4], <, 255);
}

static void
test_stages (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("particles");
  AccelStage *sim, *render, *sink;
  g_auto (GStrv) sums = NULL;

  sim = accel_test_stage (g, "realtime.particles", "sim");
  render = accel_test_stage (g, "realtime.splat", "render");
  sink = accel_test_stage (g, "core.checksum-sink", "sink");
  g_object_set (sim, "capacity", 4096u, "emit-rate", 64u, "num-buffers",
      (gint64)10, "collide-radius", 0.01f, "attractor-strength", 3.0f,
      "repeller-strength", 3.0f, "curl", 1.0f, NULL);
  g_object_set (render, "width", 64, "height", 48, "scale", 24.0f, NULL);
  g_assert_true (accel_graph_link (g, "sim", "render", &error));
  g_assert_true (accel_graph_link (g, "render", "sink", &error));
  g_assert_true (accel_graph_run (g, &error));
  g_assert_no_error (error);
  sums = accel_checksum_sink_dup_checksums (sink);
  g_assert_cmpuint (g_strv_length (sums), ==, 10);
  g_assert_cmpstr (sums[8], !=, sums[9]);
}

/* a simulation of 12 frames with snapshots every 4, into a checksum sink */
static AccelGraph *
sim_graph (AccelStage **sim, AccelStage **sink)
{
  g_autoptr (GError) error = NULL;
  AccelGraph *g = accel_graph_new ("catch-up");

  *sim = accel_test_stage (g, "realtime.particles", "sim");
  *sink = accel_test_stage (g, "core.checksum-sink", "sink");
  g_object_set (*sim, "capacity", 4096u, "emit-rate", 64u, "num-buffers",
      (gint64)12, "collide-radius", 0.01f, "curl", 1.0f, "snapshot-interval",
      4u, NULL);
  g_assert_true (accel_graph_link (g, "sim", "sink", &error));
  g_assert_no_error (error);
  return g;
}

/* the checksums of a run of sim_graph () with @fault (ACCEL_FAULT's
 * syntax, or NULL), run or @stepped frame by frame; its restarts and
 * skipped frames in @restarts and @skipped */
static GStrv
run_sim (AccelGraph *g, AccelStage *sim, AccelStage *sink, const char *fault,
    gboolean stepped, guint64 *restarts, guint64 *skipped)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (!fault || accel_fault_inject_parse (fault, &error));
  g_assert_no_error (error);
  accel_graph_set_stepped (g, stepped);
  g_assert_true (accel_graph_start (g, &error));
  for (guint i = 0; stepped && i < 12; i++)
    {
      g_assert_true (accel_graph_step (g, 10 * G_USEC_PER_SEC, &error));
      g_assert_no_error (error);
      /* one frame a step, the frames made again to catch up besides */
      g_assert_cmpuint (accel_stage_get_n_processed (sink), ==, i + 1);
    }
  /* the step past the last frame ends the stream */
  if (stepped)
    {
      g_assert_false (accel_graph_step (g, 10 * G_USEC_PER_SEC, &error));
      g_clear_error (&error);
    }
  g_assert_true (accel_graph_wait (g, -1, &error));
  g_assert_no_error (error);
  accel_fault_clear ();
  *restarts = accel_stage_get_n_restarts (sim);
  *skipped = accel_stage_get_n_skipped (sim);
  /* each frame counted once (each run counts its own) */
  g_assert_cmpuint (accel_stage_get_n_processed (sim), ==, 12);
  return accel_checksum_sink_dup_checksums (sink);
}

static GStrv
sim_checksums (
    const char *fault, gboolean stepped, guint64 *restarts, guint64 *skipped)
{
  AccelStage *sim, *sink;
  g_autoptr (AccelGraph) g = sim_graph (&sim, &sink);

  return run_sim (g, sim, sink, fault, stepped, restarts, skipped);
}

static void
assert_same_frames (GStrv got, GStrv want)
{
  g_assert_true (
      g_strv_equal ((const char *const *)got, (const char *const *)want));
}

/* a restart after a failed frame takes the simulation back to its last
 * snapshot. It went on from that state, the failed frame skipped, and
 * every later frame differed from a clean run's; it now makes the frames
 * since the snapshot again, keeping them to itself, and then the failed
 * one: the frames are a clean run's, nothing skipped, run or stepped. A
 * fault in that catch-up starts it again (frames went on twice), and a
 * graph started again after one begins at frame 0 (it began where the
 * catch-up had ended). Without a snapshot (a fault at frame 0, or
 * snapshot-interval 0) it catches up from its initial state */
static void
test_restart_catches_up (void)
{
  guint64 restarts, skipped;
  g_auto (GStrv) clean = sim_checksums (NULL, FALSE, &restarts, &skipped);
  static const struct
  {
    const char *fault;
    guint64 restarts;
  } faults[] = {
    /* frames 5 and 6 made again, then 7 */
    { "sim:library:7", 1 },
    /* frame 4 after a snapshot at 0 (one at 4 its failure kept from
     * being taken) */
    { "sim:library:4", 1 },
    /* frame 5's second making fails (the hang spends its first) */
    { "sim:hang:5,sim:library:5,sim:library:7", 2 },
    /* before the first snapshot: from the state the restart starts in
     * (the frame was skipped) */
    { "sim:library:0", 1 },
  };

  g_assert_cmpuint (g_strv_length (clean), ==, 12);
  g_assert_cmpuint (restarts + skipped, ==, 0);
  for (guint stepped = 0; stepped < 2; stepped++)
    for (guint f = 0; f < G_N_ELEMENTS (faults); f++)
      {
        g_auto (GStrv) got
            = sim_checksums (faults[f].fault, stepped, &restarts, &skipped);

        g_test_message ("%s, %s", faults[f].fault, stepped ? "stepped" : "run");
        g_assert_cmpuint (restarts, ==, faults[f].restarts);
        g_assert_cmpuint (skipped, ==, 0);
        assert_same_frames (got, clean);
      }

  {
    AccelStage *sim, *sink;
    g_autoptr (AccelGraph) g = sim_graph (&sim, &sink);
    g_auto (GStrv) first = NULL, again = NULL;

    first = run_sim (g, sim, sink, "sim:library:7", FALSE, &restarts, &skipped);
    assert_same_frames (first, clean);
    accel_graph_stop (g);
    again = run_sim (g, sim, sink, NULL, FALSE, &restarts, &skipped);
    assert_same_frames (again, clean);
    /* the first run's restart is not this one's */
    g_assert_cmpuint (restarts, ==, 0);
  }

  for (guint stepped = 0; stepped < 2; stepped++)
    {
      AccelStage *sim, *sink;
      g_autoptr (AccelGraph) g = sim_graph (&sim, &sink);
      g_auto (GStrv) got = NULL;

      g_object_set (sim, "snapshot-interval", 0u, NULL);
      got = run_sim (
          g, sim, sink, "sim:library:7", stepped, &restarts, &skipped);
      g_assert_cmpuint (restarts, ==, 1);
      g_assert_cmpuint (skipped, ==, 0);
      assert_same_frames (got, clean);
    }
}

/* the checksums of @n frames of a stepped simulation with snapshots every
 * @interval frames whose curl changes before frame @change_at (0: never),
 * and before each after it too when @every, with @fault (ACCEL_FAULT's syntax,
 * or NULL), as splat draws them (the state's slots past its count hold what its
 * buffer held before); its restarts in @restarts */
static GStrv
stepped_sim (guint n, guint interval, guint change_at, gboolean every,
    const char *fault, guint64 *restarts)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("changes");
  AccelStage *sim = accel_test_stage (g, "realtime.particles", "sim");
  AccelStage *render = accel_test_stage (g, "realtime.splat", "render");
  AccelStage *sink = accel_test_stage (g, "core.checksum-sink", "sink");

  g_object_set (sim, "capacity", 4096u, "emit-rate", 64u, "num-buffers",
      (gint64)n, "collide-radius", 0.01f, "curl", 1.0f, "snapshot-interval",
      interval, NULL);
  g_object_set (render, "width", 64, "height", 48, "scale", 24.0f, NULL);
  g_assert_true (accel_graph_link (g, "sim", "render", &error));
  g_assert_true (accel_graph_link (g, "render", "sink", &error));
  g_assert_true (!fault || accel_fault_inject_parse (fault, &error));
  g_assert_no_error (error);
  accel_graph_set_stepped (g, TRUE);
  g_assert_true (accel_graph_start (g, &error));
  for (guint i = 0; i < n; i++)
    {
      if (change_at && (i == change_at || (every && i > change_at)))
        {
          GValue v = G_VALUE_INIT;

          g_value_init (&v, G_TYPE_FLOAT);
          g_value_set_float (&v, 4.0f - (i % 3));
          g_assert_true (accel_stage_set_param_async (sim, "curl", &v));
        }
      g_assert_true (accel_graph_step (g, 60 * G_USEC_PER_SEC, &error));
      g_assert_no_error (error);
    }
  g_assert_false (accel_graph_step (g, 60 * G_USEC_PER_SEC, &error));
  g_clear_error (&error);
  g_assert_true (accel_graph_wait (g, -1, &error));
  accel_fault_clear ();
  *restarts = accel_stage_get_n_restarts (sim);
  g_assert_cmpuint (accel_stage_get_n_skipped (sim), ==, 0);
  return accel_checksum_sink_dup_checksums (sink);
}

/* a parameter changed since the snapshot a catch-up starts from: the
 * frames it makes again take the values they had (they took the values of
 * now, and every frame from the fault on differed from a clean run's) */
static void
test_catch_up_keeps_parameters (void)
{
  static const struct
  {
    guint interval, change_at;
    const char *fault;
  } cases[] = {
    /* snapshot at 4, the curl changed before frame 6, the fault at 7 */
    { 4, 6, "sim:library:7" },
    /* no snapshot: from the initial state, the change at 3 */
    { 0, 3, "sim:library:7" },
    /* the fault before the change: nothing to set back */
    { 4, 9, "sim:library:6" },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      guint64 restarts;
      g_auto (GStrv) clean = stepped_sim (
          12, cases[c].interval, cases[c].change_at, FALSE, NULL, &restarts);
      g_auto (GStrv) got = stepped_sim (12, cases[c].interval,
          cases[c].change_at, FALSE, cases[c].fault, &restarts);

      g_test_message ("case %u", c);
      g_assert_cmpuint (restarts, ==, 1);
      assert_same_frames (got, clean);
    }
}

/* a catch-up cut short (its second fault past max-restarts fails the
 * graph) leaves each parameter at the value last set (it stayed at the
 * one the catch-up had set back) */
static void
test_catch_up_cut_short (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("cut-short");
  AccelStage *sim = accel_test_stage (g, "realtime.particles", "sim");
  GValue v = G_VALUE_INIT;
  gfloat curl = 0.0f;

  accel_test_stage (g, "core.null-sink", "sink");
  g_object_set (sim, "capacity", 4096u, "num-buffers", (gint64)12, "curl", 1.0f,
      "snapshot-interval", 4u, "max-restarts", 1u, NULL);
  g_assert_true (accel_graph_link (g, "sim", "sink", &error));
  /* frame 7 fails; frame 5, made again to catch up, fails too */
  g_assert_true (accel_fault_inject_parse (
      "sim:library:7,sim:hang:5,sim:library:5", &error));
  accel_graph_set_stepped (g, TRUE);
  g_assert_true (accel_graph_start (g, &error));
  for (guint i = 0; i < 8 && !error; i++)
    {
      if (i == 6)
        {
          g_value_init (&v, G_TYPE_FLOAT);
          g_value_set_float (&v, 4.0f);
          g_assert_true (accel_stage_set_param_async (sim, "curl", &v));
          g_value_unset (&v);
        }
      accel_graph_step (g, 60 * G_USEC_PER_SEC, &error);
    }
  g_assert_nonnull (error);
  g_clear_error (&error);
  accel_graph_stop (g);
  accel_fault_clear ();
  g_object_get (sim, "curl", &curl, NULL);
  g_assert_cmpfloat (curl, ==, 4.0f);
}

/* without snapshots a catch-up takes its own every 100 frames: a fault in
 * it goes back to the last (it went back to frame 0 each time, and faults
 * more often than a catch-up took kept it going for good) */
static void
test_catch_up_takes_snapshots (void)
{
  guint64 restarts;
  g_auto (GStrv) clean = stepped_sim (240, 0, 0, FALSE, NULL, &restarts);
  g_auto (GStrv) got = NULL;

  g_test_expect_message ("accel-stage", G_LOG_LEVEL_MESSAGE,
      "stage 'sim': frame 230 failed (*); the stage restarts; its later "
      "faults are counted");
  g_test_expect_message ("accel-stage", G_LOG_LEVEL_MESSAGE,
      "*restarted after frame 230 failed; its initial state is caught up*");
  g_test_expect_message ("accel-stage", G_LOG_LEVEL_MESSAGE,
      "*restarted after frame 150 failed; its state after frame 100 is "
      "caught up by making frames 101 to 229 again*");
  /* frame 150's first making hangs a moment, its second fails */
  got = stepped_sim (240, 0, 0, FALSE,
      "sim:library:230,sim:hang:150,sim:library:150", &restarts);
  g_test_assert_expected_messages ();
  g_assert_cmpuint (restarts, ==, 2);
  assert_same_frames (got, clean);
}

/* a source without snapshots that keeps 256 parameter changes takes a
 * snapshot for itself, and a catch-up starts there (the changes were kept
 * for the run, two values each, and a catch-up went back to frame 0) */
static void
test_changes_take_snapshots (void)
{
  guint64 restarts;
  g_auto (GStrv) clean = stepped_sim (300, 0, 1, TRUE, NULL, &restarts);
  g_auto (GStrv) got = NULL;

  g_test_expect_message ("accel-stage", G_LOG_LEVEL_MESSAGE,
      "stage 'sim': frame 290 failed (*); the stage restarts; its later "
      "faults are counted");
  g_test_expect_message ("accel-stage", G_LOG_LEVEL_MESSAGE,
      "*restarted after frame 290 failed; its state after frame 256 is "
      "caught up by making frames 257 to 289 again*");
  got = stepped_sim (300, 0, 1, TRUE, "sim:library:290", &restarts);
  g_test_assert_expected_messages ();
  g_assert_cmpuint (restarts, ==, 1);
  assert_same_frames (got, clean);
}

/* the index keeps to twice the particles' cells (or 64 a side), with
 * cells at least two radii wide: a tiny radius asked for 1e12 cells
 * (terabytes) with 64 particles */
static void
test_grid_bounded (void)
{
  static const float lo[3] = { -1.0f, -1.0f, -1.0f }, hi[3] = { 1, 1, 1 };
  static const struct
  {
    guint capacity;
    float radius;
    double most;
  } cases[] = {
    { 64, 0.0001f, 64.0 * 64 * 64 },
    { 1u << 20, 0.005f, 2.0 * (1u << 20) },
    { 4096, 0.05f, 20.0 * 20 * 20 }, /* unbounded: cells of two radii */
    /* a side count past an int: one cell, every pair tested */
    { 64, 4e-10f, 64.0 * 64 * 64 },
    { 64, 1e-30f, 64.0 * 64 * 64 },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      AccelParticlesParams p;

      accel_particles_params_init (&p, cases[c].capacity);
      p.collide_radius = cases[c].radius;
      accel_particles_params_set_grid (&p, lo, hi);
      g_assert_cmpfloat (p.grid.cell, >=, 2.0f * cases[c].radius);
      g_assert_cmpfloat (
          (double)p.grid.dims[0] * p.grid.dims[1] * p.grid.dims[2], <=,
          cases[c].most);
      /* and more than one cell: the grid spans the box */
      for (int a = 0; a < 3; a++)
        g_assert_cmpfloat (p.grid.cell * p.grid.dims[a], >=, hi[a] - lo[a]);
      g_assert_cmpint (p.grid.dims[0], >, 8);
    }
}

/* the stage steps from its last output: a pool of one is refused at start,
 * naming it (every other frame waited out the pool's timeout, and without
 * one the graph waited for good) */
static void
test_pool_of_one_refused (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("pool");
  AccelStage *sim = accel_test_stage (g, "realtime.particles", "sim");

  accel_test_stage (g, "core.null-sink", "sink");
  g_object_set (
      sim, "capacity", 64u, "num-buffers", (gint64)3, "pool-size", 1u, NULL);
  g_assert_true (accel_graph_link (g, "sim", "sink", &error));
  g_assert_false (accel_graph_run (g, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_nonnull (strstr (error->message, "pool-size 1 is too small"));
}

/* a splat takes particles, nothing else */
static void
test_splat_refuses_images (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("wrong");

  accel_test_stage (g, "realtime.fluid", "fluid");
  accel_test_stage (g, "realtime.splat", "render");
  accel_test_stage (g, "core.null-sink", "sink");
  if (accel_graph_link (g, "fluid", "render", &error)
      && accel_graph_link (g, "render", "sink", &error))
    accel_graph_run (g, &error);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH);
}

/* the header's promise: a full system none of whose particles dies next
 * says so for its dt and keeps its static rows' tag from step to step; a
 * death, an emission or another dt takes the promise back */
static void
test_bookkeeping (void)
{
  AccelParticlesParams p;
  AccelParticleState *s;
  Sim sim;
  guint32 dt_bits, tag;

  accel_particles_params_init (&p, 100);
  p.emitter.rate = 25;
  p.emitter.lifetime = 0.2f; /* 12 steps, all born at once die at once */
  p.emitter.lifetime_jitter = 0.0f;
  memcpy (&dt_bits, &p.dt, 4);
  sim_init (&sim, &p);
  for (guint64 k = 0; k < 3; k++)
    {
      s = sim_step (&sim, k);
      /* emitting: the slots change every step */
      g_assert_cmpuint (s->count[0], ==, 25 * (k + 1));
      g_assert_cmphex (s->count[1], ==, dt_bits);
      g_assert_cmphex (s->count[2], !=, 0);
      g_assert_cmphex (s->count[3], !=, 0);
    }
  s = sim_step (&sim, 3);
  g_assert_cmpuint (s->count[0], ==, 100);
  tag = s->count[2];
  /* full: nothing emitted, nothing dies for a while; the tag stays */
  for (guint64 k = 4; k < 10; k++)
    {
      s = sim_step (&sim, k);
      g_assert_cmpuint (s->count[0], ==, 100);
      g_assert_cmphex (s->count[1], ==, dt_bits);
      g_assert_cmphex (s->count[2], ==, tag);
    }
  /* the first 25 die in the step after the next */
  s = sim_step (&sim, 10);
  g_assert_cmphex (s->count[1], ==, 0);
  g_assert_cmphex (s->count[2], ==, tag);
  s = sim_step (&sim, 11);
  g_assert_cmpuint (s->count[0], <, 100);
  g_assert_cmphex (s->count[2], !=, tag);
  sim_clear (&sim);
}

/* after a step with collisions the particles are in cell order (so few
 * and so small that none touches: the push moves nothing) */
static void
test_sorted_by_cell (void)
{
  AccelParticlesParams p;
  static const float lo[3] = { -1.0f, -1.0f, -1.0f }, hi[3] = { 1, 1, 1 };
  AccelParticleState *s;
  Sim sim;

  accel_particles_params_init (&p, 3000);
  p.emitter.rate = 500;
  p.emitter.radius = 0.8f;
  p.emitter.spread = 1.0f;
  p.collide_radius = 0.0005f;
  accel_spatial_grid_init (&p.grid, lo, hi, 0.05f);
  sim_init (&sim, &p);
  for (guint64 k = 0; k < 4; k++)
    {
      s = sim_step (&sim, k);
      g_assert_cmpuint (s->count[0], ==, 500 * (k + 1));
      g_assert_cmphex (s->count[2], ==, 0);
      for (guint32 i = 1; i < s->count[0]; i++)
        g_assert_cmpuint (
            spatial_cell_of (&p.grid, s->px[i - 1], s->py[i - 1], s->pz[i - 1]),
            <=, spatial_cell_of (&p.grid, s->px[i], s->py[i], s->pz[i]));
    }
  sim_clear (&sim);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  accel_backend_set_default (ACCEL_BACKEND_HOST, NULL);
  g_test_add_func ("/particles/count-spawn-kill", test_count_spawn_kill);
  g_test_add_func ("/particles/deterministic", test_deterministic);
  g_test_add_func ("/particles/box-keeps-inside", test_box_keeps_inside);
  g_test_add_func ("/particles/push-apart", test_push_apart);
  g_test_add_func ("/particles/bookkeeping", test_bookkeeping);
  g_test_add_func ("/particles/sorted-by-cell", test_sorted_by_cell);
  g_test_add_func (
      "/spatial/neighbours-brute-force", test_neighbours_brute_force);
  g_test_add_func (
      "/particles/splat-lights-particles", test_splat_lights_particles);
  g_test_add_func ("/particles/stages", test_stages);
  g_test_add_func ("/particles/restart-catches-up", test_restart_catches_up);
  g_test_add_func (
      "/particles/catch-up-keeps-parameters", test_catch_up_keeps_parameters);
  g_test_add_func (
      "/particles/catch-up-takes-snapshots", test_catch_up_takes_snapshots);
  g_test_add_func (
      "/particles/changes-take-snapshots", test_changes_take_snapshots);
  g_test_add_func ("/particles/catch-up-cut-short", test_catch_up_cut_short);
  g_test_add_func ("/particles/grid-bounded", test_grid_bounded);
  g_test_add_func ("/particles/pool-of-one-refused", test_pool_of_one_refused);
  g_test_add_func (
      "/particles/splat-refuses-images", test_splat_refuses_images);
  return g_test_run ();
}
