/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel rand plugin: the one checked path for cuRAND statuses */
#define G_LOG_DOMAIN "accel-rand"

#include <curand.h>

#include "accellibrarycheck.h"
#include "accelrand-private.h"

/**
 * accel_curand_status_name:
 * @status: a `curandStatus_t`
 *
 * Returns: the status's name as curand.h spells it. MT safe.
 */
const char *
accel_curand_status_name (int status)
{
  switch ((curandStatus_t)status)
    {
    case CURAND_STATUS_SUCCESS:
      return "CURAND_STATUS_SUCCESS";
    case CURAND_STATUS_VERSION_MISMATCH:
      return "CURAND_STATUS_VERSION_MISMATCH";
    case CURAND_STATUS_NOT_INITIALIZED:
      return "CURAND_STATUS_NOT_INITIALIZED";
    case CURAND_STATUS_ALLOCATION_FAILED:
      return "CURAND_STATUS_ALLOCATION_FAILED";
    case CURAND_STATUS_TYPE_ERROR:
      return "CURAND_STATUS_TYPE_ERROR";
    case CURAND_STATUS_OUT_OF_RANGE:
      return "CURAND_STATUS_OUT_OF_RANGE";
    case CURAND_STATUS_LENGTH_NOT_MULTIPLE:
      return "CURAND_STATUS_LENGTH_NOT_MULTIPLE";
    case CURAND_STATUS_DOUBLE_PRECISION_REQUIRED:
      return "CURAND_STATUS_DOUBLE_PRECISION_REQUIRED";
    case CURAND_STATUS_LAUNCH_FAILURE:
      return "CURAND_STATUS_LAUNCH_FAILURE";
    case CURAND_STATUS_PREEXISTING_FAILURE:
      return "CURAND_STATUS_PREEXISTING_FAILURE";
    case CURAND_STATUS_INITIALIZATION_FAILED:
      return "CURAND_STATUS_INITIALIZATION_FAILED";
    case CURAND_STATUS_ARCH_MISMATCH:
      return "CURAND_STATUS_ARCH_MISMATCH";
    case CURAND_STATUS_INTERNAL_ERROR:
      return "CURAND_STATUS_INTERNAL_ERROR";
    default:
      return "unknown curandStatus_t";
    }
}

/**
 * accel_curand_check_full:
 * @stage: the stage making the call
 * @status: the `curandStatus_t` the call returned
 * @call: the call's source text
 * @file: source file of the call
 * @line: source line of the call
 * @error: return location for a #GError, or %NULL
 *
 * The implementation of accel_curand_check(); use the macro.
 *
 * Returns: %TRUE when @status is `CURAND_STATUS_SUCCESS`. MT safe.
 */
gboolean
accel_curand_check_full (AccelStage *stage, int status, const char *call,
    const char *file, int line, GError **error)
{
  if (G_LIKELY (status == CURAND_STATUS_SUCCESS))
    return TRUE;
  return accel_library_check_failed (stage, G_LOG_DOMAIN, "cuRAND", status,
      accel_curand_status_name (status), NULL, call, file, line, error);
}
