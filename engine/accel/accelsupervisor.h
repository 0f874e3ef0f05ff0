/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the process supervisor: a pipeline runs in a worker process that
 * is started again when its CUDA context is poisoned or it dies */
#pragma once

#include <glib.h>
#include <signal.h>

G_BEGIN_DECLS

/* a worker's exit status for "my CUDA context is poisoned: start me again" */
#define ACCEL_EXIT_POISONED 75
/* a worker's exit status for "a stage's frame hung past its watchdog, and
 * I left it behind: start me again" (%ACCEL_ERROR_HUNG) */
#define ACCEL_EXIT_HUNG 76
/* a worker's exit status for "an interrupt ended my stream early, and I
 * finished the frames in flight": done when the supervisor was interrupted
 * too, a stop short of the end when the signal was sent to the worker alone */
#define ACCEL_EXIT_INTERRUPTED 74
/* a worker's exit status for "an interrupt stopped me at once, or before my
 * graph ran", as shells report a SIGINT */
#define ACCEL_EXIT_STOPPED 130
/* a worker's exit status for "the job is done, but frames were skipped or
 * lost (I said which on stderr)": not started again */
#define ACCEL_EXIT_INCOMPLETE 3
/* a worker's exit status for "the job is done and every frame delivered,
 * but some only after a retry: a frame run again after it ran out of
 * memory (I said which on stderr)": not started again; a supervisor that
 * started a worker again ends with it too */
#define ACCEL_EXIT_RETRIED 4
/* a worker's exit status for "another rank ended its stream before a frame
 * I gave it, and I failed as the consequence" (%ACCEL_ERROR_PEER_ENDED):
 * not started again; a world's supervisor names the rank that ended, and
 * waits for its own end */
#define ACCEL_EXIT_PEER_ENDED 73
/* a worker's exit status for "the pipeline or its options are invalid":
 * not started again, and the supervisor's own status */
#define ACCEL_EXIT_INVALID 2
/* the signal a supervisor sends its workers for an interrupt (SIGINT) sent
 * to it alone; a terminal's Ctrl-C reaches them as SIGINT as well, so a
 * worker counts the more of the two, not their sum */
#define ACCEL_SUPERVISOR_INTERRUPT SIGUSR1
/* the signal a worker of accel_supervisor_run () gets when its supervisor
 * dies (even by SIGKILL): an interrupt, taken once however often it comes
 * (a parent's death may signal more than once) */
#define ACCEL_SUPERVISOR_GONE SIGUSR2
/* the most workers a supervisor passes interrupts on to: the most ranks
 * of a world */
#define ACCEL_SUPERVISOR_MAX_WORKERS 4096

gboolean accel_supervisor_is_worker (void);
void accel_supervisor_take_interrupts (void);
guint accel_supervisor_get_generation (void);
int accel_supervisor_exit_status (const GError *error);
gboolean accel_supervisor_run (const char *const *argv, guint max_restarts,
    gint64 restart_window_ms, GError **error);

G_END_DECLS
