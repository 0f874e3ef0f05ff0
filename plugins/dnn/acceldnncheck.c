/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel dnn plugin: the one checked path for cuDNN statuses */
#define G_LOG_DOMAIN "accel-dnn"

#include <cudnn.h>

#include "accellibrarycheck.h"
#include "acceldnn-private.h"

/**
 * accel_cudnn_check_full:
 * @stage: the stage making the call
 * @status: the `cudnnStatus_t` the call returned
 * @call: the call's source text
 * @file: source file of the call
 * @line: source line of the call
 * @error: return location for a #GError, or %NULL
 *
 * The implementation of accel_cudnn_check(); use the macro. cuDNN's last
 * error message, kept per thread, is the detail: the call was made on this
 * thread.
 *
 * Returns: %TRUE when @status is `CUDNN_STATUS_SUCCESS`. MT safe.
 */
gboolean
accel_cudnn_check_full (AccelStage *stage, int status, const char *call,
    const char *file, int line, GError **error)
{
  char detail[256] = "";

  if (G_LIKELY (status == CUDNN_STATUS_SUCCESS))
    return TRUE;
  cudnnGetLastErrorString (detail, sizeof (detail));
  return accel_library_check_failed (stage, G_LOG_DOMAIN, "cuDNN", status,
      cudnnGetErrorString ((cudnnStatus_t)status), detail[0] ? detail : NULL,
      call, file, line, error);
}
