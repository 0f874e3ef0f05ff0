/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: a stage's mailbox: bounded per-port input queues matched by
 * sequence, an unbounded control queue, and the GSource that drives them.
 * G_MESSAGES_DEBUG=accel-mailbox tells when producers wait for room, when a
 * consumer sleeps on an empty mailbox, which frames find no partner, and how
 * a stream ends */
#define G_LOG_DOMAIN "accel-mailbox"

#include "accel-private.h"

/* marks an end-of-stream entry in a port queue */
#define EOS_ITEM ((gpointer)&eos_marker)
static const int eos_marker;

/* a gap: the frame of a sequence that will not come on a port, its
 * producer having skipped it. Held in a port's queue beside the buffers
 * as a pointer tagged in its low bit (allocations are aligned). A join
 * that learns of it lets the other inputs' frames of that sequence go at
 * once, where it kept them until a later frame came on that port: a stage
 * whose last buffer it kept waited, and with it, on a thread of its own,
 * the frame that would have come */
typedef struct
{
  guint64 sequence;
} Gap;

static inline gboolean
is_gap (gpointer item)
{
  return ((guintptr)item & 1) != 0;
}

static inline Gap *
gap_of (gpointer item)
{
  return (Gap *)((guintptr)item & ~(guintptr)1);
}

/* the sequence of a buffer or a gap */
static guint64
item_sequence (gpointer item)
{
  return is_gap (item) ? gap_of (item)->sequence
                       : accel_buffer_get_sequence (item);
}

/* frees a queued item: TRUE when it was a buffer */
static gboolean
free_item (gpointer item)
{
  if (item == EOS_ITEM)
    return FALSE;
  if (is_gap (item))
    {
      g_free (gap_of (item));
      return FALSE;
    }
  accel_buffer_unref (item);
  return TRUE;
}

typedef struct
{
  GQueue items;       /* AccelBuffer*, a gap or EOS_ITEM */
  GCond room;         /* signalled when an item is taken */
  guint n_waiting;    /* producers waiting for room */
  gboolean done;      /* EOS taken: nothing more will come */
  gboolean full_told; /* a refused try-push was logged; reset by a push */
} Port;

struct _AccelMailbox
{
  GMutex lock;
  guint n_ports;
  guint capacity;
  Port ports[ACCEL_MAX_PORTS];
  GQueue control; /* AccelMessage* */
  gboolean closed;
  gboolean ended; /* the consumer's stream is over: buffers are dropped */
  gboolean blocked;
  gboolean sleeping; /* the consumer may be in poll() */
  guint64 n_dropped; /* buffers that found no partner */
  guint max_queued;
  GMainContext *context;
  /* "'name'" of the stage that takes from here, learned on its thread; for
   * messages */
  gchar *consumer; /* atomic */
};

static const char *
message_name (AccelMessageType type)
{
  switch (type)
    {
    case ACCEL_MESSAGE_FLUSH:
      return "flush";
    case ACCEL_MESSAGE_PARAM:
      return "param";
    case ACCEL_MESSAGE_EOS:
      return "eos";
    case ACCEL_MESSAGE_STOP:
      return "stop";
    case ACCEL_MESSAGE_STEP:
      return "step";
    default:
      return "control";
    }
}

/* the stage this thread works for (a producer, in the push functions), as
 * the stage loop tells the error module; NULL outside the stages */
static const char *
current_stage (void)
{
  return accel_error_get_stage_name ();
}

static const char *
current_name (void)
{
  const char *name = current_stage ();

  return name ? name : "?";
}

/* on the consumer's thread, the only one that sets it, where the stage loop
 * has told whose work it is: when a frame or a flush is taken */
static inline void
learn_consumer (AccelMailbox *mb)
{
  const char *name;

  if (G_LIKELY (g_atomic_pointer_get (&mb->consumer)))
    return;
  name = current_stage ();
  if (name)
    g_atomic_pointer_set (&mb->consumer, g_strdup_printf ("'%s'", name));
}

