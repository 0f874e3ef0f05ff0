/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: what a stage does when a frame fails, and fault injection */
#pragma once

#include <glib-object.h>
#include <accel/accelversion.h>

G_BEGIN_DECLS

/**
 * AccelSupervision:
 * @ACCEL_SUPERVISION_AUTO: by fault: resume after bad input or a stale
 *   buffer; restart after running out of memory (after one retry with the
 *   pools' slack released), a library error or a missed deadline; escalate
 *   a poisoned context and anything else
 * @ACCEL_SUPERVISION_RESTART: stop and start the stage again (new stream,
 *   handles and plans; state from its last snapshot) and go on with the next
 *   buffer
 * @ACCEL_SUPERVISION_RESUME: skip the buffer (counted) and go on
 * @ACCEL_SUPERVISION_STOP: end this stage's stream; the rest of the graph
 *   finishes what it has
 * @ACCEL_SUPERVISION_ESCALATE: fail the graph with the stage's error
 *
 * A restart beyond the stage's restart intensity (`max-restarts` within
 * `restart-window` ms) escalates.
 */
typedef enum
{
  ACCEL_SUPERVISION_AUTO,
  ACCEL_SUPERVISION_RESTART,
  ACCEL_SUPERVISION_RESUME,
  ACCEL_SUPERVISION_STOP,
  ACCEL_SUPERVISION_ESCALATE,
} AccelSupervision;

#define ACCEL_TYPE_SUPERVISION (accel_supervision_get_type ())
GType accel_supervision_get_type (void);

/**
 * AccelFaultKind:
 * @ACCEL_FAULT_ILLEGAL_ADDRESS: a kernel writes to an invalid address (on the
 *   GPU a real sticky error; on the host a simulated poisoned context)
 * @ACCEL_FAULT_OUT_OF_MEMORY: an allocation fails
 * @ACCEL_FAULT_LIBRARY: a library call returns an error status
 * @ACCEL_FAULT_INVALID_INPUT: the stage rejects its input
 * @ACCEL_FAULT_HANG: the frame takes longer than the stage's deadline
 * @ACCEL_FAULT_CRASH: the process is killed (SIGKILL)
 */
typedef enum
{
  ACCEL_FAULT_ILLEGAL_ADDRESS,
  ACCEL_FAULT_OUT_OF_MEMORY,
  ACCEL_FAULT_LIBRARY,
  ACCEL_FAULT_INVALID_INPUT,
  ACCEL_FAULT_HANG,
  ACCEL_FAULT_CRASH,
} AccelFaultKind;

/* a libaccel built with -Dfault-injection=false has none of these */
#if ACCEL_HAS_FAULT_INJECTION
void accel_fault_inject (
    const char *stage_name, AccelFaultKind kind, guint64 sequence);
gboolean accel_fault_inject_parse (const char *spec, GError **error);
void accel_fault_clear (void);
#endif

G_END_DECLS
