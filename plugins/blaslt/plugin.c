/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel blaslt plugin: matrix products with fused epilogues through
 * cuBLASLt on a GPU and OpenBLAS on the host */
#define G_LOG_DOMAIN "accel-blaslt"

#include <gmodule.h>

#include "accelmatmul.h"
#include "accelmatmulbias.h"

G_MODULE_EXPORT gboolean accel_plugin_register (
    AccelRegistry *registry, GError **error);

/**
 * accel_plugin_register:
 * @registry: the registry to add the stage kinds to
 * @error: return location for a #GError, or %NULL
 *
 * Registers blaslt.matmul and blaslt.matmul-bias. Both have a host
 * implementation, so the plugin works without a GPU too. Called by the
 * registry, once.
 *
 * Returns: %TRUE.
 */
G_MODULE_EXPORT gboolean
accel_plugin_register (AccelRegistry *registry, GError **error)
{
  accel_registry_register (registry, ACCEL_TYPE_MATMUL);
  accel_registry_register (registry, ACCEL_TYPE_MATMUL_BIAS);
  return TRUE;
}
