/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the upload element, system memory to CUDA memory: by DMA alone
 * from page-locked memory (the pool it offers upstream), through the CUDA
 * driver's staging from pageable memory; passes CUDA memory through, and
 * system memory where no GPU is usable */
#include "gstaccelupload.h"

#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudamemory.h>

#include "gstaccelcuda.h"
#include "gstaccelsyncmeta.h"
#include "gstacceltransfer.h"

GST_DEBUG_CATEGORY_STATIC (gst_accel_upload_debug);
#define GST_CAT_DEFAULT gst_accel_upload_debug

static GstStaticPadTemplate sink_template
    = GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
        GST_STATIC_CAPS (
            GST_ACCEL_TRANSFER_SYSTEM_CAPS ";" GST_ACCEL_TRANSFER_CUDA_CAPS));
static GstStaticPadTemplate src_template
    = GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
        GST_STATIC_CAPS (
            GST_ACCEL_TRANSFER_CUDA_CAPS ";" GST_ACCEL_TRANSFER_SYSTEM_CAPS));

struct _GstAccelUpload
{
  GstAccelFilter parent;
};

G_DEFINE_TYPE_WITH_CODE (GstAccelUpload, gst_accel_upload,
    GST_TYPE_ACCEL_FILTER,
    GST_DEBUG_CATEGORY_INIT (
        gst_accel_upload_debug, "accelupload", 0, "accel upload"));
GST_ELEMENT_REGISTER_DEFINE (
    accelupload, "accelupload", GST_RANK_NONE, GST_TYPE_ACCEL_UPLOAD);

static GstCaps *
gst_accel_upload_transform_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *filter)
{
  return gst_accel_transfer_caps (caps, direction, TRUE, filter);
}

static GstFlowReturn
gst_accel_upload_transform (
    GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf)
{
  GstAccelUpload *self = GST_ACCEL_UPLOAD (trans);
  GstAccelFilter *base = GST_ACCEL_FILTER (trans);
  gpointer stream = gst_accel_filter_get_stream (base);
  gboolean in_flight = FALSE;
  GstAccelFrameSync sync;
  GstVideoFrame in, out;
  int err, end;

  /* a gap holds no frame to copy: it goes on as a gap event (mapped, it
   * failed the stream) */
  if (gst_accel_filter_pass_gap (base, inbuf))
    return GST_BASE_TRANSFORM_FLOW_DROPPED;
  if (!gst_accel_filter_map_frames (
          base, inbuf, 0, outbuf, GST_MAP_CUDA, &in, &out))
    return GST_FLOW_ERROR;
  gst_accel_cuda_scope_enter (gst_accel_filter_get_context (base));
  err = gst_accel_frame_sync_begin (&sync, NULL, 0, outbuf,
      gst_accel_filter_get_downstream_waits (base),
      gst_accel_filter_get_sync_stream (base));
  GST_LOG_OBJECT (self, "frame %" GST_TIME_FORMAT ": %s",
      GST_TIME_ARGS (GST_BUFFER_PTS (inbuf)),
      sync.host_wait ? "the host waits for the copy before the push"
                     : "pushed with the copy in flight, downstream waits on "
                       "the sync meta");
  if (!err)
    err = gst_accel_transfer_upload (&in, &out, stream, &in_flight);
  /* from page-locked memory the DMA reads the input after the push */
  if (!err && in_flight && !sync.host_wait)
    err = gst_accel_filter_hold_input (base, inbuf);
  GST_LOG_OBJECT (self, "frame %" GST_TIME_FORMAT " copied from %s memory",
      GST_TIME_ARGS (GST_BUFFER_PTS (inbuf)),
      in_flight ? "page-locked (DMA alone, the input held until the next "
                  "frame)"
                : "pageable (staged by the driver)");
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
        ("upload to the GPU failed: %s",
            cudaGetErrorString ((cudaError_t)(err ? err : end))));
    return GST_FLOW_ERROR;
  }
}

static void
gst_accel_upload_class_init (GstAccelUploadClass *klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  /* the same names replace the filter base class's templates */
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "accel upload",
      "Filter/Video/Hardware",
      "Copies video frames from system memory into CUDA memory, by DMA "
      "alone from the page-locked pool it offers upstream, in the CUDA "
      "context the pipeline shares",
      ACCEL_ELEMENT_AUTHOR);

  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->transform_caps = gst_accel_upload_transform_caps;
  trans_class->transform = gst_accel_upload_transform;
  trans_class->prepare_output_buffer = gst_accel_filter_prepare_transfer_buffer;
  GST_ACCEL_FILTER_CLASS (klass)->debug_category = gst_accel_upload_debug;
}

static void
gst_accel_upload_init (GstAccelUpload *self)
{
}
