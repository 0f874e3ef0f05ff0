/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: a frame that waits for a free output buffer without holding its
 * thread. A stage alone on its thread waits in the pool. On a thread that
 * runs other stages that wait would hold up the stages that give buffers
 * back: a join keeps a stage's last buffer until a frame from a stage on
 * the same thread arrives, say, and the thread waited for itself until the
 * pool timed out, or for good. So the frame keeps its inputs here and the
 * thread goes back to its main loop; the stage takes no other frame (its
 * mailbox is blocked, a source stops producing) until the pool frees a
 * buffer, or its timeout passes and the frame fails as the pool's own wait
 * would have */
#define G_LOG_DOMAIN "accel-stage"

#include "accelstage-private.h"

static gboolean wake_dispatch (gpointer user_data);

/* ready at its ready time alone: the pool sets it */
static gboolean
wake_source_dispatch (GSource *source, GSourceFunc callback, gpointer data)
{
  return callback (data);
}

static GSourceFuncs wake_source_funcs = {
  .dispatch = wake_source_dispatch,
};

/**
 * accel_stage_acquire_output:
 * @self: a stage, mid-frame
 * @port: an output port
 * @sequence: the frame's sequence
 * @error: return location for a #GError, not %NULL
 *
 * Returns: (transfer full): a buffer of @port's pool; or %NULL with @error
 *   set; or %NULL with @error unset when the frame is to wait for a free
 *   buffer (accel_stage_wait_for_buffer ()). Stage thread.
 */
AccelBuffer *
accel_stage_acquire_output (
    AccelStage *self, guint port, guint64 sequence, GError **error)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  AccelBufferWait *wait = &priv->buffer_wait;
  AccelBuffer *buffer;

  if (!accel_worker_is_shared (priv->worker))
    return priv->pools_in_step
               ? accel_pool_acquire_in_step (priv->pools[port], sequence, error)
               : accel_pool_acquire (priv->pools[port], error);
  if (!wait->wake)
    {
      wait->wake = g_source_new (&wake_source_funcs, sizeof (GSource));
      g_source_set_static_name (wait->wake, "accel-buffer-wait");
      g_source_set_callback (wait->wake, wake_dispatch, self, NULL);
      g_source_set_ready_time (wait->wake, -1);
      g_source_attach (wait->wake, priv->context);
    }
  /* since stays until the frame is over (accelstageloop.c): the timeout
   * counts from its first wait, whichever output that was on */
  buffer = accel_pool_acquire_or_wake (priv->pools[port], priv->pools_in_step,
      sequence, wait->wake, &wait->since, error);
  if (!buffer && !*error)
    wait->port = port;
  return buffer;
}

/**
 * accel_stage_wait_for_buffer:
 * @self: a stage whose frame found no free output buffer
 * @inputs: (transfer full): the frame's inputs
 * @sequence: the frame's sequence
 * @t0: when the frame began
 *
 * Keeps the frame until the pool wakes the stage; meanwhile the stage
 * takes no other frame. Stage thread.
 */
void
accel_stage_wait_for_buffer (
    AccelStage *self, AccelBuffer **inputs, guint64 sequence, gint64 t0)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  AccelBufferWait *wait = &priv->buffer_wait;

  ACCEL_TRACE ("stage '%s' waits for a free buffer of its output %u and "
               "takes no frame meanwhile; its thread runs on",
      priv->name, wait->port);
  wait->active = TRUE;
  wait->sequence = sequence;
  wait->t0 = t0;
  for (guint i = 0; i < priv->n_in; i++)
    wait->inputs[i] = inputs[i];
  accel_stage_update_blocked (self);
}

/* whether @self keeps a frame that waits for a free output buffer; stage
 * thread */
gboolean
accel_stage_is_waiting_for_buffer (AccelStage *self)
{
  return accel_stage_get_private (self)->buffer_wait.active;
}

/* the frame runs, or is dropped: the stage takes frames again (a frame
 * that parks its outputs or waits again blocks its mailbox anew) */
static void
end_wait (AccelStage *self)
{
  accel_stage_get_private (self)->buffer_wait.active = FALSE;
  accel_stage_update_blocked (self);
}

static void
drop_frame (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  AccelBufferWait *wait = &priv->buffer_wait;

  for (guint i = 0; i < priv->n_in; i++)
    g_clear_pointer (&wait->inputs[i], accel_buffer_unref);
  wait->since = 0;
  end_wait (self);
}

/* the messages that came while the frame waited, in order, until one
 * (a step) makes a frame wait again */
