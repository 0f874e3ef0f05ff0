/* SPDX-License-Identifier: LGPL-2.1-or-later */
// cloth on the GPU: one thread per vertex per pass, one per triangle to
// draw
#include <cuda_runtime.h>

#include "cloth-vertex.h"
#include "cloth.h"

namespace
{

constexpr int THREADS = 256;

unsigned
blocks_for (size_t n)
{
  return (unsigned)((n + THREADS - 1) / THREADS);
}

#define FOR_VERTEX                                                             \
  int k = blockIdx.x * blockDim.x + threadIdx.x;                               \
  if (k >= p.w * p.h)                                                          \
    return;                                                                    \
  int i = k % p.w, j = k / p.w;

__global__ void
k_reset (AccelClothParams p, AccelClothState s)
{
  FOR_VERTEX
  cloth_rest (&p, i, j, &s.x[k], &s.y[k], &s.z[k]);
  s.px[k] = s.x[k];
  s.py[k] = s.y[k];
  s.pz[k] = s.z[k];
  s.nx[k] = 0.0f;
  s.ny[k] = 0.0f;
  s.nz[k] = 1.0f;
}

__global__ void
k_integrate (AccelClothParams p, AccelClothState s)
{
  FOR_VERTEX
  cloth_integrate (&p, &s, i, j);
}

__global__ void
k_solve (AccelClothParams p, const float *ix, const float *iy, const float *iz,
    float *ox, float *oy, float *oz)
{
  FOR_VERTEX
  cloth_solve_vertex (&p, ix, iy, iz, ox, oy, oz, i, j);
}

/* one colour of a Gauss-Seidel sweep, in place: a thread per vertex of
 * the colour, (w + 4) / 5 a row */
__global__ void
k_solve_colour (AccelClothParams p, int colour, float *x, float *y, float *z)
{
  int row = (p.w + CLOTH_COLOURS - 1) / CLOTH_COLOURS;
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= row * p.h)
    return;
  int j = t / row,
      i = cloth_colour_first (colour, j) + CLOTH_COLOURS * (t % row);
  if (i >= p.w)
    return;
  cloth_solve_vertex (&p, x, y, z, x, y, z, i, j);
}

__global__ void
k_normal (AccelClothParams p, AccelClothState s)
{
  FOR_VERTEX
  cloth_normal (&p, &s, i, j);
}

__global__ void
k_clear (uint64_t *depth, size_t n)
{
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n)
    depth[i] = CLOTH_EMPTY;
}

#define EMIT_ATOMIC(i, key)                                                    \
  atomicMin ((unsigned long long *)&depth[i], (unsigned long long)(key))

__global__ void
k_raster (
    AccelClothParams p, AccelClothState s, AccelClothView v, uint64_t *depth)
{
  int t = blockIdx.x * blockDim.x + threadIdx.x;

  if (t >= 2 * (p.w - 1) * (p.h - 1))
    return;
  CLOTH_RASTER (&p, &s, &v, t, EMIT_ATOMIC);
}

__global__ void
k_resolve (const uint64_t *depth, AccelClothView v, uint8_t *rgba, size_t pitch)
{
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

  if (i >= (size_t)v.width * v.height)
    return;
  uint64_t key = depth[i];
  uint32_t c = key == CLOTH_EMPTY ? v.background : (uint32_t)key;
  *(uchar4 *)(rgba + (i / v.width) * pitch + (i % v.width) * 4)
      = make_uchar4 (c, c >> 8, c >> 16, c >> 24);
}

bool
args_valid (const AccelClothParams *p)
{
  return p->w >= 2 && p->h >= 2 && p->iterations >= 0
         && (p->solver == ACCEL_CLOTH_SOLVER_JACOBI
             || p->solver == ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL);
}

} // namespace

extern "C" int
accel_cloth_reset (
    void *stream, const AccelClothParams *p, const AccelClothState *s)
{
  if (!args_valid (p))
    return cudaErrorInvalidValue;
  k_reset<<<blocks_for ((size_t)p->w * p->h), THREADS, 0,
      (cudaStream_t)stream>>> (*p, *s);
  return cudaGetLastError ();
}

extern "C" int
accel_cloth_step (
    void *stream, const AccelClothParams *p, const AccelClothState *s)
{
  cudaStream_t st = (cudaStream_t)stream;
  unsigned blocks = blocks_for ((size_t)p->w * p->h);

  if (!args_valid (p))
    return cudaErrorInvalidValue;
  k_integrate<<<blocks, THREADS, 0, st>>> (*p, *s);
  if (p->solver == ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL)
    {
      unsigned colour_blocks = blocks_for (
          (size_t)p->h * ((p->w + CLOTH_COLOURS - 1) / CLOTH_COLOURS));
      for (int it = 0; it < p->iterations; it++)
        for (int c = 0; c < CLOTH_COLOURS; c++)
          k_solve_colour<<<colour_blocks, THREADS, 0, st>>> (
              *p, c, s->x, s->y, s->z);
    }
  else
    for (int it = 0; it < p->iterations; it += 2)
      {
        k_solve<<<blocks, THREADS, 0, st>>> (
            *p, s->x, s->y, s->z, s->sx, s->sy, s->sz);
        k_solve<<<blocks, THREADS, 0, st>>> (
            *p, s->sx, s->sy, s->sz, s->x, s->y, s->z);
      }
  k_normal<<<blocks, THREADS, 0, st>>> (*p, *s);
  return cudaGetLastError ();
}

extern "C" int
accel_cloth_render (void *stream, const AccelClothParams *p,
    const AccelClothState *s, const AccelClothView *v, uint64_t *depth,
    uint8_t *rgba, size_t pitch)
{
  cudaStream_t st = (cudaStream_t)stream;
  size_t n = accel_cloth_depth_size (v);

  if (!args_valid (p) || v->width < 1 || v->height < 1
      || pitch < (size_t)v->width * 4 || pitch % 4 != 0)
    return cudaErrorInvalidValue;
  k_clear<<<blocks_for (n), THREADS, 0, st>>> (depth, n);
  k_raster<<<blocks_for ((size_t)2 * (p->w - 1) * (p->h - 1)), THREADS, 0,
      st>>> (*p, *s, *v, depth);
  k_resolve<<<blocks_for (n), THREADS, 0, st>>> (depth, *v, rgba, pitch);
  return cudaGetLastError ();
}
