/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: the image kernels as engine stages */
#define G_LOG_DOMAIN "accel-realtime"

#include <gmodule.h>

#include "accelanalysis.h"
#include "accelblend.h"
#include "accelcloth.h"
#include "accelboxblur.h"
#include "accelconvert.h"
#include "acceleffects.h"
#include "accelfluid.h"
#include "accelgaussianblur.h"
#include "accelmedian.h"
#include "accelneighbours.h"
#include "accelparticles.h"
#include "accelresize.h"
#include "accelsobel.h"
#include "accelsplat.h"
#include "accelthreshold.h"
#include "accelunsharp.h"

G_MODULE_EXPORT gboolean accel_plugin_register (
    AccelRegistry *registry, GError **error);

/**
 * accel_plugin_register:
 * @registry: the registry to add the stage kinds to
 * @error: return location for a #GError, or %NULL
 *
 * Registers the realtime.* stage kinds. Every one of them has a host
 * implementation, so the plugin works without a GPU too. Called by the
 * registry, once.
 *
 * Returns: %TRUE.
 */
G_MODULE_EXPORT gboolean
accel_plugin_register (AccelRegistry *registry, GError **error)
{
  accel_registry_register (registry, ACCEL_TYPE_GAUSSIAN_BLUR);
  accel_registry_register (registry, ACCEL_TYPE_BOX_BLUR);
  accel_registry_register (registry, ACCEL_TYPE_SOBEL);
  accel_registry_register (registry, ACCEL_TYPE_MEDIAN);
  accel_registry_register (registry, ACCEL_TYPE_UNSHARP);
  accel_registry_register (registry, ACCEL_TYPE_THRESHOLD);
  accel_registry_register (registry, ACCEL_TYPE_RESIZE);
  accel_registry_register (registry, ACCEL_TYPE_CONVERT);
  accel_registry_register (registry, ACCEL_TYPE_FLUID);
  accel_registry_register (registry, ACCEL_TYPE_EFFECTS);
  accel_registry_register (registry, ACCEL_TYPE_BLEND);
  accel_registry_register (registry, ACCEL_TYPE_ANALYSIS);
  accel_registry_register (registry, ACCEL_TYPE_PARTICLES);
  accel_registry_register (registry, ACCEL_TYPE_SPLAT);
  accel_registry_register (registry, ACCEL_TYPE_CLOTH);
  accel_registry_register (registry, ACCEL_TYPE_NEIGHBOURS);
  return TRUE;
}
