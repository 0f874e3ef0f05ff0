/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the copies between system memory and CUDA memory that accelupload
 * and acceldownload (and a filter given system memory on a GPU) make */
#include "gstacceltransfer.h"

#include <gst/cuda/gstcudamemory.h>

#include "gstaccelcuda.h"
#include "gstaccelframecopy.h"
#include "gstaccelpinnedpool.h"

/**
 * gst_accel_transfer_upload_planes:
 * @in: a frame in system memory
 * @dst: (array): where each plane of @in goes, in device memory
 * @dst_pitch: (array): the pitch of each of them
 * @stream: the element's stream
 * @in_flight: (out): whether the copy still reads @in when this returns
 *
 * Enqueues the copy of each plane of @in on @stream. From pageable memory
 * the CUDA driver copies @in into its own page-locked staging before this
 * returns (faster than a staging copy of ours: it overlaps its memcpy with
 * the DMA); from page-locked memory the copy is DMA alone and runs after
 * this returns, so the caller keeps @in until @stream has passed it.
 *
 * Returns: a cudaError_t.
 */
int
gst_accel_transfer_upload_planes (GstVideoFrame *in, guint8 *const *dst,
    const gsize *dst_pitch, gpointer stream, gboolean *in_flight)
{
  *in_flight = gst_accel_is_page_locked (GST_VIDEO_FRAME_PLANE_DATA (in, 0));
  return gst_accel_frame_copy_planes (in, dst, dst_pitch, FALSE, stream);
}

/**
 * gst_accel_transfer_upload:
 * @in: a frame in system memory
 * @out: the same format in CUDA memory, mapped with GST_MAP_CUDA
 * @stream: the element's stream
 * @in_flight: (out): whether the copy still reads @in when this returns
 *
 * gst_accel_transfer_upload_planes() into @out's planes.
 *
 * Returns: a cudaError_t.
 */
int
gst_accel_transfer_upload (
    GstVideoFrame *in, GstVideoFrame *out, gpointer stream, gboolean *in_flight)
{
  guint8 *dst[GST_VIDEO_MAX_PLANES];
  gsize pitch[GST_VIDEO_MAX_PLANES];

  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (out); p++)
    {
      dst[p] = GST_VIDEO_FRAME_PLANE_DATA (out, p);
      pitch[p] = GST_VIDEO_FRAME_PLANE_STRIDE (out, p);
    }
  return gst_accel_transfer_upload_planes (in, dst, pitch, stream, in_flight);
}

/**
 * gst_accel_transfer_download:
 * @in: a frame in CUDA memory, mapped with GST_MAP_CUDA
 * @out: the same format in system memory
 * @stream: the element's stream
 *
 * Enqueues the copy of each plane of @in into @out's on @stream. Into
 * page-locked memory (gst_accel_pinned_pool_offer()) the copy is DMA alone;
 * into pageable memory the CUDA driver copies through its own staging and
 * returns when the copy is done. Either way @out is complete once @stream
 * has passed the copy.
 *
 * Returns: a cudaError_t.
 */
int
gst_accel_transfer_download (
    GstVideoFrame *in, GstVideoFrame *out, gpointer stream)
{
  guint8 *src[GST_VIDEO_MAX_PLANES];
  gsize pitch[GST_VIDEO_MAX_PLANES];

  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (in); p++)
    {
      src[p] = GST_VIDEO_FRAME_PLANE_DATA (in, p);
      pitch[p] = GST_VIDEO_FRAME_PLANE_STRIDE (in, p);
    }
  return gst_accel_frame_copy_planes (out, src, pitch, TRUE, stream);
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
