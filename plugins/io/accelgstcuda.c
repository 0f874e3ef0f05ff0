/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: the GStreamer bridge's CUDA memory. On a GPU the
 * bridge's pipeline gets one GstCudaContext, the one that wraps the CUDA
 * runtime's primary context of the stage's device, so GStreamer's CUDA
 * memory and the engine's buffers live in one context and frames move
 * between them with device to device copies on the stage's stream. */
#define G_LOG_DOMAIN "accel-gst-cuda"

#include "accelgstcuda-private.h"

#ifdef ACCEL_IO_HAVE_GST_CUDA

#include "gstaccelcudacontext.h"
#include "gstaccelpinnedpool.h"

#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

/**
 * accel_gst_cuda_context_new:
 * @stage: a stage of the bridge
 *
 * Returns: (transfer full) (nullable): the primary context of @stage's
 *   device as a GstCudaContext, or %NULL when the stage runs on the host
 *   or GStreamer's CUDA library cannot be used (the bridge then hands
 *   system memory). Any thread: the thread's CUDA device is left as it was.
 */
GstCudaContext *
accel_gst_cuda_context_new (AccelStage *stage)
{
  AccelDevice *device = accel_stage_get_device (stage);
  GstCudaContext *context;

  if (accel_device_is_host (device) || !gst_accel_cuda_load ())
    return NULL;
  context
      = gst_accel_cuda_context_new_primary (accel_device_get_index (device));
  if (!context)
    g_message ("stage '%s' (%s): GStreamer cannot share the context of %s; "
               "the bridge hands system memory",
        accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
        accel_device_get_name (device));
  return context;
}

/**
 * accel_gst_cuda_share:
 * @pipeline: the bridge's pipeline, not started
 * @watch: its watch
 * @context: the stage's CUDA context
 *
 * Gives @context ("gst.cuda.context") to the pipeline's CUDA elements,
 * those there now and those made later, so none makes a context of its own
 * and their memory is the engine's.
 */
void
accel_gst_cuda_share (
    GstElement *pipeline, AccelGstWatch *watch, GstCudaContext *context)
{
  GstContext *shared = gst_context_new_cuda_context (context);

  accel_gst_pipeline_share_context (pipeline, watch, shared);
  gst_context_unref (shared);
}

/**
 * accel_gst_cuda_caps_are_cuda:
 * @caps: fixed caps
 *
 * Returns: whether @caps are CUDA memory.
 */
gboolean
accel_gst_cuda_caps_are_cuda (GstCaps *caps)
{
  return gst_accel_cuda_caps_are_cuda (caps);
}

/**
 * accel_gst_cuda_caps_from_system:
 * @caps: fixed system memory caps of the bridge
 *
 * Returns: (transfer full) (nullable): the same caps in CUDA memory, or
 *   %NULL for a format GStreamer's CUDA memory does not hold.
 */
