/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel dnn plugin: convolutions through cuDNN on a GPU and a direct
 * convolution in plain C on the host */
#define G_LOG_DOMAIN "accel-dnn"

#include <gmodule.h>

#include "accelconv2d.h"
#include "accelconv2dbias.h"

G_MODULE_EXPORT gboolean accel_plugin_register (
    AccelRegistry *registry, GError **error);

/**
 * accel_plugin_register:
 * @registry: the registry to add the stage kinds to
 * @error: return location for a #GError, or %NULL
 *
 * Registers dnn.conv2d and dnn.conv2d-bias. Both have a host
 * implementation, so the plugin works without a GPU too. Called by the
 * registry, once.
 *
 * Returns: %TRUE.
 */
G_MODULE_EXPORT gboolean
accel_plugin_register (AccelRegistry *registry, GError **error)
{
  accel_registry_register (registry, ACCEL_TYPE_CONV2D);
  accel_registry_register (registry, ACCEL_TYPE_CONV2D_BIAS);
  return TRUE;
}
