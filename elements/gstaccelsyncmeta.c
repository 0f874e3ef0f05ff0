/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: GstAccelSyncMeta, the engine's fence on a GstBuffer of CUDA memory;
 * the waits and records themselves are libaccel's (accelfence.c) */
#include "gstaccelsyncmeta.h"

#include <cuda_runtime_api.h>

GST_DEBUG_CATEGORY_STATIC (gst_accel_sync_meta_debug);
#define GST_CAT_DEFAULT gst_accel_sync_meta_debug

/* the fence's error said on the log, its CUDA status returned */
static int
cuda_status (GError *error)
{
  int status = cudaGetLastError ();

  GST_WARNING ("%s", error->message);
  g_error_free (error);
  return status != cudaSuccess ? status : cudaErrorUnknown;
}

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
      GST_DEBUG_CATEGORY_INIT (gst_accel_sync_meta_debug, "accelsyncmeta", 0,
          "accel sync meta: the engine's fences on GStreamer buffers");
      g_once_init_leave (&type, t);
    }
  return type;
}

static gboolean
gst_accel_sync_meta_init (GstMeta *meta, gpointer params, GstBuffer *buffer)
{
  ((GstAccelSyncMeta *)meta)->fence = NULL;
  return TRUE;
}

static void
gst_accel_sync_meta_free (GstMeta *meta, GstBuffer *buffer)
{
  GstAccelSyncMeta *self = (GstAccelSyncMeta *)meta;

  g_clear_pointer (&self->fence, accel_fence_free);
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

/* the meta's fence, made on @stream's device by whoever comes first */
static AccelFence *
meta_fence (GstAccelSyncMeta *meta, AccelStream *stream)
{
  AccelFence *fence = g_atomic_pointer_get (&meta->fence);

  if (G_LIKELY (fence))
    return fence;
  fence = accel_fence_new (accel_stream_get_device (stream));
  if (!g_atomic_pointer_compare_and_exchange (&meta->fence, NULL, fence))
    {
      accel_fence_free (fence);
      fence = g_atomic_pointer_get (&meta->fence);
    }
  return fence;
}

/**
 * gst_accel_frame_sync_begin:
 * @sync: (out caller-allocates): what to finish with
 * @in: (array length=n_in) (nullable): the input frames in CUDA memory
 * @n_in: their number, at most %GST_ACCEL_FRAME_SYNC_MAX_INPUTS
 * @out: (nullable): the output frame in CUDA memory, %NULL for system
 *   memory
 * @downstream_waits: downstream takes the meta (the allocation query said
 *   so)
 * @stream: the element's stream
 *
 * Makes @stream wait for the inputs' writers and for @out's last readers
 * (AccelFence's acquire), and works out whether the element must wait for
 * its own work before it pushes: when downstream does not take the meta,
 * and when an input came from an element that does not (GStreamer's own):
 * such a buffer goes back to its writer when released, with no event to
 * wait for (@sync's foreign_in; an element that holds such inputs until its
 * reads are done, gstaccelforeign.h, need not wait and sets host_wait to
 * out_wait). Called from the element's streaming thread. On failure
 * @sync holds only what was acquired, so gst_accel_frame_sync_end() may
 * still be called with it.
 *
 * Returns: a cudaError_t.
 */
int
gst_accel_frame_sync_begin (GstAccelFrameSync *sync, GstBuffer **in, guint n_in,
    GstBuffer *out, gboolean downstream_waits, AccelStream *stream)
{
  GError *error = NULL;

  g_return_val_if_fail (n_in <= GST_ACCEL_FRAME_SYNC_MAX_INPUTS, -1);

  memset (sync->in, 0, sizeof sync->in);
  sync->n_in = n_in;
  sync->out = out ? gst_buffer_get_accel_sync_meta (out) : NULL;
  if (out && !sync->out && downstream_waits && gst_buffer_is_writable (out))
    sync->out = gst_buffer_ensure_accel_sync_meta (out);
  sync->out_wait = !out || !downstream_waits || !sync->out;
  sync->foreign_in = FALSE;
  sync->host_wait = sync->out_wait;

  for (guint i = 0; i < n_in; i++)
    {
      GstAccelSyncMeta *meta = gst_buffer_get_accel_sync_meta (in[i]);

      if (!meta)
        sync->foreign_in = sync->host_wait = TRUE;
      else if (!accel_fence_acquire_read (
                   meta_fence (meta, stream), stream, &error))
        {
          /* only what was acquired is released */
          sync->n_in = i;
          sync->out = NULL;
          return cuda_status (error);
        }
      sync->in[i] = meta;
    }
  if (sync->out
      && !accel_fence_acquire_write (
          meta_fence (sync->out, stream), stream, &error))
    {
      sync->out = NULL;
      return cuda_status (error);
    }
  return cudaSuccess;
}

/**
 * gst_accel_frame_sync_end:
 * @sync: from gst_accel_frame_sync_begin()
 * @stream: the element's stream, with its work on the frame enqueued
 *
 * Records the end of the reads of the inputs and of the writes of the
 * output (AccelFence's release), then waits for @stream when the frame
 * must be complete on the host. Called from the element's streaming
 * thread.
 *
 * Returns: a cudaError_t.
 */
int
gst_accel_frame_sync_end (GstAccelFrameSync *sync, AccelStream *stream)
{
  GError *error = NULL;
  gboolean ok = TRUE;

  for (guint i = 0; i < sync->n_in && ok; i++)
    if (sync->in[i])
      ok = accel_fence_release_read (
          meta_fence (sync->in[i], stream), stream, &error);
  if (ok && sync->out)
    ok = accel_fence_release_write (
        meta_fence (sync->out, stream), stream, &error);
  if (sync->host_wait)
    ok = accel_stream_synchronize (stream, ok ? &error : NULL) && ok;
  return ok ? cudaSuccess : cuda_status (error);
}

/**
 * gst_accel_sync_stream_new:
 * @context: the element's CUDA context
 *
 * An element's stream is libaccel's, so the fences it records hold it
 * (its handle is not reused while a buffer's fence still names it). Call
 * with @context current.
 *
 * Returns: (transfer full) (nullable): a non-blocking stream on
 * @context's device, or %NULL (said on the log).
 */
AccelStream *
gst_accel_sync_stream_new (GstCudaContext *context)
{
  g_autoptr (GError) error = NULL;
  AccelStream *stream = NULL;
  AccelDevice *device;
  gint id = -1;

  g_object_get (context, "cuda-device-id", &id, NULL);
  device = accel_device_get_cuda (id, &error);
  if (device)
    stream = accel_stream_new (device, &error);
  if (!stream)
    GST_WARNING ("%s", error->message);
  return stream;
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
