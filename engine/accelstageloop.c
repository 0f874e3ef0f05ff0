/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the actor that runs a stage on its thread's GMainContext: takes a
 * frame from the mailbox (or, for a source, from nowhere), acquires its
 * buffers, calls process(), releases the buffers' fences, hands the outputs
 * on; end of stream, control messages, start and stop. What differs between
 * sources, transforms and sinks is their role (accelsource.c, accelsink.c);
 * what a fault leads to, the stage's supervisor (accelstagesupervisor.c) */
#define G_LOG_DOMAIN "accel-stage"

#include "accelstage-private.h"

#include <string.h>

static void stop_on_thread (AccelStage *self);

static AccelMailbox *
stage_mailbox (AccelStage *stage)
{
  return accel_stage_get_private (stage)->mailbox;
}

/* the stage this thread works for now: CUDA errors name it. Returns the
 * name to give back to accel_stage_leave() */
const char *
accel_stage_enter (AccelStage *self)
{
  return accel_error_set_stage_name (accel_stage_get_private (self)->name);
}

void
accel_stage_leave (const char *previous)
{
  accel_error_set_stage_name (previous);
}

/* the stage takes no more frames: a source stops producing, and upstream
 * learns at its next push (or retry of what it parked here) that nothing
 * more is taken */
static void
take_no_more (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  priv->done = TRUE;
  accel_stage_buffer_wait_end (self);
  g_clear_pointer (&priv->source.produce, g_source_destroy);
  if (priv->mailbox)
    accel_mailbox_end (priv->mailbox);
  accel_stage_resume_producers (self);
}

/* the graph hears of @error (taken), then the stage takes no more frames:
 * in that order, so that a stage upstream that learns nothing more is
 * taken finds the graph failed already (an app source refused a push
 * "after end of stream" rather than "after the graph failed", at times).
 * A graph that drains on its failure has its consumers finish the frames
 * it handed them: stopped at once, they lost a varying number of them */
void
accel_stage_fail (AccelStage *self, GError *error)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  g_debug ("stage '%s' failed: %s", priv->name, error->message);
  g_atomic_int_set (&priv->failed, TRUE);
  if (priv->observer.error)
    priv->observer.error (self, error, priv->observer_data);
  take_no_more (self);
  g_error_free (error);
  /* a stage that ends a branch is counted failed, not ended too */
  if (g_atomic_int_get (&priv->graph_drains)
      && !accel_stage_ends_a_branch (self))
    accel_stage_send_eos_downstream (self);
}

static gboolean
same_worker (AccelStage *self, AccelStage *target)
{
  AccelStagePrivate *a = accel_stage_get_private (self);
  AccelStagePrivate *b = accel_stage_get_private (target);

  return a->worker == b->worker;
}

/* end of stream to every consumer */
void
accel_stage_send_eos_downstream (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  /* what is batched or parked reaches the consumers before the end */
  accel_stage_batch_flush (self);
  if (accel_stage_park_eos (self))
    return;
  for (guint o = 0; o < priv->n_out; o++)
    for (guint l = 0; l < priv->links[o]->len; l++)
      {
        AccelLink *link = &g_array_index (priv->links[o], AccelLink, l);
        accel_mailbox_push_eos (stage_mailbox (link->target), link->port);
        if (same_worker (self, link->target))
          accel_stage_drain (link->target);
      }
  /* a stage nothing takes from ends a branch, as a sink does: the graph
   * waits for its work (it was stopped with frames of its own queued) */
  if (priv->n_out > 0 && accel_stage_ends_a_branch (self))
    accel_stage_end_branch (self);
}

/* tells every consumer that frame @sequence will not come: a join then
 * lets its other inputs' parts of it go at once (accelmailbox.c). Only a
 * transform's sequences are its consumers' (a source may number its
 * buffers itself). What is batched goes first; a stage whose outputs are
 * parked, or whose batch's flush has pushes yet to make, says nothing, as
 * the word would overtake them: the join drops those parts once a later
 * frame comes, as it always did */
void
accel_stage_send_gap_downstream (AccelStage *self, guint64 sequence)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  if (priv->n_out == 0 || priv->n_in == 0
      || accel_stage_batch_is_flushing (self))
    return;
  accel_stage_batch_flush (self);
  if (accel_stage_is_parked (self))
    return;
  for (guint o = 0; o < priv->n_out; o++)
    for (guint l = 0; l < priv->links[o]->len; l++)
      {
        AccelLink *link = &g_array_index (priv->links[o], AccelLink, l);
        AccelStagePrivate *theirs = accel_stage_get_private (link->target);

        /* a sink of one input has no use for it */
        if (link->ended || (theirs->n_out == 0 && theirs->n_in == 1))
          continue;
        accel_mailbox_push_gap (
            stage_mailbox (link->target), link->port, sequence);
        if (same_worker (self, link->target))
          accel_stage_drain (link->target);
      }
}

/* whether @error gives up a frame (or the stream's end) as the graph
 * ends: a collective whose peers ended their streams before it, each rank
 * interrupted where it was. Said on stderr; no fault */
static gboolean
given_up_as_graph_ends (AccelStage *self, const GError *error)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  if (!g_error_matches (error, ACCEL_ERROR, ACCEL_ERROR_STREAM_ENDS)
      || !g_atomic_int_get (&priv->graph_ending))
    return FALSE;
  g_message ("stage '%s' ends its stream: %s", priv->name, error->message);
  return TRUE;
}

