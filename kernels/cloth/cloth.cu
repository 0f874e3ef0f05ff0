/* SPDX-License-Identifier: LGPL-2.1-or-later */
// cloth on the GPU: a small cloth's step in one kernel (a cluster of
// blocks holding it in shared memory), a larger one's as a kernel per pass
// with one thread per vertex; one thread per triangle to draw
#include <atomic>

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "cloth-vertex.h"
#include "cloth.h"
#include "core/overlap.cuh"

namespace cg = cooperative_groups;

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

/* threads a row for the vertices of @colour (-1: every vertex): a
 * Gauss-Seidel pass takes every fifth */
__host__ __device__ int
colour_slots (int w, int colour)
{
  return colour < 0 ? w : (w + CLOTH_COLOURS - 1) / CLOTH_COLOURS;
}

/* the vertex of @colour that thread @t of rows @j0 on takes; false where
 * the thread falls past its row's end */
__device__ bool
colour_vertex (int w, int colour, int j0, int t, int *i, int *j)
{
  int slots = colour_slots (w, colour);

  *j = j0 + t / slots;
  *i = colour < 0
           ? t % slots
           : cloth_colour_first (colour, *j) + CLOTH_COLOURS * (t % slots);
  return *i < w;
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
  cloth_solve_vertex (&p, ix, iy, iz, ox, oy, oz, 0, i, j);
}

/* one colour of a Gauss-Seidel sweep, in place: a thread per vertex of
 * the colour */
__global__ void
k_solve_colour (AccelClothParams p, int colour, float *x, float *y, float *z)
{
  int t = blockIdx.x * blockDim.x + threadIdx.x, i, j;

  if (t >= p.h * colour_slots (p.w, colour)
      || !colour_vertex (p.w, colour, 0, t, &i, &j))
    return;
  cloth_solve_vertex (&p, x, y, z, x, y, z, 0, i, j);
}

__global__ void
k_normal (AccelClothParams p, AccelClothState s)
{
  FOR_VERTEX
  cloth_normal (&p, s.x, s.y, s.z, 0, &s, i, j);
}

/* the fused step: one cluster of blocks, each holding a band of rows in
 * shared memory with the HALO rows either side that its constraints reach
 * (bend: two apart). A cluster barrier stands where a kernel boundary
 * stood, and a vertex near a band's edge, once written, is written into
 * the next band's halo too. Each vertex is still computed by the functions
 * of cloth-vertex.h from the same inputs, so the bits are the launches'.
 * One block could hold a 64^2 cloth, but one SM would take some 10 us a
 * sweep over it (about 800 instructions a vertex), more than the launches
 * it saves; a cluster of 16 spreads that over 16 SMs.
 *
 * A vertex's 12 constraints, each a square root and a division, are some
 * 800 instructions, mostly each waiting on the one before; a thread a
 * vertex is 8 warps an SM at 64^2, far too few to hide that. So a pass gives
 * each vertex LANES neighbouring threads of a warp (at 64^2 four, 32 warps
 * an SM), each computing one or two of the parts cloth_solve_vertex sums
 * its constraints in, and shuffles add the parts in its order: the bits
 * stay the same, with no shared memory and no block barrier between the
 * constraints and the move. */
constexpr int FUSED_THREADS = 1024;
constexpr int FUSED_VERTICES = 512; /* a band's most */
constexpr int MAX_BANDS = 16;       /* a cluster's most blocks (Hopper) */
constexpr int HALO = 2;
constexpr int CONSTRAINTS = 12; /* a vertex's most */

/* a band is at most FUSED_VERTICES and two rows at least, so its halo and
 * its two position copies take at most 3 * 6 floats a vertex */
constexpr size_t FUSED_MAX_SMEM = 3 * 6 * FUSED_VERTICES * sizeof (float);
constexpr int MAX_DEVICES = 64;

/* how the fused step lays a cloth out: @bands bands of @rows rows, a
 * block each; a solve pass's vertices of a band in @slots slots (each
 * vertex of its rows, or each of one colour), each slot's parts of the sum
 * on @lanes neighbouring threads (four where the block holds them, else
 * two): a block of @slots * @lanes threads, rounded up to whole warps */
