/* SPDX-License-Identifier: LGPL-2.1-or-later */
// bilinear resize on the GPU: one output pixel per thread, the four taps
// through the read-only cache. RGBA8 and BGRA8 rows on 16 bytes take a
// faster kernel of the same arithmetic: four output pixels per thread in
// one 16-byte store, down a run of rows that reuses a source row's
// horizontal interpolation while the next output row reads it too; exact
// 2x upscales unpack each source pixel a thread reads once
#include <cuda_runtime.h>

#include "resize.h"
#include "image-device.cuh"

using namespace accel_image;

namespace
{

constexpr int BLOCK_X = 32;
constexpr int BLOCK_Y = 8;

template <int K, bool A>
__global__ void
__launch_bounds__ (BLOCK_X *BLOCK_Y) resize (const uint8_t *__restrict__ src,
    size_t src_pitch, int src_width, int src_height, uint8_t *__restrict__ dst,
    size_t dst_pitch, int dst_width, int dst_height, float sx, float sy)
{
  constexpr int C = Traits<K>::C;
  const int x = blockIdx.x * BLOCK_X + threadIdx.x;
  int x0, x1;
  float tx;

  if (x >= dst_width)
    return;
  accel_px_resize_tap (x, sx, src_width, &x0, &x1, &tx);
  for (int y = blockIdx.y * BLOCK_Y + threadIdx.y; y < dst_height;
       y += gridDim.y * BLOCK_Y)
    {
      int y0, y1;
      float ty, p00[C], p01[C], p10[C], p11[C], out[C];

      accel_px_resize_tap (y, sy, src_height, &y0, &y1, &ty);
      load_px<K, A> (src + (size_t)y0 * src_pitch, x0, p00);
      load_px<K, A> (src + (size_t)y0 * src_pitch, x1, p01);
      load_px<K, A> (src + (size_t)y1 * src_pitch, x0, p10);
      load_px<K, A> (src + (size_t)y1 * src_pitch, x1, p11);
#pragma unroll
      for (int c = 0; c < C; c++)
        out[c] = accel_px_lerp (accel_px_lerp (p00[c], p01[c], tx),
            accel_px_lerp (p10[c], p11[c], tx), ty);
      store_px<K, A> (dst + (size_t)y * dst_pitch, x, out);
    }
}

constexpr int FAST_THREADS = 256;
constexpr int FAST_QUADS = 64; // four-pixel groups across a block

// the horizontal interpolation of source row @row at the four output
// columns whose taps are @x0, @x1, @t
__device__ __forceinline__ void
resize_row4 (const uint8_t *__restrict__ row, const int *x0, const int *x1,
    const float *t, float (*h)[4])
{
  const uint32_t *px = reinterpret_cast<const uint32_t *> (row);

#pragma unroll
  for (int i = 0; i < 4; i++)
    {
      const uint32_t a = px[x0[i]], b = px[x1[i]];
#pragma unroll
      for (int c = 0; c < 4; c++)
        h[i][c] = accel_px_lerp (byte_to_f (a, c), byte_to_f (b, c), t[i]);
    }
}

// four output pixels from @xq of @orow between the interpolated source rows
// @top and @bottom: one 16-byte store, or as many pixels as the row has
__device__ __forceinline__ void
store_lerp4 (uint8_t *orow, int xq, int dst_width, const float (*top)[4],
    const float (*bottom)[4], float ty)
{
  uint32_t w[4];

  // a lerp of bytes stays within [0, 255]
#pragma unroll
  for (int i = 0; i < 4; i++)
    w[i] = pack_u8x4 (
        to_u8_in_range (accel_px_lerp (top[i][0], bottom[i][0], ty)),
        to_u8_in_range (accel_px_lerp (top[i][1], bottom[i][1], ty)),
        to_u8_in_range (accel_px_lerp (top[i][2], bottom[i][2], ty)),
        to_u8_in_range (accel_px_lerp (top[i][3], bottom[i][3], ty)));
  store_words4 (orow, xq, dst_width, w);
}

// ROWS: output rows per thread, 1 where no source row serves two
template <int ROWS>
__global__ void
__launch_bounds__ (FAST_THREADS) resize_rgba (const uint8_t *__restrict__ src,
    size_t src_pitch, int src_width, int src_height, uint8_t *__restrict__ dst,
    size_t dst_pitch, int dst_width, int dst_height, float sx, float sy)
{
  const int xq = 4 * (blockIdx.x * FAST_QUADS + threadIdx.x % FAST_QUADS);
  const int ya
      = (blockIdx.y * (FAST_THREADS / FAST_QUADS) + threadIdx.x / FAST_QUADS)
        * ROWS;
  int x0[4], x1[4], have0 = -1, have1 = -1;
  float tx[4], h0[4][4], h1[4][4];

  if (xq >= dst_width)
    return;
#pragma unroll
  for (int i = 0; i < 4; i++)
    accel_px_resize_tap (
        min (xq + i, dst_width - 1), sx, src_width, &x0[i], &x1[i], &tx[i]);
  for (int y = ya; y < ya + ROWS && y < dst_height; y++)
    {
      int y0, y1;
      float ty;

      accel_px_resize_tap (y, sy, src_height, &y0, &y1, &ty);
      // rows already interpolated move up instead of being read again
      if (y0 == have1 && have1 != have0)
        {
#pragma unroll
          for (int i = 0; i < 4; i++)
#pragma unroll
            for (int c = 0; c < 4; c++)
              h0[i][c] = h1[i][c];
          have0 = have1;
        }
      if (y0 != have0)
        {
          resize_row4 (src + (size_t)y0 * src_pitch, x0, x1, tx, h0);
          have0 = y0;
        }
      if (y1 != have1)
        {
          resize_row4 (src + (size_t)y1 * src_pitch, x0, x1, tx, h1);
          have1 = y1;
        }
      store_lerp4 (dst + (size_t)y * dst_pitch, xq, dst_width, h0, h1, ty);
    }
}

// exact 2x upscales of RGBA8: output columns 4n .. 4n + 3 take their taps
// from source columns 2n - 1 .. 2n + 2, output rows 2k and 2k + 1 from
// source rows k - 1 .. k + 1 (clamped at the edges, where the taps
// accel_px_resize_tap () gives coincide or weigh nothing). Its weights are
// then 1/4 and 3/4 each way, so every lerp of bytes is exact in floats (a
// multiple of 1/16 below 256) and the same sums in integers give the same
// bytes: out = (sum of 9, 3, 3, 1 x the four taps + 8) >> 4. Each channel
// pair sums in the 16-bit halves of a word (split_channels ()), at most
// 16 x 255 + 8. A thread interpolates each source row once for two output
// rows
constexpr int UP2_ROWS = 8;                       // output rows a thread
constexpr int UP2_SOURCE_ROWS = UP2_ROWS / 2 + 2; // the source rows they take

// 4 x the horizontal interpolation of a source row at four output
// columns, from the row's four pixels @w (output i between pixels
// (i + 1) / 2 and the one after it), plus 2 in each half: the output's
// rounding half, spread over the vertical weights 3 + 1
__device__ __forceinline__ void
up2_lerp (const uint32_t w[4], uint2 h[4])
{
  constexpr uint32_t HALF = 0x00020002u;
  uint2 p[4];

#pragma unroll
  for (int j = 0; j < 4; j++)
    p[j] = split_channels (w[j]);
  h[0] = make_uint2 (p[0].x + 3 * p[1].x + HALF, p[0].y + 3 * p[1].y + HALF);
  h[1] = make_uint2 (3 * p[1].x + p[2].x + HALF, 3 * p[1].y + p[2].y + HALF);
  h[2] = make_uint2 (p[1].x + 3 * p[2].x + HALF, p[1].y + 3 * p[2].y + HALF);
  h[3] = make_uint2 (3 * p[2].x + p[3].x + HALF, 3 * p[2].y + p[3].y + HALF);
}

// output row @y of four pixels from @xq: 3 x @near + @far, / 16
__device__ __forceinline__ void
up2_store (uint8_t *dst, size_t dst_pitch, int dst_width, int dst_height,
    int xq, int y, const uint2 near[4], const uint2 far[4])
{
  uint32_t w[4];

  if (y >= dst_height)
    return;
#pragma unroll
  for (int i = 0; i < 4; i++)
    {
      const uint32_t a = 3 * near[i].x + far[i].x;
      const uint32_t b = 3 * near[i].y + far[i].y;
      w[i] = ((a >> 4) & 0x00ff00ffu) | ((b << 4) & 0xff00ff00u);
    }
  store_words4 (dst + (size_t)y * dst_pitch, xq, dst_width, w);
}

__global__ void
__launch_bounds__ (FAST_THREADS)
    resize_rgba_up2 (const uint8_t *__restrict__ src, size_t src_pitch,
        int src_width, int src_height, uint8_t *__restrict__ dst,
        size_t dst_pitch, int dst_width, int dst_height)
{
  const int xq = 4 * (blockIdx.x * FAST_QUADS + threadIdx.x % FAST_QUADS);
  const int ya
      = UP2_ROWS
        * (blockIdx.y * (FAST_THREADS / FAST_QUADS) + threadIdx.x / FAST_QUADS);
  const int k0 = ya / 2;
  int cols[4];
  // every source row's words, all loaded before the first lerp: loaded as
  // each pair of output rows needed them, the kernel took 16.6-16.7 us at
  // 1080p against 14.6, 47.7-47.9 us at 4K against 45.6-46.0 (H200)
  uint32_t w[UP2_SOURCE_ROWS][4];
  uint2 h[2][4];

  if (xq >= dst_width)
    return;
#pragma unroll
  for (int i = 0; i < 4; i++)
    cols[i] = clampi (xq / 2 - 1 + i, 0, src_width - 1);
#pragma unroll
  for (int r = 0; r < UP2_SOURCE_ROWS; r++)
    {
      const uint32_t *px = reinterpret_cast<const uint32_t *> (
          src + (size_t)clampi (k0 - 1 + r, 0, src_height - 1) * src_pitch);
#pragma unroll
      for (int j = 0; j < 4; j++)
        w[r][j] = px[cols[j]];
    }
  up2_lerp (w[0], h[0]);
#pragma unroll
  for (int j = 1; j < UP2_SOURCE_ROWS; j++)
    {
      // source rows k0 - 2 + j and k0 - 1 + j serve output rows
      // ya + 2 j - 3 (nearer the first) and ya + 2 j - 2 (nearer the
      // second), where those are the thread's
      up2_lerp (w[j], h[j & 1]);
      if (j > 1)
        up2_store (dst, dst_pitch, dst_width, dst_height, xq, ya + 2 * j - 3,
            h[(j - 1) & 1], h[j & 1]);
      if (j <= UP2_ROWS / 2)
        up2_store (dst, dst_pitch, dst_width, dst_height, xq, ya + 2 * j - 2,
            h[j & 1], h[(j - 1) & 1]);
    }
}

// exact halvings of RGBA8 rows on 16 bytes: output pixel (x, y) takes the
// 2 x 2 source block at (2 x, 2 y) with weights 1/2 each way (no clamp
// reaches it), so both lerps are exact in floats (multiples of 1/4) and the
// output is (the block's sum + 2) >> 2 in integers, channels 0, 2 and 1, 3
// summed in the 16-bit halves of a word. Four output pixels a thread from
// two 16-byte loads of each source row, DOWN2_ROWS output rows a thread:
// one measured fastest on an H200 (83 % of a copy at 4K, against 82 % and
// 79 % for two and four)
constexpr int DOWN2_ROWS = 1;

// the rounded mean of pixels @a, @b (one row) and @c, @d (the next)
__device__ __forceinline__ uint32_t
down2_pixel (uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
  const uint2 pa = split_channels (a), pb = split_channels (b);
  const uint2 pc = split_channels (c), pd = split_channels (d);
  const uint32_t x = pa.x + pb.x + pc.x + pd.x + 0x00020002u;
  const uint32_t y = pa.y + pb.y + pc.y + pd.y + 0x00020002u;

  return ((x >> 2) & 0x00ff00ffu) | ((y << 6) & 0xff00ff00u);
}

__global__ void
__launch_bounds__ (FAST_THREADS) resize_rgba_down2 (
    const uint8_t *__restrict__ src, size_t src_pitch,
    uint8_t *__restrict__ dst, size_t dst_pitch, int dst_width, int dst_height)
{
  const int xq = 4 * (blockIdx.x * FAST_QUADS + threadIdx.x % FAST_QUADS);
  const int ya
      = DOWN2_ROWS
        * (blockIdx.y * (FAST_THREADS / FAST_QUADS) + threadIdx.x / FAST_QUADS);
  // output row, source row, 16-byte half
  uint4 w[DOWN2_ROWS][2][2];

  if (xq >= dst_width)
    return;
  if (xq + 4 > dst_width)
    {
      for (int y = ya; y < ya + DOWN2_ROWS && y < dst_height; y++)
        {
          const uint32_t *r0 = reinterpret_cast<const uint32_t *> (
              src + (size_t)(2 * y) * src_pitch);
          const uint32_t *r1 = reinterpret_cast<const uint32_t *> (
              src + (size_t)(2 * y + 1) * src_pitch);
          uint32_t *o
              = reinterpret_cast<uint32_t *> (dst + (size_t)y * dst_pitch);

          for (int x = xq; x < dst_width; x++)
            o[x] = down2_pixel (
                r0[2 * x], r0[2 * x + 1], r1[2 * x], r1[2 * x + 1]);
        }
      return;
    }
    // every row's loads before the first sum
#pragma unroll
  for (int r = 0; r < DOWN2_ROWS; r++)
#pragma unroll
    for (int j = 0; j < 2; j++)
      if (ya + r < dst_height)
        {
          const uint4 *row = reinterpret_cast<const uint4 *> (
              src + (size_t)(2 * (ya + r) + j) * src_pitch);
          // read once: evict-first, as rgba_to_gray4 () (convert.cu)
          w[r][j][0] = __ldcs (row + xq / 2);
          w[r][j][1] = __ldcs (row + xq / 2 + 1);
        }
#pragma unroll
  for (int r = 0; r < DOWN2_ROWS; r++)
    {
      const uint4 (&t)[2] = w[r][0], (&b)[2] = w[r][1];

      if (ya + r >= dst_height)
        break;
      reinterpret_cast<uint4 *> (dst + (size_t)(ya + r) * dst_pitch)[xq / 4]
          = make_uint4 (down2_pixel (t[0].x, t[0].y, b[0].x, b[0].y),
              down2_pixel (t[0].z, t[0].w, b[0].z, b[0].w),
              down2_pixel (t[1].x, t[1].y, b[1].x, b[1].y),
              down2_pixel (t[1].z, t[1].w, b[1].z, b[1].w));
    }
}

template <int ROWS>
int
launch_fast_rows (cudaStream_t stream, const void *src, size_t src_pitch,
    int src_width, int src_height, void *dst, size_t dst_pitch, int dst_width,
    int dst_height)
{
  const int rows_per_block = ROWS * (FAST_THREADS / FAST_QUADS);
  dim3 grid ((dst_width + 4 * FAST_QUADS - 1) / (4 * FAST_QUADS),
      (dst_height + rows_per_block - 1) / rows_per_block);

  resize_rgba<ROWS><<<grid, FAST_THREADS, 0, stream>>> ((const uint8_t *)src,
      src_pitch, src_width, src_height, (uint8_t *)dst, dst_pitch, dst_width,
      dst_height, (float)src_width / (float)dst_width,
      (float)src_height / (float)dst_height);
  return cudaGetLastError ();
}

int
launch_fast (cudaStream_t stream, const void *src, size_t src_pitch,
    int src_width, int src_height, void *dst, size_t dst_pitch, int dst_width,
    int dst_height)
{
  if (dst_width == 2 * src_width && dst_height == 2 * src_height)
    {
      const int rows_per_block = UP2_ROWS * (FAST_THREADS / FAST_QUADS);
      dim3 grid ((dst_width + 4 * FAST_QUADS - 1) / (4 * FAST_QUADS),
          (dst_height + rows_per_block - 1) / rows_per_block);

      resize_rgba_up2<<<grid, FAST_THREADS, 0, stream>>> ((const uint8_t *)src,
          src_pitch, src_width, src_height, (uint8_t *)dst, dst_pitch,
          dst_width, dst_height);
      return cudaGetLastError ();
    }
  if (2 * dst_width == src_width && 2 * dst_height == src_height
      && aligned16 (src, src_pitch))
    {
      const int rows_per_block = DOWN2_ROWS * (FAST_THREADS / FAST_QUADS);
      dim3 grid ((dst_width + 4 * FAST_QUADS - 1) / (4 * FAST_QUADS),
          (dst_height + rows_per_block - 1) / rows_per_block);

      resize_rgba_down2<<<grid, FAST_THREADS, 0, stream>>> (
          (const uint8_t *)src, src_pitch, (uint8_t *)dst, dst_pitch, dst_width,
          dst_height);
      return cudaGetLastError ();
    }
  if (dst_height > src_height)
    return launch_fast_rows<8> (stream, src, src_pitch, src_width, src_height,
        dst, dst_pitch, dst_width, dst_height);
  return launch_fast_rows<1> (stream, src, src_pitch, src_width, src_height,
      dst, dst_pitch, dst_width, dst_height);
}

template <int K, bool A>
int
launch (cudaStream_t stream, const void *src, size_t src_pitch, int src_width,
    int src_height, void *dst, size_t dst_pitch, int dst_width, int dst_height)
{
  dim3 grid ((dst_width + BLOCK_X - 1) / BLOCK_X,
      grid_rows ((dst_height + BLOCK_Y - 1) / BLOCK_Y));

  resize<K, A><<<grid, dim3 (BLOCK_X, BLOCK_Y), 0, stream>>> (
      (const uint8_t *)src, src_pitch, src_width, src_height, (uint8_t *)dst,
      dst_pitch, dst_width, dst_height, (float)src_width / (float)dst_width,
      (float)src_height / (float)dst_height);
  return cudaGetLastError ();
}

} // namespace