GstCaps *
accel_gst_cuda_caps_from_system (GstCaps *caps)
{
  g_autoptr (GstCaps) formats
      = gst_caps_from_string (ACCEL_GST_CUDA_VIDEO_CAPS);
  GstCaps *cuda = gst_caps_copy (caps);

  gst_caps_set_features (cuda, 0,
      gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
  if (!gst_caps_can_intersect (cuda, formats))
    gst_clear_caps (&cuda);
  return cuda;
}

/**
 * accel_gst_cuda_downstream_takes:
 * @element: the bridge's appsrc
 * @caps: fixed CUDA memory caps
 *
 * Asks the element after @element which caps it takes. An appsrc's caps
 * are fixed before its first buffer, and that buffer must already be in
 * the memory they name, so the choice is made here, once, rather than by
 * offering both and seeing what negotiation picks. Only caps that name
 * CUDA memory count: an element that takes anything (ANY caps or
 * features, a fakesink or an auto sink not yet holding its real sink) says
 * nothing about it, and system memory is the safe choice there.
 *
 * Returns: whether downstream names CUDA memory in caps that meet @caps.
 */
gboolean
accel_gst_cuda_downstream_takes (GstElement *element, GstCaps *caps)
{
  GstPad *pad = gst_element_get_static_pad (element, "src");
  GstCaps *peer = gst_pad_peer_query_caps (pad, NULL);
  gboolean takes = FALSE;

  for (guint i = 0; peer && !takes && i < gst_caps_get_size (peer); i++)
    {
      GstCapsFeatures *f = gst_caps_get_features (peer, i);
      if (f && !gst_caps_features_is_any (f)
          && gst_caps_features_contains (
              f, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY))
        {
          GstCaps *one = gst_caps_copy_nth (peer, i);
          takes = gst_caps_can_intersect (one, caps);
          gst_caps_unref (one);
        }
    }
  if (peer)
    {
      g_autofree gchar *text = gst_caps_to_string (peer);
      g_debug ("downstream takes %s: %s", text,
          takes ? "CUDA memory" : "no CUDA memory");
    }
  gst_clear_caps (&peer);
  gst_object_unref (pad);
  return takes;
}

/**
 * accel_gst_cuda_pool_new:
 * @context: the stage's CUDA context
 * @caps: fixed video caps, of CUDA memory or with @page_locked of system
 *   memory
 * @page_locked: a pool of page-locked system memory frames
 *   (GstAccelPinnedPool), not of CUDA memory
 * @min_buffers: frames to keep at least
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full): an active pool of CUDA memory frames with
 *   video metas, or of page-locked frames in the caps' layout, or %NULL.
 */
GstBufferPool *
accel_gst_cuda_pool_new (GstCudaContext *context, GstCaps *caps,
    gboolean page_locked, guint min_buffers, GError **error)
{
  const char *what = page_locked ? "page-locked" : "GStreamer CUDA";
  g_autofree gchar *text = NULL;
  GstVideoInfo info;
  GstBufferPool *pool = NULL;

  if (!gst_video_info_from_caps (&info, caps))
    goto no_pool;
  if (page_locked)
    {
      GstStructure *config;

      pool = gst_accel_pinned_pool_new (context);
      config = gst_buffer_pool_get_config (pool);
      gst_buffer_pool_config_set_params (
          config, caps, info.size, min_buffers, 0);
      if (!gst_buffer_pool_set_config (pool, config))
        gst_clear_object (&pool);
    }
  else
    pool = gst_accel_cuda_pool_new (context, caps, info.size, min_buffers);
  if (!pool)
    goto no_pool;
  if (!gst_buffer_pool_set_active (pool, TRUE))
    goto no_memory;
  return pool;

  /* ERRORS */
no_pool:
  {
    text = gst_caps_to_string (caps);
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
        "cannot make a pool of %s memory for %s", what, text);
    return NULL;
  }
no_memory:
  {
    text = gst_caps_to_string (caps);
    gst_object_unref (pool);
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_OUT_OF_MEMORY,
        "cannot allocate %s memory for %s", what, text);
    return NULL;
  }
}

/**
 * accel_gst_cuda_buffer_is_ours:
 * @buffer: a buffer from the description
 * @context: (nullable): the stage's CUDA context
 *
 * Returns: whether @buffer is one piece of CUDA memory in @context's CUDA
 *   context, which the stage's stream can copy from directly. Memory of
 *   another context (an element that made its own) is read through system
 *   memory instead.
 */
gboolean
accel_gst_cuda_buffer_is_ours (GstBuffer *buffer, GstCudaContext *context)
{
  GstMemory *mem;

  if (!context || gst_buffer_n_memory (buffer) != 1)
    return FALSE;
  mem = gst_buffer_peek_memory (buffer, 0);
  return gst_is_cuda_memory (mem)
         && gst_cuda_context_get_handle (GST_CUDA_MEMORY_CAST (mem)->context)
                == gst_cuda_context_get_handle (context);
}

/* what an appsink's probe offers upstream */
typedef struct
{
  GstCudaContext *context;
  guint min_buffers;
} PageLockedOffer;

static void
page_locked_offer_free (gpointer data)
{
  PageLockedOffer *offer = data;

  gst_object_unref (offer->context);
  g_free (offer);
}

