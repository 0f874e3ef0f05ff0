/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: buffers, and the only place that inserts stream waits */
#define G_LOG_DOMAIN "accel-buffer"

#include "accel-private.h"

#include <stdlib.h>
#include <string.h>

/* one reader stream's fence: recorded when that reader releases the buffer */
typedef struct
{
  AccelStream *stream;
  AccelEvent *event;
  gboolean active;
} ReadFence;

struct _AccelBuffer
{
  gint refcount;
  AccelType type;
  gpointer data;
  gsize size;
  AccelDevice *device;
  guint generation;
  guint64 sequence;
  gint64 pts;
  gint64 duration;

  AccelPool *pool;       /* owned while the buffer is handed out */
  GDestroyNotify notify; /* wrapped memory */
  gpointer notify_data;

  GMutex lock; /* guards the synchronization state */
  AccelEvent *write_event;
  AccelStream *last_write_stream;
  GArray *fences; /* ReadFence */
};

G_DEFINE_BOXED_TYPE (
    AccelBuffer, accel_buffer, accel_buffer_ref, accel_buffer_unref)

static AccelBuffer *
buffer_new_empty (AccelDevice *device, const AccelType *type)
{
  AccelBuffer *buf = g_new0 (AccelBuffer, 1);

  buf->refcount = 1;
  buf->type = *type;
  buf->device = g_object_ref (device);
  buf->generation = accel_device_get_generation (device);
  buf->pts = -1;
  buf->duration = -1;
  g_mutex_init (&buf->lock);
  buf->fences = g_array_new (FALSE, TRUE, sizeof (ReadFence));
  return buf;
}

static gboolean
memory_alloc (AccelDevice *device, AccelMemory memory, gsize size,
    gpointer *data, GError **error)
{
  gboolean on_gpu = !accel_device_is_host (device);
  int status = cudaSuccess;
  const char *what = NULL;

  *data = NULL;
  if (on_gpu && !accel_device_make_current (device, error))
    return FALSE;

  if (on_gpu && memory == ACCEL_MEMORY_DEVICE)
    {
      status = cudaMalloc (data, size);
      what = "cudaMalloc";
    }
  else if (on_gpu && memory == ACCEL_MEMORY_PINNED)
    {
      status = cudaHostAlloc (data, size, cudaHostAllocPortable);
      what = "cudaHostAlloc";
    }
  else if (on_gpu && memory == ACCEL_MEMORY_MANAGED)
    {
      status = cudaMallocManaged (data, size, cudaMemAttachGlobal);
      what = "cudaMallocManaged";
    }
  else if (posix_memalign (data, 64, MAX (size, 1)) != 0)
    {
      *data = NULL;
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_OUT_OF_MEMORY,
          "cannot allocate %" G_GSIZE_FORMAT " bytes of host memory", size);
      return FALSE;
    }

  if (status != cudaSuccess)
    {
      g_autofree gchar *call
          = g_strdup_printf ("%s (%" G_GSIZE_FORMAT " bytes)", what, size);
      *data = NULL;
      return accel_cuda_check_full (status, call, __FILE__, __LINE__, error);
    }
  return TRUE;
}

static void
memory_free (AccelDevice *device, AccelMemory memory, gpointer data)
{
  if (!data)
    return;
  if (accel_device_is_host (device) || memory == ACCEL_MEMORY_HOST)
    {
      free (data);
      return;
    }
  accel_device_make_current (device, NULL);
  if (memory == ACCEL_MEMORY_PINNED)
    accel_cuda_check (cudaFreeHost (data), NULL);
  else
    accel_cuda_check (cudaFree (data), NULL);
}

/* allocates a buffer for @type on @device; used by pools and _new() */
AccelBuffer *
accel_buffer_alloc (AccelDevice *device, const AccelType *type, GError **error)
{
  AccelBuffer *buf;
  gpointer data;
  gsize size = accel_type_get_size (type);

  if (!memory_alloc (device, type->memory, size, &data, error))
    return NULL;
  buf = buffer_new_empty (device, type);
  buf->data = data;
  buf->size = size;
  return buf;
}

/**
 * accel_buffer_new:
 * @device: where the memory lives
 * @type: a fixed type; its memory field says which kind of memory
 * @error: return location for a #GError, or %NULL
 *
 * Allocates a buffer outside any pool. Stages take theirs from pools; this is
 * for applications that push data into a graph.
 *
 * Returns: (transfer full): a new buffer, or %NULL. MT safe.
 */
AccelBuffer *
accel_buffer_new (AccelDevice *device, const AccelType *type, GError **error)
{
  g_return_val_if_fail (ACCEL_IS_DEVICE (device), NULL);
  g_return_val_if_fail (type != NULL && accel_type_is_fixed (type), NULL);
  return accel_buffer_alloc (device, type, error);
}

