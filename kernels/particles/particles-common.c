/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* particles: the layout of the state and the working memory, and default
 * parameters */
#include <math.h>
#include <string.h>

#include "particles.h"

enum
{
  ROW_HEADER,
  ROW_PX,
  ROW_PY,
  ROW_PZ,
  ROW_VX,
  ROW_VY,
  ROW_VZ,
  ROW_COLOUR,
  ROW_AGE,
  ROW_LIFE,
};

size_t
accel_particle_state_size (uint32_t capacity)
{
  return (size_t)ACCEL_PARTICLES_ROWS * capacity * sizeof (uint32_t);
}

void
accel_particle_state_init (
    AccelParticleState *s, void *block, uint32_t capacity)
{
  uint32_t *b = block;
  float *f = block;

  s->count = b + (size_t)ROW_HEADER * capacity;
  s->px = f + (size_t)ROW_PX * capacity;
  s->py = f + (size_t)ROW_PY * capacity;
  s->pz = f + (size_t)ROW_PZ * capacity;
  s->vx = f + (size_t)ROW_VX * capacity;
  s->vy = f + (size_t)ROW_VY * capacity;
  s->vz = f + (size_t)ROW_VZ * capacity;
  s->colour = b + (size_t)ROW_COLOUR * capacity;
  s->age = f + (size_t)ROW_AGE * capacity;
  s->life = f + (size_t)ROW_LIFE * capacity;
}

/* whole 256-byte runs, so every array starts aligned */
static size_t
round_words (size_t w)
{
  return (w + 63) & ~(size_t)63;
}

/* words of the step's decisions */
#define CONTROL_WORDS 64

size_t
accel_particles_scratch_size (const AccelParticlesParams *p)
{
  size_t n = (size_t)p->capacity + 1;
  size_t words = 2 * round_words (n)
                 + round_words (accel_spatial_scan_tmp_words (n))
                 + CONTROL_WORDS;
  size_t bytes = words * sizeof (uint32_t);

  if (p->collide_radius > 0.0f)
    bytes += accel_particle_state_size (p->capacity)
             + accel_spatial_index_size (&p->grid, p->capacity);
  return bytes;
}

void
accel_particles_scratch_init (
    AccelParticlesScratch *scratch, void *block, const AccelParticlesParams *p)
{
  uint32_t *b = block;
  size_t n = (size_t)p->capacity + 1;

  memset (scratch, 0, sizeof *scratch);
  scratch->flags = b;
  b += round_words (n);
  scratch->offsets = b;
  b += round_words (n);
  scratch->scan_tmp = b;
  b += round_words (accel_spatial_scan_tmp_words (n));
  scratch->control = b;
  b += CONTROL_WORDS;
  if (p->collide_radius > 0.0f)
    {
      accel_particle_state_init (&scratch->sorted, b, p->capacity);
      b += accel_particle_state_size (p->capacity) / sizeof (uint32_t);
      accel_spatial_index_init (&scratch->index, b, &p->grid, p->capacity);
    }
}

/* about the capacity over a lifetime */
uint32_t
accel_particles_default_emit_rate (uint32_t capacity)
{
  return capacity / 150 > 0 ? capacity / 150 : 1;
}

void
accel_particles_params_init (AccelParticlesParams *p, uint32_t capacity)
{
  static const AccelParticleBox container
      = { { -1.0f, -1.0f, -1.0f }, { 1.0f, 1.0f, 1.0f }, 1 };
  static const float lo[3] = { -1.0f, -1.0f, -1.0f }, hi[3] = { 1, 1, 1 };

  memset (p, 0, sizeof *p);
  p->capacity = capacity;
  p->dt = 1.0f / 60.0f;
  p->seed = 1;
  p->emitter.pos[1] = -0.8f;
  p->emitter.radius = 0.05f;
  p->emitter.dir[1] = 1.0f;
  p->emitter.spread = 0.3f;
  p->emitter.speed = 1.6f;
  p->emitter.lifetime = 2.5f;
  p->emitter.lifetime_jitter = 0.5f;
  p->emitter.colour = 0xff40a0ffu; /* orange, opaque */
  p->emitter.rate = accel_particles_default_emit_rate (capacity);
  p->gravity[1] = -1.0f;
  p->drag = 0.1f;
  p->curl_scale = 2.0f;
  p->restitution = 0.5f;
  p->friction = 0.1f;
  p->n_boxes = 1;
  p->boxes[0] = container;
  accel_particles_params_set_grid (p, lo, hi);
}

void
accel_particles_params_set_grid (
    AccelParticlesParams *p, const float lo[3], const float hi[3])
{
  /* cells of two radii: a push looks at most one cell away, so larger
   * cells are as correct. No more cells than twice the particles (or 64
   * a side): a tiny radius asked for terabytes of index (0.0001), or
   * seconds a step for a few particles */
  float cell = p->collide_radius > 0.0f ? 2.0f * p->collide_radius : 0.1f;
  double most = 2.0 * p->capacity > 64.0 * 64.0 * 64.0 ? 2.0 * p->capacity
                                                       : 64.0 * 64.0 * 64.0;
  double volume = (double)(hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
  /* no smaller than that bound allows, whatever the radius: a cell of
   * 1e-9 made a side count past an int (one cell, every pair tested) */
  float least = (float)cbrt (volume / most);

  if (cell < least)
    cell = least;
  accel_spatial_grid_init (&p->grid, lo, hi, cell);
  while ((double)p->grid.dims[0] * p->grid.dims[1] * p->grid.dims[2] > most)
    {
      cell *= 1.0625f;
      accel_spatial_grid_init (&p->grid, lo, hi, cell);
    }
}
