/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: stages, the actors of a graph */
#pragma once

#include <glib-object.h>
#include <accel/acceltype.h>
#include <accel/acceldevice.h>
#include <accel/accelstream.h>
#include <accel/accelbuffer.h>
#include <accel/accelcompletion.h>
#include <accel/accelsupervision.h>
#include <accel/accelcommitlog.h>
#include <accel/accelworld.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_STAGE (accel_stage_get_type ())
G_DECLARE_DERIVABLE_TYPE (AccelStage, accel_stage, ACCEL, STAGE, GObject)

typedef enum
{
  ACCEL_PORT_INPUT,
  ACCEL_PORT_OUTPUT,
} AccelPortDirection;

/**
 * AccelStageKind:
 * @ACCEL_STAGE_SOURCE: outputs only; produces a frame whenever downstream has
 * room
 * @ACCEL_STAGE_TRANSFORM: inputs and outputs
 * @ACCEL_STAGE_SINK: inputs only
 */
typedef enum
{
  ACCEL_STAGE_SOURCE,
  ACCEL_STAGE_TRANSFORM,
  ACCEL_STAGE_SINK,
} AccelStageKind;

/**
 * AccelFlow:
 * @ACCEL_FLOW_OK: outputs are written; push them
 * @ACCEL_FLOW_EOS: no more data (sources); outputs are dropped
 * @ACCEL_FLOW_SKIP: drop this frame's outputs, carry on; a transform's
 *   frame is withheld (counted, and a gap sent on), a source's was not
 *   made: it yields its thread to what waits there (see
 *   accel_stage_should_yield()), and its next frame takes the same
 *   sequence number
 * @ACCEL_FLOW_ERROR: failed; the error is set
 */
typedef enum
{
  ACCEL_FLOW_OK,
  ACCEL_FLOW_EOS,
  ACCEL_FLOW_SKIP,
  ACCEL_FLOW_ERROR,
} AccelFlow;

/**
 * AccelCaptureMode:
 * @ACCEL_CAPTURE_AUTO: a stage whose kind can be captured has its work
 *   captured into a CUDA graph and replayed (the default)
 * @ACCEL_CAPTURE_ON: the same, and (on a stage) a kind that cannot be
 *   captured is an error when the graph is prepared; (on a graph) each
 *   stage left to stream launches is reported on stderr
 * @ACCEL_CAPTURE_OFF: stream launches every frame
 *
 * Graph mode: see accel_graph_set_capture_mode() and the `graph`
 * property of a stage.
 */
typedef enum
{
  ACCEL_CAPTURE_AUTO,
  ACCEL_CAPTURE_ON,
  ACCEL_CAPTURE_OFF,
} AccelCaptureMode;

#define ACCEL_TYPE_CAPTURE_MODE (accel_capture_mode_get_type ())
GType accel_capture_mode_get_type (void);

/**
 * AccelPortTemplate:
 * @name: port name, unique per direction
 * @direction: input or output
 * @type: what the port accepts or produces; may hold wildcards
 * @description: one line for `accel-run --describe`
 */
typedef struct
{
  gchar *name;
  AccelPortDirection direction;
  AccelType type;
  gchar *description;
} AccelPortTemplate;

/**
 * AccelFrame:
 * @stream: the stream every GPU call of this frame goes on
 * @sequence: sequence number of the frame
 * @pts: presentation time in ns, or -1
 * @n_inputs: number of input buffers
 * @inputs: (array length=n_inputs): input buffers, acquired for reading on
 *   @stream, one per input port, all of the same sequence
 * @n_outputs: number of output buffers
 * @outputs: (array length=n_outputs): output buffers from the ports' pools,
 *   acquired for writing on @stream
 *
 * What a stage's process() gets. The engine has already made @stream wait
 * for whoever wrote the inputs and last read the outputs, and records the
 * events after process() returns: a stage only enqueues its work. The
 * outputs already carry @sequence and the first input's pts and duration,
 * which a source sets itself.
 */
typedef struct
{
  AccelStream *stream;
  guint64 sequence;
  gint64 pts;
  guint n_inputs;
  AccelBuffer **inputs;
  guint n_outputs;
  AccelBuffer **outputs;
} AccelFrame;

