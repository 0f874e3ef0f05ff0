/* SPDX-License-Identifier: LGPL-2.1-or-later */
// 2D stable fluids on the GPU: one kernel per pass over the grid, the
// pressure iterations one a launch or several fused on tiles in shared
// memory; on small grids the whole step fused into a few launches
#include <cuda_runtime.h>

#include "core/overlap.cuh"
#include "fluid-cell.h"
#include "fluid.h"

#define FOR_CELL                                                               \
  int x = blockIdx.x * blockDim.x + threadIdx.x;                               \
  int y = blockIdx.y * blockDim.y + threadIdx.y;                               \
  if (x >= n || y >= n)                                                        \
    return;                                                                    \
  int i = y * n + x;

/* @f at cell (x, y) after the injection adds @amount of the splat */
__device__ static float
injected (float f, const AccelFluidParams &p, float amount, int x, int y)
{
  if (!(p.inject_radius > 0.0f))
    return f;
  return fmaf (
      fluid_splat_weight (p.inject_x, p.inject_y, p.inject_radius, x, y),
      amount, f);
}

__global__ static void
k_inject (float *u, float *v, float *dye, int n, AccelFluidParams p)
{
  FOR_CELL
  u[i] = injected (u[i], p, p.force_x, x, y);
  v[i] = injected (v[i], p, p.force_y, x, y);
  dye[i] = injected (dye[i], p, p.dye_amount, x, y);
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
  overlap_wait ();
  FOR_CELL
  du[i] = fluid_advect_cell (u, u, v, n, dt, x, y);
  dv[i] = fluid_advect_cell (v, u, v, n, dt, x, y);
}