extern "C" int
accel_resize (void *stream, int format, const void *src, size_t src_pitch,
    int src_width, int src_height, void *dst, size_t dst_pitch, int dst_width,
    int dst_height)
{
  cudaStream_t s = (cudaStream_t)stream;
  int kind = kind_of (format);
  bool a = aligned_for (kind, src, src_pitch)
           && aligned_for (kind, dst, dst_pitch);

  if (!accel_image_format_is_packed (format)
      || !accel_image_args_valid (format, src, src_pitch, src_width, src_height)
      || !accel_image_args_valid (
          format, dst, dst_pitch, dst_width, dst_height))
    return cudaErrorInvalidValue;
  switch (kind)
    {
    case KIND_U8X1:
      return launch<KIND_U8X1, true> (s, src, src_pitch, src_width, src_height,
          dst, dst_pitch, dst_width, dst_height);
    case KIND_U8X4:
      if (aligned16 (dst, dst_pitch) && aligned_for (kind, src, src_pitch)
          && (dst_height + 3) / 4 <= 65535)
        return launch_fast (s, src, src_pitch, src_width, src_height, dst,
            dst_pitch, dst_width, dst_height);
      return a ? launch<KIND_U8X4, true> (s, src, src_pitch, src_width,
                 src_height, dst, dst_pitch, dst_width, dst_height)
               : launch<KIND_U8X4, false> (s, src, src_pitch, src_width,
                   src_height, dst, dst_pitch, dst_width, dst_height);
    default:
      return a ? launch<KIND_F32X4, true> (s, src, src_pitch, src_width,
                 src_height, dst, dst_pitch, dst_width, dst_height)
               : launch<KIND_F32X4, false> (s, src, src_pitch, src_width,
                   src_height, dst, dst_pitch, dst_width, dst_height);
    }
}
