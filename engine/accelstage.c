/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: AccelStage, an actor: own thread, own GMainContext, bounded mailbox */
#define G_LOG_DOMAIN "accel-stage"

#include "accel-private.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct
{
  gchar *kind_name;
  gchar *description;
  GPtrArray *ports[2]; /* AccelPortTemplate*, by direction */
  gboolean live;       /* a source that cannot produce a frame again */
} ClassInfo;

typedef struct
{
  AccelStage *target; /* owned by the graph */
  guint port;
  gboolean ended; /* the target's stream is over: nothing more goes there */
} Link;

#define LATENCY_RING 1024
/* events a stage cycles through, one per frame; reuse only makes a late
 * reader wait for a later frame of the same stream */
#define EVENT_RING 32
#define FRAMES_PER_DISPATCH 8

typedef struct
{
  /* properties */
  gchar *name;
  AccelDevice *device;
  guint mailbox_size;
  AccelCompletion completion;
  guint pool_size;
  gint64 pool_timeout_ms;
  gint64 frame_limit; /* sources: frames before EOS, -1 none */
  AccelSupervision on_fault;
  guint max_restarts;
  gint64 restart_window_ms;
  gint64 deadline_ms;
  guint snapshot_interval;

  ClassInfo *info;
  guint n_in, n_out;
  AccelType in_types[ACCEL_MAX_PORTS];
  AccelType out_types[ACCEL_MAX_PORTS];
  GArray *links[ACCEL_MAX_PORTS]; /* Link, per output port */
  AccelStageObserver observer;
  gpointer observer_data;

  /* the actor */
  gchar *thread_name; /* stages naming the same thread share it */
  AccelWorker *worker;
  GMainContext *context;
  AccelMailbox *mailbox;
  GSource *mailbox_source;
  GSource *produce_source;
  gboolean busy;    /* in run_frame: not to be re-entered */
  gboolean stopped; /* stop_on_thread has run */
  AccelStreamAllocator *streams;
  AccelStream *stream;
  AccelPool *pools[ACCEL_MAX_PORTS];
  AccelEvent *events[EVENT_RING];
  guint next_event;
  gboolean one_stream; /* every stage shares this stream: no events */
  guint64 next_sequence;
  gboolean started;   /* klass->start succeeded */
  gboolean done;      /* EOS handled, or failed */
  AccelFrame pending; /* a sink's frame awaiting completion */
  AccelBuffer *pending_in[ACCEL_MAX_PORTS];
  gint64 pending_t0;
  gboolean have_pending;

  GError *start_error;

  /* supervision */
  GQueue restart_times; /* monotonic µs of recent restarts */
  GBytes *snapshot;
  AccelCommitLog *commit_log; /* sinks, when the graph keeps state */
  gchar *checkpoint;          /* stateful stages, when the graph keeps state */
  gchar *restore_from;        /* the checkpoint to start from, or NULL */
  guint64 start_sequence;     /* sources: where to (re)start */
  guint64 n_restarts;
  guint64 n_skipped;
  guint64 n_lost;  /* live sources: frames a restart could not replay */
  int produced_fd; /* live sources: where the last sequence is kept, or -1 */

  /* statistics, read from any thread */
  GMutex stats_lock;
  guint64 n_processed;
  gint64 latency_ns[LATENCY_RING];
} AccelStagePrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (AccelStage, accel_stage, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_NAME,
  PROP_DEVICE,
  PROP_MAILBOX_SIZE,
  PROP_COMPLETION,
  PROP_POOL_SIZE,
  PROP_POOL_TIMEOUT,
  PROP_THREAD,
  PROP_ON_FAULT,
  PROP_MAX_RESTARTS,
  PROP_RESTART_WINDOW,
  PROP_DEADLINE,
  PROP_SNAPSHOT_INTERVAL,
  N_PROPS
};

static GParamSpec *props[N_PROPS];
static GPrivate current_stage;
static GQuark class_info_quark;

/* class metadata, kept per GType so subclasses inherit and extend it */

static ClassInfo *
class_info_lookup (GType type)
{
  for (; type && type != ACCEL_TYPE_STAGE; type = g_type_parent (type))
    {
      ClassInfo *info = g_type_get_qdata (type, class_info_quark);
      if (info)
        return info;
    }
  return NULL;
}

static ClassInfo *
class_info_ensure (GType type)
{
  ClassInfo *info = g_type_get_qdata (type, class_info_quark);
  ClassInfo *parent;

  if (info)
    return info;
  info = g_new0 (ClassInfo, 1);
  parent = class_info_lookup (g_type_parent (type));
  for (int d = 0; d < 2; d++)
    {
      info->ports[d] = g_ptr_array_new ();
      if (!parent)
        continue;
      for (guint i = 0; i < parent->ports[d]->len; i++)
        {
          AccelPortTemplate *p = parent->ports[d]->pdata[i];
          AccelPortTemplate *copy = g_memdup2 (p, sizeof (*p));
          copy->name = g_strdup (p->name);
          copy->description = g_strdup (p->description);
          g_ptr_array_add (info->ports[d], copy);
        }
    }
  if (parent)
    {
      info->kind_name = g_strdup (parent->kind_name);
      info->description = g_strdup (parent->description);
      info->live = parent->live;
    }
  g_type_set_qdata (type, class_info_quark, info);
  return info;
}

/**
 * accel_stage_class_set_metadata:
 * @klass: a stage class
 * @kind_name: the registry name, "plugin.kind", e.g. "core.scale"
 * @description: one line saying what the stage does
 *
 * Called from class_init.
 */
void
accel_stage_class_set_metadata (
    AccelStageClass *klass, const char *kind_name, const char *description)
{
  ClassInfo *info = class_info_ensure (G_TYPE_FROM_CLASS (klass));

  g_free (info->kind_name);
  g_free (info->description);
  info->kind_name = g_strdup (kind_name);
  info->description = g_strdup (description);
}

/**
 * accel_stage_class_set_live:
 * @klass: a source's class
 * @live: %TRUE when the source cannot produce a frame again (a camera, an
 *   application pushing buffers), as a live GStreamer source
 *
 * Called from class_init. After a worker restart a live source cannot replay
 * the frames that the sinks had not committed: the graph counts them as
 * lost (accel_stage_get_n_lost()) and says so in its notes, where a
 * replayable source produces them again.
 */
void
accel_stage_class_set_live (AccelStageClass *klass, gboolean live)
{
  class_info_ensure (G_TYPE_FROM_CLASS (klass))->live = live;
}

/**
 * accel_stage_is_live:
 * @stage: a stage
 *
 * Returns: whether @stage is a live source. MT safe.
 */
gboolean
accel_stage_is_live (AccelStage *stage)
{
  ClassInfo *info = class_info_lookup (G_OBJECT_TYPE (stage));

  return info && info->live;
}

/**
 * accel_stage_class_add_port:
 * @klass: a stage class
 * @direction: input or output
 * @name: the port's name, unique per direction ("in", "out" by convention)
 * @type: what the port accepts or produces (wildcards allowed)
 * @description: (nullable): one line for tools
 *
 * Called from class_init. Ports are numbered in the order they are added.
 */
void
accel_stage_class_add_port (AccelStageClass *klass,
    AccelPortDirection direction, const char *name, const AccelType *type,
    const char *description)
{
  ClassInfo *info = class_info_ensure (G_TYPE_FROM_CLASS (klass));
  AccelPortTemplate *port;

  g_return_if_fail (info->ports[direction]->len < ACCEL_MAX_PORTS);

  port = g_new0 (AccelPortTemplate, 1);
  port->name = g_strdup (name);
  port->direction = direction;
  port->type = *type;
  port->description = g_strdup (description);
  g_ptr_array_add (info->ports[direction], port);
}

