/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: a stage's mailbox: bounded per-port input queues matched by
 * sequence, an unbounded control queue, and the GSource that drives them */
#define G_LOG_DOMAIN "accel-mailbox"

#include "accel-private.h"

/* marks an end-of-stream entry in a port queue */
#define EOS_ITEM ((gpointer)&eos_marker)
static const int eos_marker;

typedef struct
{
  GQueue items;    /* AccelBuffer* or EOS_ITEM */
  GCond room;      /* signalled when an item is taken */
  guint n_waiting; /* producers waiting for room */
  gboolean done;   /* EOS taken: nothing more will come */
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
  guint n_dropped;   /* buffers that found no partner */
  guint max_queued;
  GMainContext *context;
};

AccelMessage *
accel_message_new (AccelMessageType type)
{
  AccelMessage *msg = g_new0 (AccelMessage, 1);

  msg->type = type;
  return msg;
}

void
accel_message_free (AccelMessage *msg)
{
  g_free (msg->name);
  if (G_IS_VALUE (&msg->value))
    g_value_unset (&msg->value);
  g_free (msg);
}

AccelMailbox *
accel_mailbox_new (guint n_ports, guint capacity, GMainContext *context)
{
  AccelMailbox *mb = g_new0 (AccelMailbox, 1);

  g_return_val_if_fail (n_ports <= ACCEL_MAX_PORTS, NULL);
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
  if (item != EOS_ITEM)
    accel_buffer_unref (item);
}

