/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the graph's watchdog, for a frame that never returns, and the
 * waits for what is outside the graph that neither it nor a stage's
 * deadline counts (accel_stage_wait_begin ()). A stage's
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

typedef struct
{
  AccelStage *stage;
  gint64 since;   /* the mark last seen */
  gint64 excused; /* how long the process stood still since then */
} Watched;

struct _AccelStageWatchdog
{
  GArray *watched; /* Watched, every stage: limits may change as it runs */
  void (*hung) (AccelStage *stage, const GError *error, gpointer data);
  gpointer data;
  GThread *thread;
  GMutex lock;
  GCond wake;
  gboolean stopping;
};

/* When the process stood still (stopped by SIGSTOP or Ctrl-Z, a
 * debugger, the machine asleep), over every graph's watchdog: a look that
 * came later than it was due says so. A frame's deadline is not charged
 * for it (accel_stood_still_since ()), as its watchdog is not: a run
 * paused for 10 s lost the frame at work past its 500 ms deadline */
static GMutex stood_lock;
static gint64 stood_total;   /* µs, every stall so far; read unlocked */
static gint64 stood_until;   /* the end of the last stall counted */
static gint64 next_look_due; /* 0: no watchdog looks */
static guint n_looking;

/* a stall from @from to @to, counted once however many watchdogs saw it;
 * stood_lock held */
static void
count_stall_unlocked (gint64 from, gint64 to)
{
  from = MAX (from, stood_until);
  if (to <= from)
    return;
  __atomic_store_n (&stood_total, stood_total + (to - from), __ATOMIC_RELEASE);
  stood_until = to;
}

/* a watchdog looked at @now, and looks again by @due */
static void
looked_at (gint64 now, gint64 due)
{
  g_mutex_lock (&stood_lock);
  if (next_look_due > 0 && now > next_look_due)
    count_stall_unlocked (next_look_due, now);
  /* the latest due of every watchdog: one that looks often and stops
   * leaves no due that a slower one would pass */
  next_look_due = MAX (next_look_due, MAX (due, now));
  g_mutex_unlock (&stood_lock);
}

static void
looking (gboolean start)
{
  g_mutex_lock (&stood_lock);
  n_looking = start ? n_looking + 1 : n_looking - 1;
  if (n_looking == 0)
    next_look_due = 0;
  g_mutex_unlock (&stood_lock);
}

/* how long the process has stood still so far, for
 * accel_stood_still_since (); MT safe */
gint64
accel_stood_still_total (void)
{
  return __atomic_load_n (&stood_total, __ATOMIC_ACQUIRE);
}

/* how long the process stood still since accel_stood_still_total () gave
 * @then, a stall that ended only now included (its watchdog may not have
 * looked yet); MT safe */
gint64
accel_stood_still_since (gint64 then)
{
  gint64 now = g_get_monotonic_time ();

  g_mutex_lock (&stood_lock);
  if (next_look_due > 0 && now > next_look_due)
    count_stall_unlocked (next_look_due, now);
  g_mutex_unlock (&stood_lock);
  return accel_stood_still_total () - then;
}

/**
 * accel_stage_get_watchdog_us: (skip)
 * @stage: a stage
 *
 * Returns: how long one frame of @stage may run before it counts as hung,
 *   in microseconds, or 0 for no limit: the "watchdog" property, or ten
 *   times the deadline and at least 10 s when a deadline is set, but for
 *   a source that waits for its input (live or remote): that wait may be
 *   as long as the input's pause. MT safe.
 */
gint64
accel_stage_get_watchdog_us (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);
  gint64 watchdog = __atomic_load_n (&priv->watchdog_ms, __ATOMIC_RELAXED);
  gint64 deadline = __atomic_load_n (&priv->deadline_ms, __ATOMIC_RELAXED);

  if (watchdog > 0)
    return watchdog * 1000;
  if (deadline <= 0
      || (priv->n_in == 0
          && (accel_stage_is_live (stage)
              || accel_stage_is_remote_source (stage))))
    return 0;
  /* deadlines stop at G_MAXINT64 / 1000 ms: ten of them saturate */
  if (deadline > G_MAXINT64 / 1000 / AUTO_FACTOR)
    return G_MAXINT64;
  return MAX (deadline * AUTO_FACTOR, AUTO_MIN_MS) * 1000;
}