const char *
accel_stage_class_get_kind_name (AccelStageClass *klass)
{
  ClassInfo *info = class_info_lookup (G_TYPE_FROM_CLASS (klass));

  return info ? info->kind_name : NULL;
}

const char *
accel_stage_class_get_description (AccelStageClass *klass)
{
  ClassInfo *info = class_info_lookup (G_TYPE_FROM_CLASS (klass));

  return info ? info->description : NULL;
}

/**
 * accel_stage_class_get_ports:
 * @klass: a stage class
 * @direction: which ports
 *
 * Returns: (transfer container) (element-type AccelPortTemplate): the ports.
 */
GPtrArray *
accel_stage_class_get_ports (
    AccelStageClass *klass, AccelPortDirection direction)
{
  ClassInfo *info = class_info_lookup (G_TYPE_FROM_CLASS (klass));
  GPtrArray *ports = g_ptr_array_new ();

  for (guint i = 0; info && i < info->ports[direction]->len; i++)
    g_ptr_array_add (ports, info->ports[direction]->pdata[i]);
  return ports;
}

AccelStageKind
accel_stage_class_get_stage_kind (AccelStageClass *klass)
{
  ClassInfo *info = class_info_lookup (G_TYPE_FROM_CLASS (klass));

  if (!info || info->ports[ACCEL_PORT_INPUT]->len == 0)
    return ACCEL_STAGE_SOURCE;
  if (info->ports[ACCEL_PORT_OUTPUT]->len == 0)
    return ACCEL_STAGE_SINK;
  return ACCEL_STAGE_TRANSFORM;
}

/* GObject */

static void
accel_stage_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelStage *self = ACCEL_STAGE (object);
  AccelStagePrivate *priv = accel_stage_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_NAME:
      g_free (priv->name);
      priv->name = g_value_dup_string (value);
      break;
    case PROP_DEVICE:
      g_clear_object (&priv->device);
      priv->device = g_value_dup_object (value);
      break;
    case PROP_MAILBOX_SIZE:
      priv->mailbox_size = g_value_get_uint (value);
      break;
    case PROP_COMPLETION:
      priv->completion = g_value_get_enum (value);
      break;
    case PROP_POOL_SIZE:
      priv->pool_size = g_value_get_uint (value);
      break;
    case PROP_POOL_TIMEOUT:
      priv->pool_timeout_ms = g_value_get_int64 (value);
      break;
    case PROP_THREAD:
      g_free (priv->thread_name);
      priv->thread_name = g_value_dup_string (value);
      break;
    case PROP_ON_FAULT:
      priv->on_fault = g_value_get_enum (value);
      break;
    case PROP_MAX_RESTARTS:
      priv->max_restarts = g_value_get_uint (value);
      break;
    case PROP_RESTART_WINDOW:
      priv->restart_window_ms = g_value_get_int64 (value);
      break;
    case PROP_DEADLINE:
      priv->deadline_ms = g_value_get_int64 (value);
      break;
    case PROP_SNAPSHOT_INTERVAL:
      priv->snapshot_interval = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_stage_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelStage *self = ACCEL_STAGE (object);
  AccelStagePrivate *priv = accel_stage_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, priv->name);
      break;
    case PROP_DEVICE:
      g_value_set_object (value, priv->device);
      break;
    case PROP_MAILBOX_SIZE:
      g_value_set_uint (value, priv->mailbox_size);
      break;
    case PROP_COMPLETION:
      g_value_set_enum (value, priv->completion);
      break;
    case PROP_POOL_SIZE:
      g_value_set_uint (value, priv->pool_size);
      break;
    case PROP_POOL_TIMEOUT:
      g_value_set_int64 (value, priv->pool_timeout_ms);
      break;
    case PROP_THREAD:
      g_value_set_string (value, priv->thread_name);
      break;
    case PROP_ON_FAULT:
      g_value_set_enum (value, priv->on_fault);
      break;
    case PROP_MAX_RESTARTS:
      g_value_set_uint (value, priv->max_restarts);
      break;
    case PROP_RESTART_WINDOW:
      g_value_set_int64 (value, priv->restart_window_ms);
      break;
    case PROP_DEADLINE:
      g_value_set_int64 (value, priv->deadline_ms);
      break;
    case PROP_SNAPSHOT_INTERVAL:
      g_value_set_uint (value, priv->snapshot_interval);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_stage_constructed (GObject *object)
{
  AccelStage *self = ACCEL_STAGE (object);
  AccelStagePrivate *priv = accel_stage_get_instance_private (self);
  ClassInfo *info = class_info_lookup (G_OBJECT_TYPE (object));

  G_OBJECT_CLASS (accel_stage_parent_class)->constructed (object);

  g_return_if_fail (info != NULL);
  priv->info = info;
  priv->n_in = info->ports[ACCEL_PORT_INPUT]->len;
  priv->n_out = info->ports[ACCEL_PORT_OUTPUT]->len;
  for (guint i = 0; i < priv->n_out; i++)
    priv->links[i] = g_array_new (FALSE, FALSE, sizeof (Link));
  if (!priv->name)
    priv->name = g_strdup (info->kind_name);
}

static void
accel_stage_finalize (GObject *object)
{
  AccelStage *self = ACCEL_STAGE (object);
  AccelStagePrivate *priv = accel_stage_get_instance_private (self);

  g_warn_if_fail (priv->worker == NULL);
  for (guint i = 0; i < priv->n_out; i++)
    g_array_unref (priv->links[i]);
  g_free (priv->name);
  g_clear_object (&priv->device);
  g_clear_error (&priv->start_error);
  g_free (priv->thread_name);
  g_queue_clear_full (&priv->restart_times, g_free);
  g_clear_pointer (&priv->snapshot, g_bytes_unref);
  g_free (priv->checkpoint);
  g_free (priv->restore_from);
  if (priv->produced_fd >= 0)
    close (priv->produced_fd);
  g_mutex_clear (&priv->stats_lock);
  G_OBJECT_CLASS (accel_stage_parent_class)->finalize (object);
}

static gboolean accel_stage_default_negotiate (AccelStage *stage,
    const AccelType *in_types, AccelType *out_types, GError **error);

