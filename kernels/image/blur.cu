/* SPDX-License-Identifier: LGPL-2.1-or-later */
// separable blurs on the GPU: one kernel per frame tile, horizontal pass
// into a shared-memory tile, vertical pass out of it. RGBA8 and BGRA8 rows
// on 16 bytes with a radius up to FAST_MAX_RADIUS take a faster kernel of
// the same arithmetic: 16-byte loads, each thread eight pixels of a row in
// the horizontal pass and a column of eight in the vertical one
#include <cuda_runtime.h>

#include "blur.h"
#include "image-device.cuh"

using namespace accel_image;

namespace
{

enum
{
  OP_GAUSSIAN,
  OP_BOX,
  OP_UNSHARP,
};

// a block covers TILE_W columns and tile_h rows of output
constexpr int TILE_W = 32;
constexpr int BLOCK_Y = 8;
// the shared tile stays within the 48 KiB every launch may use
constexpr int SMEM_BYTES = 48 * 1024;

struct SepParams
{
  float w[2 * ACCEL_IMAGE_MAX_RADIUS + 1];
  int radius;
  int tile_h;
  float amount;
  float area;
  float inv_area;
};

// one tap of a separable sum: the box adds, the others multiply-add; every
// output's taps go from -radius to +radius, as on the host
template <int OP>
__device__ __forceinline__ float
tap (float acc, float w, float v)
{
  return OP == OP_BOX ? acc + v : fmaf (w, v, acc);
}

template <int C>
__device__ __forceinline__ void
tile_store (float *tile, int i, const float *v)
{
  if constexpr (C == 4)
    reinterpret_cast<float4 *> (tile)[i] = make_float4 (v[0], v[1], v[2], v[3]);
  else
    tile[i] = v[0];
}

template <int C>
__device__ __forceinline__ void
tile_load (const float *tile, int i, float *v)
{
  if constexpr (C == 4)
    {
      float4 t = reinterpret_cast<const float4 *> (tile)[i];
      v[0] = t.x;
      v[1] = t.y;
      v[2] = t.z;
      v[3] = t.w;
    }
  else
    {
      v[0] = tile[i];
    }
}

template <int K, bool A, int OP>
__global__ void
__launch_bounds__ (TILE_W *BLOCK_Y) separable (const uint8_t *__restrict__ src,
    size_t src_pitch, uint8_t *__restrict__ dst, size_t dst_pitch, int width,
    int height, const __grid_constant__ SepParams p)
{
  constexpr int C = Traits<K>::C;
  extern __shared__ float4 smem4[];
  float *tile = reinterpret_cast<float *> (smem4);
  const int r = p.radius, th = p.tile_h, rows = th + 2 * r;
  const int x0 = blockIdx.x * TILE_W, y0 = blockIdx.y * th;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int gx = min (x0 + tx, width - 1);

  // horizontal pass over the tile's rows and the halo above and below
  for (int ry = ty; ry < rows; ry += BLOCK_Y)
    {
      const uint8_t *row
          = src + (size_t)clampi (y0 - r + ry, 0, height - 1) * src_pitch;
      float acc[C];
#pragma unroll
      for (int c = 0; c < C; c++)
        acc[c] = 0.0f;
      for (int k = -r; k <= r; k++)
        {
          float v[C];
          load_px<K, A> (row, clampi (gx + k, 0, width - 1), v);
#pragma unroll
          for (int c = 0; c < C; c++)
            acc[c] = tap<OP> (acc[c], p.w[k + r], v[c]);
        }
      tile_store<C> (tile, ry * TILE_W + tx, acc);
    }
  __syncthreads ();

  if (x0 + tx >= width)
    return;
  for (int oy = ty; oy < th && y0 + oy < height; oy += BLOCK_Y)
    {
      const int y = y0 + oy;
      float acc[C], out[C];
#pragma unroll
      for (int c = 0; c < C; c++)
        acc[c] = 0.0f;
      for (int k = 0; k <= 2 * r; k++)
        {
          float v[C];
          tile_load<C> (tile, (oy + k) * TILE_W + tx, v);
#pragma unroll
          for (int c = 0; c < C; c++)
            acc[c] = tap<OP> (acc[c], p.w[k], v[c]);
        }
      if constexpr (OP == OP_BOX)
        {
#pragma unroll
          for (int c = 0; c < C; c++)
            out[c] = acc[c] / p.area;
        }
      else if constexpr (OP == OP_UNSHARP)
        {
          float centre[C];
          load_px<K, A> (src + (size_t)y * src_pitch, gx, centre);
#pragma unroll
          for (int c = 0; c < C; c++)
            out[c] = c == 3 ? centre[c]
                            : accel_px_unsharp (centre[c], acc[c], p.amount);
        }
      else
        {
#pragma unroll
          for (int c = 0; c < C; c++)
            out[c] = acc[c];
        }
      store_px<K, A> (dst + (size_t)y * dst_pitch, gx, out);
    }
}

// the fast kernel: a block makes FAST_W x FastTile<R>::H output pixels. In
// the horizontal pass a thread makes a run of FAST_RUN pixels of a row,
// unpacking each pixel of the run's window once; in the vertical pass it
// makes FAST_ROWS pixels of a column, reading each tile row once and keeping
// the sums of the 2 radius + 1 rows in flight in registers
constexpr int FAST_W = 32;
constexpr int FAST_RUN = 8;
constexpr int FAST_ROWS = 8;
constexpr int FAST_MAX_RADIUS = 9;
// tile rows FAST_W + 1 float4 apart: the eight threads of a 16-byte shared
// access (eight rows of a run in the horizontal pass, eight columns of a
// row in the vertical one) reach all the banks
constexpr int FAST_PITCH = FAST_W + 1;
constexpr int FAST_RUNS = FAST_W / FAST_RUN;
static_assert (FAST_RUN == FAST_ROWS, "as many runs as column pieces");

// the tile of radius R: H output rows, a thread for each run of them and
// for each FAST_ROWS of a column, which then make the runs of the 2 R rows
// below. BLOCKS, the blocks an SM holds, is as many as the shared tile
// allows as far as the registers of the radius' window fit without
// spilling: 40 registers up to radius 2, 48 at 3, 64 above, where a tile
// twice as tall (two blocks instead of four) repeats fewer halo rows
template <int R> struct FastTile
{
  static constexpr int H = R <= 3 ? 64 : 128;
  static constexpr int THREADS = FAST_RUNS * H;
  static constexpr int BLOCKS = R <= 2 ? 6 : R == 3 ? 5 : 2;
  static_assert (2 * R <= H, "the horizontal pass makes the tile in two goes");
};

// channels summed: the unsharp mask keeps alpha as it is
template <int OP> constexpr int fast_channels = OP == OP_UNSHARP ? 3 : 4;

// tap @k of a fast-path sum @acc, which tap 0 starts from 0; its terms are
// bytes or sums of them, never negative, so 0 + v is v and the box starts
// from its first term
template <int OP>
__device__ __forceinline__ float
fast_tap (float acc, int k, float w, float v)
{
  if (k == 0)
    return OP == OP_BOX ? v : tap<OP> (0.0f, w, v);
  return tap<OP> (acc, w, v);
}

// the RGBA8 word of an output pixel from its sums @acc; the unsharp mask
// reads its source pixel at @centre
template <int OP>
__device__ __forceinline__ uint32_t
fast_output (
    const float *acc, const SepParams &p, const uint32_t *__restrict__ centre)
{
  if constexpr (OP == OP_GAUSSIAN)
    {
      // non-negative taps of sum 1 keep a blur of bytes within [0, 255]
      return pack_u8x4 (to_u8_in_range (acc[0]), to_u8_in_range (acc[1]),
          to_u8_in_range (acc[2]), to_u8_in_range (acc[3]));
    }
  else if constexpr (OP == OP_BOX)
    {
      // the sums are exact integers s, and s * (1 / area) rounds to the
      // same byte as s / area for every s up to 255 area while the radius
      // is at most FAST_MAX_RADIUS (checked for all of them)
      return pack_u8x4 (to_u8_in_range (acc[0] * p.inv_area),
          to_u8_in_range (acc[1] * p.inv_area),
          to_u8_in_range (acc[2] * p.inv_area),
          to_u8_in_range (acc[3] * p.inv_area));
    }
  else
    {
      const uint32_t cw = *centre;
      uint32_t b[3];

#pragma unroll
      for (int c = 0; c < 3; c++)
        b[c] = accel_px_to_u8 (
            accel_px_unsharp (byte_to_f (cw, c), acc[c], p.amount));
      return pack_u8x4 (b[0], b[1], b[2], cw >> 24);
    }
}

// the horizontal pass of one run: FAST_RUN pixels from column @x of source
// row @y (clamped to the frame) into the tile at @out
template <int R, int OP>
__device__ __forceinline__ void
fast_horizontal (const uint8_t *__restrict__ src, size_t src_pitch, int y,
    int height, int x, int width, float4 *out, const SepParams &p)
{
  // chunks of four pixels left of the run, and the index in the loaded
  // words of the first pixel its taps reach
  constexpr int LEFT = (R + 3) / 4, CHUNKS = FAST_RUN / 4 + 2 * LEFT;
  constexpr int FIRST = 4 * LEFT - R, N = FAST_RUN + 2 * R;
  uint32_t raw[4 * CHUNKS];
  float v[N][4];

  // (unsigned): the clamped row needs no sign extension
  load_words4_clamped<CHUNKS> (
      src + (unsigned)clampi (y, 0, height - 1) * src_pitch, x - 4 * LEFT,
      width, raw);
#pragma unroll
  for (int j = 0; j < N; j++)
#pragma unroll
    for (int c = 0; c < 4; c++)
      v[j][c] = byte_to_f (raw[FIRST + j], c);
#pragma unroll
  for (int i = 0; i < FAST_RUN; i++)
    {
      float acc[4] = {};
#pragma unroll
      for (int k = 0; k <= 2 * R; k++)
#pragma unroll
        for (int c = 0; c < fast_channels<OP>; c++)
          acc[c] = fast_tap<OP> (acc[c], k, p.w[k], v[i + k][c]);
      out[i] = make_float4 (acc[0], acc[1], acc[2], acc[3]);
    }
}

// the vertical pass of one thread: FAST_ROWS outputs down @column of the
// tile, of which the first @rows lie inside the frame (all of them if FULL)
template <int R, int OP, bool FULL>
__device__ __forceinline__ void
fast_vertical (const float4 *column, uint8_t *__restrict__ out,
    size_t dst_pitch, const uint8_t *__restrict__ centre, size_t src_pitch,
    int rows, const SepParams &p)
{
  float acc[FAST_ROWS][4] = {};

  // tile row j is tap j - i of output row i: each output's taps still go
  // from the top down
#pragma unroll
  for (int j = 0; j < FAST_ROWS + 2 * R; j++)
    {
      const float4 t = column[j * FAST_PITCH];
      const float tv[4] = { t.x, t.y, t.z, t.w };
      const int m = j - 2 * R;

#pragma unroll
      for (int i = 0; i < FAST_ROWS; i++)
        if (i <= j && j - i <= 2 * R)
#pragma unroll
          for (int c = 0; c < fast_channels<OP>; c++)
            acc[i][c] = fast_tap<OP> (acc[i][c], j - i, p.w[j - i], tv[c]);
      if (m >= 0 && (FULL || m < rows))
        *reinterpret_cast<uint32_t *> (out + m * dst_pitch)
            = fast_output<OP> (acc[m], p,
                reinterpret_cast<const uint32_t *> (centre + m * src_pitch));
    }
}

template <int R, int OP>
__global__ void
__launch_bounds__ (FastTile<R>::THREADS, FastTile<R>::BLOCKS)
    separable_rgba (const uint8_t *__restrict__ src, size_t src_pitch,
        uint8_t *__restrict__ dst, size_t dst_pitch, int width, int height,
        const __grid_constant__ SepParams p)
{
  extern __shared__ float4 hs[];
  constexpr int H = FastTile<R>::H;
  const int x0 = blockIdx.x * FAST_W, y0 = blockIdx.y * H;
  // eight consecutive threads take the same run of eight rows
  const int run = threadIdx.x / 8 % FAST_RUNS;
  const int ry = threadIdx.x / (8 * FAST_RUNS) * 8 + threadIdx.x % 8;
  float4 *runs = hs + ry * FAST_PITCH + FAST_RUN * run;

  fast_horizontal<R, OP> (
      src, src_pitch, y0 - R + ry, height, x0 + FAST_RUN * run, width, runs, p);
  if (ry < 2 * R)
    fast_horizontal<R, OP> (src, src_pitch, y0 - R + H + ry, height,
        x0 + FAST_RUN * run, width, runs + H * FAST_PITCH, p);
  __syncthreads ();

  const int col = threadIdx.x % FAST_W, x = x0 + col;
  const int r0 = threadIdx.x / FAST_W * FAST_ROWS, rows = height - y0 - r0;
  const float4 *column = hs + r0 * FAST_PITCH + col;
  uint8_t *out = dst + (size_t)(y0 + r0) * dst_pitch + 4 * x;
  const uint8_t *centre = src + (size_t)(y0 + r0) * src_pitch + 4 * x;

  if (x >= width)
    return;
  // the bottom tiles apart, every output row lies inside the frame
  if (rows >= FAST_ROWS)
    fast_vertical<R, OP, true> (
        column, out, dst_pitch, centre, src_pitch, rows, p);
  else
    fast_vertical<R, OP, false> (
        column, out, dst_pitch, centre, src_pitch, rows, p);
}

template <int R, int OP>
int
launch_fast_radius (cudaStream_t stream, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, const SepParams &p)
{
  constexpr int H = FastTile<R>::H;
  const size_t smem = sizeof (float4) * FAST_PITCH * (H + 2 * R);
  dim3 grid ((width + FAST_W - 1) / FAST_W, (height + H - 1) / H);
  int err;

  if (smem > 48 * 1024)
    {
      err = cudaFuncSetAttribute (separable_rgba<R, OP>,
          cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
      if (err != cudaSuccess)
        return err;
    }
  separable_rgba<R, OP>
      <<<grid, FastTile<R>::THREADS, smem, stream>>> ((const uint8_t *)src,
          src_pitch, (uint8_t *)dst, dst_pitch, width, height, p);
  return cudaGetLastError ();
}

template <int OP>
int
launch_fast (cudaStream_t s, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, const SepParams &p)
{
#define ACCEL_BLUR_RADIUS(R)                                                   \
  case R:                                                                      \
    return launch_fast_radius<R, OP> (                                         \
        s, src, src_pitch, dst, dst_pitch, width, height, p);
  switch (p.radius)
    {
      ACCEL_BLUR_RADIUS (1)
      ACCEL_BLUR_RADIUS (2)
      ACCEL_BLUR_RADIUS (3)
      ACCEL_BLUR_RADIUS (4)
      ACCEL_BLUR_RADIUS (5)
      ACCEL_BLUR_RADIUS (6)
      ACCEL_BLUR_RADIUS (7)
      ACCEL_BLUR_RADIUS (8)
    default:
      return launch_fast_radius<FAST_MAX_RADIUS, OP> (
          s, src, src_pitch, dst, dst_pitch, width, height, p);
    }
#undef ACCEL_BLUR_RADIUS
}

template <int K, bool A, int OP>
int
launch (cudaStream_t stream, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, SepParams &p)
{
  constexpr int C = Traits<K>::C;
  constexpr int row_bytes = TILE_W * C * (int)sizeof (float);
  // as many rows as the shared tile holds, at most 64
  int th = SMEM_BYTES / row_bytes - 2 * p.radius;
  dim3 block (TILE_W, BLOCK_Y);
  dim3 grid;

  th = th > 64 ? 64 : th;
  p.tile_h = th;
  grid = dim3 ((width + TILE_W - 1) / TILE_W, (height + th - 1) / th);
  separable<K, A, OP>
      <<<grid, block, (size_t)row_bytes *(th + 2 * p.radius), stream>>> (
          (const uint8_t *)src, src_pitch, (uint8_t *)dst, dst_pitch, width,
          height, p);
  return cudaGetLastError ();
}

template <int OP>
int
dispatch (void *stream, int format, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, SepParams &p)
{
  cudaStream_t s = (cudaStream_t)stream;
  int kind = kind_of (format);
  bool a = aligned_for (kind, src, src_pitch)
           && aligned_for (kind, dst, dst_pitch);

  if (!accel_image_format_is_packed (format)
      || !accel_image_args_valid (format, src, src_pitch, width, height)
      || !accel_image_args_valid (format, dst, dst_pitch, width, height)
      || p.radius < 1 || p.radius > ACCEL_IMAGE_MAX_RADIUS)
    return cudaErrorInvalidValue;
  switch (kind)
    {
    case KIND_U8X1:
      return launch<KIND_U8X1, true, OP> (
          s, src, src_pitch, dst, dst_pitch, width, height, p);
    case KIND_U8X4:
      if (aligned16 (src, src_pitch) && aligned16 (dst, dst_pitch)
          && p.radius <= FAST_MAX_RADIUS)
        return launch_fast<OP> (
            s, src, src_pitch, dst, dst_pitch, width, height, p);
      return a ? launch<KIND_U8X4, true, OP> (
                 s, src, src_pitch, dst, dst_pitch, width, height, p)
               : launch<KIND_U8X4, false, OP> (
                   s, src, src_pitch, dst, dst_pitch, width, height, p);
    default:
      return a ? launch<KIND_F32X4, true, OP> (
                 s, src, src_pitch, dst, dst_pitch, width, height, p)
               : launch<KIND_F32X4, false, OP> (
                   s, src, src_pitch, dst, dst_pitch, width, height, p);
    }
}

} // namespace

extern "C" int
accel_gaussian_blur (void *stream, int format, const void *src,
    size_t src_pitch, void *dst, size_t dst_pitch, int width, int height,
    float sigma)
{
  SepParams p = {};

  p.radius = accel_gaussian_weights (sigma, p.w);
  return dispatch<OP_GAUSSIAN> (
      stream, format, src, src_pitch, dst, dst_pitch, width, height, p);
}

extern "C" int
accel_box_blur (void *stream, int format, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, int radius)
{
  SepParams p = {};

  p.radius = radius;
  p.area = (float)((2 * radius + 1) * (2 * radius + 1));
  p.inv_area = 1.0f / p.area;
  return dispatch<OP_BOX> (
      stream, format, src, src_pitch, dst, dst_pitch, width, height, p);
}

extern "C" int
accel_unsharp_mask (void *stream, int format, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, float amount,
    float sigma)
{
  SepParams p = {};

  p.radius = accel_gaussian_weights (sigma, p.w);
  p.amount = amount;
  return dispatch<OP_UNSHARP> (
      stream, format, src, src_pitch, dst, dst_pitch, width, height, p);
}
