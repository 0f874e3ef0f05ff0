/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: bounded buffer pools; a buffer comes back when its last ref goes.
 * G_MESSAGES_DEBUG=accel-pool tells when a pool allocates, when a stage
 * waits for a free buffer and for how long, timeouts, flushes and trims */
#define G_LOG_DOMAIN "accel-pool"

#include "accel-private.h"

struct _AccelPool
{
  GObject parent;

  AccelDevice *device;
  AccelType type;
  guint max_buffers;
  gint64 timeout_us;

  GMutex lock;
  GCond cond;
  GQueue free;       /* AccelBuffer* ready to hand out */
  guint n_allocated; /* free + outstanding + being allocated or trimmed */
  guint n_outstanding;
  guint peak_outstanding;
  guint n_waiting;      /* threads in g_cond_wait */
  GSource *wake;        /* a stage's, made ready once a buffer may be had */
  gboolean wake_waited; /* its frame has waited here: counted once */
  guint64 n_waits;      /* acquires that had to wait */
  gboolean flushing;
  guint8 *slot_taken; /* per slot: a buffer of the pool has it */
};

G_DEFINE_FINAL_TYPE (AccelPool, accel_pool, G_TYPE_OBJECT)

/* who acquires, for messages: the stage this thread works for, as the stage
 * loop tells the error module */
static const char *
current_name (void)
{
  const char *name = accel_error_get_stage_name ();

  return name ? name : "?";
}

/* a pool waits this long for a free buffer unless told otherwise */
#define DEFAULT_TIMEOUT_US (10 * G_USEC_PER_SEC)

static void
accel_pool_finalize (GObject *object)
{
  AccelPool *self = ACCEL_POOL (object);
  AccelBuffer *buf;

  g_debug ("pool %p: freeing %u buffers; at most %u of %u were handed out",
      self, self->free.length, self->peak_outstanding, self->max_buffers);
  g_clear_pointer (&self->wake, g_source_unref);
  /* outstanding buffers hold a ref, so every buffer is free by now */
  while ((buf = g_queue_pop_head (&self->free)))
    accel_buffer_free (buf);
  g_object_unref (self->device);
  g_free (self->slot_taken);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  G_OBJECT_CLASS (accel_pool_parent_class)->finalize (object);
}

static void
accel_pool_class_init (AccelPoolClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = accel_pool_finalize;
}

static void
accel_pool_init (AccelPool *self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  g_queue_init (&self->free);
  self->timeout_us = DEFAULT_TIMEOUT_US;
}

/**
 * accel_pool_new:
 * @device: where the buffers live
 * @type: a fixed type for every buffer of the pool
 * @max_buffers: the most buffers the pool ever holds (at least 1)
 *
 * Buffers are allocated on demand up to @max_buffers; after that
 * accel_pool_acquire() waits for one to come back.
 *
 * Returns: (transfer full): a new pool. MT safe.
 */
AccelPool *
accel_pool_new (AccelDevice *device, const AccelType *type, guint max_buffers)
{
  AccelPool *self;

  g_return_val_if_fail (ACCEL_IS_DEVICE (device), NULL);
  g_return_val_if_fail (type != NULL && accel_type_is_fixed (type), NULL);
  g_return_val_if_fail (max_buffers > 0, NULL);

  self = g_object_new (ACCEL_TYPE_POOL, NULL);
  self->device = g_object_ref (device);
  self->type = *type;
  self->max_buffers = max_buffers;
  self->slot_taken = g_new0 (guint8, max_buffers);
  /* the type's text is built only when someone reads it */
  if (!g_log_writer_default_would_drop (G_LOG_LEVEL_DEBUG, G_LOG_DOMAIN))
    {
      g_autofree gchar *text = accel_type_to_string (type);
      g_debug ("pool %p: up to %u buffers of %s on %s", self, max_buffers, text,
          accel_device_get_name (device));
    }
  return self;
}