static void
accel_stage_class_init (AccelStageClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  class_info_quark = g_quark_from_static_string ("accel-stage-class-info");

  gobject_class->set_property = accel_stage_set_property;
  gobject_class->get_property = accel_stage_get_property;
  gobject_class->constructed = accel_stage_constructed;
  gobject_class->finalize = accel_stage_finalize;
  klass->negotiate = accel_stage_default_negotiate;

  props[PROP_NAME] = g_param_spec_string ("name", "Name",
      "Name of the stage, unique in its graph", NULL,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  props[PROP_DEVICE] = g_param_spec_object ("device", "Device",
      "Device the stage runs on (default: the graph's)", ACCEL_TYPE_DEVICE,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  props[PROP_MAILBOX_SIZE] = g_param_spec_uint ("mailbox-size", "Mailbox size",
      "Buffers queued per input port before the producer "
      "waits",
      1, 1024, 4,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  props[PROP_COMPLETION] = g_param_spec_enum ("completion", "Completion",
      "How a sink learns that GPU work is done before its host part runs",
      ACCEL_TYPE_COMPLETION, ACCEL_COMPLETION_POLL,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  props[PROP_POOL_SIZE] = g_param_spec_uint ("pool-size", "Pool size",
      "Buffers per output pool (0: the mailbox size + 3)", 0, 1024, 0,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  props[PROP_POOL_TIMEOUT] = g_param_spec_int64 ("pool-timeout", "Pool timeout",
      "Milliseconds to wait for a free output buffer before "
      "failing (-1: forever)",
      -1, G_MAXINT64 / 1000, 10000,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  props[PROP_THREAD] = g_param_spec_string ("thread", "Thread",
      "Run on the thread of this name, shared with every stage naming it "
      "(cheap stages hand buffers on by a function call); empty: a thread "
      "of its own",
      NULL, G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  props[PROP_ON_FAULT] = g_param_spec_enum ("on-fault", "On fault",
      "What the stage does when a frame fails", ACCEL_TYPE_SUPERVISION,
      ACCEL_SUPERVISION_AUTO,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  props[PROP_MAX_RESTARTS] = g_param_spec_uint ("max-restarts", "Max restarts",
      "Restarts allowed within restart-window before a fault "
      "escalates",
      0, G_MAXUINT16, 3,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  props[PROP_RESTART_WINDOW] = g_param_spec_int64 ("restart-window",
      "Restart window", "Milliseconds over which restarts are counted", 1,
      G_MAXINT64 / 1000, 10000,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  props[PROP_DEADLINE] = g_param_spec_int64 ("deadline", "Deadline",
      "Milliseconds of host time a frame may take before it counts as a "
      "timeout fault (0: no deadline)",
      0, G_MAXINT64 / 1000, 0,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  props[PROP_SNAPSHOT_INTERVAL]
      = g_param_spec_uint ("snapshot-interval", "Snapshot interval",
          "Frames between snapshots of a stateful stage's "
          "state, restored after a restart (0: never)",
          0, G_MAXUINT, 100,
          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (gobject_class, N_PROPS, props);
}

static void
accel_stage_init (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (self);

  priv->frame_limit = -1;
  priv->produced_fd = -1;
  g_mutex_init (&priv->stats_lock);
}

/* accessors */

/**
 * accel_stage_get_current:
 *
 * Returns: (transfer none) (nullable): the stage whose thread calls this.
 */
AccelStage *
accel_stage_get_current (void)
{
  return g_private_get (&current_stage);
}

const char *
accel_stage_get_name (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), NULL);
  return priv->name;
}

const char *
accel_stage_get_kind_name (AccelStage *stage)
{
  g_return_val_if_fail (ACCEL_IS_STAGE (stage), NULL);
  return accel_stage_class_get_kind_name (ACCEL_STAGE_GET_CLASS (stage));
}

AccelStageKind
accel_stage_get_stage_kind (AccelStage *stage)
{
  g_return_val_if_fail (ACCEL_IS_STAGE (stage), ACCEL_STAGE_SOURCE);
  return accel_stage_class_get_stage_kind (ACCEL_STAGE_GET_CLASS (stage));
}

/**
 * accel_stage_get_device:
 * @stage: a stage
 *
 * Returns: (transfer none): the stage's device (the default device until the
 * graph assigns one).
 */
AccelDevice *
accel_stage_get_device (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), NULL);
  return priv->device ? priv->device : accel_device_get_default ();
}

/**
 * accel_stage_is_host:
 * @stage: a stage
 *
 * Returns: %TRUE when the stage runs its host implementation.
 */
gboolean
accel_stage_is_host (AccelStage *stage)
{
  return accel_device_is_host (accel_stage_get_device (stage));
}

/**
 * accel_stage_get_stream:
 * @stage: a started stage
 *
 * Returns: (transfer none): the stream of the stage's GPU work.
 * Called from the stage's thread.
 */
AccelStream *
accel_stage_get_stream (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), NULL);
  return priv->stream;
}

/**
 * accel_stage_get_context:
 * @stage: a started stage
 *
 * Returns: (transfer none): the main context the stage's thread runs.
 */
GMainContext *
accel_stage_get_context (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), NULL);
  return priv->context;
}

/**
 * accel_stage_get_input_type:
 * @stage: a negotiated stage
 * @port: input port index
 *
 * Returns: (transfer none): the type arriving on @port.
 */
const AccelType *
accel_stage_get_input_type (AccelStage *stage, guint port)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  g_return_val_if_fail (port < priv->n_in, NULL);
  return &priv->in_types[port];
}

/**
 * accel_stage_get_output_type:
 * @stage: a negotiated stage
 * @port: output port index
 *
 * Returns: (transfer none): the type leaving @port.
 */
const AccelType *
accel_stage_get_output_type (AccelStage *stage, guint port)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  g_return_val_if_fail (port < priv->n_out, NULL);
  return &priv->out_types[port];
}

/**
 * accel_stage_get_output_pool:
 * @stage: a started stage
 * @port: output port index
 *
 * Returns: (transfer none) (nullable): the pool of @port's buffers.
 */
AccelPool *
accel_stage_get_output_pool (AccelStage *stage, guint port)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  g_return_val_if_fail (port < priv->n_out, NULL);
  return priv->pools[port];
}

/**
 * accel_stage_get_n_processed:
 * @stage: a stage
 *
 * Returns: frames processed so far. MT safe.
 */
guint64
accel_stage_get_n_processed (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);
  guint64 n;

  g_mutex_lock (&priv->stats_lock);
  n = priv->n_processed;
  g_mutex_unlock (&priv->stats_lock);
  return n;
}

/**
 * accel_stage_get_n_dropped:
 * @stage: a stage
 *
 * Returns: input buffers dropped because no buffer of the same sequence
 * arrived on the other input ports. MT safe.
 */
guint64
accel_stage_get_n_dropped (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  return priv->mailbox ? accel_mailbox_get_n_dropped (priv->mailbox) : 0;
}

/**
 * accel_stage_get_n_restarts:
 * @stage: a stage
 *
 * Returns: how often the stage's supervisor restarted it. MT safe.
 */
guint64
accel_stage_get_n_restarts (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  guint64 n;

  g_mutex_lock (&priv->stats_lock);
  n = priv->n_restarts;
  g_mutex_unlock (&priv->stats_lock);
  return n;
}

/**
 * accel_stage_get_n_skipped:
 * @stage: a stage
 *
 * Returns: frames the supervisor skipped after a fault (resume). MT safe.
 */
guint64
accel_stage_get_n_skipped (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);
  guint64 n;

  g_mutex_lock (&priv->stats_lock);
  n = priv->n_skipped;
  g_mutex_unlock (&priv->stats_lock);
  return n;
}

/**
 * accel_stage_get_n_lost:
 * @stage: a stage
 *
 * Returns: for a live source, the frames it had produced before a worker
 *   restart that no sink committed and that it cannot produce again. MT
 *   safe.
 */
guint64
accel_stage_get_n_lost (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);
  guint64 n;

  g_mutex_lock (&priv->stats_lock);
  n = priv->n_lost;
  g_mutex_unlock (&priv->stats_lock);
  return n;
}

static int
cmp_gint64 (const void *a, const void *b)
{
  gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;

  return (x > y) - (x < y);
}

/**
 * accel_stage_get_latency:
 * @stage: a stage
 * @p50_ns: (out) (optional): median host time per frame, or -1
 * @p99_ns: (out) (optional): 99th percentile, or -1
 *
 * Host time per frame over the last 1024 frames: from taking the inputs to
 * the end of the stage's own work, not counting the wait to hand the outputs
 * on (for sinks, to the end of the host part, the GPU wait included).
 * MT safe.
 */
