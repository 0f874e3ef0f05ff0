/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: one CUDA context for the engine and GStreamer. The engine
 * allocates through the CUDA runtime, which works in each device's primary
 * context; GStreamer's CUDA memory lives in the GstCudaContext it is given.
 * Wrapping the primary context makes them one, so device pointers pass
 * both ways and copies between them stay on the device. */
#include "gstaccelcudacontext.h"

#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

GST_DEBUG_CATEGORY_STATIC (gst_accel_cuda_context_debug);
#define GST_CAT_DEFAULT gst_accel_cuda_context_debug

/**
 * gst_accel_cuda_load:
 *
 * Loads the CUDA driver library through libgstcuda and registers its
 * memory allocator, once per process.
 *
 * Returns: whether GStreamer's CUDA memory can be used. MT safe.
 */
gboolean
gst_accel_cuda_load (void)
{
  static gsize once = 0;
  static gboolean loaded = FALSE;

  if (g_once_init_enter (&once))
    {
      GST_DEBUG_CATEGORY_INIT (gst_accel_cuda_context_debug, "accelcudacontext",
          0, "accel CUDA context shared with GStreamer");
      loaded = gst_cuda_load_library ();
      if (loaded)
        gst_cuda_memory_init_once ();
      GST_INFO ("libgstcuda %s", loaded ? "loaded" : "cannot load libcuda");
      g_once_init_leave (&once, 1);
    }
  return loaded;
}

/**
 * gst_accel_cuda_context_new_primary:
 * @device: a CUDA device ordinal
 *
 * Wraps @device's primary context, the one the CUDA runtime (and so the
 * engine) uses. libgstcuda has no call for it, but the runtime makes it
 * current and popping it yields its handle; it is pushed back and the
 * thread's runtime device restored, so the caller's thread is left as it
 * was. Call gst_accel_cuda_load() first.
 *
 * Returns: (transfer full) (nullable): the context, or %NULL. Any thread.
 */
GstCudaContext *
gst_accel_cuda_context_new_primary (gint device)
{
  GstCudaContext *context = NULL;
  CUcontext primary = NULL;
  CUdevice handle;
  int previous = -1;

  g_return_val_if_fail (device >= 0, NULL);

  if (cudaGetDevice (&previous) != cudaSuccess)
    previous = -1;
  if (cudaSetDevice (device) != cudaSuccess || cudaFree (NULL) != cudaSuccess
      || CuCtxPopCurrent (&primary) != CUDA_SUCCESS || !primary)
    goto done;
  CuCtxPushCurrent (primary);
  if (CuDeviceGet (&handle, device) == CUDA_SUCCESS)
    context = gst_cuda_context_new_wrapped (primary, handle);

done:
  if (previous >= 0 && previous != device)
    cudaSetDevice (previous);
  if (!context)
    GST_WARNING ("cannot wrap the primary context of CUDA device %d", device);
  return context;
}

/**
 * gst_accel_cuda_caps_are_cuda:
 * @caps: fixed caps
 *
 * Returns: whether @caps carry the memory:CUDAMemory feature.
 */
gboolean
gst_accel_cuda_caps_are_cuda (GstCaps *caps)
{
  GstCapsFeatures *f = gst_caps_get_features (caps, 0);

  return f && !gst_caps_features_is_any (f)
         && gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
}

/**
 * gst_accel_cuda_pool_new:
 * @context: the context its memory lives in
 * @caps: the frames' caps
 * @size: bytes per frame
 * @min: buffers to keep at least
 *
 * Returns: (transfer full): a configured pool of CUDA memory with video
 *   metas, or %NULL.
 */
GstBufferPool *
gst_accel_cuda_pool_new (
    GstCudaContext *context, GstCaps *caps, guint size, guint min)
{
  GstBufferPool *pool = gst_cuda_buffer_pool_new (context);
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_set_params (config, caps, size, min, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config))
    {
      gst_object_unref (pool);
      return NULL;
    }
  return pool;
}
