/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel fft plugin: discrete Fourier transforms, cuFFT on a GPU and FFTW on
 * the host */
#define G_LOG_DOMAIN "accel-fft"

#include <gmodule.h>

#include "accelfftforward.h"
#include "accelfftinverse.h"

G_MODULE_EXPORT gboolean accel_plugin_register (
    AccelRegistry *registry, GError **error);

/**
 * accel_plugin_register:
 * @registry: the registry to add the stage kinds to
 * @error: return location for a #GError, or %NULL
 *
 * Registers fft.forward and fft.inverse. Both have a host implementation
 * (FFTW), so the plugin works without a GPU too. Called by the registry,
 * once.
 *
 * Returns: %TRUE.
 */
G_MODULE_EXPORT gboolean
accel_plugin_register (AccelRegistry *registry, GError **error)
{
  accel_registry_register (registry, ACCEL_TYPE_FFT_FORWARD);
  accel_registry_register (registry, ACCEL_TYPE_FFT_INVERSE);
  return TRUE;
}