/* for messages from any thread; sources take no frames, so it stays unknown
 * for them */
static const char *
consumer_name (AccelMailbox *mb)
{
  const char *name = g_atomic_pointer_get (&mb->consumer);

  if (name)
    return name;
  return mb->n_ports == 0 ? "a source" : "a stage";
}

/**
 * accel_message_new:
 * @type: what the message asks for
 *
 * Returns: (transfer full): a control message, for accel_mailbox_post().
 * MT safe.
 */
AccelMessage *
accel_message_new (AccelMessageType type)
{
  AccelMessage *msg = g_new0 (AccelMessage, 1);

  msg->type = type;
  return msg;
}

/**
 * accel_message_free:
 * @msg: (transfer full): a control message
 *
 * MT safe.
 */
void
accel_message_free (AccelMessage *msg)
{
  g_free (msg->name);
  if (G_IS_VALUE (&msg->value))
    g_value_unset (&msg->value);
  g_free (msg);
}

/**
 * accel_mailbox_new:
 * @n_ports: the consumer's inputs, at most %ACCEL_MAX_PORTS
 * @capacity: buffers each input queues before producers wait (at least 1)
 * @context: the consumer's context, woken when work arrives
 *
 * Returns: (transfer full): a mailbox; free it with accel_mailbox_free().
 * Called from the thread that starts the stage.
 */
AccelMailbox *
accel_mailbox_new (guint n_ports, guint capacity, GMainContext *context)
{
  AccelMailbox *mb;

  g_return_val_if_fail (n_ports <= ACCEL_MAX_PORTS, NULL);
  mb = g_new0 (AccelMailbox, 1);
  g_mutex_init (&mb->lock);
  mb->n_ports = n_ports;
  mb->capacity = MAX (capacity, 1);
  for (guint i = 0; i < n_ports; i++)
    {
      g_queue_init (&mb->ports[i].items);
      g_cond_init (&mb->ports[i].room);
    }
  g_queue_init (&mb->control);
  mb->context = g_main_context_ref (context);
  return mb;
}

static void
drop_item (gpointer item)
{
  free_item (item);
}

/**
 * accel_mailbox_free:
 * @mb: (transfer full): a mailbox
 *
 * Drops whatever is still queued. Called from the thread that stops the
 * stage, once no producer pushes and the consumer's thread has let go.
 */
void
accel_mailbox_free (AccelMailbox *mb)
{
  g_debug ("mailbox of %s freed: at most %u buffers were queued on an "
           "input, %" G_GUINT64_FORMAT " found no partner",
      consumer_name (mb), mb->max_queued, mb->n_dropped);
  for (guint i = 0; i < mb->n_ports; i++)
    {
      g_queue_clear_full (&mb->ports[i].items, drop_item);
      g_cond_clear (&mb->ports[i].room);
    }
  g_queue_clear_full (&mb->control, (GDestroyNotify)accel_message_free);
  g_main_context_unref (mb->context);
  g_mutex_clear (&mb->lock);
  g_free (mb->consumer);
  g_free (mb);
}

/* called with the lock held, after adding work */
static gboolean
take_sleeping_unlocked (AccelMailbox *mb)
{
  gboolean wake = mb->sleeping;

  mb->sleeping = FALSE;
  return wake;
}

/**
 * accel_mailbox_push_buffer:
 * @mb: the consumer's mailbox
 * @port: the consumer's input
 * @buffer: (transfer full): the buffer
 *
 * Blocks while the port's queue is full: that is the backpressure. Never
 * call it on the consumer's own thread (it would wait for itself): see
 * accel_mailbox_try_push_buffer().
 *
 * Returns: %ACCEL_MAILBOX_PUSHED; %ACCEL_MAILBOX_CLOSED or
 *   %ACCEL_MAILBOX_ENDED, dropping @buffer, once the mailbox is closed or its
 *   consumer has ended its stream.
 * MT safe: called from a producer stage's thread.
 */
