/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the process supervisor. After a sticky CUDA error nothing in the
 * process works again (measured on an H100: cudaDeviceReset succeeds, every
 * later call fails), so the pipeline runs in a worker process and a poisoned
 * worker is replaced by a new one, one device generation later; with a state
 * directory the new worker resumes where the sinks' commits end.
 * G_MESSAGES_DEBUG=accel-supervisor tells when workers start and how they
 * end; restarts are told as messages */
#define G_LOG_DOMAIN "accel-supervisor"

#include "accel-private.h"

#include <glib/gstdio.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* the supervisor's process id, for its workers to tell whether it went
 * before they asked to follow it */
static pid_t supervisor_pid;
static volatile sig_atomic_t interrupted;

/* the workers running, for an interrupt sent to the supervisor alone (a
 * kill () of its pid) to reach them too, as ACCEL_SUPERVISOR_INTERRUPT;
 * one sent to the process group (a terminal's Ctrl-C) reaches them itself
 * as well, and a worker takes the two as one. A slot's pid is 0 when
 * free; it is taken out before the worker is reaped, so no pid the kernel
 * gave another process is signalled. Each worker gets one signal an
 * interrupt: the signal handler (on any thread) and accel_supervisor_add_
 * worker () each claim a signal to send by a compare-and-swap. (A handler
 * on another thread that read a slot just before it was emptied could
 * still signal that pid once reaped; the kernel would have to give the pid
 * to a new process within those microseconds) */
#define MAX_WORKERS ACCEL_SUPERVISOR_MAX_WORKERS
static volatile sig_atomic_t workers[MAX_WORKERS];
static gint forwarded[MAX_WORKERS];
static gint interrupts;

static void
forward_interrupts (guint slot)
{
  pid_t pid = (pid_t)workers[slot];
  gint sent;

  while (pid > 0
         && (sent = g_atomic_int_get (&forwarded[slot]))
                < g_atomic_int_get (&interrupts))
    if (g_atomic_int_compare_and_exchange (&forwarded[slot], sent, sent + 1))
      kill (pid, ACCEL_SUPERVISOR_INTERRUPT);
}

static void
note_interrupt (int sig)
{
  int saved = errno;

  interrupted = 1;
  g_atomic_int_inc (&interrupts);
  for (guint i = 0; i < MAX_WORKERS; i++)
    forward_interrupts (i);
  errno = saved;
}

void
accel_supervisor_add_worker (GPid pid)
{
  for (guint i = 0; i < MAX_WORKERS; i++)
    if (workers[i] == 0)
      {
        g_atomic_int_set (&forwarded[i], 0);
        workers[i] = pid;
        /* an interrupt while it was being started */
        forward_interrupts (i);
        return;
      }
}

/* waits for @pid to end (or, without @block, looks), takes it out of the
 * workers, then reaps it into @status */
gboolean
accel_supervisor_reap_worker (GPid pid, gboolean block, int *status)
{
  siginfo_t info = { 0 };
  int got;

  while ((got = waitid (
              P_PID, pid, &info, WEXITED | WNOWAIT | (block ? 0 : WNOHANG)))
             < 0
         && errno == EINTR)
    ;
  /* still running */
  if (got == 0 && info.si_pid == 0)
    return FALSE;
  for (guint i = 0; i < MAX_WORKERS; i++)
    if (workers[i] == pid)
      workers[i] = 0;
  *status = -1; /* not ours to wait for: as if killed */
  if (got == 0)
    while (waitpid (pid, status, 0) < 0 && errno == EINTR)
      ;
  g_spawn_close_pid (pid);
  return TRUE;
}

void
accel_supervisor_begin (AccelSupervisorHandlers *previous)
{
  struct sigaction note = { 0 };
  sigset_t taken;

  supervisor_pid = getpid ();
  note.sa_handler = note_interrupt;
  sigemptyset (&note.sa_mask);
  /* a supervision before this one in the process left its interrupts */
  interrupted = 0;
  g_atomic_int_set (&interrupts, 0);
  for (guint i = 0; i < MAX_WORKERS; i++)
    {
      workers[i] = 0;
      g_atomic_int_set (&forwarded[i], 0);
    }
  sigaction (SIGINT, &note, &previous->sigint);
  /* killed by it, the supervisor left its temporary state behind and
   * its workers stopped at once */
  sigaction (SIGTERM, &note, &previous->sigterm);
  /* under nohup it stays ignored, for the workers too */
  sigaction (SIGHUP, NULL, &previous->sighup);
  if (previous->sighup.sa_handler != SIG_IGN)
    sigaction (SIGHUP, &note, NULL);
  sigemptyset (&taken);
  sigaddset (&taken, SIGINT);
  sigaddset (&taken, SIGTERM);
  sigaddset (&taken, SIGHUP);
  pthread_sigmask (SIG_UNBLOCK, &taken, &previous->mask);
}

