/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the CUDA context the elements share, through GstContext
 * ("gst.cuda.context") as GStreamer's nvcodec elements do, so that memory
 * passes between them without copies */
#include "gstaccelcuda.h"

#include "gstaccelsyncmeta.h"

#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudautils.h>

GST_DEBUG_CATEGORY_STATIC (gst_accel_cuda_debug);
#define GST_CAT_DEFAULT gst_accel_cuda_debug

/**
 * gst_accel_cuda_usable:
 *
 * Returns: whether the elements can run on a GPU here: one is present,
 *   the CUDA driver loads, and `ACCEL_BACKEND` does not ask for the host.
 *   MT safe.
 */
gboolean
gst_accel_cuda_usable (void)
{
  static gsize once = 0;
  static gboolean usable = FALSE;

  if (g_once_init_enter (&once))
    {
      int n = 0;

      GST_DEBUG_CATEGORY_INIT (
          gst_accel_cuda_debug, "accelcuda", 0, "accel CUDA context");
      usable = g_strcmp0 (g_getenv ("ACCEL_BACKEND"), "host") != 0
               && cudaGetDeviceCount (&n) == cudaSuccess && n > 0
               && gst_accel_cuda_load ();
      GST_INFO ("GPU path %s", usable ? "on" : "off: host implementations");
      g_once_init_leave (&once, 1);
    }
  return usable;
}

/* asks the peers of every pad, then the application (need-context) */
static void
query_context (GstElement *element, GstCudaContext **context)
{
  GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
  GList *pads = g_list_concat (
      g_list_copy (element->srcpads), g_list_copy (element->sinkpads));

  for (GList *l = pads; l && !*context; l = l->next)
    if (gst_pad_peer_query (l->data, query))
      {
        GstContext *ctx = NULL;

        gst_query_parse_context (query, &ctx);
        if (ctx)
          gst_cuda_handle_set_context (element, ctx, -1, context);
      }
  g_list_free (pads);
  gst_query_unref (query);

  if (!*context)
    gst_element_post_message (
        element, gst_message_new_need_context (
                     GST_OBJECT (element), GST_CUDA_CONTEXT_TYPE));
}

/* wraps the primary context and tells the pipeline (have-context) */
static gboolean
make_context (GstElement *element, GstCudaContext **context)
{
  *context = gst_accel_cuda_context_new_primary (0);
  if (!*context)
    return FALSE;
  GST_INFO_OBJECT (element, "made %" GST_PTR_FORMAT, *context);
  gst_element_post_message (
      element, gst_message_new_have_context (GST_OBJECT (element),
                   gst_context_new_cuda_context (*context)));
  return TRUE;
}

/**
 * gst_accel_cuda_ensure_context:
 * @element: the element
 * @context: (inout): its context; kept when set already (set_context())
 *
 * Finds the pipeline's CUDA context (a neighbour's, or the application's)
 * or makes one that wraps the runtime's primary context, and announces it
 * (have-context) so every CUDA element in the pipeline shares it.
 *
 * Returns: %TRUE when @context is set.
 */
gboolean
gst_accel_cuda_ensure_context (GstElement *element, GstCudaContext **context)
{
  if (*context)
    return TRUE;
  if (!gst_accel_cuda_usable ())
    return FALSE;
  query_context (element, context);
  if (*context)
    return TRUE;

  if (!make_context (element, context))
    {
      GST_ELEMENT_ERROR (element, RESOURCE, FAILED, (NULL),
          ("cannot wrap the CUDA primary context of GPU 0"));
      return FALSE;
    }
  return TRUE;
}

/**
 * gst_accel_cuda_handle_context_query:
 * @element: the element
 * @context: (inout): its context, possibly not made yet
 * @query: a context query from a neighbour
 *
 * Answers @query with @context. GStreamer's CUDA elements look for a
 * context as they go to READY, before an accel element upstream of them
 * has made its own, and would otherwise create one of their own, apart
 * from the CUDA runtime's primary context that the engine works in: then
 * the engine's events and the frames' memory would belong to different
 * contexts. So a query that comes first makes the shared one.
 *
 * Returns: %TRUE when @query was answered.
 */
gboolean
gst_accel_cuda_handle_context_query (
    GstElement *element, GstCudaContext **context, GstQuery *query)
{
  const gchar *type = NULL;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT
      || !gst_query_parse_context_type (query, &type)
      || g_strcmp0 (type, GST_CUDA_CONTEXT_TYPE) != 0)
    return FALSE;
  if (!*context && gst_accel_cuda_usable ())
    {
      /* the pipeline's own, when it has one, comes back at once through
       * set_context(); no pad is asked, as a neighbour asking us back
       * would ask again */
      gst_element_post_message (
          element, gst_message_new_need_context (
                       GST_OBJECT (element), GST_CUDA_CONTEXT_TYPE));
      if (!*context)
        make_context (element, context);
    }
  return *context && gst_cuda_handle_context_query (element, query, *context);
}

gboolean
gst_accel_cuda_scope_enter (GstCudaContext *context)
{
  return gst_cuda_context_push (context);
}

void
gst_accel_cuda_scope_leave (void)
{
  gst_cuda_context_pop (NULL);
}

/**
 * gst_accel_cuda_propose_allocation:
 * @context: the element's context
 * @query: an allocation query from upstream, for CUDA memory caps
 * @sync_meta: whether the element takes GstAccelSyncMeta on its input
 *
 * Offers upstream a pool of CUDA memory in @context, and says whether the
 * element waits for the sync meta's events, so that upstream need not wait
 * for the GPU before it pushes.
 *
 * Returns: %TRUE when the pool was added.
 */
gboolean
gst_accel_cuda_propose_allocation (
    GstCudaContext *context, GstQuery *query, gboolean sync_meta)
{
  GstCaps *caps;
  GstVideoInfo info;
  GstBufferPool *pool;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  pool = gst_accel_cuda_pool_new (context, caps, info.size, 0);
  if (!pool)
    return FALSE;
  gst_query_add_allocation_pool (query, pool, info.size, 0, 0);
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  if (sync_meta)
    gst_query_add_allocation_meta (query, GST_ACCEL_SYNC_META_API_TYPE, NULL);
  gst_object_unref (pool);
  return TRUE;
}

/**
 * gst_accel_cuda_decide_allocation:
 * @context: the element's context
 * @query: the allocation query of the element's CUDA memory output
 *
 * Keeps downstream's pool when it is CUDA memory of @context, otherwise
 * puts a pool of @context first.
 *
 * Returns: %TRUE on success.
 */
gboolean
gst_accel_cuda_decide_allocation (GstCudaContext *context, GstQuery *query)
{
  GstCaps *caps;
  GstVideoInfo info;
  GstBufferPool *pool = NULL;
  guint size, min = 0, max = 0;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  if (gst_query_get_n_allocation_pools (query) > 0)
    {
      gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
      if (pool
          && (!GST_IS_CUDA_BUFFER_POOL (pool)
              || GST_CUDA_BUFFER_POOL (pool)->context != context))
        gst_clear_object (&pool);
    }
  if (!pool)
    pool = gst_accel_cuda_pool_new (context, caps, info.size, min);
  if (!pool)
    return FALSE;
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, info.size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, info.size, min, max);
  gst_object_unref (pool);
  return TRUE;
}