/**
 * accel_pool_peek_type:
 * @pool: a pool
 *
 * Returns: (transfer none): the type of the pool's buffers, as long as the
 * pool lives. MT safe.
 */
const AccelType *
accel_pool_peek_type (AccelPool *pool)
{
  g_return_val_if_fail (ACCEL_IS_POOL (pool), NULL);
  return &pool->type;
}

/**
 * accel_pool_get_device:
 * @pool: a pool
 *
 * Returns: (transfer none): the device of the pool's buffers. MT safe.
 */
AccelDevice *
accel_pool_get_device (AccelPool *pool)
{
  g_return_val_if_fail (ACCEL_IS_POOL (pool), NULL);
  return pool->device;
}

/**
 * accel_pool_set_timeout:
 * @pool: a pool
 * @timeout_us: how long accel_pool_acquire() waits for a free buffer:
 *   0 fails at once, %ACCEL_POOL_WAIT_FOREVER never gives up
 *
 * Takes effect at the next acquire. MT safe.
 */
void
accel_pool_set_timeout (AccelPool *pool, gint64 timeout_us)
{
  g_return_if_fail (ACCEL_IS_POOL (pool));
  g_mutex_lock (&pool->lock);
  pool->timeout_us = timeout_us;
  g_mutex_unlock (&pool->lock);
}

/**
 * accel_pool_get_timeout:
 * @pool: a pool
 *
 * Returns: how long accel_pool_acquire() waits for a free buffer, in
 * microseconds, or %ACCEL_POOL_WAIT_FOREVER. MT safe.
 */
gint64
accel_pool_get_timeout (AccelPool *pool)
{
  gint64 timeout_us;

  g_return_val_if_fail (ACCEL_IS_POOL (pool), 0);
  g_mutex_lock (&pool->lock);
  timeout_us = pool->timeout_us;
  g_mutex_unlock (&pool->lock);
  return timeout_us;
}

/* the free buffer of @slot, or NULL */
static AccelBuffer *
take_slot_locked (AccelPool *pool, guint slot)
{
  for (GList *l = pool->free.head; l; l = l->next)
    if (accel_buffer_get_pool_slot (l->data) == slot)
      {
        AccelBuffer *buf = l->data;
        g_queue_delete_link (&pool->free, l);
        return buf;
      }
  return NULL;
}

static guint
first_untaken_locked (AccelPool *pool)
{
  guint slot = 0;

  while (pool->slot_taken[slot])
    slot++;
  return slot;
}

/* the stage whose frame waits for a buffer (accel_pool_acquire_or_wake ())
 * is woken once. Under the lock, so that once accel_pool_forget_wake ()
 * has returned no wake of the stage's is under way (the lock order is the
 * pool's, then the context's, as when the wake is armed) */
static void
wake_locked (AccelPool *pool)
{
  if (!pool->wake)
    return;
  g_source_set_ready_time (pool->wake, 0);
  g_clear_pointer (&pool->wake, g_source_unref);
}

/* @slot: the slot preferred, or -1. With @wake, waits for no buffer: when
 * every one is in use, arms @wake and returns NULL without an error; the
 * wait began at *@since (0: now, which it sets) */