/**
 * accel_buffer_new_wrapped:
 * @device: where @data lives
 * @type: a fixed type describing @data
 * @data: the memory
 * @size: bytes at @data
 * @notify: (nullable): called with @user_data when the buffer is freed
 * @user_data: data for @notify
 *
 * Returns: (transfer full): a buffer around memory the caller owns.
 */
AccelBuffer *
accel_buffer_new_wrapped (AccelDevice *device, const AccelType *type,
    gpointer data, gsize size, GDestroyNotify notify, gpointer user_data)
{
  AccelBuffer *buf;

  g_return_val_if_fail (ACCEL_IS_DEVICE (device), NULL);
  g_return_val_if_fail (type != NULL, NULL);

  buf = buffer_new_empty (device, type);
  buf->data = data;
  buf->size = size;
  buf->notify = notify ? notify : NULL;
  buf->notify_data = user_data;
  return buf;
}

/* frees memory, events and the struct: the end of a buffer's life */
void
accel_buffer_free (AccelBuffer *buf)
{
  gboolean on_gpu = !accel_device_is_host (buf->device);

  if (on_gpu)
    accel_device_make_current (buf->device, NULL);
  for (guint i = 0; i < buf->fences->len; i++)
    {
      ReadFence *f = &g_array_index (buf->fences, ReadFence, i);
      g_clear_pointer (&f->event, accel_event_unref);
      g_clear_pointer (&f->stream, accel_stream_unref);
    }
  g_array_unref (buf->fences);
  g_clear_pointer (&buf->write_event, accel_event_unref);
  g_clear_pointer (&buf->last_write_stream, accel_stream_unref);

  if (buf->notify)
    buf->notify (buf->notify_data);
  else
    memory_free (buf->device, buf->type.memory, buf->data);

  g_mutex_clear (&buf->lock);
  g_object_unref (buf->device);
  g_free (buf);
}

/* a pool hands @buf out again: fresh refcount and metadata, sync state kept */
void
accel_buffer_reset_for_pool (AccelBuffer *buf, AccelPool *pool)
{
  buf->refcount = 1;
  buf->pool = pool;
  buf->sequence = 0;
  buf->pts = -1;
  buf->duration = -1;
}

/**
 * accel_buffer_ref:
 * @buffer: a buffer
 *
 * Returns: (transfer full): @buffer. MT safe.
 */
AccelBuffer *
accel_buffer_ref (AccelBuffer *buffer)
{
  g_return_val_if_fail (buffer != NULL, NULL);
  g_atomic_int_inc (&buffer->refcount);
  return buffer;
}

/**
 * accel_buffer_unref:
 * @buffer: (transfer full): a buffer
 *
 * Drops a reference; the last one returns a pool buffer to its pool (it is
 * handed out for writing again only behind every reader's fence) or frees
 * it. MT safe.
 */
void
accel_buffer_unref (AccelBuffer *buffer)
{
  g_return_if_fail (buffer != NULL);
  if (!g_atomic_int_dec_and_test (&buffer->refcount))
    return;
  if (buffer->pool)
    accel_pool_return (buffer->pool, buffer);
  else
    accel_buffer_free (buffer);
}

gpointer
accel_buffer_get_data (AccelBuffer *buffer)
{
  g_return_val_if_fail (buffer != NULL, NULL);
  return buffer->data;
}

gsize
accel_buffer_get_size (AccelBuffer *buffer)
{
  g_return_val_if_fail (buffer != NULL, 0);
  return buffer->size;
}

/**
 * accel_buffer_peek_type:
 * @buffer: a buffer
 *
 * Returns: (transfer none): the type of @buffer.
 */
const AccelType *
accel_buffer_peek_type (AccelBuffer *buffer)
{
  g_return_val_if_fail (buffer != NULL, NULL);
  return &buffer->type;
}

/**
 * accel_buffer_get_device:
 * @buffer: a buffer
 *
 * Returns: (transfer none): the device whose memory holds @buffer.
 */
AccelDevice *
accel_buffer_get_device (AccelBuffer *buffer)
{
  g_return_val_if_fail (buffer != NULL, NULL);
  return buffer->device;
}

guint
accel_buffer_get_generation (AccelBuffer *buffer)
{
  g_return_val_if_fail (buffer != NULL, 0);
  return buffer->generation;
}

/**
 * accel_buffer_get_pool:
 * @buffer: a buffer
 *
 * Returns: (transfer none) (nullable): the pool @buffer returns to.
 */
AccelPool *
accel_buffer_get_pool (AccelBuffer *buffer)
{
  g_return_val_if_fail (buffer != NULL, NULL);
  return buffer->pool;
}

guint
accel_buffer_get_refcount (AccelBuffer *buffer)
{
  g_return_val_if_fail (buffer != NULL, 0);
  return (guint)g_atomic_int_get (&buffer->refcount);
}

