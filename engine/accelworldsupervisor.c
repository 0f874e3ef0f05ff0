/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the supervisor of a world of local ranks. It serves the world's
 * store, starts one worker per rank and, when one dies (a signal, a
 * poisoned context, a collective whose peer went away), ends the others and
 * starts the whole world again one generation later: every rank's
 * communicator is rebuilt from a new unique id and the ranks resume where
 * all of them agree their sinks' commits end. G_MESSAGES_DEBUG=accel-world
 * tells each worker's process id */
#define G_LOG_DOMAIN "accel-world"

#include "accel-private.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>

/* how often the supervisor looks at its workers */
#define POLL_MS 10
/* how long the other ranks may take to end on their own after one failed */
#define CULPRIT_GRACE_MS 500
/* ... and after one failed because another's stream ended: that one
 * failed too, or ended short, and may take as long to stop as an
 * accel-run that failed may (5 s), and a second */
#define PEER_ENDED_GRACE_MS 6000
/* ... and after one was interrupted alone: accel-run's grace for the
 * frames in flight (5 s), and a second */
#define INTERRUPT_GRACE_MS 6000

typedef struct
{
  GPid pid;
  gboolean running;
} Rank;

static gchar **
rank_env (guint rank, guint n_ranks, guint generation, const char *coordinator,
    const char *state_dir)
{
  gchar **env = g_get_environ ();
  g_autofree gchar *r = g_strdup_printf ("%u", rank);
  g_autofree gchar *n = g_strdup_printf ("%u", n_ranks);
  g_autofree gchar *gen = g_strdup_printf ("%u", generation);

  env = g_environ_setenv (env, "ACCEL_WORKER", "1", TRUE);
  env = g_environ_setenv (env, "ACCEL_GENERATION", gen, TRUE);
  env = g_environ_setenv (env, "ACCEL_RANK", r, TRUE);
  env = g_environ_setenv (env, "ACCEL_WORLD_SIZE", n, TRUE);
  env = g_environ_setenv (env, "ACCEL_COORDINATOR", coordinator, TRUE);
  for (const char *const *d = accel_world_get_worker_defaults (); *d; d += 2)
    env = g_environ_setenv (env, d[0], d[1], FALSE);
  if (state_dir)
    {
      g_autofree gchar *dir = g_strdup_printf ("%s/rank-%u", state_dir, rank);
      env = g_environ_setenv (env, "ACCEL_STATE_DIR", dir, TRUE);
    }
  return env;
}

static void
end_ranks (Rank *ranks, guint n)
{
  for (guint i = 0; i < n; i++)
    if (ranks[i].running)
      {
        int status;
        kill (ranks[i].pid, SIGKILL);
        accel_supervisor_reap_worker (ranks[i].pid, TRUE, &status);
        ranks[i].running = FALSE;
      }
}

/* a rank interrupted alone ends its stream early, and the others would
 * wait for it, or run on without it: they are interrupted as well, as by
 * an interrupt of the supervisor's own */
static void
interrupt_ranks (Rank *ranks, guint n)
{
  for (guint i = 0; i < n; i++)
    if (ranks[i].running)
      kill (ranks[i].pid, ACCEL_SUPERVISOR_INTERRUPT);
}

/* how telling a rank's bad end is: a signal, then a pipeline it refused
 * (status 2), then a failure of its own (an escalated fault), then what
 * the world is rebuilt for (a communicator that broke or a stage that
 * hung, often because of one of those: a peer's poisoned communicator
 * reaped first was named, the world rebuilt, and the escalated fault gone
 * with status 0), then a failure that says it is the consequence of
 * another rank's end (ACCEL_EXIT_PEER_ENDED: that rank failed of its own
 * too, or ended its stream short, and was the one to name when it left
 * later). CULPRIT_TELLS names it at once */
#define CULPRIT_TELLS 4
#define CULPRIT_PEER_ENDED 1
static int
culprit_rank (int status)
{
  g_autofree gchar *restarts = NULL;

  if (status < 0)
    return 0;
  if (WIFSIGNALED (status))
    return 5;
  if (WIFEXITED (status) && WEXITSTATUS (status) == ACCEL_EXIT_INVALID)
    return 4;
  if (WIFEXITED (status) && WEXITSTATUS (status) == ACCEL_EXIT_PEER_ENDED)
    return CULPRIT_PEER_ENDED;
  restarts = accel_supervisor_restart_cause (status);
  return restarts ? 2 : 3;
}

