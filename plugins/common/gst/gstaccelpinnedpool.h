/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: video frames in page-locked system memory, which the GPU copies to
 * and from by DMA alone */
#pragma once

#include <gst/cuda/gstcudacontext.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define GST_TYPE_ACCEL_PINNED_POOL (gst_accel_pinned_pool_get_type ())
G_DECLARE_FINAL_TYPE (GstAccelPinnedPool, gst_accel_pinned_pool, GST,
    ACCEL_PINNED_POOL, GstBufferPool)

GstBufferPool *gst_accel_pinned_pool_new (GstCudaContext *context);
gboolean gst_accel_pinned_pool_offer (
    GstCudaContext *context, GstQuery *query, guint min_buffers);
gboolean gst_accel_is_page_locked (gconstpointer data);

G_END_DECLS
