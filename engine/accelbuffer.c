/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: buffers: memory, metadata, and the fence that orders its readers
 * and writers (accelfence.c) */
#define G_LOG_DOMAIN "accel-buffer"

#include "accel-private.h"

#include <stdlib.h>
#include <string.h>

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

  AccelFence *fence;    /* kept through the pool, with its events */
  guint pool_slot;      /* its place in its pool's cycle */
  gboolean unzeroed;    /* a pool's, yet to be zeroed for its first frame */
  gboolean born_zeroed; /* zeroed as it was allocated (host_commit ()) */
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
  buf->fence = accel_fence_new (device);
  return buf;
}

/* before a host allocation (which overcommit grants whatever its size),
 * after a failed GPU one: a size past all the memory of its kind will
 * never fit, and is no out-of-memory to retry or restart for (that would
 * restart the stage until it escalates) */
static gboolean
size_never_fits (
    AccelDevice *device, AccelMemory memory, gsize size, GError **error)
{
  gboolean on_gpu
      = !accel_device_is_host (device) && memory == ACCEL_MEMORY_DEVICE;
  AccelDevice *owner = on_gpu ? device : accel_device_get_host ();
  guint64 total = accel_device_get_total_memory (owner);

  if (total == 0 || size <= total)
    return FALSE;
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_NOT_SUPPORTED,
      "cannot allocate %" G_GSIZE_FORMAT " bytes of %s memory: more than "
      "the %" G_GUINT64_FORMAT " bytes %s has",
      size,
      accel_device_is_host (device) ? "host" : accel_memory_to_string (memory),
      total, on_gpu ? accel_device_get_name (device) : "the host");
  return TRUE;
}

/* host allocations from this size on are checked against what the host
 * can still give: below it, the check would cost more than it saves */
#define HOST_ROOM_CHECK_BYTES ((gsize)64 << 20)

/* before a large host allocation: past what the host can give without
 * swapping, the allocation succeeds (memory is overcommitted) and the
 * kernel kills the process, with no message, as the pages are touched.
 * Out of memory instead, which the stage's supervisor retries after
 * trimming its pools */
static gboolean
host_has_room (gsize size, GError **error)
{
  guint64 room = 0;

  if (size < HOST_ROOM_CHECK_BYTES
      || !accel_device_get_memory_info (
          accel_device_get_host (), &room, NULL, NULL)
      || size <= room)
    return TRUE;
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_OUT_OF_MEMORY,
      "cannot allocate %" G_GSIZE_FORMAT " bytes of host memory: the host "
      "has %" G_GUINT64_FORMAT " available (MemAvailable, within the "
      "cgroup's memory.max)",
      size, room);
  return FALSE;
}

/* a large host allocation's pages are touched at once, zeroed: the next
 * one's host_has_room () then counts them (untouched, they are in
 * MemAvailable still, and a stage's allocations that each fit but not
 * together had the process killed as they were zeroed later). Returns
 * whether it zeroed @data */
static gboolean
host_commit (gpointer data, gsize size)
{
  if (size < HOST_ROOM_CHECK_BYTES)
    return FALSE;
  memset (data, 0, size);
  return TRUE;
}

/* *@zeroed: whether the memory is zeroed already */
static gboolean
memory_alloc (AccelDevice *device, AccelMemory memory, gsize size,
    gpointer *data, gboolean *zeroed, GError **error)
{
  gboolean on_gpu = !accel_device_is_host (device);
  int status = cudaSuccess;
  const char *what = NULL;

  *data = NULL;
  *zeroed = FALSE;
  if (on_gpu && !accel_device_make_current (device, error))
    return FALSE;

  if (on_gpu && memory != ACCEL_MEMORY_HOST)
    {
      accel_device_global_call_begin ();
      if (memory == ACCEL_MEMORY_DEVICE)
        {
          status = cudaMalloc (data, size);
          what = "cudaMalloc";
        }
      else if (memory == ACCEL_MEMORY_PINNED)
        {
          status = cudaHostAlloc (data, size, cudaHostAllocPortable);
          what = "cudaHostAlloc";
        }
      else
        {
          status = cudaMallocManaged (data, size, cudaMemAttachGlobal);
          what = "cudaMallocManaged";
        }
      accel_device_global_call_end ();
    }
  else if (size_never_fits (device, memory, size, error)
           || !host_has_room (size, error))
    {
      return FALSE;
    }
  else if (posix_memalign (data, 64, MAX (size, 1)) != 0)
    {
      *data = NULL;
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_OUT_OF_MEMORY,
          "cannot allocate %" G_GSIZE_FORMAT " bytes of host memory", size);
      return FALSE;
    }
  else
    {
      *zeroed = host_commit (*data, size);
    }

  if (status != cudaSuccess)
    {
      g_autofree gchar *call
          = g_strdup_printf ("%s (%" G_GSIZE_FORMAT " bytes)", what, size);
      *data = NULL;
      if (status == cudaErrorMemoryAllocation
          && size_never_fits (device, memory, size, error))
        return FALSE;
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
  accel_device_global_call_begin ();
  if (memory == ACCEL_MEMORY_PINNED)
    accel_cuda_check (cudaFreeHost (data), NULL);
  else
    accel_cuda_check (cudaFree (data), NULL);
  accel_device_global_call_end ();
}

