/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: a graph of stages: build, link, validate, run, stop */
#pragma once

#include <glib-object.h>
#include <accel/accelstage.h>
#include <accel/accelstream.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_GRAPH (accel_graph_get_type ())
G_DECLARE_FINAL_TYPE (AccelGraph, accel_graph, ACCEL, GRAPH, GObject)

AccelGraph *accel_graph_new (const char *name);
const char *accel_graph_get_name (AccelGraph *graph);
void accel_graph_set_device (AccelGraph *graph, AccelDevice *device);
AccelDevice *accel_graph_get_device (AccelGraph *graph);
void accel_graph_set_stream_policy (
    AccelGraph *graph, AccelStreamPolicy policy, guint n_streams);

gboolean accel_graph_add (AccelGraph *graph, AccelStage *stage, GError **error);
AccelStage *accel_graph_get_stage (AccelGraph *graph, const char *name);
GPtrArray *accel_graph_get_stages (AccelGraph *graph);
gboolean accel_graph_link (
    AccelGraph *graph, const char *src, const char *dst, GError **error);
gboolean accel_graph_link_ports (AccelGraph *graph, AccelStage *src,
    const char *src_port, AccelStage *dst, const char *dst_port,
    GError **error);

gboolean accel_graph_prepare (AccelGraph *graph, GError **error);
gboolean accel_graph_start (AccelGraph *graph, GError **error);
gboolean accel_graph_is_hung (AccelGraph *graph);
gboolean accel_graph_wait (
    AccelGraph *graph, gint64 timeout_us, GError **error);
gboolean accel_graph_check_complete (AccelGraph *graph, GError **error);
void accel_graph_stop (AccelGraph *graph);
void accel_graph_interrupt_start (AccelGraph *graph);
void accel_graph_send_eos (AccelGraph *graph);
void accel_graph_set_state_dir (
    AccelGraph *graph, const char *dir, gint64 commit_interval_us);
void accel_graph_set_discard_state (AccelGraph *graph, gboolean discard);
gboolean accel_graph_check_state_dir (AccelGraph *graph, GError **error);
void accel_graph_set_segments (AccelGraph *graph, gboolean segments);
void accel_graph_set_capture_mode (AccelGraph *graph, AccelCaptureMode mode);
AccelCaptureMode accel_graph_get_capture_mode (AccelGraph *graph);
void accel_graph_set_frame_limit (AccelGraph *graph, gint64 n_frames);
void accel_graph_set_stepped (AccelGraph *graph, gboolean stepped);
gboolean accel_graph_step (
    AccelGraph *graph, gint64 timeout_us, GError **error);
gboolean accel_graph_run (AccelGraph *graph, GError **error);

gchar *accel_graph_to_dot (AccelGraph *graph);
GPtrArray *accel_graph_get_notes (AccelGraph *graph);
void accel_graph_reserve_descriptors (gint n);

G_END_DECLS