void
accel_stage_get_latency (AccelStage *stage, gint64 *p50_ns, gint64 *p99_ns)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);
  gint64 sorted[LATENCY_RING];
  guint n;

  g_mutex_lock (&priv->stats_lock);
  n = (guint)MIN (priv->n_processed, LATENCY_RING);
  memcpy (sorted, priv->latency_ns, n * sizeof (gint64));
  g_mutex_unlock (&priv->stats_lock);

  qsort (sorted, n, sizeof (gint64), cmp_gint64);
  if (p50_ns)
    *p50_ns = n ? sorted[n / 2] : -1;
  if (p99_ns)
    *p99_ns = n ? sorted[MIN (n - 1, n * 99 / 100)] : -1;
}

static void
record_frame (AccelStagePrivate *priv, gint64 t0, gint64 t1)
{
  gint64 dt = (t1 - t0) * 1000;

  g_mutex_lock (&priv->stats_lock);
  priv->latency_ns[priv->n_processed % LATENCY_RING] = dt;
  priv->n_processed++;
  g_mutex_unlock (&priv->stats_lock);
}

/* types */

static gboolean
accel_stage_default_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  for (guint o = 0; o < priv->n_out; o++)
    {
      AccelPortTemplate *port = priv->info->ports[ACCEL_PORT_OUTPUT]->pdata[o];
      AccelType *t = &out_types[o];

      *t = port->type;
      if (priv->n_in == 0)
        continue;
      /* wildcards follow the first input */
      if (t->kind == ACCEL_KIND_ANY)
        t->kind = in_types[0].kind;
      if (t->dtype == ACCEL_DTYPE_ANY)
        t->dtype = in_types[0].dtype;
      if (t->format == ACCEL_FORMAT_ANY)
        t->format = in_types[0].format;
      if (t->memory == ACCEL_MEMORY_ANY)
        t->memory = in_types[0].memory;
      if (t->n_dims == ACCEL_RANK_ANY)
        {
          t->n_dims = in_types[0].n_dims;
          memcpy (t->dims, in_types[0].dims, sizeof (t->dims));
        }
      for (gint d = 0; d < t->n_dims; d++)
        if (t->dims[d] == ACCEL_DIM_ANY && d < in_types[0].n_dims)
          t->dims[d] = in_types[0].dims[d];
    }
  return TRUE;
}

gboolean
accel_stage_negotiate (
    AccelStage *stage, const AccelType *in_types, GError **error)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);
  AccelStageClass *klass = ACCEL_STAGE_GET_CLASS (stage);

  for (guint i = 0; i < priv->n_in; i++)
    priv->in_types[i] = in_types[i];
  if (!klass->negotiate (stage, priv->in_types, priv->out_types, error))
    return FALSE;

  for (guint o = 0; o < priv->n_out; o++)
    {
      AccelPortTemplate *port = priv->info->ports[ACCEL_PORT_OUTPUT]->pdata[o];
      if (priv->out_types[o].memory == ACCEL_MEMORY_ANY)
        priv->out_types[o].memory = ACCEL_MEMORY_DEVICE;
      if (!accel_type_is_fixed (&priv->out_types[o]))
        {
          g_autofree gchar *t = accel_type_to_string (&priv->out_types[o]);
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
              "stage '%s' (%s) cannot fix the type of its output '%s': %s; "
              "set the stage's shape or format properties",
              priv->name, priv->info->kind_name, port->name, t);
          return FALSE;
        }
    }
  return TRUE;
}

guint
accel_stage_get_n_inputs (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  return priv->n_in;
}

guint
accel_stage_get_n_outputs (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  return priv->n_out;
}

/* NULL @name means "the only port" */
gint
accel_stage_find_port (
    AccelStage *stage, AccelPortDirection direction, const char *name)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);
  GPtrArray *ports = priv->info->ports[direction];

  if (!name)
    return ports->len == 1 ? 0 : -1;
  for (guint i = 0; i < ports->len; i++)
    if (g_str_equal (((AccelPortTemplate *)ports->pdata[i])->name, name))
      return (gint)i;
  return -1;
}

const AccelPortTemplate *
accel_stage_get_port (
    AccelStage *stage, AccelPortDirection direction, guint index)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  g_return_val_if_fail (index < priv->info->ports[direction]->len, NULL);
  return priv->info->ports[direction]->pdata[index];
}

void
accel_stage_add_link (
    AccelStage *stage, guint out_port, AccelStage *target, guint in_port)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);
  Link link = { target, in_port };

  g_array_append_val (priv->links[out_port], link);
}

void
accel_stage_clear_links (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  for (guint o = 0; o < priv->n_out; o++)
    g_array_set_size (priv->links[o], 0);
}

void
accel_stage_set_observer (
    AccelStage *stage, const AccelStageObserver *observer, gpointer user_data)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  priv->observer = *observer;
  priv->observer_data = user_data;
}

/* the actor */

static AccelMailbox *
stage_mailbox (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  return priv->mailbox;
}

/* the stage this thread works for now: error messages name it */
static AccelStage *
enter_stage (AccelStage *self)
{
  AccelStage *previous = g_private_get (&current_stage);

  g_private_set (&current_stage, self);
  return previous;
}

static void
stage_fail (AccelStage *self, GError *error)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (self);

  g_debug ("stage '%s' failed: %s", priv->name, error->message);
  priv->done = TRUE;
  g_clear_pointer (&priv->produce_source, g_source_destroy);
  /* upstream learns at its next push that nothing more is taken here */
  if (priv->mailbox)
    accel_mailbox_end (priv->mailbox);
  if (priv->observer.error)
    priv->observer.error (self, error, priv->observer_data);
  g_error_free (error);
}

static void stage_drain (AccelStage *self);

static gboolean
same_worker (AccelStage *self, AccelStage *target)
{
  AccelStagePrivate *a = accel_stage_get_instance_private (self);
  AccelStagePrivate *b = accel_stage_get_instance_private (target);

  return a->worker == b->worker;
}

static void
send_eos (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (self);

  for (guint o = 0; o < priv->n_out; o++)
    for (guint l = 0; l < priv->links[o]->len; l++)
      {
        Link *link = &g_array_index (priv->links[o], Link, l);
        accel_mailbox_push_eos (stage_mailbox (link->target), link->port);
        if (same_worker (self, link->target))
          stage_drain (link->target);
      }
}

static void
handle_eos (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (self);
  AccelStageClass *klass = ACCEL_STAGE_GET_CLASS (self);
  GError *error = NULL;

  priv->done = TRUE;
  g_clear_pointer (&priv->produce_source, g_source_destroy);
  /* upstream learns at its next push that nothing more is taken here */
  if (priv->mailbox)
    accel_mailbox_end (priv->mailbox);
  if (klass->eos && !klass->eos (self, &error))
    {
      stage_fail (self, error);
      return;
    }
  if (priv->n_out > 0)
    {
      send_eos (self);
      return;
    }
  /* a sink: the run is over once its GPU work is */
  if (priv->stream && !accel_stream_synchronize (priv->stream, &error))
    {
      stage_fail (self, error);
      return;
    }
  if (priv->observer.eos)
    priv->observer.eos (self, priv->observer_data);
}

/* a consumer on this thread: hand the buffer on by a call; while its queue
 * is full (a sink waiting for its GPU work) let this thread's other sources
 * run, since blocking would wait for ourselves */
static AccelMailboxPush
push_local (AccelStage *self, Link *link, AccelBuffer *buffer)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (self);
  AccelMailbox *mb = stage_mailbox (link->target);
  AccelMailboxPush res;

  while ((res = accel_mailbox_try_push_buffer (mb, link->port, buffer))
         == ACCEL_MAILBOX_FULL)
    g_main_context_iteration (priv->context, TRUE);
  if (res == ACCEL_MAILBOX_PUSHED)
    stage_drain (link->target);
  return res;
}