AccelMailboxPush
accel_mailbox_push_buffer (AccelMailbox *mb, guint port, AccelBuffer *buffer)
{
  Port *p = &mb->ports[port];
  AccelMailboxPush res;
  gboolean wake;
  gint64 t_wait = 0;

  g_mutex_lock (&mb->lock);
  while (p->items.length >= mb->capacity && !mb->closed && !mb->ended)
    {
      if (t_wait == 0)
        t_wait = g_get_monotonic_time ();
      p->n_waiting++;
      g_cond_wait (&p->room, &mb->lock);
      p->n_waiting--;
    }
  if (mb->closed || mb->ended)
    {
      res = mb->closed ? ACCEL_MAILBOX_CLOSED : ACCEL_MAILBOX_ENDED;
      /* the consumer's stream had ended (another input ended it, or a
       * fault): it has no partner, and is dropped, whether or not the
       * graph's stop has closed the mailbox since (a frame made as the
       * graph stopped was in no count) */
      mb->n_dropped += mb->ended;
      g_mutex_unlock (&mb->lock);
      g_debug (
          "'%s' pushes to input %u of %s, which %s: buffer %" G_GUINT64_FORMAT
          " dropped",
          current_name (), port, consumer_name (mb),
          res == ACCEL_MAILBOX_CLOSED ? "is closed" : "has ended its stream",
          accel_buffer_get_sequence (buffer));
      accel_buffer_unref (buffer);
      return res;
    }
  g_queue_push_tail (&p->items, buffer);
  mb->max_queued = MAX (mb->max_queued, p->items.length);
  wake = take_sleeping_unlocked (mb);
  g_mutex_unlock (&mb->lock);

  /* backpressure: in a steady state, once a frame */
  if (t_wait != 0)
    ACCEL_TRACE ("input %u of %s was full (%u queued): '%s' waited "
                 "%" G_GINT64_FORMAT " us for room",
        port, consumer_name (mb), mb->capacity, current_name (),
        g_get_monotonic_time () - t_wait);
  /* a wakeup is a syscall: only when the consumer may be asleep */
  if (wake)
    g_main_context_wakeup (mb->context);
  return ACCEL_MAILBOX_PUSHED;
}

/**
 * accel_mailbox_try_push_buffer:
 * @mb: the consumer's mailbox
 * @port: the consumer's input
 * @buffer: (transfer full): the buffer, unless the result is
 *   %ACCEL_MAILBOX_FULL
 *
 * Never blocks: for a consumer on the producer's own thread, where the
 * producer parks the buffer until there is room instead of waiting for
 * itself (accelstagepark.c).
 *
 * Returns: %ACCEL_MAILBOX_FULL, leaving @buffer the caller's, while the
 *   port's queue is full; else as accel_mailbox_push_buffer().
 * MT safe: called from a producer stage's thread.
 */
AccelMailboxPush
accel_mailbox_try_push_buffer (
    AccelMailbox *mb, guint port, AccelBuffer *buffer)
{
  Port *p = &mb->ports[port];
  AccelMailboxPush res = ACCEL_MAILBOX_PUSHED;
  gboolean tell_full = FALSE;

  g_mutex_lock (&mb->lock);
  if (mb->closed)
    {
      res = ACCEL_MAILBOX_CLOSED;
      mb->n_dropped += mb->ended; /* as accel_mailbox_push_buffer () */
    }
  else if (mb->ended)
    {
      res = ACCEL_MAILBOX_ENDED;
      mb->n_dropped++;
    }
  else if (p->items.length >= mb->capacity)
    {
      res = ACCEL_MAILBOX_FULL;
      /* the caller retries in a loop: once per full spell */
      tell_full = !p->full_told;
      p->full_told = TRUE;
    }
  else
    {
      g_queue_push_tail (&p->items, buffer);
      mb->max_queued = MAX (mb->max_queued, p->items.length);
      p->full_told = FALSE;
    }
  g_mutex_unlock (&mb->lock);

  if (tell_full)
    ACCEL_TRACE ("input %u of %s is full (%u queued): '%s', on the same "
                 "thread, parks its buffer until there is room",
        port, consumer_name (mb), mb->capacity, current_name ());
  if (res == ACCEL_MAILBOX_CLOSED || res == ACCEL_MAILBOX_ENDED)
    {
      g_debug (
          "'%s' pushes to input %u of %s, which %s: buffer %" G_GUINT64_FORMAT
          " dropped",
          current_name (), port, consumer_name (mb),
          res == ACCEL_MAILBOX_CLOSED ? "is closed" : "has ended its stream",
          accel_buffer_get_sequence (buffer));
      accel_buffer_unref (buffer);
    }
  return res;
}

