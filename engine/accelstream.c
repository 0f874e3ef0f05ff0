/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: CUDA streams and the allocator policies that hand them out.
 * G_MESSAGES_DEBUG=accel-stream tells when streams are made and destroyed
 * and which stage gets which */
#define G_LOG_DOMAIN "accel-stream"

#include "accel-private.h"

struct _AccelStream
{
  gint refcount;
  AccelDevice *device;
  cudaStream_t handle; /* NULL on the host */
  guint id;
};

/**
 * accel_stream_get_type:
 *
 * Returns: the boxed #GType of #AccelStream. MT safe.
 */
G_DEFINE_BOXED_TYPE (
    AccelStream, accel_stream, accel_stream_ref, accel_stream_unref)

static guint next_stream_id = 1;

/**
 * accel_stream_new:
 * @device: the device the stream runs on
 * @error: return location for a #GError, or %NULL
 *
 * Creates a non-blocking stream: it never synchronizes with the legacy
 * default stream. On the host pseudo-device the stream is an ordering token
 * with no handle.
 *
 * Returns: (transfer full): a new stream, or %NULL. MT safe; makes @device
 * current on the calling thread.
 */
AccelStream *
accel_stream_new (AccelDevice *device, GError **error)
{
  AccelStream *stream;
  cudaStream_t handle = NULL;

  g_return_val_if_fail (ACCEL_IS_DEVICE (device), NULL);

  if (!accel_device_is_host (device))
    {
      if (!accel_device_make_current (device, error)
          || !accel_cuda_check (
              cudaStreamCreateWithFlags (&handle, cudaStreamNonBlocking),
              error))
        return NULL;
    }

  stream = g_new0 (AccelStream, 1);
  stream->refcount = 1;
  stream->device = g_object_ref (device);
  stream->handle = handle;
  stream->id = g_atomic_int_add (&next_stream_id, 1);
  g_debug ("stream %u on %s", stream->id, accel_device_get_name (device));
  return stream;
}

/**
 * accel_stream_ref:
 * @stream: a stream
 *
 * Returns: (transfer full): @stream, with one more reference. MT safe.
 */
AccelStream *
accel_stream_ref (AccelStream *stream)
{
  g_return_val_if_fail (stream != NULL, NULL);
  g_atomic_int_inc (&stream->refcount);
  return stream;
}

/**
 * accel_stream_unref:
 * @stream: (transfer full): a stream
 *
 * Drops a reference; the last one destroys the stream, whose queued work
 * still completes. MT safe.
 */
void
accel_stream_unref (AccelStream *stream)
{
  g_return_if_fail (stream != NULL);
  if (!g_atomic_int_dec_and_test (&stream->refcount))
    return;
  if (stream->handle)
    {
      accel_device_make_current (stream->device, NULL);
      accel_cuda_check (cudaStreamDestroy (stream->handle), NULL);
    }
  g_debug ("stream %u destroyed", stream->id);
  g_object_unref (stream->device);
  g_free (stream);
}

/**
 * accel_stream_get_handle:
 * @stream: a stream
 *
 * Returns: (transfer none): the `cudaStream_t`, or %NULL on the host.
 * MT safe; work queued on it is ordered only when one thread (the stage's)
 * queues it.
 */
gpointer
accel_stream_get_handle (AccelStream *stream)
{
  g_return_val_if_fail (stream != NULL, NULL);
  return stream->handle;
}

cudaStream_t
accel_stream_get_cuda (AccelStream *stream)
{
  return stream->handle;
}

/**
 * accel_stream_get_device:
 * @stream: a stream
 *
 * Returns: (transfer none): the device @stream runs on. MT safe.
 */
AccelDevice *
accel_stream_get_device (AccelStream *stream)
{
  g_return_val_if_fail (stream != NULL, NULL);
  return stream->device;
}

/**
 * accel_stream_get_id:
 * @stream: a stream
 *
 * Returns: a number unique to @stream in this process, for messages.
 * MT safe.
 */
guint
accel_stream_get_id (AccelStream *stream)
{
  g_return_val_if_fail (stream != NULL, 0);
  return stream->id;
}

/**
 * accel_stream_synchronize:
 * @stream: a stream
 * @error: return location for a #GError, or %NULL
 *
 * Blocks until all work on @stream is done. Not for the steady state: only
 * for shutdown, tests and the `sync` completion strategy.
 *
 * Returns: %TRUE on success. MT safe; blocks the calling thread.
 */
