/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* particle updates per second at 1M, 10M and 50M particles: without
 * collisions in a full system where nothing dies (no compaction), the same
 * while particles die and are emitted every step (compaction each step),
 * and with particle-particle collisions; the first's achieved bandwidth
 * against a device-to-device copy measured in the same run */
#include <cuda_runtime_api.h>
#include <math.h>

#include "accel-test.h"
#include "bench-timing.h"
#include "particles/particles.h"

/* what a step moves per particle when nothing dies and nothing is emitted:
 * position, velocity, age and lifetime read; position, velocity and age
 * written (the colour and lifetime rows are already in the output) */
#define STEADY_BYTES_PER_PARTICLE (32 + 28)

enum
{
  PLAIN,      /* nothing dies */
  COMPACTING, /* some die and are replaced every step */
  COLLIDING,
};

typedef struct
{
  AccelParticlesParams p;
  AccelParticleState s[2];
  AccelParticlesScratch scratch;
  int cur;
  guint64 step;
  void *src, *dst;
  size_t bytes;
} Case;

static void
step (cudaStream_t s, void *data)
{
  Case *c = data;

  accel_particles_step (
      s, &c->p, c->step++, &c->s[c->cur], &c->s[!c->cur], &c->scratch);
  c->cur = !c->cur;
}

static void
copy (cudaStream_t s, void *data)
{
  Case *c = data;

  cudaMemcpyAsync (c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, s);
}

/* @n particles in the box, all alive for the whole run (COMPACTING: each
 * living 10 to 20 steps, replaced as they die), then timed */
static float
run (cudaStream_t s, guint32 n, int mode, guint32 *alive)
{
  gboolean collide = mode == COLLIDING;
  static const float lo[3] = { -1.0f, -1.0f, -1.0f }, hi[3] = { 1, 1, 1 };
  Case c = { 0 };
  void *blocks[3];
  float ms;

  accel_particles_params_init (&c.p, n);
  c.p.emitter.rate = n;
  c.p.emitter.pos[1] = 0.0f;
  c.p.emitter.radius = 1.0f;
  c.p.emitter.spread = 1.0f;
  c.p.emitter.speed = 0.2f;
  c.p.emitter.lifetime = 1e9f;
  c.p.emitter.lifetime_jitter = 0.0f;
  c.p.gravity[1] = -0.1f;
  /* about one particle per cell */
  c.p.collide_radius = collide ? 0.5f * cbrtf (8.0f / (float)n) : 0.0f;
  accel_particles_params_set_grid (&c.p, lo, hi);
  cudaMalloc (&blocks[0], accel_particle_state_size (n));
  cudaMalloc (&blocks[1], accel_particle_state_size (n));
  cudaMalloc (&blocks[2], accel_particles_scratch_size (&c.p));
  /* no particles, no bookkeeping */
  cudaMemset (blocks[0], 0, 4 * sizeof (guint32));
  /* before the steps on the non-blocking stream */
  cudaDeviceSynchronize ();
  accel_particle_state_init (&c.s[0], blocks[0], n);
  accel_particle_state_init (&c.s[1], blocks[1], n);
  accel_particles_scratch_init (&c.scratch, blocks[2], &c.p);
  if (mode == COMPACTING)
    {
      c.p.emitter.lifetime = 20.0f * c.p.dt;
      c.p.emitter.lifetime_jitter = 0.5f;
    }
  step (s, &c); /* fills the capacity */
  if (mode != COMPACTING)
    c.p.emitter.rate = 0;
  ms = bench_time_ms (s, 10, step, &c);
  cudaMemcpy (
      alive, c.s[c.cur].count, sizeof (guint32), cudaMemcpyDeviceToHost);
  for (int i = 0; i < 3; i++)
    cudaFree (blocks[i]);
  return ms;
}

static float
copy_ms (cudaStream_t s, size_t bytes)
{
  Case c = { 0 };
  float ms;

  c.bytes = bytes;
  cudaMalloc (&c.src, bytes);
  cudaMalloc (&c.dst, bytes);
  ms = bench_time_ms (s, 10, copy, &c);
  cudaFree (c.src);
  cudaFree (c.dst);
  return ms;
}

int
main (int argc, char **argv)
{
  guint32 sizes[] = { 1000000, 10000000, 50000000 };
  /* the steady step at 50M particles aims at this many updates a second */
  const float target = 4e10f;
  float steady_50m = 0.0f;
  cudaStream_t s;

  accel_test_require_gpu ();
  cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking);
  g_print ("%10s %11s %14s %9s %10s %14s\n", "particles", "step", "updates/s",
      "ms/step", "GB/s", "copy-fraction");
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      static const char *names[] = { "steady", "compacting", "colliding" };
      guint32 n = sizes[i], alive = 0;
      /* a copy of the state: read once, written once */
      size_t state = accel_particle_state_size (n);
      float cms = copy_ms (s, state);
      float copy_gbs = 2.0f * (float)state / cms / 1e6f;

      for (int mode = PLAIN; mode <= COLLIDING; mode++)
        {
          float ms = run (s, n, mode, &alive);
          float gbs = (float)STEADY_BYTES_PER_PARTICLE * n / ms / 1e6f;
          float updates = 1000.0f * n / ms;

          if (mode == PLAIN && n == 50000000)
            steady_50m = updates;
          if (mode == PLAIN)
            g_print ("%10u %11s %14.3e %9.3f %10.0f %13.0f%%\n", alive,
                names[mode], updates, ms, gbs, 100.0f * gbs / copy_gbs);
          else
            g_print ("%10u %11s %14.3e %9.3f %10s %14s\n", alive, names[mode],
                updates, ms, "-", "-");
        }
    }
  g_print ("\ntarget: the steady step at 50M particles at %.1e updates/s "
           "or more: %s (%.3e)\n",
      target, steady_50m >= target ? "met" : "not met", steady_50m);
  cudaStreamDestroy (s);
  return 0;
}