static AccelBuffer *
acquire (
    AccelPool *pool, gint slot, GSource *wake, gint64 *since, GError **error)
{
  AccelBuffer *buf = NULL;
  GError *alloc_error = NULL;
  gint64 deadline = -1, t_wait = since ? *since : 0;
  gboolean waited = FALSE;
  guint new_slot = 0;

  g_mutex_lock (&pool->lock);
  for (;;)
    {
      gboolean slot_free;

      if (pool->flushing)
        goto flushing;
      if (slot >= 0 && (buf = take_slot_locked (pool, slot)))
        break;
      /* the slot's buffer is yet to be made: make it rather than take
       * another's */
      slot_free = slot >= 0 && !pool->slot_taken[slot];
      if (!slot_free && (buf = g_queue_pop_head (&pool->free)))
        break;
      if (pool->n_allocated < pool->max_buffers)
        {
          new_slot = slot_free ? (guint)slot : first_untaken_locked (pool);
          /* reserve the slot, allocate unlocked: allocations are slow */
          pool->slot_taken[new_slot] = TRUE;
          pool->n_allocated++;
          g_mutex_unlock (&pool->lock);
          buf = accel_buffer_alloc (pool->device, &pool->type, &alloc_error);
          g_mutex_lock (&pool->lock);
          if (!buf)
            goto alloc_failed;
          accel_buffer_set_pool_slot (buf, new_slot);
          accel_buffer_set_unzeroed (buf);
          g_debug ("pool %p: allocated buffer %u of %u", pool,
              pool->n_allocated, pool->max_buffers);
          break;
        }
      /* the clock is read only when there is a wait: a free buffer is
       * the hot path, once a frame and stage. A frame that waits off its
       * thread counts once here, its wait since its first on any pool */
      if (wake ? !pool->wake_waited : !waited)
        pool->n_waits++;
      waited = TRUE;
      if (t_wait == 0)
        t_wait = g_get_monotonic_time ();
      deadline = accel_deadline_from (t_wait, pool->timeout_us);
      if (wake)
        {
          pool->wake_waited = TRUE;
          if (deadline >= 0 && g_get_monotonic_time () >= deadline)
            goto timeout;
          g_clear_pointer (&pool->wake, g_source_unref);
          pool->wake = g_source_ref (wake);
          g_source_set_ready_time (wake, deadline);
          *since = t_wait;
          g_mutex_unlock (&pool->lock);
          return NULL;
        }
      pool->n_waiting++;
      if (deadline < 0)
        {
          g_cond_wait (&pool->cond, &pool->lock);
        }
      else if (!g_cond_wait_until (&pool->cond, &pool->lock, deadline))
        {
          pool->n_waiting--;
          goto timeout;
        }
      pool->n_waiting--;
    }
  if (wake)
    {
      waited = pool->wake_waited;
      pool->wake_waited = FALSE;
    }
  pool->n_outstanding++;
  pool->peak_outstanding = MAX (pool->peak_outstanding, pool->n_outstanding);
  g_mutex_unlock (&pool->lock);

  /* a pool that sets the pace: in a steady state, once a frame */
  if (waited)
    ACCEL_TRACE ("pool %p: all %u buffers were in use: '%s' waited "
                 "%" G_GINT64_FORMAT " us for one",
        pool, pool->max_buffers, current_name (),
        g_get_monotonic_time () - t_wait);
  accel_buffer_reset_for_pool (buf, g_object_ref (pool));
  return buf;

  /* ERRORS */
alloc_failed:
  {
    pool->slot_taken[new_slot] = FALSE;
    pool->n_allocated--;
    g_cond_signal (&pool->cond);
    g_mutex_unlock (&pool->lock);
    g_debug (
        "pool %p: allocating a buffer failed: %s", pool, alloc_error->message);
    g_propagate_error (error, alloc_error);
    return NULL;
  }
flushing:
  {
    g_mutex_unlock (&pool->lock);
    g_debug ("pool %p: '%s' is refused a buffer: the pool is flushing", pool,
        current_name ());
    g_set_error_literal (
        error, ACCEL_ERROR, ACCEL_ERROR_STOPPED, "the buffer pool is flushing");
    return NULL;
  }
timeout:
  {
    guint max = pool->max_buffers;
    gint64 ms = pool->timeout_us / 1000;
    pool->wake_waited = FALSE;
    g_mutex_unlock (&pool->lock);
    g_debug ("pool %p: '%s' timed out: all %u buffers stayed in use for "
             "%" G_GINT64_FORMAT " ms",
        pool, current_name (), max, ms);
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT,
        "all %u buffers of the pool stayed in use for %" G_GINT64_FORMAT " ms",
        max, ms);
    return NULL;
  }
}

