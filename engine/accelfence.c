/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: events and fences, the one place that orders streams: every
 * inter-stage cudaStreamWaitEvent and cudaEventRecord is here */
#define G_LOG_DOMAIN "accel-fence"

#include "accel-private.h"

struct _AccelEvent
{
  gint refcount;
  AccelDevice *device;
  cudaEvent_t handle;
};

/* one reader stream's fence: recorded when that reader releases */
typedef struct
{
  AccelStream *stream;
  AccelEvent *event;
  gboolean active; /* recorded since the last write began */
} ReadFence;

struct _AccelFence
{
  GMutex lock;
  AccelDevice *device;
  AccelEvent *write_event;
  AccelStream *last_write_stream;
  GArray *reads; /* ReadFence */
};

/* events */

AccelEvent *
accel_event_new (AccelDevice *device, GError **error)
{
  cudaEvent_t handle;
  AccelEvent *ev;

  if (!accel_device_make_current (device, error)
      || !accel_cuda_check (
          cudaEventCreateWithFlags (&handle, cudaEventDisableTiming), error))
    return NULL;
  ev = g_new0 (AccelEvent, 1);
  ev->refcount = 1;
  ev->device = g_object_ref (device);
  ev->handle = handle;
  return ev;
}

AccelEvent *
accel_event_ref (AccelEvent *ev)
{
  g_atomic_int_inc (&ev->refcount);
  return ev;
}

void
accel_event_unref (AccelEvent *ev)
{
  if (!g_atomic_int_dec_and_test (&ev->refcount))
    return;
  accel_device_make_current (ev->device, NULL);
  accel_cuda_check (cudaEventDestroy (ev->handle), NULL);
  g_object_unref (ev->device);
  g_free (ev);
}

/* re-recording an event others still hold only makes them wait for a later
 * point of the same stream: later, never wrong; a wait already enqueued
 * keeps the record it saw */
gboolean
accel_event_record (AccelEvent *ev, AccelStream *stream, GError **error)
{
  return accel_cuda_check (
      cudaEventRecord (ev->handle, accel_stream_get_cuda (stream)), error);
}

/* fences */

/**
 * accel_fence_new: (skip)
 * @device: the device whose streams touch the memory
 *
 * Returns: (transfer full): a fence with no reader and no writer yet.
 * MT safe.
 */
AccelFence *
accel_fence_new (AccelDevice *device)
{
  AccelFence *fence = g_new0 (AccelFence, 1);

  g_return_val_if_fail (ACCEL_IS_DEVICE (device), NULL);
  g_mutex_init (&fence->lock);
  fence->device = g_object_ref (device);
  fence->reads = g_array_new (FALSE, TRUE, sizeof (ReadFence));
  return fence;
}

/**
 * accel_fence_free: (skip)
 * @fence: (transfer full): a fence
 *
 * Frees the fence and drops its events. MT safe, once no one else uses
 * @fence.
 */
void
accel_fence_free (AccelFence *fence)
{
  if (!fence)
    return;
  for (guint i = 0; i < fence->reads->len; i++)
    {
      ReadFence *f = &g_array_index (fence->reads, ReadFence, i);
      g_clear_pointer (&f->event, accel_event_unref);
      g_clear_pointer (&f->stream, accel_stream_unref);
    }
  g_array_unref (fence->reads);
  g_clear_pointer (&fence->write_event, accel_event_unref);
  g_clear_pointer (&fence->last_write_stream, accel_stream_unref);
  g_object_unref (fence->device);
  g_mutex_clear (&fence->lock);
  g_free (fence);
}

static gboolean
same_stream (AccelStream *a, AccelStream *b)
{
  return a == b
         || (a && b && accel_stream_get_cuda (a) == accel_stream_get_cuda (b));
}

/* nothing to order for a stream without a handle (the host backend's) */
static inline gboolean
has_handle (AccelStream *stream)
{
  return stream && accel_stream_get_cuda (stream);
}

static gboolean
stream_wait (AccelStream *stream, AccelStream *other, AccelEvent *event,
    const char *why, AccelDebugFlags skip, GError **error)
{
  if (G_UNLIKELY (accel_debug_has (skip)))
    {
      ACCEL_TRACE ("stream %u skips its wait for stream %u (%s): debug flag",
          accel_stream_get_id (stream), accel_stream_get_id (other), why);
      return TRUE;
    }
  ACCEL_TRACE ("stream %u waits for stream %u (%s)",
      accel_stream_get_id (stream), accel_stream_get_id (other), why);
  return accel_cuda_check (
      cudaStreamWaitEvent (accel_stream_get_cuda (stream), event->handle, 0),
      error);
}

