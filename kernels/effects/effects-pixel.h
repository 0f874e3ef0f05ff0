/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* per-pixel arithmetic of the effects, blend and analysis kernels, shared by
 * the GPU kernels and their host references: both sides compile these same
 * lines with no contraction, so they agree to the bit (gamma aside, see
 * effects.h). Not installed. */
#pragma once

#include "blend.h"
#include "effects.h"
#include "image/pixel.h"

/**
 * AccelEffectsPass:
 *
 * An #AccelEffectsParams prepared for one frame size: what the fused pass
 * reads per pixel. accel_effects_pass_init() fills it, on the host, for
 * both sides.
 */
typedef struct
{
  unsigned flags;
  float m[12];
  float gamma_exponent;
  /* vignette: normalised coordinates n = (x + 0.5) * scale - 1, d2 = (nx^2
   * + ny^2) / 2, t = clamp (d2 * k + c, 0, 1), factor = 1 - strength t^2 */
  float vx_scale, vy_scale;
  float v_k, v_c, v_strength;
  /* chroma key: distance d of (U, V) to the key's, / 255; alpha factor
   * clamp ((d - tolerance) * inv_softness, 0, 1) */
  float key_u, key_v, key_tolerance, key_inv_softness;
  float echo_decay;
} AccelEffectsPass;

#ifdef __cplusplus
extern "C"
{
#endif

  void accel_effects_pass_init (const AccelEffectsParams *effects, int width,
      int height, AccelEffectsPass *pass);

#ifdef __cplusplus
}
#endif

/* the chroma key's alpha factor of a pixel */
ACCEL_PX_FN float
accel_fx_key (const AccelEffectsPass *p, float r, float g, float b)
{
  float du = accel_px_u (r, g, b) - p->key_u;
  float dv = accel_px_v (r, g, b) - p->key_v;
  float d = sqrtf (fmaf (du, du, dv * dv)) * (1.0f / 255.0f);

  return fminf (
      fmaxf ((d - p->key_tolerance) * p->key_inv_softness, 0.0f), 1.0f);
}

/* 255 (v / 255)^e for v in 0..255 */
ACCEL_PX_FN float
accel_fx_gamma (float v, float e)
{
  return exp2f (e * log2f (v * (1.0f / 255.0f))) * 255.0f;
}

/* the vignette's ny^2 of row @y */
ACCEL_PX_FN float
accel_fx_vignette_row (const AccelEffectsPass *p, int y)
{
  float ny = fmaf ((float)y + 0.5f, p->vy_scale, -1.0f);

  return ny * ny;
}

/* the vignette's factor at column @x (as a float) of a row of @ny2 */
ACCEL_PX_FN float
accel_fx_vignette (const AccelEffectsPass *p, float x, float ny2)
{
  float nx = fmaf (x + 0.5f, p->vx_scale, -1.0f);
  float d2 = fmaf (nx, nx, ny2) * 0.5f;
  float t = fminf (fmaxf (fmaf (d2, p->v_k, p->v_c), 0.0f), 1.0f);

  return fmaf (-p->v_strength, t * t, 1.0f);
}

/**
 * accel_fx_pixel:
 * @p: the pass
 * @flags: @p->flags; the GPU passes a copy in which some bits are known at
 *   compile time
 * @px: R, G, B, A in 0..255, replaced by the result (not rounded)
 * @x: the pixel's column, as a float
 * @ny2: accel_fx_vignette_row () of its row
 * @prev: the difference's history of the pixel (R, G, B, A), updated
 * @trail: the echo's history of the pixel, updated
 * @valid: whether the history holds a previous frame
 *
 * One pixel through the whole pass, in the order effects.h gives.
 */
ACCEL_PX_FN void
accel_fx_pixel (const AccelEffectsPass *p, unsigned flags, float *px, float x,
    float ny2, float *prev, float *trail, int valid)
{
  float r = px[0], g = px[1], b = px[2], a = px[3];

  if (flags & ACCEL_EFFECTS_CHROMA_KEY)
    a *= accel_fx_key (p, r, g, b);
  if (flags & ACCEL_EFFECTS_MATRIX)
    {
      float r1
          = fmaf (p->m[0], r, fmaf (p->m[1], g, fmaf (p->m[2], b, p->m[3])));
      float g1
          = fmaf (p->m[4], r, fmaf (p->m[5], g, fmaf (p->m[6], b, p->m[7])));
      float b1
          = fmaf (p->m[8], r, fmaf (p->m[9], g, fmaf (p->m[10], b, p->m[11])));
      r = accel_px_clamp_255 (r1);
      g = accel_px_clamp_255 (g1);
      b = accel_px_clamp_255 (b1);
    }
  if (flags & ACCEL_EFFECTS_GAMMA)
    {
      r = accel_fx_gamma (r, p->gamma_exponent);
      g = accel_fx_gamma (g, p->gamma_exponent);
      b = accel_fx_gamma (b, p->gamma_exponent);
    }
  if (flags & ACCEL_EFFECTS_VIGNETTE)
    {
      float f = accel_fx_vignette (p, x, ny2);
      r *= f;
      g *= f;
      b *= f;
    }
  if (flags & ACCEL_EFFECTS_DIFFERENCE)
    {
      float dr = valid ? fabsf (r - prev[0]) : 0.0f;
      float dg = valid ? fabsf (g - prev[1]) : 0.0f;
      float db = valid ? fabsf (b - prev[2]) : 0.0f;
      prev[0] = r;
      prev[1] = g;
      prev[2] = b;
      prev[3] = a;
      r = dr;
      g = dg;
      b = db;
    }
  if (flags & ACCEL_EFFECTS_ECHO)
    {
      if (valid)
        {
          r = fmaxf (r, p->echo_decay * trail[0]);
          g = fmaxf (g, p->echo_decay * trail[1]);
          b = fmaxf (b, p->echo_decay * trail[2]);
        }
      trail[0] = r;
      trail[1] = g;
      trail[2] = b;
      trail[3] = a;
    }
  px[0] = r;
  px[1] = g;
  px[2] = b;
  px[3] = a;
}

