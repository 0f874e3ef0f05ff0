/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* separable blurs: the host references and the Gaussian taps both sides
 * use */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "blur.h"
#include "host/parallel.h"
#include "host/simd.h"
#include "image-host.h"

typedef enum
{
  SEPARABLE_GAUSSIAN,
  SEPARABLE_BOX,
  SEPARABLE_UNSHARP,
} SeparableOp;

int
accel_gaussian_radius (float sigma)
{
  float r;

  if (!(sigma > 0.0f))
    return 0;
  r = ceilf (3.0f * sigma);
  if (r > (float)ACCEL_IMAGE_MAX_RADIUS)
    return ACCEL_IMAGE_MAX_RADIUS;
  return r < 1.0f ? 1 : (int)r;
}

int
accel_gaussian_weights (
    float sigma, float weights[2 * ACCEL_IMAGE_MAX_RADIUS + 1])
{
  int radius = accel_gaussian_radius (sigma);
  double w[2 * ACCEL_IMAGE_MAX_RADIUS + 1];
  double sum = 0.0;

  if (radius == 0)
    return 0;
  for (int k = -radius; k <= radius; k++)
    {
      w[k + radius] = exp (-(double)(k * k) / (2.0 * sigma * sigma));
      sum += w[k + radius];
    }
  for (int k = 0; k <= 2 * radius; k++)
    weights[k] = (float)(w[k] / sum);
  return radius;
}

int
accel_gaussian_weights_u8 (
    float sigma, float weights[2 * ACCEL_IMAGE_MAX_RADIUS + 1])
{
  float w[2 * ACCEL_IMAGE_MAX_RADIUS + 1], fraction[ACCEL_IMAGE_MAX_RADIUS];
  int radius = accel_gaussian_weights (sigma, w), trim = 0, left = 256;

  if (radius == 0)
    return 0;
  /* largest remainder: every tap rounded down, then the units left over
   * (fewer than the taps) to the largest fractions, a pair at a time so
   * the taps stay symmetric, an odd one to the centre. A tap never passes
   * the one inside it: equal whole parts leave the inner one the larger
   * fraction */
  for (int k = 0; k <= 2 * radius; k++)
    {
      weights[k] = floorf (w[k] * 256.0f);
      left -= (int)weights[k];
      if (k < radius)
        fraction[k] = w[k] * 256.0f - weights[k];
    }
  for (; left > 1; left -= 2)
    {
      int best = 0;

      for (int k = 1; k < radius; k++)
        if (fraction[k] > fraction[best])
          best = k;
      fraction[best] = -1.0f;
      weights[best] += 1.0f;
      weights[2 * radius - best] += 1.0f;
    }
  weights[radius] += (float)left;
  /* outer taps rounded to zero change no sum: the window narrows */
  while (radius - trim > 1 && weights[trim] == 0.0f)
    trim++;
  for (int k = 0; k <= 2 * (radius - trim); k++)
    weights[k] = weights[k + trim];
  return radius - trim;
}

typedef struct
{
  SeparableOp op;
  int format;
  const uint8_t *in;
  size_t src_pitch;
  uint8_t *out;
  size_t dst_pitch;
  int width;
  int height;
  int radius;
  const float *weights;
  /* what the vertical sums are multiplied by: 2^-16 for the 8-bit
   * Gaussian's whole taps, 1 otherwise */
  float scale;
  float amount;
  atomic_int no_memory;
} Separable;

/* channels summed at once: four vectors of eight, kept in registers over
 * all the taps */
#define SUM_BLOCK 32

/* out[i] = sum over k of weights[k] * rows[k][i], one fmaf() per tap from
 * k = 0 up, for i in [0, @n) */
static inline void
separable_sum (const float *weights, const float *const *rows, int taps,
    float *restrict out, size_t n)
{
  size_t i = 0;

  for (; i + SUM_BLOCK <= n; i += SUM_BLOCK)
    {
      float acc[SUM_BLOCK];
#pragma GCC unroll 32
      for (int j = 0; j < SUM_BLOCK; j++)
        acc[j] = 0.0f;
      for (int k = 0; k < taps; k++)
        {
          const float *restrict v = rows[k] + i;
          float w = weights[k];
#pragma GCC unroll 32
          for (int j = 0; j < SUM_BLOCK; j++)
            acc[j] = fmaf (w, v[j], acc[j]);
        }
#pragma GCC unroll 32
      for (int j = 0; j < SUM_BLOCK; j++)
        out[i + j] = acc[j];
    }
  for (; i < n; i++)
    {
      float acc = 0.0f;
      for (int k = 0; k < taps; k++)
        acc = fmaf (weights[k], rows[k][i], acc);
      out[i] = acc;
    }
}

