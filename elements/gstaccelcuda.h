/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the CUDA context the elements share with each other and with
 * GStreamer's own CUDA elements (a GstCudaContext, "gst.cuda.context") */
#pragma once

#include "gstaccelcudacontext.h"

G_BEGIN_DECLS

gboolean gst_accel_cuda_usable (void);
gboolean gst_accel_cuda_ensure_context (
    GstElement *element, GstCudaContext **context);
gboolean gst_accel_cuda_handle_context_query (
    GstElement *element, GstCudaContext **context, GstQuery *query);
gboolean gst_accel_cuda_propose_allocation (
    GstCudaContext *context, GstQuery *query, gboolean sync_meta);
gboolean gst_accel_cuda_decide_allocation (
    GstCudaContext *context, GstQuery *query);

/**
 * GstAccelCudaScope:
 *
 * gst_accel_cuda_scope_enter() makes @context current on this thread for
 * runtime API calls; gst_accel_cuda_scope_leave() restores the previous one.
 */
gboolean gst_accel_cuda_scope_enter (GstCudaContext *context);
void gst_accel_cuda_scope_leave (void);

G_END_DECLS
