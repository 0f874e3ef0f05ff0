/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the parts of a stage, shared by the files that make it up:
 * accelstageclass.c (class metadata and ports), accelstage.c (properties,
 * accessors, negotiation), accelstageloop.c (the actor),
 * accelstagecontrol.c (what other threads ask of it), accelsource.c and
 * accelsink.c (what only sources and sinks do), accelstagesupervisor.c
 * (what a fault leads to), accelstagestats.c; not installed */
#pragma once

#include "accel-private.h"

G_BEGIN_DECLS

typedef struct
{
  gchar *kind_name;
  gchar *description;
  GPtrArray *ports[2];        /* AccelPortTemplate*, by direction */
  gboolean live;              /* a source that cannot produce a frame again */
  gboolean blocking;          /* process() may wait on the host */
  gboolean start_waits;       /* start() waits for other processes */
  gboolean needs_application; /* fed or drained by the running program */
  gboolean remote_source;     /* a source of another graph's frames */
  AccelMeetFunc meet;         /* whom it meets on other ranks, or NULL */
} AccelStageClassInfo;

typedef struct
{
  AccelStage *target; /* owned by the graph */
  guint port;
  gboolean ended; /* the target's stream is over: nothing more goes there */
} AccelLink;

#define ACCEL_LATENCY_RING 1024
/* sources: when each of their last frames began, by sequence modulo this,
 * for the sinks' source-to-sink latency */
#define ACCEL_ORIGIN_RING 256
/* a sink's first frames (warm-up: allocations, first launches) are left out
 * of its source-to-sink latency */
#define ACCEL_E2E_WARMUP 8
/* events a stage cycles through, one per frame; reuse only makes a late
 * reader wait for a later frame of the same stream */
#define ACCEL_EVENT_RING 32

typedef enum
{
  ACCEL_FRAME_DONE,    /* processed and handed on */
  ACCEL_FRAME_PENDING, /* a sink waits for its GPU work */
  ACCEL_FRAME_EOS,     /* no more frames: a source's end, or none wanted */
  ACCEL_FRAME_CLOSED,  /* downstream is gone: the graph stops */
  ACCEL_FRAME_FAILED,  /* the error is set */
  ACCEL_FRAME_WAITING, /* an output's pool has no free buffer: the frame
                          waits for one (accelstagebufferwait.c) */
  ACCEL_FRAME_YIELDED, /* a source made no frame for a control message
                          (ACCEL_FLOW_SKIP): its sequence is taken again */
} AccelFrameResult;

typedef enum
{
  ACCEL_SEQUENCE_RUN,  /* run the frame */
  ACCEL_SEQUENCE_DONE, /* finished before a restart: its output exists */
  ACCEL_SEQUENCE_END,  /* a source's last frame is behind it */
} AccelSequenceResult;

/**
 * AccelStageRole:
 * @begin: start producing (sources), once every stage has started
 * @next_sequence: the sequence number of the frame about to run
 * @hand_on: after process(): push the outputs, or keep the frame for the
 *   host part (sinks)
 * @frame_done: a frame is through: record it (a source's last sequence, a
 *   sink's commit)
 * @end: after the stage's own eos(): tell downstream, or (sinks) wait for
 *   the GPU and tell the graph
 * @stop: the stage stops: drop what the role holds (a sink's pending
 *   frame, its commit log)
 *
 * What a source, a transform and a sink do differently; the actor loop
 * calls these and never asks which kind of stage it runs. Chosen from the
 * ports when the stage starts. Each runs on the stage's thread.
 */
typedef struct
{
  void (*begin) (AccelStage *self);
  AccelSequenceResult (*next_sequence) (
      AccelStage *self, AccelBuffer **inputs, guint64 *sequence);
  AccelFrameResult (*hand_on) (
      AccelStage *self, AccelFrame *frame, gint64 t0, GError **error);
  gboolean (*frame_done) (AccelStage *self, guint64 sequence, GError **error);
  void (*end) (AccelStage *self);
  void (*stop) (AccelStage *self);
} AccelStageRole;