/* the stage's stream ends: its own eos(), then its role's end */
void
accel_stage_handle_eos (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  AccelStageClass *klass = ACCEL_STAGE_GET_CLASS (self);
  GError *error = NULL;

  accel_stage_batch_flush (self);
  take_no_more (self);
  if (klass->eos && !klass->eos (self, &error))
    {
      if (!given_up_as_graph_ends (self, error))
        {
          accel_stage_fail (self, error);
          return;
        }
      g_error_free (error);
    }
  priv->role->end (self);
}

/* hands @buffer (taken) to @link's consumer: by a call on this thread (or
 * parked until it has room), else through its mailbox; a consumer that
 * takes no more is remembered */
AccelMailboxPush
accel_stage_push_link (AccelStage *self, AccelLink *link, AccelBuffer *buffer)
{
  AccelMailboxPush res;

  res = same_worker (self, link->target)
            ? accel_stage_push_local (self, link, buffer)
            : accel_mailbox_push_buffer (
                stage_mailbox (link->target), link->port, buffer);
  if (res == ACCEL_MAILBOX_ENDED)
    {
      g_debug ("stage '%s': '%s' takes no more", accel_stage_get_name (self),
          accel_stage_get_name (link->target));
      link->ended = TRUE;
    }
  return res;
}

/* hands each output to every linked input whose stream goes on: DONE, or
 * EOS when every consumer has ended its stream, or CLOSED when the graph
 * stops. A stage with no consumer at all goes on: its frames may be work
 * of their own (an nccl.send's to its peer: it ended after one frame, and
 * its peer's stream with it). Outputs of batched work wait for the batch
 * to run unless their consumer's work joins it */
AccelFrameResult
accel_stage_push_outputs (AccelStage *self, AccelFrame *frame)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  gboolean wanted = FALSE, linked = FALSE;

  for (guint o = 0; o < frame->n_outputs; o++)
    for (guint l = 0; l < priv->links[o]->len; l++)
      {
        AccelLink *link = &g_array_index (priv->links[o], AccelLink, l);
        AccelBuffer *ref;
        AccelMailboxPush res;

        linked = TRUE;
        /* counted as the first it refused: a consumer that ended (on-fault
         * stop) drops every frame it never took, not only that one */
        if (link->ended)
          {
            accel_mailbox_note_dropped (stage_mailbox (link->target));
            continue;
          }
        ref = accel_buffer_ref (frame->outputs[o]);
        if (priv->frame_deferred
            && !accel_stage_batch_holds (self, link->target))
          {
            accel_stage_batch_push (self, link, ref, frame->sequence);
            wanted = TRUE;
            continue;
          }
        res = accel_stage_push_link (self, link, ref);
        if (res == ACCEL_MAILBOX_CLOSED)
          return ACCEL_FRAME_CLOSED;
        wanted |= res != ACCEL_MAILBOX_ENDED;
      }
  /* as GStreamer's upstream EOS: no one downstream takes more */
  return wanted || !linked ? ACCEL_FRAME_DONE : ACCEL_FRAME_EOS;
}

void
accel_stage_clear_frame (AccelFrame *frame)
{
  for (guint i = 0; i < frame->n_inputs; i++)
    g_clear_pointer (&frame->inputs[i], accel_buffer_unref);
  for (guint o = 0; o < frame->n_outputs; o++)
    g_clear_pointer (&frame->outputs[o], accel_buffer_unref);
}

/* a stage in a segment works on its segment's stream: stream order is
 * what orders the segment's stages */
static AccelStream *
segment_stream (AccelStage *self)
{
  AccelStage *segment = accel_stage_get_private (self)->segment;
  AccelStream *stream = segment && segment != self
                            ? accel_stage_get_private (segment)->stream
                            : NULL;

  return stream ? accel_stream_ref (stream) : NULL;
}

/* whether the producer of input @port works on @stream, on this thread
 * (the only stages whose stream may be read here) */
static gboolean
producer_on (AccelStage *self, guint port, AccelStream *stream)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  AccelStage *producer = priv->producers[port];
  AccelStagePrivate *theirs
      = producer ? accel_stage_get_private (producer) : NULL;

  return theirs && theirs->worker == priv->worker && theirs->stream == stream;
}

/* whether every consumer of @port works on @stream, on this thread */
static gboolean
consumers_on (AccelStage *self, guint port, AccelStream *stream)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  for (guint l = 0; l < priv->links[port]->len; l++)
    {
      AccelLink *link = &g_array_index (priv->links[port], AccelLink, l);
      AccelStagePrivate *target = accel_stage_get_private (link->target);

      if (target->worker != priv->worker || target->stream != stream)
        return FALSE;
    }
  return TRUE;
}

/* the fences of the frame's buffers: one event from the stage's ring. A
 * buffer that only ever meets this stream needs none: an input written on
 * it, an output read only on it (inside a segment) */
gboolean
accel_stage_release_frame (AccelStage *self, AccelFrame *frame, GError **error)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  AccelBuffer *reads[2 * ACCEL_MAX_PORTS], *writes[ACCEL_MAX_PORTS];
  guint n_reads = 0, n_writes = 0;
  AccelEvent **slot;
  gboolean ok = TRUE;

  if (!priv->one_stream && accel_stream_get_handle (frame->stream))
    {
      for (guint i = 0; i < frame->n_inputs; i++)
        if (!producer_on (self, i, frame->stream))
          reads[n_reads++] = frame->inputs[i];
      for (guint i = 0; i < priv->n_adopted; i++)
        reads[n_reads++] = priv->adopted[i];
      for (guint o = 0; o < frame->n_outputs; o++)
        if (!consumers_on (self, o, frame->stream))
          writes[n_writes++] = frame->outputs[o];
    }
  if (n_reads + n_writes > 0)
    {
      slot = &priv->events[priv->next_event++ % ACCEL_EVENT_RING];
      if (!*slot)
        *slot = accel_event_new (accel_stage_get_device (self), error);
      ok = *slot
           && accel_buffer_release_frame (
               reads, n_reads, writes, n_writes, frame->stream, *slot, error);
    }
  for (guint i = 0; i < priv->n_adopted; i++)
    g_clear_pointer (&priv->adopted[i], accel_buffer_unref);
  priv->n_adopted = 0;
  return ok;
}