/* horizontal pass of source row @sy into @h: the row is widened by radius
 * edge pixels on each side (@pad), so each tap is one shifted row */
static inline void
separable_horizontal (
    const Separable *s, int sy, float *restrict pad, float *restrict h)
{
  const float *rows[2 * ACCEL_IMAGE_MAX_RADIUS + 1];
  int nc = accel_image_host_channels (s->format), r = s->radius;
  size_t n = (size_t)s->width * nc;

  accel_image_host_load_row (s->format, s->in + (size_t)sy * s->src_pitch,
      s->width, pad + (size_t)r * nc);
  for (int k = 0; k < r; k++)
    for (int c = 0; c < nc; c++)
      {
        pad[(size_t)k * nc + c] = pad[(size_t)r * nc + c];
        pad[(size_t)(r + s->width + k) * nc + c]
            = pad[(size_t)(r + s->width - 1) * nc + c];
      }
  for (int k = 0; k <= 2 * r; k++)
    rows[k] = pad + (size_t)k * nc;
  separable_sum (s->weights, rows, 2 * r + 1, h, n);
}

/* output row @y from the horizontal rows in @ring (source row sy in slot
 * sy % (2 radius + 1)) */
static inline void
separable_vertical (const Separable *s, int y, const float *ring,
    float *restrict acc, float *restrict centre)
{
  int nc = accel_image_host_channels (s->format), r = s->radius;
  size_t n = (size_t)s->width * nc;
  int taps = 2 * r + 1;
  const float *rows[2 * ACCEL_IMAGE_MAX_RADIUS + 1];

  for (int k = 0; k < taps; k++)
    {
      int sy = accel_image_host_clamp (y - r + k, 0, s->height - 1);
      rows[k] = ring + (size_t)(sy % taps) * n;
    }
  separable_sum (s->weights, rows, taps, acc, n);
  if (s->scale != 1.0f)
    for (size_t i = 0; i < n; i++)
      acc[i] *= s->scale;
  if (s->op == SEPARABLE_BOX)
    {
      float area = (float)(taps * taps);
      for (size_t i = 0; i < n; i++)
        acc[i] = acc[i] / area;
    }
  else if (s->op == SEPARABLE_UNSHARP)
    {
      accel_image_host_load_row (
          s->format, s->in + (size_t)y * s->src_pitch, s->width, centre);
      if (nc == 1)
        for (size_t i = 0; i < n; i++)
          acc[i] = accel_px_unsharp_u8 (centre[i], acc[i], s->amount);
      else if (s->format == ACCEL_IMAGE_RGBAF32)
        for (size_t x = 0; x < n; x += 4)
          {
            for (int c = 0; c < 3; c++)
              acc[x + c]
                  = accel_px_unsharp (centre[x + c], acc[x + c], s->amount);
            acc[x + 3] = centre[x + 3];
          }
      else
        for (size_t x = 0; x < n; x += 4)
          {
            for (int c = 0; c < 3; c++)
              acc[x + c]
                  = accel_px_unsharp_u8 (centre[x + c], acc[x + c], s->amount);
            acc[x + 3] = centre[x + 3];
          }
    }
  accel_image_host_store_row (
      s->format, s->out + (size_t)y * s->dst_pitch, s->width, acc);
}

/* rows [y0, y1): each source row's horizontal pass once into a ring of
 * 2 radius + 1 rows, each output row's vertical pass out of it; the order
 * of every sum is the GPU kernel's */