guint64
accel_buffer_get_sequence (AccelBuffer *buffer)
{
  g_return_val_if_fail (buffer != NULL, 0);
  return buffer->sequence;
}

void
accel_buffer_set_sequence (AccelBuffer *buffer, guint64 sequence)
{
  g_return_if_fail (buffer != NULL);
  buffer->sequence = sequence;
}

gint64
accel_buffer_get_pts (AccelBuffer *buffer)
{
  g_return_val_if_fail (buffer != NULL, -1);
  return buffer->pts;
}

void
accel_buffer_set_pts (AccelBuffer *buffer, gint64 pts)
{
  g_return_if_fail (buffer != NULL);
  buffer->pts = pts;
}

gint64
accel_buffer_get_duration (AccelBuffer *buffer)
{
  g_return_val_if_fail (buffer != NULL, -1);
  return buffer->duration;
}

void
accel_buffer_set_duration (AccelBuffer *buffer, gint64 duration)
{
  g_return_if_fail (buffer != NULL);
  buffer->duration = duration;
}

/**
 * accel_buffer_get_last_write_stream:
 * @buffer: a buffer
 *
 * Returns: (transfer none) (nullable): the stream of the last writer.
 */
AccelStream *
accel_buffer_get_last_write_stream (AccelBuffer *buffer)
{
  AccelStream *stream;

  g_return_val_if_fail (buffer != NULL, NULL);
  g_mutex_lock (&buffer->lock);
  stream = buffer->last_write_stream;
  g_mutex_unlock (&buffer->lock);
  return stream;
}

/**
 * accel_buffer_get_n_read_fences:
 * @buffer: a buffer
 *
 * Returns: how many reader fences a writer would wait for now.
 */
guint
accel_buffer_get_n_read_fences (AccelBuffer *buffer)
{
  guint n = 0;

  g_return_val_if_fail (buffer != NULL, 0);
  g_mutex_lock (&buffer->lock);
  for (guint i = 0; i < buffer->fences->len; i++)
    n += g_array_index (buffer->fences, ReadFence, i).active;
  g_mutex_unlock (&buffer->lock);
  return n;
}

static gboolean
check_generation (AccelBuffer *buf, GError **error)
{
  guint current = accel_device_get_generation (buf->device);

  if (G_LIKELY (buf->generation == current))
    return TRUE;
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STALE_BUFFER,
      "buffer %" G_GUINT64_FORMAT " belongs to generation %u of %s, which "
      "is now at generation %u",
      buf->sequence, buf->generation, accel_device_get_name (buf->device),
      current);
  return FALSE;
}

static gboolean
same_stream (AccelStream *a, AccelStream *b)
{
  return a == b
         || (a && b && accel_stream_get_cuda (a) == accel_stream_get_cuda (b));
}

static gboolean
stream_wait (AccelStream *stream, AccelEvent *event, AccelDebugFlags skip,
    GError **error)
{
  if (G_UNLIKELY (accel_debug_has (skip)))
    return TRUE;
  return accel_cuda_check (cudaStreamWaitEvent (accel_stream_get_cuda (stream),
                               accel_event_get_cuda (event), 0),
      error);
}

static AccelEvent *
record_new (AccelBuffer *buf, AccelStream *stream, GError **error)
{
  AccelEvent *ev = accel_event_new (buf->device, error);

  if (ev && !accel_event_record (ev, stream, error))
    g_clear_pointer (&ev, accel_event_unref);
  return ev;
}

/* nothing to order on the host, or for a stream with no handle */
static inline gboolean
needs_events (AccelBuffer *buf, AccelStream *stream)
{
  return stream && accel_stream_get_cuda (stream)
         && !accel_device_is_host (buf->device);
}

/**
 * accel_buffer_acquire_read:
 * @buffer: a buffer
 * @stream: the stream that will read it
 * @error: return location for a #GError, or %NULL
 *
 * Makes @stream wait, on the GPU, for the last write when that was on
 * another stream (read after write). The host does not block.
 *
 * Returns: %FALSE with %ACCEL_ERROR_STALE_BUFFER for a buffer of an older
 * device generation, or a CUDA error. MT safe.
 */
gboolean
accel_buffer_acquire_read (
    AccelBuffer *buffer, AccelStream *stream, GError **error)
{
  gboolean ok = TRUE;

  g_return_val_if_fail (buffer != NULL, FALSE);

  if (!check_generation (buffer, error))
    return FALSE;
  if (!needs_events (buffer, stream))
    return TRUE;

  g_mutex_lock (&buffer->lock);
  if (buffer->last_write_stream
      && !same_stream (buffer->last_write_stream, stream))
    ok = stream_wait (
        stream, buffer->write_event, ACCEL_DEBUG_SKIP_READ_WAIT, error);
  g_mutex_unlock (&buffer->lock);
  return ok;
}