/**
 * accel_mailbox_push_eos:
 * @mb: the consumer's mailbox
 * @port: the consumer's input
 *
 * Queues the end of @port's stream. End of stream is always delivered, even
 * past the bound, so it never waits; once the consumer's stream has ended it
 * is dropped.
 *
 * MT safe: called from a producer stage's thread.
 */
void
accel_mailbox_push_eos (AccelMailbox *mb, guint port)
{
  gboolean wake;

  g_mutex_lock (&mb->lock);
  if (mb->ended)
    {
      g_mutex_unlock (&mb->lock);
      g_debug ("end of stream for input %u of %s dropped: its stream has "
               "ended already",
          port, consumer_name (mb));
      return;
    }
  g_queue_push_tail (&mb->ports[port].items, EOS_ITEM);
  wake = take_sleeping_unlocked (mb);
  g_mutex_unlock (&mb->lock);
  g_debug ("'%s' ends the stream on input %u of %s", current_name (), port,
      consumer_name (mb));
  if (wake)
    g_main_context_wakeup (mb->context);
}

/**
 * accel_mailbox_push_gap:
 * @mb: the consumer's mailbox
 * @port: the consumer's input
 * @sequence: a frame the producer skipped
 *
 * Queues word that frame @sequence will not come on @port. Like the end of
 * stream it never waits for room; once the consumer's stream has ended it
 * is dropped.
 *
 * MT safe: called from a producer stage's thread.
 */
void
accel_mailbox_push_gap (AccelMailbox *mb, guint port, guint64 sequence)
{
  Gap *gap;
  gpointer tail;
  gboolean wake;

  g_mutex_lock (&mb->lock);
  if (mb->ended)
    {
      g_mutex_unlock (&mb->lock);
      return;
    }
  /* a gap at the tail moves on: sequences only grow on a link, so nothing
   * up to the later one is to come, and skips do not pile up */
  tail = g_queue_peek_tail (&mb->ports[port].items);
  if (tail && tail != EOS_ITEM && is_gap (tail))
    {
      gap_of (tail)->sequence = sequence;
      g_mutex_unlock (&mb->lock);
      return;
    }
  gap = g_new (Gap, 1);
  gap->sequence = sequence;
  g_queue_push_tail (&mb->ports[port].items, (gpointer)((guintptr)gap | 1));
  wake = take_sleeping_unlocked (mb);
  g_mutex_unlock (&mb->lock);
  ACCEL_TRACE ("'%s' skipped frame %" G_GUINT64_FORMAT
               ": input %u of %s learns it will not come",
      current_name (), sequence, port, consumer_name (mb));
  if (wake)
    g_main_context_wakeup (mb->context);
}

/**
 * accel_mailbox_post:
 * @mb: a mailbox
 * @msg: (transfer full): a control message
 *
 * Control messages never block: they must reach a stage whose queues are
 * full. They overtake queued buffers.
 *
 * MT safe.
 */
void
accel_mailbox_post (AccelMailbox *mb, AccelMessage *msg)
{
  g_debug ("%s is sent a %s message%s%s", consumer_name (mb),
      message_name (msg->type), msg->name ? " for " : "",
      msg->name ? msg->name : "");
  g_mutex_lock (&mb->lock);
  g_queue_push_tail (&mb->control, msg);
  mb->sleeping = FALSE;
  g_mutex_unlock (&mb->lock);
  g_main_context_wakeup (mb->context);
}

