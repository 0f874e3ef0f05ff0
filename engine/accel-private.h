/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: internals shared by the engine's modules; not installed */
#pragma once

#include <signal.h>
#include <cuda_runtime_api.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <accel/accel.h>

G_BEGIN_DECLS

/* error.c: the stage this thread works for now, named in CUDA errors; the
 * stage loop sets it around each stage's work. Returns the previous name */
const char *accel_error_set_stage_name (const char *name);
const char *accel_error_get_stage_name (void);

gboolean accel_debug_has (AccelDebugFlags flag);

/* g_debug for hot paths: whether the domain is asked for is read once, so
 * a message nobody reads costs a branch, not a formatted string */
#define ACCEL_TRACE(...)                                                       \
  G_STMT_START                                                                 \
  {                                                                            \
    static gint trace_on_ = -1;                                                \
    if (G_UNLIKELY (trace_on_ < 0))                                            \
      trace_on_ = !g_log_writer_default_would_drop (                           \
          G_LOG_LEVEL_DEBUG, G_LOG_DOMAIN);                                    \
    if (G_UNLIKELY (trace_on_))                                                \
      g_debug (__VA_ARGS__);                                                   \
  }                                                                            \
  G_STMT_END

/* store.c: a line of the store's protocol, read without holding more than
 * ACCEL_STORE_MAX_LINE bytes of it (requests and replies are short: keys,
 * ids, a pipeline name) */
#define ACCEL_STORE_MAX_LINE 65536
gchar *accel_store_read_line (GInputStream *in, GSocket *socket,
    gint64 deadline, gboolean *too_long, GCancellable *cancellable,
    GError **error);

/* supervisor.c: restarts within a window, for the restart intensity */
gboolean accel_supervisor_set_retried (GError **error, const char *format, ...)
    G_GNUC_PRINTF (2, 3);
guint accel_supervisor_count_recent (
    GArray *restarts, gint64 now, gint64 window_ms);
/* supervisor.c: restarts in a row after which no frame was committed, for
 * failures slower than the restart intensity (a hang the world's timeout
 * ends, say): @stalled counts them, @mark is what the commit logs under
 * @state_dir held at the last restart. Returns the new count */
guint accel_supervisor_count_stalled (
    const char *state_dir, gint64 *mark, guint stalled);
gint64 accel_supervisor_progress_mark (const char *state_dir);
/* supervisor.c: what a supervisor does while it waits for its workers,
 * between begin and end: it notes an interrupt
 * (accel_supervisor_interrupted()), passes it on to the workers added as
 * ACCEL_SUPERVISOR_INTERRUPT (a terminal's Ctrl-C reaches them itself too,
 * as they share its process group: a worker takes the two as one) and
 * starts no new worker after it. SIGTERM (a service manager's stop) and
 * SIGHUP (a terminal closed; left ignored under nohup) are taken as
 * SIGINT. The three are unblocked meanwhile, so one a caller held blocked
 * until its handler was in is taken now. The handlers and the signal mask
 * it replaces in @previous */
typedef struct
{
  struct sigaction sigint, sigterm, sighup;
  sigset_t mask;
} AccelSupervisorHandlers;
void accel_supervisor_begin (AccelSupervisorHandlers *previous);
void accel_supervisor_end (const AccelSupervisorHandlers *previous);
gboolean accel_supervisor_interrupted (void);
/* whether a worker of wait status @status ended after an interrupt that
 * did not reach its supervisor: a signal sent to the worker alone, which
 * stops the run short of its end (an interrupt of both is a run's end).
 * The worker finished its frames (ACCEL_EXIT_INTERRUPTED), stopped at once
 * (ACCEL_EXIT_STOPPED), or was ended by SIGINT, SIGTERM or SIGHUP before
 * it handled them: none is a crash to restart from */
gboolean accel_supervisor_interrupted_alone (int status);
/* whether it finished its frames after the supervisor's own interrupt
 * (ACCEL_EXIT_INTERRUPTED): the run's end, as a finished job */
gboolean accel_supervisor_finished_interrupted (int status);
/* a worker started, and its end (blocking, or a look): between begin and
 * end; TRUE with @status once reaped */
void accel_supervisor_add_worker (GPid pid);
gboolean accel_supervisor_reap_worker (GPid pid, gboolean block, int *status);
/* a GSpawnChildSetupFunc, between begin and end: the worker is sent
 * signal GPOINTER_TO_INT (@sig) when its supervisor goes, however that
 * ends */
void accel_supervisor_child_setup (gpointer sig);
/* how a worker's wait status @status ended it: "exit status n" or
 * "signal n (name)" */
gchar *accel_supervisor_describe_end (int status);
/* why a worker of wait status @status stopped, said after its name
 * ("stopped because ...", "was killed by signal n (name)"), or NULL when a
 * new worker would not mend it */
