/* SPDX-License-Identifier: LGPL-2.1-or-later */
// separable blurs on the GPU: the float kernel, a block per frame tile,
// its horizontal pass into a shared-memory tile and its vertical pass out
// of it, for every packed format; and the launchers, which give RGBA8 and
// BGRA8 rows on 16 bytes to kernels of the same results in integers: the
// Gaussian and the unsharp mask in tiles (blur-gauss.cu; the Gaussian of
// radius 1 to 4 on large frames down strips, blur-gauss-run.cu) and, from
// radius 5 to 8, on the tensor cores (blur-mma.cu), the box blur of radius
// 1 to 7 down strips (blur-box.cu)
#include <cuda_runtime.h>

#include "blur-box.h"
#include "blur-gauss.h"
#include "blur-mma.h"
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
  // what the vertical sums are multiplied by (accel_gaussian_taps ())
  float scale;
  float amount;
  float area;
};

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
            acc[c] = OP == OP_BOX ? acc[c] + v[c]
                                  : fmaf (p.w[k + r], v[c], acc[c]);
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
            acc[c] = OP == OP_BOX ? acc[c] + v[c] : fmaf (p.w[k], v[c], acc[c]);
        }
      if constexpr (OP != OP_BOX && K != KIND_F32X4)
        {
          // whole taps: exact integer sums, scaled exactly
#pragma unroll
          for (int c = 0; c < C; c++)
            acc[c] *= p.scale;
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
                     : K == KIND_F32X4
                         ? accel_px_unsharp (centre[c], acc[c], p.amount)
                         : accel_px_unsharp_u8 (centre[c], acc[c], p.amount);
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

// whether the 8-bit kernels take the whole taps of @sp: none may pass a byte
// (only a sigma whose every other tap rounds to 0 puts 256 in the centre)
bool
gauss_fits (const SepParams &sp)
{
  return sp.radius <= ACCEL_GAUSS_TILES_MAX_RADIUS && sp.w[sp.radius] <= 255.0f;
}

template <int OP>
int
launch_gauss (cudaStream_t s, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, const SepParams &sp)
{
  const int r = sp.radius;
  uint32_t taps[2 * ACCEL_IMAGE_MAX_RADIUS + 1];

  for (int k = 0; k <= 2 * r; k++)
    taps[k] = (uint32_t)sp.w[k];
  // radii 5 to 8 take the tensor cores' kernel (blur-mma.cu). On an H200,
  // % of the frame copy at 1080p / 4K against the tiles: sigma 2
  // (radius 5) 67-68 / 68-69 against 62 / 53-54, sigma 3 (8) 67-68 / 68-69
  // against 52-53 / 45; below it, sigma 1 (3) 67-68 / 68-69 against
  // 76-78 / 67-68 (docs/image-kernels.md)
  if (r >= ACCEL_GAUSS_MMA_MIN_RADIUS && r <= ACCEL_GAUSS_MMA_MAX_RADIUS)
    return accel_gauss_mma (s, OP == OP_UNSHARP, src, src_pitch, dst, dst_pitch,
        width, height, r, taps, sp.amount);
  return accel_gauss_tiles (s, OP == OP_UNSHARP, src, src_pitch, dst, dst_pitch,
      width, height, r, taps, sp.amount);
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
      if (OP == OP_BOX && aligned16 (src, src_pitch)
          && aligned16 (dst, dst_pitch)
          && p.radius <= ACCEL_BOX_STRIPS_MAX_RADIUS)
        return accel_box_strips (
            s, src, src_pitch, dst, dst_pitch, width, height, p.radius);
      if constexpr (OP != OP_BOX)
        if (aligned16 (src, src_pitch) && aligned16 (dst, dst_pitch)
            && gauss_fits (p))
          return launch_gauss<OP> (
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

  p.radius = accel_gaussian_taps (format, sigma, p.w, &p.scale);
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
  return dispatch<OP_BOX> (
      stream, format, src, src_pitch, dst, dst_pitch, width, height, p);
}

extern "C" int
accel_unsharp_mask (void *stream, int format, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, float amount,
    float sigma)
{
  SepParams p = {};

  p.radius = accel_gaussian_taps (format, sigma, p.w, &p.scale);
  p.amount = amount;
  return dispatch<OP_UNSHARP> (
      stream, format, src, src_pitch, dst, dst_pitch, width, height, p);
}
