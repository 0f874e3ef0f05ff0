/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel blas plugin: dense linear algebra through cuBLAS on a GPU and
 * OpenBLAS on the host */
#define G_LOG_DOMAIN "accel-blas"

#include <gmodule.h>

#include "accelaxpy.h"
#include "acceldot.h"
#include "accelgemm.h"
#include "accelgemmc.h"
#include "accelgemv.h"

G_MODULE_EXPORT gboolean accel_plugin_register (
    AccelRegistry *registry, GError **error);

/**
 * accel_plugin_register:
 * @registry: the registry to add the stage kinds to
 * @error: return location for a #GError, or %NULL
 *
 * Registers blas.gemm, blas.gemm-c, blas.gemv,
 * blas.axpy and blas.dot. All have a host implementation, so the plugin
 * works without a GPU too. Called by the registry, once.
 *
 * Returns: %TRUE.
 */
G_MODULE_EXPORT gboolean
accel_plugin_register (AccelRegistry *registry, GError **error)
{
  accel_registry_register (registry, ACCEL_TYPE_GEMM);
  accel_registry_register (registry, ACCEL_TYPE_GEMM_C);
  accel_registry_register (registry, ACCEL_TYPE_GEMV);
  accel_registry_register (registry, ACCEL_TYPE_AXPY);
  accel_registry_register (registry, ACCEL_TYPE_DOT);
  return TRUE;
}