gchar *accel_supervisor_restart_cause (int status);

/* stream.c */
cudaStream_t accel_stream_get_cuda (AccelStream *stream);

/* worker.c: a thread with a main context, shared by co-located stages */
typedef struct _AccelWorker AccelWorker;
AccelWorker *accel_worker_new (const char *name, GError **error);
AccelWorker *accel_worker_ref (AccelWorker *worker);
void accel_worker_unref (AccelWorker *worker);
GMainContext *accel_worker_get_context (AccelWorker *worker);
gboolean accel_worker_is_current (AccelWorker *worker);
void accel_worker_count_stage (AccelWorker *worker, gint delta);
gboolean accel_worker_is_shared (AccelWorker *worker);
void accel_worker_call (AccelWorker *worker, GSourceFunc func, gpointer data);
typedef struct _AccelWorkerCall AccelWorkerCall;
AccelWorkerCall *accel_worker_call_begin (
    AccelWorker *worker, GSourceFunc func, gpointer data);
void accel_worker_call_end (AccelWorkerCall *call);
void accel_worker_stop (AccelWorker *worker);

/* stage.c, used by the graph */
typedef struct _AccelGraph AccelGraph;
typedef struct
{
  void (*eos) (AccelStage *stage, gpointer user_data);
  void (*error) (AccelStage *stage, const GError *error, gpointer user_data);
  /* a sink's frame @sequence done, or (@lost) any stage's frame skipped
   * or withheld, which reaches no sink below it */
  void (*frame) (
      AccelStage *stage, guint64 sequence, gboolean lost, gpointer user_data);
} AccelStageObserver;

void accel_stage_set_observer (
    AccelStage *stage, const AccelStageObserver *observer, gpointer user_data);
gboolean accel_stage_negotiate (
    AccelStage *stage, const AccelType *in_types, GError **error);
void accel_stage_fix_params (AccelStage *stage);
void accel_stage_join_graph (AccelStage *stage);
gboolean accel_stage_ends_a_branch (AccelStage *stage);
void accel_stage_leave_graph (AccelStage *stage);
void accel_stage_set_numbered (AccelStage *stage);
const char *accel_stage_get_numbered (AccelStage *stage);
void accel_stage_add_link (
    AccelStage *stage, guint out_port, AccelStage *target, guint in_port);
void accel_stage_clear_links (AccelStage *stage);
const char *accel_stage_get_thread_name (AccelStage *stage);
gboolean accel_stage_start (AccelStage *stage, AccelWorker *worker,
    AccelStreamAllocator *streams, GError **error);
void accel_stage_start_begin (
    AccelStage *stage, AccelWorker *worker, AccelStreamAllocator *streams);
gboolean accel_stage_start_end (AccelStage *stage, GError **error);
gboolean accel_stage_start_waits (AccelStage *stage);
gboolean accel_stage_is_remote_source (AccelStage *stage);
void accel_stage_begin (AccelStage *stage);
void accel_stage_close (AccelStage *stage);
void accel_stage_join (AccelStage *stage);
void accel_stage_set_frame_limit (AccelStage *stage, gint64 limit);
void accel_stage_send_eos (AccelStage *stage);
void accel_stage_set_stepped (AccelStage *stage, gboolean stepped);
void accel_stage_step_async (AccelStage *stage);
void accel_stage_set_commit_log (AccelStage *stage, AccelCommitLog *log);
void accel_stage_set_start_sequence (AccelStage *stage, guint64 sequence);
void accel_stage_set_produced_file (AccelStage *stage, int fd, guint64 n_lost);
void accel_stage_set_checkpoint (AccelStage *stage, const char *base,
    const char *restore_from, guint64 state_id, gboolean state_id_gained);
void accel_stage_set_one_stream (AccelStage *stage, gboolean one_stream);
void accel_stage_set_graph_failed (AccelStage *stage, gboolean failed);
void accel_stage_set_graph_ending (AccelStage *stage, gboolean ending);
void accel_stage_set_graph_drains (AccelStage *stage, gboolean drains);
const char *accel_stage_get_blocking_reason (AccelStage *stage);
void accel_stage_set_segment (AccelStage *stage, AccelStage *leader);
AccelStage *accel_stage_get_segment (AccelStage *stage);
void accel_stage_set_capture (AccelStage *stage, gboolean capture);
AccelCaptureMode accel_stage_get_capture_mode (AccelStage *stage);

/* segment.c: which stages share a thread and a stream */
void accel_graph_partition (AccelGraph *graph);

G_END_DECLS

G_BEGIN_DECLS

/* fault.c */
#ifdef ACCEL_FAULT_INJECTION
gboolean accel_fault_fire (const char *stage_name, AccelStream *stream,
    guint64 sequence, gint64 hang_us, GError **error);
