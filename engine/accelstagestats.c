/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: a stage's statistics: frames processed, skipped, lost, restarts,
 * dropped inputs, and host time per frame; written on the stage's thread,
 * read from any */
#define G_LOG_DOMAIN "accel-stage"

#include "accelstage-private.h"

#include <stdlib.h>
#include <string.h>

/* a counter the stage's thread writes, at @offset in its private part,
 * read from any thread */
static guint64
read_counter (AccelStage *stage, glong offset)
{
  AccelStagePrivate *priv;
  guint64 n;

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), 0);
  priv = accel_stage_get_private (stage);
  g_mutex_lock (&priv->stats_lock);
  n = G_STRUCT_MEMBER (guint64, priv, offset);
  g_mutex_unlock (&priv->stats_lock);
  return n;
}

/**
 * accel_stage_get_n_processed:
 * @stage: a stage
 *
 * Returns: frames processed in the graph's run (the last one, once it
 *   stopped: each start counts from zero). MT safe.
 */
guint64
accel_stage_get_n_processed (AccelStage *stage)
{
  return read_counter (stage, G_STRUCT_OFFSET (AccelStagePrivate, n_processed));
}

/**
 * accel_stage_get_n_dropped:
 * @stage: a stage
 *
 * Returns: input buffers dropped in the graph's run (the last one, once
 * it stopped) because no buffer of the same sequence arrived on the other
 * input ports, or because they came once the stage's stream had ended
 * (another input ended before). MT safe.
 */
guint64
accel_stage_get_n_dropped (AccelStage *stage)
{
  AccelStagePrivate *priv;
  guint64 n;

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), 0);
  priv = accel_stage_get_private (stage);

  /* the mailbox goes when the stage is joined, on another thread */
  g_mutex_lock (&priv->mailbox_lock);
  n = priv->mailbox ? accel_mailbox_get_n_dropped (priv->mailbox)
                    : priv->n_dropped_joined;
  g_mutex_unlock (&priv->mailbox_lock);
  return n;
}

/**
 * accel_stage_get_n_restarts:
 * @stage: a stage
 *
 * Returns: how often the stage's supervisor restarted it in the graph's
 *   run (the last one, once it stopped). MT safe.
 */
guint64
accel_stage_get_n_restarts (AccelStage *stage)
{
  return read_counter (stage, G_STRUCT_OFFSET (AccelStagePrivate, n_restarts));
}

/**
 * accel_stage_get_n_skipped:
 * @stage: a stage
 *
 * Returns: frames the supervisor skipped after a fault (resume) in the
 *   graph's run (the last one, once it stopped). MT safe.
 */
guint64
accel_stage_get_n_skipped (AccelStage *stage)
{
  return read_counter (stage, G_STRUCT_OFFSET (AccelStagePrivate, n_skipped));
}

/**
 * accel_stage_get_n_retried:
 * @stage: a stage
 *
 * Returns: frames the stage ran again after a fault in the graph's run
 *   (the last one, once it stopped): after they ran out of memory, its
 *   pools' free buffers given back, or after a restart that makes the
 *   frame again (a stateful source from its snapshot, caught up). Each
 *   was delivered unless it is counted as skipped too. MT safe.
 */
guint64
accel_stage_get_n_retried (AccelStage *stage)
{
  return read_counter (stage, G_STRUCT_OFFSET (AccelStagePrivate, n_retried));
}

/**
 * accel_stage_dup_first_fault:
 * @stage: a stage
 *
 * What the first frame the stage's supervisor skipped (resume, restart,
 * or stop), retried or made again failed with, for a report of those
 * frames: the counts alone do not say why.
 *
 * Returns: (transfer full) (nullable): the fault's message (a stage
 *   before it in a batch of GPU work that failed the frame, named), or
 *   %NULL when the stage skipped no frame. MT safe.
 */
gchar *
accel_stage_dup_first_fault (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);
  gchar *fault;

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), NULL);
  g_mutex_lock (&priv->stats_lock);
  fault = g_strdup (priv->first_fault);
  g_mutex_unlock (&priv->stats_lock);
  return fault;
}

/**
 * accel_stage_carries_state:
 * @stage: a stage
 *
 * Returns: whether @stage carries state from one frame to the next (its
 *   class takes snapshots, and they held state): a frame it skipped, or a
 *   restart that took it back to its last snapshot, changes its later
 *   frames from those of a run without the fault. MT safe once the graph
 *   has stopped.
 */
gboolean
accel_stage_carries_state (AccelStage *stage)
{
  g_return_val_if_fail (ACCEL_IS_STAGE (stage), FALSE);
  return ACCEL_STAGE_GET_CLASS (stage)->snapshot != NULL
         && !accel_stage_get_private (stage)->supervisor.stateless;
}