/* per-stage supervision: how a fault is answered, and the state to restart
 * from */
typedef struct
{
  AccelSupervision on_fault;
  guint max_restarts;
  gint64 restart_window_ms;
  guint snapshot_interval;
  GQueue restart_times;      /* monotonic µs of recent restarts */
  guint restarts_idle;       /* restarts in a row with no frame between */
  guint64 done_at_restart;   /* frames the stage had made at the last */
  GBytes *snapshot;          /* the last state taken, restored on restart */
  guint64 snapshot_sequence; /* the frame it is the state after */
  gchar *checkpoint;         /* where snapshots go on disk, or NULL */
  guint64 state_id;          /* the identity of their state directory */
  gboolean state_id_gained;  /* those without one are its own */
  gboolean stateless; /* said so there (accel_checkpoint_mark_stateless) */
  gboolean checkpoint_failing; /* the last save failed, and said so */
  gchar *restore_from;         /* the checkpoint to start from, or NULL */
} AccelStageSupervisor;

/* sources */
typedef struct
{
  gint64 frame_limit; /* frames before EOS, -1 none */
  guint64 start_sequence;
  guint64 next_sequence;
  GSource *produce;
  int produced_fd;  /* live sources: where the last sequence is kept, or -1 */
  gint64 last_done; /* the last sequence handed on in this run, or -1 */
  gboolean stepped; /* a frame only when the graph steps */
  gint live;        /* -1: as its class says, else accel_stage_set_live () */
  /* after a restart to a snapshot: the frames before it are made again to
   * catch the state up, and not handed on (accel_source_catch_up ()) */
  guint64 replay_until;
  gboolean caught_up; /* a catch-up began: replay_until is its failed frame */
  /* its last frame yielded to a control message (accel_source_give_back ()) */
  gboolean yielded;
  /* the frame accel_source_make_again () last made again, plus one (0:
   * none): a frame that fails that way twice is skipped */
  guint64 made_again;
  /* stateful: the parameter changes since its snapshot (accelsourceparams.c) */
  GArray *params;
} AccelSourceState;

/* sinks */
typedef struct
{
  AccelCompletion completion;
  AccelCommitLog *commit_log; /* when the graph keeps state */
  AccelFrame pending;         /* a frame awaiting completion */
  AccelBuffer *pending_in[ACCEL_MAX_PORTS];
  gint64 pending_t0;
  gboolean have_pending;
} AccelSinkState;

/* a frame whose output found no free buffer, on a thread that runs other
 * stages too (accelstagebufferwait.c) */
typedef struct
{
  gboolean active;
  AccelBuffer *inputs[ACCEL_MAX_PORTS];
  guint64 sequence;
  gint64 t0;       /* when the frame began */
  gint64 since;    /* when the wait began, for the pool's timeout */
  guint port;      /* the output whose pool it waits on */
  GQueue deferred; /* AccelMessage: parameters, ends and steps that came
                      meanwhile; they apply after the frame */
  GSource *wake;   /* ready once the pool may hand out a buffer */
} AccelBufferWait;

typedef struct _AccelStageBatch AccelStageBatch;

/* fixed log-spaced buckets (accelstagestats.c); counts are per bucket, not
 * cumulative, the last one past every bound */
#define ACCEL_HISTOGRAM_BUCKETS 18
typedef struct
{
  guint64 counts[ACCEL_HISTOGRAM_BUCKETS + 1];
  guint64 count;
  gint64 sum_ns;
} AccelHistogram;

extern const gint64 accel_histogram_bounds_ns[ACCEL_HISTOGRAM_BUCKETS];