static GstPadProbeReturn
offer_page_locked (GstPad *pad, GstPadProbeInfo *info, gpointer user_data)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);
  PageLockedOffer *offer = user_data;
  GstCaps *caps = NULL;

  if (GST_QUERY_TYPE (query) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  gst_query_parse_allocation (query, &caps, NULL);
  if (caps && !accel_gst_cuda_caps_are_cuda (caps)
      && gst_query_get_n_allocation_pools (query) == 0)
    gst_accel_pinned_pool_offer (offer->context, query, offer->min_buffers);
  return GST_PAD_PROBE_OK;
}

/**
 * accel_gst_cuda_offer_page_locked:
 * @sink: the bridge's appsink
 * @context: the stage's context
 * @min_buffers: the samples the bridge may hold at once, plus one
 *
 * Offers upstream of @sink, for system memory, a pool of frames in
 * page-locked memory (gst_accel_pinned_pool_offer ()): an element that
 * takes it renders into memory the stage's copy to the device reads by
 * DMA alone, with no staging by the CUDA driver on the stage's thread.
 */
void
accel_gst_cuda_offer_page_locked (
    GstElement *sink, GstCudaContext *context, guint min_buffers)
{
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  PageLockedOffer *offer = g_new (PageLockedOffer, 1);

  offer->context = gst_object_ref (context);
  offer->min_buffers = min_buffers;
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM,
      offer_page_locked, offer, page_locked_offer_free);
  gst_object_unref (pad);
}

/**
 * accel_gst_cuda_buffer_is_page_locked:
 * @buffer: a buffer in system memory
 * @context: the stage's context
 *
 * Returns: whether @buffer's first memory is page-locked.
 */
gboolean
accel_gst_cuda_buffer_is_page_locked (
    GstBuffer *buffer, GstCudaContext *context)
{
  GstMapInfo map;
  gboolean locked = FALSE;

  if (!context || gst_buffer_n_memory (buffer) == 0
      || !gst_buffer_map_range (buffer, 0, 1, &map, GST_MAP_READ))
    return FALSE;
  /* in the stage's context: the query would make another device's */
  if (gst_cuda_context_push (context))
    {
      locked = gst_accel_is_page_locked (map.data);
      gst_cuda_context_pop (NULL);
    }
  gst_buffer_unmap (buffer, &map);
  return locked;
}

/* maps @buffer's planes where the stream's copies reach them: CUDA memory
 * as device pointers, the video meta saying where they are, and without
 * one the memory's own layout (pitched rows), not the caps'; page-locked
 * system memory as it is, in the caps' layout */
static gboolean
map_for_copy (GstVideoFrame *frame, const GstVideoInfo *info, GstBuffer *buffer,
    GstMapFlags flags, GError **error)
{
  GstMemory *mem = gst_buffer_peek_memory (buffer, 0);
  gboolean cuda = gst_is_cuda_memory (mem);
  const GstVideoInfo *layout = !cuda || gst_buffer_get_video_meta (buffer)
                                   ? info
                                   : &GST_CUDA_MEMORY_CAST (mem)->info;

  if (gst_video_frame_map (
          frame, layout, buffer, cuda ? flags | GST_MAP_CUDA : flags))
    return TRUE;
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
      "cannot map a GStreamer %s buffer for %s",
      cuda ? "CUDA memory" : "page-locked memory",
      flags & GST_MAP_WRITE ? "writing" : "reading");
  return FALSE;
}

/**
 * accel_gst_cuda_copy_to_buffer:
 * @stream: the stage's stream
 * @src: a packed image in device memory
 * @format: its format
 * @info: the caps' layout
 * @buffer: a buffer of the stage's pool (accel_gst_cuda_pool_new ())
 * @error: return location for a #GError, or %NULL
 *
 * Enqueues the copy of @src into @buffer on @stream. GStreamer 1.22's CUDA
 * memory cannot wrap the engine's pointer, and has no stream of its own
 * to wait on; page-locked memory is written by DMA after this returns:
 * either way the caller hands @buffer on only once @stream has done the
 * copy.
 *
 * Returns: %FALSE with the error. Called from the stage's thread.
 */