gboolean
accel_stream_synchronize (AccelStream *stream, GError **error)
{
  g_return_val_if_fail (stream != NULL, FALSE);
  if (!stream->handle)
    return TRUE;
  return accel_cuda_check (cudaStreamSynchronize (stream->handle), error);
}

/* the allocator */

struct _AccelStreamAllocator
{
  GObject parent;

  AccelStreamPolicy policy;
  guint n_pooled;
  GMutex lock;
  GHashTable *by_device; /* AccelDevice* -> GPtrArray of AccelStream* */
  guint next;
};

G_DEFINE_FINAL_TYPE (
    AccelStreamAllocator, accel_stream_allocator, G_TYPE_OBJECT)

/**
 * accel_stream_policy_get_type:
 *
 * Returns: the enum #GType of #AccelStreamPolicy. MT safe.
 */
GType
accel_stream_policy_get_type (void)
{
  static gsize type;
  static const GEnumValue values[] = {
    { ACCEL_STREAM_POLICY_PER_STAGE, "ACCEL_STREAM_POLICY_PER_STAGE",
        "per-stage" },
    { ACCEL_STREAM_POLICY_SINGLE, "ACCEL_STREAM_POLICY_SINGLE", "single" },
    { ACCEL_STREAM_POLICY_POOLED, "ACCEL_STREAM_POLICY_POOLED", "pooled" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (
        &type, g_enum_register_static ("AccelStreamPolicy", values));
  return (GType)type;
}

static void
accel_stream_allocator_finalize (GObject *object)
{
  AccelStreamAllocator *self = ACCEL_STREAM_ALLOCATOR (object);

  g_hash_table_unref (self->by_device);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (accel_stream_allocator_parent_class)->finalize (object);
}

static void
accel_stream_allocator_class_init (AccelStreamAllocatorClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = accel_stream_allocator_finalize;
}

static void
accel_stream_allocator_init (AccelStreamAllocator *self)
{
  g_mutex_init (&self->lock);
  self->by_device = g_hash_table_new_full (
      NULL, NULL, NULL, (GDestroyNotify)g_ptr_array_unref);
}

/**
 * accel_stream_allocator_new:
 * @policy: how stages get streams
 * @n_pooled: streams per device for %ACCEL_STREAM_POLICY_POOLED
 *
 * Returns: (transfer full): a new allocator. MT safe.
 */
AccelStreamAllocator *
accel_stream_allocator_new (AccelStreamPolicy policy, guint n_pooled)
{
  AccelStreamAllocator *self = g_object_new (ACCEL_TYPE_STREAM_ALLOCATOR, NULL);

  self->policy = policy;
  self->n_pooled = policy == ACCEL_STREAM_POLICY_SINGLE ? 1 : MAX (n_pooled, 1);
  return self;
}

/**
 * accel_stream_allocator_get_policy:
 * @self: an allocator
 *
 * Returns: the policy @self was made with. MT safe.
 */
AccelStreamPolicy
accel_stream_allocator_get_policy (AccelStreamAllocator *self)
{
  g_return_val_if_fail (ACCEL_IS_STREAM_ALLOCATOR (self), 0);
  return self->policy;
}

/**
 * accel_stream_allocator_get:
 * @self: an allocator
 * @device: the device the caller runs on
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full): a stream for one stage, chosen by the policy:
 * a new one, the device's only one, or the next of its pool. MT safe.
 */
AccelStream *
accel_stream_allocator_get (
    AccelStreamAllocator *self, AccelDevice *device, GError **error)
{
  GPtrArray *streams;
  AccelStream *stream = NULL;

  g_return_val_if_fail (ACCEL_IS_STREAM_ALLOCATOR (self), NULL);

  if (self->policy == ACCEL_STREAM_POLICY_PER_STAGE)
    return accel_stream_new (device, error);

  g_mutex_lock (&self->lock);
  streams = g_hash_table_lookup (self->by_device, device);
  if (!streams)
    {
      streams
          = g_ptr_array_new_with_free_func ((GDestroyNotify)accel_stream_unref);
      g_hash_table_insert (self->by_device, device, streams);
    }
  if (streams->len < self->n_pooled)
    {
      stream = accel_stream_new (device, error);
      if (stream)
        g_ptr_array_add (streams, accel_stream_ref (stream));
    }
  else
    {
      stream = accel_stream_ref (streams->pdata[self->next++ % streams->len]);
      g_debug ("stream %u on %s shared by one more stage (%u streams, "
               "policy %s)",
          stream->id, accel_device_get_name (device), streams->len,
          self->policy == ACCEL_STREAM_POLICY_SINGLE ? "single" : "pooled");
    }
  g_mutex_unlock (&self->lock);
  return stream;
}
