/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the download element, CUDA memory to system memory: by DMA alone
 * into page-locked memory (its own pool when downstream offers none),
 * through the CUDA driver's staging into pageable memory; passes system
 * memory through, and CUDA memory when downstream takes it */
#include "gstacceldownload.h"

#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudamemory.h>

#include "gstaccelcuda.h"
#include "gstaccelsyncmeta.h"
#include "gstacceltransfer.h"

GST_DEBUG_CATEGORY_STATIC (gst_accel_download_debug);
#define GST_CAT_DEFAULT gst_accel_download_debug

static GstStaticPadTemplate sink_template
    = GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
        GST_STATIC_CAPS (
            GST_ACCEL_TRANSFER_CUDA_CAPS ";" GST_ACCEL_TRANSFER_SYSTEM_CAPS));
static GstStaticPadTemplate src_template
    = GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
        GST_STATIC_CAPS (
            GST_ACCEL_TRANSFER_SYSTEM_CAPS ";" GST_ACCEL_TRANSFER_CUDA_CAPS));

struct _GstAccelDownload
{
  GstAccelFilter parent;
};

G_DEFINE_TYPE_WITH_CODE (GstAccelDownload, gst_accel_download,
    GST_TYPE_ACCEL_FILTER,
    GST_DEBUG_CATEGORY_INIT (
        gst_accel_download_debug, "acceldownload", 0, "accel download"));
GST_ELEMENT_REGISTER_DEFINE (
    acceldownload, "acceldownload", GST_RANK_NONE, GST_TYPE_ACCEL_DOWNLOAD);

static GstCaps *
gst_accel_download_transform_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *filter)
{
  return gst_accel_transfer_caps (caps, direction, FALSE, filter);
}

static GstFlowReturn
gst_accel_download_transform (
    GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf)
{
  GstAccelDownload *self = GST_ACCEL_DOWNLOAD (trans);
  GstAccelFilter *base = GST_ACCEL_FILTER (trans);
  gpointer stream = gst_accel_filter_get_stream (base);
  GstAccelFrameSync sync;
  GstVideoFrame in, out;
  int err, end;

  /* a gap holds no frame to copy: it goes on as a gap event (mapped, it
   * failed the stream) */
  if (gst_accel_filter_pass_gap (base, inbuf))
    return GST_BASE_TRANSFORM_FLOW_DROPPED;
  if (!gst_accel_filter_map_frames (
          base, inbuf, GST_MAP_CUDA, outbuf, 0, &in, &out))
    return GST_FLOW_ERROR;
  gst_accel_cuda_scope_enter (gst_accel_filter_get_context (base));
  /* no output in CUDA memory: the copy is waited for */
  err = gst_accel_frame_sync_begin (
      &sync, &inbuf, 1, NULL, FALSE, gst_accel_filter_get_sync_stream (base));
  if (!err)
    err = gst_accel_transfer_download (&in, &out, stream);
  GST_LOG_OBJECT (self,
      "frame %" GST_TIME_FORMAT ": copied out, the host waits for the copy",
      GST_TIME_ARGS (GST_BUFFER_PTS (inbuf)));
  end = gst_accel_frame_sync_end (
      &sync, gst_accel_filter_get_sync_stream (base));
  gst_accel_cuda_scope_leave ();
  gst_video_frame_unmap (&out);
  gst_video_frame_unmap (&in);
  if (err || end)
    goto failed;
  return GST_FLOW_OK;

  /* ERRORS */
failed:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
        ("download from the GPU failed: %s",
            cudaGetErrorString ((cudaError_t)(err ? err : end))));
    return GST_FLOW_ERROR;
  }
}

static void
gst_accel_download_class_init (GstAccelDownloadClass *klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  /* the same names replace the filter base class's templates */
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "accel download",
      "Filter/Video/Hardware",
      "Copies video frames from CUDA memory into system memory, by DMA "
      "alone into page-locked memory, waiting for the GPU work upstream left "
      "in flight",
      ACCEL_ELEMENT_AUTHOR);

  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->transform_caps = gst_accel_download_transform_caps;
  trans_class->transform = gst_accel_download_transform;
  trans_class->prepare_output_buffer = gst_accel_filter_prepare_transfer_buffer;
  GST_ACCEL_FILTER_CLASS (klass)->debug_category = gst_accel_download_debug;
}

static void
gst_accel_download_init (GstAccelDownload *self)
{
}