/**
 * accel_fence_acquire_read:
 * @fence: a fence
 * @stream: the stream about to read
 * @error: return location for a #GError, or %NULL
 *
 * Makes @stream wait, on the GPU, for the last write when that was on
 * another stream (read after write). The host does not block.
 *
 * Returns: %FALSE on a CUDA error. MT safe.
 */
gboolean
accel_fence_acquire_read (
    AccelFence *fence, AccelStream *stream, GError **error)
{
  gboolean ok = TRUE;

  g_return_val_if_fail (fence != NULL, FALSE);
  if (!has_handle (stream))
    return TRUE;

  g_mutex_lock (&fence->lock);
  if (fence->last_write_stream
      && !same_stream (fence->last_write_stream, stream))
    ok = stream_wait (stream, fence->last_write_stream, fence->write_event,
        "RAW", ACCEL_DEBUG_SKIP_READ_WAIT, error);
  g_mutex_unlock (&fence->lock);
  return ok;
}

/**
 * accel_fence_acquire_write:
 * @fence: a fence
 * @stream: the stream about to write
 * @error: return location for a #GError, or %NULL
 *
 * Makes @stream wait, on the GPU, for every reader on another stream since
 * the last write (write after read) and for the last write on another
 * stream (write after write).
 *
 * Returns: %FALSE on a CUDA error. MT safe.
 */
gboolean
accel_fence_acquire_write (
    AccelFence *fence, AccelStream *stream, GError **error)
{
  gboolean ok = TRUE;

  g_return_val_if_fail (fence != NULL, FALSE);
  if (!has_handle (stream))
    return TRUE;

  g_mutex_lock (&fence->lock);
  for (guint i = 0; i < fence->reads->len && ok; i++)
    {
      ReadFence *f = &g_array_index (fence->reads, ReadFence, i);
      if (f->active && !same_stream (f->stream, stream))
        ok = stream_wait (stream, f->stream, f->event, "WAR",
            ACCEL_DEBUG_SKIP_WRITE_WAIT, error);
      f->active = FALSE;
    }
  if (ok && fence->last_write_stream
      && !same_stream (fence->last_write_stream, stream))
    ok = stream_wait (stream, fence->last_write_stream, fence->write_event,
        "WAW", ACCEL_DEBUG_SKIP_WRITE_WAIT, error);
  g_mutex_unlock (&fence->lock);
  return ok;
}

/* @stream's read completes at @event (already recorded) */
static void
mark_read_unlocked (AccelFence *fence, AccelStream *stream, AccelEvent *event)
{
  ReadFence *fence_of_stream = NULL;

  for (guint i = 0; i < fence->reads->len && !fence_of_stream; i++)
    {
      ReadFence *f = &g_array_index (fence->reads, ReadFence, i);
      if (same_stream (f->stream, stream))
        fence_of_stream = f;
    }
  if (!fence_of_stream)
    {
      ReadFence blank = { accel_stream_ref (stream), NULL, FALSE };
      g_array_append_val (fence->reads, blank);
      fence_of_stream
          = &g_array_index (fence->reads, ReadFence, fence->reads->len - 1);
    }
  if (fence_of_stream->event != event)
    {
      g_clear_pointer (&fence_of_stream->event, accel_event_unref);
      fence_of_stream->event = accel_event_ref (event);
    }
  fence_of_stream->active = TRUE;
}

/* @stream's write completes at @event (already recorded) */
static void
mark_written_unlocked (
    AccelFence *fence, AccelStream *stream, AccelEvent *event)
{
  if (fence->write_event != event)
    {
      g_clear_pointer (&fence->write_event, accel_event_unref);
      fence->write_event = accel_event_ref (event);
    }
  if (fence->last_write_stream != stream)
    {
      g_clear_pointer (&fence->last_write_stream, accel_stream_unref);
      fence->last_write_stream = accel_stream_ref (stream);
    }
}

/* an event of the fence's own to record again, or a new one where another
 * fence shares it (a frame's event) */
static AccelEvent *
own_event_unlocked (AccelFence *fence, AccelEvent *current, GError **error)
{
  if (current && g_atomic_int_get (&current->refcount) == 1)
    return accel_event_ref (current);
  return accel_event_new (fence->device, error);
}