typedef struct
{
  /* properties */
  gchar *name;
  AccelDevice *device;
  guint mailbox_size;
  guint pool_size;
  gint64 pool_timeout_ms;
  gint64 deadline_ms;
  gint64 watchdog_ms;
  /* atomics: when the frame at work began (0: none) and its sequence, for
   * the graph's watchdog (accelstagewatchdog.c) */
  gint64 work_since;
  guint64 work_sequence;
  gboolean work_paused;   /* accel_stage_wait_begin (): its thread's only */
  gint64 wait_began;      /* the same: when the wait began */
  gint64 frame_waited_us; /* the frame's waits so far, not its deadline's */
  gchar *thread_name;     /* stages naming the same thread share it */
  AccelCaptureMode capture_mode;

  /* the class's ports and the graph's wiring */
  AccelStageClassInfo *info;
  guint n_in, n_out;
  AccelType in_types[ACCEL_MAX_PORTS];
  AccelType out_types[ACCEL_MAX_PORTS];
  gint negotiated; /* atomic: its graph is prepared, ACCEL_PARAM_FIXED held */
  GArray *links[ACCEL_MAX_PORTS];         /* AccelLink, per output port */
  AccelStage *producers[ACCEL_MAX_PORTS]; /* per input port */
  AccelStageObserver observer;
  gpointer observer_data;

  /* the actor */
  const AccelStageRole *role;
  AccelWorker *worker;
  GMainContext *context;
  AccelMailbox
      *mailbox; /* freed by join; readers elsewhere take mailbox_lock */
  GMutex mailbox_lock;
  guint64 n_dropped_joined; /* the last run's, once its mailbox is gone */
  guint max_queued_joined;  /* the same, of its queue's depth */
  GSource *mailbox_source;
  gboolean busy;    /* mid-frame: not to be re-entered */
  gboolean stopped; /* stopped on its thread */
  /* outputs for consumers on this thread that had no room, and the
   * producers whose outputs wait for room here (accelstagepark.c) */
  GQueue parked;
  gboolean eos_parked; /* the end of stream goes out after them */
  GPtrArray *parked_producers;
  AccelBufferWait buffer_wait;
  AccelStreamAllocator *streams;
  AccelStream *stream;
  AccelPool *pools[ACCEL_MAX_PORTS];
  AccelEvent *events[ACCEL_EVENT_RING];
  guint next_event;
  gboolean one_stream; /* every stage shares this stream: no events */
  AccelStage *segment; /* its segment's first stage, or NULL (the graph's) */
  AccelBuffer *adopted[ACCEL_MAX_PORTS]; /* read this frame, from outside */
  guint n_adopted;
  /* graph mode (accelstagebatch.c) */
  gboolean capture; /* this stage's frames may be batched and captured */
  guint64 capture_generation;  /* changes whenever its work may change */
  gboolean capture_warm;       /* a frame ran since the last change */
  gboolean frame_deferred;     /* the current frame's process() is batched */
  gboolean frame_worked;       /* the current frame's process() was called */
  gboolean pools_in_step;      /* its pools cycle with the sequence */
  AccelStageBatch *batch;      /* segments' first stages: the batch */
  gboolean started;            /* klass->start succeeded */
  gboolean restarting;         /* stop and start run for a restart */
  gint graph_failed;           /* atomic: the graph recorded an error */
  gint graph_ending;           /* atomic: its end of stream was asked for */
  gint graph_drains;           /* atomic: failed, it lets frames reach sinks */
  gint graph_gone;             /* atomic: its graph was finalized */
  gint start_interrupted;      /* atomic: its graph's start was stopped */
  AccelWorkerCall *start_call; /* its start(), asked for and not waited for */
  gboolean done;               /* EOS handled, or failed */
  GError *start_error;
  /* under mailbox_lock: current on the thread while start () runs */
  GCancellable *start_cancellable;

  AccelSourceState source;
  AccelSinkState sink;
  AccelStageSupervisor supervisor;

  /* statistics, read from any thread under stats_lock */
  GMutex stats_lock;
  guint64 n_processed;
  guint64 n_restarts;
  guint64 n_skipped;
  guint64 n_retried;  /* frames run again after a fault: out of memory, or
                         made again after a restart */
  guint64 n_lost;     /* live sources: frames a restart could not replay */
  guint64 n_withheld; /* frames that reach no sink below, though they did not
                         fail: see accel_stage_count_withheld () */
  gchar *first_fault; /* the first fault the supervisor took, for reports */
  /* atomics, outside stats_lock: graph mode counts every frame */
  guint64 n_replayed; /* frames whose work was a replayed CUDA graph */
  guint64 n_captured; /* frames whose work was captured */
  gint64 latency_ns[ACCEL_LATENCY_RING];
  AccelHistogram latency_hist; /* host time per frame */
  AccelHistogram e2e_hist;     /* sinks: from the source's frame start */

  /* sources: when frames began (written by the source, read by sinks) */
  gint64 origin_us[ACCEL_ORIGIN_RING];
  guint64 origin_seq[ACCEL_ORIGIN_RING];
  AccelStage *origin; /* sinks: the source upstream of input 0 */
  gint failed;        /* atomic: the stage failed for good */
} AccelStagePrivate;

