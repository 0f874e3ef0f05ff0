/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: GstAccelSyncMeta, the engine's fence (AccelFence) on a GstBuffer of
 * CUDA memory: it orders the GPU work of accel elements on a frame without
 * blocking the host */
#pragma once

#include <gst/gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <accel/accel.h>

G_BEGIN_DECLS

#define GST_ACCEL_SYNC_META_API_TYPE (gst_accel_sync_meta_api_get_type ())
#define GST_ACCEL_SYNC_META_INFO (gst_accel_sync_meta_get_info ())

typedef struct _GstAccelSyncMeta GstAccelSyncMeta;

/**
 * GstAccelSyncMeta:
 * @meta: the parent
 *
 * Rides on a buffer of CUDA memory that an accel element wrote on its own
 * stream and pushed without waiting for the GPU. It holds the engine's
 * fence for that memory (libaccel's AccelFence: the writer's event, the
 * readers' events), so elements and engine stages follow one contract,
 * written once. The meta stays on the buffer through its pool, so its
 * events are made once.
 *
 * An element adds it only when the allocation query told it that
 * downstream understands it; otherwise the frame is complete on the host
 * when it is pushed, as GStreamer's CUDA elements expect.
 */
struct _GstAccelSyncMeta
{
  GstMeta meta;

  /*< private >*/
  AccelFence *fence; /* made at the first use, on the user's device */
};

GType gst_accel_sync_meta_api_get_type (void);
const GstMetaInfo *gst_accel_sync_meta_get_info (void);

#define gst_buffer_get_accel_sync_meta(b)                                      \
  ((GstAccelSyncMeta *)gst_buffer_get_meta ((b), GST_ACCEL_SYNC_META_API_TYPE))
GstAccelSyncMeta *gst_buffer_ensure_accel_sync_meta (GstBuffer *buffer);

/* at most this many inputs per pass */
#define GST_ACCEL_FRAME_SYNC_MAX_INPUTS 8

/**
 * GstAccelFrameSync:
 *
 * What one element's pass over a frame waits for and records:
 * gst_accel_frame_sync_begin() before its GPU work is enqueued,
 * gst_accel_frame_sync_end() after.
 */
typedef struct
{
  guint n_in;
  GstAccelSyncMeta *in[GST_ACCEL_FRAME_SYNC_MAX_INPUTS]; /* inputs' metas */
  GstAccelSyncMeta *out;                                 /* the output's */
  gboolean out_wait;   /* the output must be complete on the host */
  gboolean foreign_in; /* an input came without the meta */
  gboolean host_wait;  /* the work must be done when end() returns */
} GstAccelFrameSync;

/* each returns a cudaError_t */
int gst_accel_frame_sync_begin (GstAccelFrameSync *sync, GstBuffer **in,
    guint n_in, GstBuffer *out, gboolean downstream_waits, AccelStream *stream);
int gst_accel_frame_sync_end (GstAccelFrameSync *sync, AccelStream *stream);

AccelStream *gst_accel_sync_stream_new (GstCudaContext *context);

GParamSpec *gst_accel_sync_meta_param_spec_new (gboolean default_value);

G_END_DECLS
