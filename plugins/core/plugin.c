/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel core plugin: the test pattern, scale, checksum and null stages that
 * demos and tests build pipelines from */
#define G_LOG_DOMAIN "accel-core"

#include <gmodule.h>

#include "accelchecksumsink.h"
#include "accelnullsink.h"
#include "accelscale.h"
#include "acceltestsource.h"

G_MODULE_EXPORT gboolean accel_plugin_register (
    AccelRegistry *registry, GError **error);

/**
 * accel_plugin_register:
 * @registry: the registry to add the stage kinds to
 * @error: return location for a #GError, or %NULL
 *
 * Registers the core.* stage kinds of this plugin (core.memcpy is the
 * engine's own). Every one of them has a host implementation. Called by the
 * registry, once.
 *
 * Returns: %TRUE.
 */
G_MODULE_EXPORT gboolean
accel_plugin_register (AccelRegistry *registry, GError **error)
{
  accel_registry_register (registry, ACCEL_TYPE_TEST_SOURCE);
  accel_registry_register (registry, ACCEL_TYPE_SCALE);
  accel_registry_register (registry, ACCEL_TYPE_CHECKSUM_SINK);
  accel_registry_register (registry, ACCEL_TYPE_NULL_SINK);
  return TRUE;
}