/* accelstageclass.c */
AccelStageClassInfo *accel_stage_class_info_lookup (GType type);

/* accelstage.c */
AccelStagePrivate *accel_stage_get_private (AccelStage *stage);
void accel_stage_note_origin (AccelStage *stage, guint64 sequence, gint64 t0);
void accel_stage_record_frame (
    AccelStage *stage, guint64 sequence, gint64 t0, gint64 t1);
void accel_stage_count_restart (AccelStage *stage, const GError *fault);
gboolean accel_source_catch_up (AccelStage *self, guint64 failed);
gboolean accel_source_replays (AccelStage *self, guint64 sequence);
void accel_source_step (AccelStage *self);
void accel_source_give_back (AccelStage *self, guint64 sequence);
gboolean accel_source_make_again (
    AccelStage *self, guint64 sequence, const GError *fault);
gboolean accel_source_fails_again (AccelStage *self, guint64 sequence);
gboolean accel_source_catching_up (AccelSourceState *source);

/* accelsourceparams.c */
void accel_source_set_param (
    AccelStage *self, const char *name, const GValue *value);
void accel_source_forget_params (AccelStage *self, guint64 through);
guint accel_source_n_param_changes (AccelStage *self);
void accel_source_rewind_params (AccelStage *self, guint64 from);
void accel_source_replay_params (AccelStage *self, guint64 sequence);
void accel_source_clear_params (AccelSourceState *source);
void accel_source_settle_params (AccelStage *self);
void accel_stage_count_retry (AccelStage *stage, const GError *fault);
void accel_stage_count_fault (AccelStage *stage, guint64 sequence,
    gboolean restarted, const GError *fault);
void accel_stage_count_withheld (AccelStage *stage, guint64 sequence);
AccelFlow accel_stage_check_flow (
    AccelStage *self, const char *vfunc, AccelFlow flow, GError **error);
void accel_stage_count_batched (
    AccelStage *stage, gboolean replayed, gboolean captured);
void accel_stage_reset_stats (AccelStage *stage);

/* accelstagestats.c: what the graph's metrics read, MT safe */
gboolean accel_stage_get_histograms (AccelStage *stage, guint64 *frames,
    AccelHistogram *latency, AccelHistogram *e2e);
void accel_stage_get_queue_depth (AccelStage *stage, guint *now, guint *max);
const char *accel_stage_get_state_name (AccelStage *stage);
gint64 accel_stage_get_outside_wait_us (AccelStage *stage);
AccelPool *accel_stage_dup_output_pool (AccelStage *stage, guint port);

/* accelstageloop.c */
void accel_stage_interrupt_start (AccelStage *stage, gboolean interrupted);
const char *accel_stage_enter (AccelStage *stage);
void accel_stage_leave (const char *previous);
gboolean accel_stage_run_frame (AccelStage *self, AccelBuffer **inputs);
gboolean accel_stage_run_waiting_frame (
    AccelStage *self, AccelBuffer **inputs, guint64 sequence, gint64 t0);
void accel_stage_handle_control (AccelStage *self, AccelMessage *msg);
void accel_stage_forget_captures (AccelStage *self);
void accel_stage_end_branch (AccelStage *self);
void accel_stage_handle_eos (AccelStage *self);
void accel_stage_fail (AccelStage *self, GError *error);
AccelFrameResult accel_stage_push_outputs (AccelStage *self, AccelFrame *frame);
void accel_stage_send_eos_downstream (AccelStage *self);
void accel_stage_send_gap_downstream (AccelStage *self, guint64 sequence);
void accel_stage_clear_frame (AccelFrame *frame);
gboolean accel_stage_release_frame (
    AccelStage *self, AccelFrame *frame, GError **error);
