/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: collective stages for worlds of processes, through
 * NCCL on GPUs and Gloo on the host backend */
#define G_LOG_DOMAIN "accel-nccl"

#include <gmodule.h>

#include "accelallgather.h"
#include "accelallreduce.h"
#include "accelbroadcast.h"
#include "accelrecv.h"
#include "accelreduce.h"
#include "accelreducescatter.h"
#include "accelsend.h"

G_MODULE_EXPORT gboolean accel_plugin_register (
    AccelRegistry *registry, GError **error);

/**
 * accel_plugin_register:
 * @registry: the registry to add the stage kinds to
 * @error: return location for a #GError, or %NULL
 *
 * Registers nccl.all-reduce, nccl.all-gather, nccl.reduce-scatter,
 * nccl.broadcast, nccl.reduce, nccl.send and nccl.recv. All have a host
 * implementation (Gloo), so the plugin works without a GPU too. Called by
 * the registry, once.
 *
 * Returns: %TRUE.
 */
G_MODULE_EXPORT gboolean
accel_plugin_register (AccelRegistry *registry, GError **error)
{
  accel_registry_register (registry, ACCEL_TYPE_ALL_REDUCE);
  accel_registry_register (registry, ACCEL_TYPE_ALL_GATHER);
  accel_registry_register (registry, ACCEL_TYPE_REDUCE_SCATTER);
  accel_registry_register (registry, ACCEL_TYPE_BROADCAST);
  accel_registry_register (registry, ACCEL_TYPE_REDUCE);
  accel_registry_register (registry, ACCEL_TYPE_SEND);
  accel_registry_register (registry, ACCEL_TYPE_RECV);
  return TRUE;
}