ACCEL_HOST_SIMD static void
separable_rows (void *data, int y0, int y1)
{
  Separable *s = data;
  int nc = accel_image_host_channels (s->format), r = s->radius;
  size_t n = (size_t)s->width * nc;
  int taps = 2 * r + 1;
  float *pad, *ring, *acc, *centre;
  int next = y0 - r > 0 ? y0 - r : 0;

  pad = malloc (((size_t)(s->width + 2 * r) * nc + (size_t)(taps + 2) * n)
                * sizeof (float));
  if (!pad)
    {
      atomic_store (&s->no_memory, 1);
      return;
    }
  ring = pad + (size_t)(s->width + 2 * r) * nc;
  acc = ring + (size_t)taps * n;
  centre = acc + n;

  for (int y = y0; y < y1; y++)
    {
      for (int last = accel_image_host_clamp (y + r, 0, s->height - 1);
           next <= last; next++)
        separable_horizontal (s, next, pad, ring + (size_t)(next % taps) * n);
      separable_vertical (s, y, ring, acc, centre);
    }
  free (pad);
}

static int
separable_host (SeparableOp op, int format, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, int radius,
    const float *weights, float scale, float amount)
{
  Separable s = {
    .op = op,
    .format = format,
    .in = src,
    .src_pitch = src_pitch,
    .out = dst,
    .dst_pitch = dst_pitch,
    .width = width,
    .height = height,
    .radius = radius,
    .weights = weights,
    .scale = scale,
    .amount = amount,
  };
  size_t row_bytes;
  int min_rows;

  if (!accel_image_format_is_packed (format)
      || !accel_image_args_valid (format, src, src_pitch, width, height)
      || !accel_image_args_valid (format, dst, dst_pitch, width, height)
      || radius < 1 || radius > ACCEL_IMAGE_MAX_RADIUS)
    return ACCEL_IMAGE_INVALID_VALUE;
  atomic_init (&s.no_memory, 0);
  /* each band repeats the horizontal pass of the radius rows above and
   * below it: bands of 4 radius rows or more keep that small */
  row_bytes = (size_t)width * (size_t)accel_image_host_channels (format)
              * sizeof (float) * (size_t)(2 * radius + 1);
  min_rows = accel_host_min_rows (row_bytes);
  accel_host_parallel_rows (height,
      min_rows > 4 * radius ? min_rows : 4 * radius, separable_rows, &s);
  return atomic_load (&s.no_memory) ? ACCEL_IMAGE_NO_MEMORY : ACCEL_IMAGE_OK;
}

int
accel_gaussian_taps (int format, float sigma,
    float weights[2 * ACCEL_IMAGE_MAX_RADIUS + 1], float *scale)
{
  if (format == ACCEL_IMAGE_RGBAF32)
    {
      *scale = 1.0f;
      return accel_gaussian_weights (sigma, weights);
    }
  *scale = 1.0f / 65536.0f;
  return accel_gaussian_weights_u8 (sigma, weights);
}

int
accel_gaussian_blur_host (int format, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, float sigma)
{
  float w[2 * ACCEL_IMAGE_MAX_RADIUS + 1], scale;
  int radius = accel_gaussian_taps (format, sigma, w, &scale);

  if (radius == 0)
    return ACCEL_IMAGE_INVALID_VALUE;
  return separable_host (SEPARABLE_GAUSSIAN, format, src, src_pitch, dst,
      dst_pitch, width, height, radius, w, scale, 0.0f);
}

int
accel_box_blur_host (int format, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int radius)
{
  /* fmaf (1, v, acc) is acc + v rounded once: the box's plain sum */
  float ones[2 * ACCEL_IMAGE_MAX_RADIUS + 1];

  for (int k = 0; k < 2 * ACCEL_IMAGE_MAX_RADIUS + 1; k++)
    ones[k] = 1.0f;
  return separable_host (SEPARABLE_BOX, format, src, src_pitch, dst, dst_pitch,
      width, height, radius, ones, 1.0f, 0.0f);
}

int
accel_unsharp_mask_host (int format, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, float amount,
    float sigma)
{
  float w[2 * ACCEL_IMAGE_MAX_RADIUS + 1], scale;
  int radius = accel_gaussian_taps (format, sigma, w, &scale);

  if (radius == 0)
    return ACCEL_IMAGE_INVALID_VALUE;
  return separable_host (SEPARABLE_UNSHARP, format, src, src_pitch, dst,
      dst_pitch, width, height, radius, w, scale, amount);
}