/* what @vfunc (process or render) returned, checked: the mistakes of a
 * stage's author are said, not lost. A value that is no AccelFlow is a
 * programming error (a critical) and fails the frame; an error set with
 * a flow other than ACCEL_FLOW_ERROR is dropped, with a warning (it
 * leaked); an error not set with it is made */
AccelFlow
accel_stage_check_flow (
    AccelStage *self, const char *vfunc, AccelFlow flow, GError **error)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  if ((guint)flow > ACCEL_FLOW_ERROR)
    {
      g_critical ("stage '%s': %s () returned %d, which is no AccelFlow",
          priv->name, vfunc, (int)flow);
      g_clear_error (error);
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "%s () returned %d, which is no AccelFlow", vfunc, (int)flow);
      return ACCEL_FLOW_ERROR;
    }
  if (flow != ACCEL_FLOW_ERROR && error && *error)
    {
      g_warning ("stage '%s': %s () set an error but did not return "
                 "ACCEL_FLOW_ERROR; the error is dropped: %s",
          priv->name, vfunc, (*error)->message);
      g_clear_error (error);
    }
  if (flow == ACCEL_FLOW_ERROR && error && !*error)
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
        "%s () failed without saying why", vfunc);
  return flow;
}

/* one attempt at a frame: acquire, process, release, hand on; the hot path.
 * @inputs stay the caller's */
static AccelFrameResult
attempt_frame (AccelStage *self, AccelBuffer **inputs, guint64 sequence,
    gint64 t0, gint64 *t_done, GError **error)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  AccelStageClass *klass = ACCEL_STAGE_GET_CLASS (self);
  AccelBuffer *outputs[ACCEL_MAX_PORTS] = { NULL };
  AccelFrame frame = { 0 };
  AccelFlow flow = ACCEL_FLOW_ERROR;
  AccelFrameResult res = ACCEL_FRAME_DONE;
  gint64 t_work = t0;
  gint64 stood_then = accel_stood_still_total ();
  gint64 worked;

  frame.stream = priv->stream;
  frame.sequence = sequence;
  frame.pts = priv->n_in > 0 ? accel_buffer_get_pts (inputs[0]) : -1;
  frame.n_inputs = priv->n_in;
  frame.inputs = inputs;
  frame.n_outputs = priv->n_out;
  frame.outputs = outputs;
  priv->frame_worked = FALSE;

  /* the buffers first: a frame that waits for one has done nothing yet */
  for (guint o = 0; o < priv->n_out; o++)
    if (!(outputs[o] = accel_stage_acquire_output (self, o, sequence, error)))
      {
        if (*error)
          goto failed;
        for (guint p = 0; p < o; p++)
          g_clear_pointer (&outputs[p], accel_buffer_unref);
        return ACCEL_FRAME_WAITING;
      }
  /* the deadline is the stage's own time: a wait for a free buffer is
   * downstream's backpressure, whichever thread the stage has */
  if (priv->deadline_ms > 0 && priv->n_out > 0)
    t_work = g_get_monotonic_time ();
  priv->frame_waited_us = 0;
  for (guint i = 0; i < priv->n_in; i++)
    if (!accel_buffer_acquire_read (inputs[i], priv->stream, error))
      goto failed;
  for (guint o = 0; o < priv->n_out; o++)
    {
      accel_buffer_set_sequence (outputs[o], sequence);
      accel_buffer_set_pts (outputs[o], frame.pts);
      accel_buffer_set_duration (outputs[o],
          priv->n_in > 0 ? accel_buffer_get_duration (inputs[0]) : -1);
      if (!accel_buffer_acquire_write (outputs[o], priv->stream, error)
          || !accel_buffer_zero_once (outputs[o], priv->stream, error))
        goto failed;
    }

  priv->frame_deferred = accel_stage_batch_defer (self, &frame);
  if (priv->frame_deferred)
    {
      /* run, and released, with its batch */
      priv->frame_worked = TRUE;
      flow = ACCEL_FLOW_OK;
    }
  else
    {
      /* work batched before this goes first */
      accel_stage_batch_flush (self);
      /* the frame's own work, for the watchdog: the flush above pushes
       * to other threads, whose backpressure it is not */
      accel_stage_watch_work (self, sequence);
      /* an injected hang outlasts twice the deadline; deadlines stop at
       * G_MAXINT64 / 1000 ms, and twice that overflowed */
      if (!accel_fault_fire (priv->name, priv->stream, sequence,
              MIN (MAX (priv->deadline_ms, 500), G_MAXINT64 / 2000) * 2000,
              error))
        goto failed;
      priv->frame_worked = TRUE;
      ACCEL_NVTX_PUSH (priv->name, sequence);
      flow = klass->process (self, &frame, error);
      ACCEL_NVTX_POP ();
      flow = accel_stage_check_flow (self, "process", flow, error);
      /* fences even for a failed frame: its work may be queued */
      if (!accel_stage_release_frame (
              self, &frame, flow == ACCEL_FLOW_ERROR ? NULL : error)
          && flow != ACCEL_FLOW_ERROR)
        goto failed;
      accel_stage_unwatch_work (self);
    }
  if (flow == ACCEL_FLOW_ERROR)
    goto failed;
  /* what it waited for outside the graph is not the stage's time, nor
   * is a time the process stood still (Ctrl-Z) */
  worked = g_get_monotonic_time () - t_work - priv->frame_waited_us;
  if (priv->deadline_ms > 0 && worked > priv->deadline_ms * 1000)
    worked -= MIN (accel_stood_still_since (stood_then), worked);
  if (priv->deadline_ms > 0 && worked > priv->deadline_ms * 1000)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_DEADLINE,
          "frame %" G_GUINT64_FORMAT " took %" G_GINT64_FORMAT
          " ms, past the %" G_GINT64_FORMAT " ms deadline",
          sequence, worked / 1000, priv->deadline_ms);
      goto failed;
    }

  /* the stage's own time: handing on may wait for downstream */
  *t_done = g_get_monotonic_time ();
  if (flow == ACCEL_FLOW_EOS)
    res = ACCEL_FRAME_EOS;
  /* a source that skips yields its thread: it made no frame */
  else if (flow == ACCEL_FLOW_SKIP && priv->n_in == 0)
    res = ACCEL_FRAME_YIELDED;
  /* a transform's or a sink's frame that reaches no sink */
  else if (flow == ACCEL_FLOW_SKIP)
    {
      accel_stage_count_withheld (self, sequence);
      if (priv->n_out > 0)
        accel_stage_send_gap_downstream (self, sequence);
    }
  else if (flow == ACCEL_FLOW_OK)
    {
      accel_stage_note_origin (self, sequence, t0);
      /* a source's frame is counted before it is handed on: its consumers
       * could finish it before the count, and a scrape then saw a sink
       * ahead of its sources */
      if (priv->n_in == 0 && !accel_source_replays (self, sequence))
        accel_stage_record_frame (self, sequence, t0, *t_done);
      res = priv->role->hand_on (self, &frame, t0, error);
      if (res == ACCEL_FRAME_FAILED)
        goto failed;
      /* made, and refused by every consumer (each had ended its stream,
       * and counts it dropped): a frame of the stage's all the same, where
       * its producer's frames fell one short of what its consumers took,
       * skipped and dropped */
      if (res == ACCEL_FRAME_EOS && priv->n_in > 0)
        accel_stage_record_frame (self, sequence, t0, *t_done);
    }
  priv->frame_deferred = FALSE;

  for (guint o = 0; o < priv->n_out; o++)
    g_clear_pointer (&outputs[o], accel_buffer_unref);
  return res;

  /* ERRORS */