gboolean accel_fault_pending (void);
void accel_fault_init_from_env (void);
#else
/* built without fault injection: no frame ever fails on purpose */
static inline gboolean
accel_fault_fire (const char *stage_name, AccelStream *stream, guint64 sequence,
    gint64 hang_us, GError **error)
{
  return TRUE;
}

static inline gboolean
accel_fault_pending (void)
{
  return FALSE;
}

static inline void
accel_fault_init_from_env (void)
{
}
#endif

/* device.c: captures against calls that wait on the whole device */
void accel_device_capture_begin (void);
void accel_device_capture_end (void);

/* capture.c: CUDA graphs of captured stage work, replayed per key */
typedef struct _AccelCaptureCache AccelCaptureCache;
AccelCaptureCache *accel_capture_cache_new (guint capacity);
void accel_capture_cache_free (AccelCaptureCache *cache);
gboolean accel_capture_cache_replay (AccelCaptureCache *cache,
    const guint64 *key, guint n_words, AccelStream *stream, gboolean *hit,
    GError **error);
gboolean accel_capture_begin (AccelStream *stream, GError **error);
gboolean accel_capture_is_valid (AccelStream *stream);
gboolean accel_capture_end (AccelCaptureCache *cache, AccelStream *stream,
    const guint64 *key, guint n_words, GError **error);

/* accelutil.c */
gint64 accel_deadline_from (gint64 start, gint64 timeout_us);

/* accelfault.c */
gchar **accel_fault_dup_stages (void);
gboolean accel_fault_has_hang (const char *stage);

/* accelstagewatchdog.c: the graph's watchdog */
typedef struct _AccelStageWatchdog AccelStageWatchdog;
AccelStageWatchdog *accel_stage_watchdog_start (GPtrArray *stages,
    void (*hung) (AccelStage *stage, const GError *error, gpointer data),
    gpointer data, GError **error);
void accel_stage_watchdog_stop (AccelStageWatchdog *dog);

/* accelregistrycache.c: the kinds of each plugin file, between processes */
gchar *accel_registry_cache_path (void);
GKeyFile *accel_registry_cache_read (const char *path);
gchar **accel_registry_cache_lookup (GKeyFile *cache, const char *plugin,
    const GStatBuf *st, const char *build_id);
void accel_registry_cache_set (GKeyFile *cache, const char *plugin,
    const GStatBuf *st, const char *build_id, GPtrArray *kinds);
void accel_registry_cache_write (GKeyFile *cache, const char *path);

/* accelpluginfile.c */
gboolean accel_plugin_file_check (
    const char *path, gchar **build_id, GError **error);

/* registry.c: a float or double with the digits that read back as it,
 * for parameter ranges and fingerprints */
gchar *accel_real_to_string (double v, gboolean single);

/* checkpoint.c */
gboolean accel_checkpoint_write (const char *path, guint64 state_id,
    guint64 sequence, GBytes *state, GError **error);
GBytes *accel_checkpoint_read (const char *path, guint64 state_id,
    gboolean state_id_gained, guint64 *sequence, GError **error);
gboolean accel_checkpoint_save (const char *base, guint64 state_id,
    guint64 sequence, GBytes *state, GError **error);
gchar *accel_checkpoint_find (
    const char *base, guint64 before, guint64 *sequence);
void accel_checkpoint_drop_from (const char *base, guint64 first);
gboolean accel_checkpoint_mark_stateless (
    const char *base, guint64 state_id, GError **error);
gboolean accel_checkpoint_check_stateless (const char *base, guint64 state_id,
    gboolean state_id_gained, GError **error);
gboolean accel_checkpoint_is_stateless (const char *base);

/* fence.c: events, and a frame's release */
typedef struct _AccelEvent AccelEvent;
AccelEvent *accel_event_new (AccelDevice *device, GError **error);
AccelEvent *accel_event_ref (AccelEvent *ev);
void accel_event_unref (AccelEvent *ev);
gboolean accel_event_record (
    AccelEvent *ev, AccelStream *stream, GError **error);
gboolean accel_fence_release_frame (AccelFence **reads, guint n_reads,
    AccelFence **writes, guint n_writes, AccelStream *stream, AccelEvent *event,
    GError **error);

/* buffer.c and pool.c */
gboolean accel_buffer_release_frame (AccelBuffer **inputs, guint n_inputs,
    AccelBuffer **outputs, guint n_outputs, AccelStream *stream,
    AccelEvent *event, GError **error);
AccelBuffer *accel_buffer_alloc (
    AccelDevice *device, const AccelType *type, GError **error);
void accel_buffer_free (AccelBuffer *buffer);
void accel_debug_count_allocation (void);
void accel_buffer_reset_for_pool (AccelBuffer *buffer, AccelPool *pool);
void accel_pool_return (AccelPool *pool, AccelBuffer *buffer);
AccelBuffer *accel_pool_acquire_in_step (
    AccelPool *pool, guint64 sequence, GError **error);
