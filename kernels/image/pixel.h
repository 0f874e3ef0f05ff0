/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* per-pixel arithmetic shared by the image kernels and their host
 * references: both sides compile these same lines, so integer results
 * agree to the bit.
 *
 * Every multiply-add is an explicit fmaf(): the GPU would fuse a * b + c
 * on its own, the host does not, so no such expression is left for either
 * compiler to contract (the library is also built with contraction off). */
#pragma once

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define ACCEL_PX_FN __host__ __device__ static __forceinline__
#else
#define ACCEL_PX_FN static inline
#endif

/* BT.601 luma weights, also the Y row of the full range YUV matrix */
#define ACCEL_PX_KR 0.299f
#define ACCEL_PX_KG 0.587f
#define ACCEL_PX_KB 0.114f

/* float already in [0, 255] to uint8, round half up: accel_px_to_u8 ()
 * after its clamp, for values that cannot leave the range */
ACCEL_PX_FN uint8_t
accel_px_round_u8 (float v)
{
#ifdef __CUDA_ARCH__
  /* the same truncation without the GPU's slow float to integer unit:
   * 2^23 + t rounded down holds floor (t) in its low mantissa bits */
  return (uint8_t)__float_as_uint (__fadd_rd (v + 0.5f, 8388608.0f));
#else
  return (uint8_t)(int)(v + 0.5f);
#endif
}

/* float to uint8: clamp to [0, 255], round half up; NaN gives 0 */
ACCEL_PX_FN uint8_t
accel_px_to_u8 (float v)
{
#ifdef __CUDA_ARCH__
  v = fminf (fmaxf (v, 0.0f), 255.0f);
#else
  /* the same clamp as compares, which vectorize where fminf() and fmaxf()
   * stay calls; NaN still gives 0 */
  v = v > 0.0f ? v : 0.0f;
  v = v < 255.0f ? v : 255.0f;
#endif
  return accel_px_round_u8 (v);
}

/* the luma of R, G, B on the 0..255 scale, unrounded: for float pixels */
ACCEL_PX_FN float
accel_px_luma (float r, float g, float b)
{
  return fmaf (ACCEL_PX_KR, r, fmaf (ACCEL_PX_KG, g, ACCEL_PX_KB * b));
}

/* the luma byte of whole R, G, B (8-bit pixels): BT.601's weights taken
 * exactly, (299 r + 587 g + 114 b + 500) / 1000 rounded down, so that the
 * GPU may reach it in integers (accel_image::luma_of_word ()). Each sum is
 * a whole number (or half of one) below 2^24, exact in a float in any
 * order, and with the half added the quotient's fraction lies in
 * [0.0005, 0.9995], farther from a whole number than one rounded product
 * errs: the truncated product is the byte, for all 2^24 colours. The
 * float luma rounded, accel_px_to_u8 (accel_px_luma ()), misses it by one
 * in 36 of them */
ACCEL_PX_FN uint8_t
accel_px_luma_u8 (float r, float g, float b)
{
  float q = (299.0f * r + 587.0f * g + 114.0f * b + 500.5f) * 0.001f;

#ifdef __CUDA_ARCH__
  return (uint8_t)__float_as_uint (__fadd_rd (q, 8388608.0f));
#else
  return (uint8_t)(int)q;
#endif
}

/* BT.601 full range (JFIF): Y, U, V and R, G, B all span 0..255, chroma
 * centred on 128 */
ACCEL_PX_FN float
accel_px_u (float r, float g, float b)
{
  return fmaf (-0.168736f, r, fmaf (-0.331264f, g, fmaf (0.5f, b, 128.0f)));
}

ACCEL_PX_FN float
accel_px_v (float r, float g, float b)
{
  return fmaf (0.5f, r, fmaf (-0.418688f, g, fmaf (-0.081312f, b, 128.0f)));
}

/* how 4:2:0 frames are decoded: Y taken to the 0..255 scale (ky, oy: 1
 * and 0 at full range, 255 / 219 and -16 x 255 / 219 at limited range),
 * and the chroma, centred on 128, through the matrix's coefficients (at
 * limited range scaled by 255 / 224). accel_px_yuv_matrix () makes them */
typedef struct
{
  int full_range; /* Y is taken as it is */
  float ky, oy;
  float rv, gu, gv, bu;
} AccelPxYuv;

/* the decoding of @matrix (AccelYuvMatrix, convert.h: 0 BT.601, 1 BT.709,
 * 2 BT.2020) at full or limited range, from each standard's published
 * coefficients; BT.601 at full range is JFIF's 1.402, 0.344136, 0.714136,
 * 1.772, with Y taken as it is */
ACCEL_PX_FN AccelPxYuv
accel_px_yuv_matrix (int matrix, int full_range)
{
  float c[4] = { 1.402f, -0.344136f, -0.714136f, 1.772f };
  float s = full_range ? 1.0f : 255.0f / 224.0f;
  AccelPxYuv m;

  if (matrix == 1)
    {
      c[0] = 1.5748f;
      c[1] = -0.187324f;
      c[2] = -0.468124f;
      c[3] = 1.8556f;
    }
  else if (matrix == 2)
    {
      c[0] = 1.4746f;
      c[1] = -0.164553f;
      c[2] = -0.571353f;
      c[3] = 1.8814f;
    }
  m.full_range = full_range != 0;
  m.ky = full_range ? 1.0f : 255.0f / 219.0f;
  m.oy = full_range ? 0.0f : -16.0f * 255.0f / 219.0f;
  m.rv = c[0] * s;
  m.gu = c[1] * s;
  m.gv = c[2] * s;
  m.bu = c[3] * s;
  return m;
}