failed:
  {
    priv->frame_deferred = FALSE;
    accel_stage_unwatch_work (self);
    if (error && !*error)
      g_set_error (
          error, ACCEL_ERROR, ACCEL_ERROR_FAILED, "failed without saying why");
    for (guint o = 0; o < priv->n_out; o++)
      g_clear_pointer (&outputs[o], accel_buffer_unref);
    return ACCEL_FRAME_FAILED;
  }
}

/* the stage's work may differ from what was captured: new keys, and the
 * next frame runs with stream launches */
static void
forget_captures (AccelStagePrivate *priv)
{
  priv->capture_generation++;
  priv->capture_warm = FALSE;
}

void
accel_stage_forget_captures (AccelStage *self)
{
  forget_captures (accel_stage_get_private (self));
}

/* the cancellable current on the thread while the stage's start () runs */
static GCancellable *
start_cancellable_ref (AccelStagePrivate *priv)
{
  GCancellable *cancellable;

  g_mutex_lock (&priv->mailbox_lock);
  cancellable = g_object_ref (priv->start_cancellable);
  g_mutex_unlock (&priv->mailbox_lock);
  return cancellable;
}

/* a start () that waits through g_cancellable_get_current () (the world's
 * store does) gives up. Cancelled outside the lock: cancelling runs the
 * cancellable's handlers */
static void
cancel_start (AccelStagePrivate *priv)
{
  g_autoptr (GCancellable) cancellable = start_cancellable_ref (priv);

  g_cancellable_cancel (cancellable);
}

/* the class's start (), with the stage's start cancellable current on the
 * thread */
static gboolean
class_start (AccelStage *self, GError **error)
{
  AccelStageClass *klass = ACCEL_STAGE_GET_CLASS (self);
  g_autoptr (GCancellable) cancellable = NULL;
  gboolean ok;

  if (!klass->start)
    return TRUE;
  cancellable = start_cancellable_ref (accel_stage_get_private (self));
  g_cancellable_push_current (cancellable);
  ok = klass->start (self, error);
  g_cancellable_pop_current (cancellable);
  return ok;
}

/* new stream, handles and plans; state from the last snapshot */
static gboolean
stop_and_start (AccelStage *self, GError **error)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  AccelStageClass *klass = ACCEL_STAGE_GET_CLASS (self);
  AccelDevice *device = accel_stage_get_device (self);

  if (priv->stream && !accel_stream_synchronize (priv->stream, error))
    return FALSE;
  if (priv->started && klass->stop)
    klass->stop (self);
  priv->started = FALSE;
  g_clear_pointer (&priv->stream, accel_stream_unref);
  for (guint o = 0; o < priv->n_out; o++)
    accel_pool_trim (priv->pools[o]);

  priv->stream = segment_stream (self);
  if (!priv->stream)
    priv->stream = accel_stream_allocator_get (priv->streams, device, error);
  if (!priv->stream)
    return FALSE;
  if (!class_start (self, error))
    return FALSE;
  priv->started = TRUE;
  /* new handles and plans: graphs captured before may not replay */
  forget_captures (priv);
  if (priv->supervisor.snapshot && klass->restore
      && !klass->restore (self, priv->supervisor.snapshot, error))
    return FALSE;
  return TRUE;
}