typedef enum
{
  PUSH_OK,
  PUSH_CLOSED,   /* the graph stops */
  PUSH_UNWANTED, /* every consumer has ended its stream */
} PushResult;

/* hands each output to every linked input whose stream goes on */
static PushResult
push_outputs (AccelStage *self, AccelFrame *frame)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (self);
  gboolean wanted = FALSE;

  for (guint o = 0; o < frame->n_outputs; o++)
    for (guint l = 0; l < priv->links[o]->len; l++)
      {
        Link *link = &g_array_index (priv->links[o], Link, l);
        AccelBuffer *ref;
        AccelMailboxPush res;

        if (link->ended)
          continue;
        ref = accel_buffer_ref (frame->outputs[o]);
        res = same_worker (self, link->target)
                  ? push_local (self, link, ref)
                  : accel_mailbox_push_buffer (
                      stage_mailbox (link->target), link->port, ref);
        if (res == ACCEL_MAILBOX_CLOSED)
          return PUSH_CLOSED;
        if (res == ACCEL_MAILBOX_ENDED)
          {
            g_debug ("stage '%s': '%s' takes no more", priv->name,
                accel_stage_get_name (link->target));
            link->ended = TRUE;
          }
        else
          wanted = TRUE;
      }
  return wanted || frame->n_outputs == 0 ? PUSH_OK : PUSH_UNWANTED;
}

static void
frame_clear (AccelFrame *frame)
{
  for (guint i = 0; i < frame->n_inputs; i++)
    g_clear_pointer (&frame->inputs[i], accel_buffer_unref);
  for (guint o = 0; o < frame->n_outputs; o++)
    g_clear_pointer (&frame->outputs[o], accel_buffer_unref);
}

/* one event after the frame's work serves as the read fence of every input
 * and the write event of every output */
static gboolean
frame_release (AccelStage *self, AccelFrame *frame, GError **error)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (self);
  AccelEvent **slot;

  if (priv->one_stream || !accel_stream_get_handle (frame->stream))
    return TRUE;
  slot = &priv->events[priv->next_event++ % EVENT_RING];
  if (!*slot
      && !(*slot = accel_event_new (accel_stage_get_device (self), error)))
    return FALSE;
  if (!accel_event_record (*slot, frame->stream, error))
    return FALSE;
  for (guint i = 0; i < frame->n_inputs; i++)
    accel_buffer_mark_read (frame->inputs[i], frame->stream, *slot);
  for (guint o = 0; o < frame->n_outputs; o++)
    accel_buffer_mark_written (frame->outputs[o], frame->stream, *slot);
  return TRUE;
}

static void
finish_pending (AccelStage *self, const GError *wait_error)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (self);
  AccelStageClass *klass = ACCEL_STAGE_GET_CLASS (self);
  GError *error = NULL;
  AccelFlow flow;

  priv->have_pending = FALSE;
  accel_mailbox_set_blocked (priv->mailbox, FALSE);

  if (wait_error)
    {
      error = g_error_copy (wait_error);
      flow = ACCEL_FLOW_ERROR;
    }
  else
    {
      flow = klass->render (self, &priv->pending, &error);
    }
  frame_clear (&priv->pending);
  if (flow != ACCEL_FLOW_ERROR && priv->commit_log)
    accel_commit_log_commit (priv->commit_log, priv->pending.sequence, &error);
  if (error)
    {
      stage_fail (self, error);
      return;
    }
  record_frame (priv, priv->pending_t0, g_get_monotonic_time ());
}

static void
on_completion (const GError *error, gpointer user_data)
{
  finish_pending (ACCEL_STAGE (user_data), error);
}

typedef enum
{
  FRAME_DONE,    /* processed and handed on */
  FRAME_PENDING, /* a sink waits for its GPU work */
  FRAME_EOS,     /* a source has no more */
  FRAME_CLOSED,  /* downstream is gone: the graph stops */
  FRAME_FAILED,  /* @error is set */
} FrameResult;

/* one attempt at a frame: acquire, process, release, hand on; the hot path.
 * @inputs stay the caller's */
static FrameResult
attempt_frame (AccelStage *self, AccelBuffer **inputs, guint64 sequence,
    gint64 t0, gint64 *t_done, GError **error)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (self);
  AccelStageClass *klass = ACCEL_STAGE_GET_CLASS (self);
  AccelBuffer *outputs[ACCEL_MAX_PORTS] = { NULL };
  AccelFrame frame = { 0 };
  AccelFlow flow = ACCEL_FLOW_ERROR;
  FrameResult res = FRAME_DONE;

  frame.stream = priv->stream;
  frame.sequence = sequence;
  frame.pts = priv->n_in > 0 ? accel_buffer_get_pts (inputs[0]) : -1;
  frame.n_inputs = priv->n_in;
  frame.inputs = inputs;
  frame.n_outputs = priv->n_out;
  frame.outputs = outputs;

  for (guint i = 0; i < priv->n_in; i++)
    if (!accel_buffer_acquire_read (inputs[i], priv->stream, error))
      goto failed;
  for (guint o = 0; o < priv->n_out; o++)
    {
      outputs[o] = accel_pool_acquire (priv->pools[o], error);
      if (!outputs[o])
        goto failed;
      accel_buffer_set_sequence (outputs[o], sequence);
      accel_buffer_set_pts (outputs[o], frame.pts);
      if (!accel_buffer_acquire_write (outputs[o], priv->stream, error))
        goto failed;
    }

  if (!accel_fault_fire (self, priv->stream, sequence,
          MAX (priv->deadline_ms, 500) * 2000, error))
    goto failed;
  flow = klass->process (self, &frame, error);
  /* fences even for a failed frame: its work may be queued */
  if (!frame_release (self, &frame, flow == ACCEL_FLOW_ERROR ? NULL : error)
      && flow != ACCEL_FLOW_ERROR)
    goto failed;
  if (flow == ACCEL_FLOW_ERROR)
    goto failed;
  if (priv->deadline_ms > 0
      && g_get_monotonic_time () - t0 > priv->deadline_ms * 1000)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT,
          "frame %" G_GUINT64_FORMAT " took %" G_GINT64_FORMAT
          " ms, past the %" G_GINT64_FORMAT " ms deadline",
          sequence, (g_get_monotonic_time () - t0) / 1000, priv->deadline_ms);
      goto failed;
    }

  /* the stage's own time: handing on may wait for downstream */
  *t_done = g_get_monotonic_time ();
  if (flow == ACCEL_FLOW_EOS)
    res = FRAME_EOS;
  else if (flow == ACCEL_FLOW_OK && klass->render)
    {
      /* a sink's host part waits for its GPU work, off the hot path */
      priv->pending = frame;
      priv->pending.inputs = priv->pending_in;
      priv->pending.n_outputs = 0;
      for (guint i = 0; i < priv->n_in; i++)
        priv->pending_in[i] = accel_buffer_ref (inputs[i]);
      priv->pending_t0 = t0;
      priv->have_pending = TRUE;
      accel_mailbox_set_blocked (priv->mailbox, TRUE);
      if (!accel_completion_wait_async (priv->completion, priv->stream,
              priv->context, on_completion, self, error))
        {
          priv->have_pending = FALSE;
          accel_mailbox_set_blocked (priv->mailbox, FALSE);
          frame_clear (&priv->pending);
          goto failed;
        }
      res = FRAME_PENDING;
    }
  else if (flow == ACCEL_FLOW_OK)
    switch (push_outputs (self, &frame))
      {
      case PUSH_CLOSED:
        res = FRAME_CLOSED;
        break;
      case PUSH_UNWANTED:
        /* as GStreamer's upstream EOS: no one downstream takes more */
        res = FRAME_EOS;
        break;
      default:
        break;
      }

  for (guint o = 0; o < priv->n_out; o++)
    g_clear_pointer (&outputs[o], accel_buffer_unref);
  return res;

  /* ERRORS */
