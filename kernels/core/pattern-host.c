/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test patterns and scale/offset: the host references */
#include <math.h>

#include "pattern.h"

void
accel_pattern_fill_f32_host (float *out, size_t n, uint64_t seq)
{
  for (size_t i = 0; i < n; i++)
    out[i] = ACCEL_PATTERN_F32 (seq, i);
}

void
accel_pattern_fill_u8_host (uint8_t *out, size_t n, uint64_t seq)
{
  for (size_t i = 0; i < n; i++)
    out[i] = ACCEL_PATTERN_U8 (seq, i);
}

void
accel_scale_f32_host (
    const float *in, float *out, size_t n, float scale, float offset)
{
  /* fmaf: the GPU contracts a * b + c into one fused multiply-add */
  for (size_t i = 0; i < n; i++)
    out[i] = fmaf (in[i], scale, offset);
}

void
accel_scale_u8_host (
    const uint8_t *in, uint8_t *out, size_t n, float scale, float offset)
{
  for (size_t i = 0; i < n; i++)
    {
      float v
          = fminf (fmaxf (fmaf (in[i], scale, offset) + 0.5f, 0.0f), 255.0f);
      out[i] = (uint8_t)v;
    }
}
