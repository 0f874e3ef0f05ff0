/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: switches for tests that prove the engine's own guarantees */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * AccelDebugFlags:
 * @ACCEL_DEBUG_NONE: normal operation
 * @ACCEL_DEBUG_SKIP_READ_WAIT: readers skip the wait for the last writer
 *   (read after write races)
 * @ACCEL_DEBUG_SKIP_WRITE_WAIT: writers skip the waits for readers' fences
 *   and the last writer (write after read races)
 * @ACCEL_DEBUG_NO_METRICS: stages keep no latency histograms and sources
 *   stamp no start times for the end-to-end latency (what they cost)
 *
 * Only for tests that show the engine's waits are what keeps results right,
 * and for benchmarks that measure what the metrics cost.
 */
typedef enum
{
  ACCEL_DEBUG_NONE = 0,
  ACCEL_DEBUG_SKIP_READ_WAIT = 1 << 0,
  ACCEL_DEBUG_SKIP_WRITE_WAIT = 1 << 1,
  ACCEL_DEBUG_NO_METRICS = 1 << 2,
} AccelDebugFlags;

void accel_debug_set_flags (AccelDebugFlags flags);
AccelDebugFlags accel_debug_get_flags (void);
guint64 accel_debug_get_n_allocations (void);

G_END_DECLS
