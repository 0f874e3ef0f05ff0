/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: AccelStage, the abstract stage: common
 * properties, accessors, statistics and type negotiation. The actor that
 * runs it is accelstageloop.c */
#define G_LOG_DOMAIN "accel-stage"

#include "accelstage-private.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
  PROP_WATCHDOG,
  PROP_SNAPSHOT_INTERVAL,
  PROP_GRAPH,
  N_PROPS
};

static GParamSpec *props[N_PROPS];

AccelStagePrivate *
accel_stage_get_private (AccelStage *stage)
{
  return accel_stage_get_instance_private (stage);
}

/* GObject */

static void
accel_stage_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelStage *self = ACCEL_STAGE (object);
  AccelStagePrivate *priv = accel_stage_get_private (self);

  if (accel_stage_refuses_param (self, pspec))
    return;
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
      priv->sink.completion = g_value_get_enum (value);
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
      priv->supervisor.on_fault = g_value_get_enum (value);
      break;
    case PROP_MAX_RESTARTS:
      priv->supervisor.max_restarts = g_value_get_uint (value);
      break;
    case PROP_RESTART_WINDOW:
      priv->supervisor.restart_window_ms = g_value_get_int64 (value);
      break;
    /* the graph's watchdog reads both as the stage runs */
    case PROP_DEADLINE:
      __atomic_store_n (
          &priv->deadline_ms, g_value_get_int64 (value), __ATOMIC_RELAXED);
      break;
    case PROP_WATCHDOG:
      __atomic_store_n (
          &priv->watchdog_ms, g_value_get_int64 (value), __ATOMIC_RELAXED);
      break;
    case PROP_SNAPSHOT_INTERVAL:
      priv->supervisor.snapshot_interval = g_value_get_uint (value);
      break;
    case PROP_GRAPH:
      priv->capture_mode = g_value_get_enum (value);
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
  AccelStagePrivate *priv = accel_stage_get_private (self);

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
      g_value_set_enum (value, priv->sink.completion);
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
      g_value_set_enum (value, priv->supervisor.on_fault);
      break;
    case PROP_MAX_RESTARTS:
      g_value_set_uint (value, priv->supervisor.max_restarts);
      break;
    case PROP_RESTART_WINDOW:
      g_value_set_int64 (value, priv->supervisor.restart_window_ms);
      break;
    case PROP_DEADLINE:
      g_value_set_int64 (value, priv->deadline_ms);
      break;
    case PROP_WATCHDOG:
      g_value_set_int64 (value, priv->watchdog_ms);
      break;
    case PROP_SNAPSHOT_INTERVAL:
      g_value_set_uint (value, priv->supervisor.snapshot_interval);
      break;
    case PROP_GRAPH:
      g_value_set_enum (value, priv->capture_mode);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_stage_constructed (GObject *object)
{
  AccelStage *self = ACCEL_STAGE (object);
  AccelStagePrivate *priv = accel_stage_get_private (self);
  AccelStageClassInfo *info
      = accel_stage_class_info_lookup (G_OBJECT_TYPE (object));

  G_OBJECT_CLASS (accel_stage_parent_class)->constructed (object);

  g_return_if_fail (info != NULL);
  priv->info = info;
  priv->n_in = info->ports[ACCEL_PORT_INPUT]->len;
  priv->n_out = info->ports[ACCEL_PORT_OUTPUT]->len;
  for (guint i = 0; i < priv->n_out; i++)
    priv->links[i] = g_array_new (FALSE, FALSE, sizeof (AccelLink));
  if (!priv->name)
    priv->name = g_strdup (info->kind_name);
}

static void
accel_stage_finalize (GObject *object)
{
  AccelStage *self = ACCEL_STAGE (object);
  AccelStagePrivate *priv = accel_stage_get_private (self);

  g_warn_if_fail (priv->worker == NULL);
  for (guint i = 0; i < priv->n_out; i++)
    g_array_unref (priv->links[i]);
  g_free (priv->name);
  g_clear_object (&priv->device);
  g_clear_error (&priv->start_error);
  g_free (priv->thread_name);
  accel_stage_supervisor_clear (&priv->supervisor);
  accel_source_state_clear (&priv->source);
  accel_sink_state_clear (&priv->sink);
  g_clear_object (&priv->start_cancellable);
  g_mutex_clear (&priv->mailbox_lock);
  g_mutex_clear (&priv->stats_lock);
  g_free (priv->first_fault);
  G_OBJECT_CLASS (accel_stage_parent_class)->finalize (object);
}

