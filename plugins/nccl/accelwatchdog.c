/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: a GPU communicator's watchdog. A collective whose peer
 * is gone never ends on a GPU: its kernel waits on the stream, and all the
 * work behind it with it, where no host call of the rank would notice. The
 * watchdog notices from a thread of its own: NCCL's asynchronous error (a
 * transport or remote failure), the world left for a later generation (a
 * peer was started again after a fault; see accel_world_is_left()), or
 * the last operation enqueued still not done after the world's timeout (a
 * peer stuck, or the ranks' collectives issued in orders that wait on
 * each other: see docs/multi-gpu.md).
 * A world's worker then leaves at once with the poisoned status, as a
 * crashed rank would: its supervisor rebuilds the world, and no frame of
 * the lost collective is committed; unless a peer's stream ended before
 * the frame it waits on (the explain hook), which no rebuild mends: then
 * the worker fails, saying so. A process that is no supervised
 * worker learns it at the communicator's next call instead. */
#define G_LOG_DOMAIN "accel-nccl"

#include "accelwatchdog.h"

#include <unistd.h>

/* how often NCCL's error is read, and every how many reads the store is
 * asked whether the world moved on */
#define POLL_MS 100
#define STORE_EVERY 5

struct _AccelWatchdog
{
  ncclComm_t comm;
  AccelWorld *world;
  gchar *who; /* "stage 'name' (kind)" */
  GThread *thread;
  GMutex lock;
  GCond wake;
  gboolean stopping;
  AccelWatchdogExplain explain;
  gpointer explain_data;
  gchar *lost;        /* why the communicator is lost, once it is */
  gboolean explained; /* by the hook: the ranks' frames differ */
  cudaEvent_t done;   /* recorded after the last operation enqueued */
  gint64 enqueued_at; /* when */
  gboolean pending;   /* that operation is not known to be done */
};

/* why the last operation enqueued is late or failed, or NULL; the caller
 * holds the lock */
static gchar *
check_progress_unlocked (AccelWatchdog *dog)
{
  gint64 waited;
  cudaError_t status;

  if (!dog->pending)
    return NULL;
  status = cudaEventQuery (dog->done);
  if (status == cudaSuccess)
    {
      dog->pending = FALSE;
      return NULL;
    }
  if (status != cudaErrorNotReady)
    return g_strdup_printf ("its work failed: %s", cudaGetErrorString (status));
  waited = (g_get_monotonic_time () - dog->enqueued_at) / 1000;
  if (waited <= accel_world_get_timeout_ms (dog->world))
    return NULL;
  return g_strdup_printf ("an operation enqueued %" G_GINT64_FORMAT
                          " ms ago is not done, past the world's timeout",
      waited);
}

/* the communicator is lost for @why (taken), or for what the explain hook
 * says instead */
static void
lost (AccelWatchdog *dog, gchar *why)
{
  gchar *ended = dog->explain ? dog->explain (dog->explain_data) : NULL;

  if (ended)
    {
      g_free (why);
      why = ended;
    }
  if (accel_supervisor_is_worker ())
    {
      if (ended)
        g_printerr ("%s: %s\n", dog->who, why);
      else
        g_printerr ("%s: %s on rank %u of the world (generation %u): the "
                    "communicator is lost; this rank leaves so that the "
                    "world is rebuilt\n",
            dog->who, why, accel_world_get_rank (dog->world),
            accel_world_get_generation (dog->world));
      _exit (ended ? ACCEL_EXIT_PEER_ENDED : ACCEL_EXIT_POISONED);
    }
  g_mutex_lock (&dog->lock);
  if (!dog->lost)
    {
      dog->lost = g_steal_pointer (&why);
      dog->explained = ended != NULL;
    }
  dog->stopping = TRUE;
  g_mutex_unlock (&dog->lock);
  g_free (why);
}

/* an operation pending while a peer's stream ended before its frame will
 * never be done: no need to wait for the timeout */
static gchar *
explain_pending (AccelWatchdog *dog)
{
  gboolean pending;

  g_mutex_lock (&dog->lock);
  pending = dog->pending;
  g_mutex_unlock (&dog->lock);
  return pending && dog->explain ? dog->explain (dog->explain_data) : NULL;
}

static gpointer
watch (gpointer data)
{
  AccelWatchdog *dog = data;
  guint n = 0;

  g_mutex_lock (&dog->lock);
  while (!dog->stopping)
    {
      gint64 until = g_get_monotonic_time () + POLL_MS * 1000;
      ncclResult_t async = ncclSuccess, got;
      gchar *late, *ended = NULL;

      while (
          !dog->stopping && g_cond_wait_until (&dog->wake, &dog->lock, until))
        ;
      if (dog->stopping)
        break;
      late = check_progress_unlocked (dog);
      g_mutex_unlock (&dog->lock);
      got = ncclCommGetAsyncError (dog->comm, &async);
      if (got != ncclSuccess
          || (async != ncclSuccess && async != ncclInProgress))
        lost (dog, g_strdup_printf ("NCCL reported %s",
                       ncclGetErrorString (got != ncclSuccess ? got : async)));
      else if (late)
        lost (dog, g_steal_pointer (&late));
      else if (++n % STORE_EVERY == 0 && accel_world_is_left (dog->world))
        lost (dog, g_strdup (ACCEL_WATCHDOG_WORLD_LEFT));
      else if (n % STORE_EVERY == 0 && (ended = explain_pending (dog)))
        lost (dog, g_steal_pointer (&ended));
      g_free (late);
      g_mutex_lock (&dog->lock);
    }
  g_mutex_unlock (&dog->lock);
  return NULL;
}