/* how long the others may take to end after the rank named so far */
static gint64
culprit_grace_ms (int status)
{
  return culprit_rank (status) == CULPRIT_PEER_ENDED ? PEER_ENDED_GRACE_MS
                                                     : CULPRIT_GRACE_MS;
}

/* of two ranks that ended badly at once, the one to name */
static gboolean
is_better_culprit (int status, int than)
{
  return culprit_rank (status) > culprit_rank (than);
}

/* starts every rank; waits until all finished (TRUE, @incomplete set when
 * one skipped or lost frames, @retried when one ran frames again) or one did
 * not (FALSE, with its rank and wait status). A rank interrupted alone ends the
 * others' streams too, and is named (FALSE) whatever they do: the world is not
 * rebuilt to undo an interrupt */
static gboolean
run_world (const char *const *argv, guint n_ranks, guint generation,
    const char *coordinator, const char *state_dir, guint *failed,
    int *failed_status, gboolean *incomplete, gboolean *retried, GError **error)
{
  g_autofree Rank *ranks = g_new0 (Rank, n_ranks);
  guint n_running = 0;
  gboolean any_failed = FALSE, interrupted_alone = FALSE;
  gint64 failed_at = 0, interrupt_until = 0;

  /* a rank goes with its supervisor, however that ends; after an
   * interrupt no more start (each started the run of 300 ranks anew only
   * to leave at once) */
  for (guint r = 0; r < n_ranks && !accel_supervisor_interrupted (); r++)
    {
      g_auto (GStrv) env
          = rank_env (r, n_ranks, generation, coordinator, state_dir);
      if (!g_spawn_async (NULL, (gchar **)argv, env,
              G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD
                  | G_SPAWN_CHILD_INHERITS_STDIN,
              accel_supervisor_child_setup, GINT_TO_POINTER (SIGKILL),
              &ranks[r].pid, error))
        {
          g_prefix_error (error, "cannot start rank %u: ", r);
          end_ranks (ranks, n_ranks);
          return FALSE;
        }
      accel_supervisor_add_worker (ranks[r].pid);
      ranks[r].running = TRUE;
      n_running++;
      g_debug ("generation %u: rank %u is process %d", generation, r,
          (int)ranks[r].pid);
    }
  while (n_running > 0)
    {
      /* every rank that ended since the last look, before choosing whom
       * to name */
      for (guint r = 0; r < n_ranks; r++)
        {
          int status = 0;

          if (!ranks[r].running
              || !accel_supervisor_reap_worker (ranks[r].pid, FALSE, &status))
            continue;
          ranks[r].running = FALSE;
          n_running--;
          if ((WIFEXITED (status)
                  && (WEXITSTATUS (status) == 0
                      || WEXITSTATUS (status) == ACCEL_EXIT_INCOMPLETE
                      || WEXITSTATUS (status) == ACCEL_EXIT_RETRIED))
              || accel_supervisor_finished_interrupted (status))
            {
              g_debug ("generation %u: rank %u finished", generation, r);
              *incomplete |= WEXITSTATUS (status) == ACCEL_EXIT_INCOMPLETE;
              *retried |= WEXITSTATUS (status) == ACCEL_EXIT_RETRIED;
              continue;
            }
          if (accel_supervisor_interrupted_alone (status))
            {
              if (!interrupted_alone)
                {
                  *failed = r;
                  *failed_status = status;
                  interrupt_ranks (ranks, n_ranks);
                }
              interrupted_alone = TRUE;
              continue;
            }
          if (!interrupted_alone
              && (!any_failed || is_better_culprit (status, *failed_status)))
            {
              *failed = r;
              *failed_status = status;
            }
          any_failed = TRUE;
        }
      /* the others get a moment to end on their own where no end more
       * telling than a broken communicator came yet: a rank that refused
       * its pipeline closes the connections another was making, whose
       * communicator broke first, and the world was rebuilt for it. A
       * signal needs no wait (the others only wait for that rank); a rank
       * that failed because another's stream ended waits for that one's
       * end as long as a stop may take (it was named, and the other, still
       * stopping from its own failure, ended unnamed) */
      if (any_failed && failed_at == 0)
        failed_at = g_get_monotonic_time ();
      /* ... but those interrupted finish their frames in flight, as long
       * as an interrupted accel-run may take */
      if (interrupted_alone && !interrupt_until)
        interrupt_until = g_get_monotonic_time () + INTERRUPT_GRACE_MS * 1000;
      if (any_failed && !interrupted_alone
          && (culprit_rank (*failed_status) >= CULPRIT_TELLS
              || g_get_monotonic_time ()
                     >= failed_at + culprit_grace_ms (*failed_status) * 1000))
        break;
      if (interrupted_alone && g_get_monotonic_time () >= interrupt_until)
        break;
      if (n_running > 0)
        g_usleep (POLL_MS * 1000);
    }
  if (any_failed || interrupted_alone)
    end_ranks (ranks, n_ranks);
  return !any_failed && !interrupted_alone;
}