static gboolean accel_stage_default_negotiate (AccelStage *stage,
    const AccelType *in_types, AccelType *out_types, GError **error);

static void
accel_stage_class_init (AccelStageClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  gobject_class->set_property = accel_stage_set_property;
  gobject_class->get_property = accel_stage_get_property;
  gobject_class->constructed = accel_stage_constructed;
  gobject_class->finalize = accel_stage_finalize;
  klass->negotiate = accel_stage_default_negotiate;

  props[PROP_NAME] = g_param_spec_string ("name", "Name",
      "Name of the stage, unique in its graph", NULL,
      G_PARAM_READWRITE | ACCEL_PARAM_FIXED | G_PARAM_CONSTRUCT
          | G_PARAM_STATIC_STRINGS);
  props[PROP_DEVICE] = g_param_spec_object ("device", "Device",
      "Device the stage runs on (default: the graph's)", ACCEL_TYPE_DEVICE,
      G_PARAM_READWRITE | ACCEL_PARAM_FIXED | G_PARAM_STATIC_STRINGS);
  props[PROP_MAILBOX_SIZE] = g_param_spec_uint ("mailbox-size", "Mailbox size",
      "Buffers queued per input port before the producer "
      "waits",
      1, 1024, 4,
      G_PARAM_READWRITE | ACCEL_PARAM_FIXED | G_PARAM_CONSTRUCT
          | G_PARAM_STATIC_STRINGS);
  props[PROP_COMPLETION] = g_param_spec_enum ("completion", "Completion",
      "How a sink learns that GPU work is done before its host part runs",
      ACCEL_TYPE_COMPLETION, ACCEL_COMPLETION_POLL,
      G_PARAM_READWRITE | ACCEL_PARAM_FIXED | G_PARAM_CONSTRUCT
          | G_PARAM_STATIC_STRINGS);
  props[PROP_POOL_SIZE] = g_param_spec_uint ("pool-size", "Pool size",
      "Buffers per output pool (0: the deepest of its own and its consumers' "
      "mailboxes + 3)",
      0, 1024, 0,
      G_PARAM_READWRITE | ACCEL_PARAM_FIXED | G_PARAM_CONSTRUCT
          | G_PARAM_STATIC_STRINGS);
  props[PROP_POOL_TIMEOUT] = g_param_spec_int64 ("pool-timeout", "Pool timeout",
      "Milliseconds to wait for a free output buffer before "
      "failing (-1: forever)",
      -1, G_MAXINT64 / 1000, 10000,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  props[PROP_THREAD] = g_param_spec_string ("thread", "Thread",
      "Run on the thread of this name, shared with every stage naming it "
      "(cheap stages hand buffers on by a function call); empty: a thread "
      "of its own",
      NULL,
      G_PARAM_READWRITE | ACCEL_PARAM_FIXED | G_PARAM_CONSTRUCT
          | G_PARAM_STATIC_STRINGS);
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
  props[PROP_WATCHDOG] = g_param_spec_int64 ("watchdog", "Watchdog",
      "Milliseconds a frame may run before the stage counts as hung and its "
      "graph fails with it (0: ten times the deadline, at least 10 s; "
      "none without a deadline)",
      0, G_MAXINT64 / 1000, 0,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  props[PROP_SNAPSHOT_INTERVAL]
      = g_param_spec_uint ("snapshot-interval", "Snapshot interval",
          "Frames between snapshots of a stateful stage's "
          "state, restored after a restart (0: never)",
          0, G_MAXUINT, 100,
          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  props[PROP_GRAPH] = g_param_spec_enum ("graph", "Graph mode",
      "Capture the stage's work into a CUDA graph and replay it: auto (where "
      "its kind can be), on (an error where it cannot) or off",
      ACCEL_TYPE_CAPTURE_MODE, ACCEL_CAPTURE_AUTO,
      G_PARAM_READWRITE | ACCEL_PARAM_FIXED | G_PARAM_CONSTRUCT
          | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (gobject_class, N_PROPS, props);
}

static void
accel_stage_init (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  priv->source.frame_limit = -1;
  priv->source.produced_fd = -1;
  priv->source.live = -1;
  accel_stage_supervisor_init (&priv->supervisor);
  g_mutex_init (&priv->mailbox_lock);
  priv->start_cancellable = g_cancellable_new ();
  g_mutex_init (&priv->stats_lock);
}

/* accessors */

/**
 * accel_stage_get_name:
 * @stage: a stage
 *
 * Returns: (transfer none): the stage's name, unique in its graph. MT safe
 * while nobody sets the "name" property.
 */
const char *
accel_stage_get_name (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), NULL);
  return priv->name;
}

/**
 * accel_stage_get_kind_name:
 * @stage: a stage
 *
 * Returns: (transfer none) (nullable): the registry name of @stage's class.
 * MT safe.
 */
const char *
accel_stage_get_kind_name (AccelStage *stage)
{
  g_return_val_if_fail (ACCEL_IS_STAGE (stage), NULL);
  return accel_stage_class_get_kind_name (ACCEL_STAGE_GET_CLASS (stage));
}

/**
 * accel_stage_get_stage_kind:
 * @stage: a stage
 *
 * Returns: whether @stage is a source, a transform or a sink, from its
 * class's ports. MT safe.
 */
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
 * Called from the thread that builds the graph, or from any thread once it
 * is prepared (which assigns the device).
 */
AccelDevice *
accel_stage_get_device (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), NULL);
  return priv->device ? priv->device : accel_device_get_default ();
}