/**
 * AccelStageClass:
 * @negotiate: fill in output types from the input types (default: each
 *   output is its template with wildcards taken from input 0). Called from
 *   the thread that prepares the graph.
 * @start: create streams-bound resources (handles, plans). Stage thread.
 * @stop: release what @start made. Stage thread.
 * @process: enqueue the frame's work on its stream. Stage thread.
 * @render: sinks only: the host part, run once @process's GPU work is done
 *   (through the stage's completion strategy). Stage thread.
 * @flush: drop state carried between frames. Stage thread.
 * @snapshot: stateful stages: the state carried between frames, to restore
 *   after a restart. Stage thread.
 * @restore: stateful stages: take back a snapshot. Stage thread.
 * @eos: the stream ended: finish the output (a sink closes its files) before
 *   the stage reports end of stream. Stage thread.
 * @can_capture: whether this frame's process() may be captured into a CUDA
 *   graph and replayed for later frames instead of called: %TRUE promises
 *   that process() enqueues work only on the frame's stream, with
 *   arguments that depend on nothing but the frame's buffers, the stage's
 *   parameters and state at fixed device addresses, reads nothing back to
 *   the host, changes no host state and returns %ACCEL_FLOW_OK. %NULL (the
 *   default): never. accel_stage_can_capture_always() says yes for every
 *   frame. Stage thread, before process().
 * @has_frame: sources: whether the stage makes the frame of @sequence;
 *   %FALSE ends its stream there, before a buffer is taken for its outputs
 *   (a frame of 16 GiB past `num-buffers` is not allocated to find the
 *   end). %NULL (the default): every frame is made, and process() ends the
 *   stream with %ACCEL_FLOW_EOS. Stage thread.
 */
struct _AccelStageClass
{
  GObjectClass parent_class;

  gboolean (*negotiate) (AccelStage *stage, const AccelType *in_types,
      AccelType *out_types, GError **error);
  gboolean (*start) (AccelStage *stage, GError **error);
  void (*stop) (AccelStage *stage);
  AccelFlow (*process) (AccelStage *stage, AccelFrame *frame, GError **error);
  AccelFlow (*render) (AccelStage *stage, AccelFrame *frame, GError **error);
  void (*flush) (AccelStage *stage);
  GBytes *(*snapshot) (AccelStage *stage);
  gboolean (*restore) (AccelStage *stage, GBytes *state, GError **error);
  gboolean (*eos) (AccelStage *stage, GError **error);
  gboolean (*can_capture) (AccelStage *stage, const AccelFrame *frame);
  gboolean (*has_frame) (AccelStage *stage, guint64 sequence);

  /*< private >*/
  gpointer _accel_reserved[3];
};

/**
 * ACCEL_PARAM_FIXED:
 *
 * A flag of a stage property's #GParamSpec: the property is read when the
 * graph is prepared (it sizes an output, the stage's state or a plan, or
 * it is agreed with other ranks), so once its graph is prepared a change
 * is refused (accel_stage_refuses_param ()); a graph whose prepare failed
 * may still be changed. The first flag past GLib's (1 <<
 * G_PARAM_USER_SHIFT), written out: the introspection scanner read the
 * shift as 0, and Python saw 1, G_PARAM_READABLE.
 */
#define ACCEL_PARAM_FIXED (1 << 8)

/**
 * AccelMeetFunc: (skip)
 * @stage: a stage of the class
 * @world: a world of a rank that runs @stage
 * @key: (out): the meeting's name
 * @members: (out): the ranks that meet there, or %NULL for every rank
 * @n_members: (out): their number, or 0 for every rank
 * @terms: (out): how this rank runs it
 * @error: return location for a #GError, or %NULL
 *
 * Whom @stage meets on other ranks (accel_stage_meet ()).
 *
 * Returns: %FALSE when @stage's parameters name no meeting in @world.
 */
typedef gboolean (*AccelMeetFunc) (AccelStage *stage, AccelWorld *world,
    gchar **key, guint **members, guint *n_members, gchar **terms,
    GError **error);

void accel_stage_class_set_meet_func (
    AccelStageClass *klass, AccelMeetFunc func);
gboolean accel_stage_class_has_meet_func (AccelStageClass *klass);
gboolean accel_stage_meet (AccelStage *stage, AccelWorld *world, gchar **key,
    guint **members, guint *n_members, gchar **terms, GError **error);
