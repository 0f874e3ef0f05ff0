/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the graph's watchdog, for a frame that never returns. A stage's
 * deadline is checked when its frame returns, so a frame stuck in its work
 * (a driver call that never comes back, a plugin's endless loop, a peer
 * that never answers) would hold its thread, and the run, for good. Each
 * stage marks the frame at work; a thread of the graph's own looks at the
 * marks and fails the graph with %ACCEL_ERROR_HUNG, naming the stage and
 * the frame, once one has run past the stage's watchdog. Nothing can stop
 * that thread from outside, so the process has to end: accel-run leaves
 * without it, and its process supervisor starts a new worker that resumes
 * from the state directory. */
#define G_LOG_DOMAIN "accel"

#include "accelstage-private.h"

/* the automatic watchdog: ten deadlines, and never less than this; a
 * frame that takes a deadline or two is a deadline fault, not a hang */
#define AUTO_FACTOR 10
#define AUTO_MIN_MS 10000
/* how often the marks are read, within the limits' quarter */
#define POLL_MIN_US (10 * 1000)
#define POLL_MAX_US G_USEC_PER_SEC

struct _AccelStageWatchdog
{
  GPtrArray *stages; /* AccelStage*, those with a watchdog; owned */
  void (*hung) (AccelStage *stage, const GError *error, gpointer data);
  gpointer data;
  gint64 poll_us;
  GThread *thread;
  GMutex lock;
  GCond wake;
  gboolean stopping;
};

/**
 * accel_stage_get_watchdog_us: (skip)
 * @stage: a stage
 *
 * Returns: how long one frame of @stage may run before it counts as hung,
 *   in microseconds, or 0 for no limit: the "watchdog" property, or ten
 *   times the deadline and at least 10 s when a deadline is set.
 */
gint64
accel_stage_get_watchdog_us (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  if (priv->watchdog_ms > 0)
    return priv->watchdog_ms * 1000;
  if (priv->deadline_ms <= 0)
    return 0;
  /* deadlines stop at G_MAXINT64 / 1000 ms: ten of them saturate */
  if (priv->deadline_ms > G_MAXINT64 / 1000 / AUTO_FACTOR)
    return G_MAXINT64;
  return MAX (priv->deadline_ms * AUTO_FACTOR, AUTO_MIN_MS) * 1000;
}

/* the frame @sequence is at work since @since (monotonic µs); its stage's
 * thread only */
void
accel_stage_watch_work (AccelStage *self, guint64 sequence, gint64 since)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  __atomic_store_n (&priv->work_sequence, sequence, __ATOMIC_RELAXED);
  __atomic_store_n (&priv->work_since, MAX (since, 1), __ATOMIC_RELEASE);
}

/* no frame is at work; its stage's thread only */
void
accel_stage_unwatch_work (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  __atomic_store_n (&priv->work_since, 0, __ATOMIC_RELEASE);
}

/* the frame @stage has at work past its watchdog, as an error, or NULL */
static GError *
check_stage (AccelStage *stage, gint64 now)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);
  gint64 limit = accel_stage_get_watchdog_us (stage);
  gint64 since = __atomic_load_n (&priv->work_since, __ATOMIC_ACQUIRE);
  guint64 sequence = __atomic_load_n (&priv->work_sequence, __ATOMIC_RELAXED);

  /* the mark read again: a frame that ended between the reads is not
   * taken for the next one */
  if (since <= 0 || now - since <= limit
      || __atomic_load_n (&priv->work_since, __ATOMIC_ACQUIRE) != since)
    return NULL;
  return g_error_new (ACCEL_ERROR, ACCEL_ERROR_HUNG,
      "frame %" G_GUINT64_FORMAT " has run for %" G_GINT64_FORMAT
      " ms, past its %" G_GINT64_FORMAT
      " ms watchdog: the stage is hung, and its thread cannot be stopped",
      sequence, (now - since + 999) / 1000, limit / 1000);
}

static gpointer
watch (gpointer data)
{
  AccelStageWatchdog *dog = data;

  g_mutex_lock (&dog->lock);
  while (!dog->stopping)
    {
      gint64 until = g_get_monotonic_time () + dog->poll_us;
      GError *error = NULL;
      AccelStage *stage = NULL;

      while (
          !dog->stopping && g_cond_wait_until (&dog->wake, &dog->lock, until))
        ;
      for (guint i = 0; i < dog->stages->len && !dog->stopping && !error; i++)
        {
          stage = dog->stages->pdata[i];
          error = check_stage (stage, g_get_monotonic_time ());
        }
      if (!error)
        continue;
      /* the graph fails once: nothing more to watch */
      g_mutex_unlock (&dog->lock);
      g_debug ("stage '%s': %s", accel_stage_get_name (stage), error->message);
      dog->hung (stage, error, dog->data);
      g_error_free (error);
      g_mutex_lock (&dog->lock);
      while (!dog->stopping)
        g_cond_wait (&dog->wake, &dog->lock);
    }
  g_mutex_unlock (&dog->lock);
  return NULL;
}

/* watches the frames of those of @stages that have a watchdog, calling
 * @hung on a thread of its own for the first that runs past it; NULL when
 * none has one. Stopped, and freed, by accel_stage_watchdog_stop () */
AccelStageWatchdog *
accel_stage_watchdog_start (GPtrArray *stages,
    void (*hung) (AccelStage *stage, const GError *error, gpointer data),
    gpointer data)
{
  AccelStageWatchdog *dog;
  gint64 shortest = G_MAXINT64;
  GPtrArray *watched = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < stages->len; i++)
    {
      gint64 limit = accel_stage_get_watchdog_us (stages->pdata[i]);
      if (limit <= 0)
        continue;
      g_ptr_array_add (watched, g_object_ref (stages->pdata[i]));
      shortest = MIN (shortest, limit);
    }
  if (watched->len == 0)
    {
      g_ptr_array_unref (watched);
      return NULL;
    }
  dog = g_new0 (AccelStageWatchdog, 1);
  dog->stages = watched;
  dog->hung = hung;
  dog->data = data;
  dog->poll_us = CLAMP (shortest / 4, POLL_MIN_US, POLL_MAX_US);
  g_mutex_init (&dog->lock);
  g_cond_init (&dog->wake);
  dog->thread = g_thread_new ("accel-watchdog", watch, dog);
  return dog;
}

void
accel_stage_watchdog_stop (AccelStageWatchdog *dog)
{
  if (!dog)
    return;
  g_mutex_lock (&dog->lock);
  dog->stopping = TRUE;
  g_cond_signal (&dog->wake);
  g_mutex_unlock (&dog->lock);
  g_thread_join (dog->thread);
  g_ptr_array_unref (dog->stages);
  g_mutex_clear (&dog->lock);
  g_cond_clear (&dog->wake);
  g_free (dog);
}