struct Layout
{
  int rows, bands;
  int slots, lanes;
};

/* this block's rows [j0, j1) of the bands of @rows rows; it holds rows
 * from lo on, the halo above included */
struct Band
{
  int rows, count, rank;
  int j0, j1, lo;
};

/* one copy of the positions in shared memory: a band and its halo */
struct Held
{
  float *x, *y, *z;
};

/* this thread's share of a solve pass: lane @lane of slot @slot's
 * vertex, the @col-th of its colour in the band's row @row (each pass's
 * the same slot); the threads of lane 0 settle the vertices */
struct Part
{
  int slot, lane;
  int row, col;
};

__device__ int
band_lo (int rank, int rows)
{
  return max (rank * rows - HALO, 0);
}

__device__ Band
band_of (int h, int rows)
{
  Band b;

  b.rows = rows;
  b.count = (int)cg::this_cluster ().num_blocks ();
  b.rank = (int)cg::this_cluster ().block_rank ();
  b.j0 = b.rank * rows;
  b.j1 = min (b.j0 + rows, h);
  b.lo = band_lo (b.rank, rows);
  return b;
}

/* copy @copy of the positions, @n floats an array */
__device__ Held
held (float *shm, int copy, size_t n)
{
  return { shm + 3 * copy * n, shm + (3 * copy + 1) * n,
    shm + (3 * copy + 2) * n };
}

__device__ Part
part_of (const Layout &l)
{
  int row_slots = l.slots / l.rows;
  Part part;

  part.slot = (int)threadIdx.x / l.lanes;
  part.lane = (int)threadIdx.x % l.lanes;
  part.row = part.slot / row_slots;
  part.col = part.slot % row_slots;
  return part;
}

/* @v into what @at is in block @rank's shared memory: a 32-bit shared
 * address and store, where a pointer from map_shared_rank () is a 64-bit
 * generic one, kept (and spilled) across the sweeps */
__device__ void
put_remote (const float *at, int rank, float v)
{
  unsigned local = (unsigned)__cvta_generic_to_shared (at), remote;

  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
               : "=r"(remote)
               : "r"(local), "r"(rank));
  asm volatile("st.shared::cluster.f32 [%0], %1;" ::"r"(remote), "f"(v)
               : "memory");
}

/* vertex @from of @c into vertex @to of the same copy in block @rank */
__device__ void
put (Held c, int from, int rank, int to)
{
  put_remote (c.x + to, rank, c.x[from]);
  put_remote (c.y + to, rank, c.y[from]);
  put_remote (c.z + to, rank, c.z[from]);
}

/* vertex (i, j) of this band, just written into @c, into the halo of the
 * band above or below that holds it (bands of two rows at least: no other
 * does); the cluster's next barrier makes it seen there */
__device__ void
share (const Band &b, int w, Held c, int i, int j)
{
  int k = (j - b.lo) * w + i;

  if (b.rank > 0 && j < b.j0 + HALO)
    put (c, k, b.rank - 1, (j - band_lo (b.rank - 1, b.rows)) * w + i);
  if (b.rank + 1 < b.count && j >= b.j1 - HALO)
    put (c, k, b.rank + 1, (j - band_lo (b.rank + 1, b.rows)) * w + i);
}

/* the integration, from and to global memory as k_integrate, the band's
 * new positions kept in @c */
__device__ void
fused_integrate (
    const AccelClothParams &p, const AccelClothState &s, const Band &b, Held c)
{
  for (int t = threadIdx.x, i, j; t < (b.j1 - b.j0) * p.w; t += blockDim.x)
    if (colour_vertex (p.w, -1, b.j0, t, &i, &j))
      {
        int k = j * p.w + i, h = k - b.lo * p.w;

        cloth_integrate (&p, &s, i, j);
        c.x[h] = s.x[k];
        c.y[h] = s.y[k];
        c.z[h] = s.z[k];
        share (b, p.w, c, i, j);
      }
  cg::this_cluster ().sync ();
}

/* the vertex of @colour (-1: any) in @part's slot of this band; false
 * where there is none */