/**
 * accel_stage_get_n_lost:
 * @stage: a stage
 *
 * Returns: for a live source, the frames it had produced before a worker
 *   restart that no sink committed and that it cannot produce again; for
 *   a sink, those it had taken that never reached its output
 *   (accel_stage_count_lost()). MT safe.
 */
guint64
accel_stage_get_n_lost (AccelStage *stage)
{
  return read_counter (stage, G_STRUCT_OFFSET (AccelStagePrivate, n_lost));
}

/**
 * accel_stage_count_lost:
 * @stage: a sink
 * @n: frames it had taken, their render () returned, that will not reach
 *   its output after all (a GStreamer pipeline that failed with them
 *   queued)
 *
 * Counts them lost: the run is incomplete and says so, as for frames
 * skipped after faults. Called from the stage's thread.
 */
void
accel_stage_count_lost (AccelStage *stage, guint64 n)
{
  AccelStagePrivate *priv;

  g_return_if_fail (ACCEL_IS_STAGE (stage));
  priv = accel_stage_get_private (stage);
  g_mutex_lock (&priv->stats_lock);
  priv->n_lost += n;
  g_mutex_unlock (&priv->stats_lock);
}

/**
 * accel_stage_get_n_replayed:
 * @stage: a stage
 *
 * Returns: frames whose work was a replayed CUDA graph (graph mode).
 * MT safe.
 */
guint64
accel_stage_get_n_replayed (AccelStage *stage)
{
  g_return_val_if_fail (ACCEL_IS_STAGE (stage), 0);
  return __atomic_load_n (
      &accel_stage_get_private (stage)->n_replayed, __ATOMIC_RELAXED);
}

/**
 * accel_stage_get_n_captured:
 * @stage: a stage
 *
 * Returns: frames whose work was captured into a new CUDA graph (graph
 * mode); after the first frames, none unless a parameter changes. MT safe.
 */
guint64
accel_stage_get_n_captured (AccelStage *stage)
{
  g_return_val_if_fail (ACCEL_IS_STAGE (stage), 0);
  return __atomic_load_n (
      &accel_stage_get_private (stage)->n_captured, __ATOMIC_RELAXED);
}

static int
cmp_gint64 (const void *a, const void *b)
{
  gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;

  return (x > y) - (x < y);
}

/**
 * accel_stage_get_latency:
 * @stage: a stage
 * @p50_ns: (out) (optional): median host time per frame, or -1
 * @p99_ns: (out) (optional): 99th percentile, or -1
 *
 * Host time per frame over the last 1024 frames: from taking the inputs to
 * the end of the stage's own work, not counting the wait to hand the outputs
 * on (for sinks, to the end of the host part, the GPU wait included).
 * MT safe.
 */
void
accel_stage_get_latency (AccelStage *stage, gint64 *p50_ns, gint64 *p99_ns)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);
  gint64 sorted[ACCEL_LATENCY_RING];
  guint n;

  g_return_if_fail (ACCEL_IS_STAGE (stage));
  g_mutex_lock (&priv->stats_lock);
  n = (guint)MIN (priv->n_processed, ACCEL_LATENCY_RING);
  memcpy (sorted, priv->latency_ns, n * sizeof (gint64));
  g_mutex_unlock (&priv->stats_lock);

  qsort (sorted, n, sizeof (gint64), cmp_gint64);
  if (p50_ns)
    *p50_ns = n ? sorted[n / 2] : -1;
  if (p99_ns)
    *p99_ns = n ? sorted[MIN (n - 1, n * 99 / 100)] : -1;
}

/* upper bounds of the latency buckets: 1, 2.5, 5 per decade, 10 µs to 5 s */
const gint64 accel_histogram_bounds_ns[ACCEL_HISTOGRAM_BUCKETS] = {
  10000,
  25000,
  50000,
  100000,
  250000,
  500000,
  1000000,
  2500000,
  5000000,
  10000000,
  25000000,
  50000000,
  100000000,
  250000000,
  500000000,
  1000000000,
  2500000000,
  5000000000,
};

/* called with stats_lock held */
static void
histogram_add_unlocked (AccelHistogram *h, gint64 ns)
{
  guint b = 0;

  while (b < ACCEL_HISTOGRAM_BUCKETS && ns > accel_histogram_bounds_ns[b])
    b++;
  h->counts[b]++;
  h->count++;
  h->sum_ns += ns;
}