/* at limited range, the chroma's part of R, G, B with Y's offset, which
 * the four pixels of a 4:2:0 block share: each pixel then adds its scaled
 * Y in one multiply-add a channel (accel_px_yuv_luma_limited ()), as few
 * as at full range */
ACCEL_PX_FN void
accel_px_yuv_chroma_limited (const AccelPxYuv *m, float u, float v, float c[3])
{
  float cu = u - 128.0f, cv = v - 128.0f;

  c[0] = fmaf (m->rv, cv, m->oy);
  c[1] = fmaf (m->gu, cu, fmaf (m->gv, cv, m->oy));
  c[2] = fmaf (m->bu, cu, m->oy);
}

ACCEL_PX_FN void
accel_px_yuv_luma_limited (const AccelPxYuv *m, float y, const float c[3],
    float *r, float *g, float *b)
{
  *r = fmaf (m->ky, y, c[0]);
  *g = fmaf (m->ky, y, c[1]);
  *b = fmaf (m->ky, y, c[2]);
}

/* R, G, B of one pixel: at full range Y plus the chroma's part (JFIF's
 * order), at limited range the scaled Y plus the chroma's part with Y's
 * offset */
ACCEL_PX_FN void
accel_px_yuv_to_rgb (const AccelPxYuv *m, float y, float u, float v, float *r,
    float *g, float *b)
{
  float cu = u - 128.0f, cv = v - 128.0f;

  if (!m->full_range)
    {
      float c[3];

      accel_px_yuv_chroma_limited (m, u, v, c);
      accel_px_yuv_luma_limited (m, y, c, r, g, b);
      return;
    }
  *r = fmaf (m->rv, cv, y);
  *g = fmaf (m->gu, cu, fmaf (m->gv, cv, y));
  *b = fmaf (m->bu, cu, y);
}

/* a luma byte taken to the 0..255 scale, as GRAY8 from 4:2:0 */
ACCEL_PX_FN float
accel_px_luma_full (const AccelPxYuv *m, float y)
{
  return fmaf (y, m->ky, m->oy);
}

/* RGBAF32 channels (nominally 0..1) to and from the 0..255 scale the
 * colour conversions work in */
ACCEL_PX_FN float
accel_px_unit_to_255 (float f)
{
  return f * 255.0f;
}

ACCEL_PX_FN float
accel_px_255_to_unit (float v)
{
  return v / 255.0f;
}

ACCEL_PX_FN float
accel_px_clamp_255 (float v)
{
#ifdef __CUDA_ARCH__
  return fminf (fmaxf (v, 0.0f), 255.0f);
#else
  /* as compares, as in accel_px_to_u8 (); NaN gives 0 */
  v = v > 0.0f ? v : 0.0f;
  return v < 255.0f ? v : 255.0f;
#endif
}

ACCEL_PX_FN float
accel_px_lerp (float a, float b, float t)
{
  return fmaf (t, b - a, a);
}

/* source coordinate of output sample @i when resizing by @scale (input
 * size / output size), pixel centres aligned: (i + 0.5) * scale - 0.5,
 * clamped to the edge; gives the two taps and the weight of the second */
ACCEL_PX_FN void
accel_px_resize_tap (
    int i, float scale, int in_size, int *i0, int *i1, float *t)
{
  float s = fmaxf (fmaf ((float)i + 0.5f, scale, -0.5f), 0.0f);
  int k = (int)s;

  if (k > in_size - 1)
    k = in_size - 1;
  *i0 = k;
  *i1 = k + 1 < in_size ? k + 1 : k;
  *t = s - (float)k;
}

/* 3x3 Sobel on @p (row major, p[4] the centre): horizontal and vertical
 * gradients; exact for integer inputs */
ACCEL_PX_FN void
accel_px_sobel (const float *p, float *gx, float *gy)
{
  *gx = (fmaf (2.0f, p[5], p[2]) + p[8]) - (fmaf (2.0f, p[3], p[0]) + p[6]);
  *gy = (fmaf (2.0f, p[7], p[6]) + p[8]) - (fmaf (2.0f, p[1], p[0]) + p[2]);
}

ACCEL_PX_FN float
accel_px_magnitude (float gx, float gy)
{
  return sqrtf (fmaf (gx, gx, gy * gy));
}

/* unsharp mask: the sharpened value of @c whose blur is @blurred */
ACCEL_PX_FN float
accel_px_unsharp (float c, float blurred, float amount)
{
  return fmaf (amount, c - blurred, c);
}

/* the unsharp mask of an 8-bit channel, for a store that rounds half up:
 * the half is added before the multiply-add's one rounding and taken off
 * again exactly (to within the values the store clamps), so that the
 * stored byte is floor (fmaf (amount, c - blurred, c + 0.5)), which the
 * GPU's 8-bit kernels take in one conversion with no add */
ACCEL_PX_FN float
accel_px_unsharp_u8 (float c, float blurred, float amount)
{
  return fmaf (amount, c - blurred, c + 0.5f) - 0.5f;
}
