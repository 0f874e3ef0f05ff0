/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* per-particle arithmetic of the particle system, shared by the kernels and
 * the host reference: hashing, emission, forces, integration, colliders,
 * the push-apart and the splat's colour */
#pragma once

#include <math.h>
#include <stdint.h>

#include "particles.h"
#include "spatial/spatial-grid.h"

#ifdef __CUDACC__
#define PARTICLE_FN __host__ __device__ static inline
#else
#define PARTICLE_FN static inline
#endif

/* comparisons, not fminf/fmaxf: those may order -0 and +0 differently on
 * the two sides */
PARTICLE_FN float
particle_min (float a, float b)
{
  return a < b ? a : b;
}

PARTICLE_FN float
particle_max (float a, float b)
{
  return a > b ? a : b;
}

PARTICLE_FN uint32_t
particle_min_u32 (uint32_t a, uint32_t b)
{
  return a < b ? a : b;
}

/* a 32-bit integer hash (lowbias32) */
PARTICLE_FN uint32_t
particle_hash (uint32_t x)
{
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

/* the key of emission @k of @step */
PARTICLE_FN uint32_t
particle_emit_key (uint32_t seed, uint64_t step, uint32_t k)
{
  uint32_t h = particle_hash (seed ^ 0x9e3779b9u);
  h = particle_hash (h ^ (uint32_t)step);
  h = particle_hash (h ^ (uint32_t)(step >> 32));
  return particle_hash (h ^ k);
}

/* draw @n of a key, uniform in [0, 1) on 24 bits (exact in a float) */
PARTICLE_FN float
particle_rand (uint32_t key, uint32_t n)
{
  return (float)(particle_hash (key + n * 0x9e3779b9u) >> 8)
         * (1.0f / 16777216.0f);
}

PARTICLE_FN float
particle_rand_signed (uint32_t key, uint32_t n)
{
  return particle_rand (key, n) * 2.0f - 1.0f;
}

PARTICLE_FN float
particle_emit_life (const AccelParticleEmitter *e, uint32_t key)
{
  return e->lifetime * (1.0f - e->lifetime_jitter * particle_rand (key, 7));
}

/* a new particle: in the emitter's ball, along its direction scattered by
 * its spread */
PARTICLE_FN void
particle_spawn (const AccelParticleEmitter *e, uint32_t key, float *pos,
    float *vel, float *life)
{
  float o[3], d[3], len2, len;

  /* uniform in the ball: the first of four draws in the cube that falls
   * in it (one in twenty misses all four and lands on the sphere) */
  for (uint32_t t = 0; t < 4; t++)
    {
      for (int a = 0; a < 3; a++)
        o[a] = particle_rand_signed (key, 8u + 3u * t + (uint32_t)a);
      len2 = spatial_dist2 (o[0], o[1], o[2]);
      if (len2 <= 1.0f)
        break;
    }
  if (len2 > 1.0f)
    {
      len = sqrtf (len2);
      for (int a = 0; a < 3; a++)
        o[a] = o[a] / len;
    }
  for (int a = 0; a < 3; a++)
    {
      pos[a] = e->pos[a] + e->radius * o[a];
      d[a] = e->dir[a] + e->spread * particle_rand_signed (key, 3u + a);
    }
  len = sqrtf (spatial_dist2 (d[0], d[1], d[2]));
  for (int a = 0; a < 3; a++)
    vel[a] = len > 1e-6f ? e->speed * (d[a] / len) : e->speed * e->dir[a];
  *life = particle_emit_life (e, key);
}

/* smooth value noise in [-1, 1] on the integer lattice, component @c */
PARTICLE_FN float
particle_lattice (int x, int y, int z, uint32_t c, uint32_t seed)
{
  uint32_t h = particle_hash (seed ^ (c * 0x68e31da4u));
  h = particle_hash (h ^ (uint32_t)x);
  h = particle_hash (h ^ (uint32_t)y);
  h = particle_hash (h ^ (uint32_t)z);
  return (float)(h >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

PARTICLE_FN float
particle_smooth (float t)
{
  return t * t * (3.0f - 2.0f * t);
}

PARTICLE_FN float
particle_lerp (float a, float b, float t)
{
  return a + (b - a) * t;
}

PARTICLE_FN float
particle_noise (float x, float y, float z, uint32_t c, uint32_t seed)
{
  float p[3] = { x, y, z }, f[3], s[3], e[4];
  int i[3];

  for (int a = 0; a < 3; a++)
    {
      /* NaN and far-away points fold onto the lattice's finite part */
      float v = particle_min (particle_max (p[a], -1e6f), 1e6f);
      float fl = floorf (v);
      i[a] = (int)fl;
      f[a] = v - fl;
      s[a] = particle_smooth (f[a]);
    }
  for (int k = 0; k < 4; k++)
    {
      int dy = k & 1, dz = k >> 1;
      e[k] = particle_lerp (
          particle_lattice (i[0], i[1] + dy, i[2] + dz, c, seed),
          particle_lattice (i[0] + 1, i[1] + dy, i[2] + dz, c, seed), s[0]);
    }
  return particle_lerp (
      particle_lerp (e[0], e[1], s[1]), particle_lerp (e[2], e[3], s[1]), s[2]);
}

/* the curl of a noise vector potential: divergence free, so it swirls
 * without gathering particles; central differences of step h (in lattice
 * cells), 1 / 2h = 50 */
PARTICLE_FN void
particle_curl (
    const AccelParticlesParams *p, float x, float y, float z, float *out)
{
  const float h = 0.01f, inv = 50.0f;
  float s = p->curl_scale;
  uint32_t seed = p->seed;
  float X = x * s, Y = y * s, Z = z * s;
  /* d(component c)/d(axis) */
  float dzdy = particle_noise (X, Y + h, Z, 2, seed)
               - particle_noise (X, Y - h, Z, 2, seed);
  float dydz = particle_noise (X, Y, Z + h, 1, seed)
               - particle_noise (X, Y, Z - h, 1, seed);
  float dxdz = particle_noise (X, Y, Z + h, 0, seed)
               - particle_noise (X, Y, Z - h, 0, seed);
  float dzdx = particle_noise (X + h, Y, Z, 2, seed)
               - particle_noise (X - h, Y, Z, 2, seed);
  float dydx = particle_noise (X + h, Y, Z, 1, seed)
               - particle_noise (X - h, Y, Z, 1, seed);
  float dxdy = particle_noise (X, Y + h, Z, 0, seed)
               - particle_noise (X, Y - h, Z, 0, seed);

  out[0] = (dzdy - dydz) * inv;
  out[1] = (dxdz - dzdx) * inv;
  out[2] = (dydx - dxdy) * inv;
}

/* a bounce off a surface of unit normal n: the normal velocity reversed
 * and scaled by the restitution, the tangential one reduced by friction */
PARTICLE_FN void
particle_bounce (const AccelParticlesParams *p, const float *n, float *v)
{
  float keep = 1.0f - p->friction;
  float vn = v[0] * n[0] + v[1] * n[1];

  vn = vn + v[2] * n[2];
  if (!(vn < 0.0f))
    return;
  for (int a = 0; a < 3; a++)
    {
      float vna = vn * n[a];
      float vt = v[a] - vna;
      v[a] = vt * keep - p->restitution * vna;
    }
}

PARTICLE_FN void
particle_collide (const AccelParticlesParams *p, float *x, float *v)
{
  for (int k = 0; k < p->n_planes; k++)
    {
      const AccelParticlePlane *pl = &p->planes[k];
      float n[3] = { pl->nx, pl->ny, pl->nz };
      float dist = x[0] * n[0] + x[1] * n[1];
      dist = dist + x[2] * n[2];
      dist = dist - pl->d;
      if (dist < 0.0f)
        {
          for (int a = 0; a < 3; a++)
            x[a] = x[a] - dist * n[a];
          particle_bounce (p, n, v);
        }
    }
  for (int k = 0; k < p->n_boxes; k++)
    {
      const AccelParticleBox *b = &p->boxes[k];
      if (b->inside)
        {
          for (int a = 0; a < 3; a++)
            {
              float n[3] = { 0.0f, 0.0f, 0.0f };
              if (x[a] < b->lo[a])
                {
                  x[a] = b->lo[a];
                  n[a] = 1.0f;
                  particle_bounce (p, n, v);
                }
              else if (x[a] > b->hi[a])
                {
                  x[a] = b->hi[a];
                  n[a] = -1.0f;
                  particle_bounce (p, n, v);
                }
            }
        }
      else
        {
          /* inside an obstacle: out through the nearest face */
          float best = 0.0f, n[3] = { 0.0f, 0.0f, 0.0f };
          int axis = -1, in = 1;
          for (int a = 0; a < 3; a++)
            in = in && x[a] > b->lo[a] && x[a] < b->hi[a];
          if (!in)
            continue;
          for (int a = 0; a < 3; a++)
            {
              float lo = x[a] - b->lo[a], hi = b->hi[a] - x[a];
              if (axis < 0 || lo < best)
                {
                  best = lo;
                  axis = a * 2;
                }
              if (hi < best)
                {
                  best = hi;
                  axis = a * 2 + 1;
                }
            }
          n[axis / 2] = axis & 1 ? 1.0f : -1.0f;
          x[axis / 2] = axis & 1 ? b->hi[axis / 2] : b->lo[axis / 2];
          particle_bounce (p, n, v);
        }
    }
}

/* forces, semi-implicit Euler (velocity first, then position with the new
 * velocity), colliders */
PARTICLE_FN void
particle_integrate (const AccelParticlesParams *p, float *x, float *v)
{
  float acc[3], damp;

  for (int a = 0; a < 3; a++)
    acc[a] = p->gravity[a];
  for (int k = 0; k < p->n_attractors; k++)
    {
      const AccelParticleAttractor *at = &p->attractors[k];
      float d[3] = { at->x - x[0], at->y - x[1], at->z - x[2] };
      float d2 = spatial_dist2 (d[0], d[1], d[2]);
      if (d2 < at->radius * at->radius && d2 > 1e-12f)
        {
          float dist = sqrtf (d2);
          float w = at->strength * (1.0f - dist / at->radius) / dist;
          for (int a = 0; a < 3; a++)
            acc[a] = acc[a] + d[a] * w;
        }
    }
  if (p->curl_strength != 0.0f)
    {
      float c[3];
      particle_curl (p, x[0], x[1], x[2], c);
      for (int a = 0; a < 3; a++)
        acc[a] = acc[a] + c[a] * p->curl_strength;
    }
  damp = particle_max (1.0f - p->drag * p->dt, 0.0f);
  for (int a = 0; a < 3; a++)
    {
      v[a] = (v[a] + acc[a] * p->dt) * damp;
      x[a] = x[a] + v[a] * p->dt;
    }
  particle_collide (p, x, v);
}

/* the alive count of a step: the survivors of @n_in plus what the emitter
 * adds to the free slots */
PARTICLE_FN uint32_t
particle_n_total (const AccelParticlesParams *p, uint32_t n_in)
{
  uint32_t free_slots = n_in < p->capacity ? p->capacity - n_in : 0;
  uint32_t n_emit = p->emitter.rate < free_slots ? p->emitter.rate : free_slots;
  return n_in + n_emit;
}

/* whether slot @i lives through @step */
PARTICLE_FN uint32_t
particle_survives (const AccelParticlesParams *p, uint64_t step,
    const AccelParticleState *in, uint32_t n_in, uint32_t i)
{
  if (i < n_in)
    return in->age[i] + p->dt < in->life[i];
  return p->dt < particle_emit_life (
             &p->emitter, particle_emit_key (p->seed, step, i - n_in));
}

/* the header's words after the count */
#define PARTICLE_HEADER_VERIFIED 1 /* dt bits no particle dies in, 0: none */
#define PARTICLE_HEADER_TAG 2      /* the static rows' layout, 0: none */
#define PARTICLE_HEADER_CHECK 3    /* the tag's check word */

PARTICLE_FN uint32_t
particle_float_bits (float f)
{
  union
  {
    float f;
    uint32_t u;
  } b;

  b.f = f;
  return b.u;
}

PARTICLE_FN uint32_t
particle_tag_check (uint32_t tag)
{
  return particle_hash (tag ^ 0x2545f491u);
}

/* whether @s's header names the layout of its colour and lifetime rows (a
 * zeroed or stray header does not) */
PARTICLE_FN int
particle_tag_valid (const AccelParticleState *s)
{
  uint32_t tag = s->count[PARTICLE_HEADER_TAG];

  return tag != 0
         && s->count[PARTICLE_HEADER_CHECK] == particle_tag_check (tag);
}

/* a step that compacts nothing: every particle of @in lives on (its step
 * said so, for this dt) and nothing is emitted */
PARTICLE_FN int
particle_step_keeps_slots (
    const AccelParticlesParams *p, const AccelParticleState *in, uint32_t n_in)
{
  uint32_t dt = particle_float_bits (p->dt);

  return particle_n_total (p, n_in) == n_in && dt != 0
         && in->count[PARTICLE_HEADER_VERIFIED] == dt;
}

/* the tag of the step's output: the input's where the slots stay, a new
 * one where they change (hashed from what decides them), none where
 * collisions sort the particles by position */
PARTICLE_FN uint32_t
particle_step_tag (const AccelParticlesParams *p, uint64_t step,
    const AccelParticleState *in, uint32_t n_in, int keeps_slots)
{
  uint32_t h;

  if (p->collide_radius > 0.0f)
    return 0;
  if (keeps_slots && particle_tag_valid (in))
    return in->count[PARTICLE_HEADER_TAG];
  /* a stray header's words leave no trace */
  h = particle_tag_valid (in) ? in->count[PARTICLE_HEADER_TAG] : 0;
  h = particle_hash (h ^ 0x51ed270bu);
  h = particle_hash (h ^ (uint32_t)step);
  h = particle_hash (h ^ (uint32_t)(step >> 32));
  h = particle_hash (h ^ particle_float_bits (p->dt));
  h = particle_hash (h ^ p->seed);
  h = particle_hash (h ^ n_in);
  h = particle_hash (h ^ particle_n_total (p, n_in));
  return h != 0 ? h : 1u;
}

/* whether the step must write the colour and lifetime rows: unless the
 * slots stay and @out already holds @in's */
PARTICLE_FN int
particle_step_writes_static (const AccelParticleState *in,
    const AccelParticleState *out, int keeps_slots)
{
  return !(
      keeps_slots && particle_tag_valid (in)
      && out->count[PARTICLE_HEADER_TAG] == in->count[PARTICLE_HEADER_TAG]
      && out->count[PARTICLE_HEADER_CHECK] == in->count[PARTICLE_HEADER_CHECK]);
}

/* slot @i of the step into slot @o of @out, its colour and lifetime too if
 * @write_static; whether it dies in the next step if that has the same dt */
PARTICLE_FN uint32_t
particle_step_one (const AccelParticlesParams *p, uint64_t step,
    const AccelParticleState *in, uint32_t n_in, uint32_t i,
    const AccelParticleState *out, uint32_t o, int write_static)
{
  float x[3], v[3], age, life;
  uint32_t colour = 0;

  if (i < n_in)
    {
      x[0] = in->px[i];
      x[1] = in->py[i];
      x[2] = in->pz[i];
      v[0] = in->vx[i];
      v[1] = in->vy[i];
      v[2] = in->vz[i];
      age = in->age[i];
      life = in->life[i];
      if (write_static)
        colour = in->colour[i];
    }
  else
    {
      particle_spawn (&p->emitter, particle_emit_key (p->seed, step, i - n_in),
          x, v, &life);
      age = 0.0f;
      colour = p->emitter.colour;
    }
  particle_integrate (p, x, v);
  age = age + p->dt;
  out->px[o] = x[0];
  out->py[o] = x[1];
  out->pz[o] = x[2];
  out->vx[o] = v[0];
  out->vy[o] = v[1];
  out->vz[o] = v[2];
  out->age[o] = age;
  if (write_static)
    {
      out->life[o] = life;
      out->colour[o] = colour;
    }
  return !(age + p->dt < life);
}

/* particle @k of @sorted (the particles in the index's order) pushed apart
 * from its neighbours closer than two radii, half the overlap each, summed
 * in the index's order; then kept out of the colliders, into slot @k of
 * @out */
PARTICLE_FN void
particle_push_commit (const AccelParticlesParams *p,
    const AccelParticleState *sorted, const AccelSpatialIndex *ix, uint32_t k,
    const AccelParticleState *out)
{
  const AccelParticleState *s = sorted;
  float x[3] = { s->px[k], s->py[k], s->pz[k] };
  float v[3] = { s->vx[k], s->vy[k], s->vz[k] };
  float reach = 2.0f * p->collide_radius, c[3] = { 0.0f, 0.0f, 0.0f };
  AccelSpatialIter it;
  uint32_t j;

  spatial_iter_begin (&it, &p->grid, x[0], x[1], x[2], reach);
  while (spatial_iter_next_slot (&it, &p->grid, ix->cell_start, &j))
    {
      float d[3] = { x[0] - s->px[j], x[1] - s->py[j], x[2] - s->pz[j] };
      float d2 = spatial_dist2 (d[0], d[1], d[2]);
      if (j != k && d2 < reach * reach && d2 > 0.0f)
        {
          float dist = sqrtf (d2);
          float w = 0.5f * (reach - dist) / dist;
          for (int a = 0; a < 3; a++)
            c[a] = c[a] + d[a] * w;
        }
    }
  for (int a = 0; a < 3; a++)
    x[a] = x[a] + c[a];
  particle_collide (p, x, v);
  out->px[k] = x[0];
  out->py[k] = x[1];
  out->pz[k] = x[2];
  out->vx[k] = v[0];
  out->vy[k] = v[1];
  out->vz[k] = v[2];
  out->colour[k] = s->colour[k];
  out->age[k] = s->age[k];
  out->life[k] = s->life[k];
}

/* particle @i of @from into slot @k of @to, every row */
PARTICLE_FN void
particle_copy (const AccelParticleState *from, uint32_t i,
    const AccelParticleState *to, uint32_t k)
{
  to->px[k] = from->px[i];
  to->py[k] = from->py[i];
  to->pz[k] = from->pz[i];
  to->vx[k] = from->vx[i];
  to->vy[k] = from->vy[i];
  to->vz[k] = from->vz[i];
  to->colour[k] = from->colour[i];
  to->age[k] = from->age[i];
  to->life[k] = from->life[i];
}

/* accumulation units: 1/256 of an 8-bit level; a channel this far past
 * full takes no more adds, so it cannot wrap (it resolves to 255 anyway) */
#define PARTICLE_SPLAT_SATURATED (1u << 30)

/* what a particle adds to each channel of a pixel */
PARTICLE_FN void
particle_splat_amount (const AccelSplatParams *sp, uint32_t colour, float age,
    float life, uint32_t *add)
{
  float t = life > 0.0f ? age / life : 1.0f;
  uint32_t w = (uint32_t)(particle_min (particle_max (t, 0.0f), 1.0f) * 256.0f);
  uint32_t gain
      = (uint32_t)(particle_min (particle_max (sp->gain, 0.0f), 16.0f) * 256.0f
                   + 0.5f);
  uint32_t c[4];

  for (int k = 0; k < 4; k++)
    {
      uint32_t c0 = (colour >> (8 * k)) & 0xffu;
      uint32_t c1 = (sp->end_colour >> (8 * k)) & 0xffu;
      c[k] = (c0 * (256u - w) + c1 * w) >> 8;
    }
  /* premultiplied by the faded alpha */
  for (int k = 0; k < 3; k++)
    add[k] = c[k] * c[3] * gain / 255u;
  add[3] = c[3] * gain;
}

/* the pixel a position falls in; FALSE when the point's disc misses the
 * frame */
PARTICLE_FN int
particle_splat_pixel (
    const AccelSplatParams *sp, float x, float y, int *px, int *py)
{
  float fx = (x - sp->center_x) * sp->scale + (float)sp->width * 0.5f;
  float fy = (sp->center_y - y) * sp->scale + (float)sp->height * 0.5f;
  float r = (float)sp->point_size + 1.0f;

  if (!(fx > -r && fx < (float)sp->width + r && fy > -r
          && fy < (float)sp->height + r))
    return 0;
  *px = (int)floorf (fx);
  *py = (int)floorf (fy);
  return 1;
}

PARTICLE_FN uint32_t
particle_splat_resolve (uint32_t acc)
{
  uint32_t v = (acc + 128u) >> 8;
  return v > 255u ? 255u : v;
}