/**
 * accel_mailbox_pop_control:
 * @mb: a mailbox
 *
 * Returns: (transfer full) (nullable): the oldest control message, or %NULL.
 * Called from the consumer stage's thread only.
 */
AccelMessage *
accel_mailbox_pop_control (AccelMailbox *mb)
{
  AccelMessage *msg;

  g_mutex_lock (&mb->lock);
  msg = g_queue_pop_head (&mb->control);
  g_mutex_unlock (&mb->lock);
  return msg;
}

/**
 * accel_mailbox_has_control:
 * @mb: a mailbox
 *
 * Returns: whether a control message waits. MT safe.
 */
gboolean
accel_mailbox_has_control (AccelMailbox *mb)
{
  gboolean has;

  g_mutex_lock (&mb->lock);
  has = mb->control.length > 0;
  g_mutex_unlock (&mb->lock);
  return has;
}

/* a signal is a syscall even with nobody waiting */
static inline void
signal_room_unlocked (AccelMailbox *mb, guint i)
{
  if (mb->ports[i].n_waiting > 0)
    g_cond_signal (&mb->ports[i].room);
}

static void
pop_port_unlocked (AccelMailbox *mb, guint i)
{
  gpointer item = g_queue_pop_head (&mb->ports[i].items);

  if (item == EOS_ITEM)
    mb->ports[i].done = TRUE;
  else if (item)
    free_item (item);
  signal_room_unlocked (mb, i);
}

/* every port has a head item, or is done and will never have one */
static gboolean
frame_ready_unlocked (AccelMailbox *mb)
{
  gboolean any = FALSE;

  if (mb->n_ports == 0 || mb->blocked)
    return FALSE;
  for (guint i = 0; i < mb->n_ports; i++)
    {
      if (mb->ports[i].items.length == 0 && !mb->ports[i].done)
        return FALSE;
      any |= mb->ports[i].items.length > 0;
    }
  /* once every port has ended there is nothing more to take */
  return any;
}

/* the consumer takes no more: queued buffers are dropped (counted), waiting
 * producers wake and later pushes are refused, so that they learn of it.
 * Returns: how many buffers were dropped */
static guint
end_unlocked (AccelMailbox *mb, guint *n_woken)
{
  guint n = 0;

  *n_woken = 0;
  mb->ended = TRUE;
  for (guint i = 0; i < mb->n_ports; i++)
    {
      gpointer item;

      while ((item = g_queue_pop_head (&mb->ports[i].items)))
        n += free_item (item);
      mb->ports[i].done = TRUE;
      *n_woken += mb->ports[i].n_waiting;
      g_cond_broadcast (&mb->ports[i].room);
    }
  mb->n_dropped += n;
  return n;
}

/**
 * accel_mailbox_pop_frame:
 * @mb: a mailbox
 * @buffers: (out caller-allocates) (transfer full): one buffer per port, all
 *   of one sequence
 * @gap: (out): the sequence of a frame skipped upstream
 *
 * Fan-in: takes one buffer from each port once all heads carry the same
 * sequence number. A head older than the others has no partner left and is
 * dropped (counted); so are buffers left on a port whose peer has ended,
 * and those of a sequence that a gap on another port says will not come.
 * A frame dropped for having no partner, with no frame to take after it,
 * is a gap too: the consumer's own consumers learn that it will not come.
 *
 * Returns: %ACCEL_MAILBOX_POP_FRAME with @buffers filled,
 *   %ACCEL_MAILBOX_POP_GAP with @gap set (the consumer skips that frame
 *   too), %ACCEL_MAILBOX_POP_EOS when the stream is over (every port
 *   reached end of stream, or one did and the others' buffers can never be
 *   matched), or %ACCEL_MAILBOX_POP_NONE.
 * Called from the consumer stage's thread only.
 */
