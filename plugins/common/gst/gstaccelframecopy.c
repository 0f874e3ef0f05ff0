/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the 2D copies between a mapped video frame's planes and planes
 * elsewhere, on a CUDA stream */
#include "gstaccelframecopy.h"

#include <cuda_runtime_api.h>

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

/**
 * gst_accel_frame_copy_planes:
 * @frame: a mapped frame, its planes in host or device memory
 * @other: (array): a plane of the same size for each of @frame's, in host
 *   or device memory
 * @other_pitch: (array): the pitch of each of them
 * @into_frame: %TRUE to copy @other into @frame, %FALSE from it
 * @stream: a cudaStream_t
 *
 * Enqueues one 2D copy a plane on @stream, the pointers saying where each
 * side lives. From or into pageable host memory the CUDA driver stages the
 * plane before the call returns; from or into device or page-locked memory
 * the copy runs later, so the caller keeps both sides until @stream has
 * passed it.
 *
 * Returns: a cudaError_t.
 */
int
gst_accel_frame_copy_planes (GstVideoFrame *frame, guint8 *const *other,
    const gsize *other_pitch, gboolean into_frame, gpointer stream)
{
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (frame); p++)
    {
      guint8 *plane = GST_VIDEO_FRAME_PLANE_DATA (frame, p);
      gsize stride = (gsize)GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);
      gsize row = plane_row_bytes (frame, p), rows = plane_rows (frame, p);
      cudaError_t err
          = into_frame
                ? cudaMemcpy2DAsync (plane, stride, other[p], other_pitch[p],
                    row, rows, cudaMemcpyDefault, (cudaStream_t)stream)
                : cudaMemcpy2DAsync (other[p], other_pitch[p], plane, stride,
                    row, rows, cudaMemcpyDefault, (cudaStream_t)stream);

      if (err != cudaSuccess)
        return err;
    }
  return cudaSuccess;
}
