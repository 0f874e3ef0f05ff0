/* SPDX-License-Identifier: LGPL-2.1-or-later */
// particles on the GPU: survival flags, scan, a fused spawn / move /
// collide / compact pass, then the optional push-apart over the spatial
// index. Every launch covers the capacity and reads the alive count from
// the state, so no step waits for the host
#include <cuda_runtime.h>

#include "particles-update.h"
#include "particles.h"

#define BLOCK 256

static unsigned
blocks_for (size_t n)
{
  return (unsigned)((n + BLOCK - 1) / BLOCK);
}

__global__ static void
k_flags (AccelParticlesParams p, uint64_t step, AccelParticleState in,
    uint32_t *flags)
{
  uint32_t i = blockIdx.x * BLOCK + threadIdx.x;
  uint32_t n_in = particle_min_u32 (in.count[0], p.capacity);

  if (i > p.capacity)
    return;
  flags[i] = i < particle_n_total (&p, n_in)
             && particle_survives (&p, step, &in, n_in, i);
}

__global__ static void
k_update (AccelParticlesParams p, uint64_t step, AccelParticleState in,
    AccelParticleState out, const uint32_t *flags, const uint32_t *offsets)
{
  uint32_t i = blockIdx.x * BLOCK + threadIdx.x;
  uint32_t n_in = particle_min_u32 (in.count[0], p.capacity);

  if (i == 0)
    out.count[0] = offsets[p.capacity];
  if (i >= particle_n_total (&p, n_in) || !flags[i])
    return;
  particle_step_one (&p, step, &in, n_in, i, &out, offsets[i]);
}

/* threads in cell order: neighbouring threads read the same few cells,
 * which stay in cache (in index order every read is a random gather) */
__global__ static void
k_push (AccelParticlesParams p, AccelParticleState s, AccelSpatialIndex ix,
    AccelParticlesScratch scratch)
{
  uint32_t k = blockIdx.x * BLOCK + threadIdx.x, i;
  float q[3];

  if (k >= particle_min_u32 (s.count[0], p.capacity))
    return;
  i = ix.sorted[k];
  particle_push (&p, &s, &ix, i, q);
  scratch.qx[i] = q[0];
  scratch.qy[i] = q[1];
  scratch.qz[i] = q[2];
}

__global__ static void
k_commit (
    AccelParticlesParams p, AccelParticleState s, AccelParticlesScratch scratch)
{
  uint32_t i = blockIdx.x * BLOCK + threadIdx.x;

  if (i >= particle_min_u32 (s.count[0], p.capacity))
    return;
  particle_commit (&p, &s, &scratch, i);
}

extern "C" int
accel_particles_step (void *stream, const AccelParticlesParams *p,
    uint64_t step, const AccelParticleState *in, const AccelParticleState *out,
    const AccelParticlesScratch *scratch)
{
  cudaStream_t s = (cudaStream_t)stream;
  size_t n = (size_t)p->capacity + 1;
  int status;

  k_flags<<<blocks_for (n), BLOCK, 0, s>>> (*p, step, *in, scratch->flags);
  status = accel_spatial_exclusive_scan (
      stream, scratch->flags, scratch->offsets, n, scratch->scan_tmp);
  if (status != cudaSuccess)
    return status;
  k_update<<<blocks_for (p->capacity), BLOCK, 0, s>>> (
      *p, step, *in, *out, scratch->flags, scratch->offsets);
  if (p->collide_radius > 0.0f)
    {
      status = accel_spatial_build (stream, &p->grid, out->px, out->py, out->pz,
          p->capacity, out->count, &scratch->index);
      if (status != cudaSuccess)
        return status;
      k_push<<<blocks_for (p->capacity), BLOCK, 0, s>>> (
          *p, *out, scratch->index, *scratch);
      k_commit<<<blocks_for (p->capacity), BLOCK, 0, s>>> (*p, *out, *scratch);
    }
  return cudaGetLastError ();
}

__global__ static void
k_splat (AccelSplatParams sp, AccelParticleState s, uint32_t capacity,
    uint32_t *accum)
{
  uint32_t i = blockIdx.x * BLOCK + threadIdx.x;
  uint32_t add[4];
  int px, py, r = sp.point_size;

  if (i >= particle_min_u32 (s.count[0], capacity))
    return;
  if (!particle_splat_pixel (&sp, s.px[i], s.py[i], &px, &py))
    return;
  particle_splat_amount (&sp, s.colour[i], s.age[i], s.life[i], add);
  for (int dy = -r; dy <= r; dy++)
    for (int dx = -r; dx <= r; dx++)
      {
        int x = px + dx, y = py + dy;
        uint32_t *a;
        if (dx * dx + dy * dy > r * r || x < 0 || y < 0 || x >= sp.width
            || y >= sp.height)
          continue;
        a = accum + ((size_t)y * sp.width + x) * 4;
        for (int k = 0; k < 4; k++)
          if (add[k] && *(volatile uint32_t *)&a[k] < PARTICLE_SPLAT_SATURATED)
            atomicAdd (&a[k], add[k]);
      }
}

__global__ static void
k_resolve (
    AccelSplatParams sp, const uint32_t *accum, uint8_t *rgba, size_t pitch)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  const uint32_t *a;
  uint8_t *o;

  if (x >= sp.width || y >= sp.height)
    return;
  a = accum + ((size_t)y * sp.width + x) * 4;
  o = rgba + (size_t)y * pitch + (size_t)x * 4;
  for (int k = 0; k < 4; k++)
    o[k] = (uint8_t)particle_splat_resolve (a[k]);
}

extern "C" int
accel_particles_splat (void *stream, const AccelSplatParams *sp,
    const AccelParticleState *s, uint32_t capacity, uint32_t *accum,
    uint8_t *rgba, size_t pitch)
{
  cudaStream_t st = (cudaStream_t)stream;
  dim3 b (16, 16), g ((sp->width + 15) / 16, (sp->height + 15) / 16);
  int status;

  status = cudaMemsetAsync (
      accum, 0, accel_particles_splat_accum_size (sp) * sizeof (uint32_t), st);
  if (status != cudaSuccess)
    return status;
  if (capacity > 0)
    k_splat<<<blocks_for (capacity), BLOCK, 0, st>>> (*sp, *s, capacity, accum);
  k_resolve<<<g, b, 0, st>>> (*sp, accum, rgba, pitch);
  return cudaGetLastError ();
}
