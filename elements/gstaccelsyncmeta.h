/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: GstAccelSyncMeta, the CUDA events that order the GPU work of two
 * accel elements on a frame without blocking the host */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_ACCEL_SYNC_META_API_TYPE (gst_accel_sync_meta_api_get_type ())
#define GST_ACCEL_SYNC_META_INFO (gst_accel_sync_meta_get_info ())

typedef struct _GstAccelSyncMeta GstAccelSyncMeta;

/**
 * GstAccelSyncMeta:
 * @meta: the parent
 *
 * Rides on a buffer of CUDA memory that an accel element wrote on its own
 * stream and pushed without waiting for the GPU. It holds the event
 * recorded after that write, which a reader waits for on its stream before
 * it reads, and the events its readers recorded after their reads, which
 * the next writer of the (pooled) buffer waits for before it writes. The
 * meta stays on the buffer through its pool, so its events are made once.
 *
 * An element adds it only when the allocation query told it that
 * downstream understands it; otherwise the frame is complete on the host
 * when it is pushed, as GStreamer's CUDA elements expect.
 */
struct _GstAccelSyncMeta
{
  GstMeta meta;

  /*< private >*/
  GMutex lock;
  gpointer written;  /* cudaEvent_t */
  GPtrArray *reads;  /* cudaEvent_t recorded by readers since the write */
  GPtrArray *spares; /* cudaEvent_t to record the next reads with */
};

GType gst_accel_sync_meta_api_get_type (void);
const GstMetaInfo *gst_accel_sync_meta_get_info (void);

#define gst_buffer_get_accel_sync_meta(b)                                      \
  ((GstAccelSyncMeta *)gst_buffer_get_meta ((b), GST_ACCEL_SYNC_META_API_TYPE))
GstAccelSyncMeta *gst_buffer_ensure_accel_sync_meta (GstBuffer *buffer);

/* each returns a cudaError_t; @stream is a cudaStream_t */
int gst_accel_sync_meta_begin_write (GstAccelSyncMeta *meta, gpointer stream);
int gst_accel_sync_meta_end_write (GstAccelSyncMeta *meta, gpointer stream);
int gst_accel_sync_meta_wait_written (GstAccelSyncMeta *meta, gpointer stream);
int gst_accel_sync_meta_end_read (GstAccelSyncMeta *meta, gpointer stream);

/**
 * GstAccelFrameSync:
 *
 * What one element's pass over a frame waits for and records:
 * gst_accel_frame_sync_begin() before its GPU work is enqueued,
 * gst_accel_frame_sync_end() after.
 */
typedef struct
{
  GstAccelSyncMeta *in;  /* the input's: written by an accel element */
  GstAccelSyncMeta *out; /* the output's */
  gboolean host_wait;    /* the work must be done when end() returns */
} GstAccelFrameSync;

int gst_accel_frame_sync_begin (GstAccelFrameSync *sync, GstBuffer *in,
    GstBuffer *out, gboolean downstream_waits, gpointer stream);
int gst_accel_frame_sync_end (GstAccelFrameSync *sync, gpointer stream);

GParamSpec *gst_accel_sync_meta_param_spec_new (gboolean default_value);

G_END_DECLS
