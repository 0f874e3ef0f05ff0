/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel rand plugin: random tensor sources, cuRAND on a GPU and plain C on
 * the host */
#define G_LOG_DOMAIN "accel-rand"

#include <gmodule.h>

#include "accelrandlognormal.h"
#include "accelrandnormal.h"
#include "accelranduniform.h"

G_MODULE_EXPORT gboolean accel_plugin_register (
    AccelRegistry *registry, GError **error);

/**
 * accel_plugin_register:
 * @registry: the registry to add the stage kinds to
 * @error: return location for a #GError, or %NULL
 *
 * Registers rand.uniform, rand.normal and rand.log-normal. All have a host
 * implementation, so the plugin works without a GPU too. Called by the
 * registry, once.
 *
 * Returns: %TRUE.
 */
G_MODULE_EXPORT gboolean
accel_plugin_register (AccelRegistry *registry, GError **error)
{
  accel_registry_register (registry, ACCEL_TYPE_RAND_UNIFORM);
  accel_registry_register (registry, ACCEL_TYPE_RAND_NORMAL);
  accel_registry_register (registry, ACCEL_TYPE_RAND_LOG_NORMAL);
  return TRUE;
}