failed:
  {
    if (error && !*error)
      g_set_error (
          error, ACCEL_ERROR, ACCEL_ERROR_FAILED, "failed without saying why");
    for (guint o = 0; o < priv->n_out; o++)
      g_clear_pointer (&outputs[o], accel_buffer_unref);
    return FRAME_FAILED;
  }
}

static AccelSupervision
strategy_for (AccelStagePrivate *priv, const GError *error)
{
  if (error->code == ACCEL_ERROR_CONTEXT_POISONED)
    return ACCEL_SUPERVISION_ESCALATE;
  if (priv->on_fault != ACCEL_SUPERVISION_AUTO)
    return priv->on_fault;
  switch (error->code)
    {
    case ACCEL_ERROR_INVALID_INPUT:
    case ACCEL_ERROR_STALE_BUFFER:
      return ACCEL_SUPERVISION_RESUME;
    case ACCEL_ERROR_OUT_OF_MEMORY:
    case ACCEL_ERROR_LIBRARY:
    case ACCEL_ERROR_TIMEOUT:
      return ACCEL_SUPERVISION_RESTART;
    default:
      return ACCEL_SUPERVISION_ESCALATE;
    }
}

/* FALSE past the restart intensity */
static gboolean
may_restart (AccelStagePrivate *priv)
{
  gint64 now = g_get_monotonic_time ();
  gint64 since = now - priv->restart_window_ms * 1000;

  while (!g_queue_is_empty (&priv->restart_times)
         && *(gint64 *)g_queue_peek_head (&priv->restart_times) < since)
    g_free (g_queue_pop_head (&priv->restart_times));
  if (priv->restart_times.length >= priv->max_restarts)
    return FALSE;
  g_queue_push_tail (&priv->restart_times, g_memdup2 (&now, sizeof (now)));
  return TRUE;
}

/* new stream, handles and plans; state from the last snapshot */
static gboolean
restart (AccelStage *self, GError **error)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (self);
  AccelStageClass *klass = ACCEL_STAGE_GET_CLASS (self);
  AccelDevice *device = accel_stage_get_device (self);

  if (priv->stream && !accel_stream_synchronize (priv->stream, error))
    return FALSE;
  if (priv->started && klass->stop)
    klass->stop (self);
  priv->started = FALSE;
  g_clear_pointer (&priv->stream, accel_stream_unref);
  for (guint o = 0; o < priv->n_out; o++)
    accel_pool_trim (priv->pools[o]);

  priv->stream = accel_stream_allocator_get (priv->streams, device, error);
  if (!priv->stream)
    return FALSE;
  if (klass->start && !klass->start (self, error))
    return FALSE;
  priv->started = TRUE;
  if (priv->snapshot && klass->restore
      && !klass->restore (self, priv->snapshot, error))
    return FALSE;
  return TRUE;
}

/* the stage's supervisor: TRUE when the stage goes on */
static gboolean
handle_fault (AccelStage *self, GError *error, guint64 sequence)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (self);
  AccelSupervision strategy = strategy_for (priv, error);
  GError *restart_error = NULL;

  if (strategy == ACCEL_SUPERVISION_RESTART && !may_restart (priv))
    {
      g_prefix_error (&error,
          "restarted %u times within %" G_GINT64_FORMAT " ms, escalating: ",
          priv->max_restarts, priv->restart_window_ms);
      strategy = ACCEL_SUPERVISION_ESCALATE;
    }

  switch (strategy)
    {
    case ACCEL_SUPERVISION_RESUME:
      g_debug ("stage '%s' skips frame %" G_GUINT64_FORMAT ": %s", priv->name,
          sequence, error->message);
      g_mutex_lock (&priv->stats_lock);
      priv->n_skipped++;
      g_mutex_unlock (&priv->stats_lock);
      g_error_free (error);
      return TRUE;
    case ACCEL_SUPERVISION_RESTART:
      g_debug ("stage '%s' restarts after frame %" G_GUINT64_FORMAT ": %s",
          priv->name, sequence, error->message);
      if (!restart (self, &restart_error))
        {
          g_prefix_error (
              &restart_error, "restart after '%s' failed: ", error->message);
          g_error_free (error);
          stage_fail (self, restart_error);
          return FALSE;
        }
      g_mutex_lock (&priv->stats_lock);
      priv->n_restarts++;
      priv->n_skipped++;
      g_mutex_unlock (&priv->stats_lock);
      g_error_free (error);
      return TRUE;
    case ACCEL_SUPERVISION_STOP:
      g_debug ("stage '%s' stops after frame %" G_GUINT64_FORMAT ": %s",
          priv->name, sequence, error->message);
      g_error_free (error);
      handle_eos (self);
      return FALSE;
    default:
      stage_fail (self, error);
      return FALSE;
    }
}

/* overwritten in place, without fsync: it has to outlive the process, not
 * the machine */
static void
record_produced (AccelStagePrivate *priv, guint64 sequence)
{
  char line[32];
  int n = g_snprintf (
      line, sizeof (line), "%020" G_GUINT64_FORMAT "\n", sequence);

  if (pwrite (priv->produced_fd, line, n, 0) != n)
    g_warning ("stage '%s': cannot record its last sequence: %s", priv->name,
        g_strerror (errno));
}

/* runs a frame under supervision; takes @inputs. FALSE: no more frames */
static gboolean
run_frame (AccelStage *self, AccelBuffer **inputs)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (self);
  AccelStageClass *klass = ACCEL_STAGE_GET_CLASS (self);
  GError *error = NULL;
  gint64 t0 = g_get_monotonic_time (), t_done = t0;
  guint64 sequence;
  FrameResult res;

  if (priv->n_in == 0 && priv->frame_limit >= 0
      && priv->next_sequence >= (guint64)priv->frame_limit)
    {
      handle_eos (self);
      return FALSE;
    }
  sequence = priv->n_in > 0 ? accel_buffer_get_sequence (inputs[0])
                            : priv->next_sequence++;

  if (priv->commit_log
      && accel_commit_log_contains (priv->commit_log, sequence))
    {
      /* finished before a restart: its output exists already */
      for (guint i = 0; i < priv->n_in; i++)
        accel_buffer_unref (inputs[i]);
      return TRUE;
    }

  res = attempt_frame (self, inputs, sequence, t0, &t_done, &error);
  if (res == FRAME_FAILED
      && g_error_matches (error, ACCEL_ERROR, ACCEL_ERROR_OUT_OF_MEMORY))
    {
      /* out of memory: give back the pools' slack and try once more */
      for (guint o = 0; o < priv->n_out; o++)
        accel_pool_trim (priv->pools[o]);
      g_clear_error (&error);
      res = attempt_frame (self, inputs, sequence, t0, &t_done, &error);
    }
  for (guint i = 0; i < priv->n_in; i++)
    accel_buffer_unref (inputs[i]);

  switch (res)
    {
    case FRAME_DONE:
      record_frame (priv, t0, t_done);
      if (priv->produced_fd >= 0)
        record_produced (priv, sequence);
      if (priv->commit_log && priv->n_out == 0
          && !accel_commit_log_commit (priv->commit_log, sequence, &error))
        return handle_fault (self, error, sequence);
      if (klass->snapshot && priv->snapshot_interval > 0
          && sequence % priv->snapshot_interval == 0)
        {
          g_clear_pointer (&priv->snapshot, g_bytes_unref);
          priv->snapshot = klass->snapshot (self);
          if (priv->checkpoint && priv->snapshot
              && !accel_checkpoint_save (
                  priv->checkpoint, sequence, priv->snapshot, &error))
            return handle_fault (self, error, sequence);
        }
      return TRUE;
    case FRAME_PENDING:
      return TRUE;
    case FRAME_EOS:
      handle_eos (self);
      return FALSE;
    case FRAME_CLOSED:
      return FALSE;
    case FRAME_FAILED:
    default:
      return handle_fault (self, error, sequence);
    }
}