__device__ bool
slot_vertex (const AccelClothParams &p, const Band &b, Part part, int colour,
    int *i, int *j)
{
  *j = b.j0 + part.row;
  *i = colour < 0 ? part.col
                  : cloth_colour_first (colour, *j) + CLOTH_COLOURS * part.col;
  return *j < b.j1 && *i < p.w;
}

/* a thread's vertex in a pass: whether there is one, whether it moves,
 * where it is in the grid and in the band's copies */
struct Slot
{
  bool here, free;
  int i, j, h;
};

/* the Slot of @part's slot for @colour (-1: any), the same every pass of
 * that colour: the Jacobi sweeps take it once (4 % more steps/s at 64^2
 * than each pass finding it again) */
__device__ Slot
slot_of (const AccelClothParams &p, const Band &b, Part part, int colour)
{
  Slot v = {};

  v.here = slot_vertex (p, b, part, colour, &v.i, &v.j);
  v.free = v.here && !cloth_pinned (&p, v.i, v.j);
  v.h = v.here ? (v.j - b.lo) * p.w + v.i : 0;
  return v;
}

/* @s of the lane @d further on */
__device__ ClothSum
sum_down (ClothSum s, int d)
{
  s.n = __shfl_down_sync (~0u, s.n, d);
  s.x = __shfl_down_sync (~0u, s.x, d);
  s.y = __shfl_down_sync (~0u, s.y, d);
  s.z = __shfl_down_sync (~0u, s.z, d);
  return s;
}

/* what k_solve or k_solve_colour does to this band at @v (slot_of ()
 * for the pass's colour): from @in into @out (the same under
 * Gauss-Seidel, whose pass reads no vertex it writes), and into the halo
 * of the band beside that holds the vertex. Each lane sums its parts of
 * its slot's vertex, and lane 0 the lanes' sums, in cloth_solve_vertex's
 * order: every lane of the warp shuffles. @k2_of holds cloth_move's
 * factor by count, computed once */
template <int LANES>
__device__ void
fused_solve (const AccelClothParams &p, const Band &b, Part part, Slot v,
    Held in, Held out, const float *k2_of)
{
  constexpr int PARTS = CLOTH_PARTS / LANES;
  ClothSum s = { 0, 0.0f, 0.0f, 0.0f };
  float x = 0.0f, y = 0.0f, z = 0.0f;

  static_assert (LANES == 2 || LANES == 4, "a lane's parts are added first");
  if (v.here)
    {
      x = in.x[v.h];
      y = in.y[v.h];
      z = in.z[v.h];
    }
  if (v.free)
    {
      s = cloth_part (&p, in.x, in.y, in.z, b.lo * p.w, v.i, v.j, x, y, z,
          part.lane * PARTS);
      if (PARTS == 2)
        s = cloth_sum_add (s, cloth_part (&p, in.x, in.y, in.z, b.lo * p.w, v.i,
                                  v.j, x, y, z, part.lane * PARTS + 1));
    }
  for (int d = 1; d < LANES; d *= 2)
    s = cloth_sum_add (s, sum_down (s, d));
  if (v.here && part.lane == 0)
    {
      if (v.free)
        cloth_move_by (&p, s, k2_of[s.n], &x, &y, &z);
      out.x[v.h] = x;
      out.y[v.h] = y;
      out.z[v.h] = z;
      share (b, p.w, out, v.i, v.j);
    }
  cg::this_cluster ().sync ();
}

/* the normals (the halo holds the neighbours' last positions), then the
 * band's positions and @scratch (Jacobi's other copy, where sweeps ran;
 * else no arrays) back to global memory, as the launches leave them */
__device__ void
fused_finish (const AccelClothParams &p, const AccelClothState &s,
    const Band &b, Held c, Held scratch)
{
  for (int t = threadIdx.x, i, j; t < (b.j1 - b.j0) * p.w; t += blockDim.x)
    if (colour_vertex (p.w, -1, b.j0, t, &i, &j))
      {
        int k = j * p.w + i, h = k - b.lo * p.w;

        cloth_normal (&p, c.x, c.y, c.z, b.lo * p.w, &s, i, j);
        s.x[k] = c.x[h];
        s.y[k] = c.y[h];
        s.z[k] = c.z[h];
        if (scratch.x)
          {
            s.sx[k] = scratch.x[h];
            s.sy[k] = scratch.y[h];
            s.sz[k] = scratch.z[h];
          }
      }
}

