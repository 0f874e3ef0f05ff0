/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: what only sinks do: a sink's host part (render) waits for its GPU
 * work through the stage's completion strategy, off the hot path; finished
 * frames go into the commit log when the graph keeps state, and a frame the
 * log holds already is not written again */
#define G_LOG_DOMAIN "accel-stage"

#include "accelstage-private.h"

static void
finish_pending (AccelStage *self, const GError *wait_error)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  AccelStageClass *klass = ACCEL_STAGE_GET_CLASS (self);
  AccelSinkState *sink = &priv->sink;
  GError *error = NULL;
  AccelFlow flow;

  sink->have_pending = FALSE;
  accel_mailbox_set_blocked (priv->mailbox, FALSE);

  if (wait_error)
    {
      error = g_error_copy (wait_error);
      flow = ACCEL_FLOW_ERROR;
    }
  else
    {
      accel_stage_watch_work (self, sink->pending.sequence);
      ACCEL_NVTX_PUSH (priv->name, sink->pending.sequence);
      flow = klass->render (self, &sink->pending, &error);
      ACCEL_NVTX_POP ();
      accel_stage_unwatch_work (self);
      /* a frame that failed is never counted as done */
      flow = accel_stage_check_flow (self, "render", flow, &error);
    }
  accel_stage_clear_frame (&sink->pending);
  /* the frame's fault is supervised as one of process () is: on-fault
   * decides. A render () that stopped because the stage is stopping (or
   * yields) is no fault: that ends the stage as before */
  if (error && g_error_matches (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED))
    {
      accel_stage_fail (self, error);
      return;
    }
  if (error)
    {
      accel_stage_handle_fault (self, error, sink->pending.sequence);
      return;
    }
  /* withheld: written nowhere, so neither committed nor done */
  if (flow == ACCEL_FLOW_SKIP)
    {
      accel_stage_count_withheld (self, sink->pending.sequence);
      return;
    }
  /* a frame written but not committed cannot be skipped */
  if (sink->commit_log
      && !accel_commit_log_commit (
          sink->commit_log, sink->pending.sequence, &error))
    {
      accel_stage_fail (self, error);
      return;
    }
  accel_stage_record_frame (
      self, sink->pending.sequence, sink->pending_t0, g_get_monotonic_time ());
}

static void
on_completion (const GError *error, gpointer user_data)
{
  AccelStage *self = user_data;
  AccelStagePrivate *priv = accel_stage_get_private (self);
  const char *previous;

  /* the stage stopped while its GPU work ran: the frame is gone */
  if (priv->stopped || !priv->sink.have_pending)
    return;
  previous = accel_stage_enter (self);

  finish_pending (self, error);
  accel_stage_leave (previous);
}

static AccelSequenceResult
sink_next_sequence (AccelStage *self, AccelBuffer **inputs, guint64 *sequence)
{
  AccelSinkState *sink = &accel_stage_get_private (self)->sink;

  *sequence = accel_buffer_get_sequence (inputs[0]);
  /* finished before a restart: its output exists already */
  if (sink->commit_log
      && accel_commit_log_contains (sink->commit_log, *sequence))
    return ACCEL_SEQUENCE_DONE;
  return ACCEL_SEQUENCE_RUN;
}

/* a sink with a host part keeps the frame until its GPU work is done */
static AccelFrameResult
keep_for_render (AccelStage *self, AccelFrame *frame, gint64 t0, GError **error)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  AccelSinkState *sink = &priv->sink;

  if (!ACCEL_STAGE_GET_CLASS (self)->render)
    return ACCEL_FRAME_DONE;
  sink->pending = *frame;
  sink->pending.inputs = sink->pending_in;
  sink->pending.n_outputs = 0;
  for (guint i = 0; i < frame->n_inputs; i++)
    sink->pending_in[i] = accel_buffer_ref (frame->inputs[i]);
  sink->pending_t0 = t0;
  sink->have_pending = TRUE;
  accel_mailbox_set_blocked (priv->mailbox, TRUE);
  if (!accel_completion_wait_async (sink->completion, priv->stream,
          priv->context, on_completion, self, error))
    {
      sink->have_pending = FALSE;
      accel_mailbox_set_blocked (priv->mailbox, FALSE);
      accel_stage_clear_frame (&sink->pending);
      return ACCEL_FRAME_FAILED;
    }
  return ACCEL_FRAME_PENDING;
}

static gboolean
commit (AccelStage *self, guint64 sequence, GError **error)
{
  AccelSinkState *sink = &accel_stage_get_private (self)->sink;

  return !sink->commit_log
         || accel_commit_log_commit (sink->commit_log, sequence, error);
}

/**
 * accel_stage_end_branch:
 * @self: a stage that ends a branch (accel_stage_ends_a_branch ()): a sink,
 *   or a stage nothing takes from
 *
 * Its stream is over once its GPU work is (and a sink's last commits are
 * on disk): then the graph hears of it, or of the failure. Stage thread.
 */
void
accel_stage_end_branch (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  GError *error = NULL;

  /* the last commits reach the disk now, where a failure can still be
   * told: closing the log cannot report one */
  if ((priv->stream && !accel_stream_synchronize (priv->stream, &error))
      || (priv->sink.commit_log
          && !accel_commit_log_sync (priv->sink.commit_log, &error)))
    {
      accel_stage_fail (self, error);
      return;
    }
  if (priv->observer.eos)
    priv->observer.eos (self, priv->observer_data);
}

static void
sink_stop (AccelStage *self)
{
  AccelSinkState *sink = &accel_stage_get_private (self)->sink;

  if (sink->have_pending)
    {
      sink->have_pending = FALSE;
      accel_stage_clear_frame (&sink->pending);
    }
  g_clear_pointer (&sink->commit_log, accel_commit_log_close);
}

const AccelStageRole accel_sink_role = {
  .next_sequence = sink_next_sequence,
  .hand_on = keep_for_render,
  .frame_done = commit,
  .end = accel_stage_end_branch,
  .stop = sink_stop,
};

void
accel_sink_state_clear (AccelSinkState *sink)
{
  g_clear_pointer (&sink->commit_log, accel_commit_log_close);
}
