/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel blas plugin: the one checked path for cuBLAS statuses */
#define G_LOG_DOMAIN "accel-blas"

#include "accellibrarycheck.h"
#include "accelblas-private.h"

/**
 * accel_cublas_check_full:
 * @stage: the stage making the call
 * @status: the `cublasStatus_t` the call returned
 * @call: the call's source text
 * @file: source file of the call
 * @line: source line of the call
 * @error: return location for a #GError, or %NULL
 *
 * The implementation of accel_cublas_check(); use the macro.
 *
 * Returns: %TRUE when @status is `CUBLAS_STATUS_SUCCESS`. MT safe.
 */
gboolean
accel_cublas_check_full (AccelStage *stage, int status, const char *call,
    const char *file, int line, GError **error)
{
  if (G_LIKELY (status == CUBLAS_STATUS_SUCCESS))
    return TRUE;
  return accel_library_check_failed (stage, G_LOG_DOMAIN, "cuBLAS", status,
      cublasGetStatusName ((cublasStatus_t)status),
      cublasGetStatusString ((cublasStatus_t)status), call, file, line, error);
}