/* stop_and_start (), told apart from the graph's stop and start: see
 * accel_stage_is_restarting () */
static gboolean
restart (AccelStage *self, GError **error)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  gboolean ok;

  priv->restarting = TRUE;
  ok = stop_and_start (self, error);
  priv->restarting = FALSE;
  return ok;
}

/* the first fault of the stage's run that it goes on past is said as it
 * comes (a run that restarts for a minute said nothing till its end); the
 * later ones are counted, and said with it at the end */
static void
say_first_fault (
    AccelStage *self, guint64 sequence, const GError *error, const char *then)
{
  g_autofree gchar *first = accel_stage_dup_first_fault (self);

  if (first)
    return;
  g_message ("stage '%s': frame %" G_GUINT64_FORMAT " failed (%s); %s; its "
             "later faults are counted",
      accel_stage_get_name (self), sequence, error->message, then);
}

/* answers a fault as the stage's supervisor decides: TRUE when the stage
 * goes on. Takes @error */
gboolean
accel_stage_handle_fault (AccelStage *self, GError *error, guint64 sequence)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  GError *restart_error = NULL;
  AccelSupervision decision;

  /* what was batched before the fault runs (or fails) first */
  accel_stage_batch_flush (self);
  /* the stream ends at that frame */
  if (given_up_as_graph_ends (self, error))
    {
      g_error_free (error);
      accel_stage_handle_eos (self);
      return FALSE;
    }
  /* a live source's frame made again that fails before its process ()
   * again is skipped, as under resume, without a restart: one for it
   * would be the frame's second, and it is skipped after it all the same
   * (the restart intensity was reached twice as fast) */
  if (accel_source_fails_again (self, sequence)
      && accel_stage_supervisor_strategy (&priv->supervisor, error)
             == ACCEL_SUPERVISION_RESTART)
    decision = ACCEL_SUPERVISION_RESUME;
  else
    decision = accel_stage_supervisor_decide (&priv->supervisor,
        accel_stage_get_n_processed (self) - accel_stage_get_n_lost (self),
        &error);
  switch (decision)
    {
    case ACCEL_SUPERVISION_RESUME:
      if (accel_source_make_again (self, sequence, error))
        {
          g_error_free (error);
          return TRUE;
        }
      say_first_fault (self, sequence, error, "the frame is skipped");
      accel_stage_count_fault (self, sequence, FALSE, error);
      g_error_free (error);
      /* a frame made again to catch up went on before */
      if (!accel_source_replays (self, sequence))
        accel_stage_send_gap_downstream (self, sequence);
      return TRUE;
    case ACCEL_SUPERVISION_RESTART:
      say_first_fault (self, sequence, error, "the stage restarts");
      if (!restart (self, &restart_error))
        {
          g_prefix_error (
              &restart_error, "restart after '%s' failed: ", error->message);
          g_error_free (error);
          accel_stage_fail (self, restart_error);
          return FALSE;
        }
      /* a stateful source makes the frame again, from its restored state
       * caught up, and a live one that had taken nothing makes it again:
       * nothing is skipped */
      if (accel_source_catch_up (self, sequence)
          || accel_source_make_again (self, sequence, error))
        accel_stage_count_restart (self, error);
      else
        {
          accel_stage_count_fault (self, sequence, TRUE, error);
          accel_stage_send_gap_downstream (self, sequence);
        }
      g_error_free (error);
      return TRUE;
    case ACCEL_SUPERVISION_STOP:
      /* the frame is skipped as by resume, and counted so: a graph that
       * ends normally after it still lacks that frame */
      say_first_fault (self, sequence, error, "the stage's stream ends");
      accel_stage_count_fault (self, sequence, FALSE, error);
      g_error_free (error);
      accel_stage_handle_eos (self);
      return FALSE;
    default:
      accel_stage_fail (self, error);
      return FALSE;
    }
}

static gboolean run_frame (AccelStage *self, AccelBuffer **inputs);
static gboolean run_numbered_frame (
    AccelStage *self, AccelBuffer **inputs, guint64 sequence, gint64 t0);

/* runs a frame under supervision; takes @inputs. FALSE: no more frames.
 * The outermost frame on a thread runs the work batched meanwhile */
gboolean
accel_stage_run_frame (AccelStage *self, AccelBuffer **inputs)
{
  AccelStageBatch *batch = accel_stage_batch_enter (self);
  gboolean more = run_frame (self, inputs);

  accel_stage_batch_leave (self, batch);
  return more;
}

/* runs again, as accel_stage_run_frame () does, a frame of @sequence
 * begun at @t0 that waited for a free output buffer
 * (accelstagebufferwait.c); takes @inputs */
gboolean
accel_stage_run_waiting_frame (
    AccelStage *self, AccelBuffer **inputs, guint64 sequence, gint64 t0)
{
  AccelStageBatch *batch = accel_stage_batch_enter (self);
  gboolean more = run_numbered_frame (self, inputs, sequence, t0);

  accel_stage_batch_leave (self, batch);
  return more;
}

static gboolean
run_frame (AccelStage *self, AccelBuffer **inputs)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  guint64 sequence = 0;

  switch (priv->role->next_sequence (self, inputs, &sequence))
    {
    case ACCEL_SEQUENCE_END:
      accel_stage_handle_eos (self);
      return FALSE;
    case ACCEL_SEQUENCE_DONE:
      for (guint i = 0; i < priv->n_in; i++)
        accel_buffer_unref (inputs[i]);
      accel_stage_count_withheld (self, sequence);
      return TRUE;
    default:
      break;
    }
  return run_numbered_frame (self, inputs, sequence, g_get_monotonic_time ());
}

