/* SPDX-License-Identifier: LGPL-2.1-or-later */
// particles on the GPU: a plan (the survivors of each block of slots,
// unless no slot changes), a scan of the blocks' counts, a fused spawn /
// move / collide / compact pass, then the optional sort by cell and
// push-apart over the spatial index. Every launch covers the capacity and
// reads the alive count from the state, so no step waits for the host
#include <cuda_runtime.h>

#include "particles-update.h"
#include "particles.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)

/* the words of scratch->control */
enum
{
  CONTROL_KEEPS_SLOTS,
  CONTROL_WRITES_STATIC,
  CONTROL_TAG,
};

static unsigned
blocks_for (size_t n)
{
  return (unsigned)((n + BLOCK - 1) / BLOCK);
}

/* whether slot @i is alive after the step */
__device__ static uint32_t
slot_lives (const AccelParticlesParams *p, uint64_t step,
    const AccelParticleState *in, uint32_t n_in, int keeps, uint32_t i)
{
  if (keeps)
    return i < n_in;
  return i < particle_n_total (p, n_in)
         && particle_survives (p, step, in, n_in, i);
}

/* the step's decisions (by the first thread: @out's header is rewritten
 * by the update), and the survivors of each block of slots unless no slot
 * changes; PLAN_BLOCKS blocks of slots a block, so that a step keeping its
 * slots returns from few */
#define PLAN_BLOCKS 4

__global__ static void
k_plan (AccelParticlesParams p, uint64_t step, AccelParticleState in,
    AccelParticleState out, uint32_t *control, uint32_t *block_counts,
    uint32_t n_blocks)
{
  uint32_t n_in = particle_min_u32 (in.count[0], p.capacity);
  int keeps = particle_step_keeps_slots (&p, &in, n_in);

  if (blockIdx.x == 0 && threadIdx.x == 0)
    {
      control[CONTROL_KEEPS_SLOTS] = keeps;
      control[CONTROL_WRITES_STATIC]
          = particle_step_writes_static (&in, &out, keeps);
      control[CONTROL_TAG] = particle_step_tag (&p, step, &in, n_in, keeps);
      /* until a block finds a particle that dies next */
      out.count[PARTICLE_HEADER_VERIFIED] = particle_float_bits (p.dt);
      block_counts[n_blocks] = 0;
    }
  if (keeps)
    return;
  for (uint32_t b = blockIdx.x * PLAN_BLOCKS;
       b < (blockIdx.x + 1) * PLAN_BLOCKS && b < n_blocks; b++)
    {
      uint32_t i = b * BLOCK + threadIdx.x;
      uint32_t n = __syncthreads_count (slot_lives (&p, step, &in, n_in, 0, i));
      if (threadIdx.x == 0)
        block_counts[b] = n;
    }
}

__global__ static void
__launch_bounds__ (BLOCK) k_update (AccelParticlesParams p, uint64_t step,
    AccelParticleState in, AccelParticleState out, const uint32_t *control,
    const uint32_t *block_offsets, uint32_t n_blocks)
{
  __shared__ uint32_t warp_base[WARPS];
  uint32_t i = blockIdx.x * BLOCK + threadIdx.x;
  uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  uint32_t n_in = particle_min_u32 (in.count[0], p.capacity);
  int keeps = control[CONTROL_KEEPS_SLOTS];
  int writes_static = control[CONTROL_WRITES_STATIC];
  uint32_t lives = slot_lives (&p, step, &in, n_in, keeps, i), o = i, dies = 0;

  if (!keeps)
    {
      /* the survivors before this one: in the earlier blocks, warps and
       * lanes (the order the host's scan gives) */
      uint32_t ballot = __ballot_sync (0xffffffffu, lives);
      if (lane == 0)
        warp_base[warp] = __popc (ballot);
      __syncthreads ();
      o = block_offsets[blockIdx.x] + __popc (ballot & ((1u << lane) - 1u));
      for (uint32_t w = 0; w < warp; w++)
        o += warp_base[w];
    }
  if (lives)
    dies = particle_step_one (
        &p, step, &in, n_in, i, &out, o, keeps ? writes_static : 1);
  if (__syncthreads_or (dies) && threadIdx.x == 0)
    out.count[PARTICLE_HEADER_VERIFIED] = 0;
  if (i == 0)
    {
      uint32_t tag = control[CONTROL_TAG];
      out.count[0] = keeps ? n_in : block_offsets[n_blocks];
      out.count[PARTICLE_HEADER_TAG] = tag;
      out.count[PARTICLE_HEADER_CHECK] = tag ? particle_tag_check (tag) : 0;
    }
}

/* the particles into the index's order */
__global__ static void
k_gather (AccelParticlesParams p, AccelParticleState s, AccelSpatialIndex ix,
    AccelParticleState sorted)
{
  uint32_t k = blockIdx.x * BLOCK + threadIdx.x;

  if (k >= particle_min_u32 (s.count[0], p.capacity))
    return;
  particle_copy (&s, ix.sorted[k], &sorted, k);
}

/* in the index's order, a particle's neighbours are the runs of its cells'
 * slots: neighbouring threads read the same few runs */
__global__ static void
k_push (AccelParticlesParams p, AccelParticleState sorted, AccelSpatialIndex ix,
    AccelParticleState out)
{
  uint32_t k = blockIdx.x * BLOCK + threadIdx.x;

  if (k >= particle_min_u32 (out.count[0], p.capacity))
    return;
  particle_push_commit (&p, &sorted, &ix, k, &out);
}

extern "C" int
accel_particles_step (void *stream, const AccelParticlesParams *p,
    uint64_t step, const AccelParticleState *in, const AccelParticleState *out,
    const AccelParticlesScratch *scratch)
{
  cudaStream_t s = (cudaStream_t)stream;
  /* one at least: the plan writes the step's decisions */
  uint32_t n_blocks = blocks_for (p->capacity > 0 ? p->capacity : 1);
  int status;

  k_plan<<<(n_blocks + PLAN_BLOCKS - 1) / PLAN_BLOCKS, BLOCK, 0, s>>> (
      *p, step, *in, *out, scratch->control, scratch->flags, n_blocks);
  status = accel_spatial_exclusive_scan (stream, scratch->flags,
      scratch->offsets, (size_t)n_blocks + 1, scratch->scan_tmp);
  if (status != cudaSuccess)
    return status;
  k_update<<<n_blocks, BLOCK, 0, s>>> (
      *p, step, *in, *out, scratch->control, scratch->offsets, n_blocks);
  if (p->collide_radius > 0.0f)
    {
      status = accel_spatial_build (stream, &p->grid, out->px, out->py, out->pz,
          p->capacity, out->count, &scratch->index);
      if (status != cudaSuccess)
        return status;
      k_gather<<<n_blocks, BLOCK, 0, s>>> (
          *p, *out, scratch->index, scratch->sorted);
      k_push<<<n_blocks, BLOCK, 0, s>>> (
          *p, scratch->sorted, scratch->index, *out);
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
