/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel solver plugin: dense factorizations and solvers through cuSOLVER
 * on a GPU and LAPACKE on the host */
#define G_LOG_DOMAIN "accel-solver"

#include <gmodule.h>

#include "accelcholesky.h"
#include "acceleigh.h"
#include "accellu.h"
#include "accelqr.h"
#include "accelsvd.h"

G_MODULE_EXPORT gboolean accel_plugin_register (
    AccelRegistry *registry, GError **error);

/**
 * accel_plugin_register:
 * @registry: the registry to add the stage kinds to
 * @error: return location for a #GError, or %NULL
 *
 * Registers solver.qr, solver.lu, solver.cholesky, solver.svd and
 * solver.eigh. All have a host implementation, so the plugin works without
 * a GPU too. Called by the registry, once.
 *
 * Returns: %TRUE.
 */
G_MODULE_EXPORT gboolean
accel_plugin_register (AccelRegistry *registry, GError **error)
{
  accel_registry_register (registry, ACCEL_TYPE_QR);
  accel_registry_register (registry, ACCEL_TYPE_LU);
  accel_registry_register (registry, ACCEL_TYPE_CHOLESKY);
  accel_registry_register (registry, ACCEL_TYPE_SVD);
  accel_registry_register (registry, ACCEL_TYPE_EIGH);
  return TRUE;
}
