/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test patterns and scale/offset: the host references */
#include <math.h>
#include <string.h>

#include "host/parallel.h"
#include "host/simd.h"
#include "pattern.h"

/* the patterns repeat every 251 (u8) and 1021 (f32) elements: one period
 * is made, then copied; exactly the macros' values while seq * 131 + i * 7
 * stays within 64 bits, which the callers check */
#define PERIOD_U8 251u
#define PERIOD_F32 1021u

static int
pattern_fits (size_t n, uint64_t seq)
{
  return seq <= (UINT64_MAX - (uint64_t)n * 7u) / 131u;
}

void
accel_pattern_fill_f32_host (float *out, size_t n, uint64_t seq)
{
  size_t period = n < PERIOD_F32 ? n : PERIOD_F32;
  uint32_t base = (uint32_t)(((uint64_t)seq * 131u) % PERIOD_F32);

  if (!pattern_fits (n, seq))
    {
      for (size_t i = 0; i < n; i++)
        out[i] = ACCEL_PATTERN_F32 (seq, i);
      return;
    }
  for (size_t i = 0; i < period; i++)
    out[i] = (float)((base + (uint32_t)i * 7u) % PERIOD_F32);
  for (size_t i = period; i < n; i += period)
    memcpy (out + i, out, (n - i < period ? n - i : period) * sizeof (float));
}

void
accel_pattern_fill_u8_host (uint8_t *out, size_t n, uint64_t seq)
{
  size_t period = n < PERIOD_U8 ? n : PERIOD_U8;
  uint32_t base = (uint32_t)(((uint64_t)seq * 131u) % PERIOD_U8);

  if (!pattern_fits (n, seq))
    {
      for (size_t i = 0; i < n; i++)
        out[i] = ACCEL_PATTERN_U8 (seq, i);
      return;
    }
  for (size_t i = 0; i < period; i++)
    out[i] = (uint8_t)((base + (uint32_t)i * 7u) % PERIOD_U8);
  for (size_t i = period; i < n; i += period)
    memcpy (out + i, out, n - i < period ? n - i : period);
}

/* the scales split their elements into blocks, run as the rows of a
 * frame on the host pool */
#define SCALE_BLOCK 16384

typedef struct
{
  const void *in;
  void *out;
  size_t n;
  float scale;
  float offset;
} Scale;

static void
scale_range (const Scale *s, int b0, int b1, size_t *i0, size_t *i1)
{
  size_t end = (size_t)b1 * SCALE_BLOCK;

  *i0 = (size_t)b0 * SCALE_BLOCK;
  *i1 = end < s->n ? end : s->n;
}

ACCEL_HOST_SIMD static void
scale_f32_blocks (void *data, int b0, int b1)
{
  const Scale *s = data;
  const float *restrict in = s->in;
  float *restrict out = s->out;
  size_t i0, i1;

  scale_range (s, b0, b1, &i0, &i1);
  /* fmaf: the GPU contracts a * b + c into one fused multiply-add */
  for (size_t i = i0; i < i1; i++)
    out[i] = fmaf (in[i], s->scale, s->offset);
}

ACCEL_HOST_SIMD static void
scale_u8_blocks (void *data, int b0, int b1)
{
  const Scale *s = data;
  const uint8_t *restrict in = s->in;
  uint8_t *restrict out = s->out;
  size_t i0, i1;

  scale_range (s, b0, b1, &i0, &i1);
  for (size_t i = i0; i < i1; i++)
    {
      /* the clamp as compares, which vectorize; NaN gives 0 */
      float v = fmaf (in[i], s->scale, s->offset) + 0.5f;
      v = v > 0.0f ? v : 0.0f;
      v = v < 255.0f ? v : 255.0f;
      out[i] = (uint8_t)(int)v;
    }
}

static void
scale_host (AccelHostRowsFunc fn, const void *in, void *out, size_t n,
    size_t element, float scale, float offset)
{
  Scale s = { in, out, n, scale, offset };

  accel_host_parallel_rows ((int)((n + SCALE_BLOCK - 1) / SCALE_BLOCK),
      accel_host_min_rows (SCALE_BLOCK * element), fn, &s);
}

void
accel_scale_f32_host (
    const float *in, float *out, size_t n, float scale, float offset)
{
  scale_host (scale_f32_blocks, in, out, n, sizeof (float), scale, offset);
}

void
accel_scale_u8_host (
    const uint8_t *in, uint8_t *out, size_t n, float scale, float offset)
{
  scale_host (scale_u8_blocks, in, out, n, 1, scale, offset);
}