static void
apply_deferred (AccelStage *self)
{
  AccelBufferWait *wait = &accel_stage_get_private (self)->buffer_wait;
  AccelMessage *msg;

  while (!wait->active && (msg = g_queue_pop_head (&wait->deferred)))
    {
      accel_stage_handle_control (self, msg);
      accel_message_free (msg);
    }
}

/* the frame is over: the stage goes on as it would have after it, with
 * the messages that came meanwhile, then its frames (a source produces) */
static void
go_on (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  apply_deferred (self);
  if (priv->buffer_wait.active || priv->stopped)
    return;
  if (priv->n_in > 0)
    accel_stage_drain (self);
  else
    accel_stage_produce_again (self);
}

/* the pool may have a buffer, or its timeout passed: the frame runs again
 * (and fails there if the timeout passed with none) */
static gboolean
wake_dispatch (gpointer user_data)
{
  AccelStage *self = user_data;
  AccelStagePrivate *priv = accel_stage_get_private (self);
  AccelBufferWait *wait = &priv->buffer_wait;
  AccelBuffer *inputs[ACCEL_MAX_PORTS];
  const char *previous;

  /* mid-frame (nothing nests the main loop, so this only guards): the
   * wake stays ready for the next iteration */
  if (priv->busy)
    return G_SOURCE_CONTINUE;
  g_source_set_ready_time (wait->wake, -1);
  if (!wait->active || priv->stopped)
    return G_SOURCE_CONTINUE;
  previous = accel_stage_enter (self);
  for (guint i = 0; i < priv->n_in; i++)
    inputs[i] = g_steal_pointer (&wait->inputs[i]);
  end_wait (self);
  /* a stage that takes no more drops its waiting frame then */
  g_assert (!priv->done);
  priv->busy = TRUE;
  accel_stage_run_waiting_frame (self, inputs, wait->sequence, wait->t0);
  priv->busy = FALSE;
  if (!wait->active)
    go_on (self);
  accel_stage_leave (previous);
  return G_SOURCE_CONTINUE;
}

/**
 * accel_stage_buffer_wait_defers:
 * @self: a stage
 * @msg: (transfer full): a control message for it, taken when deferred
 *
 * A parameter, a source's end of stream or a step that comes while a frame
 * waits for a buffer applies after that frame, which was taken before it;
 * a flush or a stop cuts through.
 *
 * Returns: whether @msg was taken, to apply once the frame is over. Stage
 *   thread.
 */
gboolean
accel_stage_buffer_wait_defers (AccelStage *self, AccelMessage *msg)
{
  AccelBufferWait *wait = &accel_stage_get_private (self)->buffer_wait;

  if (!wait->active || msg->type == ACCEL_MESSAGE_FLUSH
      || msg->type == ACCEL_MESSAGE_STOP)
    return FALSE;
  g_queue_push_tail (&wait->deferred, msg);
  return TRUE;
}

/* the stage takes no more frames (its stream ended or it failed, in graph
 * mode through another stage's batch): a frame that waits goes nowhere,
 * and is counted as withheld before the end goes downstream */
void
accel_stage_buffer_wait_end (AccelStage *self)
{
  if (!accel_stage_get_private (self)->buffer_wait.active)
    return;
  drop_frame (self);
  accel_stage_count_withheld (
      self, accel_stage_get_private (self)->buffer_wait.sequence);
}

/* a flush drops the frame that waits; what came before the flush applies
 * first, then the flush; a source produces again */
void
accel_stage_buffer_wait_flush (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  if (!priv->buffer_wait.active)
    return;
  /* a step that came before the flush makes a frame that the flush drops
   * too, as it would have been in flight */
  do
    {
      drop_frame (self);
      apply_deferred (self);
    }
  while (priv->buffer_wait.active);
  accel_stage_produce_again (self);
}

/* the oldest message deferred behind a frame that waited, or NULL: the
 * stage stops, and sets the parameters among them (accelstageloop.c) */
AccelMessage *
accel_stage_buffer_wait_pop_deferred (AccelStage *self)
{
  return g_queue_pop_head (
      &accel_stage_get_private (self)->buffer_wait.deferred);
}

/* the stage stops: the frame that waits is dropped with the graph, and the
 * pool wakes no one */
void
accel_stage_buffer_wait_stop (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  AccelBufferWait *wait = &priv->buffer_wait;

  if (wait->active)
    drop_frame (self);
  if (!wait->wake)
    return;
  for (guint o = 0; o < priv->n_out; o++)
    if (priv->pools[o])
      accel_pool_forget_wake (priv->pools[o], wait->wake);
  g_source_destroy (wait->wake);
  g_clear_pointer (&wait->wake, g_source_unref);
}
