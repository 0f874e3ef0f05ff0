/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: errors of the engine and its stages */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * ACCEL_ERROR:
 *
 * The error domain of the engine and its stages; codes are #AccelError.
 */
#define ACCEL_ERROR (accel_error_quark ())

/**
 * AccelError:
 * @ACCEL_ERROR_FAILED: a failure with no better code
 * @ACCEL_ERROR_INVALID_PIPELINE: the graph is not well formed (unlinked port,
 * cycle, unknown stage)
 * @ACCEL_ERROR_TYPE_MISMATCH: two linked ports disagree on their types
 * @ACCEL_ERROR_NO_DEVICE: no usable device for the request
 * @ACCEL_ERROR_OUT_OF_MEMORY: an allocation failed
 * @ACCEL_ERROR_STALE_BUFFER: a buffer belongs to an older generation of its
 * device
 * @ACCEL_ERROR_CONTEXT_POISONED: a sticky CUDA error; the process cannot use
 * the device again
 * @ACCEL_ERROR_LIBRARY: a CUDA library returned an error status (named in the
 * message)
 * @ACCEL_ERROR_TIMEOUT: a bounded wait ran out
 * @ACCEL_ERROR_INVALID_INPUT: a stage was given data it cannot process
 * @ACCEL_ERROR_NOT_SUPPORTED: the request cannot be served on this backend
 * @ACCEL_ERROR_STOPPED: the operation was interrupted because the graph is
 * stopping
 * @ACCEL_ERROR_DEADLINE: a frame took longer than its stage's deadline; a
 * stage fault, never the timeout of accel_graph_wait()
 * @ACCEL_ERROR_STATE_MISMATCH: a state directory does not fit the graph (it
 * was another pipeline's) or its outputs (they changed since, and cannot
 * be repaired), or a file of it is damaged (a commit log, a checkpoint)
 * @ACCEL_ERROR_INCOMPLETE: a run reached its end, but frames were skipped
 * after faults or lost (a live source's, past a restart)
 * @ACCEL_ERROR_RETRIED: a run reached its end with every frame delivered,
 * but some only after a retry: a frame run again after it ran out of
 * memory, or a worker process started again (which replays the frames its
 * sinks had not committed)
 * @ACCEL_ERROR_STREAM_ENDS: a stage gives the frame up as its graph ends:
 * the stage's peers in other processes ended their streams before it
 * (each interrupted where it was), so its stream ends there too, no fault
 * @ACCEL_ERROR_HUNG: a stage's frame ran past its watchdog and has not
 * returned; nothing stops its thread, so accel_graph_stop() waits for it:
 * a process that cannot wait ends without it (accel-run does, and its
 * process supervisor starts a new worker)
 * @ACCEL_ERROR_PEER_ENDED: another rank of the world ended its stream (a
 * collective's or a pair's, not for an interrupt) before a frame this rank
 * gave it: this rank fails as the consequence of that rank's end, which
 * is where to look (its own failure, or ranks given different frames)
 *
 * Error codes of the %ACCEL_ERROR domain.
 */
typedef enum
{
  ACCEL_ERROR_FAILED,
  ACCEL_ERROR_INVALID_PIPELINE,
  ACCEL_ERROR_TYPE_MISMATCH,
  ACCEL_ERROR_NO_DEVICE,
  ACCEL_ERROR_OUT_OF_MEMORY,
  ACCEL_ERROR_STALE_BUFFER,
  ACCEL_ERROR_CONTEXT_POISONED,
  ACCEL_ERROR_LIBRARY,
  ACCEL_ERROR_TIMEOUT,
  ACCEL_ERROR_INVALID_INPUT,
  ACCEL_ERROR_NOT_SUPPORTED,
  ACCEL_ERROR_STOPPED,
  ACCEL_ERROR_DEADLINE,
  ACCEL_ERROR_STATE_MISMATCH,
  ACCEL_ERROR_INCOMPLETE,
  ACCEL_ERROR_STREAM_ENDS,
  ACCEL_ERROR_HUNG,
  ACCEL_ERROR_PEER_ENDED,
  ACCEL_ERROR_RETRIED,
} AccelError;

GQuark accel_error_quark (void);

/**
 * accel_cuda_check:
 * @call: a CUDA runtime call (its `cudaError_t` result is checked)
 * @error: return location for a #GError, or %NULL
 *
 * Evaluates @call; on failure sets @error with the call's text, the file and
 * line, the name of the stage running on this thread and CUDA's own message,
 * logs the same to the "accel-cuda" domain, and returns %FALSE.
 */
#define accel_cuda_check(call, error)                                          \
  accel_cuda_check_full ((int)(call), #call, __FILE__, __LINE__, (error))

gboolean accel_cuda_check_full (
    int status, const char *call, const char *file, int line, GError **error);

AccelError accel_error_from_cuda (int status);

G_END_DECLS
