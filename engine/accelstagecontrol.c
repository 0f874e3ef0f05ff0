/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: what other threads (and a stage in its process()) ask of a
 * running stage: parameter changes between frames, flush, end of stream,
 * whether to yield, buffers taken in from outside; each becomes a message
 * in the stage's mailbox or a step of its current frame */
#define G_LOG_DOMAIN "accel-stage"

#include "accelstage-private.h"

#include <math.h>

/**
 * accel_stage_adopt_input:
 * @stage: a stage in its process()
 * @buffer: a buffer from outside the graph (an application pushed it)
 * @error: return location for a #GError, or %NULL
 *
 * Reads @buffer in this frame as if it were one of its inputs: the stage's
 * stream waits for @buffer's last writer now, and the frame's read fence
 * is recorded on it after process(), so a later writer of @buffer waits for
 * this read. A source that takes buffers from an application calls this
 * instead of synchronizing by hand. Called from the stage's thread, in
 * process(), for at most 16 buffers a frame.
 *
 * Returns: %FALSE with %ACCEL_ERROR_STALE_BUFFER for a buffer of an older
 * device generation, or a CUDA error.
 */
gboolean
accel_stage_adopt_input (AccelStage *stage, AccelBuffer *buffer, GError **error)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), FALSE);
  g_return_val_if_fail (buffer != NULL, FALSE);
  g_return_val_if_fail (priv->n_adopted < ACCEL_MAX_PORTS, FALSE);

  if (!accel_buffer_acquire_read (buffer, priv->stream, error))
    return FALSE;
  priv->adopted[priv->n_adopted++] = accel_buffer_ref (buffer);
  return TRUE;
}

/* posts @msg to the stage's mailbox under the lock its join frees the
 * mailbox under, so a caller on another thread never posts to a freed
 * one; %FALSE, @msg freed, where the stage has no mailbox (not started,
 * or joined). Posting never waits */
static gboolean
post_control (AccelStagePrivate *priv, AccelMessage *msg)
{
  gboolean posted;

  g_mutex_lock (&priv->mailbox_lock);
  posted = priv->mailbox != NULL;
  if (posted)
    accel_mailbox_post (priv->mailbox, msg);
  g_mutex_unlock (&priv->mailbox_lock);
  if (!posted)
    accel_message_free (msg);
  return posted;
}

/* the graph was prepared: @stage's ACCEL_PARAM_FIXED properties are held
 * to what it negotiated. Called from the thread that prepares the graph */
void
accel_stage_fix_params (AccelStage *stage)
{
  g_atomic_int_set (&accel_stage_get_private (stage)->negotiated, TRUE);
}

/* @stage's graph lets it go (a stage outlives the graph that dropped it):
 * what it held for that graph goes too, so it joins another as a new
 * stage. Called from the thread that finalises the graph */
void
accel_stage_leave_graph (AccelStage *stage)
{
  g_atomic_int_set (&accel_stage_get_private (stage)->negotiated, FALSE);
  g_atomic_int_set (&accel_stage_get_private (stage)->graph_gone, TRUE);
  accel_stage_clear_links (stage);
}

/* added to a graph (again) */
void
accel_stage_join_graph (AccelStage *stage)
{
  g_atomic_int_set (&accel_stage_get_private (stage)->graph_gone, FALSE);
}

/* a stage made without a name: the graph it joins numbers its kind's name
 * (accel_graph_add ()) */
void
accel_stage_set_numbered (AccelStage *stage)
{
  g_object_set_data_full (G_OBJECT (stage), "accel-numbered",
      g_strdup (accel_stage_get_name (stage)), g_free);
}

/* the name a stage made without one is numbered from, or %NULL */
const char *
accel_stage_get_numbered (AccelStage *stage)
{
  return g_object_get_data (G_OBJECT (stage), "accel-numbered");
}

/**
 * accel_stage_refuses_param:
 * @stage: a stage
 * @pspec: one of its properties
 *
 * For the set_property() of a stage: whether a change of @pspec is
 * refused, because it is %ACCEL_PARAM_FIXED and @stage's graph is
 * prepared. It is then said, as a warning naming the stage, and set_property()
 * returns at once, leaving the value the stage runs with.
 *
 * Returns: %TRUE when the change is refused. MT safe.
 */