void
accel_supervisor_end (const AccelSupervisorHandlers *previous)
{
  sigaction (SIGINT, &previous->sigint, NULL);
  sigaction (SIGTERM, &previous->sigterm, NULL);
  sigaction (SIGHUP, &previous->sighup, NULL);
  pthread_sigmask (SIG_SETMASK, &previous->mask, NULL);
}

gboolean
accel_supervisor_interrupted (void)
{
  return interrupted != 0;
}

gboolean
accel_supervisor_finished_interrupted (int status)
{
  return WIFEXITED (status) && WEXITSTATUS (status) == ACCEL_EXIT_INTERRUPTED
         && accel_supervisor_interrupted ();
}

gboolean
accel_supervisor_interrupted_alone (int status)
{
  if (accel_supervisor_interrupted ())
    return FALSE;
  /* an interrupt that came before the worker handled them ended it */
  if (WIFSIGNALED (status))
    return WTERMSIG (status) == SIGINT || WTERMSIG (status) == SIGTERM
           || WTERMSIG (status) == SIGHUP;
  return WIFEXITED (status)
         && (WEXITSTATUS (status) == ACCEL_EXIT_INTERRUPTED
             || WEXITSTATUS (status) == ACCEL_EXIT_STOPPED);
}

gchar *
accel_supervisor_describe_end (int status)
{
  if (WIFSIGNALED (status))
    return g_strdup_printf (
        "signal %d (%s)", WTERMSIG (status), g_strsignal (WTERMSIG (status)));
  return g_strdup_printf (
      "exit status %d", WIFEXITED (status) ? WEXITSTATUS (status) : -1);
}

gchar *
accel_supervisor_restart_cause (int status)
{
  if (status < 0)
    return NULL;
  if (WIFEXITED (status) && WEXITSTATUS (status) == ACCEL_EXIT_POISONED)
    return g_strdup ("stopped because its CUDA context or its communicator "
                     "was poisoned");
  if (WIFEXITED (status) && WEXITSTATUS (status) == ACCEL_EXIT_HUNG)
    return g_strdup ("stopped because one of its stages hung past its "
                     "watchdog");
  if (WIFSIGNALED (status))
    return g_strdup_printf ("was killed by signal %d (%s)", WTERMSIG (status),
        g_strsignal (WTERMSIG (status)));
  return NULL;
}

/* in the worker, between fork and exec: the signal comes when the thread
 * that spawned it ends (the supervisor's main thread); a supervisor gone
 * already sends nothing, so the worker ends here */
void
accel_supervisor_child_setup (gpointer sig)
{
  sigset_t interrupt;

  /* held until the worker takes it (accel_supervisor_take_interrupts ()):
   * its default would end the worker */
  sigemptyset (&interrupt);
  sigaddset (&interrupt, ACCEL_SUPERVISOR_INTERRUPT);
  sigprocmask (SIG_BLOCK, &interrupt, NULL);
  prctl (PR_SET_PDEATHSIG, GPOINTER_TO_INT (sig));
  if (getppid () != supervisor_pid)
    _exit (1);
}

/**
 * accel_supervisor_take_interrupts:
 *
 * A worker's supervisor passes on an interrupt sent to it alone as
 * %ACCEL_SUPERVISOR_INTERRUPT, held (blocked) from the worker's start:
 * a worker that handles the signal calls this once its handler is in
 * place, from its main thread, and gets any that came. MT safe.
 */
void
accel_supervisor_take_interrupts (void)
{
  sigset_t interrupt;

  sigemptyset (&interrupt);
  sigaddset (&interrupt, ACCEL_SUPERVISOR_INTERRUPT);
  pthread_sigmask (SIG_UNBLOCK, &interrupt, NULL);
}

/**
 * accel_supervisor_is_worker:
 *
 * Returns: %TRUE in a process started by accel_supervisor_run(). MT safe.
 */
