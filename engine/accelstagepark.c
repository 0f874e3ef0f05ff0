/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: outputs parked for a consumer on the same thread. A stage whose
 * consumer shares its thread cannot wait for room: it would wait for
 * itself, and waiting in a nested main loop lets a frame lower on the stack
 * hold what the waits above it need. So a push that finds no room parks the
 * buffer with its producer, which takes no new frame (a transform's mailbox
 * is blocked, a source stops producing) until the consumer, having taken
 * frames, hands the parked buffers on. The thread always goes back to its
 * main loop; a frame's end of stream waits behind its parked outputs */
#define G_LOG_DOMAIN "accel-stage"

#include "accelstage-private.h"

typedef struct
{
  AccelLink *link;
  AccelBuffer *buffer;
} ParkedPush;

static gboolean
is_parked (AccelStagePrivate *priv)
{
  return priv->parked.length > 0;
}

/* whether a buffer for @link waits in @priv's queue: later ones go behind
 * it, so that a link keeps its order */
static gboolean
link_has_parked (AccelStagePrivate *priv, AccelLink *link, GList *before)
{
  for (GList *l = priv->parked.head; l && l != before; l = l->next)
    if (((ParkedPush *)l->data)->link == link)
      return TRUE;
  return FALSE;
}

static gboolean
parks_for (AccelStagePrivate *priv, AccelStage *consumer)
{
  for (GList *l = priv->parked.head; l; l = l->next)
    if (((ParkedPush *)l->data)->link->target == consumer)
      return TRUE;
  return FALSE;
}

/* @consumer retries @producer once it has taken frames */
static void
wait_on (AccelStage *consumer, AccelStage *producer)
{
  AccelStagePrivate *theirs = accel_stage_get_private (consumer);

  if (!theirs->parked_producers)
    theirs->parked_producers = g_ptr_array_new ();
  if (!g_ptr_array_find (theirs->parked_producers, producer, NULL))
    g_ptr_array_add (theirs->parked_producers, producer);
}

static void
park (AccelStage *self, AccelLink *link, AccelBuffer *buffer)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  ParkedPush *p = g_new (ParkedPush, 1);

  p->link = link;
  p->buffer = buffer;
  if (!is_parked (priv))
    {
      ACCEL_TRACE ("stage '%s' parks its output for '%s', which has no room, "
                   "and takes no frame until it does",
          priv->name, accel_stage_get_name (link->target));
    }
  g_queue_push_tail (&priv->parked, p);
  /* a transform takes no frame meanwhile; a source sees it when its frame
   * returns (accelsource.c) */
  accel_stage_update_blocked (self);
  wait_on (link->target, self);
}

/**
 * accel_stage_push_local:
 * @self: the producer
 * @link: a link to a consumer on @self's thread
 * @buffer: (transfer full): the buffer
 *
 * Hands @buffer to the consumer and runs it, or parks it when the consumer
 * has no room, or when an earlier buffer for @link is parked.
 *
 * Returns: %ACCEL_MAILBOX_PUSHED when pushed or parked; else as
 *   accel_mailbox_try_push_buffer().
 */
AccelMailboxPush
accel_stage_push_local (AccelStage *self, AccelLink *link, AccelBuffer *buffer)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  AccelMailbox *mb = accel_stage_get_private (link->target)->mailbox;
  AccelMailboxPush res;

  /* a parked consumer takes no frame: running ahead into its mailbox would
   * only hold this stage's buffers, which a small pool needs back */
  if (link_has_parked (priv, link, NULL)
      || is_parked (accel_stage_get_private (link->target)))
    {
      park (self, link, buffer);
      return ACCEL_MAILBOX_PUSHED;
    }
  res = accel_mailbox_try_push_buffer (mb, link->port, buffer);
  if (res == ACCEL_MAILBOX_FULL)
    {
      park (self, link, buffer);
      return ACCEL_MAILBOX_PUSHED;
    }
  if (res == ACCEL_MAILBOX_PUSHED)
    accel_stage_drain (link->target);
  return res;
}

/* the producer's queue is empty: it takes frames again, so do the
 * producers that parked because it had, and an end of stream that waited
 * behind the parked buffers goes out */