gboolean accel_stage_handle_fault (
    AccelStage *self, GError *error, guint64 sequence);
AccelMailboxPush accel_stage_push_link (
    AccelStage *self, AccelLink *link, AccelBuffer *buffer);
void accel_stage_drain (AccelStage *self);

/* accelstagepark.c: outputs that wait for room on the same thread */
AccelMailboxPush accel_stage_push_local (
    AccelStage *self, AccelLink *link, AccelBuffer *buffer);
void accel_stage_resume_producers (AccelStage *self);
gboolean accel_stage_park_eos (AccelStage *self);
gboolean accel_stage_is_parked (AccelStage *self);
void accel_stage_update_blocked (AccelStage *self);
void accel_stage_park_flush (AccelStage *self);
void accel_stage_park_stop (AccelStage *self);

/* accelstagebufferwait.c: frames that wait for a free output buffer */
AccelBuffer *accel_stage_acquire_output (
    AccelStage *self, guint port, guint64 sequence, GError **error);
void accel_stage_wait_for_buffer (
    AccelStage *self, AccelBuffer **inputs, guint64 sequence, gint64 t0);
gboolean accel_stage_is_waiting_for_buffer (AccelStage *self);
gboolean accel_stage_buffer_wait_defers (AccelStage *self, AccelMessage *msg);
void accel_stage_buffer_wait_flush (AccelStage *self);
void accel_stage_buffer_wait_end (AccelStage *self);
void accel_stage_buffer_wait_stop (AccelStage *self);
AccelMessage *accel_stage_buffer_wait_pop_deferred (AccelStage *self);

/* accelstagewatchdog.c: frames that never return */
gint64 accel_stage_get_watchdog_us (AccelStage *stage);
void accel_stage_watch_work (AccelStage *self, guint64 sequence);
gint64 accel_stood_still_total (void);
gint64 accel_stood_still_since (gint64 then);
void accel_stage_unwatch_work (AccelStage *self);

/* accelstagebatch.c: graph mode */
gboolean accel_stage_batch_defer (AccelStage *self, AccelFrame *frame);
gboolean accel_stage_batch_holds (AccelStage *self, AccelStage *target);
void accel_stage_batch_push (
    AccelStage *self, AccelLink *link, AccelBuffer *buffer, guint64 sequence);
void accel_stage_batch_flush (AccelStage *self);
gboolean accel_stage_batch_is_flushing (AccelStage *self);
AccelStageBatch *accel_stage_batch_enter (AccelStage *self);
void accel_stage_batch_leave (AccelStage *self, AccelStageBatch *batch);
void accel_stage_batch_free (AccelStage *self);

/* accelsource.c, accelsink.c: the roles, and their stage's own parts */
extern const AccelStageRole accel_source_role;
extern const AccelStageRole accel_transform_role;
extern const AccelStageRole accel_sink_role;
void accel_stage_produce_again (AccelStage *self);
void accel_source_state_clear (AccelSourceState *source);
void accel_sink_state_clear (AccelSinkState *sink);

/* accelstagesupervisor.c */
void accel_stage_supervisor_init (AccelStageSupervisor *sup);
void accel_stage_supervisor_clear (AccelStageSupervisor *sup);
AccelSupervision accel_stage_supervisor_strategy (
    AccelStageSupervisor *sup, const GError *error);
void accel_stage_supervisor_reset (AccelStageSupervisor *sup);
AccelSupervision accel_stage_supervisor_decide (
    AccelStageSupervisor *sup, guint64 n_done, GError **error);
gboolean accel_stage_supervisor_restore_checkpoint (
    AccelStage *self, GError **error);
void accel_stage_supervisor_frame_done (AccelStage *self, guint64 sequence);

G_END_DECLS