gboolean
accel_supervisor_is_worker (void)
{
  return g_getenv ("ACCEL_WORKER") != NULL;
}

/**
 * accel_supervisor_get_generation:
 *
 * Returns: 1 for the first worker, one more for each restart; devices start
 * at this generation. MT safe.
 */
guint
accel_supervisor_get_generation (void)
{
  const char *env = g_getenv ("ACCEL_GENERATION");
  guint64 gen = 1;

  if (env && !g_ascii_string_to_unsigned (env, 10, 1, G_MAXUINT, &gen, NULL))
    gen = 1;
  return (guint)gen;
}

/**
 * accel_supervisor_exit_status:
 * @error: (nullable): why a worker's run failed, or %NULL when it finished
 *
 * Returns: the status a worker exits with: 0 when done,
 * %ACCEL_EXIT_INCOMPLETE when done with frames skipped or lost
 * (%ACCEL_ERROR_INCOMPLETE), %ACCEL_EXIT_POISONED for a poisoned context
 * and %ACCEL_EXIT_HUNG for a stage that hung (%ACCEL_ERROR_HUNG; the
 * supervisor starts a new worker for both), %ACCEL_EXIT_PEER_ENDED for the
 * consequence of another rank's end (%ACCEL_ERROR_PEER_ENDED), 1 for any
 * other failure (the supervisor gives up on both). MT safe.
 */
int
accel_supervisor_exit_status (const GError *error)
{
  if (!error)
    return 0;
  if (g_error_matches (error, ACCEL_ERROR, ACCEL_ERROR_INCOMPLETE))
    return ACCEL_EXIT_INCOMPLETE;
  if (g_error_matches (error, ACCEL_ERROR, ACCEL_ERROR_CONTEXT_POISONED))
    return ACCEL_EXIT_POISONED;
  if (g_error_matches (error, ACCEL_ERROR, ACCEL_ERROR_HUNG))
    return ACCEL_EXIT_HUNG;
  if (g_error_matches (error, ACCEL_ERROR, ACCEL_ERROR_PEER_ENDED))
    return ACCEL_EXIT_PEER_ENDED;
  return 1;
}

/* how many of @restarts (monotonic times) fell within the last
 * @window_ms before @now: the restart intensity of both supervisors */
guint
accel_supervisor_count_recent (GArray *restarts, gint64 now, gint64 window_ms)
{
  guint recent = 0;

  for (guint i = 0; i < restarts->len; i++)
    recent += now - g_array_index (restarts, gint64, i) < window_ms * 1000;
  return recent;
}

/* the bytes of the commit logs (<sink>.commits) in @dir and in its
 * directories (a world's rank-r): it changes when the workers commit */
static gint64
commits_size (const char *dir, guint depth)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  gint64 total = 0;

  while (d && (name = g_dir_read_name (d)))
    {
      g_autofree gchar *path = g_build_filename (dir, name, NULL);
      GStatBuf st;

      if (g_stat (path, &st) != 0)
        continue;
      if (S_ISDIR (st.st_mode) && depth > 0)
        total += commits_size (path, depth - 1);
      else if (S_ISREG (st.st_mode) && g_str_has_suffix (name, ".commits"))
        total += st.st_size;
    }
  return total;
}

/**
 * accel_supervisor_progress_mark:
 * @state_dir: (nullable): the workers' state directory
 *
 * Returns: a mark of what the workers committed so far, which changes as
 * they commit frames; 0 without a state directory. MT safe.
 */
gint64
accel_supervisor_progress_mark (const char *state_dir)
{
  return state_dir ? commits_size (state_dir, 1) : 0;
}

/**
 * accel_supervisor_count_stalled:
 * @state_dir: (nullable): the workers' state directory
 * @mark: (inout): the progress mark at the last restart
 * @stalled: restarts in a row so far after which nothing was committed
 *
 * Counts one more restart: the restart intensity lets failures slower than
 * it go on for ever, and a failure that comes back every generation before
 * any frame is committed (a hang that a timeout ends, say) would. Without a
 * state directory nothing counts as stalled.
 *
 * Returns: the restarts in a row after which nothing was committed. MT
 * safe.
 */
