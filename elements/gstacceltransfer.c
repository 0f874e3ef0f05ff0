/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the copies between system memory and CUDA memory that accelupload
 * and acceldownload (and a filter given system memory on a GPU) make,
 * through pinned staging memory */
#include "gstacceltransfer.h"

#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudamemory.h>
#include <string.h>

#include "gstaccelcuda.h"

/**
 * gst_accel_pinned_clear:
 * @pinned: a ring, possibly empty
 *
 * Frees its buffers and events (the element's CUDA context current).
 */
void
gst_accel_pinned_clear (GstAccelPinned *pinned)
{
  for (guint i = 0; i < GST_ACCEL_TRANSFER_SLOTS; i++)
    {
      if (pinned->done[i])
        {
          cudaEventSynchronize (pinned->done[i]);
          cudaEventDestroy (pinned->done[i]);
        }
      if (pinned->host[i])
        cudaFreeHost (pinned->host[i]);
    }
  memset (pinned, 0, sizeof (*pinned));
}

/**
 * gst_accel_pinned_release:
 * @pinned: a ring, possibly empty
 * @context: (nullable): the context it was made in
 *
 * gst_accel_pinned_clear() with @context current.
 */
void
gst_accel_pinned_release (GstAccelPinned *pinned, GstCudaContext *context)
{
  if (context && gst_accel_cuda_scope_enter (context))
    {
      gst_accel_pinned_clear (pinned);
      gst_accel_cuda_scope_leave ();
    }
}

/* the next slot, of @size bytes, once the copy that used it is done */
static int
next_slot (GstAccelPinned *pinned, gsize size, guint *slot)
{
  cudaError_t err;
  guint i;

  if (pinned->size != size)
    {
      gst_accel_pinned_clear (pinned);
      for (i = 0; i < GST_ACCEL_TRANSFER_SLOTS; i++)
        if ((err = cudaMallocHost (&pinned->host[i], size))
            || (err = cudaEventCreateWithFlags (
                    (cudaEvent_t *)&pinned->done[i], cudaEventDisableTiming)))
          {
            gst_accel_pinned_clear (pinned);
            return err;
          }
      pinned->size = size;
    }
  i = pinned->next;
  pinned->next = (i + 1) % GST_ACCEL_TRANSFER_SLOTS;
  if ((err = cudaEventSynchronize (pinned->done[i])))
    return err;
  *slot = i;
  return cudaSuccess;
}

/* bytes of one row of plane @plane */
static gsize
plane_row_bytes (const GstVideoFrame *frame, guint plane)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];

  gst_video_format_info_component (frame->info.finfo, plane, comp);
  return (gsize)GST_VIDEO_FRAME_COMP_WIDTH (frame, comp[0])
         * GST_VIDEO_FRAME_COMP_PSTRIDE (frame, comp[0]);
}

static guint
plane_rows (const GstVideoFrame *frame, guint plane)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];

  gst_video_format_info_component (frame->info.finfo, plane, comp);
  return GST_VIDEO_FRAME_COMP_HEIGHT (frame, comp[0]);
}

/* the staging layout: the planes of @frame packed row after row */
static gsize
packed_size (const GstVideoFrame *frame)
{
  gsize size = 0;

  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (frame); p++)
    size += plane_row_bytes (frame, p) * plane_rows (frame, p);
  return size;
}

/**
 * gst_accel_transfer_upload_planes:
 * @pinned: the element's staging ring
 * @in: a frame in system memory
 * @dst: (array): where each plane of @in goes, in device memory
 * @dst_pitch: (array): the pitch of each of them
 * @stream: the element's stream
 *
 * Copies @in into a pinned slot on the host, then enqueues the copy of
 * each plane to @dst on @stream; returns without waiting for the GPU.
 *
 * Returns: a cudaError_t.
 */
int
gst_accel_transfer_upload_planes (GstAccelPinned *pinned, GstVideoFrame *in,
    guint8 *const *dst, const gsize *dst_pitch, gpointer stream)
{
  guint slot;
  guint8 *staged;
  int err;

  if ((err = next_slot (pinned, packed_size (in), &slot)))
    return err;
  staged = pinned->host[slot];
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (in); p++)
    {
      gsize row = plane_row_bytes (in, p);
      guint rows = plane_rows (in, p);
      const guint8 *src = GST_VIDEO_FRAME_PLANE_DATA (in, p);
      gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (in, p);

      for (guint y = 0; y < rows; y++)
        memcpy (staged + y * row, src + (gsize)y * stride, row);
      if ((err = cudaMemcpy2DAsync (dst[p], dst_pitch[p], staged, row, row,
               rows, cudaMemcpyHostToDevice, stream)))
        return err;
      staged += row * rows;
    }
  return cudaEventRecord (pinned->done[slot], stream);
}

/**
 * gst_accel_transfer_upload:
 * @pinned: the element's staging ring
 * @in: a frame in system memory
 * @out: the same format in CUDA memory, mapped with GST_MAP_CUDA
 * @stream: the element's stream
 *
 * gst_accel_transfer_upload_planes() into @out's planes.
 *
 * Returns: a cudaError_t.
 */
