/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "accelscalar.h"

#include <math.h>

/**
 * accel_scalar_check:
 * @stage: the stage
 * @name: the parameter, for the message
 * @value: its value
 * @dtype: the dtype of the product: f64 takes its scalars as doubles,
 *   every other dtype as floats (cuBLAS, cuSPARSE and cuDNN compute f16 and
 *   bf16 in f32)
 * @running: %TRUE at a frame (the value may have changed since), %FALSE
 *   when the graph is prepared
 * @error: return location for a #GError, or %NULL
 *
 * A value the product's scalar type cannot hold became infinity on the GPU
 * and stayed finite where a host path computed in doubles: it is refused,
 * at prepare with %ACCEL_ERROR_INVALID_PIPELINE, at a frame with
 * %ACCEL_ERROR_INVALID_INPUT (the frame fails).
 *
 * Returns: whether @value is finite in the product's scalar type.
 */
gboolean
accel_scalar_check (AccelStage *stage, const char *name, double value,
    AccelDType dtype, gboolean running, GError **error)
{
  gboolean f64 = dtype == ACCEL_DTYPE_F64;

  /* as the GPU takes it: a double just past FLT_MAX (3.4028235e38, as
   * FLT_MAX is printed) rounds to FLT_MAX, further to infinity */
  if (f64 ? isfinite (value) : isfinite ((float)value))
    return TRUE;
  g_set_error (error, ACCEL_ERROR,
      running ? ACCEL_ERROR_INVALID_INPUT : ACCEL_ERROR_INVALID_PIPELINE,
      "stage '%s' (%s): %s %.9g is not finite as a %s, the scalar type of "
      "%s products",
      accel_stage_get_name (stage), accel_stage_get_kind_name (stage), name,
      value, f64 ? "double" : "float", accel_dtype_to_string (dtype));
  return FALSE;
}