/**
 * accel_watchdog_new:
 * @comm: an initialised NCCL communicator
 * @world: the joined world it belongs to
 * @who: the stage it serves, as errors name it
 * @explain: (nullable): what explains a wait for a peer that will not come
 *   other than a lost peer
 * @explain_data: its argument
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full): a watchdog of @comm, watching from now until
 * accel_watchdog_free(), or %NULL when its event or its thread cannot be
 * made. Stage
 * thread, @comm's device current.
 */
AccelWatchdog *
accel_watchdog_new (ncclComm_t comm, AccelWorld *world, const char *who,
    AccelWatchdogExplain explain, gpointer explain_data, GError **error)
{
  AccelWatchdog *dog = g_new0 (AccelWatchdog, 1);

  if (!accel_cuda_check (
          cudaEventCreateWithFlags (&dog->done, cudaEventDisableTiming), error))
    {
      g_free (dog);
      return NULL;
    }

  dog->comm = comm;
  dog->world = g_object_ref (world);
  dog->who = g_strdup (who);
  dog->explain = explain;
  dog->explain_data = explain_data;
  g_mutex_init (&dog->lock);
  g_cond_init (&dog->wake);
  dog->thread = accel_thread_try_new ("accel-nccl-watchdog", watch, dog, error);
  if (!dog->thread)
    {
      cudaEventDestroy (dog->done);
      g_mutex_clear (&dog->lock);
      g_cond_clear (&dog->wake);
      g_object_unref (dog->world);
      g_free (dog->who);
      g_free (dog);
      return NULL;
    }
  return dog;
}

/**
 * accel_watchdog_free:
 * @dog: (transfer full): a watchdog
 *
 * Stops watching; call before the communicator is destroyed or aborted.
 * Stage thread.
 */
void
accel_watchdog_free (AccelWatchdog *dog)
{
  g_mutex_lock (&dog->lock);
  dog->stopping = TRUE;
  g_cond_signal (&dog->wake);
  g_mutex_unlock (&dog->lock);
  g_thread_join (dog->thread);
  cudaEventDestroy (dog->done);
  g_mutex_clear (&dog->lock);
  g_cond_clear (&dog->wake);
  g_object_unref (dog->world);
  g_free (dog->who);
  g_free (dog->lost);
  g_free (dog);
}

/**
 * accel_watchdog_enqueued:
 * @dog: (nullable): a watchdog
 * @stream: where an operation of its communicator was just enqueued
 *
 * Watches that operation until its work is done. Stage thread.
 */
void
accel_watchdog_enqueued (AccelWatchdog *dog, cudaStream_t stream)
{
  if (!dog)
    return;
  g_mutex_lock (&dog->lock);
  /* a failed record is the stream's failure, which its stage reports */
  if (accel_cuda_check (cudaEventRecord (dog->done, stream), NULL))
    {
      /* late is the last operation not done a timeout after it was
       * enqueued: a stage whose work is stuck stops enqueueing soon */
      dog->enqueued_at = g_get_monotonic_time ();
      dog->pending = TRUE;
    }
  g_mutex_unlock (&dog->lock);
}

/**
 * accel_watchdog_check:
 * @dog: a watchdog
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %FALSE, with %ACCEL_ERROR_CONTEXT_POISONED, once the watchdog
 * found the communicator lost (%ACCEL_ERROR_PEER_ENDED when a peer's
 * stream ended first). MT safe.
 */
gboolean
accel_watchdog_check (AccelWatchdog *dog, GError **error)
{
  gboolean ok;

  g_mutex_lock (&dog->lock);
  ok = dog->lost == NULL;
  if (!ok && dog->explained)
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_PEER_ENDED, "%s: %s", dog->who,
        dog->lost);
  else if (!ok)
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_CONTEXT_POISONED,
        "%s: %s; the communicator is lost", dog->who, dog->lost);
  g_mutex_unlock (&dog->lock);
  return ok;
}

/**
 * accel_watchdog_wait_done:
 * @dog: a watchdog
 *
 * Waits for the last operation enqueued to be done, polling, until it is
 * late by the world's timeout counted from its enqueue: a blocking
 * communicator's destroy waits for its work on the host with no timeout,
 * which a peer that is gone never ends.
 *
 * Returns: %TRUE when nothing is left pending and the communicator was
 * not found lost. Stage thread.
 */
gboolean
accel_watchdog_wait_done (AccelWatchdog *dog)
{
  for (;;)
    {
      gchar *late;
      gboolean lost, done;

      g_mutex_lock (&dog->lock);
      late = check_progress_unlocked (dog);
      lost = dog->lost != NULL;
      done = !dog->pending && !lost;
      g_mutex_unlock (&dog->lock);
      if (done || lost || late)
        {
          g_free (late);
          return done;
        }
      g_usleep (100);
    }
}