/* blends: the layer b over the base a */

/* what a layer of full alpha covers at @opacity, per unit of alpha */
ACCEL_PX_FN float
accel_fx_blend_scale (float opacity)
{
  return opacity / 255.0f;
}

/**
 * accel_fx_blend:
 * @mode: an #AccelBlendMode
 * @scale: accel_fx_blend_scale () of the opacity
 * @a: the base, R, G, B, A (or B, G, R, A) in 0..255
 * @b: the layer, same order
 * @out: the result, same order, not rounded
 *
 * The blend function f (a, b) of each colour channel, mixed into the base
 * by the layer's coverage t = alpha_b * opacity / 255: out = a + t (f - a);
 * alpha out = alpha_a + t (255 - alpha_a), "over" with straight alpha.
 */
ACCEL_PX_FN void
accel_fx_blend (
    int mode, float scale, const float *a, const float *b, float *out)
{
  float t = b[3] * scale;

  for (int c = 0; c < 3; c++)
    {
      float f;
      switch (mode)
        {
        case ACCEL_BLEND_ADD:
          f = fminf (a[c] + b[c], 255.0f);
          break;
        case ACCEL_BLEND_MULTIPLY:
          f = a[c] * b[c] * (1.0f / 255.0f);
          break;
        case ACCEL_BLEND_SCREEN:
          f = 255.0f - (255.0f - a[c]) * (255.0f - b[c]) * (1.0f / 255.0f);
          break;
        default:
          f = b[c];
          break;
        }
      out[c] = accel_px_lerp (a[c], f, t);
    }
  out[3] = fmaf (t, 255.0f - a[3], a[3]);
}

/* analysis */

/* level @v after equalisation, from the cumulative count @cdf of bins up to
 * @v, @cdf_min of the first occupied bin and @n pixels: the occupied range
 * stretched over 0..255, rounded half up; a frame of one level is kept */
ACCEL_PX_FN uint8_t
accel_fx_equalize_level (uint64_t cdf, uint64_t cdf_min, uint64_t n, int v)
{
  uint64_t span = n - cdf_min;

  if (span == 0)
    return (uint8_t)v;
  if (cdf < cdf_min)
    return 0;
  return (uint8_t)(((cdf - cdf_min) * 510u + span) / (2u * span));
}

/* a pixel of whole R, G, B through the luma equalisation: R, G, B moved by
 * the same amount, so its luma becomes @lut's level for its luma byte (its
 * histogram bin) and its chroma (U, V) stays */
ACCEL_PX_FN void
accel_fx_equalize_luma (const uint8_t *lut, float *r, float *g, float *b)
{
  float y = accel_px_luma (*r, *g, *b);
  float d = (float)lut[accel_px_luma_u8 (*r, *g, *b)] - y;

  *r += d;
  *g += d;
  *b += d;
}

/* a channel's statistics from its histogram's sums: @count pixels, @sum of
 * levels, @sum_sq of squared levels, lowest and highest occupied level
 * @lo, @hi, @motion the sum of |this - previous| over @pixels pixels; out:
 * min, max, mean, standard deviation, motion energy (zeros without counts) */
ACCEL_PX_FN void
accel_fx_stats (uint64_t count, uint64_t sum, uint64_t sum_sq, int lo, int hi,
    uint64_t motion, uint64_t pixels, float *out)
{
  double mean, var;

  out[0] = out[1] = out[2] = out[3] = 0.0f;
  if (count > 0)
    {
      mean = (double)sum / (double)count;
      var = (double)sum_sq / (double)count - mean * mean;
      out[0] = (float)lo;
      out[1] = (float)hi;
      out[2] = (float)mean;
      out[3] = (float)sqrt (var > 0.0 ? var : 0.0);
    }
  out[4] = pixels > 0 ? (float)((double)motion / (double)pixels) : 0.0f;
}
