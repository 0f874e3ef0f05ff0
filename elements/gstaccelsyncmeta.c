/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: GstAccelSyncMeta, the CUDA events that order the GPU work of two
 * accel elements on a frame without blocking the host */
#include "gstaccelsyncmeta.h"

#include <cuda_runtime_api.h>

GType
gst_accel_sync_meta_api_get_type (void)
{
  static GType type = 0;
  /* tagged "memory": it describes this memory only, so a transform that
   * makes new memory does not copy it to its output */
  static const gchar *tags[] = { GST_META_TAG_MEMORY_STR, NULL };

  if (g_once_init_enter (&type))
    {
      GType t = gst_meta_api_type_register ("GstAccelSyncMetaAPI", tags);
      g_once_init_leave (&type, t);
    }
  return type;
}

static gboolean
gst_accel_sync_meta_init (GstMeta *meta, gpointer params, GstBuffer *buffer)
{
  GstAccelSyncMeta *self = (GstAccelSyncMeta *)meta;

  g_mutex_init (&self->lock);
  self->written = NULL;
  self->reads = g_ptr_array_new ();
  self->spares = g_ptr_array_new ();
  return TRUE;
}

static void
destroy_events (GPtrArray *events)
{
  for (guint i = 0; i < events->len; i++)
    cudaEventDestroy (events->pdata[i]);
  g_ptr_array_unref (events);
}

static void
gst_accel_sync_meta_free (GstMeta *meta, GstBuffer *buffer)
{
  GstAccelSyncMeta *self = (GstAccelSyncMeta *)meta;

  if (self->written)
    cudaEventDestroy (self->written);
  destroy_events (self->reads);
  destroy_events (self->spares);
  g_mutex_clear (&self->lock);
}

const GstMetaInfo *
gst_accel_sync_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **)&info))
    {
      const GstMetaInfo *i = gst_meta_register (GST_ACCEL_SYNC_META_API_TYPE,
          "GstAccelSyncMeta", sizeof (GstAccelSyncMeta),
          gst_accel_sync_meta_init, gst_accel_sync_meta_free, NULL);
      g_once_init_leave ((GstMetaInfo **)&info, (GstMetaInfo *)i);
    }
  return info;
}

/**
 * gst_buffer_ensure_accel_sync_meta:
 * @buffer: a writable buffer
 *
 * Returns: (transfer none): @buffer's meta, added (and kept through the
 *   buffer's pool) when it had none.
 */
GstAccelSyncMeta *
gst_buffer_ensure_accel_sync_meta (GstBuffer *buffer)
{
  GstAccelSyncMeta *meta = gst_buffer_get_accel_sync_meta (buffer);

  if (!meta)
    {
      meta = (GstAccelSyncMeta *)gst_buffer_add_meta (
          buffer, GST_ACCEL_SYNC_META_INFO, NULL);
      GST_META_FLAG_SET (meta, GST_META_FLAG_POOLED);
    }
  return meta;
}

static cudaError_t
wait_all (cudaStream_t stream, GPtrArray *events, GPtrArray *spares)
{
  cudaError_t err = cudaSuccess;

  for (guint i = 0; i < events->len && err == cudaSuccess; i++)
    err = cudaStreamWaitEvent (stream, events->pdata[i], 0);
  for (guint i = 0; i < events->len; i++)
    g_ptr_array_add (spares, events->pdata[i]);
  g_ptr_array_set_size (events, 0);
  return err;
}

/**
 * gst_accel_sync_meta_begin_write:
 * @meta: the meta of the buffer about to be written
 * @stream: the writer's stream
 *
 * Makes @stream wait, on the GPU, until the buffer's last readers and its
 * last writer are done with it.
 */
int
gst_accel_sync_meta_begin_write (GstAccelSyncMeta *meta, gpointer stream)
{
  cudaError_t err = cudaSuccess;

  g_mutex_lock (&meta->lock);
  if (meta->written)
    err = cudaStreamWaitEvent (stream, meta->written, 0);
  if (err == cudaSuccess)
    err = wait_all (stream, meta->reads, meta->spares);
  g_mutex_unlock (&meta->lock);
  return err;
}

/**
 * gst_accel_sync_meta_end_write:
 * @meta: the meta of the buffer just written
 * @stream: the writer's stream, with the writes enqueued
 *
 * Records that the writes end here.
 */
int
gst_accel_sync_meta_end_write (GstAccelSyncMeta *meta, gpointer stream)
{
  cudaError_t err = cudaSuccess;

  g_mutex_lock (&meta->lock);
  if (!meta->written)
    err = cudaEventCreateWithFlags (
        (cudaEvent_t *)&meta->written, cudaEventDisableTiming);
  if (err == cudaSuccess)
    err = cudaEventRecord (meta->written, stream);
  g_mutex_unlock (&meta->lock);
  return err;
}