/**
 * accel_buffer_release_read:
 * @buffer: a buffer
 * @stream: the stream that read it
 * @error: return location for a #GError, or %NULL
 *
 * Records @stream's read fence, so the next writer waits for this read.
 *
 * Returns: %TRUE on success. MT safe.
 */
gboolean
accel_buffer_release_read (
    AccelBuffer *buffer, AccelStream *stream, GError **error)
{
  AccelEvent *ev;

  g_return_val_if_fail (buffer != NULL, FALSE);
  if (!needs_events (buffer, stream))
    return TRUE;
  if (!(ev = record_new (buffer, stream, error)))
    return FALSE;
  accel_buffer_mark_read (buffer, stream, ev);
  accel_event_unref (ev);
  return TRUE;
}

/* @stream's read of @buffer completes at @event (already recorded) */
void
accel_buffer_mark_read (
    AccelBuffer *buffer, AccelStream *stream, AccelEvent *event)
{
  ReadFence *fence = NULL;

  g_mutex_lock (&buffer->lock);
  for (guint i = 0; i < buffer->fences->len && !fence; i++)
    {
      ReadFence *f = &g_array_index (buffer->fences, ReadFence, i);
      if (same_stream (f->stream, stream))
        fence = f;
    }
  if (!fence)
    {
      ReadFence blank = { accel_stream_ref (stream), NULL, FALSE };
      g_array_append_val (buffer->fences, blank);
      fence
          = &g_array_index (buffer->fences, ReadFence, buffer->fences->len - 1);
    }
  if (fence->event != event)
    {
      g_clear_pointer (&fence->event, accel_event_unref);
      fence->event = accel_event_ref (event);
    }
  fence->active = TRUE;
  g_mutex_unlock (&buffer->lock);
}

/**
 * accel_buffer_acquire_write:
 * @buffer: a buffer
 * @stream: the stream that will write it
 * @error: return location for a #GError, or %NULL
 *
 * Makes @stream wait, on the GPU, for every reader's fence on other streams
 * (write after read) and for the last write on another stream.
 *
 * Returns: %TRUE on success. MT safe.
 */
gboolean
accel_buffer_acquire_write (
    AccelBuffer *buffer, AccelStream *stream, GError **error)
{
  gboolean ok = TRUE;

  g_return_val_if_fail (buffer != NULL, FALSE);

  if (!check_generation (buffer, error))
    return FALSE;
  if (!needs_events (buffer, stream))
    return TRUE;

  g_mutex_lock (&buffer->lock);
  for (guint i = 0; i < buffer->fences->len && ok; i++)
    {
      ReadFence *f = &g_array_index (buffer->fences, ReadFence, i);
      if (f->active && !same_stream (f->stream, stream))
        ok = stream_wait (stream, f->event, ACCEL_DEBUG_SKIP_WRITE_WAIT, error);
      f->active = FALSE;
    }
  if (ok && buffer->last_write_stream
      && !same_stream (buffer->last_write_stream, stream))
    ok = stream_wait (
        stream, buffer->write_event, ACCEL_DEBUG_SKIP_WRITE_WAIT, error);
  g_mutex_unlock (&buffer->lock);
  return ok;
}

/**
 * accel_buffer_release_write:
 * @buffer: a buffer
 * @stream: the stream that wrote it
 * @error: return location for a #GError, or %NULL
 *
 * Records the write event on @stream and makes it the last write stream, so
 * readers on other streams wait for it.
 *
 * Returns: %TRUE on success. MT safe.
 */
gboolean
accel_buffer_release_write (
    AccelBuffer *buffer, AccelStream *stream, GError **error)
{
  AccelEvent *ev;

  g_return_val_if_fail (buffer != NULL, FALSE);
  if (!needs_events (buffer, stream))
    return TRUE;
  if (!(ev = record_new (buffer, stream, error)))
    return FALSE;
  accel_buffer_mark_written (buffer, stream, ev);
  accel_event_unref (ev);
  return TRUE;
}

/* @stream's write of @buffer completes at @event (already recorded) */
void
accel_buffer_mark_written (
    AccelBuffer *buffer, AccelStream *stream, AccelEvent *event)
{
  g_mutex_lock (&buffer->lock);
  if (buffer->write_event != event)
    {
      g_clear_pointer (&buffer->write_event, accel_event_unref);
      buffer->write_event = accel_event_ref (event);
    }
  if (buffer->last_write_stream != stream)
    {
      g_clear_pointer (&buffer->last_write_stream, accel_stream_unref);
      buffer->last_write_stream = accel_stream_ref (stream);
    }
  g_mutex_unlock (&buffer->lock);
}