gboolean
accel_gst_cuda_copy_to_buffer (AccelStream *stream, gconstpointer src,
    AccelFormat format, const GstVideoInfo *info, GstBuffer *buffer,
    GError **error)
{
  GstVideoFrame frame;
  gboolean ok;

  if (!map_for_copy (&frame, info, buffer, GST_MAP_WRITE, error))
    return FALSE;
  ok = accel_gst_copy_planes (
      stream, &frame, format, (guint8 *)src, TRUE, error);
  gst_video_frame_unmap (&frame);
  return ok;
}

/**
 * accel_gst_cuda_copy_from_buffer:
 * @stream: the stage's stream
 * @buffer: a buffer for which accel_gst_cuda_buffer_is_ours() holds
 * @info: the caps' layout
 * @format: the image format
 * @dst: a packed image in device memory
 * @error: return location for a #GError, or %NULL
 *
 * Enqueues the copy of @buffer into @dst on @stream. In GStreamer 1.22 a
 * CUDA memory buffer is complete when it is handed on (its writer waited
 * for its own stream) and mapping it for CUDA uploads what was written on
 * the host, so no wait is needed before the copy; the caller keeps
 * @buffer until @stream has done it.
 *
 * Returns: %FALSE with the error. Called from the stage's thread.
 */
gboolean
accel_gst_cuda_copy_from_buffer (AccelStream *stream, GstBuffer *buffer,
    const GstVideoInfo *info, AccelFormat format, gpointer dst, GError **error)
{
  GstVideoFrame frame;
  gboolean ok;

  if (!map_for_copy (&frame, info, buffer, GST_MAP_READ, error))
    return FALSE;
  ok = accel_gst_copy_planes (stream, &frame, format, dst, FALSE, error);
  gst_video_frame_unmap (&frame);
  return ok;
}

#else /* !ACCEL_IO_HAVE_GST_CUDA */

/* built without GStreamer's CUDA library: the bridge hands system memory */

GstCudaContext *
accel_gst_cuda_context_new (AccelStage *stage)
{
  return NULL;
}

void
accel_gst_cuda_share (
    GstElement *pipeline, AccelGstWatch *watch, GstCudaContext *context)
{
  g_return_if_reached ();
}

gboolean
accel_gst_cuda_caps_are_cuda (GstCaps *caps)
{
  return FALSE;
}

GstCaps *
accel_gst_cuda_caps_from_system (GstCaps *caps)
{
  return NULL;
}

gboolean
accel_gst_cuda_downstream_takes (GstElement *element, GstCaps *caps)
{
  return FALSE;
}

GstBufferPool *
accel_gst_cuda_pool_new (GstCudaContext *context, GstCaps *caps,
    gboolean page_locked, guint min_buffers, GError **error)
{
  g_return_val_if_reached (NULL);
}

gboolean
accel_gst_cuda_buffer_is_ours (GstBuffer *buffer, GstCudaContext *context)
{
  return FALSE;
}

void
accel_gst_cuda_offer_page_locked (
    GstElement *sink, GstCudaContext *context, guint min_buffers)
{
  g_return_if_reached ();
}

gboolean
accel_gst_cuda_buffer_is_page_locked (
    GstBuffer *buffer, GstCudaContext *context)
{
  return FALSE;
}

gboolean
accel_gst_cuda_copy_to_buffer (AccelStream *stream, gconstpointer src,
    AccelFormat format, const GstVideoInfo *info, GstBuffer *buffer,
    GError **error)
{
  g_return_val_if_reached (FALSE);
}

gboolean
accel_gst_cuda_copy_from_buffer (AccelStream *stream, GstBuffer *buffer,
    const GstVideoInfo *info, AccelFormat format, gpointer dst, GError **error)
{
  g_return_val_if_reached (FALSE);
}

#endif /* ACCEL_IO_HAVE_GST_CUDA */
