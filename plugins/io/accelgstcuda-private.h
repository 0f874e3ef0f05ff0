/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: the GStreamer bridge's CUDA memory (not installed) */
#pragma once

#include "accelgst-private.h"

G_BEGIN_DECLS

typedef struct _GstCudaContext GstCudaContext;

/* the formats of the bridge that GStreamer 1.22's CUDA memory holds: it
 * allocates no GRAY8 */
#define ACCEL_GST_CUDA_VIDEO_CAPS                                              \
  "video/x-raw(memory:CUDAMemory), format = (string) { RGBA, BGRA, NV12, "     \
  "I420 }"

GstCudaContext *accel_gst_cuda_context_new (AccelStage *stage);
void accel_gst_cuda_share (
    GstElement *pipeline, AccelGstWatch *watch, GstCudaContext *context);
gboolean accel_gst_cuda_caps_are_cuda (GstCaps *caps);
GstCaps *accel_gst_cuda_caps_from_system (GstCaps *caps);
gboolean accel_gst_cuda_downstream_takes (GstElement *element, GstCaps *caps);
GstBufferPool *accel_gst_cuda_pool_new (GstCudaContext *context, GstCaps *caps,
    gboolean page_locked, guint min_buffers, GError **error);
gboolean accel_gst_cuda_buffer_is_ours (
    GstBuffer *buffer, GstCudaContext *context);
void accel_gst_cuda_offer_page_locked (
    GstElement *sink, GstCudaContext *context, guint min_buffers);
gboolean accel_gst_cuda_buffer_is_page_locked (
    GstBuffer *buffer, GstCudaContext *context);
gboolean accel_gst_cuda_copy_to_buffer (AccelStream *stream, gconstpointer src,
    AccelFormat format, const GstVideoInfo *info, GstBuffer *buffer,
    GError **error);
gboolean accel_gst_cuda_copy_from_buffer (AccelStream *stream,
    GstBuffer *buffer, const GstVideoInfo *info, AccelFormat format,
    gpointer dst, GError **error);

G_END_DECLS
