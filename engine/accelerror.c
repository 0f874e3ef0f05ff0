/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the ACCEL_ERROR domain and the one checked path for CUDA calls */
#define G_LOG_DOMAIN "accel-cuda"

#include "accel-private.h"

/**
 * accel_error_quark:
 *
 * Written out rather than with G_DEFINE_QUARK: the formatter would split
 * the quark's name.
 *
 * Returns: the quark of the %ACCEL_ERROR domain. MT safe.
 */
GQuark
accel_error_quark (void)
{
  return g_quark_from_static_string ("accel-error-quark");
}

static GPrivate stage_name;

const char *
accel_error_set_stage_name (const char *name)
{
  const char *previous = g_private_get (&stage_name);

  g_private_set (&stage_name, (gpointer)name);
  return previous;
}

const char *
accel_error_get_stage_name (void)
{
  return g_private_get (&stage_name);
}

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
  const char *stage;

  if (G_LIKELY (status == cudaSuccess))
    return TRUE;

  stage = g_private_get (&stage_name);

  g_debug ("%s:%d: %s failed%s%s: %s (%s)", file, line, call,
      stage ? " in stage " : "", stage ? stage : "",
      cudaGetErrorString ((cudaError_t)status),
      cudaGetErrorName ((cudaError_t)status));
  g_set_error (error, ACCEL_ERROR, accel_error_from_cuda (status),
      "%s%s%s%s failed: %s (%s) at %s:%d", stage ? "stage '" : "",
      stage ? stage : "", stage ? "': " : "", call,
      cudaGetErrorString ((cudaError_t)status),
      cudaGetErrorName ((cudaError_t)status), file, line);
  return FALSE;
}
