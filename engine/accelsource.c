/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: what only sources do (produce a frame whenever downstream has
 * room, up to a frame limit, from a resume sequence; live sources record
 * what they produced), and the transform's role, which is the source's
 * without the producing */
#define G_LOG_DOMAIN "accel-stage"

#include "accelstage-private.h"

#include <errno.h>
#include <unistd.h>

/* a few frames per dispatch: each main loop iteration costs a poll() */
#define FRAMES_PER_DISPATCH 8

static gboolean
produce_dispatch (gpointer user_data)
{
  AccelStage *self = user_data;
  AccelStagePrivate *priv = accel_stage_get_private (self);
  const char *previous;
  gboolean more;

  if (priv->busy)
    return G_SOURCE_CONTINUE;
  priv->busy = TRUE;
  previous = accel_stage_enter (self);
  more = TRUE;
  for (guint n = 0; n < FRAMES_PER_DISPATCH && more; n++)
    {
      more = !priv->done && accel_stage_run_frame (self, NULL);
      if (accel_mailbox_has_control (priv->mailbox)
          || accel_stage_is_parked (self)
          || accel_stage_is_waiting_for_buffer (self))
        break;
    }
  accel_stage_leave (previous);
  priv->busy = FALSE;
  /* downstream has no room: produce again once the parked outputs are
   * taken (accelstagepark.c), or once a buffer is free
   * (accelstagebufferwait.c) */
  if (!more || accel_stage_is_parked (self)
      || accel_stage_is_waiting_for_buffer (self))
    {
      priv->source.produce = NULL;
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

/**
 * accel_stage_produce_again:
 * @self: a stage
 *
 * A source that stopped producing while its outputs waited (parked, or a
 * frame that waited for a buffer) produces again once nothing holds it;
 * any other stage, or a source that is mid-frame, done or producing, is
 * left as it is. Stage thread.
 */
void
accel_stage_produce_again (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  if (priv->n_in == 0 && !priv->busy && !priv->done && !priv->source.produce
      && !accel_stage_is_parked (self)
      && !accel_stage_is_waiting_for_buffer (self))
    priv->role->begin (self);
}

/* mid catch-up after a restart (accel_source_catch_up ()): the frame that
 * failed is yet to be made again */
gboolean
accel_source_catching_up (AccelSourceState *source)
{
  return source->caught_up && source->next_sequence <= source->replay_until;
}

/**
 * accel_source_step:
 * @self: a stepped source
 *
 * A step: a frame handed on, or skipped. A frame made again to catch up
 * after a restart hands nothing on, nor does one that failed and is made
 * again (the catch-up went back before it): the step goes on past them. A
 * frame that waits for a buffer goes on with the step once it has one.
 * Stage thread.
 */
void
accel_source_step (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  for (;;)
    {
      guint64 sequence = priv->source.next_sequence;
      gboolean replay = accel_source_replays (self, sequence);

      priv->source.yielded = FALSE;
      if (!accel_stage_run_frame (self, NULL) || priv->done
          || accel_stage_is_waiting_for_buffer (self))
        return;
      /* it yielded to a control message behind this step's (a parameter
       * set while it waited for a push): the step goes on after it
       * (accel_source_give_back ()) */
      if (priv->source.yielded)
        return;
      if (!replay && priv->source.next_sequence > sequence)
        return;
    }
}

static void
source_begin (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  GSource *source;

  /* stepped: each frame waits for its step message, but for a step's
   * catch-up that waited for a buffer */
  if (priv->source.stepped)
    {
      if (accel_source_catching_up (&priv->source))
        {
          priv->busy = TRUE;
          accel_source_step (self);
          priv->busy = FALSE;
        }
      return;
    }
  source = g_idle_source_new ();
  g_source_set_static_name (source, "accel-produce");
  g_source_set_priority (source, G_PRIORITY_DEFAULT_IDLE);
  g_source_set_callback (source, produce_dispatch, self, NULL);
  priv->source.produce = source;
  g_source_attach (source, priv->context);
  g_source_unref (source);
}

/* a live source's last sequence (-1: none), overwritten in place, without
 * fsync: it has to outlive the process, not the machine */
static void
record_produced (AccelStage *self, gint64 sequence)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  char line[32];
  int n;

  if (priv->source.produced_fd < 0)
    return;
  /* none: a line of the same width that reads as no number */
  if (sequence < 0)
    n = g_snprintf (line, sizeof (line), "%20s\n", "none");
  else
    n = g_snprintf (line, sizeof (line), "%020" G_GINT64_FORMAT "\n", sequence);
  if (pwrite (priv->source.produced_fd, line, n, 0) != n)
    g_warning ("stage '%s': cannot record its last sequence: %s", priv->name,
        g_strerror (errno));
}

/**
 * accel_stage_note_input_taken:
 * @stage: a live source, in its process ()
 * @taken: %FALSE while it waits for its frame's input and has taken none
 *   of it, %TRUE once it has taken some
 *
 * What a live source produced is kept in its state directory, so that a
 * process that resumes after a crash counts the frames it cannot make
 * again. A frame is counted from when its sequence is taken; a source
 * that waits long for its input before it takes any of it (a pipe whose
 * writer is idle) says so here, and a process killed meanwhile lost none
 * of that frame (it counted it lost, exit status 3, and every frame was
 * delivered). Called from the stage's thread.
 */
void
accel_stage_note_input_taken (AccelStage *stage, gboolean taken)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_return_if_fail (ACCEL_IS_STAGE (stage));
  if (priv->n_in > 0 || priv->source.next_sequence == 0)
    return;
  record_produced (stage, (gint64)priv->source.next_sequence - (taken ? 1 : 2));
}

