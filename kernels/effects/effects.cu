/* SPDX-License-Identifier: LGPL-2.1-or-later */
// the fused effects pass on the GPU: one read and one write of each pixel
// (plus its history, with temporal effects), 16 bytes per thread where the
// rows allow it; specialised at compile time on the effects that cost the
// most when off (chroma key, gamma, history)
#include <cuda_runtime.h>

#include "effects-device.cuh"
#include "effects-pixel.h"

using namespace accel_effects;

namespace
{

struct Args
{
  cudaStream_t stream;
  const uint8_t *src;
  size_t src_pitch;
  uint8_t *dst;
  size_t dst_pitch;
  int width, height;
  AccelEffectsPass pass;
  float4 *history;
  int valid;
  int access;
};

template <bool BGRA, bool KEY, bool GAMMA, bool TEMPORAL>
__global__ void
__launch_bounds__ (BLOCK) fused (const uint8_t *__restrict__ src,
    size_t src_pitch, uint8_t *__restrict__ dst, size_t dst_pitch, int width,
    int height, const __grid_constant__ AccelEffectsPass p,
    float4 *__restrict__ history, int valid, int access)
{
  constexpr unsigned FIXED
      = ACCEL_EFFECTS_CHROMA_KEY | ACCEL_EFFECTS_GAMMA | ACCEL_EFFECTS_TEMPORAL;
  // the bits this instance was built for are constants from here on
  const unsigned flags = (p.flags & ~FIXED)
                         | (KEY ? ACCEL_EFFECTS_CHROMA_KEY : 0u)
                         | (GAMMA ? ACCEL_EFFECTS_GAMMA : 0u)
                         | (TEMPORAL ? (p.flags & ACCEL_EFFECTS_TEMPORAL) : 0u);
  constexpr int R = BGRA ? 2 : 0, B = BGRA ? 0 : 2;
  const int x0 = (blockIdx.x * BLOCK + threadIdx.x) * 4;
  const size_t plane = (size_t)width * (size_t)height;
  float4 *prev_plane = history;
  float4 *trail_plane
      = history + ((flags & ACCEL_EFFECTS_DIFFERENCE) ? plane : 0);
  const float fx = (float)x0;
  int n;

  if (x0 >= width)
    return;
  n = min (4, width - x0);
  for (int y = blockIdx.y; y < height; y += gridDim.y)
    {
      uint32_t w[4];
      float ny2 = 0.0f;

      load4 (src + (size_t)y * src_pitch, x0, n, access, w);
      if (flags & ACCEL_EFFECTS_VIGNETTE)
        ny2 = accel_fx_vignette_row (&p, y);
#pragma unroll
      for (int i = 0; i < 4; i++)
        {
          const size_t at = (size_t)y * (size_t)width + (size_t)(x0 + i);
          float px[4], pv[4] = { 0 }, tr[4] = { 0 }, out[4];

          if (i >= n)
            break;
          px[0] = byte_to_f (w[i], R);
          px[1] = byte_to_f (w[i], 1);
          px[2] = byte_to_f (w[i], B);
          px[3] = byte_to_f (w[i], 3);
          // a history not yet valid holds nothing to read
          if ((flags & ACCEL_EFFECTS_DIFFERENCE) && valid)
            {
              float4 h = prev_plane[at];
              pv[0] = h.x;
              pv[1] = h.y;
              pv[2] = h.z;
              pv[3] = h.w;
            }
          if ((flags & ACCEL_EFFECTS_ECHO) && valid)
            {
              float4 h = trail_plane[at];
              tr[0] = h.x;
              tr[1] = h.y;
              tr[2] = h.z;
              tr[3] = h.w;
            }
          accel_fx_pixel (&p, flags, px, fx + (float)i, ny2, pv, tr, valid);
          if (flags & ACCEL_EFFECTS_DIFFERENCE)
            prev_plane[at] = make_float4 (pv[0], pv[1], pv[2], pv[3]);
          if (flags & ACCEL_EFFECTS_ECHO)
            trail_plane[at] = make_float4 (tr[0], tr[1], tr[2], tr[3]);
          out[R] = px[0];
          out[1] = px[1];
          out[B] = px[2];
          out[3] = px[3];
          // alpha only changes with the key: otherwise its byte as it was
          w[i] = KEY ? pack (out)
                     : (pack (out) & 0x00ffffffu) | (w[i] & 0xff000000u);
        }
      store4 (dst + (size_t)y * dst_pitch, x0, n, access, w);
    }
}

template <bool BGRA, bool KEY, bool GAMMA, bool TEMPORAL>
int
launch (const Args &a)
{
  fused<BGRA, KEY, GAMMA, TEMPORAL>
      <<<grid_for (a.width, a.height), BLOCK, 0, a.stream>>> (a.src,
          a.src_pitch, a.dst, a.dst_pitch, a.width, a.height, a.pass, a.history,
          a.valid, a.access);
  return cudaGetLastError ();
}

template <bool BGRA, bool KEY, bool GAMMA>
int
pick_temporal (const Args &a)
{
  return (a.pass.flags & ACCEL_EFFECTS_TEMPORAL)
             ? launch<BGRA, KEY, GAMMA, true> (a)
             : launch<BGRA, KEY, GAMMA, false> (a);
}

template <bool BGRA, bool KEY>
int
pick_gamma (const Args &a)
{
  return (a.pass.flags & ACCEL_EFFECTS_GAMMA)
             ? pick_temporal<BGRA, KEY, true> (a)
             : pick_temporal<BGRA, KEY, false> (a);
}

template <bool BGRA>
int
pick_key (const Args &a)
{
  return (a.pass.flags & ACCEL_EFFECTS_CHROMA_KEY)
             ? pick_gamma<BGRA, true> (a)
             : pick_gamma<BGRA, false> (a);
}

} // namespace

extern "C" int
accel_effects_apply (void *stream, int format, const void *src,
    size_t src_pitch, void *dst, size_t dst_pitch, int width, int height,
    const AccelEffectsParams *effects, float *history, int history_valid)
{
  Args a;

  if ((format != ACCEL_IMAGE_RGBA8 && format != ACCEL_IMAGE_BGRA8) || !effects
      || !accel_image_args_valid (format, src, src_pitch, width, height)
      || !accel_image_args_valid (format, dst, dst_pitch, width, height)
      || (accel_effects_history_planes (effects) > 0
          && (!history || ((uintptr_t)history % 16) != 0)))
    return cudaErrorInvalidValue;
  if (effects->flags == 0)
    return cudaMemcpy2DAsync (dst, dst_pitch, src, src_pitch, (size_t)width * 4,
        (size_t)height, cudaMemcpyDeviceToDevice, (cudaStream_t)stream);

  a.stream = (cudaStream_t)stream;
  a.src = (const uint8_t *)src;
  a.src_pitch = src_pitch;
  a.dst = (uint8_t *)dst;
  a.dst_pitch = dst_pitch;
  a.width = width;
  a.height = height;
  accel_effects_pass_init (effects, width, height, &a.pass);
  a.history = reinterpret_cast<float4 *> (history);
  a.valid = history_valid != 0;
  a.access
      = access_min (access_of (src, src_pitch), access_of (dst, dst_pitch));
  return format == ACCEL_IMAGE_BGRA8 ? pick_key<true> (a) : pick_key<false> (a);
}