/* the passes of accel_cloth_step's launches, in the same order */
template <int LANES>
__global__ void
__launch_bounds__ (FUSED_THREADS)
    k_step_fused (AccelClothParams p, AccelClothState s, Layout l)
{
  extern __shared__ float shm[];
  __shared__ float k2_of[CONSTRAINTS + 1];
  Band b = band_of (p.h, l.rows);
  Part part = part_of (l);
  size_t n = (size_t)(l.rows + 2 * HALO) * p.w;
  /* the positions; Jacobi's other copy (Gauss-Seidel has none) */
  Held a = held (shm, 0, n), other = held (shm, 1, n);

  if (threadIdx.x <= CONSTRAINTS)
    k2_of[threadIdx.x] = threadIdx.x ? p.relax / (float)threadIdx.x : 0.0f;
  /* every block has started before any writes into another's memory */
  cg::this_cluster ().sync ();
  /* the step before (launched or not this way) has ended and its writes
   * are visible */
  cudaGridDependencySynchronize ();
  fused_integrate (p, s, b, a);
  if (p.solver == ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL)
    for (int it = 0; it < p.iterations; it++)
      for (int c = 0; c < CLOTH_COLOURS; c++)
        fused_solve<LANES> (p, b, part, slot_of (p, b, part, c), a, a, k2_of);
  else
    {
      const Slot v = slot_of (p, b, part, -1);

      for (int it = 0; it < p.iterations; it += 2)
        {
          fused_solve<LANES> (p, b, part, v, a, other, k2_of);
          fused_solve<LANES> (p, b, part, v, other, a, k2_of);
        }
    }
  /* the next step may launch now, on other SMs, and wait for this one at
   * cudaGridDependencySynchronize (); earlier, at the start, measured
   * slower (then every step after also starts early, and waits) */
  cudaTriggerProgrammaticLaunchCompletion ();
  /* no remote access follows the last barrier: blocks may end freely */
  fused_finish (p, s, b, a,
      p.solver == ACCEL_CLOTH_SOLVER_JACOBI && p.iterations > 0 ? other
                                                                : Held{});
}