/**
 * gst_accel_sync_meta_wait_written:
 * @meta: the meta of a buffer about to be read
 * @stream: the reader's stream
 *
 * Makes @stream wait, on the GPU, until the buffer's writes are done.
 */
int
gst_accel_sync_meta_wait_written (GstAccelSyncMeta *meta, gpointer stream)
{
  cudaError_t err = cudaSuccess;

  g_mutex_lock (&meta->lock);
  if (meta->written)
    err = cudaStreamWaitEvent (stream, meta->written, 0);
  g_mutex_unlock (&meta->lock);
  return err;
}

/**
 * gst_accel_sync_meta_end_read:
 * @meta: the meta of a buffer just read
 * @stream: the reader's stream, with the reads enqueued
 *
 * Records that this reader's reads end here, for the next writer.
 */
int
gst_accel_sync_meta_end_read (GstAccelSyncMeta *meta, gpointer stream)
{
  cudaEvent_t event = NULL;
  cudaError_t err = cudaSuccess;

  g_mutex_lock (&meta->lock);
  if (meta->spares->len > 0)
    event = g_ptr_array_steal_index_fast (meta->spares, meta->spares->len - 1);
  else
    err = cudaEventCreateWithFlags (&event, cudaEventDisableTiming);
  if (err == cudaSuccess)
    err = cudaEventRecord (event, stream);
  if (event)
    g_ptr_array_add (meta->reads, event);
  g_mutex_unlock (&meta->lock);
  return err;
}

/**
 * gst_accel_frame_sync_begin:
 * @sync: (out caller-allocates): what to finish with
 * @in: (nullable): the input frame in CUDA memory, %NULL for system memory
 * @out: (nullable): the output frame in CUDA memory, %NULL for system
 *   memory
 * @downstream_waits: downstream takes the meta (the allocation query said
 *   so)
 * @stream: the element's stream
 *
 * Makes @stream wait for @in's writer and for @out's last readers, and
 * works out whether the element must wait for its own work before it
 * pushes: when downstream does not take the meta, and when @in came from
 * an element that does not (GStreamer's own): such a buffer goes back to
 * its writer when released, with no event to wait for.
 */
int
gst_accel_frame_sync_begin (GstAccelFrameSync *sync, GstBuffer *in,
    GstBuffer *out, gboolean downstream_waits, gpointer stream)
{
  int err = cudaSuccess;

  sync->in = in ? gst_buffer_get_accel_sync_meta (in) : NULL;
  sync->out = out ? gst_buffer_get_accel_sync_meta (out) : NULL;
  if (out && !sync->out && downstream_waits && gst_buffer_is_writable (out))
    sync->out = gst_buffer_ensure_accel_sync_meta (out);
  sync->host_wait
      = !out || !downstream_waits || !sync->out || (in && !sync->in);

  if (sync->in)
    err = gst_accel_sync_meta_wait_written (sync->in, stream);
  if (sync->out && err == cudaSuccess)
    err = gst_accel_sync_meta_begin_write (sync->out, stream);
  return err;
}

/**
 * gst_accel_frame_sync_end:
 * @sync: from gst_accel_frame_sync_begin()
 * @stream: the element's stream, with its work on the frame enqueued
 *
 * Records the end of the reads of the input and of the writes of the
 * output, then waits for @stream when the frame must be complete on the
 * host.
 */
int
gst_accel_frame_sync_end (GstAccelFrameSync *sync, gpointer stream)
{
  int err = cudaSuccess, e;

  if (sync->in)
    err = gst_accel_sync_meta_end_read (sync->in, stream);
  if (sync->out && (e = gst_accel_sync_meta_end_write (sync->out, stream)))
    err = err ? err : e;
  if (sync->host_wait && (e = cudaStreamSynchronize (stream)))
    err = err ? err : e;
  return err;
}

/**
 * gst_accel_sync_meta_param_spec_new:
 * @default_value: the element's default
 *
 * Returns: (transfer floating): the "sync-meta" property of the elements
 *   that write CUDA memory.
 */
GParamSpec *
gst_accel_sync_meta_param_spec_new (gboolean default_value)
{
  return g_param_spec_boolean ("sync-meta", "Sync meta",
      "Order GPU work between accel elements with CUDA events "
      "(GstAccelSyncMeta) instead of waiting for the GPU before each "
      "push; off, every frame is complete on the host when pushed",
      default_value,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
}