gboolean
accel_stage_refuses_param (AccelStage *stage, GParamSpec *pspec)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), TRUE);
  g_return_val_if_fail (pspec != NULL, TRUE);
  if (!(pspec->flags & ACCEL_PARAM_FIXED)
      || !g_atomic_int_get (&priv->negotiated))
    return FALSE;
  g_warning ("stage '%s' (%s): '%s' is fixed once the graph is prepared: "
             "the change is refused",
      priv->name, priv->info->kind_name, pspec->name);
  return TRUE;
}

static gboolean
is_integer_type (GType type)
{
  switch (G_TYPE_FUNDAMENTAL (type))
    {
    case G_TYPE_CHAR:
    case G_TYPE_UCHAR:
    case G_TYPE_INT:
    case G_TYPE_UINT:
    case G_TYPE_LONG:
    case G_TYPE_ULONG:
    case G_TYPE_INT64:
    case G_TYPE_UINT64:
      return TRUE;
    default:
      return FALSE;
    }
}

/* @value into @checked's type. Into an integer, only a value the integer
 * holds as it is: GLib's transforms are C casts, which made NaN 0, 2.9 2,
 * 5e9 705032704 and -1 4294967295 */
static gboolean
convert_param_value (const GValue *value, GValue *checked)
{
  GType from = G_TYPE_FUNDAMENTAL (G_VALUE_TYPE (value));
  g_auto (GValue) back = G_VALUE_INIT;
  g_autofree gchar *was = NULL;
  g_autofree gchar *now = NULL;
  double d;

  /* an enum by its nick or name, as YAML and -e write it ("resume") */
  if (G_VALUE_HOLDS_ENUM (checked) && G_VALUE_HOLDS_STRING (value))
    {
      g_autoptr (GEnumClass) klass = g_type_class_ref (G_VALUE_TYPE (checked));
      const char *text = g_value_get_string (value);
      GEnumValue *v = text ? g_enum_get_value_by_nick (klass, text) : NULL;

      if (!v && text)
        v = g_enum_get_value_by_name (klass, text);
      if (v)
        g_value_set_enum (checked, v->value);
      return v != NULL;
    }
  if (!is_integer_type (G_VALUE_TYPE (checked)))
    return g_value_transform (value, checked);
  if (from != G_TYPE_FLOAT && from != G_TYPE_DOUBLE)
    {
      /* an integer: the same number written both ways */
      if (!g_value_transform (value, checked))
        return FALSE;
      was = g_strdup_value_contents (value);
      now = g_strdup_value_contents (checked);
      return g_str_equal (was, now);
    }
  d = from == G_TYPE_FLOAT ? g_value_get_float (value)
                           : g_value_get_double (value);
  /* past these the cast itself is undefined */
  if (!isfinite (d) || d <= -0x1p63 || d >= 0x1p64
      || !g_value_transform (value, checked))
    return FALSE;
  /* what the integer holds, back as a double */
  g_value_init (&back, G_TYPE_DOUBLE);
  return g_value_transform (checked, &back) && g_value_get_double (&back) == d;
}

/**
 * accel_stage_set_param_async:
 * @stage: a stage
 * @name: a property name
 * @value: the new value
 *
 * Sets a property on the stage's own thread, between two frames, so a
 * running stage never sees a parameter change in the middle of a frame.
 * Before the stage starts the property is set at once.
 *
 * Returns: %FALSE when @stage has no such writable property, when @value
 * does not convert to the property's type or is out of its range, or when
 * the property is %ACCEL_PARAM_FIXED and @stage's graph is prepared; nothing is
 * set then, and a message says which (g_message ()). MT safe.
 */
