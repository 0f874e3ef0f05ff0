/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nvrtc plugin: user CUDA kernels compiled at run time by NVRTC */
#define G_LOG_DOMAIN "accel-nvrtc"

#include <gmodule.h>

#include "accelnvrtckernel.h"

G_MODULE_EXPORT gboolean accel_plugin_register (
    AccelRegistry *registry, GError **error);

/**
 * accel_plugin_register:
 * @registry: the registry to add the stage kinds to
 * @error: return location for a #GError, or %NULL
 *
 * Registers nvrtc.kernel. It has no host implementation: on the host
 * backend it refuses to prepare, with an error that says so. Called by the
 * registry, once.
 *
 * Returns: %TRUE.
 */
G_MODULE_EXPORT gboolean
accel_plugin_register (AccelRegistry *registry, GError **error)
{
  accel_registry_register (registry, ACCEL_TYPE_NVRTC_KERNEL);
  return TRUE;
}