static void
unpark (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  ACCEL_TRACE ("stage '%s' has handed on what it parked", priv->name);
  accel_stage_update_blocked (self);
  if (priv->eos_parked)
    {
      priv->eos_parked = FALSE;
      accel_stage_send_eos_downstream (self);
    }
  else
    accel_stage_produce_again (self);
  /* last: their frames may park this stage again */
  accel_stage_resume_producers (self);
}

/* tries each parked buffer once, in order: a link that has no room keeps
 * the rest of its buffers. The producer whose queue empties takes frames
 * again */
static void
retry (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  GList *l = priv->parked.head;

  while (l)
    {
      ParkedPush *p = l->data;
      AccelStage *consumer = p->link->target;
      AccelStagePrivate *target = accel_stage_get_private (consumer);
      AccelMailboxPush res = ACCEL_MAILBOX_CLOSED;

      if (link_has_parked (priv, p->link, l))
        {
          l = l->next;
          continue;
        }
      /* a stopped consumer's mailbox may be gone */
      if (target->stopped)
        accel_buffer_unref (p->buffer);
      else
        res = accel_mailbox_try_push_buffer (
            target->mailbox, p->link->port, p->buffer);
      if (res == ACCEL_MAILBOX_FULL)
        {
          l = l->next;
          continue;
        }
      if (res == ACCEL_MAILBOX_ENDED)
        p->link->ended = TRUE;
      g_queue_delete_link (&priv->parked, l);
      g_free (p);
      if (!is_parked (priv))
        unpark (self);
      if (res == ACCEL_MAILBOX_PUSHED)
        accel_stage_drain (consumer);
      /* running the consumer may have changed the queue */
      l = priv->parked.head;
    }
}

/**
 * accel_stage_resume_producers:
 * @self: a consumer that has taken frames, ended or flushed
 *
 * Retries the producers on this thread whose buffers wait for room here;
 * those whose queue empties take frames again.
 */
void
accel_stage_resume_producers (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  GPtrArray *waiting = g_steal_pointer (&priv->parked_producers);

  if (!waiting)
    return;
  /* producers that park here meanwhile go into a new list */
  for (guint i = 0; i < waiting->len; i++)
    {
      AccelStage *producer = waiting->pdata[i];
      AccelStagePrivate *theirs = accel_stage_get_private (producer);
      const char *previous = accel_stage_enter (producer);

      retry (producer);
      accel_stage_leave (previous);
      if (parks_for (theirs, self))
        wait_on (self, producer);
    }
  g_ptr_array_unref (waiting);
}

/**
 * accel_stage_park_eos:
 * @self: a producer
 *
 * Returns: %TRUE when @self has parked buffers, so that its end of stream
 *   waits for them; it goes out once they have been handed on.
 */
gboolean
accel_stage_park_eos (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  if (!is_parked (priv))
    return FALSE;
  priv->eos_parked = TRUE;
  return TRUE;
}

/* a transform's mailbox gives no frame while the stage has outputs parked
 * or a frame that waits for a buffer (accelstagebufferwait.c): one flag
 * for both, so that the end of either does not open it under the other */
void
accel_stage_update_blocked (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  if (priv->n_in > 0 && priv->n_out > 0 && priv->mailbox)
    accel_mailbox_set_blocked (
        priv->mailbox, is_parked (priv) || priv->buffer_wait.active);
}

/* whether @self waits for room before it takes a frame */
gboolean
accel_stage_is_parked (AccelStage *self)
{
  return is_parked (accel_stage_get_private (self));
}

static guint
drop_parked (AccelStagePrivate *priv)
{
  guint n = priv->parked.length;
  ParkedPush *p;

  while ((p = g_queue_pop_head (&priv->parked)))
    {
      accel_buffer_unref (p->buffer);
      g_free (p);
    }
  return n;
}

/**
 * accel_stage_park_flush:
 * @self: a stage that flushes
 *
 * Drops what @self has parked; an end of stream that waited for it goes
 * out.
 */
void
accel_stage_park_flush (AccelStage *self)
{
  if (drop_parked (accel_stage_get_private (self)) > 0)
    unpark (self);
}

/* the stage stops: what it parked is dropped (the graph is going down) and
 * no one waits on it any more */
void
accel_stage_park_stop (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  drop_parked (priv);
  priv->eos_parked = FALSE;
  g_clear_pointer (&priv->parked_producers, g_ptr_array_unref);
}