__global__ static void
k_jacobi2 (const float *xu, const float *xv, const float *bu, const float *bv,
    float *du, float *dv, int n, float a)
{
  overlap_wait ();
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

__global__ static void
k_project (const float *wu, const float *wv, const float *pr, float *u,
    float *v, int n)
{
  FOR_CELL
  u[i] = fluid_project (wu[i], fluid_at (pr, n, x + 1, y),
      fluid_at (pr, n, x - 1, y), x == 0 || x == n - 1);
  v[i] = fluid_project (wv[i], fluid_at (pr, n, x, y + 1),
      fluid_at (pr, n, x, y - 1), y == 0 || y == n - 1);
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

/* calls @f (x, y) for each cell of a square known when compiling, the
 * THREADS threads of the block dealing the cells out in row-major order:
 * unrolled and with no branch but in the last round, so that a thread's
 * loads go out together */
template <int SIDE, int THREADS, typename F>
__device__ static void
for_each_cell_unrolled (F f)
{
  constexpr int CELLS = SIDE * SIDE;
#pragma unroll
  for (int r = 0; r < (CELLS + THREADS - 1) / THREADS; r++)
    {
      int c = threadIdx.x + r * THREADS;
      if ((r + 1) * THREADS <= CELLS || c < CELLS)
        f (c % SIDE, c / SIDE);
    }
}

/* a square of the grid in shared memory, @span cells a side, its (0, 0) at
 * the grid's (ox, oy). Its cells off the grid are loaded from the nearest
 * cell on it (no branch keeps a thread's loads apart) but never read */
struct Tile
{
  int span, ox, oy, n;

  __device__ bool on_grid (int x, int y) const
  {
    return x >= 0 && y >= 0 && x < n && y < n;
  }

  /* the grid cell the tile's (lx, ly) is loaded from */
  __device__ void source (int lx, int ly, int *x, int *y) const
  {
    *x = fluid_clampi (ox + lx, 0, n - 1);
    *y = fluid_clampi (oy + ly, 0, n - 1);
  }

  /* where grid cell (x, y) is, clamped to the grid as fluid_at clamps */
  __device__ int at (int x, int y) const
  {
    return (fluid_clampi (y, 0, n - 1) - oy) * span + fluid_clampi (x, 0, n - 1)
           - ox;
  }
};

/* injection and vorticity confinement in one launch, out of place: a block
 * injects into its tile and a ring of two cells around it in shared memory,
 * takes the curl on the tile and a ring of one, then the confinement on the
 * tile; each from the injected field, as the passes see it */
constexpr int FORCES_TILE = 16;
constexpr int FORCES_SPAN = FORCES_TILE + 4;
constexpr int FORCES_THREADS = FORCES_TILE * FORCES_TILE;

__global__ static void
__launch_bounds__ (FORCES_THREADS) k_forces (const float *u, const float *v,
    const float *dye, float *fu, float *fv, float *fdye, AccelFluidParams p)
{
  constexpr int S = FORCES_SPAN;
  __shared__ float su[S * S], sv[S * S], curl[S * S];
  Tile t = { S, (int)blockIdx.x * FORCES_TILE - 2,
    (int)blockIdx.y * FORCES_TILE - 2, p.n };
  int x = t.ox + 2 + threadIdx.x % FORCES_TILE;
  int y = t.oy + 2 + threadIdx.x / FORCES_TILE;

  overlap_wait ();
  for_each_cell_unrolled<S, FORCES_THREADS> ([&] (int lx, int ly) {
    int gx, gy;
    t.source (lx, ly, &gx, &gy);
    int i = gy * p.n + gx;
    su[ly * S + lx] = injected (u[i], p, p.force_x, gx, gy);
    sv[ly * S + lx] = injected (v[i], p, p.force_y, gx, gy);
  });
  __syncthreads ();
  if (p.vorticity > 0.0f)
    {
      for_each_cell_unrolled<S - 2, FORCES_THREADS> ([&] (int cx, int cy) {
        int gx = t.ox + 1 + cx, gy = t.oy + 1 + cy;
        if (!t.on_grid (gx, gy))
          return;
        curl[t.at (gx, gy)]
            = fluid_curl (sv[t.at (gx + 1, gy)], sv[t.at (gx - 1, gy)],
                su[t.at (gx, gy + 1)], su[t.at (gx, gy - 1)]);
      });
      __syncthreads ();
    }
  if (!t.on_grid (x, y))
    return;
  int i = y * p.n + x, c = t.at (x, y);
  float cu = su[c], cv = sv[c];
  if (p.vorticity > 0.0f)
    {
      float fx, fy;
      fluid_vorticity (curl[t.at (x + 1, y)], curl[t.at (x - 1, y)],
          curl[t.at (x, y + 1)], curl[t.at (x, y - 1)], curl[c], p.vorticity,
          p.dt, &fx, &fy);
      cu = cu + fx;
      cv = cv + fy;
    }
  fu[i] = cu;
  fv[i] = cv;
  fdye[i] = injected (dye[i], p, p.dye_amount, x, y);
}

/* pressure iterations fused in shared memory: a block loads its tile with a
 * halo of two cells an iteration and one more, sweeps squares two cells
 * smaller each side an iteration (each valid two cells further in) and
 * writes the tile's inside. Only cells on the grid need be swept; their
 * clamped neighbours lie on the grid, inside the square the previous sweep
 * made valid. In a step the first launch also takes the divergence as it
 * loads; the last keeps a ring of one cell valid for the gradient, and
 * projects the velocity and advects the dye as it writes.
 *
 * A sweep gives each thread a run of rows of one column, held in registers
 * with their divergence: the neighbours two rows up and down are mostly its
 * own, and only the left and right ones and the run's ends come out of
 * shared memory */
constexpr int PRESSURE_DIVERGENCE = 1;
constexpr int PRESSURE_PROJECT = 2;
/* the former step's tiles, and the fused step's, as measured on an H200
 * (docs/benchmarks.md). Up to 512^2, where the grid is one wave of blocks,
 * 47^2 tiles and seven iterations a launch (121 blocks at 512^2, 847
 * threads each; the usual 40 iterations in six launches, an even count
 * ending in p). Larger grids take 49^2 tiles and ten iterations a launch:
 * 637 threads a block, so two blocks share an SM */
constexpr int TILED_TILE = 32, TILED_ITERS = 4;
constexpr int FUSED_SMALL_N = 512;
constexpr int FUSED_SMALL_TILE = 47, FUSED_SMALL_ITERS = 7;
constexpr int FUSED_TILE = 49, FUSED_ITERS = 10;

constexpr int
pressure_halo (int iters)
{
  return 2 * iters + 1;
}

constexpr int
pressure_span (int tile, int iters)
{
  return tile + 2 * pressure_halo (iters);
}

/* rows a thread sweeps: the fewest that divide the span and leave a thread
 * for each run of each column in a block of 1024 */
constexpr int
pressure_rows (int span)
{
  int k = 1;
  while (span % k != 0 || span * (span / k) > 1024)
    k++;
  return k;
}

constexpr int
pressure_threads (int tile, int iters)
{
  return pressure_span (tile, iters) * pressure_span (tile, iters)
         / pressure_rows (pressure_span (tile, iters));
}

/* one iteration of a thread's run of K rows of column @col from row @row0
 * on, @run holding its values in @from and @d their divergence: into @to
 * and @run. Neighbours are clamped as fluid_at clamps them, then into the
 * tile (a cell off the swept square may read any of it). A run at least two
 * rows inside the grid's edges (@inner) finds its neighbours above and below
 * two rows away: all but the two at each end are its own */
template <int S, int K>
__device__ static void
pressure_run (const Tile &t, const float *from, float *to, int col, int row0,
    int lc, int rc, bool inner, float (&run)[K], const float (&d)[K])
{
  float next[K];

  if (inner)
    {
      const float up2 = from[max (row0 - 2, 0) * S + col];
      const float up1 = from[max (row0 - 1, 0) * S + col];
      const float down1 = from[min (row0 + K, S - 1) * S + col];
      const float down2 = from[min (row0 + K + 1, S - 1) * S + col];
#pragma unroll
      for (int j = 0; j < K; j++)
        {
          const float *row = from + (row0 + j) * S;
          const float up = j >= 2 ? run[j - 2] : j == 1 ? up1 : up2;
          const float down = j + 2 < K    ? run[j + 2]
                             : j + 2 == K ? down1
                                          : down2;
          next[j] = fluid_pressure_update (row[lc], row[rc], up, down, d[j]);
        }
    }
  else
#pragma unroll
    for (int j = 0; j < K; j++)
      {
        const int gy = t.oy + row0 + j;
        const int ur
            = fluid_clampi (fluid_clampi (gy - 2, 0, t.n - 1) - t.oy, 0, S - 1);
        const int dr
            = fluid_clampi (fluid_clampi (gy + 2, 0, t.n - 1) - t.oy, 0, S - 1);
        const float *row = from + (row0 + j) * S;
        next[j] = fluid_pressure_update (
            row[lc], row[rc], from[ur * S + col], from[dr * S + col], d[j]);
      }
#pragma unroll
  for (int j = 0; j < K; j++)
    {
      to[(row0 + j) * S + col] = next[j];
      run[j] = next[j];
    }
}

/* the projection and the dye's advection at grid cell (x, y), the pressure
 * from a tile */
__device__ static void
project_cell (const AccelFluidParams &p, const AccelFluidFields &f,
    const float *wu, const float *wv, const Tile &t, const float *pr, int x,
    int y)
{
  int n = p.n, i = y * n + x;
  float u = fluid_project (
      wu[i], pr[t.at (x + 1, y)], pr[t.at (x - 1, y)], x == 0 || x == n - 1);
  float v = fluid_project (
      wv[i], pr[t.at (x, y + 1)], pr[t.at (x, y - 1)], y == 0 || y == n - 1);

  f.u[i] = u;
  f.v[i] = v;
  f.dye[i] = fluid_advect_at (f.dye0, n, p.dt, x, y, u, v) * p.dye_decay;
}

/* @iters (at most ITERS) iterations from @src into @dst; a step's first
 * launch takes f.div from (wu, wv), its last projects them into (f.u, f.v)
 * and advects the dye from f.dye0 into f.dye */
template <int TILE, int ITERS>
__global__ static void
__launch_bounds__ (pressure_threads (TILE, ITERS))
    k_pressure_tiled (AccelFluidParams p, AccelFluidFields f, const float *src,
        float *dst, const float *wu, const float *wv, int iters, int stage)
{
  constexpr int HALO = pressure_halo (ITERS);
  constexpr int S = pressure_span (TILE, ITERS), K = pressure_rows (S);
  constexpr int THREADS = pressure_threads (TILE, ITERS);
  extern __shared__ float smem[];
  float *from = smem, *to = smem + S * S, *dv = smem + 2 * S * S;
  Tile t = { S, (int)blockIdx.x * TILE - HALO, (int)blockIdx.y * TILE - HALO,
    p.n };
  int n = p.n, ring = stage & PRESSURE_PROJECT ? 1 : 0;
  /* the thread's run: K rows of a column, and its neighbours' columns */
  const int col = threadIdx.x % S, row0 = threadIdx.x / S * K;
  const int gx = t.ox + col, gy0 = t.oy + row0;
  const int lc
      = fluid_clampi (fluid_clampi (gx - 2, 0, n - 1) - t.ox, 0, S - 1);
  const int rc
      = fluid_clampi (fluid_clampi (gx + 2, 0, n - 1) - t.ox, 0, S - 1);
  const bool inner = gy0 >= 2 && gy0 + K - 1 <= n - 3;
  float run[K], d[K];

  overlap_wait ();
  for_each_cell_unrolled<S, THREADS> ([&] (int lx, int ly) {
    int x, y;
    t.source (lx, ly, &x, &y);
    from[ly * S + lx] = src[y * n + x];
    dv[ly * S + lx] = stage & PRESSURE_DIVERGENCE
                          ? fluid_divergence_cell (wu, wv, n, x, y)
                          : f.div[y * n + x];
  });
  __syncthreads ();
#pragma unroll
  for (int j = 0; j < K; j++)
    {
      run[j] = from[(row0 + j) * S + col];
      d[j] = dv[(row0 + j) * S + col];
    }
  for (int k = iters - 1; k >= 0; k--)
    {
      /* k iterations left after this one; a run that misses the square
       * holds nothing a later sweep reads */
      int lo = HALO - ring - 2 * k, hi = S - lo;
      int x0 = max (lo, -t.ox), x1 = min (hi, n - t.ox);
      int y0 = max (lo, -t.oy), y1 = min (hi, n - t.oy);
      float *swap = from;

      if (col >= x0 && col < x1 && row0 < y1 && row0 + K > y0)
        pressure_run<S, K> (t, from, to, col, row0, lc, rc, inner, run, d);
      from = to;
      to = swap;
      __syncthreads ();
    }
  for_each_cell_unrolled<TILE, THREADS> ([&] (int tx, int ty) {
    int x = t.ox + HALO + tx, y = t.oy + HALO + ty;
    if (x >= n || y >= n)
      return;
    int c = t.at (x, y);
    dst[y * n + x] = from[c];
    if (stage & PRESSURE_DIVERGENCE)
      f.div[y * n + x] = dv[c];
    if (stage & PRESSURE_PROJECT)
      project_cell (p, f, wu, wv, t, from, x, y);
  });
}

template <int TILE, int ITERS>
static cudaError_t
pressure_tiled (cudaStream_t s, const AccelFluidParams *p,
    const AccelFluidFields *f, const float *src, float *dst, const float *wu,
    const float *wv, int iters, int stage)
{
  const size_t smem = 3 * sizeof (float) * pressure_span (TILE, ITERS)
                      * pressure_span (TILE, ITERS);
  int tiles = (p->n + TILE - 1) / TILE;

  if (smem > 48 * 1024)
    {
      cudaError_t err = cudaFuncSetAttribute (k_pressure_tiled<TILE, ITERS>,
          cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
      if (err != cudaSuccess)
        return err;
    }
  return launch_overlapped (k_pressure_tiled<TILE, ITERS>, dim3 (tiles, tiles),
      dim3 (pressure_threads (TILE, ITERS)), smem, s, *p, *f, src, dst, wu, wv,
      iters, stage);
}

static dim3
grid_for (int n)
{
  return dim3 ((n + 15) / 16, (n + 15) / 16);
}

/* the pressure iterations, rounded up to even, from p back into p through
 * p0 in an even number of launches: one an iteration, or tiled, the
 * iterations shared out evenly. Given the velocity (wu, wv), the fused
 * path's launches also take its divergence and project it (so there are
 * at least two) */
static cudaError_t
pressure_solve (cudaStream_t s, const AccelFluidParams *p,
    const AccelFluidFields *f, AccelFluidPath path, const float *wu,
    const float *wv)
{
  int n = p->n, iters = (p->pressure_iters + 1) & ~1;
  bool small = n <= FUSED_SMALL_N;
  int fuse = path == ACCEL_FLUID_FUSED
                 ? (small ? FUSED_SMALL_ITERS : FUSED_ITERS)
             : path == ACCEL_FLUID_TILED ? TILED_ITERS
                                         : 1;
  int launches = (iters + fuse - 1) / fuse;
  cudaError_t err = cudaSuccess;

  launches += launches % 2;
  if (wu && launches < 2)
    launches = 2;
  for (int l = 0; l < launches && err == cudaSuccess; l++)
    {
      const float *src = l % 2 ? f->p0 : f->p;
      float *dst = l % 2 ? f->p : f->p0;
      int count = iters / launches + (l < iters % launches);
      int stage = (l == 0 ? PRESSURE_DIVERGENCE : 0)
                  | (l == launches - 1 ? PRESSURE_PROJECT : 0);

      if (path == ACCEL_FLUID_FUSED && small)
        err = pressure_tiled<FUSED_SMALL_TILE, FUSED_SMALL_ITERS> (
            s, p, f, src, dst, wu, wv, count, wu ? stage : 0);
      else if (path == ACCEL_FLUID_FUSED)
        err = pressure_tiled<FUSED_TILE, FUSED_ITERS> (
            s, p, f, src, dst, wu, wv, count, wu ? stage : 0);
      else if (path == ACCEL_FLUID_TILED)
        err = pressure_tiled<TILED_TILE, TILED_ITERS> (
            s, p, f, src, dst, NULL, NULL, count, 0);
      else
        k_pressure<<<grid_for (n), dim3 (16, 16), 0, s>>> (src, f->div, dst, n);
    }
  return err != cudaSuccess ? err : cudaGetLastError ();
}

extern "C" int
accel_fluid_pressure_solve (void *stream, const AccelFluidParams *p,
    const AccelFluidFields *f, AccelFluidPath path)
{
  return pressure_solve ((cudaStream_t)stream, p, f, path, NULL, NULL);
}

/* the diffusion's iterations from the advected (u0, v0) through (u1, v1)
 * and (u, v); the velocity to project in (wu, wv) */
static void
diffuse (cudaStream_t s, const AccelFluidParams *p, const AccelFluidFields *f,
    const float **wu, const float **wv)
{
  float a = p->viscosity * p->dt;
  int n = p->n;

  *wu = f->u0;
  *wv = f->v0;
  if (p->viscosity > 0.0f)
    for (int k = 0; k < p->diffuse_iters; k++)
      {
        float *du = k % 2 == 0 ? f->u1 : f->u, *dv = k % 2 == 0 ? f->v1 : f->v;
        launch_overlapped (k_jacobi2, grid_for (n), dim3 (16, 16), 0, s, *wu,
            *wv, (const float *)f->u0, (const float *)f->v0, du, dv, n, a);
        *wu = du;
        *wv = dv;
      }
}

/* a launch a pass; the pressure iterations as @path launches them */
static cudaError_t
step_passes (cudaStream_t s, const AccelFluidParams *p,
    const AccelFluidFields *f, AccelFluidPath path)
{
  dim3 g = grid_for (p->n), b (16, 16);
  int n = p->n;
  const float *wu, *wv;
  cudaError_t err;

  if (p->inject_radius > 0.0f)
    k_inject<<<g, b, 0, s>>> (f->u, f->v, f->dye, n, *p);
  if (p->vorticity > 0.0f)
    {
      k_curl<<<g, b, 0, s>>> (f->u, f->v, f->curl, n);
      k_vorticity<<<g, b, 0, s>>> (f->u, f->v, f->curl, n, p->vorticity, p->dt);
    }
  k_advect2<<<g, b, 0, s>>> (f->u, f->v, f->u0, f->v0, n, p->dt);
  diffuse (s, p, f, &wu, &wv);
  k_divergence<<<g, b, 0, s>>> (wu, wv, f->div, n);
  if ((err = pressure_solve (s, p, f, path, NULL, NULL)) != cudaSuccess)
    return err;
  k_project<<<g, b, 0, s>>> (wu, wv, f->p, f->u, f->v, n);
  k_advect_dye<<<g, b, 0, s>>> (
      f->dye, f->u, f->v, f->dye0, n, p->dt, p->dye_decay);
  cudaMemcpyAsync (f->dye, f->dye0, (size_t)n * n * sizeof (float),
      cudaMemcpyDeviceToDevice, s);
  return cudaGetLastError ();
}

/* the forces into (u1, v1, dye0), the advection into (u0, v0), the
 * diffusion if any, then the projection in the pressure's launches, which
 * advect the dye back into dye: no copy */
static cudaError_t
step_fused (
    cudaStream_t s, const AccelFluidParams *p, const AccelFluidFields *f)
{
  int n = p->n, tiles = (n + FORCES_TILE - 1) / FORCES_TILE;
  const float *wu, *wv;

  launch_overlapped (k_forces, dim3 (tiles, tiles), dim3 (FORCES_THREADS), 0, s,
      (const float *)f->u, (const float *)f->v, (const float *)f->dye, f->u1,
      f->v1, f->dye0, *p);
  launch_overlapped (k_advect2, grid_for (n), dim3 (16, 16), 0, s,
      (const float *)f->u1, (const float *)f->v1, f->u0, f->v0, n, p->dt);
  diffuse (s, p, f, &wu, &wv);
  return pressure_solve (s, p, f, ACCEL_FLUID_FUSED, wu, wv);
}

extern "C" int
accel_fluid_step_path (void *stream, const AccelFluidParams *p,
    const AccelFluidFields *f, AccelFluidPath path)
{
  cudaStream_t s = (cudaStream_t)stream;

  if (path == ACCEL_FLUID_FUSED)
    return step_fused (s, p, f);
  return step_passes (s, p, f, path);
}

extern "C" int
accel_fluid_step (
    void *stream, const AccelFluidParams *p, const AccelFluidFields *f)
{
  return accel_fluid_step_path (stream, p, f, accel_fluid_step_path_for (p->n));
}

extern "C" int
accel_fluid_render (void *stream, const AccelFluidParams *p,
    const AccelFluidFields *f, uint8_t *rgba, size_t pitch)
{
  k_render<<<grid_for (p->n), dim3 (16, 16), 0, (cudaStream_t)stream>>> (
      f->dye, rgba, pitch, p->n);
  return cudaGetLastError ();
}