int
gst_accel_transfer_upload (GstAccelPinned *pinned, GstVideoFrame *in,
    GstVideoFrame *out, gpointer stream)
{
  guint8 *dst[GST_VIDEO_MAX_PLANES];
  gsize pitch[GST_VIDEO_MAX_PLANES];

  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (out); p++)
    {
      dst[p] = GST_VIDEO_FRAME_PLANE_DATA (out, p);
      pitch[p] = GST_VIDEO_FRAME_PLANE_STRIDE (out, p);
    }
  return gst_accel_transfer_upload_planes (pinned, in, dst, pitch, stream);
}

/**
 * gst_accel_transfer_download_start:
 * @pinned: the element's staging ring
 * @in: a frame in CUDA memory, mapped with GST_MAP_CUDA
 * @stream: the element's stream
 * @staged: (out): where the frame will be, once @stream is done
 *
 * Enqueues the copy of each plane of @in into a pinned slot.
 *
 * Returns: a cudaError_t.
 */
int
gst_accel_transfer_download_start (GstAccelPinned *pinned, GstVideoFrame *in,
    gpointer stream, gpointer *staged)
{
  guint slot;
  guint8 *dst;
  int err;

  if ((err = next_slot (pinned, packed_size (in), &slot)))
    return err;
  dst = *staged = pinned->host[slot];
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (in); p++)
    {
      gsize row = plane_row_bytes (in, p);
      guint rows = plane_rows (in, p);

      if ((err
              = cudaMemcpy2DAsync (dst, row, GST_VIDEO_FRAME_PLANE_DATA (in, p),
                  GST_VIDEO_FRAME_PLANE_STRIDE (in, p), row, rows,
                  cudaMemcpyDeviceToHost, stream)))
        return err;
      dst += row * rows;
    }
  return cudaEventRecord (pinned->done[slot], stream);
}

/**
 * gst_accel_transfer_download_finish:
 * @staged: from gst_accel_transfer_download_start(), its copies done
 * @out: the frame in system memory
 *
 * Copies the staged planes into @out's.
 */
void
gst_accel_transfer_download_finish (gconstpointer staged, GstVideoFrame *out)
{
  const guint8 *src = staged;

  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (out); p++)
    {
      gsize row = plane_row_bytes (out, p);
      guint rows = plane_rows (out, p);
      guint8 *dst = GST_VIDEO_FRAME_PLANE_DATA (out, p);
      gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (out, p);

      for (guint y = 0; y < rows; y++)
        memcpy (dst + (gsize)y * stride, src + y * row, row);
      src += row * rows;
    }
}

/**
 * gst_accel_caps_set_memory:
 * @caps: (transfer none): caps
 * @cuda: %TRUE for CUDA memory, %FALSE for system memory
 *
 * Returns: (transfer full): a copy of @caps with every structure's memory
 *   feature set to CUDA memory or to system memory.
 */
GstCaps *
gst_accel_caps_set_memory (GstCaps *caps, gboolean cuda)
{
  GstCaps *out = gst_caps_copy (caps);

  for (guint i = 0; i < gst_caps_get_size (out); i++)
    gst_caps_set_features (out, i,
        gst_caps_features_new (cuda ? GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY
                                    : GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY,
            NULL));
  return out;
}

/**
 * gst_accel_transfer_caps:
 * @caps: caps on one pad of accelupload or acceldownload
 * @direction: that pad's direction
 * @upload: %TRUE for accelupload, %FALSE for acceldownload
 * @filter: (nullable): caps to intersect with
 *
 * The caps of the other pad. Forward (sink to source) a transfer element
 * only makes its own output memory: were the input's memory offered too,
 * GstBaseTransform would prefer passing it through; formats CUDA memory
 * cannot hold pass through in system memory. Backward it takes either
 * memory. Without a usable GPU both pads are system memory, passed
 * through.
 *
 * Returns: (transfer full): the caps.
 */
GstCaps *
gst_accel_transfer_caps (
    GstCaps *caps, GstPadDirection direction, gboolean upload, GstCaps *filter)
{
  gboolean forward = direction == GST_PAD_SINK;
  GstCaps *result;

  /* ANY: the pad template's order stands */
  if (gst_caps_is_any (caps))
    return filter ? gst_caps_ref (filter) : gst_caps_ref (caps);
  if (!gst_accel_cuda_usable ())
    result = gst_accel_caps_set_memory (caps, FALSE);
  else if (forward)
    {
      GstCaps *system_only
          = gst_caps_from_string (GST_ACCEL_TRANSFER_SYSTEM_ONLY_CAPS);

      result = gst_caps_merge (gst_accel_caps_set_memory (caps, upload),
          gst_caps_intersect (caps, system_only));
      gst_caps_unref (system_only);
    }
  else
    result = gst_caps_merge (
        gst_accel_caps_set_memory (caps, !upload), gst_caps_ref (caps));
  if (filter)
    {
      GstCaps *tmp
          = gst_caps_intersect_full (filter, result, GST_CAPS_INTERSECT_FIRST);
      gst_caps_unref (result);
      result = tmp;
    }
  return result;
}