AccelBuffer *accel_pool_acquire_or_wake (AccelPool *pool, gboolean in_step,
    guint64 sequence, GSource *wake, gint64 *since, GError **error);
void accel_pool_forget_wake (AccelPool *pool, GSource *wake);
guint accel_buffer_get_pool_slot (AccelBuffer *buffer);
void accel_buffer_set_pool_slot (AccelBuffer *buffer, guint slot);
void accel_buffer_set_unzeroed (AccelBuffer *buffer);
gboolean accel_buffer_zero_once (
    AccelBuffer *buffer, AccelStream *stream, GError **error);

G_END_DECLS

G_BEGIN_DECLS

/* mailbox.c: a stage's bounded input queues and its control queue */
typedef enum
{
  ACCEL_MESSAGE_FLUSH,
  ACCEL_MESSAGE_PARAM,
  ACCEL_MESSAGE_EOS,
  ACCEL_MESSAGE_STOP,
  ACCEL_MESSAGE_STEP, /* stepped sources: produce one frame */
} AccelMessageType;

typedef struct
{
  AccelMessageType type;
  gchar *name;  /* PARAM */
  GValue value; /* PARAM */
} AccelMessage;

typedef struct _AccelMailbox AccelMailbox;

#define ACCEL_MAX_PORTS 16

AccelMessage *accel_message_new (AccelMessageType type);
void accel_message_free (AccelMessage *msg);

typedef enum
{
  ACCEL_MAILBOX_PUSHED,
  ACCEL_MAILBOX_FULL,   /* the buffer is still the caller's */
  ACCEL_MAILBOX_CLOSED, /* the buffer was dropped */
  ACCEL_MAILBOX_ENDED,  /* dropped: the consumer takes no more */
} AccelMailboxPush;

AccelMailboxPush accel_mailbox_try_push_buffer (
    AccelMailbox *mb, guint port, AccelBuffer *buffer);
AccelMailbox *accel_mailbox_new (
    guint n_ports, guint capacity, GMainContext *context);
void accel_mailbox_free (AccelMailbox *mb);
AccelMailboxPush accel_mailbox_push_buffer (
    AccelMailbox *mb, guint port, AccelBuffer *buffer);
void accel_mailbox_push_eos (AccelMailbox *mb, guint port);
void accel_mailbox_post (AccelMailbox *mb, AccelMessage *msg);
AccelMessage *accel_mailbox_pop_control (AccelMailbox *mb);
gboolean accel_mailbox_has_control (AccelMailbox *mb);
gboolean accel_mailbox_is_closed (AccelMailbox *mb);
typedef enum
{
  ACCEL_MAILBOX_POP_NONE,
  ACCEL_MAILBOX_POP_FRAME,
  ACCEL_MAILBOX_POP_GAP, /* a frame skipped upstream */
  ACCEL_MAILBOX_POP_EOS,
} AccelMailboxPop;

AccelMailboxPop accel_mailbox_pop_frame (
    AccelMailbox *mb, AccelBuffer **buffers, guint64 *gap);
void accel_mailbox_push_gap (AccelMailbox *mb, guint port, guint64 sequence);
void accel_mailbox_set_blocked (AccelMailbox *mb, gboolean blocked);
void accel_mailbox_close (AccelMailbox *mb);
void accel_mailbox_end (AccelMailbox *mb);
guint accel_mailbox_drain (AccelMailbox *mb);
guint64 accel_mailbox_get_n_dropped (AccelMailbox *mb);
void accel_mailbox_note_dropped (AccelMailbox *mb);

gchar *accel_file_resolved_path (const char *path);
gchar *accel_file_identity (const char *path);
guint accel_mailbox_get_max_queued (AccelMailbox *mb);
guint accel_mailbox_get_n_queued (AccelMailbox *mb);
GSource *accel_mailbox_source_new (AccelMailbox *mb);

/* accelnvtx.c: NVTX ranges per stage and frame, when ACCEL_NVTX=1 */
gboolean accel_nvtx_enabled (void);
void accel_nvtx_push (const char *name, guint64 sequence);
void accel_nvtx_pop (void);
#define ACCEL_NVTX_PUSH(name, sequence)                                        \
  G_STMT_START                                                                 \
  {                                                                            \
    if (G_UNLIKELY (accel_nvtx_enabled ()))                                    \
      accel_nvtx_push ((name), (sequence));                                    \
  }                                                                            \
  G_STMT_END
#define ACCEL_NVTX_POP()                                                       \
  G_STMT_START                                                                 \
  {                                                                            \
    if (G_UNLIKELY (accel_nvtx_enabled ()))                                    \
      accel_nvtx_pop ();                                                       \
  }                                                                            \
  G_STMT_END

G_END_DECLS
