/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "accelhostscratch.h"

/**
 * accel_host_scratch_new:
 * @stage: the stage whose host path needs it
 * @n: how many elements
 * @size: the size of one
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full) (nullable): @n elements of @size bytes, freed
 * with g_free(), or %NULL with %ACCEL_ERROR_OUT_OF_MEMORY naming @stage
 * when they cannot be had (g_malloc() would abort). Called from start().
 */
gpointer
accel_host_scratch_new (AccelStage *stage, gsize n, gsize size, GError **error)
{
  gpointer data = g_try_malloc_n (MAX (n, 1), size);

  if (!data)
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_OUT_OF_MEMORY,
        "stage '%s' (%s): cannot allocate %" G_GSIZE_FORMAT
        " elements of %" G_GSIZE_FORMAT " bytes of host memory to compute in",
        accel_stage_get_name (stage), accel_stage_get_kind_name (stage), n,
        size);
  return data;
}