/**
 * accel_source_give_back:
 * @self: a source
 * @sequence: the sequence it took for a frame it did not make
 *
 * A source that yielded its thread (%ACCEL_FLOW_SKIP) made no frame: the
 * next one takes @sequence again, and a live source's record says the
 * one before (it counted a frame it never made, and its sequence was
 * missing downstream). Stage thread.
 */
void
accel_source_give_back (AccelStage *self, guint64 sequence)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  priv->source.next_sequence = sequence;
  priv->source.yielded = TRUE;
  record_produced (self, (gint64)sequence - 1);
  /* the step goes on once the message is handled: also for a frame that
   * waited for a buffer, which no step runs */
  if (priv->source.stepped)
    accel_stage_step_async (self);
}

/**
 * accel_source_make_again:
 * @self: a stage whose frame @sequence failed
 * @sequence: that frame
 * @fault: why it failed
 *
 * A live source reads its input in order: a frame that failed before its
 * process () was called (an injected fault, a buffer it could not get)
 * took nothing from it, and the next frame would have its input under the
 * next sequence. That frame is made again instead, under @sequence, and
 * said so: no frame of the input is lost, so none is skipped (it was
 * counted skipped, exit status 3 in accel-run). A frame that failed in
 * its process () may have taken its input, and is skipped; so is one that
 * fails this way again, so that a failure that lasts (no buffer to be had)
 * is not retried for good.
 *
 * Returns: whether @sequence is made again. Stage thread.
 */
gboolean
accel_source_make_again (
    AccelStage *self, guint64 sequence, const GError *fault)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  if (priv->n_in > 0 || priv->frame_worked || !accel_stage_is_live (self)
      || accel_source_fails_again (self, sequence))
    return FALSE;
  priv->source.made_again = sequence + 1;
  priv->source.next_sequence = sequence;
  record_produced (self, (gint64)sequence - 1);
  g_message ("stage '%s': frame %" G_GUINT64_FORMAT " failed before it took "
             "its input (%s); it is made again",
      priv->name, sequence, fault->message);
  return TRUE;
}

/**
 * accel_source_fails_again:
 * @self: a stage whose frame @sequence failed
 * @sequence: that frame
 *
 * Returns: whether @sequence, made again by accel_source_make_again (),
 * failed again before its process () was called: it is skipped. Stage
 * thread.
 */
gboolean
accel_source_fails_again (AccelStage *self, guint64 sequence)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  return !priv->frame_worked && priv->source.made_again == sequence + 1;
}

/* the sequence is recorded as it is taken, before the frame is made: a
 * live source's frame is gone from its device once it starts on it, and a
 * consumer in its segment that dies runs inside its push, before the
 * frame is done (the next worker counted one frame too few lost) */
static AccelSequenceResult
source_next_sequence (AccelStage *self, AccelBuffer **inputs, guint64 *sequence)
{
  AccelSourceState *source = &accel_stage_get_private (self)->source;
  AccelStageClass *klass = ACCEL_STAGE_GET_CLASS (self);

  /* before the outputs are taken: the frame past the end needs none (a
   * frame made again to catch up was made before) */
  if (!accel_source_catching_up (source)
      && ((source->frame_limit >= 0
              && source->next_sequence >= (guint64)source->frame_limit)
          || (klass->has_frame
              && !klass->has_frame (self, source->next_sequence))))
    return ACCEL_SEQUENCE_END;
  /* made again to catch up: with the parameters it had */
  if (accel_source_catching_up (source))
    accel_source_replay_params (self, source->next_sequence);
  *sequence = source->next_sequence++;
  record_produced (self, (gint64)*sequence);
  return ACCEL_SEQUENCE_RUN;
}

static AccelFrameResult
push_outputs (AccelStage *self, AccelFrame *frame, gint64 t0, GError **error)
{
  return accel_stage_push_outputs (self, frame);
}

/**
 * accel_source_replays:
 * @self: a stage
 * @sequence: a frame it makes
 *
 * Returns: whether @self is a source that makes @sequence again to catch
 *   its restored state up (accel_source_catch_up ()): handed on before,
 *   it is not handed on now. Stage thread.
 */
