/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* particle system: emission, forces (gravity, drag, attractors, curl
 * noise), semi-implicit Euler, collisions with planes, boxes and (through
 * the spatial index) each other, death by age with stream compaction, and an
 * additive splat render to RGBA8
 *
 * Particles live in 3D: the forces and colliders read naturally in space,
 * and the splat is an orthographic view along z, so a flat system is simply
 * one whose particles keep z = 0 (no z velocity, no z forces).
 *
 * The state is structure of arrays in one block of ACCEL_PARTICLES_ROWS rows
 * of @capacity 32-bit words: a header row, then position, velocity, colour,
 * age and lifetime. The alive particles are always the first *count slots;
 * the count lives in the block, so steps and renders run back to back with
 * no host sync: launches cover the capacity and skip what is past the
 * count.
 *
 * The header row holds the alive count, then a step's bookkeeping, which
 * lets the next step skip work: the bits of the dt for which no particle
 * dies in the next step (0: not known), and a tag naming the layout of the
 * colour and lifetime rows with its check word. A step from a state whose
 * particles all live on and with nothing to emit moves each particle to
 * its own slot (no compaction), and writes no colour or lifetime into an
 * output whose tag says it already holds them. A state written other than
 * by a step must have words 1 to 3 of its header zero (a zeroed block
 * does).
 *
 * With collisions, a step leaves the particles in the spatial index's
 * order (by cell, then by their order before), so the neighbours a
 * particle reads are next to it in memory.
 *
 * GPU and host compute each particle with the same functions
 * (particles-update.h), in the same order, with no contraction and IEEE
 * division and square root, emission randomness hashed from (seed, step,
 * emission number) and noise hashed from the lattice; the compaction keeps
 * order and the spatial index is stable, so a GPU step equals a host step
 * bit for bit, header and particle-particle collisions included. The splat
 * adds integers, so its frame is exact too. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "spatial/spatial.h"