static gboolean
run_numbered_frame (
    AccelStage *self, AccelBuffer **inputs, guint64 sequence, gint64 t0)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  GError *error = NULL;
  gint64 t_done = t0;
  AccelFrameResult res;

  res = attempt_frame (self, inputs, sequence, t0, &t_done, &error);
  if (res == ACCEL_FRAME_FAILED
      && g_error_matches (error, ACCEL_ERROR, ACCEL_ERROR_OUT_OF_MEMORY))
    {
      /* out of memory: give back the pools' slack and try once more, said
       * as a frame made again is (a retry that worked was not said) */
      for (guint o = 0; o < priv->n_out; o++)
        accel_pool_trim (priv->pools[o]);
      g_message ("stage '%s': frame %" G_GUINT64_FORMAT " ran out of memory "
                 "(%s); its pools' free buffers are given back and it is "
                 "made again",
          priv->name, sequence, error->message);
      accel_stage_count_retry (self, error);
      g_clear_error (&error);
      res = attempt_frame (self, inputs, sequence, t0, &t_done, &error);
    }
  if (res == ACCEL_FRAME_WAITING)
    {
      accel_stage_wait_for_buffer (self, inputs, sequence, t0);
      return TRUE;
    }
  /* the frame's wait, if any, is over: the next one's starts anew */
  priv->buffer_wait.since = 0;
  for (guint i = 0; i < priv->n_in; i++)
    accel_buffer_unref (inputs[i]);

  switch (res)
    {
    case ACCEL_FRAME_DONE:
      /* a source's frame was counted as it was handed on */
      if (priv->n_in > 0)
        accel_stage_record_frame (self, sequence, t0, t_done);
      if (!priv->role->frame_done (self, sequence, &error))
        return accel_stage_handle_fault (self, error, sequence);
      accel_stage_supervisor_frame_done (self, sequence);
      return TRUE;
    case ACCEL_FRAME_PENDING:
      return TRUE;
    case ACCEL_FRAME_YIELDED:
      accel_source_give_back (self, sequence);
      return TRUE;
    case ACCEL_FRAME_EOS:
      accel_stage_handle_eos (self);
      return FALSE;
    case ACCEL_FRAME_CLOSED:
      return FALSE;
    case ACCEL_FRAME_FAILED:
    default:
      return accel_stage_handle_fault (self, error, sequence);
    }
}

/* a control message, in the order it was posted; @msg stays the
 * caller's */
void
accel_stage_handle_control (AccelStage *self, AccelMessage *msg)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  AccelStageClass *klass = ACCEL_STAGE_GET_CLASS (self);

  switch (msg->type)
    {
    case ACCEL_MESSAGE_PARAM:
      accel_source_set_param (self, msg->name, &msg->value);
      break;
    case ACCEL_MESSAGE_FLUSH:
      /* first: what came before the flush applies before it */
      accel_stage_buffer_wait_flush (self);
      accel_mailbox_drain (priv->mailbox);
      accel_stage_resume_producers (self);
      accel_stage_park_flush (self);
      if (klass->flush)
        klass->flush (self);
      forget_captures (priv);
      for (guint o = 0; o < priv->n_out; o++)
        for (guint l = 0; l < priv->links[o]->len; l++)
          accel_stage_flush_async (
              g_array_index (priv->links[o], AccelLink, l).target);
      break;
    case ACCEL_MESSAGE_EOS:
      /* a source ends its stream early; others wait for theirs */
      if (priv->n_in == 0 && !priv->done)
        accel_stage_handle_eos (self);
      break;
    case ACCEL_MESSAGE_STOP:
      stop_on_thread (self);
      break;
    case ACCEL_MESSAGE_STEP:
      /* a step hands one frame on: those made again to catch up after a
       * restart hand none */
      if (priv->n_in == 0 && !priv->done)
        {
          priv->busy = TRUE;
          accel_source_step (self);
          priv->busy = FALSE;
        }
      break;
    }
}

/* runs the frames waiting in the mailbox, then retries the producers on
 * this thread that wait for the room it made; re-entry (a consumer run by
 * this stage's own frame) does nothing */
void
accel_stage_drain (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  AccelBuffer *inputs[ACCEL_MAX_PORTS];
  const char *previous;
  AccelMailboxPop popped;
  guint64 gap;

  if (priv->busy || priv->stopped)
    return;
  priv->busy = TRUE;
  previous = accel_stage_enter (self);
  /* a message posted before a frame arrived goes first: the mailbox's
   * dispatch handles it, then the frames */
  while (!priv->sink.have_pending && !accel_mailbox_has_control (priv->mailbox)
         && (popped = accel_mailbox_pop_frame (priv->mailbox, inputs, &gap)))
    {
      if (popped == ACCEL_MAILBOX_POP_EOS)
        {
          accel_stage_handle_eos (self);
          break;
        }
      if (popped == ACCEL_MAILBOX_POP_GAP)
        {
          if (!priv->done)
            accel_stage_send_gap_downstream (self, gap);
          continue;
        }
      if (priv->done)
        {
          /* failed: drain so upstream is not stuck behind us */
          for (guint i = 0; i < priv->n_in; i++)
            accel_buffer_unref (inputs[i]);
          continue;
        }
      if (!accel_stage_run_frame (self, inputs))
        break;
    }
  accel_stage_resume_producers (self);
  accel_stage_leave (previous);
  priv->busy = FALSE;
}

