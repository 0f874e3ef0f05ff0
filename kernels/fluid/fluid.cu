/* SPDX-License-Identifier: LGPL-2.1-or-later */
// 2D stable fluids on the GPU: one kernel per pass over the grid; the
// pressure iterations one a launch, or on small grids several fused
#include <cuda_runtime.h>

#include "fluid-cell.h"
#include "fluid.h"

#define FOR_CELL                                                               \
  int x = blockIdx.x * blockDim.x + threadIdx.x;                               \
  int y = blockIdx.y * blockDim.y + threadIdx.y;                               \
  if (x >= n || y >= n)                                                        \
    return;                                                                    \
  int i = y * n + x;

__global__ static void
k_inject (float *u, float *v, float *dye, int n, AccelFluidParams p)
{
  FOR_CELL
  float w = fluid_splat_weight (p.inject_x, p.inject_y, p.inject_radius, x, y);
  u[i] = fmaf (w, p.force_x, u[i]);
  v[i] = fmaf (w, p.force_y, v[i]);
  dye[i] = fmaf (w, p.dye_amount, dye[i]);
}

__global__ static void
k_curl (const float *u, const float *v, float *curl, int n)
{
  FOR_CELL
  curl[i] = fluid_curl_cell (u, v, n, x, y);
}

__global__ static void
k_vorticity (float *u, float *v, const float *curl, int n, float eps, float dt)
{
  FOR_CELL
  float fx, fy;
  fluid_vorticity_force (curl, n, eps, dt, x, y, &fx, &fy);
  u[i] = u[i] + fx;
  v[i] = v[i] + fy;
}

__global__ static void
k_advect2 (
    const float *u, const float *v, float *du, float *dv, int n, float dt)
{
  FOR_CELL
  du[i] = fluid_advect_cell (u, u, v, n, dt, x, y);
  dv[i] = fluid_advect_cell (v, u, v, n, dt, x, y);
}

__global__ static void
k_jacobi2 (const float *xu, const float *xv, const float *bu, const float *bv,
    float *du, float *dv, int n, float a)
{
  FOR_CELL
  du[i] = fluid_jacobi_cell (xu, bu, n, a, x, y);
  dv[i] = fluid_jacobi_cell (xv, bv, n, a, x, y);
}

__global__ static void
k_divergence (const float *u, const float *v, float *div, int n)
{
  FOR_CELL
  div[i] = fluid_divergence_cell (u, v, n, x, y);
}

__global__ static void
k_pressure (const float *src, const float *div, float *dst, int n)
{
  FOR_CELL
  dst[i] = fluid_pressure_cell (src, div, n, x, y);
}

/* pressure iterations fused in shared memory: a block loads its tile with
 * a halo of two cells per iteration, sweeps the tile in place of the
 * global field (each sweep valid two cells further in), and writes the
 * tile's inside. Off-grid neighbours clamp to the grid's edge as
 * fluid_at does; the clamped cell always lies inside the part of the tile
 * the previous sweep made valid */
#define PRESSURE_TILE 32
#define PRESSURE_FUSED 4
#define PRESSURE_HALO (2 * PRESSURE_FUSED)
#define PRESSURE_SPAN (PRESSURE_TILE + 2 * PRESSURE_HALO)

#define PRESSURE_THREADS (PRESSURE_TILE * PRESSURE_TILE)
/* the step fuses where launches dominate: on an H100 up to 512^2 the fused
 * kernel was faster, from 1024^2 (fields in L2) the plain one */
#define PRESSURE_FUSED_MAX_N 512

/* one cell of a sweep over the tile; off-grid cells are never read */
__device__ static void
pressure_tile_cell (float (*from)[PRESSURE_SPAN], float (*to)[PRESSURE_SPAN],
    float (*dv)[PRESSURE_SPAN], int n, int ox, int oy, int lx, int ly)
{
  int gx = ox + lx, gy = oy + ly;

  if (gx < 0 || gy < 0 || gx >= n || gy >= n)
    return;
  int xm = fluid_clampi (gx - 2, 0, n - 1) - ox;
  int xp = fluid_clampi (gx + 2, 0, n - 1) - ox;
  int ym = fluid_clampi (gy - 2, 0, n - 1) - oy;
  int yp = fluid_clampi (gy + 2, 0, n - 1) - oy;
  to[ly][lx] = fluid_pressure_update (
      from[ly][xm], from[ly][xp], from[ym][lx], from[yp][lx], dv[ly][lx]);
}

/* the threads deal out each square of cells in row-major order: a loop of
 * 32 a row would leave most threads idle on a side just over 32 */
__global__ static void
__launch_bounds__ (PRESSURE_THREADS) k_pressure_fused (
    const float *src, const float *div, float *dst, int n, int iters)
{
  __shared__ float buf[2][PRESSURE_SPAN][PRESSURE_SPAN];
  __shared__ float dv[PRESSURE_SPAN][PRESSURE_SPAN];
  int ox = blockIdx.x * PRESSURE_TILE - PRESSURE_HALO;
  int oy = blockIdx.y * PRESSURE_TILE - PRESSURE_HALO;
  int cur = 0;

  for (int c = threadIdx.x; c < PRESSURE_SPAN * PRESSURE_SPAN;
       c += PRESSURE_THREADS)
    {
      int lx = c % PRESSURE_SPAN, ly = c / PRESSURE_SPAN;
      int gx = ox + lx, gy = oy + ly;
      if (gx < 0 || gy < 0 || gx >= n || gy >= n)
        continue;
      buf[0][ly][lx] = src[gy * n + gx];
      dv[ly][lx] = div[gy * n + gx];
    }
  __syncthreads ();
  for (int k = 1; k <= iters; k++)
    {
      int lo = 2 * k, side = PRESSURE_SPAN - 4 * k;
      for (int c = threadIdx.x; c < side * side; c += PRESSURE_THREADS)
        pressure_tile_cell (
            buf[cur], buf[!cur], dv, n, ox, oy, lo + c % side, lo + c / side);
      cur = !cur;
      __syncthreads ();
    }
  {
    int lx = PRESSURE_HALO + threadIdx.x % PRESSURE_TILE;
    int ly = PRESSURE_HALO + threadIdx.x / PRESSURE_TILE;
    int gx = ox + lx, gy = oy + ly;
    if (gx < n && gy < n)
      dst[gy * n + gx] = buf[cur][ly][lx];
  }
}

