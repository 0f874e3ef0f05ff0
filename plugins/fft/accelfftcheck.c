/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel fft plugin: the one checked path for cuFFT statuses */
#define G_LOG_DOMAIN "accel-fft"

#include <cufft.h>

#include "accellibrarycheck.h"
#include "accelfft-private.h"

/**
 * accel_cufft_status_name:
 * @status: a `cufftResult`
 *
 * Returns: the status's name as cufft.h spells it. MT safe.
 */
const char *
accel_cufft_status_name (int status)
{
  switch ((cufftResult)status)
    {
    case CUFFT_SUCCESS:
      return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN:
      return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED:
      return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE:
      return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE:
      return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR:
      return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED:
      return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED:
      return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE:
      return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA:
      return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE:
      return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE:
      return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED:
      return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED:
      return "CUFFT_NOT_SUPPORTED";
    case CUFFT_MISSING_DEPENDENCY:
      return "CUFFT_MISSING_DEPENDENCY";
    case CUFFT_NVRTC_FAILURE:
      return "CUFFT_NVRTC_FAILURE";
    case CUFFT_NVJITLINK_FAILURE:
      return "CUFFT_NVJITLINK_FAILURE";
    case CUFFT_NVSHMEM_FAILURE:
      return "CUFFT_NVSHMEM_FAILURE";
    default:
      return "unknown cufftResult";
    }
}

/**
 * accel_cufft_check_full:
 * @stage: the stage making the call
 * @status: the `cufftResult` the call returned
 * @call: the call's source text
 * @file: source file of the call
 * @line: source line of the call
 * @error: return location for a #GError, or %NULL
 *
 * The implementation of accel_cufft_check(); use the macro.
 *
 * Returns: %TRUE when @status is `CUFFT_SUCCESS`. MT safe.
 */
gboolean
accel_cufft_check_full (AccelStage *stage, int status, const char *call,
    const char *file, int line, GError **error)
{
  if (G_LIKELY (status == CUFFT_SUCCESS))
    return TRUE;
  return accel_library_check_failed (stage, G_LOG_DOMAIN, "cuFFT", status,
      accel_cufft_status_name (status), NULL, call, file, line, error);
}
