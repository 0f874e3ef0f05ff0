/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the engine's built-in stage kind, core.memcpy; the other core.*
 * kinds (test source, scale, checksum and null sinks) come from the core
 * plugin */
#pragma once

#include <accel/accelstage.h>

G_BEGIN_DECLS

/* core.memcpy: copies between memory kinds and devices; the graph inserts it */
#define ACCEL_TYPE_MEMCPY (accel_memcpy_get_type ())
G_DECLARE_FINAL_TYPE (AccelMemcpy, accel_memcpy, ACCEL, MEMCPY, AccelStage)

#define ACCEL_TYPE_MEMORY (accel_memory_get_type ())
GType accel_memory_get_type (void);

G_END_DECLS