/**
 * accel_stage_is_host:
 * @stage: a stage
 *
 * Returns: %TRUE when the stage runs its host implementation.
 * Called from the thread that builds the graph, or from any thread once it
 * is prepared (which assigns the device).
 */
gboolean
accel_stage_is_host (AccelStage *stage)
{
  g_return_val_if_fail (ACCEL_IS_STAGE (stage), FALSE);

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
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), NULL);
  return priv->stream;
}

/**
 * accel_stage_get_context:
 * @stage: a started stage
 *
 * Returns: (transfer none) (nullable): the main context the stage's thread
 * runs, %NULL while the stage is not started. Called from the stage's
 * thread, or from any thread between accel_graph_start() and
 * accel_graph_stop().
 */
GMainContext *
accel_stage_get_context (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), NULL);
  return priv->context;
}

/**
 * accel_stage_get_input_type:
 * @stage: a negotiated stage
 * @port: input port index
 *
 * Returns: (transfer none): the type arriving on @port. Valid once
 * accel_graph_prepare() has negotiated the stage; MT safe then.
 */
const AccelType *
accel_stage_get_input_type (AccelStage *stage, guint port)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_return_val_if_fail (port < priv->n_in, NULL);
  return &priv->in_types[port];
}

/**
 * accel_stage_get_output_type:
 * @stage: a negotiated stage
 * @port: output port index
 *
 * Returns: (transfer none): the type leaving @port. Valid once
 * accel_graph_prepare() has negotiated the stage; MT safe then.
 */
const AccelType *
accel_stage_get_output_type (AccelStage *stage, guint port)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_return_val_if_fail (port < priv->n_out, NULL);
  return &priv->out_types[port];
}

/**
 * accel_stage_get_output_pool:
 * @stage: a started stage
 * @port: output port index
 *
 * Returns: (transfer none) (nullable): the pool of @port's buffers, %NULL
 * while the stage is not started. Called from the stage's thread, or from
 * any thread between accel_graph_start() and accel_graph_stop().
 */
AccelPool *
accel_stage_get_output_pool (AccelStage *stage, guint port)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_return_val_if_fail (port < priv->n_out, NULL);
  return priv->pools[port];
}