/* the source that input 0 comes from, walking up first inputs */
static AccelStage *
find_origin (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  while (priv->n_in > 0 && priv->producers[0])
    {
      stage = priv->producers[0];
      priv = accel_stage_get_private (stage);
    }
  return priv->n_in == 0 ? stage : NULL;
}

/* when the source began frame @sequence, or -1 when the ring has moved on;
 * the source writes time then sequence, so a matching sequence read on
 * both sides of the time means the time is that frame's */
static gint64
origin_time (AccelStage *source, guint64 sequence)
{
  AccelStagePrivate *src = accel_stage_get_private (source);
  guint slot = sequence % ACCEL_ORIGIN_RING;
  guint64 before, after;
  gint64 t;

  before = __atomic_load_n (&src->origin_seq[slot], __ATOMIC_ACQUIRE);
  t = __atomic_load_n (&src->origin_us[slot], __ATOMIC_ACQUIRE);
  after = __atomic_load_n (&src->origin_seq[slot], __ATOMIC_ACQUIRE);
  return before == sequence + 1 && after == before ? t : -1;
}

/* a source's frame @sequence began at @t0 (monotonic µs): its sinks'
 * end-to-end latency counts from there. Noted before the frame is handed
 * on, since a sink on the same thread ends it within the hand-on (noted
 * after it, every sample of a shared thread found no origin, and on
 * threads of their own a sink that came first now and then lost one) */
void
accel_stage_note_origin (AccelStage *stage, guint64 sequence, gint64 t0)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);
  guint slot = sequence % ACCEL_ORIGIN_RING;

  if (priv->n_in > 0 || accel_debug_has (ACCEL_DEBUG_NO_METRICS))
    return;
  /* sequence + 1: a zeroed slot stands for no frame */
  __atomic_store_n (&priv->origin_seq[slot], 0, __ATOMIC_RELEASE);
  __atomic_store_n (&priv->origin_us[slot], t0, __ATOMIC_RELEASE);
  __atomic_store_n (&priv->origin_seq[slot], sequence + 1, __ATOMIC_RELEASE);
}

/* a frame is through: @t0 to @t1 in monotonic µs was the stage's own time */
void
accel_stage_record_frame (
    AccelStage *stage, guint64 sequence, gint64 t0, gint64 t1)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);
  gint64 dt = (t1 - t0) * 1000;
  gint64 e2e = -1;
  gboolean metrics = !accel_debug_has (ACCEL_DEBUG_NO_METRICS);

  if (metrics && priv->n_in > 0 && priv->n_out == 0
      && priv->n_processed >= ACCEL_E2E_WARMUP)
    {
      if (!priv->origin)
        priv->origin = find_origin (stage);
      if (priv->origin)
        {
          gint64 origin = origin_time (priv->origin, sequence);
          if (origin >= 0)
            e2e = (t1 - origin) * 1000;
        }
    }

  g_mutex_lock (&priv->stats_lock);
  priv->latency_ns[priv->n_processed % ACCEL_LATENCY_RING] = dt;
  priv->n_processed++;
  if (metrics)
    histogram_add_unlocked (&priv->latency_hist, dt);
  if (e2e >= 0)
    histogram_add_unlocked (&priv->e2e_hist, e2e);
  g_mutex_unlock (&priv->stats_lock);
  if (priv->observer.frame && accel_stage_ends_a_branch (stage))
    priv->observer.frame (stage, sequence, FALSE, priv->observer_data);
}

/* copies the stage's histograms and its frames, read together so that
 * a scrape's counts agree; %TRUE when it is a sink (@e2e means
 * something). MT safe */
gboolean
accel_stage_get_histograms (AccelStage *stage, guint64 *frames,
    AccelHistogram *latency, AccelHistogram *e2e)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_mutex_lock (&priv->stats_lock);
  *frames = priv->n_processed;
  *latency = priv->latency_hist;
  *e2e = priv->e2e_hist;
  g_mutex_unlock (&priv->stats_lock);
  return priv->n_in > 0 && priv->n_out == 0;
}

/* buffers queued on the stage's inputs now (the fullest input), and the
 * most in the graph's run (the last one, once it stopped). MT safe */
void
accel_stage_get_queue_depth (AccelStage *stage, guint *now, guint *max)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_mutex_lock (&priv->mailbox_lock);
  *now = priv->mailbox ? accel_mailbox_get_n_queued (priv->mailbox) : 0;
  *max = priv->mailbox ? accel_mailbox_get_max_queued (priv->mailbox)
                       : priv->max_queued_joined;
  g_mutex_unlock (&priv->mailbox_lock);
}

