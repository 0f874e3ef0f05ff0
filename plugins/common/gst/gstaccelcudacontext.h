/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: one CUDA context for the engine and GStreamer: the CUDA runtime's
 * primary context wrapped as a GstCudaContext, shared by the GStreamer
 * plugin accel and the io plugin's GStreamer bridge (not installed) */
#pragma once

#include <gst/cuda/gstcudacontext.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

gboolean gst_accel_cuda_load (void);
GstCudaContext *gst_accel_cuda_context_new_primary (gint device);
gboolean gst_accel_cuda_caps_are_cuda (GstCaps *caps);
GstBufferPool *gst_accel_cuda_pool_new (
    GstCudaContext *context, GstCaps *caps, guint size, guint min);

G_END_DECLS
