/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel plugins: f16 and bf16 values on the host */
#include <math.h>
#include <string.h>

#include "accelhalf.h"

static guint32
f32_bits (float f)
{
  guint32 u;

  memcpy (&u, &f, sizeof (u));
  return u;
}

static float
f32_from_bits (guint32 u)
{
  float f;

  memcpy (&f, &u, sizeof (f));
  return f;
}

/**
 * accel_f16_to_f32:
 * @h: an IEEE 754 binary16 value
 *
 * Returns: @h as a float, exactly. MT safe.
 */
float
accel_f16_to_f32 (guint16 h)
{
  guint32 sign = (guint32)(h & 0x8000) << 16;
  guint32 exponent = (h >> 10) & 0x1f;
  guint32 mantissa = h & 0x3ff;
  float magnitude;

  if (exponent == 0x1f)
    return f32_from_bits (sign | 0x7f800000 | (mantissa << 13));
  if (exponent != 0)
    return f32_from_bits (
        sign | ((exponent + 127 - 15) << 23) | (mantissa << 13));
  /* zero or subnormal: mantissa x 2^-24, exact in a float */
  magnitude = ldexpf ((float)mantissa, -24);
  return sign ? -magnitude : magnitude;
}

/**
 * accel_f32_to_f16:
 * @f: a float
 *
 * Returns: the binary16 value nearest @f (ties to even); infinity beyond
 * the largest finite one, a quiet NaN for a NaN. MT safe.
 */
guint16
accel_f32_to_f16 (float f)
{
  guint32 u = f32_bits (f);
  guint16 sign = (u >> 16) & 0x8000;
  guint32 magnitude = u & 0x7fffffff;
  guint32 exponent, mantissa, rest;
  guint16 h;

  if (magnitude >= 0x7f800000)
    return sign | 0x7c00 | (magnitude > 0x7f800000 ? 0x200 : 0);
  /* 65520 and above round to infinity */
  if (magnitude >= 0x477ff000)
    return sign | 0x7c00;
  if (magnitude < 0x38800000)
    {
      /* below the smallest normal: a multiple of 2^-24, rounded by lrintf
       * in the default (to nearest even) mode; 1024 is the smallest normal */
      return sign | (guint16)lrintf (f32_from_bits (magnitude) * 16777216.0f);
    }
  exponent = (magnitude >> 23) - 127 + 15;
  mantissa = magnitude & 0x7fffff;
  h = (guint16)((exponent << 10) | (mantissa >> 13));
  rest = mantissa & 0x1fff;
  /* a carry out of the mantissa moves into the exponent, as it should */
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
    h++;
  return sign | h;
}

/**
 * accel_bf16_to_f32:
 * @b: a bfloat16 value
 *
 * Returns: @b as a float, exactly. MT safe.
 */
float
accel_bf16_to_f32 (guint16 b)
{
  return f32_from_bits ((guint32)b << 16);
}

/**
 * accel_f32_to_bf16:
 * @f: a float
 *
 * Returns: the bfloat16 value nearest @f (ties to even), a quiet NaN for a
 * NaN. MT safe.
 */
guint16
accel_f32_to_bf16 (float f)
{
  guint32 u = f32_bits (f);

  if ((u & 0x7fffffff) > 0x7f800000)
    return (guint16)((u >> 16) | 0x40);
  u += 0x7fff + ((u >> 16) & 1);
  return (guint16)(u >> 16);
}

/**
 * accel_dtype_is_half:
 * @dtype: a dtype
 *
 * Returns: %TRUE for f16 and bf16. MT safe.
 */
gboolean
accel_dtype_is_half (AccelDType dtype)
{
  return dtype == ACCEL_DTYPE_F16 || dtype == ACCEL_DTYPE_BF16;
}

/**
 * accel_half_widen:
 * @dtype: f16 or bf16
 * @in: (array length=n): values of @dtype
 * @out: (array length=n): where the floats go
 * @n: how many
 *
 * Widens @n values exactly. MT safe.
 */
void
accel_half_widen (AccelDType dtype, const guint16 *in, float *out, gsize n)
{
  if (dtype == ACCEL_DTYPE_BF16)
    for (gsize i = 0; i < n; i++)
      out[i] = accel_bf16_to_f32 (in[i]);
  else
    for (gsize i = 0; i < n; i++)
      out[i] = accel_f16_to_f32 (in[i]);
}

/**
 * accel_half_narrow:
 * @dtype: f16 or bf16
 * @in: (array length=n): floats
 * @out: (array length=n): where the values of @dtype go
 * @n: how many
 *
 * Rounds @n values to the nearest of @dtype. MT safe.
 */
void
accel_half_narrow (AccelDType dtype, const float *in, guint16 *out, gsize n)
{
  if (dtype == ACCEL_DTYPE_BF16)
    for (gsize i = 0; i < n; i++)
      out[i] = accel_f32_to_bf16 (in[i]);
  else
    for (gsize i = 0; i < n; i++)
      out[i] = accel_f32_to_f16 (in[i]);
}
