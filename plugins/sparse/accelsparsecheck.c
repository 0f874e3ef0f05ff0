/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel sparse plugin: the one checked path for cuSPARSE statuses */
#define G_LOG_DOMAIN "accel-sparse"

#include <cusparse.h>

#include "accellibrarycheck.h"
#include "accelsparse-private.h"

/**
 * accel_cusparse_check_full:
 * @stage: the stage making the call
 * @status: the `cusparseStatus_t` the call returned
 * @call: the call's source text
 * @file: source file of the call
 * @line: source line of the call
 * @error: return location for a #GError, or %NULL
 *
 * The implementation of accel_cusparse_check(); use the macro.
 *
 * Returns: %TRUE when @status is `CUSPARSE_STATUS_SUCCESS`. MT safe.
 */
gboolean
accel_cusparse_check_full (AccelStage *stage, int status, const char *call,
    const char *file, int line, GError **error)
{
  if (G_LIKELY (status == CUSPARSE_STATUS_SUCCESS))
    return TRUE;
  return accel_library_check_failed (stage, G_LOG_DOMAIN, "cuSPARSE", status,
      cusparseGetErrorName ((cusparseStatus_t)status),
      cusparseGetErrorString ((cusparseStatus_t)status), call, file, line,
      error);
}
