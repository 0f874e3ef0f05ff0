/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: what io.gst-source and io.gst-sink share (not
 * installed) */
#pragma once

#include <accel/accel.h>
#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/* how long a failed state change waits for the failing element's error */
#define ACCEL_GST_ERROR_WAIT_US (500 * G_TIME_SPAN_MILLISECOND)

/* the system memory video formats the bridge maps to images */
#define ACCEL_GST_VIDEO_CAPS                                                   \
  "video/x-raw, format = (string) { RGBA, BGRA, GRAY8, NV12, I420 }"

/**
 * AccelGstWatch:
 * @lock: guards the rest
 * @cond: signalled on every change, and when an appsrc wants data
 * @error: the first error a GStreamer element posted, naming it
 * @eos: the pipeline posted end of stream
 * @context: (nullable): given to every element that asks for its type
 *   (need-context)
 *
 * What a GStreamer pipeline's bus says, as it is said: a synchronous
 * handler on the posting thread records it, so the stage reads it from
 * its own thread without a main loop.
 */
typedef struct
{
  GMutex lock;
  GCond cond;
  GError *error;
  gboolean eos;
  GstContext *context;
} AccelGstWatch;

void accel_gst_watch_init (AccelGstWatch *watch);
void accel_gst_watch_clear (AccelGstWatch *watch);
void accel_gst_watch_reset (AccelGstWatch *watch);
gboolean accel_gst_watch_get_error (AccelGstWatch *watch, GError **error);
gboolean accel_gst_watch_wait_error (
    AccelGstWatch *watch, gint64 timeout_us, GError **error);
gboolean accel_gst_watch_wait_eos (
    AccelGstWatch *watch, gint64 timeout_us, GError **error);

void accel_gst_description_files (
    const char *description, GStrv *reads, GStrv *writes);
gchar *accel_gst_description_first_written (const char *description);
gboolean accel_gst_pipeline_check_elements (AccelStage *stage,
    GstElement *pipeline, GstIteratorFoldFunction check, GError **error);
gboolean accel_gst_check_location_pattern (
    const GValue *item, GValue *ret, gpointer user_data);
GstElement *accel_gst_pipeline_new (AccelStage *stage, const char *description,
    const char *full, AccelGstWatch *watch, GError **error);
void accel_gst_pipeline_free (GstElement *pipeline);
GstStateChangeReturn accel_gst_pipeline_set_state_within (AccelStage *stage,
    GstElement *pipeline, GstState state, gint64 timeout_us, GError **error);
gboolean accel_gst_pipeline_is_abandoned (GstElement *pipeline);
gchar *accel_gst_pipeline_get_unprerolled (GstElement *pipeline);
void accel_gst_set_start_timeout_error (
    GError **error, gint64 timeout_ms, const char *option, const char *example);
void accel_gst_pipeline_share_context (
    GstElement *pipeline, AccelGstWatch *watch, GstContext *context);

gboolean accel_gst_caps_to_type (AccelStage *stage, GstCaps *caps,
    AccelType *type, GstVideoInfo *info, GError **error);
GstCaps *accel_gst_caps_from_type (
    const AccelType *type, gint fps_n, gint fps_d);

guint accel_gst_packed_planes (
    AccelFormat format, gint width, gint height, gsize row[3], gint rows[3]);
void accel_gst_frame_to_packed (
    const GstVideoFrame *frame, AccelFormat format, guint8 *dst);
void accel_gst_packed_to_frame (
    const guint8 *src, AccelFormat format, GstVideoFrame *frame);
gboolean accel_gst_copy_planes (AccelStream *stream, GstVideoFrame *frame,
    AccelFormat format, guint8 *packed, gboolean to_frame, GError **error);

G_END_DECLS