/* types */

static gboolean
accel_stage_default_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

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
  AccelStagePrivate *priv = accel_stage_get_private (stage);
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

/**
 * accel_stage_get_n_inputs:
 * @stage: a stage
 *
 * Returns: the number of input ports. MT safe (fixed by the class).
 */
guint
accel_stage_get_n_inputs (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), 0);
  return priv->n_in;
}

/**
 * accel_stage_get_n_outputs:
 * @stage: a stage
 *
 * Returns: the number of output ports. MT safe (fixed by the class).
 */
guint
accel_stage_get_n_outputs (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), 0);
  return priv->n_out;
}

/**
 * accel_stage_find_port:
 * @stage: a stage
 * @direction: input or output
 * @name: (nullable): a port name; %NULL means "the only port"
 *
 * Returns: the port's index, or -1 when there is no port of that name (for
 * %NULL, when there is not exactly one port). MT safe.
 */
gint
accel_stage_find_port (
    AccelStage *stage, AccelPortDirection direction, const char *name)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);
  GPtrArray *ports;

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), -1);
  g_return_val_if_fail (
      direction == ACCEL_PORT_INPUT || direction == ACCEL_PORT_OUTPUT, -1);
  ports = priv->info->ports[direction];
  if (!name)
    return ports->len == 1 ? 0 : -1;
  for (guint i = 0; i < ports->len; i++)
    if (g_str_equal (((AccelPortTemplate *)ports->pdata[i])->name, name))
      return (gint)i;
  return -1;
}

/**
 * accel_stage_get_port:
 * @stage: a stage
 * @direction: input or output
 * @index: the port's index
 *
 * Returns: (transfer none): the template of port @index, owned by the
 * class. MT safe.
 */
const AccelPortTemplate *
accel_stage_get_port (
    AccelStage *stage, AccelPortDirection direction, guint index)
{
  AccelStagePrivate *priv;

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), NULL);
  g_return_val_if_fail (
      direction == ACCEL_PORT_INPUT || direction == ACCEL_PORT_OUTPUT, NULL);
  priv = accel_stage_get_private (stage);
  g_return_val_if_fail (index < priv->info->ports[direction]->len, NULL);
  return priv->info->ports[direction]->pdata[index];
}

void
accel_stage_add_link (
    AccelStage *stage, guint out_port, AccelStage *target, guint in_port)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);
  AccelLink link = { target, in_port };

  g_array_append_val (priv->links[out_port], link);
  accel_stage_get_private (target)->producers[in_port] = stage;
}

void
accel_stage_clear_links (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  for (guint o = 0; o < priv->n_out; o++)
    g_array_set_size (priv->links[o], 0);
  memset (priv->producers, 0, sizeof (priv->producers));
  /* a sink's source is found again on the new links */
  priv->origin = NULL;
}

/* a stage whose outputs no stage takes (a sink, or a stage whose frames
 * are work of their own, as an nccl.send with nothing after it): the
 * graph's end and its steps wait for it as for a sink */
gboolean
accel_stage_ends_a_branch (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  for (guint o = 0; o < priv->n_out; o++)
    if (priv->links[o]->len > 0)
      return FALSE;
  return TRUE;
}

void
accel_stage_set_observer (
    AccelStage *stage, const AccelStageObserver *observer, gpointer user_data)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  priv->observer = *observer;
  priv->observer_data = user_data;
}

/* what the graph sets before a start */

/* the thread this stage asks for, or NULL for one of its own */
const char *
accel_stage_get_thread_name (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  return priv->thread_name && *priv->thread_name ? priv->thread_name : NULL;
}

/* sources only: end the stream after @limit frames (-1: no limit) */
void
accel_stage_set_frame_limit (AccelStage *stage, gint64 limit)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  priv->source.frame_limit = limit;
}

/* every stage of the graph runs on one stream: stream order is enough */
void
accel_stage_set_one_stream (AccelStage *stage, gboolean one_stream)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  priv->one_stream = one_stream;
}

/* the graph recorded an error (or starts again): see
 * accel_stage_graph_has_failed () */