/* @self's frame @sequence begins its own work now (process () and what
 * follows it on the thread, or render ()); its stage's thread only */
void
accel_stage_watch_work (AccelStage *self, guint64 sequence)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  __atomic_store_n (&priv->work_sequence, sequence, __ATOMIC_RELAXED);
  __atomic_store_n (
      &priv->work_since, MAX (g_get_monotonic_time (), 1), __ATOMIC_RELEASE);
}

/* no frame of @self is at work; its stage's thread only */
void
accel_stage_unwatch_work (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  __atomic_store_n (&priv->work_since, 0, __ATOMIC_RELEASE);
}

/**
 * accel_stage_wait_begin:
 * @stage: a stage, in its process () or render ()
 *
 * The stage waits for what is outside the graph: a live source for its
 * input (a pipe's writer, a camera, the application's next push), a sink
 * for room (an application that has not pulled the last frames, a
 * GStreamer pipeline that has not taken them). That is neither the
 * frame's work nor the stage's fault: neither its deadline nor its
 * watchdog counts it, until accel_stage_wait_end(). Called from the
 * stage's thread.
 */
void
accel_stage_wait_begin (AccelStage *stage)
{
  AccelStagePrivate *priv;

  g_return_if_fail (ACCEL_IS_STAGE (stage));
  priv = accel_stage_get_private (stage);
  priv->work_paused = __atomic_load_n (&priv->work_since, __ATOMIC_RELAXED) > 0;
  __atomic_store_n (
      &priv->wait_began, g_get_monotonic_time (), __ATOMIC_RELAXED);
  accel_stage_unwatch_work (stage);
}

/**
 * accel_stage_wait_end:
 * @stage: a stage that called accel_stage_wait_begin()
 *
 * The wait is over: its time is left out of the frame's deadline, and the
 * watchdog counts the frame's work again from now. Called from the
 * stage's thread.
 */
void
accel_stage_wait_end (AccelStage *stage)
{
  AccelStagePrivate *priv;

  g_return_if_fail (ACCEL_IS_STAGE (stage));
  priv = accel_stage_get_private (stage);
  if (priv->wait_began > 0)
    priv->frame_waited_us += g_get_monotonic_time () - priv->wait_began;
  __atomic_store_n (&priv->wait_began, 0, __ATOMIC_RELAXED);
  if (priv->work_paused)
    accel_stage_watch_work (stage, priv->work_sequence);
  priv->work_paused = FALSE;
}

/* how long @stage has waited for what comes from outside
 * (accel_stage_wait_begin ()), 0 when it does not wait; MT safe */
gint64
accel_stage_get_outside_wait_us (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);
  gint64 began = __atomic_load_n (&priv->wait_began, __ATOMIC_RELAXED);

  return began > 0 ? MAX (g_get_monotonic_time () - began, 1) : 0;
}

/* the frame @w's stage has at work past its watchdog @limit (0: none),
 * as an error, or NULL. @stood_still: how long the process stood still (stopped
 * by a signal or a debugger, or the machine asleep) since the last look: a
 * frame at work through it is not charged for it */
static GError *
check_stage (Watched *w, gint64 limit, gint64 now, gint64 stood_still)
{
  AccelStagePrivate *priv = accel_stage_get_private (w->stage);
  gint64 since = __atomic_load_n (&priv->work_since, __ATOMIC_ACQUIRE);
  guint64 sequence = __atomic_load_n (&priv->work_sequence, __ATOMIC_RELAXED);
  gint64 ran;

  /* a frame first seen now stood still for the part of the stall after
   * it began */
  if (since != w->since)
    {
      w->since = since;
      w->excused = MIN (stood_still, MAX (now - since, 0));
    }
  else
    {
      w->excused += stood_still;
    }
  ran = now - since - w->excused;
  /* the mark read again: a frame that ended between the reads is not
   * taken for the next one */
  if (since <= 0 || limit <= 0 || ran <= limit
      || __atomic_load_n (&priv->work_since, __ATOMIC_ACQUIRE) != since)
    return NULL;
  return g_error_new (ACCEL_ERROR, ACCEL_ERROR_HUNG,
      "frame %" G_GUINT64_FORMAT " has run for %" G_GINT64_FORMAT
      " ms, past its %" G_GINT64_FORMAT
      " ms watchdog: the stage is hung, and its thread cannot be stopped",
      sequence, (ran + 999) / 1000, limit / 1000);
}

