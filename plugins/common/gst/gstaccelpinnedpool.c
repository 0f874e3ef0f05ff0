/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: a pool of video frames in page-locked system memory. The GPU
 * reaches such memory by DMA, so a copy to or from it costs the bus alone;
 * from pageable memory the CUDA driver copies each frame through a staging
 * buffer on the host first, at memcpy's speed. The memory is plain system
 * memory to everyone else (wrapped, mapped and shared as any) */
#include "gstaccelpinnedpool.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* where the kernel backs memory in huge pages (on request) */
#define HUGE_PAGE (2u << 20)

GST_DEBUG_CATEGORY_STATIC (gst_accel_pinned_pool_debug);
#define GST_CAT_DEFAULT gst_accel_pinned_pool_debug

struct _GstAccelPinnedPool
{
  GstBufferPool parent;

  GstCudaContext *context;
  GstVideoInfo info;
  gsize size;        /* of a buffer: at least the frame's */
  gboolean add_meta; /* GstVideoMeta, which the config asks for */
};

G_DEFINE_TYPE_WITH_CODE (GstAccelPinnedPool, gst_accel_pinned_pool,
    GST_TYPE_BUFFER_POOL,
    GST_DEBUG_CATEGORY_INIT (gst_accel_pinned_pool_debug, "accelpinnedpool", 0,
        "accel page-locked frame pool"));

/* a page-locked block and the context that unpins it */
typedef struct
{
  GstCudaContext *context;
  gpointer data;
} PinnedBlock;

static void
pinned_block_free (gpointer user_data)
{
  PinnedBlock *block = user_data;

  if (gst_cuda_context_push (block->context))
    {
      cudaHostUnregister (block->data);
      gst_cuda_context_pop (NULL);
      free (block->data);
    }
  else
    GST_ERROR ("cannot make the CUDA context current: page-locked %p is "
               "not freed",
        block->data);
  gst_object_unref (block->context);
  g_free (block);
}

/* @size bytes of page-locked memory, or NULL with @err: system memory of
 * the process, in huge pages where the kernel gives them, then pinned.
 * Registering a 4K frame's memory took 1.1-1.4 ms on an H200's host where
 * cudaHostAlloc () took 14-19 ms; portable: any context may copy from it,
 * GStreamer's own included */
static gpointer
pinned_alloc (gsize size, cudaError_t *err)
{
  gpointer data = NULL;

  if (posix_memalign (&data, HUGE_PAGE, size) != 0)
    {
      *err = cudaErrorMemoryAllocation;
      return NULL;
    }
  madvise (data, size, MADV_HUGEPAGE);
  /* no copy writes the padding of the caps' rows and planes, which a
   * filesink writes out: it held whatever the heap held */
  memset (data, 0, size);
  *err = cudaHostRegister (data, size, cudaHostRegisterPortable);
  if (*err != cudaSuccess)
    {
      free (data);
      return NULL;
    }
  return data;
}

static const gchar **
gst_accel_pinned_pool_get_options (GstBufferPool *pool)
{
  static const gchar *options[] = { GST_BUFFER_POOL_OPTION_VIDEO_META, NULL };

  return options;
}