void
accel_stage_set_graph_failed (AccelStage *stage, gboolean failed)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_atomic_int_set (&priv->graph_failed, failed);
}

/* accel_graph_send_eos () was called (TRUE), or the graph starts (FALSE):
 * accel_stage_graph_is_ending () */
void
accel_stage_set_graph_ending (AccelStage *stage, gboolean ending)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_atomic_int_set (&priv->graph_ending, ending);
}

/* the graph failed and drains (TRUE), or starts (FALSE): a stage that
 * fails meanwhile ends its consumers' streams (accel_stage_fail ()) */
void
accel_stage_set_graph_drains (AccelStage *stage, gboolean drains)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_atomic_int_set (&priv->graph_drains, drains);
}

/* sinks: skip and record finished sequence numbers (takes @log) */
void
accel_stage_set_commit_log (AccelStage *stage, AccelCommitLog *log)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_clear_pointer (&priv->sink.commit_log, accel_commit_log_close);
  priv->sink.commit_log = log;
}

/* live sources: @fd (taken) keeps the last sequence produced, for the next
 * worker to count what it lost; @n_lost is what this one lost */
void
accel_stage_set_produced_file (AccelStage *stage, int fd, guint64 n_lost)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  if (priv->source.produced_fd >= 0)
    close (priv->source.produced_fd);
  priv->source.produced_fd = fd;
  g_mutex_lock (&priv->stats_lock);
  priv->n_lost = n_lost;
  g_mutex_unlock (&priv->stats_lock);
}

/* sources: the first sequence number of the next start */
void
accel_stage_set_start_sequence (AccelStage *stage, guint64 sequence)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  priv->source.start_sequence = sequence;
}

/**
 * accel_stage_get_start_sequence:
 * @stage: a source
 *
 * Returns: the sequence its run starts at: 0, or the frame a state
 * directory resumes at (a source that cannot give that frame refuses to
 * start). Called from start().
 */
guint64
accel_stage_get_start_sequence (AccelStage *stage)
{
  g_return_val_if_fail (ACCEL_IS_STAGE (stage), 0);
  return accel_stage_get_private (stage)->source.start_sequence;
}

/**
 * accel_stage_get_commit_log: (skip)
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
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), NULL);
  return priv->sink.commit_log;
}

/* stateful stages: where their snapshots go on disk (@base.<sequence>), the
 * one to start from, or NULL, the identity of the state directory they
 * carry, and whether those without one are its own (it gained one) */
void
accel_stage_set_checkpoint (AccelStage *stage, const char *base,
    const char *restore_from, guint64 state_id, gboolean state_id_gained)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);

  g_free (priv->supervisor.checkpoint);
  g_free (priv->supervisor.restore_from);
  priv->supervisor.checkpoint = g_strdup (base);
  priv->supervisor.restore_from = g_strdup (restore_from);
  priv->supervisor.state_id = state_id;
  priv->supervisor.state_id_gained = state_id_gained;
  priv->supervisor.stateless = FALSE;
}

/* the first stage of @stage's segment (@stage itself for the first), or
 * NULL for a stage on a thread of its own; set when the graph is
 * prepared */
void
accel_stage_set_segment (AccelStage *stage, AccelStage *leader)
{
  accel_stage_get_private (stage)->segment = leader;
}

AccelStage *
accel_stage_get_segment (AccelStage *stage)
{
  return accel_stage_get_private (stage)->segment;
}

/* a stepped source produces a frame per step of its graph, never ahead */
void
accel_stage_set_stepped (AccelStage *stage, gboolean stepped)
{
  accel_stage_get_private (stage)->source.stepped = stepped;
}

/* whether the stage's frames may be batched and captured; decided when
 * the graph starts (accelsegment.c) */
void
accel_stage_set_capture (AccelStage *stage, gboolean capture)
{
  accel_stage_get_private (stage)->capture = capture;
}

AccelCaptureMode
accel_stage_get_capture_mode (AccelStage *stage)
{
  return accel_stage_get_private (stage)->capture_mode;
}