/* idle (not started), running, done (its stream ended) or failed. MT safe */
const char *
accel_stage_get_state_name (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  if (g_atomic_int_get (&priv->failed))
    return "failed";
  if (g_atomic_int_get (&priv->done))
    return "done";
  if (g_atomic_int_get (&priv->started))
    return "running";
  return "idle";
}

/* a reference to the pool of @port, or %NULL while the stage is stopped;
 * MT safe (the stage's thread drops its pools under stats_lock) */
AccelPool *
accel_stage_dup_output_pool (AccelStage *stage, guint port)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);
  AccelPool *pool;

  g_mutex_lock (&priv->stats_lock);
  pool = priv->pools[port] ? g_object_ref (priv->pools[port]) : NULL;
  g_mutex_unlock (&priv->stats_lock);
  return pool;
}

/* a frame is run again after it ran out of memory (a restart that makes
 * it again counts in accel_stage_count_restart ()) */
void
accel_stage_count_retry (AccelStage *stage, const GError *fault)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_mutex_lock (&priv->stats_lock);
  priv->n_retried++;
  if (!priv->first_fault)
    priv->first_fault = g_strdup (fault->message);
  g_mutex_unlock (&priv->stats_lock);
}

/* frame @sequence failed and was skipped, after a restart when
 * @restarted */
void
accel_stage_count_fault (AccelStage *stage, guint64 sequence,
    gboolean restarted, const GError *fault)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_mutex_lock (&priv->stats_lock);
  priv->n_restarts += restarted;
  priv->n_skipped++;
  if (!priv->first_fault && fault)
    priv->first_fault = g_strdup (fault->message);
  g_mutex_unlock (&priv->stats_lock);
  /* a frame skipped anywhere never reaches the sinks below: a stepped
   * graph's step may be over */
  if (priv->observer.frame)
    priv->observer.frame (stage, sequence, TRUE, priv->observer_data);
}

/* a frame failed, and the stage restarted and makes it again: nothing is
 * skipped (accel_source_catch_up ()) */
void
accel_stage_count_restart (AccelStage *stage, const GError *fault)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_mutex_lock (&priv->stats_lock);
  priv->n_restarts++;
  priv->n_retried++;
  if (!priv->first_fault && fault)
    priv->first_fault = g_strdup (fault->message);
  g_mutex_unlock (&priv->stats_lock);
}

/* frame @sequence, which did not fail, reaches no sink below @stage: its
 * process () withheld it (%ACCEL_FLOW_SKIP), or @stage is a sink that
 * committed it in an earlier run. A stepped graph's step may be over */
void
accel_stage_count_withheld (AccelStage *stage, guint64 sequence)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_mutex_lock (&priv->stats_lock);
  priv->n_withheld++;
  g_mutex_unlock (&priv->stats_lock);
  if (priv->observer.frame)
    priv->observer.frame (stage, sequence, TRUE, priv->observer_data);
}

/**
 * accel_stage_get_n_withheld:
 * @stage: a stage
 *
 * Returns: frames that did not fail but reach no sink below @stage in the
 *   graph's run (the last one, once it stopped): its process () or
 *   render () returned %ACCEL_FLOW_SKIP, or, for a sink, frames it had
 *   committed in an earlier run (a state directory). MT safe.
 */
guint64
accel_stage_get_n_withheld (AccelStage *stage)
{
  return read_counter (stage, G_STRUCT_OFFSET (AccelStagePrivate, n_withheld));
}

/* the graph starts again: each count is of its latest run, so a report
 * (or a stepped graph's count of its sinks' frames) after a failed run
 * does not carry that run's faults into the next */
void
accel_stage_reset_stats (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_mutex_lock (&priv->stats_lock);
  priv->n_processed = 0;
  priv->n_restarts = 0;
  priv->n_skipped = 0;
  priv->n_retried = 0;
  priv->n_lost = 0;
  priv->n_withheld = 0;
  g_clear_pointer (&priv->first_fault, g_free);
  memset (&priv->latency_hist, 0, sizeof priv->latency_hist);
  memset (&priv->e2e_hist, 0, sizeof priv->e2e_hist);
  g_mutex_unlock (&priv->stats_lock);
  __atomic_store_n (&priv->n_replayed, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&priv->n_captured, 0, __ATOMIC_RELAXED);
}

/* a batched frame's work ran: replayed, captured, or (neither) launched */
void
accel_stage_count_batched (
    AccelStage *stage, gboolean replayed, gboolean captured)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  /* every frame of graph mode passes here: atomics, not the stats lock */
  if (replayed)
    __atomic_fetch_add (&priv->n_replayed, 1, __ATOMIC_RELAXED);
  if (captured)
    __atomic_fetch_add (&priv->n_captured, 1, __ATOMIC_RELAXED);
}
