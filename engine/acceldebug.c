/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: debug switches */
#define G_LOG_DOMAIN "accel-debug"

#include "accel-private.h"

static gint debug_flags;
static gsize n_allocations;

/**
 * accel_debug_set_flags:
 * @flags: the switches to turn on (the others turn off)
 *
 * MT safe; takes effect for the next buffer acquire and the next frame.
 */
void
accel_debug_set_flags (AccelDebugFlags flags)
{
  g_atomic_int_set (&debug_flags, (gint)flags);
  g_debug ("buffer waits: readers' %s, writers' %s; metrics %s",
      flags & ACCEL_DEBUG_SKIP_READ_WAIT ? "skipped" : "kept",
      flags & ACCEL_DEBUG_SKIP_WRITE_WAIT ? "skipped" : "kept",
      flags & ACCEL_DEBUG_NO_METRICS ? "off" : "on");
}

/**
 * accel_debug_get_flags:
 *
 * Returns: the switches that are on. MT safe.
 */
AccelDebugFlags
accel_debug_get_flags (void)
{
  return (AccelDebugFlags)g_atomic_int_get (&debug_flags);
}

gboolean
accel_debug_has (AccelDebugFlags flag)
{
  return (g_atomic_int_get (&debug_flags) & flag) != 0;
}

/* a buffer's memory was allocated (pools and accel_buffer_new()) */
void
accel_debug_count_allocation (void)
{
  g_atomic_pointer_add (&n_allocations, 1);
}

/**
 * accel_debug_get_n_allocations:
 *
 * Buffers the engine has allocated memory for since the process began,
 * pools' and accel_buffer_new()'s: a graph in its steady state adds none.
 *
 * Returns: the count. MT safe.
 */
guint64
accel_debug_get_n_allocations (void)
{
  return GPOINTER_TO_SIZE (g_atomic_pointer_get (&n_allocations));
}
