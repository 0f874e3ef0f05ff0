/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the graph's parts shared by accelgraph.c (building, running) and
 * accelgraphprepare.c (validation, wiring, type negotiation, DOT); not
 * installed */
#pragma once

#include "accel-private.h"

G_BEGIN_DECLS

typedef struct
{
  AccelStage *src;
  guint src_port;
  AccelStage *dst;
  guint dst_port;
} GraphLink;

typedef enum
{
  GRAPH_NEW,
  GRAPH_PREPARED,
  GRAPH_RUNNING,
  GRAPH_STOPPED,
} GraphState;

struct _AccelGraph
{
  GObject parent;

  gchar *name;
  AccelDevice *device;
  AccelStreamPolicy stream_policy;
  guint n_streams;
  GPtrArray *stages;     /* AccelStage*, owned */
  GArray *links;         /* GraphLink, as the user made them */
  GArray *wiring;        /* GraphLink, with inserted copies */
  GPtrArray *order;      /* AccelStage*, topological */
  GPtrArray *notes;      /* gchar*, what prepare() decided, then the start */
  guint n_prepare_notes; /* the first ones, prepare()'s */
  GraphState state;
  gint64 frame_limit;
  gchar *state_dir;
  guint64 state_id; /* its identity, in its fingerprint: its checkpoints' */
  /* it held state before it had one: checkpoints without one are its own */
  gboolean state_id_gained;
  gint64 commit_interval_us;
  /* the state directory's state is dropped when the graph starts */
  gboolean discard_state;
  gboolean segments; /* non-blocking GPU chains share a thread */
  AccelCaptureMode capture_mode;

  GPtrArray *workers; /* AccelWorker*, while running; changed under lock */
  AccelStageWatchdog *watchdog; /* while running */
  gboolean hung; /* the watchdog found a stage hung (under lock) */
  /* held through a stop, so that a second stop (accel_graph_run ()'s own,
   * after another thread's) waits for the first and finds it done */
  GMutex stop_lock;
  gboolean starting;  /* accel_graph_start () runs (under stop_lock) */
  gint start_stopped; /* atomic: a stop came while it ran */

  GMutex lock;
  GCond cond;
  guint n_sinks;
  guint n_sinks_done;
  GError *error;
  /* after the first error but a hang, a wait lets the frames in flight
   * reach the sinks until then (monotonic µs; 0: no drain) */
  gint64 drain_until;
  gboolean stopping;
  /* disposed on a stage's thread: a thread of its own stops it */
  gboolean stop_elsewhere;
  gboolean stepped;      /* sources produce a frame per step */
  GPtrArray *step_sinks; /* stepped: each sink's frames asked for (under
                            lock), from the start on */
};

/* accelgraphprepare.c */
gchar *accel_graph_source_input (AccelStage *stage);
gboolean accel_graph_check_state_files (AccelGraph *graph, const char *dir,
    gboolean (*is_state) (const char *name), GError **error);

/* accelgraphstep.c */
void accel_graph_observe_steps (
    AccelGraph *graph, AccelStageObserver *observer);
void accel_graph_step_sink_ended (AccelGraph *graph, AccelStage *sink);

/* accelsegment.c */
gboolean accel_graph_check_stage_name (AccelStage *stage, GError **error);
gboolean accel_graph_on_stage_thread (AccelGraph *graph);
gboolean accel_graph_refuse_stage_thread (
    AccelGraph *graph, const char *call, GError **error);
gboolean accel_graph_refuse_call (
    AccelGraph *graph, const char *needs, GError **error);
void accel_graph_append_app_waits (AccelGraph *graph, GError *error);
gboolean accel_graph_check_capture (AccelStage *stage, GError **error);
const char *accel_graph_capture_reason (AccelGraph *graph, AccelStage *stage);

const char *accel_graph_port_name (
    AccelStage *stage, AccelPortDirection dir, guint port);

/* accelstatedir.c: opens the state directory before the stages start */
gboolean accel_state_dir_open (AccelGraph *graph, GError **error);

/* accelthreadcheck.c */
gboolean accel_graph_check_threads (AccelGraph *graph, GError **error);

/* accelfdlimit.c */
gboolean accel_graph_check_descriptors (AccelGraph *graph, GError **error);

/* accelfingerprint.c */
gboolean accel_graph_start_was_stopped (AccelGraph *graph, GError **error);
gchar *accel_graph_fingerprint (
    AccelGraph *graph, const char *was, gboolean gained);
guint64 accel_fingerprint_get_identity (const char *fingerprint);
guint accel_fingerprint_get_world_size (const char *fingerprint);
gboolean accel_fingerprint_identity_is_gained (const char *fingerprint);
gboolean accel_fingerprint_compare (const char *was, const char *now,
    const char *dir, const gint *stop, GError **error);

G_END_DECLS