/* whether the host may touch @buffer's bytes directly: the host backend's,
 * or host or pinned memory on a GPU */
static gboolean
host_can_touch (const AccelBuffer *buffer)
{
  return accel_device_is_host (buffer->device)
         || buffer->type.memory == ACCEL_MEMORY_HOST
         || buffer->type.memory == ACCEL_MEMORY_PINNED;
}

void
accel_buffer_set_unzeroed (AccelBuffer *buffer)
{
  buffer->unzeroed = !buffer->born_zeroed;
}

/* a pool's buffer starts its first frame zeroed: nothing then reads what an
 * earlier user of the memory left there (a state's unused slots in a
 * snapshot, a header that a step checks before it writes; initcheck found
 * both). On the GPU the zeroes go on @stream, ahead of the frame's work,
 * with no wait on the host */
gboolean
accel_buffer_zero_once (
    AccelBuffer *buffer, AccelStream *stream, GError **error)
{
  if (!buffer->unzeroed)
    return TRUE;
  if (host_can_touch (buffer))
    memset (buffer->data, 0, buffer->size);
  else if (!accel_cuda_check (cudaMemsetAsync (buffer->data, 0, buffer->size,
                                  accel_stream_get_handle (stream)),
               error))
    return FALSE; /* the next frame that takes it tries again */
  buffer->unzeroed = FALSE;
  return TRUE;
}

guint
accel_buffer_get_pool_slot (AccelBuffer *buffer)
{
  return buffer->pool_slot;
}

void
accel_buffer_set_pool_slot (AccelBuffer *buffer, guint slot)
{
  buffer->pool_slot = slot;
}

/* allocates a buffer for @type on @device; used by pools and _new() */
AccelBuffer *
accel_buffer_alloc (AccelDevice *device, const AccelType *type, GError **error)
{
  AccelBuffer *buf;
  gpointer data;
  gsize size;
  gboolean zeroed;

  /* a size that wrapped would allocate a few bytes for a large type */
  if (!accel_type_get_size_checked (type, &size))
    goto size_overflows;
  if (!memory_alloc (device, type->memory, size, &data, &zeroed, error))
    return NULL;
  accel_debug_count_allocation ();
  buf = buffer_new_empty (device, type);
  buf->data = data;
  buf->size = size;
  buf->born_zeroed = zeroed;
  return buf;

  /* ERRORS */
size_overflows:
  {
    g_autofree gchar *name = accel_type_to_string (type);
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT,
        "cannot allocate a buffer of type %s: its size overflows", name);
    return NULL;
  }
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
 * Returns: (transfer full): a new buffer, or %NULL with
 * %ACCEL_ERROR_INVALID_INPUT when @type's size overflows a #gsize, or the
 * allocation's error. MT safe.
 */
AccelBuffer *
accel_buffer_new (AccelDevice *device, const AccelType *type, GError **error)
{
  g_return_val_if_fail (ACCEL_IS_DEVICE (device), NULL);
  g_return_val_if_fail (type != NULL && accel_type_is_fixed (type), NULL);
  return accel_buffer_alloc (device, type, error);
}

static void
free_nothing (gpointer data)
{
}