/* the fused step with @lanes lanes a vertex */
const void *
fused_kernel (int lanes)
{
  return lanes == 4 ? (const void *)k_step_fused<4>
                    : (const void *)k_step_fused<2>;
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

/* the most blocks a cluster of the fused step with @lanes lanes a vertex
 * has on the current device, its attributes set: 0 where it has none */
int
ask_cluster (int lanes)
{
  const void *kernel = fused_kernel (lanes);
  cudaLaunchConfig_t config = {};
  int size = 0;

  config.gridDim = dim3 (MAX_BANDS);
  config.blockDim = dim3 (FUSED_THREADS);
  config.dynamicSmemBytes = FUSED_MAX_SMEM;
  if (cudaFuncSetAttribute (
          kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1)
          != cudaSuccess
      || cudaFuncSetAttribute (kernel,
             cudaFuncAttributeMaxDynamicSharedMemorySize, (int)FUSED_MAX_SMEM)
             != cudaSuccess
      || cudaOccupancyMaxPotentialClusterSize (&size, kernel, &config)
             != cudaSuccess)
    {
      /* no launch's error: the step takes the kernels */
      (void)cudaGetLastError ();
      return 0;
    }
  return size;
}

/* the most blocks a cluster of the fused step has on @device, either
 * way: 0 before Hopper; 16 (non-portable) where the device schedules it, a
 * block an SM (its threads take all the registers) */
int
ask_max_bands (int device)
{
  int clusters = 0;

  if (cudaDeviceGetAttribute (&clusters, cudaDevAttrClusterLaunch, device)
          != cudaSuccess
      || !clusters)
    {
      (void)cudaGetLastError ();
      return 0;
    }
  return min (min (ask_cluster (2), ask_cluster (4)), MAX_BANDS);
}

/* ask_max_bands for the current device, asked once a device */
int
max_bands (void)
{
  static std::atomic<int> known[MAX_DEVICES]; /* the answer + 1 */
  int device, n;

  if (cudaGetDevice (&device) != cudaSuccess)
    {
      (void)cudaGetLastError ();
      return 0;
    }
  if (device < MAX_DEVICES
      && (n = known[device].load (std::memory_order_relaxed)) > 0)
    return n - 1;
  n = ask_max_bands (device);
  if (device < MAX_DEVICES)
    known[device].store (n + 1, std::memory_order_relaxed);
  return n;
}

/* the fused step's layout for @p: bands of two rows at least, as many as
 * the cluster takes; false where it does not take the cloth. The threshold
 * is FUSED_VERTICES a band, not what shared memory holds: past it a band's
 * SM computes serially what the kernels spread over the whole GPU, and
 * the launches saved (about 2 us a pass) stop paying for it */
bool
fused_layout (const AccelClothParams *p, Layout *l)
{
  int most = max_bands ();

  if (most < 1)
    return false;
  l->bands = min (most, (p->h + 1) / 2);
  l->rows = (p->h + l->bands - 1) / l->bands;
  l->bands = (p->h + l->rows - 1) / l->rows;
  if ((size_t)l->rows * (size_t)p->w > (size_t)FUSED_VERTICES)
    return false;
  /* every colour of a row has as many slots */
  l->slots = l->rows
             * colour_slots (
                 p->w, p->solver == ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL ? 0 : -1);
  l->lanes = l->slots * 4 <= FUSED_THREADS ? 4 : 2;
  return true;
}

int
step_fused (cudaStream_t stream, const AccelClothParams *p,
    const AccelClothState *s, const Layout &l)
{
  int copies = p->solver == ACCEL_CLOTH_SOLVER_JACOBI ? 2 : 1;
  void *args[] = { (void *)p, (void *)s, (void *)&l };
  cudaLaunchConfig_t config = {};
  cudaLaunchAttribute attrs[2] = {};

  attrs[0].id = cudaLaunchAttributeClusterDimension;
  attrs[0].val.clusterDim.x = l.bands;
  attrs[0].val.clusterDim.y = 1;
  attrs[0].val.clusterDim.z = 1;
  /* a step after a step launches while the first runs, on other SMs, and
   * waits in the kernel: the gap between the two is hidden */
  attrs[1] = overlap_attribute ();
  config.gridDim = dim3 (l.bands);
  config.blockDim = dim3 ((l.slots * l.lanes + 31) / 32 * 32);
  config.dynamicSmemBytes
      = 3 * copies * (size_t)(l.rows + 2 * HALO) * p->w * sizeof (float);
  config.stream = stream;
  config.attrs = attrs;
  config.numAttrs = 2;
  (void)cudaLaunchKernelExC (&config, fused_kernel (l.lanes), args);
  return cudaGetLastError ();
}

int
step_kernels (
    cudaStream_t st, const AccelClothParams *p, const AccelClothState *s)
{
  unsigned blocks = blocks_for ((size_t)p->w * p->h);

  k_integrate<<<blocks, THREADS, 0, st>>> (*p, *s);
  if (p->solver == ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL)
    for (int it = 0; it < p->iterations; it++)
      for (int c = 0; c < CLOTH_COLOURS; c++)
        k_solve_colour<<<blocks_for ((size_t)p->h * colour_slots (p->w, c)),
            THREADS, 0, st>>> (*p, c, s->x, s->y, s->z);
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
accel_cloth_step_path (
    void *stream, const AccelClothParams *p, const AccelClothState *s, int path)
{
  Layout l;

  if (!args_valid (p) || path < ACCEL_CLOTH_PATH_AUTO
      || path > ACCEL_CLOTH_PATH_KERNELS)
    return cudaErrorInvalidValue;
  if (path != ACCEL_CLOTH_PATH_KERNELS && fused_layout (p, &l))
    return step_fused ((cudaStream_t)stream, p, s, l);
  if (path == ACCEL_CLOTH_PATH_FUSED)
    return cudaErrorNotSupported;
  return step_kernels ((cudaStream_t)stream, p, s);
}

extern "C" int
accel_cloth_step (
    void *stream, const AccelClothParams *p, const AccelClothState *s)
{
  return accel_cloth_step_path (stream, p, s, ACCEL_CLOTH_PATH_AUTO);
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
