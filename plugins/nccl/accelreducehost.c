/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: the host's element-wise reductions (see
 * accelreducehost.h) */
#define G_LOG_DOMAIN "accel-nccl"

#include "accelreducehost.h"
#include "accelhalf.h"

#include <math.h>

GType
accel_reduce_op_get_type (void)
{
  static gsize type;
  static const GEnumValue values[] = {
    { ACCEL_REDUCE_SUM, "ACCEL_REDUCE_SUM", "sum" },
    { ACCEL_REDUCE_PROD, "ACCEL_REDUCE_PROD", "prod" },
    { ACCEL_REDUCE_MIN, "ACCEL_REDUCE_MIN", "min" },
    { ACCEL_REDUCE_MAX, "ACCEL_REDUCE_MAX", "max" },
    { ACCEL_REDUCE_AVG, "ACCEL_REDUCE_AVG", "avg" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("AccelReduceOp", values));
  return (GType)type;
}

/**
 * accel_reduce_dtype_supported:
 * @dtype: an element type
 *
 * Returns: whether the collective stages take @dtype: f32, f64, f16, bf16,
 * i32, u32 and u8. MT safe.
 */
gboolean
accel_reduce_dtype_supported (AccelDType dtype)
{
  switch (dtype)
    {
    case ACCEL_DTYPE_F32:
    case ACCEL_DTYPE_F64:
    case ACCEL_DTYPE_F16:
    case ACCEL_DTYPE_BF16:
    case ACCEL_DTYPE_I32:
    case ACCEL_DTYPE_U32:
    case ACCEL_DTYPE_U8:
      return TRUE;
    default:
      return FALSE;
    }
}

/* integers wrap as NCCL's do: computed unsigned. A float's minimum and
 * maximum leave a NaN out (fmin (), fmax ()): a comparison kept or dropped
 * it by the order of its operands, which the ring's chunks change, so
 * half of a frame came out NaN and half not */
#define SUM(a, b) ((a) + (b))
#define PROD(a, b) ((a) * (b))
#define LEAST(a, b) ((b) < (a) ? (b) : (a))
#define MOST(a, b) ((b) > (a) ? (b) : (a))

#define DEFINE_REDUCE(name, T, W, OP)                                          \
  static void name (void *out, const void *a, const void *b, size_t n)         \
  {                                                                            \
    T *o = out;                                                                \
    const T *x = a, *y = b;                                                    \
    for (size_t i = 0; i < n; i++)                                             \
      o[i] = (T)OP ((W)x[i], (W)y[i]);                                         \
  }

#define DEFINE_REDUCE_OPS(tag, T, W, WU, MIN, MAX)                             \
  DEFINE_REDUCE (sum_##tag, T, WU, SUM)                                        \
  DEFINE_REDUCE (prod_##tag, T, WU, PROD)                                      \
  DEFINE_REDUCE (min_##tag, T, W, MIN)                                         \
  DEFINE_REDUCE (max_##tag, T, W, MAX)

DEFINE_REDUCE_OPS (f32, float, float, float, fminf, fmaxf)
DEFINE_REDUCE_OPS (f64, double, double, double, fmin, fmax)
DEFINE_REDUCE_OPS (i32, gint32, gint32, guint32, LEAST, MOST)
DEFINE_REDUCE_OPS (u32, guint32, guint32, guint32, LEAST, MOST)
DEFINE_REDUCE_OPS (u8, guint8, guint8, guint8, LEAST, MOST)

/* f16 and bf16: each step in f32, rounded back to the nearest */
#define DEFINE_REDUCE_HALF(name, to_f32, from_f32, OP)                         \
  static void name (void *out, const void *a, const void *b, size_t n)         \
  {                                                                            \
    guint16 *o = out;                                                          \
    const guint16 *x = a, *y = b;                                              \
    for (size_t i = 0; i < n; i++)                                             \
      o[i] = from_f32 (OP (to_f32 (x[i]), to_f32 (y[i])));                     \
  }

#define DEFINE_REDUCE_HALF_OPS(tag, to_f32, from_f32)                          \
  DEFINE_REDUCE_HALF (sum_##tag, to_f32, from_f32, SUM)                        \
  DEFINE_REDUCE_HALF (prod_##tag, to_f32, from_f32, PROD)                      \
  DEFINE_REDUCE_HALF (min_##tag, to_f32, from_f32, fminf)                      \
  DEFINE_REDUCE_HALF (max_##tag, to_f32, from_f32, fmaxf)

DEFINE_REDUCE_HALF_OPS (f16, accel_f16_to_f32, accel_f32_to_f16)
DEFINE_REDUCE_HALF_OPS (bf16, accel_bf16_to_f32, accel_f32_to_bf16)

#define OPS_OF(tag)                                                            \
  {                                                                            \
    sum_##tag, prod_##tag, min_##tag, max_##tag, sum_##tag                     \
  }

/**
 * accel_reduce_host_func:
 * @dtype: a dtype accel_reduce_dtype_supported() takes
 * @op: the reduction (avg: the sum, between accel_reduce_host_avg_before()
 *   and _after())
 *
 * Returns: out = a op b for n elements of @dtype. MT safe.
 */
AccelGlooReduceFunc
accel_reduce_host_func (AccelDType dtype, AccelReduceOp op)
{
  static const AccelGlooReduceFunc f32[] = OPS_OF (f32), f64[] = OPS_OF (f64),
                                   i32[] = OPS_OF (i32), u32[] = OPS_OF (u32),
                                   u8[] = OPS_OF (u8), f16[] = OPS_OF (f16),
                                   bf16[] = OPS_OF (bf16);

  g_return_val_if_fail (op <= ACCEL_REDUCE_AVG, NULL);
  switch (dtype)
    {
    case ACCEL_DTYPE_F32:
      return f32[op];
    case ACCEL_DTYPE_F64:
      return f64[op];
    case ACCEL_DTYPE_I32:
      return i32[op];
    case ACCEL_DTYPE_U32:
      return u32[op];
    case ACCEL_DTYPE_U8:
      return u8[op];
    case ACCEL_DTYPE_F16:
      return f16[op];
    case ACCEL_DTYPE_BF16:
      return bf16[op];
    default:
      g_return_val_if_reached (NULL);
    }
}

/**
 * accel_reduce_host_avg_before:
 * @dtype: a dtype accel_reduce_dtype_supported() takes
 * @data: (array length=n): this rank's elements, scaled in place
 * @n: the number of elements
 * @ranks: the number of ranks
 *
 * Before an avg's sum, as NCCL does: floats times 1 / @ranks (that factor
 * rounded to @dtype, each product rounded back), so that the sum of values
 * near the type's largest does not overflow where their average would not
 * (two f16 of 40000 summed are infinite). Integers are summed as they are
 * and divided after (accel_reduce_host_avg_after()). MT safe.
 */
void
accel_reduce_host_avg_before (
    AccelDType dtype, gpointer data, gsize n, guint ranks)
{
  float f16_by = accel_f16_to_f32 (accel_f32_to_f16 (1.0f / (float)ranks));
  float bf16_by = accel_bf16_to_f32 (accel_f32_to_bf16 (1.0f / (float)ranks));

  for (gsize i = 0; i < n; i++)
    switch (dtype)
      {
      case ACCEL_DTYPE_F32:
        ((float *)data)[i] *= (float)(1.0 / ranks);
        break;
      case ACCEL_DTYPE_F64:
        ((double *)data)[i] *= 1.0 / ranks;
        break;
      case ACCEL_DTYPE_F16:
        ((guint16 *)data)[i] = accel_f32_to_f16 (
            accel_f16_to_f32 (((guint16 *)data)[i]) * f16_by);
        break;
      case ACCEL_DTYPE_BF16:
        ((guint16 *)data)[i] = accel_f32_to_bf16 (
            accel_bf16_to_f32 (((guint16 *)data)[i]) * bf16_by);
        break;
      default:
        return;
      }
}

/**
 * accel_reduce_host_avg_after:
 * @dtype: a dtype accel_reduce_dtype_supported() takes
 * @data: (array length=n): the sums, divided in place
 * @n: the number of elements
 * @ranks: the number of ranks
 *
 * After an avg's sum: integers divided by @ranks (truncated toward zero,
 * wrapped sums as they are, as NCCL does); floats were scaled before
 * (accel_reduce_host_avg_before()). MT safe.
 */
void
accel_reduce_host_avg_after (
    AccelDType dtype, gpointer data, gsize n, guint ranks)
{
  for (gsize i = 0; i < n; i++)
    switch (dtype)
      {
      case ACCEL_DTYPE_I32:
        ((gint32 *)data)[i] /= (gint32)ranks;
        break;
      case ACCEL_DTYPE_U32:
        ((guint32 *)data)[i] /= ranks;
        break;
      case ACCEL_DTYPE_U8:
        ((guint8 *)data)[i] /= ranks;
        break;
      default:
        return;
      }
}