/**
 * accel_pool_acquire:
 * @pool: a pool
 * @error: return location for a #GError, or %NULL
 *
 * Hands out a free buffer, allocating one while the pool is below its
 * bound, else waiting up to the pool's timeout. The buffer returns to the
 * pool when its last reference is dropped. Its synchronization state comes
 * with it: acquire it for writing before writing.
 *
 * Returns: (transfer full): a buffer, or %NULL with %ACCEL_ERROR_TIMEOUT
 * (exhausted), %ACCEL_ERROR_STOPPED (flushing) or an allocation error.
 * MT safe; may block the calling thread (a stage's, typically).
 */
AccelBuffer *
accel_pool_acquire (AccelPool *pool, GError **error)
{
  g_return_val_if_fail (ACCEL_IS_POOL (pool), NULL);
  return acquire (pool, -1, NULL, NULL, error);
}

/* the slot a frame of @sequence prefers in step */
static gint
slot_in_step (AccelPool *pool, guint64 sequence)
{
  return (gint)(sequence % pool->max_buffers);
}

/* as accel_pool_acquire(), preferring the buffer of slot @sequence modulo
 * the pool's bound: in graph mode every pool of a segment then cycles
 * through its buffers in step, and the same few sets of addresses come
 * back (each a captured graph to replay) */
AccelBuffer *
accel_pool_acquire_in_step (AccelPool *pool, guint64 sequence, GError **error)
{
  return acquire (pool, slot_in_step (pool, sequence), NULL, NULL, error);
}

/* as accel_pool_acquire () (or its in-step form, with @in_step), for a
 * stage whose thread runs other stages: waiting there would hold up the
 * stages that would give a buffer back. So when every buffer is in use it
 * returns NULL without an error and makes @wake ready (from the thread
 * that frees one) once a buffer may be had, or at the pool's timeout,
 * counted from *@since (0: now, which it sets); acquiring again then
 * hands one out, or fails with the timeout's error once it has passed.
 * Called from the stage's thread; @wake is made ready from whichever
 * thread gives a buffer back */
AccelBuffer *
accel_pool_acquire_or_wake (AccelPool *pool, gboolean in_step, guint64 sequence,
    GSource *wake, gint64 *since, GError **error)
{
  return acquire (
      pool, in_step ? slot_in_step (pool, sequence) : -1, wake, since, error);
}

/* the stage stops waiting: @wake is not made ready by @pool any more,
 * nor is it being made so once this returns. Stage thread */
void
accel_pool_forget_wake (AccelPool *pool, GSource *wake)
{
  g_mutex_lock (&pool->lock);
  if (pool->wake == wake)
    g_clear_pointer (&pool->wake, g_source_unref);
  g_mutex_unlock (&pool->lock);
}

/* the last reference of a handed-out buffer is gone; MT safe: called from
 * whichever thread dropped it */
void
accel_pool_return (AccelPool *pool, AccelBuffer *buffer)
{
  g_mutex_lock (&pool->lock);
  g_queue_push_tail (&pool->free, buffer);
  pool->n_outstanding--;
  /* a signal is a syscall even with nobody waiting */
  if (pool->n_waiting > 0)
    g_cond_signal (&pool->cond);
  wake_locked (pool);
  g_mutex_unlock (&pool->lock);
  /* may finalize the pool, which frees @buffer with the others */
  g_object_unref (pool);
}

/**
 * accel_pool_set_flushing:
 * @pool: a pool
 * @flushing: whether acquiring should fail at once
 *
 * While flushing, waiters wake up and every acquire fails with
 * %ACCEL_ERROR_STOPPED; the graph does this when it stops. MT safe.
 */
void
accel_pool_set_flushing (AccelPool *pool, gboolean flushing)
{
  guint n_woken;

  g_return_if_fail (ACCEL_IS_POOL (pool));
  g_mutex_lock (&pool->lock);
  pool->flushing = flushing;
  n_woken = pool->n_waiting;
  g_cond_broadcast (&pool->cond);
  wake_locked (pool);
  g_mutex_unlock (&pool->lock);
  g_debug ("pool %p: %s (%u waiting stages woken)", pool,
      flushing ? "flushing, acquires fail" : "no longer flushing", n_woken);
}

