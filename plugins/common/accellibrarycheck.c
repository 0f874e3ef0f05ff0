/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel plugins: the one checked path for CUDA library statuses */
#define G_LOG_DOMAIN "accel-library"

#include "accellibrarycheck.h"

/**
 * accel_library_check_failed:
 * @stage: the stage that made the call
 * @log_domain: the calling plugin's log domain
 * @library: the library's name, such as "cuFFT"
 * @status: the status the call returned, not its success value
 * @status_name: the status's name as the library's header spells it
 * @detail: (nullable): the library's own description of @status
 * @call: the call's source text
 * @file: source file of the call
 * @line: source line of the call
 * @error: return location for a #GError, or %NULL
 *
 * What every library plugin's checking macro does on a failed call: logs
 * the call, the file and line, the stage and the status to @log_domain,
 * and sets @error (%ACCEL_ERROR_LIBRARY) with the same. MT safe.
 *
 * Returns: %FALSE.
 */
gboolean
accel_library_check_failed (AccelStage *stage, const char *log_domain,
    const char *library, int status, const char *status_name,
    const char *detail, const char *call, const char *file, int line,
    GError **error)
{
  const char *name = accel_stage_get_name (stage);
  const char *kind = accel_stage_get_kind_name (stage);

  g_log (log_domain, G_LOG_LEVEL_DEBUG,
      "%s:%d: %s failed in stage %s: %s %s (%d)%s%s", file, line, call, name,
      library, status_name, status, detail ? ": " : "", detail ? detail : "");
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_LIBRARY,
      "stage '%s' (%s): %s failed: %s status %s (%d)%s%s at %s:%d", name, kind,
      call, library, status_name, status, detail ? ": " : "",
      detail ? detail : "", file, line);
  return FALSE;
}
