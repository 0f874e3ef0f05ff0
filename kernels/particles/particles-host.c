/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* particles: the host reference, pass for pass as on the GPU */
#include <string.h>

#include "particles-update.h"
#include "particles.h"

int
accel_particles_step_host (const AccelParticlesParams *p, uint64_t step,
    const AccelParticleState *in, const AccelParticleState *out,
    const AccelParticlesScratch *scratch)
{
  uint32_t cap = p->capacity, n_in = particle_min_u32 (in->count[0], cap);
  uint32_t n_total = particle_n_total (p, n_in), dies = 0;
  int keeps = particle_step_keeps_slots (p, in, n_in);
  uint32_t tag = particle_step_tag (p, step, in, n_in, keeps);

  /* the GPU skips what the bookkeeping allows; the host computes it all,
   * to the same result */
  for (uint32_t i = 0; i < cap; i++)
    scratch->flags[i] = i < n_total && particle_survives (p, step, in, n_in, i);
  scratch->flags[cap] = 0;
  accel_spatial_exclusive_scan_host (
      scratch->flags, scratch->offsets, (size_t)cap + 1);
  for (uint32_t i = 0; i < n_total; i++)
    if (scratch->flags[i])
      dies |= particle_step_one (
          p, step, in, n_in, i, out, scratch->offsets[i], 1);
  out->count[0] = scratch->offsets[cap];
  out->count[PARTICLE_HEADER_VERIFIED] = dies ? 0 : particle_float_bits (p->dt);
  out->count[PARTICLE_HEADER_TAG] = tag;
  out->count[PARTICLE_HEADER_CHECK] = tag ? particle_tag_check (tag) : 0;

  if (p->collide_radius > 0.0f)
    {
      uint32_t n = out->count[0];
      const AccelParticleState *sorted = &scratch->sorted;
      accel_spatial_build_host (&p->grid, out->px, out->py, out->pz, cap,
          out->count, &scratch->index);
      for (uint32_t k = 0; k < n; k++)
        particle_copy (out, scratch->index.sorted[k], sorted, k);
      for (uint32_t k = 0; k < n; k++)
        particle_push_commit (p, sorted, &scratch->index, k, out);
    }
  return 0;
}

size_t
accel_particles_splat_accum_size (const AccelSplatParams *sp)
{
  return (size_t)sp->width * (size_t)sp->height * 4;
}

int
accel_particles_splat_host (const AccelSplatParams *sp,
    const AccelParticleState *s, uint32_t capacity, uint32_t *accum,
    uint8_t *rgba, size_t pitch)
{
  uint32_t n = particle_min_u32 (s->count[0], capacity);
  int r = sp->point_size;

  memset (accum, 0, accel_particles_splat_accum_size (sp) * sizeof (uint32_t));
  for (uint32_t i = 0; i < n; i++)
    {
      uint32_t add[4];
      int px, py;
      if (!particle_splat_pixel (sp, s->px[i], s->py[i], &px, &py))
        continue;
      particle_splat_amount (sp, s->colour[i], s->age[i], s->life[i], add);
      for (int dy = -r; dy <= r; dy++)
        for (int dx = -r; dx <= r; dx++)
          {
            int x = px + dx, y = py + dy;
            uint32_t *a;
            if (dx * dx + dy * dy > r * r || x < 0 || y < 0 || x >= sp->width
                || y >= sp->height)
              continue;
            a = accum + ((size_t)y * sp->width + x) * 4;
            for (int k = 0; k < 4; k++)
              if (a[k] < PARTICLE_SPLAT_SATURATED)
                a[k] += add[k];
          }
    }
  for (int y = 0; y < sp->height; y++)
    for (int x = 0; x < sp->width; x++)
      for (int k = 0; k < 4; k++)
        rgba[(size_t)y * pitch + (size_t)x * 4 + k]
            = (uint8_t)particle_splat_resolve (
                accum[((size_t)y * sp->width + x) * 4 + k]);
  return 0;
}