guint
accel_supervisor_count_stalled (
    const char *state_dir, gint64 *mark, guint stalled)
{
  gint64 now = accel_supervisor_progress_mark (state_dir);
  gboolean same = state_dir && now == *mark;

  g_debug ("commit logs under %s: %" G_GINT64_FORMAT " bytes, %s", state_dir,
      now, same ? "nothing committed since the last restart" : "progress");
  *mark = now;
  return same ? stalled + 1 : 0;
}

static gchar **
worker_env (guint generation)
{
  gchar **env = g_get_environ ();
  g_autofree gchar *gen = g_strdup_printf ("%u", generation);

  env = g_environ_setenv (env, "ACCEL_WORKER", "1", TRUE);
  env = g_environ_setenv (env, "ACCEL_GENERATION", gen, TRUE);
  return env;
}

/* a job finished with every frame delivered, some only after a retry:
 * %ACCEL_ERROR_RETRIED, which accel-run ends with ACCEL_EXIT_RETRIED;
 * FALSE */
gboolean
accel_supervisor_set_retried (GError **error, const char *format, ...)
{
  va_list args;
  g_autofree gchar *what = NULL;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_RETRIED,
      "%s: every frame was delivered, some only after a retry", what);
  return FALSE;
}

static gboolean
run_workers (const char *const *argv, guint max_restarts,
    gint64 restart_window_ms, GError **error)
{
  g_autoptr (GArray) restarts = g_array_new (FALSE, FALSE, sizeof (gint64));
  guint generation = accel_supervisor_get_generation ();
  g_autofree gchar *state_dir = g_strdup (g_getenv ("ACCEL_STATE_DIR"));
  gint64 mark = accel_supervisor_progress_mark (state_dir);
  guint stalled = 0;

  for (;;)
    {
      g_auto (GStrv) env = worker_env (generation);
      g_autoptr (GError) spawn_error = NULL;
      g_autofree gchar *why = NULL;
      gint status = 0;
      GPid pid;
      gint64 now;
      guint recent = 0;

      g_debug ("starting worker %u: %s", generation, argv[0]);
      /* a supervisor that is killed takes its worker along: it finishes
       * its frames in flight as after a Ctrl-C */
      if (!g_spawn_async (NULL, (gchar **)argv, env,
              G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD
                  | G_SPAWN_CHILD_INHERITS_STDIN,
              accel_supervisor_child_setup,
              GINT_TO_POINTER (ACCEL_SUPERVISOR_GONE), &pid, &spawn_error))
        {
          g_propagate_prefixed_error (
              error, g_steal_pointer (&spawn_error), "cannot start a worker: ");
          return FALSE;
        }
      accel_supervisor_add_worker (pid);
      g_debug ("worker %u is process %d", generation, (int)pid);
      accel_supervisor_reap_worker (pid, TRUE, &status);

      if ((WIFEXITED (status)
              && (WEXITSTATUS (status) == 0
                  || WEXITSTATUS (status) == ACCEL_EXIT_RETRIED))
          || accel_supervisor_finished_interrupted (status))
        {
          g_debug ("worker %u finished the job", generation);
          if (restarts->len == 0)
            return !WIFEXITED (status)
                   || WEXITSTATUS (status) != ACCEL_EXIT_RETRIED
                   || accel_supervisor_set_retried (
                       error, "worker %u ran frames again", generation);
          return accel_supervisor_set_retried (error,
              "worker %u finished the job after %u restart%s of the worker "
              "(what its sinks had not committed was run again)",
              generation, restarts->len, restarts->len == 1 ? "" : "s");
        }
      if (accel_supervisor_interrupted_alone (status))
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED,
              "worker %u (process %d) was interrupted by a signal sent to "
              "it alone, and stopped short of the run's end",
              generation, (int)pid);
          return FALSE;
        }
      /* done: a restart would not bring the frames back */
      if (WIFEXITED (status) && WEXITSTATUS (status) == ACCEL_EXIT_INCOMPLETE)
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INCOMPLETE,
              "worker %u finished the job with frames skipped or lost",
              generation);
          return FALSE;
        }
      if (accel_supervisor_interrupted ())
        {
          g_autofree gchar *end = accel_supervisor_describe_end (status);
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED,
              "worker %u stopped after an interrupt (%s)", generation, end);
          return FALSE;
        }
      if (!(why = accel_supervisor_restart_cause (status)))
        {
          gboolean invalid = WIFEXITED (status)
                             && WEXITSTATUS (status) == ACCEL_EXIT_INVALID;
          g_set_error (error, ACCEL_ERROR,
              invalid ? ACCEL_ERROR_INVALID_PIPELINE : ACCEL_ERROR_FAILED,
              "worker %u failed (exit status %d)", generation,
              WIFEXITED (status) ? WEXITSTATUS (status) : -1);
          return FALSE;
        }

      now = g_get_monotonic_time ();
      recent = accel_supervisor_count_recent (restarts, now, restart_window_ms);
      if (recent >= max_restarts)
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_CONTEXT_POISONED,
              "worker %u %s; already restarted %u times "
              "within %" G_GINT64_FORMAT " ms, giving up",
              generation, why, recent, restart_window_ms);
          return FALSE;
        }
      stalled = accel_supervisor_count_stalled (state_dir, &mark, stalled);
      if (stalled > max_restarts)
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_CONTEXT_POISONED,
              "worker %u %s; the last %u workers stopped "
              "before committing a frame, giving up",
              generation, why, stalled);
          return FALSE;
        }
      g_array_append_val (restarts, now);
      g_message (
          "worker %u %s; starting worker %u", generation, why, generation + 1);
      generation++;
    }
}

