/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: registration of the built-in "core.*" stages */
#define G_LOG_DOMAIN "accel-registry"

#include "accel-private.h"

void
accel_registry_register_builtins (AccelRegistry *registry)
{
  accel_registry_register (registry, ACCEL_TYPE_TEST_SOURCE);
  accel_registry_register (registry, ACCEL_TYPE_SCALE);
  accel_registry_register (registry, ACCEL_TYPE_CHECKSUM_SINK);
  accel_registry_register (registry, ACCEL_TYPE_NULL_SINK);
  accel_registry_register (registry, ACCEL_TYPE_MEMCPY);
}
