/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the ACCEL_ERROR domain and the one checked path for CUDA calls */
#define G_LOG_DOMAIN "accel-cuda"

#include "accel-private.h"

#include <string.h>

G_DEFINE_QUARK (accel - error - quark, accel_error)

/**
 * accel_error_from_cuda:
 * @status: a `cudaError_t`
 *
 * Classifies a CUDA runtime status: sticky errors that leave the context
 * unusable become %ACCEL_ERROR_CONTEXT_POISONED.
 *
 * Returns: the #AccelError code for @status. MT safe.
 */
AccelError
accel_error_from_cuda (int status)
{
  switch ((cudaError_t)status)
    {
    case cudaErrorMemoryAllocation:
      return ACCEL_ERROR_OUT_OF_MEMORY;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
      return ACCEL_ERROR_NO_DEVICE;
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorECCUncorrectable:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorContextIsDestroyed:
      return ACCEL_ERROR_CONTEXT_POISONED;
    default:
      return ACCEL_ERROR_FAILED;
    }
}

/**
 * accel_cuda_check_full:
 * @status: the `cudaError_t` a call returned
 * @call: the call's source text
 * @file: source file of the call
 * @line: source line of the call
 * @error: return location for a #GError, or %NULL
 *
 * The implementation of accel_cuda_check(); use the macro.
 *
 * Returns: %TRUE when @status is `cudaSuccess`. MT safe.
 */
gboolean
accel_cuda_check_full (
    int status, const char *call, const char *file, int line, GError **error)
{
  AccelStage *stage;
  const char *stage_name;

  if (G_LIKELY (status == cudaSuccess))
    return TRUE;

  stage = accel_stage_get_current ();
  stage_name = stage ? accel_stage_get_name (stage) : NULL;

  g_debug ("%s:%d: %s failed%s%s: %s (%s)", file, line, call,
      stage_name ? " in stage " : "", stage_name ? stage_name : "",
      cudaGetErrorString ((cudaError_t)status),
      cudaGetErrorName ((cudaError_t)status));
  g_set_error (error, ACCEL_ERROR, accel_error_from_cuda (status),
      "%s%s%s%s failed: %s (%s) at %s:%d", stage_name ? "stage '" : "",
      stage_name ? stage_name : "", stage_name ? "': " : "", call,
      cudaGetErrorString ((cudaError_t)status),
      cudaGetErrorName ((cudaError_t)status), file, line);
  return FALSE;
}

/* Levenshtein distance, for "did you mean" suggestions */
guint
accel_edit_distance (const char *a, const char *b)
{
  gsize la = strlen (a), lb = strlen (b);
  g_autofree guint *row = g_new (guint, lb + 1);

  for (gsize j = 0; j <= lb; j++)
    row[j] = (guint)j;
  for (gsize i = 1; i <= la; i++)
    {
      guint diag = row[0];
      row[0] = (guint)i;
      for (gsize j = 1; j <= lb; j++)
        {
          guint up = row[j];
          row[j] = MIN (
              MIN (row[j] + 1, row[j - 1] + 1), diag + (a[i - 1] != b[j - 1]));
          diag = up;
        }
    }
  return row[lb];
}