/* @stage's deadline in µs, or G_MAXINT64 for none */
static gint64
deadline_us (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);
  gint64 ms = __atomic_load_n (&priv->deadline_ms, __ATOMIC_RELAXED);

  return ms > 0 && ms < G_MAXINT64 / 1000 ? ms * 1000 : G_MAXINT64;
}

static gpointer
watch (gpointer data)
{
  AccelStageWatchdog *dog = data;
  gint64 looked = g_get_monotonic_time ();
  /* the first look comes soon; each sets the next a quarter of the
   * shortest limit or deadline it read later (a stall is seen to that
   * much: a frame is excused the rest of it) */
  gint64 poll = POLL_MIN_US;
  gboolean gone = FALSE;

  looking (TRUE);
  looked_at (looked, looked + poll + POLL_MIN_US);
  g_mutex_lock (&dog->lock);
  while (!dog->stopping)
    {
      gint64 now, stood_still, shortest = G_MAXINT64;
      GError *error = NULL;
      Watched *w = NULL;

      while (!dog->stopping
             && g_cond_wait_until (&dog->wake, &dog->lock, looked + poll))
        ;
      now = g_get_monotonic_time ();
      /* a look that came much later than asked: the process stood still
       * (the clock counts on while it is stopped); a busy machine may
       * delay it a little, which is excused too */
      stood_still = MAX (now - looked - poll, 0);
      looked = now;
      for (guint i = 0; i < dog->watched->len && !dog->stopping && !error; i++)
        {
          gint64 limit;

          w = &g_array_index (dog->watched, Watched, i);
          limit = accel_stage_get_watchdog_us (w->stage);
          if (limit > 0)
            shortest = MIN (shortest, limit);
          shortest = MIN (shortest, deadline_us (w->stage));
          error = check_stage (w, limit, now, stood_still);
        }
      poll = CLAMP (shortest / 4, POLL_MIN_US, POLL_MAX_US);
      /* a busy machine may delay a look by a little: a stall is longer */
      looked_at (now, now + poll + POLL_MIN_US);
      if (!error)
        continue;
      /* the graph fails once: nothing more to watch */
      g_mutex_unlock (&dog->lock);
      g_debug (
          "stage '%s': %s", accel_stage_get_name (w->stage), error->message);
      dog->hung (w->stage, error, dog->data);
      g_error_free (error);
      g_mutex_lock (&dog->lock);
      /* it looks no more */
      if (!gone)
        looking (FALSE);
      gone = TRUE;
      while (!dog->stopping)
        g_cond_wait (&dog->wake, &dog->lock);
    }
  g_mutex_unlock (&dog->lock);
  if (!gone)
    looking (FALSE);
  return NULL;
}

static void
watchdog_free (AccelStageWatchdog *dog)
{
  for (guint i = 0; i < dog->watched->len; i++)
    g_object_unref (g_array_index (dog->watched, Watched, i).stage);
  g_array_unref (dog->watched);
  g_mutex_clear (&dog->lock);
  g_cond_clear (&dog->wake);
  g_free (dog);
}

/* watches the frames of @stages, calling @hung on a thread of its own for
 * the first that runs past its stage's watchdog. Stopped, and freed, by
 * accel_stage_watchdog_stop (); %NULL with @error when its thread cannot
 * be made */
AccelStageWatchdog *
accel_stage_watchdog_start (GPtrArray *stages,
    void (*hung) (AccelStage *stage, const GError *error, gpointer data),
    gpointer data, GError **error)
{
  AccelStageWatchdog *dog = g_new0 (AccelStageWatchdog, 1);

  dog->watched = g_array_sized_new (FALSE, TRUE, sizeof (Watched), stages->len);
  for (guint i = 0; i < stages->len; i++)
    {
      Watched w = { g_object_ref (stages->pdata[i]), 0, 0 };
      g_array_append_val (dog->watched, w);
    }
  dog->hung = hung;
  dog->data = data;
  g_mutex_init (&dog->lock);
  g_cond_init (&dog->wake);
  dog->thread = accel_thread_try_new ("accel-watchdog", watch, dog, error);
  if (dog->thread)
    return dog;
  watchdog_free (dog);
  return NULL;
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
  watchdog_free (dog);
}
