/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel sparse plugin: CSR sparse products, cuSPARSE's generic API on a GPU
 * and plain C on the host */
#define G_LOG_DOMAIN "accel-sparse"

#include <gmodule.h>

#include "accelspmm.h"
#include "accelspmv.h"

G_MODULE_EXPORT gboolean accel_plugin_register (
    AccelRegistry *registry, GError **error);

/**
 * accel_plugin_register:
 * @registry: the registry to add the stage kinds to
 * @error: return location for a #GError, or %NULL
 *
 * Registers sparse.spmv and sparse.spmm. Both have a host implementation,
 * so the plugin works without a GPU too. Called by the registry, once.
 *
 * Returns: %TRUE.
 */
G_MODULE_EXPORT gboolean
accel_plugin_register (AccelRegistry *registry, GError **error)
{
  accel_registry_register (registry, ACCEL_TYPE_SPMV);
  accel_registry_register (registry, ACCEL_TYPE_SPMM);
  return TRUE;
}
