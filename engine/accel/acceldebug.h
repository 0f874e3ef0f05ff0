/* accel: switches for tests that prove the engine's own guarantees */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * AccelDebugFlags:
 * @ACCEL_DEBUG_NONE: normal operation
 * @ACCEL_DEBUG_SKIP_SYNC: buffers skip their stream waits, so stages race;
 *   only for tests that show the waits are what keeps results right
 */
typedef enum
{
  ACCEL_DEBUG_NONE = 0,
  ACCEL_DEBUG_SKIP_SYNC = 1 << 0,
} AccelDebugFlags;

void accel_debug_set_flags (AccelDebugFlags flags);
AccelDebugFlags accel_debug_get_flags (void);

G_END_DECLS
