/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: a stage's supervisor: what a failed frame leads to (resume,
 * restart, stop, escalate, within a restart intensity), and the state a
 * restart starts from: snapshots every few frames, and checkpoints on disk
 * when the graph keeps state. It decides; the actor loop acts */
#define G_LOG_DOMAIN "accel-stage"

#include "accelstage-private.h"

/**
 * accel_supervision_get_type:
 *
 * Returns: the enum #GType of #AccelSupervision, whose nicks are the
 * `on-fault` values. MT safe.
 */
GType
accel_supervision_get_type (void)
{
  static gsize type;
  static const GEnumValue values[] = {
    { ACCEL_SUPERVISION_AUTO, "ACCEL_SUPERVISION_AUTO", "auto" },
    { ACCEL_SUPERVISION_RESTART, "ACCEL_SUPERVISION_RESTART", "restart" },
    { ACCEL_SUPERVISION_RESUME, "ACCEL_SUPERVISION_RESUME", "resume" },
    { ACCEL_SUPERVISION_STOP, "ACCEL_SUPERVISION_STOP", "stop" },
    { ACCEL_SUPERVISION_ESCALATE, "ACCEL_SUPERVISION_ESCALATE", "escalate" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (
        &type, g_enum_register_static ("AccelSupervision", values));
  return (GType)type;
}

void
accel_stage_supervisor_init (AccelStageSupervisor *sup)
{
  g_queue_init (&sup->restart_times);
}

/* the graph starts again: its restarts are counted anew, as its frames
 * are (the last run's counted against this one's intensity) */
void
accel_stage_supervisor_reset (AccelStageSupervisor *sup)
{
  g_queue_clear_full (&sup->restart_times, g_free);
  sup->restarts_idle = 0;
  sup->done_at_restart = 0;
}

void
accel_stage_supervisor_clear (AccelStageSupervisor *sup)
{
  g_queue_clear_full (&sup->restart_times, g_free);
  g_clear_pointer (&sup->snapshot, g_bytes_unref);
  g_clear_pointer (&sup->checkpoint, g_free);
  g_clear_pointer (&sup->restore_from, g_free);
}

/* what the fault @error calls for, by the stage's on-fault and the
 * fault's class, the restart intensity aside. Called from the stage's
 * thread. */
AccelSupervision
accel_stage_supervisor_strategy (AccelStageSupervisor *sup, const GError *error)
{
  gboolean ours = error->domain == ACCEL_ERROR;

  if (ours && error->code == ACCEL_ERROR_CONTEXT_POISONED)
    return ACCEL_SUPERVISION_ESCALATE;
  if (sup->on_fault != ACCEL_SUPERVISION_AUTO)
    return sup->on_fault;
  /* another domain's codes mean other things (G_FILE_ERROR_NOSPC has
   * ACCEL_ERROR_DEADLINE's number): a fault of no known class */
  if (!ours)
    return ACCEL_SUPERVISION_ESCALATE;
  switch (error->code)
    {
    case ACCEL_ERROR_INVALID_INPUT:
    case ACCEL_ERROR_STALE_BUFFER:
      return ACCEL_SUPERVISION_RESUME;
    case ACCEL_ERROR_OUT_OF_MEMORY:
    case ACCEL_ERROR_LIBRARY:
    case ACCEL_ERROR_TIMEOUT:
    case ACCEL_ERROR_DEADLINE:
      return ACCEL_SUPERVISION_RESTART;
    default:
      return ACCEL_SUPERVISION_ESCALATE;
    }
}

/* whether the stage may restart, having made @n_done frames in the run
 * (less those it lost: a sink's taken and lost at a restart went nowhere):
 * not past the restart intensity, nor past max-restarts restarts in a row
 * with no frame through between them (@idle: a fault that took longer
 * than the window to come back, a start that timed out, restarted the
 * stage for good, losing every frame) */
static gboolean
may_restart (AccelStageSupervisor *sup, guint64 n_done, gboolean *idle)
{
  gint64 now = g_get_monotonic_time ();
  gint64 since = now - sup->restart_window_ms * 1000;

  while (!g_queue_is_empty (&sup->restart_times)
         && *(gint64 *)g_queue_peek_head (&sup->restart_times) < since)
    g_free (g_queue_pop_head (&sup->restart_times));
  if (n_done != sup->done_at_restart)
    sup->restarts_idle = 0;
  *idle = FALSE;
  if (sup->restart_times.length >= sup->max_restarts)
    return FALSE;
  *idle = sup->restarts_idle >= sup->max_restarts;
  if (*idle)
    return FALSE;
  sup->done_at_restart = n_done;
  sup->restarts_idle++;
  g_queue_push_tail (&sup->restart_times, g_memdup2 (&now, sizeof (now)));
  return TRUE;
}

/* what to do about the fault in *@error, the stage having made @n_done
 * frames in the run: a restart past the restart intensity, or past
 * max-restarts in a row with no frame through, escalates, and *@error says
 * so. Called from the stage's thread. */
AccelSupervision
accel_stage_supervisor_decide (
    AccelStageSupervisor *sup, guint64 n_done, GError **error)
{
  AccelSupervision strategy = accel_stage_supervisor_strategy (sup, *error);
  gboolean idle;

  if (strategy != ACCEL_SUPERVISION_RESTART || may_restart (sup, n_done, &idle))
    return strategy;
  if (idle)
    g_prefix_error (error,
        "restarted %u times with no frame through between them, "
        "escalating: ",
        sup->max_restarts);
  else
    g_prefix_error (error,
        "restarted %u times within %" G_GINT64_FORMAT " ms, escalating: ",
        sup->max_restarts, sup->restart_window_ms);
  return ACCEL_SUPERVISION_ESCALATE;
}

/* a checkpoint not saved loses no frame (this one is through): a resume
 * starts from the last one saved, and the next interval tries again. Said
 * when they start failing and when they are saved again */
static void
note_checkpoint (AccelStage *self, guint64 sequence, const GError *error)
{
  AccelStageSupervisor *sup = &accel_stage_get_private (self)->supervisor;

  if (error && !sup->checkpoint_failing)
    g_message ("stage '%s': its checkpoint at frame %" G_GUINT64_FORMAT
               " was not saved (%s); the run goes on, and a resume would "
               "start from the last one saved",
        accel_stage_get_name (self), sequence, error->message);
  else if (!error && sup->checkpoint_failing)
    g_message ("stage '%s': its checkpoints are saved again, from frame "
               "%" G_GUINT64_FORMAT,
        accel_stage_get_name (self), sequence);
  sup->checkpoint_failing = error != NULL;
}

/* a frame is through: every snapshot-interval frames a stateful stage's
 * state is taken, and saved as a checkpoint when the graph keeps state; a
 * snapshot that holds no state marks the stage stateless there instead.
 * A catch-up without snapshots (snapshot-interval 0) takes one every
 * CATCH_UP_SNAPSHOT_INTERVAL frames it makes again, for itself: a fault
 * in it went back to frame 0 each time, and faults that came more often
 * than it took kept it going for good. A source that has kept
 * PARAM_CHANGES_PER_SNAPSHOT parameter changes since its snapshot takes
 * one for itself too: the changes a catch-up replays are kept till then,
 * and with snapshot-interval 0 they grew with every change for the run */
#define CATCH_UP_SNAPSHOT_INTERVAL 100
#define PARAM_CHANGES_PER_SNAPSHOT 256
void
accel_stage_supervisor_frame_done (AccelStage *self, guint64 sequence)
{
  AccelStageClass *klass = ACCEL_STAGE_GET_CLASS (self);
  AccelStageSupervisor *sup = &accel_stage_get_private (self)->supervisor;
  g_autoptr (GError) error = NULL;
  gboolean replays = accel_source_replays (self, sequence);
  gboolean for_catch_up = sup->snapshot_interval == 0 && replays;
  guint interval
      = for_catch_up ? CATCH_UP_SNAPSHOT_INTERVAL : sup->snapshot_interval;
  gboolean on_interval = interval != 0 && sequence % interval == 0;
  /* not in a catch-up: the changes that come meanwhile wait for the
   * frame that failed, and a snapshot would keep them all */
  gboolean for_params
      = !replays
        && accel_source_n_param_changes (self) >= PARAM_CHANGES_PER_SNAPSHOT;

  if (!klass->snapshot || !(on_interval || for_params))
    return;
  g_clear_pointer (&sup->snapshot, g_bytes_unref);
  sup->snapshot = klass->snapshot (self);
  sup->snapshot_sequence = sequence;
  /* a catch-up from here needs no change made up to it */
  if (sup->snapshot)
    accel_source_forget_params (self, sequence);
  if (!sup->checkpoint || for_catch_up || !on_interval)
    return;
  /* once a run: the marker stays */
  if (!sup->snapshot)
    {
      if (!sup->stateless)
        sup->stateless = accel_checkpoint_mark_stateless (
            sup->checkpoint, sup->state_id, &error);
    }
  else
    {
      accel_checkpoint_save (
          sup->checkpoint, sup->state_id, sequence, sup->snapshot, &error);
    }
  note_checkpoint (self, sequence, error);
}

/* a new worker takes the state the last one saved */
gboolean
accel_stage_supervisor_restore_checkpoint (AccelStage *self, GError **error)
{
  AccelStageClass *klass = ACCEL_STAGE_GET_CLASS (self);
  AccelStageSupervisor *sup = &accel_stage_get_private (self)->supervisor;
  g_autoptr (GError) read_error = NULL;
  g_autoptr (GBytes) state = NULL;
  guint64 sequence;

  if (!sup->restore_from || !klass->restore)
    return TRUE;
  state = accel_checkpoint_read (sup->restore_from, sup->state_id,
      sup->state_id_gained, &sequence, &read_error);
  if (read_error)
    {
      g_propagate_error (error, g_steal_pointer (&read_error));
      return FALSE;
    }
  if (state && !klass->restore (self, state, error))
    return FALSE;
  if (state)
    {
      sup->snapshot = g_bytes_ref (state);
      sup->snapshot_sequence = sequence;
    }
  return TRUE;
}