/**
 * accel_world_get_worker_defaults:
 *
 * What every rank's environment holds unless the caller's says otherwise:
 * NVLink multicast off (`NCCL_NVLS_ENABLE=0`), and 32 hardware queues per
 * GPU (`CUDA_DEVICE_MAX_CONNECTIONS=32`): streams share the GPU's queues,
 * 8 by default, and two ranks' collectives of different stages queued
 * behind each other in opposite orders wait for each other; 32 make that
 * rare (see docs/multi-gpu.md).
 *
 * Returns: (transfer none) (array zero-terminated=1): pairs of name and
 *   value. MT safe.
 */
const char *const *
accel_world_get_worker_defaults (void)
{
  static const char *const defaults[]
      = { "NCCL_NVLS_ENABLE", "0", "CUDA_DEVICE_MAX_CONNECTIONS", "32", NULL };

  return defaults;
}

static gboolean
supervise_worlds (const char *const *argv, guint n_ranks, const char *pipeline,
    const char *coordinator, const char *state_dir, guint max_restarts,
    gint64 restart_window_ms, GError **error)
{
  g_autoptr (AccelStoreServer) server = NULL;
  g_autoptr (GArray) restarts = g_array_new (FALSE, FALSE, sizeof (gint64));
  guint generation = accel_supervisor_get_generation ();
  const char *host = g_get_host_name ();
  gint64 mark = accel_supervisor_progress_mark (state_dir);
  guint stalled = 0;

  if (!(server
          = accel_store_server_new (coordinator, n_ranks, pipeline, error)))
    return FALSE;
  for (;;)
    {
      g_autofree gchar *why = NULL;
      guint failed = 0, recent;
      int status = 0;
      gboolean incomplete = FALSE, retried = FALSE;
      gint64 now;

      if (run_world (argv, n_ranks, generation,
              accel_store_server_get_address (server), state_dir, &failed,
              &status, &incomplete, &retried, error))
        {
          if (incomplete)
            {
              g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INCOMPLETE,
                  "the world finished with frames skipped or lost (each "
                  "rank that did said which)");
              return FALSE;
            }
          if (restarts->len > 0)
            return accel_supervisor_set_retried (error,
                "the world finished in generation %u, rebuilt %u time%s "
                "(what its sinks had not committed was run again)",
                generation, restarts->len, restarts->len == 1 ? "" : "s");
          return !retried
                 || accel_supervisor_set_retried (error,
                     "the world finished, its ranks having run frames again "
                     "(each rank that did said which)");
        }
      if (status == 0)
        return FALSE; /* it could not start */
      /* every rank is gone: a join one left (waiting, or not yet read)
       * counts no more */
      accel_store_server_forget_round (server, generation + 1);
      if (accel_supervisor_interrupted ())
        {
          g_autofree gchar *end = accel_supervisor_describe_end (status);
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED,
              "rank %u on %s stopped after an interrupt (%s)", failed, host,
              end);
          return FALSE;
        }
      if (accel_supervisor_interrupted_alone (status))
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED,
              "rank %u on %s was interrupted by a signal sent to its worker "
              "alone: the other ranks were interrupted too, and the world "
              "stopped short of the run's end",
              failed, host);
          return FALSE;
        }
      if (WIFEXITED (status) && WEXITSTATUS (status) == ACCEL_EXIT_PEER_ENDED)
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
              "rank %u on %s failed in generation %u: another rank ended its "
              "stream before a frame this one gave it (the rank said which)",
              failed, host, generation);
          return FALSE;
        }
      if (!(why = accel_supervisor_restart_cause (status)))
        {
          g_set_error (error, ACCEL_ERROR,
              WIFEXITED (status) && WEXITSTATUS (status) == ACCEL_EXIT_INVALID
                  ? ACCEL_ERROR_INVALID_PIPELINE
                  : ACCEL_ERROR_FAILED,
              "rank %u on %s failed (exit status %d) in generation %u", failed,
              host, WIFEXITED (status) ? WEXITSTATUS (status) : -1, generation);
          return FALSE;
        }
      now = g_get_monotonic_time ();
      recent = accel_supervisor_count_recent (restarts, now, restart_window_ms);
      if (recent >= max_restarts)
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_CONTEXT_POISONED,
              "rank %u on %s %s in generation %u; the world was already "
              "rebuilt %u times within %" G_GINT64_FORMAT " ms, giving up",
              failed, host, why, generation, recent, restart_window_ms);
          return FALSE;
        }
      stalled = accel_supervisor_count_stalled (state_dir, &mark, stalled);
      if (stalled > max_restarts)
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_CONTEXT_POISONED,
              "rank %u on %s %s in generation %u; the last %u generations "
              "ended before committing a frame, giving up",
              failed, host, why, generation, stalled);
          return FALSE;
        }
      g_array_append_val (restarts, now);
      g_message ("rank %u on %s %s; rebuilding the world as generation %u",
          failed, host, why, generation + 1);
      generation++;
    }
}