#ifdef __cplusplus
extern "C"
{
#endif

#define ACCEL_PARTICLES_ROWS 10
/* the header row needs these many words */
#define ACCEL_PARTICLES_MIN_CAPACITY 16
#define ACCEL_PARTICLES_MAX_ATTRACTORS 4
#define ACCEL_PARTICLES_MAX_PLANES 4
#define ACCEL_PARTICLES_MAX_BOXES 4

  /* pulls towards (x, y, z) within @radius, fading to 0 at the edge;
   * negative @strength pushes away */
  typedef struct
  {
    float x, y, z, strength, radius;
  } AccelParticleAttractor;

  /* keeps particles where nx x + ny y + nz z >= d (n of unit length) */
  typedef struct
  {
    float nx, ny, nz, d;
  } AccelParticlePlane;

  /* an axis-aligned box: with @inside set, particles stay in it (a
   * container); otherwise they stay out of it (an obstacle) */
  typedef struct
  {
    float lo[3], hi[3];
    int inside;
  } AccelParticleBox;

  /* a ball of @radius around @pos that emits @rate particles per step
   * along @dir (unit length), scattered by @spread (0: a jet, 1: wide),
   * at @speed; lifetimes in [lifetime * (1 - lifetime_jitter), lifetime] */
  typedef struct
  {
    float pos[3], radius;
    float dir[3], spread, speed;
    float lifetime, lifetime_jitter;
    uint32_t colour; /* RGBA8, R in the low byte */
    uint32_t rate;
  } AccelParticleEmitter;

  typedef struct
  {
    uint32_t capacity;
    float dt;
    uint32_t seed;
    AccelParticleEmitter emitter;
    float gravity[3];
    float drag; /* velocity lost per unit time, as a fraction */
    int n_attractors;
    AccelParticleAttractor attractors[ACCEL_PARTICLES_MAX_ATTRACTORS];
    float curl_strength; /* acceleration of the curl noise, 0: off */
    float curl_scale;    /* noise lattice cells per unit */
    float restitution;   /* normal velocity kept by a bounce */
    float friction;      /* tangential velocity lost by a bounce */
    int n_planes;
    AccelParticlePlane planes[ACCEL_PARTICLES_MAX_PLANES];
    int n_boxes;
    AccelParticleBox boxes[ACCEL_PARTICLES_MAX_BOXES];
    /* particle-particle collisions: particles closer than twice this are
     * pushed apart; 0: off. @grid must then have cells of at least twice
     * the radius, over the region where particles are */
    float collide_radius;
    AccelSpatialGrid grid;
  } AccelParticlesParams;

  /* device or host memory, laid out by accel_particle_state_init */
  typedef struct
  {
    uint32_t *count; /* the header row: alive particles */
    float *px, *py, *pz;
    float *vx, *vy, *vz;
    uint32_t *colour; /* RGBA8 at birth */
    float *age, *life;
  } AccelParticleState;

  /* working memory of a step, laid out by accel_particles_scratch_init */
  typedef struct
  {
    /* capacity + 1 each: whether each slot survives and where it goes
     * (on the GPU, survivors and offsets per block of slots) */
    uint32_t *flags, *offsets;
    uint32_t *scan_tmp;
    uint32_t *control; /* the step's decisions, for its later kernels */
    /* with collisions: the particles in the index's order */
    AccelParticleState sorted;
    AccelSpatialIndex index;
  } AccelParticlesScratch;

  size_t accel_particle_state_size (uint32_t capacity);
  void accel_particle_state_init (
      AccelParticleState *s, void *block, uint32_t capacity);
  /* bytes of a step's working memory for @p's capacity and grid */
  size_t accel_particles_scratch_size (const AccelParticlesParams *p);
  void accel_particles_scratch_init (AccelParticlesScratch *scratch,
      void *block, const AccelParticlesParams *p);

  /* one step from @in to @out (distinct blocks of the same capacity):
   * emits into the free slots, moves, collides, ages and drops the dead,
   * keeping the survivors' order (with collisions, then sorting them by
   * cell); @step feeds the emission's randomness. Launcher returns a
   * cudaError_t, host reference 0 */
  int accel_particles_step (void *stream, const AccelParticlesParams *p,
      uint64_t step, const AccelParticleState *in,
      const AccelParticleState *out, const AccelParticlesScratch *scratch);
  int accel_particles_step_host (const AccelParticlesParams *p, uint64_t step,
      const AccelParticleState *in, const AccelParticleState *out,
      const AccelParticlesScratch *scratch);

  /* an orthographic view along z: world (center_x, center_y) at the frame's
   * centre, @scale pixels per unit, y up. Each particle lights the pixels
   * within @point_size of it (0: one pixel) with its colour faded towards
   * @end_colour and transparent by age; additive, times @gain */
  typedef struct
  {
    int width, height;
    float center_x, center_y, scale;
    int point_size;
    uint32_t end_colour; /* RGBA8, R in the low byte */
    float gain;
  } AccelSplatParams;

  /* words of the accumulation buffer: width * height * 4 */
  size_t accel_particles_splat_accum_size (const AccelSplatParams *sp);
  int accel_particles_splat (void *stream, const AccelSplatParams *sp,
      const AccelParticleState *s, uint32_t capacity, uint32_t *accum,
      uint8_t *rgba, size_t pitch);
  int accel_particles_splat_host (const AccelSplatParams *sp,
      const AccelParticleState *s, uint32_t capacity, uint32_t *accum,
      uint8_t *rgba, size_t pitch);

  /* a particle system of @capacity that starts empty, with defaults: an
   * emitter at the origin shooting up, gravity down, a container box
   * [-1, 1]^3, no attractors, no curl, no particle-particle collisions */
  void accel_particles_params_init (AccelParticlesParams *p, uint32_t capacity);
  /* the emitter's rate by default: about the capacity over a lifetime */
  uint32_t accel_particles_default_emit_rate (uint32_t capacity);
  /* a grid over the container box for particle-particle collisions of
   * p->collide_radius (sets p->grid) */
  void accel_particles_params_set_grid (
      AccelParticlesParams *p, const float lo[3], const float hi[3]);

#ifdef __cplusplus
}
#endif