gboolean accel_stage_refuses_param (AccelStage *stage, GParamSpec *pspec);
void accel_stage_class_set_live (AccelStageClass *klass, gboolean live);
void accel_stage_class_set_blocking (AccelStageClass *klass, gboolean blocking);
void accel_stage_class_set_remote_source (
    AccelStageClass *klass, gboolean remote);
void accel_stage_class_set_start_waits (
    AccelStageClass *klass, gboolean start_waits);
void accel_stage_class_set_needs_application (
    AccelStageClass *klass, gboolean needs);
gboolean accel_stage_needs_application (AccelStage *stage);
gboolean accel_stage_is_live (AccelStage *stage);
void accel_stage_set_live (AccelStage *stage, gboolean live);
gboolean accel_stage_can_capture_always (
    AccelStage *stage, const AccelFrame *frame);
void accel_stage_class_set_metadata (
    AccelStageClass *klass, const char *kind_name, const char *description);
void accel_stage_class_add_port (AccelStageClass *klass,
    AccelPortDirection direction, const char *name, const AccelType *type,
    const char *description);
const char *accel_stage_class_get_kind_name (AccelStageClass *klass);
const char *accel_stage_class_get_description (AccelStageClass *klass);
GPtrArray *accel_stage_class_get_ports (
    AccelStageClass *klass, AccelPortDirection direction);
AccelStageKind accel_stage_class_get_stage_kind (AccelStageClass *klass);

const char *accel_stage_get_name (AccelStage *stage);
guint accel_stage_get_n_inputs (AccelStage *stage);
guint accel_stage_get_n_outputs (AccelStage *stage);
gint accel_stage_find_port (
    AccelStage *stage, AccelPortDirection direction, const char *name);
const AccelPortTemplate *accel_stage_get_port (
    AccelStage *stage, AccelPortDirection direction, guint index);
const char *accel_stage_get_kind_name (AccelStage *stage);
AccelStageKind accel_stage_get_stage_kind (AccelStage *stage);
AccelDevice *accel_stage_get_device (AccelStage *stage);
gboolean accel_stage_is_host (AccelStage *stage);
AccelStream *accel_stage_get_stream (AccelStage *stage);
GMainContext *accel_stage_get_context (AccelStage *stage);
const AccelType *accel_stage_get_input_type (AccelStage *stage, guint port);
const AccelType *accel_stage_get_output_type (AccelStage *stage, guint port);
AccelPool *accel_stage_get_output_pool (AccelStage *stage, guint port);
guint64 accel_stage_get_n_processed (AccelStage *stage);
guint64 accel_stage_get_n_dropped (AccelStage *stage);
guint64 accel_stage_get_n_restarts (AccelStage *stage);
guint64 accel_stage_get_n_skipped (AccelStage *stage);
guint64 accel_stage_get_n_retried (AccelStage *stage);
guint64 accel_stage_get_n_lost (AccelStage *stage);
guint64 accel_stage_get_n_withheld (AccelStage *stage);
void accel_stage_count_lost (AccelStage *stage, guint64 n);
void accel_stage_wait_begin (AccelStage *stage);
void accel_stage_wait_end (AccelStage *stage);
void accel_stage_note_input_taken (AccelStage *stage, gboolean taken);
gchar *accel_stage_dup_first_fault (AccelStage *stage);
gboolean accel_stage_carries_state (AccelStage *stage);
guint64 accel_stage_get_n_replayed (AccelStage *stage);
guint64 accel_stage_get_n_captured (AccelStage *stage);
AccelCommitLog *accel_stage_get_commit_log (AccelStage *stage);
gboolean accel_stage_should_yield (AccelStage *stage);
gboolean accel_stage_should_stop (AccelStage *stage);
gboolean accel_stage_is_interrupted (AccelStage *stage);
gboolean accel_stage_graph_has_failed (AccelStage *stage);
gboolean accel_stage_graph_is_ending (AccelStage *stage);
gboolean accel_stage_graph_is_gone (AccelStage *stage);
gboolean accel_stage_is_restarting (AccelStage *stage);
guint64 accel_stage_get_start_sequence (AccelStage *stage);
gboolean accel_stage_adopt_input (
    AccelStage *stage, AccelBuffer *buffer, GError **error);
void accel_stage_get_latency (
    AccelStage *stage, gint64 *p50_ns, gint64 *p99_ns);
gboolean accel_stage_set_param_async (
    AccelStage *stage, const char *name, const GValue *value);
void accel_stage_flush_async (AccelStage *stage);

G_END_DECLS