AccelMailboxPop
accel_mailbox_pop_frame (AccelMailbox *mb, AccelBuffer **buffers, guint64 *gap)
{
  AccelMailboxPop found = ACCEL_MAILBOX_POP_NONE;
  /* the latest sequence dropped for having no partner: its frame will not
   * come out of this consumer either */
  gint64 dropped = -1;

  g_mutex_lock (&mb->lock);
  learn_consumer (mb);
  while (!found && frame_ready_unlocked (mb))
    {
      guint64 max_seq = 0;
      guint n_done = 0, n_eos_head = 0, n_buffers = 0, ended_port = 0;

      for (guint i = 0; i < mb->n_ports; i++)
        {
          gpointer head = g_queue_peek_head (&mb->ports[i].items);
          if (mb->ports[i].done && !head)
            {
              n_done++;
              ended_port = i;
            }
          else if (head == EOS_ITEM)
            {
              n_eos_head++;
              ended_port = i;
            }
          else if (head)
            {
              max_seq = MAX (max_seq, item_sequence (head));
              n_buffers++;
            }
        }

      if (n_buffers == 0)
        {
          guint n_woken;

          end_unlocked (mb, &n_woken);
          g_debug (
              "every input of %s has ended: end of stream", consumer_name (mb));
          found = ACCEL_MAILBOX_POP_EOS;
        }
      else if (n_done + n_eos_head > 0)
        {
          /* some port ended: the others' buffers can never be matched, so
           * the stream is over here; end_unlocked() drops what is queued */
          guint n_woken, n = end_unlocked (mb, &n_woken);

          g_debug ("input %u of %s has ended, so the other inputs' frames "
                   "can never be matched: end of stream, %u queued buffers "
                   "dropped",
              ended_port, consumer_name (mb), n);
          found = ACCEL_MAILBOX_POP_EOS;
        }
      else
        {
          gboolean matched = TRUE, skipped = FALSE;
          for (guint i = 0; i < mb->n_ports; i++)
            {
              gpointer head = g_queue_peek_head (&mb->ports[i].items);
              guint64 seq = item_sequence (head);

              skipped |= is_gap (head);
              if (seq < max_seq)
                {
                  g_debug ("%s drops frame %" G_GUINT64_FORMAT
                           " on input %u: another input is at frame "
                           "%" G_GUINT64_FORMAT " already, so it has no "
                           "partner",
                      consumer_name (mb), seq, i, max_seq);
                  mb->n_dropped += !is_gap (head);
                  dropped = MAX (dropped, (gint64)seq);
                  pop_port_unlocked (mb, i);
                  matched = FALSE;
                }
            }
          if (matched && skipped)
            {
              /* the frame will not come whole: its parts go */
              for (guint i = 0; i < mb->n_ports; i++)
                {
                  mb->n_dropped
                      += !is_gap (g_queue_peek_head (&mb->ports[i].items));
                  pop_port_unlocked (mb, i);
                }
              ACCEL_TRACE ("%s skips frame %" G_GUINT64_FORMAT
                           ": an input's producer skipped it",
                  consumer_name (mb), max_seq);
              *gap = max_seq;
              found = ACCEL_MAILBOX_POP_GAP;
            }
          else if (matched)
            {
              for (guint i = 0; i < mb->n_ports; i++)
                {
                  buffers[i] = g_queue_pop_head (&mb->ports[i].items);
                  signal_room_unlocked (mb, i);
                }
              ACCEL_TRACE ("%s takes frame %" G_GUINT64_FORMAT
                           " (%u more queued on input 0)",
                  consumer_name (mb), max_seq, mb->ports[0].items.length);
              found = ACCEL_MAILBOX_POP_FRAME;
            }
        }
    }
  /* a consumer joined further down may hold the dropped frame's other
   * parts (and with them a pool's last buffer) until it learns so */
  if (!found && dropped >= 0)
    {
      *gap = (guint64)dropped;
      found = ACCEL_MAILBOX_POP_GAP;
    }
  g_mutex_unlock (&mb->lock);
  return found;
}