gboolean
accel_stage_set_param_async (
    AccelStage *stage, const char *name, const GValue *value)
{
  AccelStagePrivate *priv;
  GParamSpec *pspec;
  AccelMessage *msg;
  g_auto (GValue) checked = G_VALUE_INIT;
  gboolean converts;

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (G_IS_VALUE (value), FALSE);

  priv = accel_stage_get_private (stage);
  pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (stage), name);
  /* each refusal is said: a caller that cannot be handed more than the
   * FALSE (Python) had to guess which it was */
  if (!pspec || !(pspec->flags & G_PARAM_WRITABLE)
      || (pspec->flags & G_PARAM_CONSTRUCT_ONLY))
    {
      g_message ("stage '%s' (%s): set_param_async: %s '%s'",
          accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
          pspec ? "cannot change the parameter" : "has no parameter", name);
      return FALSE;
    }
  if ((pspec->flags & ACCEL_PARAM_FIXED)
      && g_atomic_int_get (&priv->negotiated))
    {
      g_message ("stage '%s' (%s): set_param_async: '%s' is fixed once the "
                 "graph is prepared",
          accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
          name);
      return FALSE;
    }
  /* checked here, on the caller's thread: the stage's thread would only
   * warn and drop a value of the wrong type or out of range */
  g_value_init (&checked, G_PARAM_SPEC_VALUE_TYPE (pspec));
  converts = convert_param_value (value, &checked);
  if (!converts || g_param_value_validate (pspec, &checked))
    {
      g_autofree gchar *given
          = G_VALUE_HOLDS_DOUBLE (value)
                ? g_strdup_printf ("%g", g_value_get_double (value))
            : G_VALUE_HOLDS_FLOAT (value)
                ? g_strdup_printf ("%g", (double)g_value_get_float (value))
                : g_strdup_value_contents (value);

      g_message ("stage '%s' (%s): set_param_async: '%s' takes no %s %s: "
                 "%s %s",
          accel_stage_get_name (stage), accel_stage_get_kind_name (stage), name,
          G_VALUE_TYPE_NAME (value), given,
          converts ? "it is out of the range of the" : "it takes a",
          g_type_name (G_PARAM_SPEC_VALUE_TYPE (pspec)));
      return FALSE;
    }
  msg = accel_message_new (ACCEL_MESSAGE_PARAM);
  msg->name = g_strdup (name);
  g_value_init (&msg->value, G_VALUE_TYPE (&checked));
  g_value_copy (&checked, &msg->value);
  if (!post_control (priv, msg))
    g_object_set_property (G_OBJECT (stage), name, &checked);
  return TRUE;
}

/**
 * accel_stage_flush_async:
 * @stage: a running stage
 *
 * Drops the buffers queued for @stage and the state it carries between
 * frames, then does the same downstream. MT safe.
 */
void
accel_stage_flush_async (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_return_if_fail (ACCEL_IS_STAGE (stage));
  post_control (priv, accel_message_new (ACCEL_MESSAGE_FLUSH));
}

/* stepped sources: produce one frame, after the messages posted before */
void
accel_stage_step_async (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  post_control (priv, accel_message_new (ACCEL_MESSAGE_STEP));
}

/* sources only: end the stream now, from any thread */
void
accel_stage_send_eos (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  post_control (priv, accel_message_new (ACCEL_MESSAGE_EOS));
}

/**
 * accel_stage_graph_has_failed:
 * @stage: a stage
 *
 * Whether the graph @stage runs in has recorded an error since it started:
 * a fault escalated, and accel_graph_wait() returns it. The graph's other
 * stages go on until it is stopped, so what waits on the application's
 * behalf outside the stage's thread (a push into a full queue, a pull from
 * an empty one) asks this in slices and gives up rather than wait for good.
 *
 * Returns: %TRUE once the graph has failed, until it starts again. MT safe.
 */
gboolean
accel_stage_graph_has_failed (AccelStage *stage)
{
  g_return_val_if_fail (ACCEL_IS_STAGE (stage), FALSE);

  return g_atomic_int_get (&accel_stage_get_private (stage)->graph_failed);
}

/**
 * accel_stage_graph_is_gone:
 * @stage: a stage
 *
 * Whether the graph @stage was in has been finalized, whether it ran or
 * not: nothing will start it again, so what waits on the application's
 * behalf (a push into a full queue, a pull from an empty one) gives up.
 *
 * Returns: %TRUE once its graph is finalized, until it joins another.
 *   MT safe.
 */
gboolean
accel_stage_graph_is_gone (AccelStage *stage)
{
  g_return_val_if_fail (ACCEL_IS_STAGE (stage), FALSE);

  return g_atomic_int_get (&accel_stage_get_private (stage)->graph_gone);
}

/**
 * accel_stage_graph_is_ending:
 * @stage: a stage
 *
 * Whether the graph @stage runs in was asked to end its stream
 * (accel_graph_send_eos(), as on Ctrl-C): each source then stops where it
 * is, so stages that pair frames across processes may see their peers end
 * at other frames, and take that for no fault.
 *
 * Returns: %TRUE once asked, until the graph starts again. MT safe.
 */