/**
 * accel_supervisor_run:
 * @argv: (array zero-terminated=1): the worker's command line (typically the
 *   program itself)
 * @max_restarts: restarts allowed within @restart_window_ms
 * @restart_window_ms: the window restarts are counted over
 * @error: return location for a #GError, or %NULL
 *
 * Runs @argv as a worker (with `ACCEL_WORKER=1` and `ACCEL_GENERATION=n` in
 * its environment) until it exits 0, %ACCEL_EXIT_RETRIED or
 * %ACCEL_EXIT_INCOMPLETE. A worker that exits with %ACCEL_EXIT_POISONED or
 * %ACCEL_EXIT_HUNG, or is killed by a signal, is started again, one generation
 * later; past the restart intensity, or when a worker fails in any other way,
 * the run fails. When `ACCEL_STATE_DIR` names the workers' state directory,
 * more workers in a row than @max_restarts that end without committing a frame
 * there fail the run too, however slowly they fail. The worker's output goes
 * where the caller's goes.
 *
 * Ctrl-C while a worker runs reaches the worker too (one process group),
 * which finishes its frames in flight or stops; the supervisor waits for it
 * and starts no other: a worker that then fails or is killed ends the run
 * with %ACCEL_ERROR_STOPPED. While it runs, this call handles SIGINT and
 * SIGTERM itself (the caller's handlers come back when it returns): one
 * sent to the supervisor alone is passed on to the worker as
 * %ACCEL_SUPERVISOR_INTERRUPT, which a worker takes once its handler is in
 * place (accel_supervisor_take_interrupts()). A worker whose supervisor
 * dies, even by SIGKILL, gets %ACCEL_SUPERVISOR_GONE (SIGUSR2), whose
 * default ends it: a worker that handles it ends as after an interrupt.
 * A worker that ends after an interrupt exits %ACCEL_EXIT_INTERRUPTED (its
 * frames in flight finished) or %ACCEL_EXIT_STOPPED: with an interrupt of
 * the supervisor's own the first is a finished job, and without one either,
 * or a worker ended by SIGINT, SIGTERM or SIGHUP, was interrupted by a
 * signal sent to it alone: the run fails with %ACCEL_ERROR_STOPPED,
 * started no further.
 *
 * Returns: %TRUE when a worker finished the job; %FALSE with
 *   %ACCEL_ERROR_INCOMPLETE when it finished with frames skipped or lost
 *   (it exited with %ACCEL_EXIT_INCOMPLETE); else with
 *   %ACCEL_ERROR_RETRIED when it finished after a worker was started again,
 *   or exited with %ACCEL_EXIT_RETRIED: every frame delivered, some only
 *   after a retry.
 * Called from the supervising process's main thread, which it blocks while
 * a worker runs; the environment it changes is the workers'.
 */
gboolean
accel_supervisor_run (const char *const *argv, guint max_restarts,
    gint64 restart_window_ms, GError **error)
{
  AccelSupervisorHandlers previous;
  gboolean ok;

  accel_supervisor_begin (&previous);
  ok = run_workers (argv, max_restarts, restart_window_ms, error);
  accel_supervisor_end (&previous);
  return ok;
}