/**
 * accel_mailbox_set_blocked:
 * @mb: a mailbox
 * @blocked: whether the consumer takes no frames for now
 *
 * A sink blocks its mailbox while it waits for a frame's GPU work, so the
 * source does not dispatch frames it could not take; control messages still
 * come through.
 *
 * Called from the consumer stage's thread only.
 */
void
accel_mailbox_set_blocked (AccelMailbox *mb, gboolean blocked)
{
  gboolean changed;

  g_mutex_lock (&mb->lock);
  changed = mb->blocked != blocked;
  mb->blocked = blocked;
  g_mutex_unlock (&mb->lock);
  if (changed)
    ACCEL_TRACE ("%s %s", consumer_name (mb),
        blocked ? "takes no frames until its GPU work is done"
                : "takes frames again");
}

/**
 * accel_mailbox_close:
 * @mb: a mailbox
 *
 * Wakes every blocked producer; pushes fail with %ACCEL_MAILBOX_CLOSED from
 * now on and the mailbox's source becomes ready, so the consumer sees it.
 *
 * MT safe: called from the thread that stops the graph.
 */
void
accel_mailbox_close (AccelMailbox *mb)
{
  guint n_woken = 0;

  g_mutex_lock (&mb->lock);
  mb->closed = TRUE;
  for (guint i = 0; i < mb->n_ports; i++)
    {
      n_woken += mb->ports[i].n_waiting;
      g_cond_broadcast (&mb->ports[i].room);
    }
  g_mutex_unlock (&mb->lock);
  g_debug ("mailbox of %s closed: pushes fail from now on (%u waiting "
           "producers woken)",
      consumer_name (mb), n_woken);
  g_main_context_wakeup (mb->context);
}

/**
 * accel_mailbox_end:
 * @mb: a mailbox
 *
 * The consumer's stream is over (it ended, failed, or has no one left to
 * hand its output to): queued buffers are dropped and later pushes fail with
 * %ACCEL_MAILBOX_ENDED, so that producers learn of it.
 *
 * MT safe: called from the consumer stage's thread.
 */
void
accel_mailbox_end (AccelMailbox *mb)
{
  guint n, n_woken;
  gboolean was_ended;

  g_mutex_lock (&mb->lock);
  was_ended = mb->ended;
  n = end_unlocked (mb, &n_woken);
  g_mutex_unlock (&mb->lock);
  /* a source's mailbox takes control messages only */
  if (!was_ended && mb->n_ports > 0)
    g_debug ("%s takes no more: %u queued buffers dropped, %u waiting "
             "producers woken",
        consumer_name (mb), n, n_woken);
}

/**
 * accel_mailbox_drain:
 * @mb: a mailbox
 *
 * Drops every queued buffer, for a flush; end of stream survives it.
 *
 * Returns: how many buffers were dropped.
 * Called from the consumer stage's thread only.
 */
guint
accel_mailbox_drain (AccelMailbox *mb)
{
  guint n = 0;

  g_mutex_lock (&mb->lock);
  learn_consumer (mb);
  for (guint i = 0; i < mb->n_ports; i++)
    {
      GQueue keep = G_QUEUE_INIT;
      gpointer item;
      /* end of stream survives a flush */
      while ((item = g_queue_pop_head (&mb->ports[i].items)))
        {
          if (item == EOS_ITEM)
            g_queue_push_tail (&keep, item);
          else
            n += free_item (item);
        }
      mb->ports[i].items = keep;
      g_cond_broadcast (&mb->ports[i].room);
    }
  g_mutex_unlock (&mb->lock);
  g_debug ("flush: %s dropped %u queued buffers", consumer_name (mb), n);
  return n;
}

/**
 * accel_mailbox_get_n_dropped:
 * @mb: a mailbox
 *
 * Returns: the buffers dropped so far: without a partner of their sequence
 * on the other inputs, or queued when the stream ended. MT safe.
 */
guint64
accel_mailbox_get_n_dropped (AccelMailbox *mb)
{
  guint64 n;

  g_mutex_lock (&mb->lock);
  n = mb->n_dropped;
  g_mutex_unlock (&mb->lock);
  return n;
}

