/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the copies between system memory and CUDA memory that accelupload
 * and acceldownload (and a filter given system memory on a GPU) make */
#pragma once

#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/* GStreamer 1.22's CUDA allocator has no GRAY8 (it aborts on one): GRAY8
 * frames stay in system memory */
#define GST_ACCEL_TRANSFER_FORMATS "{ RGBA, BGRA, GRAY8, NV12, I420 }"
#define GST_ACCEL_TRANSFER_CUDA_FORMATS "{ RGBA, BGRA, NV12, I420 }"
#define GST_ACCEL_TRANSFER_SYSTEM_ONLY_CAPS "video/x-raw, format = GRAY8"

/* the pads' memories; each pad lists its own memory first, as caps are
 * picked in template order */
#define GST_ACCEL_TRANSFER_CUDA_CAPS                                           \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES (                                          \
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, GST_ACCEL_TRANSFER_CUDA_FORMATS)
#define GST_ACCEL_TRANSFER_SYSTEM_CAPS                                         \
  GST_VIDEO_CAPS_MAKE (GST_ACCEL_TRANSFER_FORMATS)

int gst_accel_transfer_upload_planes (GstVideoFrame *in, guint8 *const *dst,
    const gsize *dst_pitch, gpointer stream, gboolean *in_flight);
int gst_accel_transfer_upload (GstVideoFrame *in, GstVideoFrame *out,
    gpointer stream, gboolean *in_flight);
int gst_accel_transfer_download (
    GstVideoFrame *in, GstVideoFrame *out, gpointer stream);

GstCaps *gst_accel_caps_set_memory (GstCaps *caps, gboolean cuda);
GstCaps *gst_accel_transfer_caps (
    GstCaps *caps, GstPadDirection direction, gboolean upload, GstCaps *filter);

G_END_DECLS