/**
 * accel_buffer_new_wrapped:
 * @device: where @data lives
 * @type: a fixed type describing @data
 * @data: the memory
 * @size: bytes at @data, at least accel_type_get_size() of @type
 * @notify: (nullable): called with @user_data when the buffer is freed
 * @user_data: data for @notify
 *
 * Wraps memory the caller allocated; the buffer frees nothing but calls
 * @notify, when there is one.
 *
 * Returns: (transfer full): a buffer around memory the caller owns. MT safe.
 */
AccelBuffer *
accel_buffer_new_wrapped (AccelDevice *device, const AccelType *type,
    gpointer data, gsize size, GDestroyNotify notify, gpointer user_data)
{
  AccelBuffer *buf;
  gsize want;

  g_return_val_if_fail (ACCEL_IS_DEVICE (device), NULL);
  g_return_val_if_fail (type != NULL && accel_type_is_fixed (type), NULL);
  /* stages read and write accel_type_get_size () bytes of every buffer */
  g_return_val_if_fail (accel_type_get_size_checked (type, &want), NULL);
  g_return_val_if_fail (size >= want, NULL);
  g_return_val_if_fail (data != NULL || size == 0, NULL);

  buf = buffer_new_empty (device, type);
  buf->data = data;
  buf->size = size;
  /* the caller's memory: never given back to the device's allocator */
  buf->notify = notify ? notify : free_nothing;
  buf->notify_data = user_data;
  return buf;
}

/**
 * accel_buffer_new_from_bytes:
 * @type: a fixed type describing @bytes; its memory field is ignored
 * @bytes: the data, exactly accel_type_get_size() bytes of @type
 * @error: return location for a #GError, or %NULL
 *
 * Wraps @bytes (a reference, no copy) as a buffer in host memory: the way
 * bindings hand data to a graph, for instance to io.app-source's
 * "push-buffer". The buffer's memory is @bytes' own, which is immutable:
 * give it only to stages that read it (a source copies what is pushed).
 *
 * Returns: (transfer full): a buffer of @type in %ACCEL_MEMORY_HOST on the
 * host device, or %NULL with %ACCEL_ERROR_INVALID_INPUT when @bytes is not
 * the size of @type, or @type's size overflows a #gsize. MT safe.
 */
AccelBuffer *
accel_buffer_new_from_bytes (
    const AccelType *type, GBytes *bytes, GError **error)
{
  AccelType host_type;
  gsize size, want;

  g_return_val_if_fail (type != NULL && accel_type_is_fixed (type), NULL);
  g_return_val_if_fail (bytes != NULL, NULL);

  host_type = *type;
  host_type.memory = ACCEL_MEMORY_HOST;
  size = g_bytes_get_size (bytes);
  if (!accel_type_get_size_checked (&host_type, &want))
    goto size_overflows;
  if (size != want)
    goto wrong_size;
  return accel_buffer_new_wrapped (accel_device_get_host (), &host_type,
      (gpointer)g_bytes_get_data (bytes, NULL), size,
      (GDestroyNotify)g_bytes_unref, g_bytes_ref (bytes));

  /* ERRORS */
size_overflows:
  {
    g_autofree gchar *name = accel_type_to_string (&host_type);
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT,
        "%" G_GSIZE_FORMAT " bytes are no buffer of type %s: its size "
        "overflows",
        size, name);
    return NULL;
  }
wrong_size:
  {
    g_autofree gchar *name = accel_type_to_string (&host_type);
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT,
        "%" G_GSIZE_FORMAT " bytes are no buffer of type %s (%" G_GSIZE_FORMAT
        " bytes)",
        size, name, want);
    return NULL;
  }
}

/**
 * accel_buffer_dup_bytes:
 * @buffer: a buffer in memory the host can read: on the host device, or
 *   in host or pinned host memory (what io.app-sink's "pull-buffer"
 *   returns), written completely
 * @error: return location for a #GError, or %NULL
 *
 * Copies the data of @buffer: the way bindings read a buffer (Python:
 * `numpy.frombuffer (buffer.dup_bytes ().get_data (), dtype)`).
 *
 * Returns: (transfer full): a copy of @buffer's data, or %NULL with
 * %ACCEL_ERROR_NOT_SUPPORTED for GPU memory (pull it through
 * io.app-sink). MT safe.
 */