gboolean
accel_source_replays (AccelStage *self, guint64 sequence)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  return priv->n_in == 0 && sequence < priv->source.replay_until;
}

/**
 * accel_source_catch_up:
 * @self: a stage that restarted after frame @failed failed, and took its
 *   last snapshot's state back
 * @failed: that frame
 *
 * A source that carries state from frame to frame (a simulation) goes on
 * from the frame after its snapshot: it makes again, and keeps to itself,
 * the frames from there to @failed, then makes @failed again and hands it
 * on. Its frames are then those of a run without the fault, where it went
 * on from its snapshot's state at @failed + 1 and every later frame
 * differed. Before its first snapshot (or with none kept) its restart left
 * it in the state it starts in, that of a run from frame 0, and it goes on
 * from there. A live source cannot make a frame again.
 *
 * Returns: whether it catches up (else @failed is skipped). Stage thread.
 */
gboolean
accel_source_catch_up (AccelStage *self, guint64 failed)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  AccelStageSupervisor *sup = &priv->supervisor;
  AccelStageClass *klass = ACCEL_STAGE_GET_CLASS (self);
  g_autofree gchar *state = NULL;
  guint64 from, until;

  if (priv->n_in > 0 || !klass->snapshot || !klass->restore
      || accel_stage_is_live (self))
    return FALSE;
  if (sup->snapshot)
    {
      if (sup->snapshot_sequence >= failed)
        return FALSE;
      from = sup->snapshot_sequence + 1;
      state = g_strdup_printf (
          "its state after frame %" G_GUINT64_FORMAT, sup->snapshot_sequence);
    }
  else if (priv->source.start_sequence == 0)
    {
      /* a resume's start from a checkpoint has a snapshot: a start from
       * frame 0 without one is a run's first state */
      from = 0;
      state = g_strdup ("its initial state");
    }
  else
    return FALSE;
  /* a fault in the catch-up starts it again: the frames up to the one
   * that failed first went on already */
  until = MAX (failed, priv->source.replay_until);
  priv->source.next_sequence = from;
  priv->source.replay_until = until;
  priv->source.caught_up = TRUE;
  /* the values its frames from there had */
  accel_source_rewind_params (self, from);
  if (from == until)
    g_message ("stage '%s': restarted after frame %" G_GUINT64_FORMAT
               " failed, from %s; frame %" G_GUINT64_FORMAT " is made again",
        priv->name, failed, state, until);
  else
    {
      g_autofree gchar *again
          = from + 1 == until
                ? g_strdup_printf ("frame %" G_GUINT64_FORMAT, from)
                : g_strdup_printf ("frames %" G_GUINT64_FORMAT
                                   " to %" G_GUINT64_FORMAT,
                    from, until - 1);

      g_message ("stage '%s': restarted after frame %" G_GUINT64_FORMAT
                 " failed; %s is caught up by making %s again, not handed "
                 "on, and frame %" G_GUINT64_FORMAT " is made again",
          priv->name, failed, state, again, until);
    }
  return TRUE;
}

static AccelFrameResult
source_hand_on (AccelStage *self, AccelFrame *frame, gint64 t0, GError **error)
{
  if (accel_source_replays (self, frame->sequence))
    return ACCEL_FRAME_DONE;
  return accel_stage_push_outputs (self, frame);
}

static gboolean
source_frame_done (AccelStage *self, guint64 sequence, GError **error)
{
  /* the last one handed on */
  if (!accel_source_replays (self, sequence))
    accel_stage_get_private (self)->source.last_done = (gint64)sequence;
  return TRUE;
}

/* at the end of the stream the sequence taken for the end itself made no
 * frame: the last one handed on is what was produced (a clean run's rerun
 * counted one frame lost) */
static void
source_end (AccelStage *self)
{
  record_produced (self, accel_stage_get_private (self)->source.last_done);
  accel_stage_send_eos_downstream (self);
}

const AccelStageRole accel_source_role = {
  .begin = source_begin,
  .next_sequence = source_next_sequence,
  .hand_on = source_hand_on,
  .frame_done = source_frame_done,
  .end = source_end,
};

void
accel_source_state_clear (AccelSourceState *source)
{
  accel_source_clear_params (source);
  if (source->produced_fd >= 0)
    close (source->produced_fd);
  source->produced_fd = -1;
}

/* transforms: the frame is that of the inputs */

static AccelSequenceResult
input_sequence (AccelStage *self, AccelBuffer **inputs, guint64 *sequence)
{
  *sequence = accel_buffer_get_sequence (inputs[0]);
  return ACCEL_SEQUENCE_RUN;
}

static gboolean
nothing_to_record (AccelStage *self, guint64 sequence, GError **error)
{
  return TRUE;
}

const AccelStageRole accel_transform_role = {
  .next_sequence = input_sequence,
  .hand_on = push_outputs,
  .frame_done = nothing_to_record,
  .end = accel_stage_send_eos_downstream,
};