gboolean
accel_stage_graph_is_ending (AccelStage *stage)
{
  g_return_val_if_fail (ACCEL_IS_STAGE (stage), FALSE);

  return g_atomic_int_get (&accel_stage_get_private (stage)->graph_ending);
}

/**
 * accel_stage_is_restarting:
 * @stage: a stage
 *
 * Whether the stage's stop() and start() now run for a restart by its
 * supervisor, rather than for the graph's stop and start. A stage keeps
 * across a restart what it holds for the application (frames pushed or not
 * yet pulled, the end of the stream) and the files it writes; a graph's
 * start begins them anew. Called from stop() and start().
 *
 * Returns: %TRUE during a restart.
 */
gboolean
accel_stage_is_restarting (AccelStage *stage)
{
  g_return_val_if_fail (ACCEL_IS_STAGE (stage), FALSE);

  return accel_stage_get_private (stage)->restarting;
}

/* whether the stage is stopping (its mailbox closed, or gone: it goes when
 * the stage is joined, on another thread), or with @control, has a control
 * message waiting */
static gboolean
mailbox_says (AccelStage *stage, gboolean control)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);
  gboolean says;

  g_mutex_lock (&priv->mailbox_lock);
  says = !priv->mailbox || accel_mailbox_is_closed (priv->mailbox)
         || (control && accel_mailbox_has_control (priv->mailbox));
  g_mutex_unlock (&priv->mailbox_lock);
  return says;
}

/**
 * accel_stage_should_yield:
 * @stage: a running stage
 *
 * A stage that waits inside process() or render() (for a device, a file,
 * another framework) asks this now and then: when it says %TRUE the stage
 * should return (with %ACCEL_FLOW_SKIP or an error) so the engine can run
 * what is waiting: a stop, an end of stream, a parameter change.
 *
 * Returns: %TRUE when a control message waits or the stage is stopping.
 * MT safe.
 */
gboolean
accel_stage_should_yield (AccelStage *stage)
{
  g_return_val_if_fail (ACCEL_IS_STAGE (stage), TRUE);
  return mailbox_says (stage, TRUE);
}

/**
 * accel_stage_should_stop:
 * @stage: a running stage
 *
 * accel_stage_should_yield() for a stage that cannot give its frame back:
 * a sink waiting to hand a frame on would lose it by returning for a
 * parameter change, which then waits until the frame is through.
 *
 * Returns: %TRUE when the stage is stopping. MT safe.
 */
gboolean
accel_stage_should_stop (AccelStage *stage)
{
  g_return_val_if_fail (ACCEL_IS_STAGE (stage), TRUE);
  return mailbox_says (stage, FALSE);
}

/**
 * accel_stage_is_interrupted:
 * @stage: a stage, as its graph is prepared or in its start ()
 *
 * A stage that waits outside its frames, as the graph is prepared (a
 * GStreamer preroll) or in its start () (a FIFO's reader, a peer), asks
 * this now and then and gives up with %ACCEL_ERROR_STOPPED when it says
 * %TRUE: the graph's start was interrupted (accel_graph_interrupt_start (),
 * accel_graph_stop () from another thread, accel-run's Ctrl-C), or the
 * stage's thread runs and it is stopping. Unlike
 * accel_stage_should_stop (), it says %FALSE before the stage's thread
 * runs.
 *
 * A start () that waits in GIO's calls need not ask: it runs with a
 * #GCancellable current on its thread (g_cancellable_get_current ()),
 * which is cancelled at the same moments. The world's store takes it, so
 * accel_world_get () in a start () ends with %ACCEL_ERROR_STOPPED there.
 *
 * Returns: %TRUE when the stage should stop waiting. MT safe.
 */
gboolean
accel_stage_is_interrupted (AccelStage *stage)
{
  AccelStagePrivate *priv;
  gboolean stopping;

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), TRUE);
  priv = accel_stage_get_private (stage);
  if (g_atomic_int_get (&priv->start_interrupted))
    return TRUE;
  g_mutex_lock (&priv->mailbox_lock);
  stopping = priv->mailbox && accel_mailbox_is_closed (priv->mailbox);
  g_mutex_unlock (&priv->mailbox_lock);
  return stopping;
}