/**
 * accel_mailbox_note_dropped:
 * @mb: a mailbox whose consumer has ended its stream
 *
 * Counts a buffer its producer no longer pushes, having learnt that the
 * consumer takes no more, as one pushed and dropped: so the consumer's
 * dropped buffers are every one it never took. MT safe.
 */
void
accel_mailbox_note_dropped (AccelMailbox *mb)
{
  g_mutex_lock (&mb->lock);
  mb->n_dropped += !mb->closed;
  g_mutex_unlock (&mb->lock);
}

/**
 * accel_mailbox_get_max_queued:
 * @mb: a mailbox
 *
 * Returns: the most buffers that were queued on one input at a time.
 * MT safe.
 */
guint
accel_mailbox_get_max_queued (AccelMailbox *mb)
{
  guint n;

  g_mutex_lock (&mb->lock);
  n = mb->max_queued;
  g_mutex_unlock (&mb->lock);
  return n;
}

/**
 * accel_mailbox_get_n_queued:
 * @mb: a mailbox
 *
 * Returns: the buffers queued now on the fullest input. MT safe.
 */
guint
accel_mailbox_get_n_queued (AccelMailbox *mb)
{
  guint n = 0;

  g_mutex_lock (&mb->lock);
  for (guint p = 0; p < mb->n_ports; p++)
    n = MAX (n, mb->ports[p].items.length);
  g_mutex_unlock (&mb->lock);
  return n;
}

/* the source: ready while a control message or a frame waits */

typedef struct
{
  GSource source;
  AccelMailbox *mb;
} MailboxSource;

static gboolean
mailbox_source_ready (AccelMailbox *mb, gboolean may_sleep)
{
  gboolean ready, falls_asleep = FALSE;

  g_mutex_lock (&mb->lock);
  ready = mb->control.length > 0 || mb->closed || frame_ready_unlocked (mb);
  if (!ready && may_sleep)
    {
      falls_asleep = !mb->sleeping && mb->n_ports > 0;
      mb->sleeping = TRUE;
    }
  g_mutex_unlock (&mb->lock);
  if (falls_asleep)
    ACCEL_TRACE ("%s has no frame to take: sleeps until a push wakes it",
        consumer_name (mb));
  return ready;
}

static gboolean
mailbox_source_prepare (GSource *source, gint *timeout)
{
  *timeout = -1;
  return mailbox_source_ready (((MailboxSource *)source)->mb, TRUE);
}

static gboolean
mailbox_source_check (GSource *source)
{
  return mailbox_source_ready (((MailboxSource *)source)->mb, FALSE);
}

static gboolean
mailbox_source_dispatch (
    GSource *source, GSourceFunc callback, gpointer user_data)
{
  return callback (user_data);
}

static GSourceFuncs mailbox_source_funcs = {
  .prepare = mailbox_source_prepare,
  .check = mailbox_source_check,
  .dispatch = mailbox_source_dispatch,
};

/**
 * accel_mailbox_source_new:
 * @mb: a mailbox, which must outlive the source
 *
 * A source that is ready while a control message or a whole frame waits, or
 * once the mailbox is closed; attach it to the consumer's context.
 *
 * Returns: (transfer full): the source. Called from the thread that starts
 * the stage.
 */
GSource *
accel_mailbox_source_new (AccelMailbox *mb)
{
  MailboxSource *ms = (MailboxSource *)g_source_new (
      &mailbox_source_funcs, sizeof (MailboxSource));

  g_source_set_static_name (&ms->source, "accel-mailbox");
  ms->mb = mb;
  return &ms->source;
}

/**
 * accel_mailbox_is_closed:
 * @mb: a mailbox
 *
 * Returns: whether accel_mailbox_close() was called. MT safe.
 */
gboolean
accel_mailbox_is_closed (AccelMailbox *mb)
{
  gboolean closed;

  g_mutex_lock (&mb->lock);
  closed = mb->closed;
  g_mutex_unlock (&mb->lock);
  return closed;
}