static gboolean
mailbox_dispatch (gpointer user_data)
{
  AccelStage *self = user_data;
  AccelStagePrivate *priv = accel_stage_get_private (self);
  AccelMessage *msg;

  /* mid-frame: an end of stream handled now would overtake the frame.
   * Nothing nests the main loop (a full consumer on this thread parks the
   * buffer instead), so this only guards */
  if (priv->busy)
    return G_SOURCE_CONTINUE;
  /* a parameter or a flush applies after the frames batched before it */
  if (!priv->stopped && accel_mailbox_has_control (priv->mailbox))
    accel_stage_batch_flush (self);
  while (!priv->stopped && (msg = accel_mailbox_pop_control (priv->mailbox)))
    {
      const char *previous = accel_stage_enter (self);
      /* a frame that waits for a buffer was taken before it */
      if (!accel_stage_buffer_wait_defers (self, msg))
        {
          accel_stage_handle_control (self, msg);
          accel_message_free (msg);
        }
      accel_stage_leave (previous);
    }
  if (priv->stopped)
    {
      priv->mailbox_source = NULL;
      return G_SOURCE_REMOVE;
    }
  accel_stage_drain (self);
  return G_SOURCE_CONTINUE;
}

/* whether the stage or a consumer of it has its work captured: its pools
 * then cycle in step with the frames */
static gboolean
feeds_capture (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  if (priv->capture)
    return TRUE;
  for (guint o = 0; o < priv->n_out; o++)
    for (guint l = 0; l < priv->links[o]->len; l++)
      if (accel_stage_get_private (
              g_array_index (priv->links[o], AccelLink, l).target)
              ->capture)
        return TRUE;
  return FALSE;
}

/* output @port's buffers wait in its consumers' mailboxes: by default its
 * pool holds as many as the deepest of them (or its own mailbox, when that
 * is deeper), and 3 more (the frame a consumer works on, one parked or
 * waiting for room, the one being made). Sized from the stage's own
 * mailbox alone, a producer whose consumer queues deeper ran out of
 * buffers, and on a shared thread waited for itself until its pool timed
 * out */
static guint
pool_size_of (AccelStagePrivate *priv, guint port)
{
  guint deepest = priv->mailbox_size;

  if (priv->pool_size)
    return priv->pool_size;
  for (guint l = 0; l < priv->links[port]->len; l++)
    deepest = MAX (
        deepest, accel_stage_get_private (
                     g_array_index (priv->links[port], AccelLink, l).target)
                     ->mailbox_size);
  return deepest + 3;
}

static gboolean
start_on_thread (AccelStage *self, GError **error)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  AccelDevice *device = accel_stage_get_device (self);

  if (!accel_device_make_current (device, error))
    return FALSE;
  priv->stream = segment_stream (self);
  if (!priv->stream)
    priv->stream = accel_stream_allocator_get (priv->streams, device, error);
  if (!priv->stream)
    return FALSE;
  priv->pools_in_step = feeds_capture (self);
  for (guint o = 0; o < priv->n_out; o++)
    {
      priv->pools[o] = accel_pool_new (
          device, &priv->out_types[o], pool_size_of (priv, o));
      accel_pool_set_timeout (priv->pools[o],
          priv->pool_timeout_ms < 0 ? ACCEL_POOL_WAIT_FOREVER
                                    : priv->pool_timeout_ms * 1000);
    }
  if (!class_start (self, error))
    return FALSE;
  priv->started = TRUE;
  return accel_stage_supervisor_restore_checkpoint (self, error);
}

/* the stage stops with messages it had not applied, deferred behind a
 * frame that waited for a buffer, then in its mailbox: a parameter
 * accepted (accel_stage_set_param_async () returned TRUE) is set all the
 * same, for the next start, whichever of the stop and the message came
 * first on the thread; ends and steps go with the run */
static void
set_params_left (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  AccelMessage *msg;

  while (
      (msg = accel_stage_buffer_wait_pop_deferred (self))
      || (priv->mailbox && (msg = accel_mailbox_pop_control (priv->mailbox))))
    {
      if (msg->type == ACCEL_MESSAGE_PARAM)
        g_object_set_property (G_OBJECT (self), msg->name, &msg->value);
      accel_message_free (msg);
    }
}

static void
stop_on_thread (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  AccelStageClass *klass = ACCEL_STAGE_GET_CLASS (self);
  const char *previous;

  if (priv->stopped)
    return;
  priv->stopped = TRUE;
  previous = accel_stage_enter (self);
  g_clear_pointer (&priv->source.produce, g_source_destroy);
  if (priv->mailbox_source)
    g_source_destroy (priv->mailbox_source);
  /* nothing may still run on the GPU when buffers go back */
  if (priv->stream)
    {
      accel_device_make_current (accel_stage_get_device (self), NULL);
      accel_stream_synchronize (priv->stream, NULL);
    }
  if (priv->role && priv->role->stop)
    priv->role->stop (self);
  accel_source_settle_params (self);
  if (priv->started && klass->stop)
    klass->stop (self);
  priv->started = FALSE;
  accel_stage_batch_free (self);
  accel_stage_park_stop (self);
  accel_stage_buffer_wait_stop (self);
  set_params_left (self);
  /* the graph's metrics read the pools from other threads */
  g_mutex_lock (&priv->stats_lock);
  for (guint o = 0; o < priv->n_out; o++)
    g_clear_object (&priv->pools[o]);
  g_mutex_unlock (&priv->stats_lock);
  for (guint e = 0; e < ACCEL_EVENT_RING; e++)
    g_clear_pointer (&priv->events[e], accel_event_unref);
  g_clear_pointer (&priv->stream, accel_stream_unref);
  accel_stage_leave (previous);
}