GBytes *
accel_buffer_dup_bytes (AccelBuffer *buffer, GError **error)
{
  g_return_val_if_fail (buffer != NULL, NULL);

  if (!host_can_touch (buffer))
    goto not_host;
  return g_bytes_new (buffer->data, buffer->size);

  /* ERRORS */
not_host:
  {
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_NOT_SUPPORTED,
        "a buffer in %s memory of %s cannot be read by the host; pull it "
        "through io.app-sink",
        accel_memory_to_string (buffer->type.memory),
        accel_device_get_name (buffer->device));
    return NULL;
  }
}

/* frees memory, events and the struct: the end of a buffer's life */
void
accel_buffer_free (AccelBuffer *buf)
{
  gboolean on_gpu = !accel_device_is_host (buf->device);

  if (on_gpu)
    accel_device_make_current (buf->device, NULL);
  accel_fence_free (buf->fence);

  if (buf->notify)
    buf->notify (buf->notify_data);
  else
    memory_free (buf->device, buf->type.memory, buf->data);

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

/**
 * accel_buffer_get_data:
 * @buffer: a buffer
 *
 * Returns: (transfer none): the memory of @buffer. MT safe (fixed at
 * allocation); access to what it points to is ordered by the buffer's
 * fence, not by this call.
 */
gpointer
accel_buffer_get_data (AccelBuffer *buffer)
{
  g_return_val_if_fail (buffer != NULL, NULL);
  return buffer->data;
}

/**
 * accel_buffer_get_size:
 * @buffer: a buffer
 *
 * Returns: the size of @buffer's memory in bytes. MT safe (fixed at
 * allocation).
 */
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
 * Returns: (transfer none): the type of @buffer. MT safe (fixed at
 * allocation).
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
 * Returns: (transfer none): the device whose memory holds @buffer. MT safe
 * (fixed at allocation).
 */
AccelDevice *
accel_buffer_get_device (AccelBuffer *buffer)
{
  g_return_val_if_fail (buffer != NULL, NULL);
  return buffer->device;
}

/**
 * accel_buffer_get_generation:
 * @buffer: a buffer
 *
 * Returns: the generation of @buffer's device when the buffer was allocated;
 * a buffer of an older generation is stale. MT safe (fixed at allocation).
 */
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
 * Returns: (transfer none) (nullable): the pool @buffer returns to, or %NULL
 * for a buffer outside any pool. MT safe for a holder of a reference (set
 * when a pool hands the buffer out).
 */
AccelPool *
accel_buffer_get_pool (AccelBuffer *buffer)
{
  g_return_val_if_fail (buffer != NULL, NULL);
  return buffer->pool;
}

/**
 * accel_buffer_get_refcount:
 * @buffer: a buffer
 *
 * For tests and debugging: the count may change as soon as it is read.
 *
 * Returns: the current reference count. MT safe.
 */
guint
accel_buffer_get_refcount (AccelBuffer *buffer)
{
  g_return_val_if_fail (buffer != NULL, 0);
  return (guint)g_atomic_int_get (&buffer->refcount);
}

/**
 * accel_buffer_get_sequence:
 * @buffer: a buffer
 *
 * Returns: the sequence number of the frame @buffer belongs to. MT safe
 * once the writer has handed the buffer on.
 */
guint64
accel_buffer_get_sequence (AccelBuffer *buffer)
{
  g_return_val_if_fail (buffer != NULL, 0);
  return buffer->sequence;
}

/**
 * accel_buffer_set_sequence:
 * @buffer: a buffer
 * @sequence: the frame's sequence number
 *
 * Called from the thread of the buffer's current owner (the stage writing
 * it), before it hands the buffer on. The engine sets it on every output
 * before process(), which may change it.
 */
void
accel_buffer_set_sequence (AccelBuffer *buffer, guint64 sequence)
{
  g_return_if_fail (buffer != NULL);
  buffer->sequence = sequence;
}

/**
 * accel_buffer_get_pts:
 * @buffer: a buffer
 *
 * Returns: the presentation time in ns, or -1 for none. MT safe once the
 * writer has handed the buffer on.
 */
gint64
accel_buffer_get_pts (AccelBuffer *buffer)
{
  g_return_val_if_fail (buffer != NULL, -1);
  return buffer->pts;
}

/**
 * accel_buffer_set_pts:
 * @buffer: a buffer
 * @pts: the presentation time in ns, or -1 for none
 *
 * Called from the thread of the buffer's current owner (the stage writing
 * it), before it hands the buffer on.
 */
void
accel_buffer_set_pts (AccelBuffer *buffer, gint64 pts)
{
  g_return_if_fail (buffer != NULL);
  buffer->pts = pts;
}

/**
 * accel_buffer_get_duration:
 * @buffer: a buffer
 *
 * Returns: the duration in ns, or -1 for none. MT safe once the writer has
 * handed the buffer on.
 */
gint64
accel_buffer_get_duration (AccelBuffer *buffer)
{
  g_return_val_if_fail (buffer != NULL, -1);
  return buffer->duration;
}

/**
 * accel_buffer_set_duration:
 * @buffer: a buffer
 * @duration: the duration in ns, or -1 for none
 *
 * Called from the thread of the buffer's current owner (the stage writing
 * it), before it hands the buffer on.
 */
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
 * MT safe: read under the buffer's fence lock.
 */
AccelStream *
accel_buffer_get_last_write_stream (AccelBuffer *buffer)
{
  g_return_val_if_fail (buffer != NULL, NULL);
  return accel_fence_get_last_write_stream (buffer->fence);
}

/**
 * accel_buffer_get_n_read_fences:
 * @buffer: a buffer
 *
 * Returns: how many reader fences a writer would wait for now. MT safe.
 */
guint
accel_buffer_get_n_read_fences (AccelBuffer *buffer)
{
  g_return_val_if_fail (buffer != NULL, 0);
  return accel_fence_get_n_read_fences (buffer->fence);
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

/* nothing to order in host memory of the host backend */
static inline gboolean
needs_events (AccelBuffer *buf)
{
  return !accel_device_is_host (buf->device);
}

/**
 * accel_buffer_acquire_read:
 * @buffer: a buffer
 * @stream: the stream that will read it
 * @error: return location for a #GError, or %NULL
 *
 * Makes @stream wait, on the GPU, for the last write when that was on
 * another stream (read after write). The host does not block. Stages never
 * call this: the engine acquires a frame's inputs before process().
 *
 * Returns: %FALSE with %ACCEL_ERROR_STALE_BUFFER for a buffer of an older
 * device generation, or a CUDA error. MT safe.
 */
gboolean
accel_buffer_acquire_read (
    AccelBuffer *buffer, AccelStream *stream, GError **error)
{
  g_return_val_if_fail (buffer != NULL, FALSE);

  if (!check_generation (buffer, error))
    return FALSE;
  return !needs_events (buffer)
         || accel_fence_acquire_read (buffer->fence, stream, error);
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
  g_return_val_if_fail (buffer != NULL, FALSE);
  return !needs_events (buffer)
         || accel_fence_release_read (buffer->fence, stream, error);
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
  g_return_val_if_fail (buffer != NULL, FALSE);

  if (!check_generation (buffer, error))
    return FALSE;
  return !needs_events (buffer)
         || accel_fence_acquire_write (buffer->fence, stream, error);
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
  g_return_val_if_fail (buffer != NULL, FALSE);
  return !needs_events (buffer)
         || accel_fence_release_write (buffer->fence, stream, error);
}

/* one event recorded after a frame's work is the read fence of each input
 * and the write event of each output. The reads are a frame's inputs and
 * the buffers it adopted (accel_stage_adopt_input ()), at most
 * ACCEL_MAX_PORTS each */
gboolean
accel_buffer_release_frame (AccelBuffer **inputs, guint n_inputs,
    AccelBuffer **outputs, guint n_outputs, AccelStream *stream,
    AccelEvent *event, GError **error)
{
  AccelFence *reads[2 * ACCEL_MAX_PORTS], *writes[ACCEL_MAX_PORTS];
  guint n_reads = 0, n_writes = 0;

  g_return_val_if_fail (n_inputs <= G_N_ELEMENTS (reads), FALSE);
  g_return_val_if_fail (n_outputs <= G_N_ELEMENTS (writes), FALSE);

  for (guint i = 0; i < n_inputs; i++)
    if (needs_events (inputs[i]))
      reads[n_reads++] = inputs[i]->fence;
  for (guint o = 0; o < n_outputs; o++)
    if (needs_events (outputs[o]))
      writes[n_writes++] = outputs[o]->fence;
  if (n_reads + n_writes == 0)
    return TRUE;
  return accel_fence_release_frame (
      reads, n_reads, writes, n_writes, stream, event, error);
}