/**
 * accel_world_supervise:
 * @argv: (array zero-terminated=1): each worker's command line (typically
 *   the program itself)
 * @n_ranks: the number of ranks, each a worker process on this machine
 * @pipeline: (nullable): the name of the pipeline the workers run, which
 *   the world's store asks of every rank that joins; %NULL: the first
 *   rank's
 * @coordinator: (nullable): `HOST:PORT` to serve the world's store on, or
 *   %NULL for a free port of 127.0.0.1
 * @state_dir: (nullable): a directory under which rank r keeps its state
 *   in `rank-r` (`ACCEL_STATE_DIR`), so a rebuilt world resumes
 * @max_restarts: world restarts allowed within @restart_window_ms
 * @restart_window_ms: the window restarts are counted over
 * @error: return location for a #GError, or %NULL
 *
 * Runs a world of @n_ranks workers: each with `ACCEL_WORKER=1`,
 * `ACCEL_GENERATION`, `ACCEL_RANK`, `ACCEL_WORLD_SIZE`,
 * `ACCEL_COORDINATOR` and accel_world_get_worker_defaults() (unless set)
 * in its environment (with `ACCEL_FAULT_RANK=r`, `ACCEL_FAULT` fires in rank
 * r's workers alone: accelfault.c). When a worker is killed by a signal or
 * exits with %ACCEL_EXIT_POISONED or %ACCEL_EXIT_HUNG, the others are ended and
 * the world starts again, one generation later; past the restart intensity, or
 * once more generations in a row than @max_restarts end without a frame
 * committed under @state_dir, the run fails naming the rank, this host and the
 * fault.
 *
 * Ctrl-C reaches the ranks too (one process group): each finishes its
 * frames in flight or stops, and the world is not rebuilt after it; a rank
 * that then fails ends the run with %ACCEL_ERROR_STOPPED. A rank
 * interrupted by a signal sent to it alone (as accel_supervisor_run() tells
 * it) has the others interrupted too (%ACCEL_SUPERVISOR_INTERRUPT), which
 * get 6 s to finish their frames; the run then fails with
 * %ACCEL_ERROR_STOPPED naming that rank, and the world is not rebuilt.
 *
 * Returns: %TRUE when every rank finished; %FALSE with
 * %ACCEL_ERROR_INCOMPLETE when every rank finished but one exited with
 * %ACCEL_EXIT_INCOMPLETE; else with %ACCEL_ERROR_RETRIED when the world
 * was rebuilt, or a rank exited with %ACCEL_EXIT_RETRIED. Called from the
 * supervising process's main thread, which it blocks while the world runs.
 */
gboolean
accel_world_supervise (const char *const *argv, guint n_ranks,
    const char *pipeline, const char *coordinator, const char *state_dir,
    guint max_restarts, gint64 restart_window_ms, GError **error)
{
  AccelSupervisorHandlers previous;
  gboolean ok;

  g_return_val_if_fail (n_ranks > 0, FALSE);
  accel_supervisor_begin (&previous);
  ok = supervise_worlds (argv, n_ranks, pipeline, coordinator, state_dir,
      max_restarts, restart_window_ms, error);
  accel_supervisor_end (&previous);
  return ok;
}