__global__ static void
k_project (const float *wu, const float *wv, const float *pr, float *u,
    float *v, int n)
{
  FOR_CELL
  float gx = 0.5f * (fluid_at (pr, n, x + 1, y) - fluid_at (pr, n, x - 1, y));
  float gy = 0.5f * (fluid_at (pr, n, x, y + 1) - fluid_at (pr, n, x, y - 1));
  u[i] = (x == 0 || x == n - 1) ? 0.0f : wu[i] - gx;
  v[i] = (y == 0 || y == n - 1) ? 0.0f : wv[i] - gy;
}

__global__ static void
k_advect_dye (const float *dye, const float *u, const float *v, float *out,
    int n, float dt, float decay)
{
  FOR_CELL
  out[i] = fluid_advect_cell (dye, u, v, n, dt, x, y) * decay;
}

__global__ static void
k_render (const float *dye, uint8_t *rgba, size_t pitch, int n)
{
  FOR_CELL
  fluid_colour (dye[i], rgba + (size_t)y * pitch + (size_t)x * 4);
}

static dim3
grid_for (int n)
{
  return dim3 ((n + 15) / 16, (n + 15) / 16);
}

/* the pressure iterations, rounded up to even, from p back into p through
 * p0: fused, in an even number of launches of at most PRESSURE_FUSED
 * iterations each, or one launch per iteration */
static void
pressure_solve (cudaStream_t s, const AccelFluidParams *p,
    const AccelFluidFields *f, int fused)
{
  int n = p->n, iters = (p->pressure_iters + 1) & ~1;
  int launches = fused ? (iters + PRESSURE_FUSED - 1) / PRESSURE_FUSED : iters;
  dim3 tg ((n + PRESSURE_TILE - 1) / PRESSURE_TILE,
      (n + PRESSURE_TILE - 1) / PRESSURE_TILE);

  launches += launches % 2;
  for (int l = 0; l < launches; l++)
    {
      const float *src = l % 2 ? f->p0 : f->p;
      float *dst = l % 2 ? f->p : f->p0;
      if (fused)
        k_pressure_fused<<<tg, PRESSURE_THREADS, 0, s>>> (
            src, f->div, dst, n, iters / launches + (l < iters % launches));
      else
        k_pressure<<<grid_for (n), dim3 (16, 16), 0, s>>> (src, f->div, dst, n);
    }
}

extern "C" int
accel_fluid_pressure_solve (void *stream, const AccelFluidParams *p,
    const AccelFluidFields *f, int fused)
{
  pressure_solve ((cudaStream_t)stream, p, f, fused);
  return cudaGetLastError ();
}

extern "C" int
accel_fluid_step (
    void *stream, const AccelFluidParams *p, const AccelFluidFields *f)
{
  cudaStream_t s = (cudaStream_t)stream;
  dim3 g = grid_for (p->n), b (16, 16);
  int n = p->n;
  const float *wu = f->u0, *wv = f->v0;
  float a = p->viscosity * p->dt;

  if (p->inject_radius > 0.0f)
    k_inject<<<g, b, 0, s>>> (f->u, f->v, f->dye, n, *p);
  if (p->vorticity > 0.0f)
    {
      k_curl<<<g, b, 0, s>>> (f->u, f->v, f->curl, n);
      k_vorticity<<<g, b, 0, s>>> (f->u, f->v, f->curl, n, p->vorticity, p->dt);
    }
  k_advect2<<<g, b, 0, s>>> (f->u, f->v, f->u0, f->v0, n, p->dt);
  if (p->viscosity > 0.0f)
    for (int k = 0; k < p->diffuse_iters; k++)
      {
        float *du = k % 2 == 0 ? f->u1 : f->u, *dv = k % 2 == 0 ? f->v1 : f->v;
        k_jacobi2<<<g, b, 0, s>>> (wu, wv, f->u0, f->v0, du, dv, n, a);
        wu = du;
        wv = dv;
      }
  k_divergence<<<g, b, 0, s>>> (wu, wv, f->div, n);
  pressure_solve (s, p, f, n <= PRESSURE_FUSED_MAX_N);
  k_project<<<g, b, 0, s>>> (wu, wv, f->p, f->u, f->v, n);
  k_advect_dye<<<g, b, 0, s>>> (
      f->dye, f->u, f->v, f->dye0, n, p->dt, p->dye_decay);
  cudaMemcpyAsync (f->dye, f->dye0, (size_t)n * n * sizeof (float),
      cudaMemcpyDeviceToDevice, s);
  return cudaGetLastError ();
}

extern "C" int
accel_fluid_render (void *stream, const AccelFluidParams *p,
    const AccelFluidFields *f, uint8_t *rgba, size_t pitch)
{
  k_render<<<grid_for (p->n), dim3 (16, 16), 0, (cudaStream_t)stream>>> (
      f->dye, rgba, pitch, p->n);
  return cudaGetLastError ();
}