static gboolean
start_call (gpointer data)
{
  AccelStage *self = data;
  AccelStagePrivate *priv = accel_stage_get_private (self);
  const char *previous = accel_stage_enter (self);

  if (!start_on_thread (self, &priv->start_error))
    stop_on_thread (self);
  accel_stage_leave (previous);
  return G_SOURCE_REMOVE;
}

static gboolean
stop_call (gpointer data)
{
  stop_on_thread (data);
  return G_SOURCE_REMOVE;
}

/* attaches the stage to @worker's context and has its start() run there;
 * accel_stage_start_end () waits for it */
void
accel_stage_start_begin (
    AccelStage *stage, AccelWorker *worker, AccelStreamAllocator *streams)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_return_if_fail (priv->worker == NULL);

  priv->worker = accel_worker_ref (worker);
  accel_worker_count_stage (worker, 1);
  priv->context = accel_worker_get_context (worker);
  g_mutex_lock (&priv->mailbox_lock);
  priv->mailbox
      = accel_mailbox_new (priv->n_in, priv->mailbox_size, priv->context);
  g_mutex_unlock (&priv->mailbox_lock);
  priv->streams = g_object_ref (streams);
  priv->role = priv->n_in == 0    ? &accel_source_role
               : priv->n_out == 0 ? &accel_sink_role
                                  : &accel_transform_role;
  priv->done = FALSE;
  priv->stopped = FALSE;
  priv->busy = FALSE;
  priv->capture_warm = FALSE;
  priv->source.next_sequence = priv->source.start_sequence;
  priv->source.last_done = -1;
  /* a run's catch-up and snapshots are its own: the next start's state
   * is its start's, or the checkpoint it restores */
  priv->source.replay_until = 0;
  priv->source.caught_up = FALSE;
  accel_source_clear_params (&priv->source);
  g_clear_pointer (&priv->supervisor.snapshot, g_bytes_unref);
  for (guint o = 0; o < priv->n_out; o++)
    for (guint l = 0; l < priv->links[o]->len; l++)
      g_array_index (priv->links[o], AccelLink, l).ended = FALSE;
  g_clear_error (&priv->start_error);

  priv->mailbox_source = accel_mailbox_source_new (priv->mailbox);
  g_source_set_callback (priv->mailbox_source, mailbox_dispatch, stage, NULL);
  g_source_attach (priv->mailbox_source, priv->context);
  g_source_unref (priv->mailbox_source);

  priv->start_call = accel_worker_call_begin (worker, start_call, stage);
}

/* waits for the start() that accel_stage_start_begin () asked for */
gboolean
accel_stage_start_end (AccelStage *stage, GError **error)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  if (!priv->start_call)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "stage '%s' could not start: it was not asked to", priv->name);
      return FALSE;
    }
  accel_worker_call_end (g_steal_pointer (&priv->start_call));
  if (priv->start_error)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&priv->start_error),
          "stage '%s' could not start: ", priv->name);
      accel_stage_join (stage);
      return FALSE;
    }
  return TRUE;
}

/* attaches the stage to @worker's context and runs its start() there */
gboolean
accel_stage_start (AccelStage *stage, AccelWorker *worker,
    AccelStreamAllocator *streams, GError **error)
{
  accel_stage_start_begin (stage, worker, streams);
  return accel_stage_start_end (stage, error);
}

/* sources begin producing; called once every stage has started */
void
accel_stage_begin (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  if (priv->role->begin)
    priv->role->begin (stage);
}

/* the graph was stopped while @stage may be prepared or in its start ():
 * what it waits for there (a GStreamer preroll, a FIFO's reader) it stops
 * waiting for, as accel_stage_is_interrupted () now says; or the graph
 * starts again (@interrupted FALSE). MT safe */
void
accel_stage_interrupt_start (AccelStage *stage, gboolean interrupted)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_atomic_int_set (&priv->start_interrupted, interrupted);
  g_mutex_lock (&priv->mailbox_lock);
  /* a cancelled one stays so: each start gets a fresh one */
  if (!interrupted && g_cancellable_is_cancelled (priv->start_cancellable))
    {
      g_object_unref (priv->start_cancellable);
      priv->start_cancellable = g_cancellable_new ();
    }
  if (interrupted && priv->mailbox)
    accel_mailbox_close (priv->mailbox);
  g_mutex_unlock (&priv->mailbox_lock);
  if (interrupted)
    cancel_start (priv);
}

/* stops accepting buffers, wakes every waiter and asks the stage to stop */
void
accel_stage_close (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  if (!priv->mailbox)
    return;
  accel_mailbox_close (priv->mailbox);
  cancel_start (priv);
  for (guint o = 0; o < priv->n_out; o++)
    if (priv->pools[o])
      accel_pool_set_flushing (priv->pools[o], TRUE);
  accel_mailbox_post (priv->mailbox, accel_message_new (ACCEL_MESSAGE_STOP));
}

/* waits until the stage has stopped on its thread; then frees its parts */
void
accel_stage_join (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  if (!priv->worker)
    return;
  accel_worker_call (priv->worker, stop_call, stage);
  g_mutex_lock (&priv->mailbox_lock);
  /* the run's count outlives its mailbox: reports come after the stop */
  priv->n_dropped_joined = accel_mailbox_get_n_dropped (priv->mailbox);
  priv->max_queued_joined = accel_mailbox_get_max_queued (priv->mailbox);
  g_clear_pointer (&priv->mailbox, accel_mailbox_free);
  g_mutex_unlock (&priv->mailbox_lock);
  priv->mailbox_source = NULL;
  priv->context = NULL;
  accel_worker_count_stage (priv->worker, -1);
  g_clear_pointer (&priv->worker, accel_worker_unref);
  g_clear_object (&priv->streams);
  g_clear_error (&priv->start_error);
}
