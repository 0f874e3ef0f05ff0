/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* realtime.neighbours against brute force: shared by the host and gpu
 * suites */
#pragma once

#include "accel-test.h"
#include "particles/particles.h"

#define NEIGHBOURS_FRAMES 6
#define NEIGHBOURS_CAPACITY 512

/* the neighbours of particle i of the first @n: the others within @radius,
 * with the kernels' own distance (x, y, then z summed, no contraction) */
static inline guint32
test_neighbours_brute (
    const AccelParticleState *s, guint32 n, guint32 i, float radius)
{
  guint32 c = 0;

  for (guint32 j = 0; j < n; j++)
    {
      volatile float dx = s->px[j] - s->px[i], dy = s->py[j] - s->py[i],
                     dz = s->pz[j] - s->pz[i];
      volatile float xy = dx * dx + dy * dy;
      volatile float d2 = xy + dz * dz;
      c += j != i && d2 <= radius * radius;
    }
  return c;
}

static inline AccelBuffer *
test_neighbours_pull (AccelStage *sink)
{
  AccelBuffer *buf = NULL;

  g_signal_emit_by_name (
      sink, "pull-buffer", (gint64)(30 * G_USEC_PER_SEC), &buf);
  g_assert_nonnull (buf);
  return buf;
}

/* realtime.particles fanned out to realtime.neighbours and an app-sink:
 * each frame's counts against brute force on that frame's state; the
 * radius changes between frames while running. Returns the sum of every
 * count, so a caller can tell the counts were not all 0 */
static inline guint64
test_neighbours_stage_run (void)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("neighbours");
  g_autoptr (GError) error = NULL;
  AccelStage *sim = accel_test_stage (g, "realtime.particles", "sim");
  AccelStage *nb = accel_test_stage (g, "realtime.neighbours", "nb");
  AccelStage *states = accel_test_stage (g, "io.app-sink", "states");
  AccelStage *counts = accel_test_stage (g, "io.app-sink", "counts");
  guint64 total = 0;

  g_object_set (sim, "capacity", NEIGHBOURS_CAPACITY, "emit-rate", 120,
      "num-buffers", (gint64)NEIGHBOURS_FRAMES, NULL);
  g_object_set (nb, "radius", 0.1f, NULL);
  g_object_set (states, "max-buffers", NEIGHBOURS_FRAMES, NULL);
  g_object_set (counts, "max-buffers", NEIGHBOURS_FRAMES, NULL);
  g_assert_true (accel_graph_link (g, "sim", "nb", &error));
  g_assert_true (accel_graph_link (g, "sim", "states", &error));
  g_assert_true (accel_graph_link (g, "nb", "counts", &error));
  g_assert_no_error (error);
  accel_graph_set_stepped (g, TRUE);
  g_assert_true (accel_graph_start (g, &error));
  g_assert_no_error (error);

  for (guint f = 0; f < NEIGHBOURS_FRAMES; f++)
    {
      /* a wider radius from frame 3 on: applies exactly at that frame */
      float radius = f < 3 ? 0.1f : 0.3f;
      g_autoptr (AccelBuffer) state = NULL;
      g_autoptr (AccelBuffer) got = NULL;
      AccelParticleState s;
      const guint32 *c;
      guint32 n;

      if (f == 3)
        {
          GValue v = G_VALUE_INIT;
          g_value_init (&v, G_TYPE_FLOAT);
          g_value_set_float (&v, radius);
          g_assert_true (accel_stage_set_param_async (nb, "radius", &v));
        }
      g_assert_true (accel_graph_step (g, 30 * G_USEC_PER_SEC, &error));
      g_assert_no_error (error);
      state = test_neighbours_pull (states);
      got = test_neighbours_pull (counts);
      g_assert_cmpuint (accel_buffer_get_size (got), ==,
          NEIGHBOURS_CAPACITY * sizeof (guint32));
      accel_particle_state_init (
          &s, accel_buffer_get_data (state), NEIGHBOURS_CAPACITY);
      n = *s.count;
      g_assert_cmpuint (n, >, 0);
      g_assert_cmpuint (n, <=, NEIGHBOURS_CAPACITY);
      c = accel_buffer_get_data (got);
      for (guint32 i = 0; i < n; i++)
        {
          g_assert_cmpuint (c[i], ==, test_neighbours_brute (&s, n, i, radius));
          total += c[i];
        }
      for (guint32 i = n; i < NEIGHBOURS_CAPACITY; i++)
        g_assert_cmpuint (c[i], ==, 0);
    }
  accel_graph_stop (g);
  return total;
}