static void stop_on_thread (AccelStage *self);

static void
handle_control (AccelStage *self, AccelMessage *msg)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (self);
  AccelStageClass *klass = ACCEL_STAGE_GET_CLASS (self);

  switch (msg->type)
    {
    case ACCEL_MESSAGE_PARAM:
      g_object_set_property (G_OBJECT (self), msg->name, &msg->value);
      break;
    case ACCEL_MESSAGE_FLUSH:
      accel_mailbox_drain (priv->mailbox);
      if (klass->flush)
        klass->flush (self);
      for (guint o = 0; o < priv->n_out; o++)
        for (guint l = 0; l < priv->links[o]->len; l++)
          accel_stage_flush_async (
              g_array_index (priv->links[o], Link, l).target);
      break;
    case ACCEL_MESSAGE_EOS:
      /* a source ends its stream early; others wait for theirs */
      if (priv->n_in == 0 && !priv->done)
        handle_eos (self);
      break;
    case ACCEL_MESSAGE_STOP:
      stop_on_thread (self);
      break;
    }
}

/* runs the frames waiting in the mailbox; re-entry (a nested iteration while
 * this stage is mid-frame) does nothing */
static void
stage_drain (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (self);
  AccelBuffer *inputs[ACCEL_MAX_PORTS];
  AccelStage *previous;
  gboolean eos;

  if (priv->busy || priv->stopped)
    return;
  priv->busy = TRUE;
  previous = enter_stage (self);
  while (!priv->have_pending
         && accel_mailbox_pop_frame (priv->mailbox, inputs, &eos))
    {
      if (eos)
        {
          handle_eos (self);
          break;
        }
      if (priv->done)
        {
          /* failed: drain so upstream is not stuck behind us */
          for (guint i = 0; i < priv->n_in; i++)
            accel_buffer_unref (inputs[i]);
          continue;
        }
      if (!run_frame (self, inputs))
        break;
      if (accel_mailbox_has_control (priv->mailbox))
        break;
    }
  enter_stage (previous);
  priv->busy = FALSE;
}

static gboolean
mailbox_dispatch (gpointer user_data)
{
  AccelStage *self = user_data;
  AccelStagePrivate *priv = accel_stage_get_instance_private (self);
  AccelMessage *msg;

  /* mid-frame, in a nested iteration of a shared thread (waiting for room
   * downstream): an end of stream handled now would overtake the frame */
  if (priv->busy)
    return G_SOURCE_CONTINUE;
  while (!priv->stopped && (msg = accel_mailbox_pop_control (priv->mailbox)))
    {
      AccelStage *previous = enter_stage (self);
      handle_control (self, msg);
      accel_message_free (msg);
      enter_stage (previous);
    }
  if (priv->stopped)
    {
      priv->mailbox_source = NULL;
      return G_SOURCE_REMOVE;
    }
  stage_drain (self);
  return G_SOURCE_CONTINUE;
}

static gboolean
produce_dispatch (gpointer user_data)
{
  AccelStage *self = user_data;
  AccelStagePrivate *priv = accel_stage_get_instance_private (self);
  AccelStage *previous;
  gboolean more;

  if (priv->busy)
    return G_SOURCE_CONTINUE;
  priv->busy = TRUE;
  previous = enter_stage (self);
  /* a few frames per dispatch: each main loop iteration costs a poll() */
  more = TRUE;
  for (guint n = 0; n < FRAMES_PER_DISPATCH && more; n++)
    {
      more = !priv->done && run_frame (self, NULL);
      if (accel_mailbox_has_control (priv->mailbox))
        break;
    }
  enter_stage (previous);
  priv->busy = FALSE;
  if (!more)
    {
      priv->produce_source = NULL;
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
start_on_thread (AccelStage *self, GError **error)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (self);
  AccelStageClass *klass = ACCEL_STAGE_GET_CLASS (self);
  AccelDevice *device = accel_stage_get_device (self);
  guint pool_size = priv->pool_size ? priv->pool_size : priv->mailbox_size + 3;

  if (!accel_device_make_current (device, error))
    return FALSE;
  priv->stream = accel_stream_allocator_get (priv->streams, device, error);
  if (!priv->stream)
    return FALSE;
  for (guint o = 0; o < priv->n_out; o++)
    {
      priv->pools[o] = accel_pool_new (device, &priv->out_types[o], pool_size);
      accel_pool_set_timeout (priv->pools[o],
          priv->pool_timeout_ms < 0 ? ACCEL_POOL_WAIT_FOREVER
                                    : priv->pool_timeout_ms * 1000);
    }
  if (klass->start && !klass->start (self, error))
    return FALSE;
  priv->started = TRUE;
  if (priv->restore_from && klass->restore)
    {
      /* a new worker takes the state the last one saved */
      guint64 seq;
      g_autoptr (GError) read_error = NULL;
      g_autoptr (GBytes) state
          = accel_checkpoint_read (priv->restore_from, &seq, &read_error);
      if (read_error)
        {
          g_propagate_error (error, g_steal_pointer (&read_error));
          return FALSE;
        }
      if (state && !klass->restore (self, state, error))
        return FALSE;
      if (state)
        priv->snapshot = g_bytes_ref (state);
    }
  return TRUE;
}

static void
stop_on_thread (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (self);
  AccelStageClass *klass = ACCEL_STAGE_GET_CLASS (self);
  AccelStage *previous;

  if (priv->stopped)
    return;
  priv->stopped = TRUE;
  previous = enter_stage (self);
  g_clear_pointer (&priv->produce_source, g_source_destroy);
  if (priv->mailbox_source)
    g_source_destroy (priv->mailbox_source);
  /* nothing may still run on the GPU when buffers go back */
  if (priv->stream)
    {
      accel_device_make_current (accel_stage_get_device (self), NULL);
      accel_stream_synchronize (priv->stream, NULL);
    }
  if (priv->have_pending)
    {
      priv->have_pending = FALSE;
      frame_clear (&priv->pending);
    }
  if (priv->started && klass->stop)
    klass->stop (self);
  priv->started = FALSE;
  for (guint o = 0; o < priv->n_out; o++)
    g_clear_object (&priv->pools[o]);
  for (guint e = 0; e < EVENT_RING; e++)
    g_clear_pointer (&priv->events[e], accel_event_unref);
  g_clear_pointer (&priv->stream, accel_stream_unref);
  g_clear_pointer (&priv->commit_log, accel_commit_log_close);
  enter_stage (previous);
}

static gboolean
start_call (gpointer data)
{
  AccelStage *self = data;
  AccelStagePrivate *priv = accel_stage_get_instance_private (self);
  AccelStage *previous = enter_stage (self);

  if (!start_on_thread (self, &priv->start_error))
    stop_on_thread (self);
  enter_stage (previous);
  return G_SOURCE_REMOVE;
}

static gboolean
stop_call (gpointer data)
{
  stop_on_thread (data);
  return G_SOURCE_REMOVE;
}

/* the thread this stage asks for, or NULL for one of its own */
const char *
accel_stage_get_thread_name (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  return priv->thread_name && *priv->thread_name ? priv->thread_name : NULL;
}

/* attaches the stage to @worker's context and runs its start() there */
gboolean
accel_stage_start (AccelStage *stage, AccelWorker *worker,
    AccelStreamAllocator *streams, GError **error)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  g_return_val_if_fail (priv->worker == NULL, FALSE);

  priv->worker = accel_worker_ref (worker);
  priv->context = accel_worker_get_context (worker);
  priv->mailbox
      = accel_mailbox_new (priv->n_in, priv->mailbox_size, priv->context);
  priv->streams = g_object_ref (streams);
  priv->done = FALSE;
  priv->stopped = FALSE;
  priv->busy = FALSE;
  priv->next_sequence = priv->start_sequence;
  for (guint o = 0; o < priv->n_out; o++)
    for (guint l = 0; l < priv->links[o]->len; l++)
      g_array_index (priv->links[o], Link, l).ended = FALSE;
  g_clear_error (&priv->start_error);

  priv->mailbox_source = accel_mailbox_source_new (priv->mailbox);
  g_source_set_callback (priv->mailbox_source, mailbox_dispatch, stage, NULL);
  g_source_attach (priv->mailbox_source, priv->context);
  g_source_unref (priv->mailbox_source);

  accel_worker_call (worker, start_call, stage);
  if (priv->start_error)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&priv->start_error),
          "stage '%s' could not start: ", priv->name);
      accel_stage_join (stage);
      return FALSE;
    }
  return TRUE;
}