static AccelEvent *
read_event_unlocked (AccelFence *fence, AccelStream *stream)
{
  for (guint i = 0; i < fence->reads->len; i++)
    {
      ReadFence *f = &g_array_index (fence->reads, ReadFence, i);
      if (same_stream (f->stream, stream))
        return f->event;
    }
  return NULL;
}

/* records @stream's event, of the fence's own where it can: the read fence
 * of @stream, or the write event */
static gboolean
release (AccelFence *fence, AccelStream *stream, gboolean write, GError **error)
{
  AccelEvent *ev;
  gboolean ok;

  if (!has_handle (stream))
    return TRUE;

  g_mutex_lock (&fence->lock);
  ev = own_event_unlocked (fence,
      write ? fence->write_event : read_event_unlocked (fence, stream), error);
  ok = ev && accel_event_record (ev, stream, error);
  if (ok && write)
    mark_written_unlocked (fence, stream, ev);
  else if (ok)
    mark_read_unlocked (fence, stream, ev);
  g_mutex_unlock (&fence->lock);
  g_clear_pointer (&ev, accel_event_unref);
  return ok;
}

/**
 * accel_fence_release_read:
 * @fence: a fence
 * @stream: the stream that read, with its reads enqueued
 * @error: return location for a #GError, or %NULL
 *
 * Records @stream's read fence, so the next writer waits for this read.
 *
 * Returns: %FALSE on a CUDA error. MT safe.
 */
gboolean
accel_fence_release_read (
    AccelFence *fence, AccelStream *stream, GError **error)
{
  g_return_val_if_fail (fence != NULL, FALSE);
  return release (fence, stream, FALSE, error);
}

/**
 * accel_fence_release_write:
 * @fence: a fence
 * @stream: the stream that wrote, with its writes enqueued
 * @error: return location for a #GError, or %NULL
 *
 * Records the write event on @stream and makes it the last write stream,
 * so readers on other streams wait for it.
 *
 * Returns: %FALSE on a CUDA error. MT safe.
 */
gboolean
accel_fence_release_write (
    AccelFence *fence, AccelStream *stream, GError **error)
{
  g_return_val_if_fail (fence != NULL, FALSE);
  return release (fence, stream, TRUE, error);
}

/**
 * accel_fence_release_frame:
 * @reads: (array length=n_reads): fences of what the frame read
 * @n_reads: their number
 * @writes: (array length=n_writes): fences of what the frame wrote
 * @n_writes: their number
 * @stream: the stream with the frame's work enqueued
 * @event: an event to record after that work
 * @error: return location for a #GError, or %NULL
 *
 * One event recorded after a frame's work serves as the read fence of
 * every input and the write event of every output: the engine's release.
 *
 * Returns: %FALSE on a CUDA error. MT safe.
 */
gboolean
accel_fence_release_frame (AccelFence **reads, guint n_reads,
    AccelFence **writes, guint n_writes, AccelStream *stream, AccelEvent *event,
    GError **error)
{
  if (!has_handle (stream))
    return TRUE;
  if (!accel_event_record (event, stream, error))
    return FALSE;
  for (guint i = 0; i < n_reads; i++)
    {
      g_mutex_lock (&reads[i]->lock);
      mark_read_unlocked (reads[i], stream, event);
      g_mutex_unlock (&reads[i]->lock);
    }
  for (guint o = 0; o < n_writes; o++)
    {
      g_mutex_lock (&writes[o]->lock);
      mark_written_unlocked (writes[o], stream, event);
      g_mutex_unlock (&writes[o]->lock);
    }
  return TRUE;
}

/**
 * accel_fence_get_last_write_stream:
 * @fence: a fence
 *
 * Returns: (transfer none) (nullable): the stream of the last writer.
 * MT safe.
 */
AccelStream *
accel_fence_get_last_write_stream (AccelFence *fence)
{
  AccelStream *stream;

  g_return_val_if_fail (fence != NULL, NULL);
  g_mutex_lock (&fence->lock);
  stream = fence->last_write_stream;
  g_mutex_unlock (&fence->lock);
  return stream;
}

/**
 * accel_fence_get_n_read_fences:
 * @fence: a fence
 *
 * Returns: how many reader fences a writer would wait for now. MT safe.
 */
guint
accel_fence_get_n_read_fences (AccelFence *fence)
{
  guint n = 0;

  g_return_val_if_fail (fence != NULL, 0);
  g_mutex_lock (&fence->lock);
  for (guint i = 0; i < fence->reads->len; i++)
    n += g_array_index (fence->reads, ReadFence, i).active;
  g_mutex_unlock (&fence->lock);
  return n;
}