void
accel_mailbox_free (AccelMailbox *mb)
{
  for (guint i = 0; i < mb->n_ports; i++)
    {
      g_queue_clear_full (&mb->ports[i].items, drop_item);
      g_cond_clear (&mb->ports[i].room);
    }
  g_queue_clear_full (&mb->control, (GDestroyNotify)accel_message_free);
  g_main_context_unref (mb->context);
  g_mutex_clear (&mb->lock);
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
 * @buffer: (transfer full): the buffer
 *
 * Blocks while the port's queue is full: that is the backpressure.
 * Returns: %ACCEL_MAILBOX_PUSHED; %ACCEL_MAILBOX_CLOSED or
 *   %ACCEL_MAILBOX_ENDED, dropping @buffer, once the mailbox is closed or its
 *   consumer has ended its stream.
 */
AccelMailboxPush
accel_mailbox_push_buffer (AccelMailbox *mb, guint port, AccelBuffer *buffer)
{
  Port *p = &mb->ports[port];
  AccelMailboxPush res;
  gboolean wake;

  g_mutex_lock (&mb->lock);
  while (p->items.length >= mb->capacity && !mb->closed && !mb->ended)
    {
      p->n_waiting++;
      g_cond_wait (&p->room, &mb->lock);
      p->n_waiting--;
    }
  if (mb->closed || mb->ended)
    {
      res = mb->closed ? ACCEL_MAILBOX_CLOSED : ACCEL_MAILBOX_ENDED;
      g_mutex_unlock (&mb->lock);
      accel_buffer_unref (buffer);
      return res;
    }
  g_queue_push_tail (&p->items, buffer);
  mb->max_queued = MAX (mb->max_queued, p->items.length);
  wake = take_sleeping_unlocked (mb);
  g_mutex_unlock (&mb->lock);

  /* a wakeup is a syscall: only when the consumer may be asleep */
  if (wake)
    g_main_context_wakeup (mb->context);
  return ACCEL_MAILBOX_PUSHED;
}

/* never blocks: for a consumer on the producer's own thread */
AccelMailboxPush
accel_mailbox_try_push_buffer (
    AccelMailbox *mb, guint port, AccelBuffer *buffer)
{
  Port *p = &mb->ports[port];
  AccelMailboxPush res = ACCEL_MAILBOX_PUSHED;

  g_mutex_lock (&mb->lock);
  if (mb->closed)
    res = ACCEL_MAILBOX_CLOSED;
  else if (mb->ended)
    res = ACCEL_MAILBOX_ENDED;
  else if (p->items.length >= mb->capacity)
    res = ACCEL_MAILBOX_FULL;
  else
    {
      g_queue_push_tail (&p->items, buffer);
      mb->max_queued = MAX (mb->max_queued, p->items.length);
    }
  g_mutex_unlock (&mb->lock);
  if (res == ACCEL_MAILBOX_CLOSED || res == ACCEL_MAILBOX_ENDED)
    accel_buffer_unref (buffer);
  return res;
}

/* end of stream is always delivered, even past the bound */
void
accel_mailbox_push_eos (AccelMailbox *mb, guint port)
{
  gboolean wake;

  g_mutex_lock (&mb->lock);
  if (mb->ended)
    {
      g_mutex_unlock (&mb->lock);
      return;
    }
  g_queue_push_tail (&mb->ports[port].items, EOS_ITEM);
  wake = take_sleeping_unlocked (mb);
  g_mutex_unlock (&mb->lock);
  if (wake)
    g_main_context_wakeup (mb->context);
}

/* control messages never block: they must reach a stage whose queues are full
 */
void
accel_mailbox_post (AccelMailbox *mb, AccelMessage *msg)
{
  g_mutex_lock (&mb->lock);
  g_queue_push_tail (&mb->control, msg);
  mb->sleeping = FALSE;
  g_mutex_unlock (&mb->lock);
  g_main_context_wakeup (mb->context);
}

AccelMessage *
accel_mailbox_pop_control (AccelMailbox *mb)
{
  AccelMessage *msg;

  g_mutex_lock (&mb->lock);
  msg = g_queue_pop_head (&mb->control);
  g_mutex_unlock (&mb->lock);
  return msg;
}

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
    accel_buffer_unref (item);
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
 * producers wake and later pushes are refused, so that they learn of it */
static void
end_unlocked (AccelMailbox *mb)
{
  mb->ended = TRUE;
  for (guint i = 0; i < mb->n_ports; i++)
    {
      gpointer item;

      while ((item = g_queue_pop_head (&mb->ports[i].items)))
        if (item != EOS_ITEM)
          {
            accel_buffer_unref (item);
            mb->n_dropped++;
          }
      mb->ports[i].done = TRUE;
      g_cond_broadcast (&mb->ports[i].room);
    }
}

/**
 * accel_mailbox_pop_frame:
 * @buffers: (out caller-allocates): one buffer per port, all of one sequence
 * @eos: (out): set when every port has reached end of stream
 *
 * Fan-in: takes one buffer from each port once all heads carry the same
 * sequence number. A head older than the others has no partner left and is
 * dropped (counted); so are buffers left on a port whose peer has ended.
 *
 * Returns: %TRUE when @buffers or @eos were filled.
 */
gboolean
accel_mailbox_pop_frame (AccelMailbox *mb, AccelBuffer **buffers, gboolean *eos)
{
  gboolean found = FALSE;

  *eos = FALSE;
  g_mutex_lock (&mb->lock);
  while (!found && frame_ready_unlocked (mb))
    {
      guint64 max_seq = 0;
      guint n_done = 0, n_eos_head = 0, n_buffers = 0;

      for (guint i = 0; i < mb->n_ports; i++)
        {
          gpointer head = g_queue_peek_head (&mb->ports[i].items);
          if (mb->ports[i].done && !head)
            n_done++;
          else if (head == EOS_ITEM)
            n_eos_head++;
          else if (head)
            {
              max_seq = MAX (
                  max_seq, accel_buffer_get_sequence ((AccelBuffer *)head));
              n_buffers++;
            }
        }

      if (n_buffers == 0)
        {
          /* every port ended */
          end_unlocked (mb);
          *eos = TRUE;
          found = TRUE;
        }
      else if (n_done + n_eos_head > 0)
        {
          /* some port ended: the others' buffers can never be matched, so
           * the stream is over here; end_unlocked() drops what is queued */
          end_unlocked (mb);
          *eos = TRUE;
          found = TRUE;
        }
      else
        {
          gboolean matched = TRUE;
          for (guint i = 0; i < mb->n_ports; i++)
            {
              AccelBuffer *head = g_queue_peek_head (&mb->ports[i].items);
              if (accel_buffer_get_sequence (head) < max_seq)
                {
                  pop_port_unlocked (mb, i);
                  mb->n_dropped++;
                  matched = FALSE;
                }
            }
          if (matched)
            {
              for (guint i = 0; i < mb->n_ports; i++)
                {
                  buffers[i] = g_queue_pop_head (&mb->ports[i].items);
                  signal_room_unlocked (mb, i);
                }
              found = TRUE;
            }
        }
    }
  g_mutex_unlock (&mb->lock);
  return found;
}

void
accel_mailbox_set_blocked (AccelMailbox *mb, gboolean blocked)
{
  g_mutex_lock (&mb->lock);
  mb->blocked = blocked;
  g_mutex_unlock (&mb->lock);
}

/* wakes every blocked producer; pushes fail from now on */
void
accel_mailbox_close (AccelMailbox *mb)
{
  g_mutex_lock (&mb->lock);
  mb->closed = TRUE;
  for (guint i = 0; i < mb->n_ports; i++)
    g_cond_broadcast (&mb->ports[i].room);
  g_mutex_unlock (&mb->lock);
  g_main_context_wakeup (mb->context);
}

/* the consumer's stream is over (it ended, or has no one left to hand its
 * output to) */
void
accel_mailbox_end (AccelMailbox *mb)
{
  g_mutex_lock (&mb->lock);
  end_unlocked (mb);
  g_mutex_unlock (&mb->lock);
}

/* drops every queued buffer (flush); returns how many */
guint
accel_mailbox_drain (AccelMailbox *mb)
{
  guint n = 0;

  g_mutex_lock (&mb->lock);
  for (guint i = 0; i < mb->n_ports; i++)
    {
      GQueue keep = G_QUEUE_INIT;
      gpointer item;
      /* end of stream survives a flush */
      while ((item = g_queue_pop_head (&mb->ports[i].items)))
        {
          if (item == EOS_ITEM)
            {
              g_queue_push_tail (&keep, item);
            }
          else
            {
              accel_buffer_unref (item);
              n++;
            }
        }
      mb->ports[i].items = keep;
      g_cond_broadcast (&mb->ports[i].room);
    }
  g_mutex_unlock (&mb->lock);
  return n;
}

guint
accel_mailbox_get_n_dropped (AccelMailbox *mb)
{
  guint n;

  g_mutex_lock (&mb->lock);
  n = mb->n_dropped;
  g_mutex_unlock (&mb->lock);
  return n;
}

guint
accel_mailbox_get_max_queued (AccelMailbox *mb)
{
  guint n;

  g_mutex_lock (&mb->lock);
  n = mb->max_queued;
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
  gboolean ready;

  g_mutex_lock (&mb->lock);
  ready = mb->control.length > 0 || mb->closed || frame_ready_unlocked (mb);
  if (!ready && may_sleep)
    mb->sleeping = TRUE;
  g_mutex_unlock (&mb->lock);
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

GSource *
accel_mailbox_source_new (AccelMailbox *mb)
{
  MailboxSource *ms = (MailboxSource *)g_source_new (
      &mailbox_source_funcs, sizeof (MailboxSource));

  g_source_set_static_name (&ms->source, "accel-mailbox");
  ms->mb = mb;
  return &ms->source;
}

gboolean
accel_mailbox_is_closed (AccelMailbox *mb)
{
  gboolean closed;

  g_mutex_lock (&mb->lock);
  closed = mb->closed;
  g_mutex_unlock (&mb->lock);
  return closed;
}