/* sources begin producing; called once every stage has started */
void
accel_stage_begin (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);
  GSource *source;

  if (priv->n_in > 0)
    return;
  source = g_idle_source_new ();
  g_source_set_static_name (source, "accel-produce");
  g_source_set_priority (source, G_PRIORITY_DEFAULT_IDLE);
  g_source_set_callback (source, produce_dispatch, stage, NULL);
  priv->produce_source = source;
  g_source_attach (source, priv->context);
  g_source_unref (source);
}

/* stops accepting buffers, wakes every waiter and asks the stage to stop */
void
accel_stage_close (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  if (!priv->mailbox)
    return;
  accel_mailbox_close (priv->mailbox);
  for (guint o = 0; o < priv->n_out; o++)
    if (priv->pools[o])
      accel_pool_set_flushing (priv->pools[o], TRUE);
  accel_mailbox_post (priv->mailbox, accel_message_new (ACCEL_MESSAGE_STOP));
}

/* waits until the stage has stopped on its thread; then frees its parts */
void
accel_stage_join (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  if (!priv->worker)
    return;
  accel_worker_call (priv->worker, stop_call, stage);
  g_clear_pointer (&priv->mailbox, accel_mailbox_free);
  priv->mailbox_source = NULL;
  priv->context = NULL;
  g_clear_pointer (&priv->worker, accel_worker_unref);
  g_clear_object (&priv->streams);
  g_clear_error (&priv->start_error);
}

/**
 * accel_stage_set_param_async:
 * @stage: a stage
 * @name: a property name
 * @value: the new value
 *
 * Sets a property on the stage's own thread, between two frames, so a
 * running stage never sees a parameter change in the middle of a frame.
 * Before the stage starts the property is set at once.
 *
 * Returns: %FALSE when @stage has no such property. MT safe.
 */
gboolean
accel_stage_set_param_async (
    AccelStage *stage, const char *name, const GValue *value)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);
  GParamSpec *pspec;
  AccelMessage *msg;

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), FALSE);
  pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (stage), name);
  if (!pspec)
    return FALSE;
  if (!priv->mailbox)
    {
      g_object_set_property (G_OBJECT (stage), name, value);
      return TRUE;
    }
  msg = accel_message_new (ACCEL_MESSAGE_PARAM);
  msg->name = g_strdup (name);
  g_value_init (&msg->value, G_VALUE_TYPE (value));
  g_value_copy (value, &msg->value);
  accel_mailbox_post (priv->mailbox, msg);
  return TRUE;
}

/**
 * accel_stage_flush_async:
 * @stage: a running stage
 *
 * Drops the buffers queued for @stage and the state it carries between
 * frames, then does the same downstream. MT safe.
 */
void
accel_stage_flush_async (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  g_return_if_fail (ACCEL_IS_STAGE (stage));
  if (priv->mailbox)
    accel_mailbox_post (priv->mailbox, accel_message_new (ACCEL_MESSAGE_FLUSH));
}

/* sources only: end the stream after @limit frames (-1: no limit) */
void
accel_stage_set_frame_limit (AccelStage *stage, gint64 limit)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  priv->frame_limit = limit;
}

/* sources only: end the stream now, from any thread */
void
accel_stage_send_eos (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  if (priv->mailbox)
    accel_mailbox_post (priv->mailbox, accel_message_new (ACCEL_MESSAGE_EOS));
}

/* every stage of the graph runs on one stream: stream order is enough */
void
accel_stage_set_one_stream (AccelStage *stage, gboolean one_stream)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  priv->one_stream = one_stream;
}

/* sinks: skip and record finished sequence numbers (takes @log) */
void
accel_stage_set_commit_log (AccelStage *stage, AccelCommitLog *log)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  g_clear_pointer (&priv->commit_log, accel_commit_log_close);
  priv->commit_log = log;
}

/* live sources: @fd (taken) keeps the last sequence produced, for the next
 * worker to count what it lost; @n_lost is what this one lost */
void
accel_stage_set_produced_file (AccelStage *stage, int fd, guint64 n_lost)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  if (priv->produced_fd >= 0)
    close (priv->produced_fd);
  priv->produced_fd = fd;
  g_mutex_lock (&priv->stats_lock);
  priv->n_lost = n_lost;
  g_mutex_unlock (&priv->stats_lock);
}

/* sources: the first sequence number of the next start */
void
accel_stage_set_start_sequence (AccelStage *stage, guint64 sequence)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  priv->start_sequence = sequence;
}

/**
 * accel_stage_get_commit_log:
 * @stage: a sink
 *
 * A sink whose output outlives the process uses this in start() to drop
 * output of sequence numbers that are not committed (a run cut short wrote
 * them after its last commit; they are written again).
 *
 * Returns: (transfer none) (nullable): the sink's commit log, when the graph
 * keeps state. Called from the stage's thread.
 */
AccelCommitLog *
accel_stage_get_commit_log (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  return priv->commit_log;
}

/* stateful stages: where their snapshots go on disk (@base.<sequence>), and
 * the one to start from, or NULL */
void
accel_stage_set_checkpoint (
    AccelStage *stage, const char *base, const char *restore_from)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  g_free (priv->checkpoint);
  g_free (priv->restore_from);
  priv->checkpoint = g_strdup (base);
  priv->restore_from = g_strdup (restore_from);
}

/**
 * accel_stage_should_yield:
 * @stage: a running stage
 *
 * A stage that waits inside process() or render() (for a device, a file,
 * another framework) asks this now and then: when it says %TRUE the stage
 * should return (with %ACCEL_FLOW_SKIP or an error) so the engine can run
 * what is waiting: a stop, an end of stream, a parameter change.
 *
 * Returns: %TRUE when a control message waits or the stage is stopping.
 * MT safe.
 */
gboolean
accel_stage_should_yield (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_instance_private (stage);

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), TRUE);
  return !priv->mailbox || accel_mailbox_has_control (priv->mailbox)
         || accel_mailbox_is_closed (priv->mailbox);
}