/**
 * accel_pool_get_max_buffers:
 * @pool: a pool
 *
 * Returns: the most buffers the pool ever holds. MT safe.
 */
guint
accel_pool_get_max_buffers (AccelPool *pool)
{
  g_return_val_if_fail (ACCEL_IS_POOL (pool), 0);
  return pool->max_buffers;
}

/**
 * accel_pool_get_n_allocated:
 * @pool: a pool
 *
 * Returns: how many buffers the pool holds now, free or handed out.
 * MT safe.
 */
guint
accel_pool_get_n_allocated (AccelPool *pool)
{
  guint n;

  g_return_val_if_fail (ACCEL_IS_POOL (pool), 0);
  g_mutex_lock (&pool->lock);
  n = pool->n_allocated;
  g_mutex_unlock (&pool->lock);
  return n;
}

/**
 * accel_pool_get_n_outstanding:
 * @pool: a pool
 *
 * Returns: how many of the pool's buffers are handed out now. MT safe.
 */
guint
accel_pool_get_n_outstanding (AccelPool *pool)
{
  guint n;

  g_return_val_if_fail (ACCEL_IS_POOL (pool), 0);
  g_mutex_lock (&pool->lock);
  n = pool->n_outstanding;
  g_mutex_unlock (&pool->lock);
  return n;
}

/**
 * accel_pool_get_peak_outstanding:
 * @pool: a pool
 *
 * Returns: the most buffers that were handed out at one time. MT safe.
 */
guint
accel_pool_get_peak_outstanding (AccelPool *pool)
{
  guint n;

  g_return_val_if_fail (ACCEL_IS_POOL (pool), 0);
  g_mutex_lock (&pool->lock);
  n = pool->peak_outstanding;
  g_mutex_unlock (&pool->lock);
  return n;
}

/**
 * accel_pool_get_n_waits:
 * @pool: a pool
 *
 * Returns: how many acquires found every buffer in use and waited for one.
 * MT safe.
 */
guint64
accel_pool_get_n_waits (AccelPool *pool)
{
  guint64 n;

  g_return_val_if_fail (ACCEL_IS_POOL (pool), 0);
  g_mutex_lock (&pool->lock);
  n = pool->n_waits;
  g_mutex_unlock (&pool->lock);
  return n;
}

/**
 * accel_pool_trim:
 * @pool: a pool
 *
 * Frees the buffers that are not handed out (slack), for example to retry an
 * allocation that ran out of memory.
 *
 * Returns: how many buffers were freed. MT safe.
 */
guint
accel_pool_trim (AccelPool *pool)
{
  GQueue slack = G_QUEUE_INIT;
  AccelBuffer *buf;
  guint n, n_left, n_out;

  g_return_val_if_fail (ACCEL_IS_POOL (pool), 0);
  g_mutex_lock (&pool->lock);
  slack = pool->free;
  g_queue_init (&pool->free);
  n = slack.length;
  g_mutex_unlock (&pool->lock);

  /* each buffer keeps its slot and its count until its memory is gone: an
   * acquire meanwhile waits for it rather than allocating past the pool's
   * slots, or into the memory the trim is freeing */
  while ((buf = g_queue_pop_head (&slack)))
    {
      guint slot = accel_buffer_get_pool_slot (buf);

      accel_buffer_free (buf);
      g_mutex_lock (&pool->lock);
      pool->slot_taken[slot] = FALSE;
      pool->n_allocated--;
      g_cond_broadcast (&pool->cond);
      wake_locked (pool);
      g_mutex_unlock (&pool->lock);
    }

  g_mutex_lock (&pool->lock);
  n_left = pool->n_allocated;
  n_out = pool->n_outstanding;
  g_mutex_unlock (&pool->lock);
  g_debug ("pool %p: trimmed %u free buffers; %u left, %u of them handed out",
      pool, n, n_left, n_out);
  return n;
}
