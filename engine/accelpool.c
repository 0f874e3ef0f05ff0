/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: bounded buffer pools; a buffer comes back when its last ref goes */
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
  guint n_allocated; /* free + outstanding + being allocated */
  guint n_outstanding;
  guint peak_outstanding;
  guint n_waiting; /* threads in g_cond_wait */
  gboolean flushing;
};

G_DEFINE_FINAL_TYPE (AccelPool, accel_pool, G_TYPE_OBJECT)

/* a pool waits this long for a free buffer unless told otherwise */
#define DEFAULT_TIMEOUT_US (10 * G_USEC_PER_SEC)

static void
accel_pool_finalize (GObject *object)
{
  AccelPool *self = ACCEL_POOL (object);
  AccelBuffer *buf;

  /* outstanding buffers hold a ref, so every buffer is free by now */
  while ((buf = g_queue_pop_head (&self->free)))
    accel_buffer_free (buf);
  g_object_unref (self->device);
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
 * Returns: (transfer full): a new pool.
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
  return self;
}

/**
 * accel_pool_peek_type:
 * @pool: a pool
 *
 * Returns: (transfer none): the type of the pool's buffers.
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
 * Returns: (transfer none): the device of the pool's buffers.
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
 * MT safe.
 */
void
accel_pool_set_timeout (AccelPool *pool, gint64 timeout_us)
{
  g_return_if_fail (ACCEL_IS_POOL (pool));
  g_mutex_lock (&pool->lock);
  pool->timeout_us = timeout_us;
  g_mutex_unlock (&pool->lock);
}

gint64
accel_pool_get_timeout (AccelPool *pool)
{
  g_return_val_if_fail (ACCEL_IS_POOL (pool), 0);
  return pool->timeout_us;
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
 * MT safe.
 */
AccelBuffer *
accel_pool_acquire (AccelPool *pool, GError **error)
{
  AccelBuffer *buf = NULL;
  gint64 deadline;

  g_return_val_if_fail (ACCEL_IS_POOL (pool), NULL);

  g_mutex_lock (&pool->lock);
  deadline
      = pool->timeout_us < 0 ? -1 : g_get_monotonic_time () + pool->timeout_us;
  for (;;)
    {
      if (pool->flushing)
        goto flushing;
      buf = g_queue_pop_head (&pool->free);
      if (buf)
        break;
      if (pool->n_allocated < pool->max_buffers)
        {
          /* reserve the slot, allocate unlocked: allocations are slow */
          pool->n_allocated++;
          g_mutex_unlock (&pool->lock);
          buf = accel_buffer_alloc (pool->device, &pool->type, error);
          g_mutex_lock (&pool->lock);
          if (!buf)
            {
              pool->n_allocated--;
              g_cond_signal (&pool->cond);
              g_mutex_unlock (&pool->lock);
              return NULL;
            }
          g_debug ("pool %p: allocated buffer %u of %u", pool,
              pool->n_allocated, pool->max_buffers);
          break;
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
  pool->n_outstanding++;
  pool->peak_outstanding = MAX (pool->peak_outstanding, pool->n_outstanding);
  g_mutex_unlock (&pool->lock);

  accel_buffer_reset_for_pool (buf, g_object_ref (pool));
  return buf;

  /* ERRORS */
flushing:
  {
    g_mutex_unlock (&pool->lock);
    g_set_error_literal (
        error, ACCEL_ERROR, ACCEL_ERROR_STOPPED, "the buffer pool is flushing");
    return NULL;
  }
timeout:
  {
    guint max = pool->max_buffers;
    gint64 ms = pool->timeout_us / 1000;
    g_mutex_unlock (&pool->lock);
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT,
        "all %u buffers of the pool stayed in use for %" G_GINT64_FORMAT " ms",
        max, ms);
    return NULL;
  }
}

/* the last reference of a handed-out buffer is gone */
void
accel_pool_return (AccelPool *pool, AccelBuffer *buffer)
{
  g_mutex_lock (&pool->lock);
  g_queue_push_tail (&pool->free, buffer);
  pool->n_outstanding--;
  /* a signal is a syscall even with nobody waiting */
  if (pool->n_waiting > 0)
    g_cond_signal (&pool->cond);
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
  g_return_if_fail (ACCEL_IS_POOL (pool));
  g_mutex_lock (&pool->lock);
  pool->flushing = flushing;
  g_cond_broadcast (&pool->cond);
  g_mutex_unlock (&pool->lock);
}

guint
accel_pool_get_max_buffers (AccelPool *pool)
{
  g_return_val_if_fail (ACCEL_IS_POOL (pool), 0);
  return pool->max_buffers;
}

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
  guint n;

  g_return_val_if_fail (ACCEL_IS_POOL (pool), 0);
  g_mutex_lock (&pool->lock);
  slack = pool->free;
  g_queue_init (&pool->free);
  n = slack.length;
  pool->n_allocated -= n;
  g_cond_broadcast (&pool->cond);
  g_mutex_unlock (&pool->lock);

  while ((buf = g_queue_pop_head (&slack)))
    accel_buffer_free (buf);
  return n;
}