static gboolean
gst_accel_pinned_pool_set_config (GstBufferPool *pool, GstStructure *config)
{
  GstAccelPinnedPool *self = GST_ACCEL_PINNED_POOL (pool);
  GstCaps *caps = NULL;
  guint size, min, max;
  GstVideoInfo info;

  if (!gst_buffer_pool_config_get_params (config, &caps, &size, &min, &max)
      || !caps || !gst_video_info_from_caps (&info, caps))
    {
      GST_WARNING_OBJECT (
          pool, "the config has no video caps: %" GST_PTR_FORMAT, config);
      return FALSE;
    }
  self->info = info;
  self->size = MAX (size, info.size);
  self->add_meta = gst_buffer_pool_config_has_option (
      config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (config, caps, self->size, min, max);
  return GST_BUFFER_POOL_CLASS (gst_accel_pinned_pool_parent_class)
      ->set_config (pool, config);
}

static GstFlowReturn
gst_accel_pinned_pool_alloc_buffer (
    GstBufferPool *pool, GstBuffer **buffer, GstBufferPoolAcquireParams *params)
{
  GstAccelPinnedPool *self = GST_ACCEL_PINNED_POOL (pool);
  GstVideoInfo *info = &self->info;
  cudaError_t err = cudaErrorInvalidResourceHandle;
  PinnedBlock *block;
  gpointer data = NULL;

  if (gst_cuda_context_push (self->context))
    {
      data = pinned_alloc (self->size, &err);
      gst_cuda_context_pop (NULL);
    }
  if (err == cudaSuccess)
    {
      block = g_new (PinnedBlock, 1);
      block->context = gst_object_ref (self->context);
      block->data = data;
      *buffer = gst_buffer_new_wrapped_full (
          0, data, self->size, 0, self->size, block, pinned_block_free);
    }
  else
    {
      /* the frames still flow, each copy through the driver's staging */
      GST_WARNING_OBJECT (pool,
          "pinning %" G_GSIZE_FORMAT
          " bytes failed (%s): this buffer is pageable",
          self->size, cudaGetErrorString (err));
      cudaGetLastError ();
      *buffer = gst_buffer_new_allocate (NULL, self->size, NULL);
      if (!*buffer)
        return GST_FLOW_ERROR;
    }
  if (self->add_meta)
    gst_buffer_add_video_meta_full (*buffer, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info),
        info->offset, info->stride);
  return GST_FLOW_OK;
}

static void
gst_accel_pinned_pool_finalize (GObject *object)
{
  gst_clear_object (&GST_ACCEL_PINNED_POOL (object)->context);
  G_OBJECT_CLASS (gst_accel_pinned_pool_parent_class)->finalize (object);
}

static void
gst_accel_pinned_pool_class_init (GstAccelPinnedPoolClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);

  object_class->finalize = gst_accel_pinned_pool_finalize;
  pool_class->get_options = gst_accel_pinned_pool_get_options;
  pool_class->set_config = gst_accel_pinned_pool_set_config;
  pool_class->alloc_buffer = gst_accel_pinned_pool_alloc_buffer;
}

static void
gst_accel_pinned_pool_init (GstAccelPinnedPool *self)
{
}

/**
 * gst_accel_pinned_pool_new:
 * @context: the context its memory is allocated and freed in
 *
 * Returns: (transfer full): a pool of frames in page-locked system memory,
 *   to be configured with video caps.
 */
GstBufferPool *
gst_accel_pinned_pool_new (GstCudaContext *context)
{
  GstAccelPinnedPool *self = g_object_new (GST_TYPE_ACCEL_PINNED_POOL, NULL);

  gst_object_ref_sink (self);
  self->context = gst_object_ref (context);
  return GST_BUFFER_POOL (self);
}

/**
 * gst_accel_pinned_pool_offer:
 * @context: the element's context
 * @query: an allocation query for system memory video caps
 * @min_buffers: the buffers the asking element may hold at once, plus one
 *
 * Adds a page-locked pool to @query: to the query an element answers
 * upstream, or to the one it decides when downstream offered no pool.
 *
 * Returns: %TRUE when the pool was added.
 */
gboolean
gst_accel_pinned_pool_offer (
    GstCudaContext *context, GstQuery *query, guint min_buffers)
{
  GstCaps *caps;
  GstVideoInfo info;
  GstBufferPool *pool;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  pool = gst_accel_pinned_pool_new (context);
  gst_query_add_allocation_pool (query, pool, info.size, min_buffers, 0);
  gst_object_unref (pool);
  return TRUE;
}

/**
 * gst_accel_is_page_locked:
 * @data: host memory
 *
 * Returns: whether @data is page-locked host memory (a page-locked pool's,
 *   or anyone's pinned or registered memory), which the GPU reaches by DMA
 *   alone.
 */
gboolean
gst_accel_is_page_locked (gconstpointer data)
{
  struct cudaPointerAttributes attr;

  if (cudaPointerGetAttributes (&attr, data) != cudaSuccess)
    {
      cudaGetLastError ();
      return FALSE;
    }
  return attr.type == cudaMemoryTypeHost;
}
