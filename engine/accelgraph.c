/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the graph: stages and links, run and stop; preparing it is
 * accelgraphprepare.c, its state directory accelstatedir.c */
#define G_LOG_DOMAIN "accel-graph"

#include "accelgraph-private.h"
#include "accelstage-private.h"

#include <string.h>

G_DEFINE_FINAL_TYPE (AccelGraph, accel_graph, G_TYPE_OBJECT)

/* drops the reference the graph took when its last was dropped on one of
 * its own threads, once it has stopped */
static gpointer
stop_elsewhere (gpointer data)
{
  AccelGraph *graph = data;

  accel_graph_stop (graph);
  graph->stop_elsewhere = FALSE;
  g_object_unref (graph);
  return NULL;
}

static void
accel_graph_dispose (GObject *object)
{
  AccelGraph *self = ACCEL_GRAPH (object);
  g_autoptr (GError) error = NULL;
  GThread *thread;

  /* the last reference dropped in a callback on a stage's thread (a
   * signal handler, a Python object collected there): the graph cannot
   * stop there, since stopping joins that thread, and freed it would be
   * used by the threads still running. It lives on until a thread of its
   * own has stopped it (once: a second dispose meanwhile waits for that
   * one). A process that leaves meanwhile leaves with the graph running,
   * as it would had it kept its reference */
  if (self->state == GRAPH_RUNNING && self->stop_elsewhere)
    return;
  if (self->state == GRAPH_RUNNING && accel_graph_on_stage_thread (self))
    {
      self->stop_elsewhere = TRUE;
      g_debug ("graph '%s': last reference dropped on its own thread; "
               "stopped from another",
          self->name);
      thread = accel_thread_try_new (
          "accel-graph-stop", stop_elsewhere, g_object_ref (self), &error);
      /* the reference stays: it runs on, as had it been kept */
      if (!thread)
        g_warning ("graph '%s' runs on: %s", self->name, error->message);
      else
        g_thread_unref (thread);
      return;
    }
  accel_graph_stop (self);
  G_OBJECT_CLASS (accel_graph_parent_class)->dispose (object);
}

static void
accel_graph_finalize (GObject *object)
{
  AccelGraph *self = ACCEL_GRAPH (object);

  g_free (self->name);
  g_free (self->state_dir);
  g_clear_object (&self->device);
  for (guint i = 0; i < self->stages->len; i++)
    accel_stage_leave_graph (self->stages->pdata[i]);
  g_ptr_array_unref (self->stages);
  g_array_unref (self->links);
  g_array_unref (self->wiring);
  g_clear_pointer (&self->order, g_ptr_array_unref);
  g_ptr_array_unref (self->notes);
  g_ptr_array_unref (self->workers);
  g_clear_error (&self->error);
  g_clear_pointer (&self->step_sinks, g_ptr_array_unref);
  g_mutex_clear (&self->lock);
  g_mutex_clear (&self->stop_lock);
  g_cond_clear (&self->cond);
  G_OBJECT_CLASS (accel_graph_parent_class)->finalize (object);
}

static void
accel_graph_class_init (AccelGraphClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = accel_graph_dispose;
  G_OBJECT_CLASS (klass)->finalize = accel_graph_finalize;
}

static void
accel_graph_init (AccelGraph *self)
{
  self->stages = g_ptr_array_new_with_free_func (g_object_unref);
  self->links = g_array_new (FALSE, FALSE, sizeof (GraphLink));
  self->wiring = g_array_new (FALSE, FALSE, sizeof (GraphLink));
  self->notes = g_ptr_array_new_with_free_func (g_free);
  self->workers
      = g_ptr_array_new_with_free_func ((GDestroyNotify)accel_worker_unref);
  self->stream_policy = ACCEL_STREAM_POLICY_PER_STAGE;
  self->n_streams = 4;
  self->frame_limit = -1;
  self->segments = TRUE;
  self->commit_interval_us = 100 * 1000;
  g_mutex_init (&self->lock);
  g_mutex_init (&self->stop_lock);
  g_cond_init (&self->cond);
}

/**
 * accel_graph_new:
 * @name: (nullable): a name for messages
 *
 * Returns: (transfer full): an empty graph on the default device. MT safe.
 */
AccelGraph *
accel_graph_new (const char *name)
{
  AccelGraph *self = g_object_new (ACCEL_TYPE_GRAPH, NULL);

  self->name = g_strdup (name ? name : "graph");
  return self;
}

/**
 * accel_graph_get_name:
 * @graph: a graph
 *
 * Returns: (transfer none): the graph's name, for messages. MT safe (fixed
 * at construction).
 */
const char *
accel_graph_get_name (AccelGraph *graph)
{
  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), NULL);
  return graph->name;
}

/**
 * accel_graph_set_device:
 * @graph: a graph that is not prepared
 * @device: (nullable): device for stages that name none; %NULL: the default
 *
 * Called from the thread that builds the graph, before
 * accel_graph_prepare() or accel_graph_start(): preparing places the
 * stages, so a prepared graph keeps the device it was given (another,
 * even the default named, is a critical: it was taken, read back, and
 * never used).
 */
void
accel_graph_set_device (AccelGraph *graph, AccelDevice *device)
{
  g_return_if_fail (ACCEL_IS_GRAPH (graph));
  g_return_if_fail (graph->state == GRAPH_NEW || device == graph->device);
  g_set_object (&graph->device, device);
}

/**
 * accel_graph_get_device:
 * @graph: a graph
 *
 * Returns: (transfer none): the device of stages that name none.
 * Called from the thread that builds the graph, or from any thread once it
 * has started.
 */
AccelDevice *
accel_graph_get_device (AccelGraph *graph)
{
  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), NULL);
  return graph->device ? graph->device : accel_device_get_default ();
}

/**
 * accel_graph_set_stream_policy:
 * @graph: a graph that is not running
 * @policy: how stages get streams
 * @n_streams: pool size for %ACCEL_STREAM_POLICY_POOLED
 *
 * Called from the thread that builds the graph, before accel_graph_start().
 */
void
accel_graph_set_stream_policy (
    AccelGraph *graph, AccelStreamPolicy policy, guint n_streams)
{
  g_return_if_fail (ACCEL_IS_GRAPH (graph));
  g_return_if_fail (policy == ACCEL_STREAM_POLICY_PER_STAGE
                    || policy == ACCEL_STREAM_POLICY_SINGLE
                    || policy == ACCEL_STREAM_POLICY_POOLED);
  g_return_if_fail (graph->state != GRAPH_RUNNING);
  graph->stream_policy = policy;
  graph->n_streams = MAX (n_streams, 1);
}

/* the graph a stage was added to, held weakly on the stage: a stage's
 * links and thread belong to one graph */
static GQuark
graph_owner_quark (void)
{
  return g_quark_from_static_string ("accel-graph-owner");
}

static void
free_owner (gpointer data)
{
  g_weak_ref_clear (data);
  g_free (data);
}

/* @stage's name: not empty, no '.' and no '/'. Checked as it is added and
 * again as the graph is prepared, as it may have been renamed since */
gboolean
accel_graph_check_stage_name (AccelStage *stage, GError **error)
{
  const char *name = accel_stage_get_name (stage);

  if (name && *name && !strchr (name, '.') && !strchr (name, '/'))
    return TRUE;
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
      "stage '%s' (%s): a stage's name is not empty and holds no '.' "
      "(links name ports as stage.port) and no '/' (its files in a "
      "state directory are named after it)",
      name ? name : "", accel_stage_get_kind_name (stage));
  return FALSE;
}

/* a call that @graph's state does not allow: the error says the state
 * and what the call needs, so a program that reads its error learns it
 * (%ACCEL_ERROR_STOPPED once stopped). Returns %FALSE */
gboolean
accel_graph_refuse_call (AccelGraph *graph, const char *needs, GError **error)
{
  static const char *const states[] = {
    [GRAPH_NEW] = "not prepared",
    [GRAPH_PREPARED] = "prepared",
    [GRAPH_RUNNING] = "running",
    [GRAPH_STOPPED] = "stopped",
  };

  g_set_error (error, ACCEL_ERROR,
      graph->state == GRAPH_STOPPED ? ACCEL_ERROR_STOPPED : ACCEL_ERROR_FAILED,
      "graph '%s' is %s: %s", graph->name, states[graph->state], needs);
  return FALSE;
}

/* what the stages the program feeds or drains wait for now, at least
 * @min_us: "; stage 'out' (io.app-sink) waits for the program to take its
 * frames", or "" where none does. Only one that waits: a stage that is
 * slow upstream of an io.app-sink holding nothing was not the sink's
 * fault */
static GString *
describe_app_waits (AccelGraph *graph, gint64 min_us)
{
  GString *says = g_string_new (NULL);

  for (guint i = 0; i < graph->order->len; i++)
    {
      AccelStage *stage = graph->order->pdata[i];
      gint64 waited = accel_stage_get_outside_wait_us (stage);

      if (!accel_stage_needs_application (stage) || waited == 0
          || waited < min_us)
        continue;
      g_string_append_printf (says,
          "; stage '%s' (%s) waits for the program to %s",
          accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
          accel_stage_get_n_inputs (stage) == 0
              ? "push its frames and end its stream"
              : "take its frames");
    }
  return says;
}

/* a wait for @graph ran out (@error says so): a stage the program feeds
 * or drains that waits for it is the likely reason, named at the end of
 * the message (an io.app-sink nobody pulls holds the graph for good) */
void
accel_graph_append_app_waits (AccelGraph *graph, GError *error)
{
  g_autoptr (GString) says = describe_app_waits (graph, 0);
  gchar *message = g_strconcat (error->message, says->str, NULL);

  g_free (error->message);
  error->message = message;
}

/**
 * accel_graph_add:
 * @graph: a graph that is not running
 * @stage: (transfer none): a stage; the graph takes a reference
 * @error: return location for a #GError, or %NULL
 *
 * Adds @stage; it runs once the graph starts.
 *
 * A stage made without a name (accel_stage_new()) is named here after its
 * kind, numbered as the first free name ("scale0", "scale1", ...).
 *
 * Returns: %FALSE when @graph is prepared already, when a stage of the
 * same name is already there, when the name is empty or holds '.' or '/'
 * (%ACCEL_ERROR_INVALID_PIPELINE), or when @stage is in another graph that
 * still exists.
 * Called from the thread that builds the graph, before accel_graph_start().
 */
gboolean
accel_graph_add (AccelGraph *graph, AccelStage *stage, GError **error)
{
  GWeakRef *owner;
  g_autoptr (AccelGraph) other = NULL;

  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), FALSE);
  g_return_val_if_fail (ACCEL_IS_STAGE (stage), FALSE);
  if (graph->state != GRAPH_NEW)
    return accel_graph_refuse_call (
        graph, "stages are added before it is prepared", error);

  owner = g_object_get_qdata (G_OBJECT (stage), graph_owner_quark ());
  other = owner ? g_weak_ref_get (owner) : NULL;
  /* before it is numbered: a second add renamed it */
  if (other == graph)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "stage '%s' (%s) is already in graph '%s'",
          accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
          graph->name);
      return FALSE;
    }
  if (other)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "stage '%s' (%s) is already in graph '%s': a stage belongs to one "
          "graph",
          accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
          accel_graph_get_name (other));
      return FALSE;
    }
  /* made without a name: its kind's, numbered as the first free here */
  if (accel_stage_get_numbered (stage))
    for (guint n = 0;; n++)
      {
        g_autofree gchar *name
            = g_strdup_printf ("%s%u", accel_stage_get_numbered (stage), n);

        if (accel_graph_get_stage (graph, name))
          continue;
        g_object_set (stage, "name", name, NULL);
        break;
      }
  if (!accel_graph_check_stage_name (stage, error))
    return FALSE;
  if (accel_graph_get_stage (graph, accel_stage_get_name (stage)))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "graph '%s' already has a stage named '%s'", graph->name,
          accel_stage_get_name (stage));
      return FALSE;
    }
  owner = g_new0 (GWeakRef, 1);
  g_weak_ref_init (owner, graph);
  g_object_set_qdata_full (
      G_OBJECT (stage), graph_owner_quark (), owner, free_owner);
  g_ptr_array_add (graph->stages, g_object_ref (stage));
  accel_stage_join_graph (stage);
  return TRUE;
}

/**
 * accel_graph_get_stage:
 * @graph: a graph
 * @name: a stage name
 *
 * Returns: (transfer none) (nullable): the stage called @name; once the
 * graph is prepared, the copies it inserted too (named
 * `src.port->dst.port`). Called from the thread that builds the graph, or
 * from any thread once it has started.
 */
AccelStage *
accel_graph_get_stage (AccelGraph *graph, const char *name)
{
  GPtrArray *stages;

  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), NULL);
  stages = accel_graph_get_stages (graph);
  for (guint i = 0; i < stages->len; i++)
    if (g_strcmp0 (accel_stage_get_name (stages->pdata[i]), name) == 0)
      return stages->pdata[i];
  return NULL;
}

/**
 * accel_graph_get_stages:
 * @graph: a graph
 *
 * Returns: (transfer none) (element-type AccelStage): the stages, in the
 * order they run once prepared (inserted copies included), else as added.
 * Called from the thread that builds the graph, or from any thread once it
 * has started.
 */
GPtrArray *
accel_graph_get_stages (AccelGraph *graph)
{
  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), NULL);
  return graph->order ? graph->order : graph->stages;
}

/**
 * accel_graph_get_notes:
 * @graph: a prepared graph
 *
 * Returns: (transfer none) (element-type utf8): what preparing (and the
 * last start, with a state directory) decided on the user's behalf, such
 * as inserted copies. Called from the thread that builds the graph, or from
 * any thread once it has started.
 */
GPtrArray *
accel_graph_get_notes (AccelGraph *graph)
{
  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), NULL);
  return graph->notes;
}

const char *
accel_graph_port_name (AccelStage *stage, AccelPortDirection dir, guint port)
{
  return accel_stage_get_port (stage, dir, port)->name;
}

static gboolean
find_port (AccelGraph *graph, AccelStage *stage, AccelPortDirection dir,
    const char *name, guint *port, GError **error)
{
  gint idx = accel_stage_find_port (stage, dir, name);
  const char *what = dir == ACCEL_PORT_INPUT ? "input" : "output";
  guint n = dir == ACCEL_PORT_INPUT ? accel_stage_get_n_inputs (stage)
                                    : accel_stage_get_n_outputs (stage);

  if (idx >= 0)
    {
      *port = (guint)idx;
      return TRUE;
    }
  if (n == 0)
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
        "stage '%s' (%s) has no %s ports", accel_stage_get_name (stage),
        accel_stage_get_kind_name (stage), what);
  else if (!name)
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
        "stage '%s' (%s) has %u %s ports: name one, as '%s.%s'",
        accel_stage_get_name (stage), accel_stage_get_kind_name (stage), n,
        what, accel_stage_get_name (stage),
        accel_graph_port_name (stage, dir, 0));
  else
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
        "stage '%s' (%s) has no %s port '%s'", accel_stage_get_name (stage),
        accel_stage_get_kind_name (stage), what, name);
  return FALSE;
}

/**
 * accel_graph_link_ports:
 * @graph: a graph that is not running
 * @src: the producing stage, already added
 * @src_port: (nullable): its output port; %NULL for its only one
 * @dst: the consuming stage, already added
 * @dst_port: (nullable): its input port; %NULL for its only one
 * @error: return location for a #GError, or %NULL
 *
 * An output may feed several inputs (fan-out); an input takes one link.
 * Types are checked by accel_graph_prepare().
 *
 * Returns: %FALSE with %ACCEL_ERROR_INVALID_PIPELINE for a stage not added
 * to @graph, a missing port or an input that is already linked.
 * Called from the thread that builds the graph, before accel_graph_start().
 */
gboolean
accel_graph_link_ports (AccelGraph *graph, AccelStage *src,
    const char *src_port, AccelStage *dst, const char *dst_port, GError **error)
{
  GraphLink link = { src, 0, dst, 0 };

  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), FALSE);
  g_return_val_if_fail (ACCEL_IS_STAGE (src), FALSE);
  g_return_val_if_fail (ACCEL_IS_STAGE (dst), FALSE);
  if (graph->state != GRAPH_NEW)
    return accel_graph_refuse_call (
        graph, "stages are linked before it is prepared", error);

  if (!g_ptr_array_find (graph->stages, src, NULL)
      || !g_ptr_array_find (graph->stages, dst, NULL))
    {
      AccelStage *missing
          = g_ptr_array_find (graph->stages, src, NULL) ? dst : src;
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "stage '%s' (%s) is not in graph '%s': add it before linking it",
          accel_stage_get_name (missing), accel_stage_get_kind_name (missing),
          graph->name);
      return FALSE;
    }
  if (!find_port (
          graph, src, ACCEL_PORT_OUTPUT, src_port, &link.src_port, error)
      || !find_port (
          graph, dst, ACCEL_PORT_INPUT, dst_port, &link.dst_port, error))
    return FALSE;

  for (guint i = 0; i < graph->links->len; i++)
    {
      GraphLink *l = &g_array_index (graph->links, GraphLink, i);
      if (l->dst == dst && l->dst_port == link.dst_port)
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
              "input '%s.%s' is already linked to '%s.%s'",
              accel_stage_get_name (dst),
              accel_graph_port_name (dst, ACCEL_PORT_INPUT, link.dst_port),
              accel_stage_get_name (l->src),
              accel_graph_port_name (l->src, ACCEL_PORT_OUTPUT, l->src_port));
          return FALSE;
        }
    }
  g_array_append_val (graph->links, link);
  return TRUE;
}

static gboolean
split_spec (AccelGraph *graph, const char *spec, AccelStage **stage,
    gchar **port, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (spec, ".", 2);
  /* "" splits into no parts at all */
  const char *name = parts[0] ? parts[0] : "";

  *stage = accel_graph_get_stage (graph, name);
  if (!*stage)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "graph '%s' has no stage named '%s'", graph->name, name);
      return FALSE;
    }
  *port = g_strdup (parts[1]);
  return TRUE;
}

/**
 * accel_graph_link:
 * @graph: a graph that is not running
 * @src: "stage" or "stage.port"
 * @dst: "stage" or "stage.port"
 * @error: return location for a #GError, or %NULL
 *
 * accel_graph_link_ports() by names.
 *
 * Returns: %TRUE on success; %FALSE with %ACCEL_ERROR_INVALID_PIPELINE for
 * an unknown stage or port. Called from the thread that builds the graph,
 * before accel_graph_start().
 */
gboolean
accel_graph_link (
    AccelGraph *graph, const char *src, const char *dst, GError **error)
{
  AccelStage *s, *d;
  g_autofree gchar *sp = NULL, *dp = NULL;

  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), FALSE);
  g_return_val_if_fail (src != NULL, FALSE);
  g_return_val_if_fail (dst != NULL, FALSE);
  if (!split_spec (graph, src, &s, &sp, error)
      || !split_spec (graph, dst, &d, &dp, error))
    return FALSE;
  return accel_graph_link_ports (graph, s, sp, d, dp, error);
}

static void
on_stage_eos (AccelStage *stage, gpointer user_data)
{
  AccelGraph *graph = user_data;

  g_mutex_lock (&graph->lock);
  graph->n_sinks_done++;
  accel_graph_step_sink_ended (graph, stage);
  g_cond_broadcast (&graph->cond);
  g_mutex_unlock (&graph->lock);
}

/* how long a failed graph's wait lets the frames in flight reach its
 * sinks, at most: as long as accel-run's grace after Ctrl-C */
#define DRAIN_US (5 * G_USEC_PER_SEC)

/* whether the graph's first error, @error, lets the frames already handed
 * on reach the sinks: not a hang (the process has to end), nor in a world
 * of several ranks, whose supervisor ends the other ranks (an end of
 * stream sent on would end their streams as if done) */
static gboolean
drains_on (const GError *error)
{
  AccelWorld *world = accel_world_get_default ();

  return !g_error_matches (error, ACCEL_ERROR, ACCEL_ERROR_HUNG)
         && !(world && accel_world_get_size (world) > 1);
}

static void
on_stage_error (AccelStage *stage, const GError *error, gpointer user_data)
{
  AccelGraph *graph = user_data;
  gboolean drain = FALSE;

  g_mutex_lock (&graph->lock);
  if (g_error_matches (error, ACCEL_ERROR, ACCEL_ERROR_HUNG))
    {
      graph->hung = TRUE;
      /* the graph failed already, or stops, and its stop waits for this
       * stage: said, since the graph's error does not say it */
      if (graph->error || graph->stopping)
        g_message ("stage '%s' (%s): %s", accel_stage_get_name (stage),
            accel_stage_get_kind_name (stage), error->message);
    }
  if (!graph->error && !graph->stopping)
    {
      const char *name = accel_stage_get_name (stage);
      g_autofree gchar *prefix = g_strdup_printf ("stage '%s'", name);
      if (g_str_has_prefix (error->message, prefix))
        graph->error = g_error_copy (error);
      else
        graph->error
            = g_error_new (error->domain, error->code, "stage '%s' (%s): %s",
                name, accel_stage_get_kind_name (stage), error->message);
      g_debug ("%s", graph->error->message);
      drain = drains_on (error);
      if (drain)
        graph->drain_until = g_get_monotonic_time () + DRAIN_US;
      /* what waits on the application's behalf stops waiting; a stage
       * that fails while the graph drains ends its consumers' streams */
      for (guint i = 0; i < graph->stages->len; i++)
        {
          accel_stage_set_graph_drains (graph->stages->pdata[i], drain);
          accel_stage_set_graph_failed (graph->stages->pdata[i], TRUE);
        }
    }
  g_cond_broadcast (&graph->cond);
  g_mutex_unlock (&graph->lock);
  /* the sources end their streams where they are, so the graph's other
   * branches finish theirs too */
  if (drain)
    accel_graph_send_eos (graph);
}

static const AccelStageObserver graph_observer = {
  .eos = on_stage_eos,
  .error = on_stage_error,
};

/* whether the calling thread runs one of @graph's stages */
gboolean
accel_graph_on_stage_thread (AccelGraph *graph)
{
  gboolean found = FALSE;

  g_mutex_lock (&graph->lock);
  for (guint i = 0; i < graph->workers->len && !found; i++)
    found = accel_worker_is_current (graph->workers->pdata[i]);
  g_mutex_unlock (&graph->lock);
  return found;
}

/* @call on a stage's thread, which would wait for that stage: refused,
 * as accel_graph_refuse_call () does. Returns %FALSE */
gboolean
accel_graph_refuse_stage_thread (
    AccelGraph *graph, const char *call, GError **error)
{
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
      "graph '%s': %s on a thread of its stages would wait for that stage "
      "for good; call it from another thread",
      graph->name, call);
  return FALSE;
}

/* drops the workers, which ends their threads, outside the lock: a stage
 * may take it until its thread ends */
static void
drop_workers (AccelGraph *graph)
{
  g_autoptr (GPtrArray) workers = NULL;

  g_mutex_lock (&graph->lock);
  workers = g_steal_pointer (&graph->workers);
  graph->workers
      = g_ptr_array_new_with_free_func ((GDestroyNotify)accel_worker_unref);
  g_mutex_unlock (&graph->lock);
}

/* the thread of the stage's segment (@by_segment, by its first stage),
 * the one shared under its thread name (@by_name), or a thread of its own.
 * Apart, so that a thread named as a segment's first stage is not that
 * segment's. %NULL with @error when no thread can be made */
static AccelWorker *
worker_for (AccelGraph *graph, GHashTable *by_segment, GHashTable *by_name,
    AccelStage *stage, GError **error)
{
  AccelStage *segment = accel_stage_get_segment (stage);
  const char *name = accel_stage_get_thread_name (stage);
  GHashTable *table = segment ? by_segment : name ? by_name : NULL;
  gpointer key = segment ? (gpointer)segment : (gpointer)name;
  AccelWorker *worker = table ? g_hash_table_lookup (table, key) : NULL;

  if (!worker)
    {
      worker = accel_worker_new (segment ? accel_stage_get_name (segment)
                                 : name  ? name
                                         : accel_stage_get_name (stage),
          error);
      if (!worker)
        return NULL;
      g_mutex_lock (&graph->lock);
      g_ptr_array_add (graph->workers, worker);
      g_mutex_unlock (&graph->lock);
      if (table)
        g_hash_table_insert (table, key, worker);
    }
  return worker;
}

/* a stop came while the graph started (accel_graph_stop () from another
 * thread, accel-run's Ctrl-C): no stage starts after it, nor is a state
 * directory's fingerprint kept */
gboolean
accel_graph_start_was_stopped (AccelGraph *graph, GError **error)
{
  if (!g_atomic_int_get (&graph->start_stopped))
    return FALSE;
  if (error && !*error)
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED,
        "graph '%s' was stopped as it started", graph->name);
  return TRUE;
}

/* every stage's start(): one by one in the graph's order, then those that
 * wait for other processes all at once (accel_stage_class_set_start_
 * waits ()), so that processes whose graphs start them in different orders
 * do not each wait for the other's next. On failure the stages started are
 * stopped again */
static gboolean
start_stages (AccelGraph *graph, GHashTable *by_segment, GHashTable *by_name,
    AccelStreamAllocator *streams, GError **error)
{
  g_autofree gboolean *started = g_new0 (gboolean, graph->order->len);
  g_autofree gboolean *begun = g_new0 (gboolean, graph->order->len);
  gboolean ok = TRUE;
  AccelWorker *worker;

  /* two that wait on one named thread were refused as the graph was
   * prepared (accel_graph_check_threads ()) */
  for (guint i = 0; ok && i < graph->order->len; i++)
    {
      AccelStage *stage = graph->order->pdata[i];
      if (accel_stage_start_waits (stage))
        continue;
      if (accel_graph_start_was_stopped (graph, error))
        {
          ok = FALSE;
          break;
        }
      worker = worker_for (graph, by_segment, by_name, stage, error);
      ok = started[i]
          = worker && accel_stage_start (stage, worker, streams, error);
    }
  for (guint i = 0; ok && i < graph->order->len; i++)
    {
      AccelStage *stage = graph->order->pdata[i];
      if (!accel_stage_start_waits (stage))
        continue;
      if (accel_graph_start_was_stopped (graph, error))
        break;
      worker = worker_for (graph, by_segment, by_name, stage, error);
      /* those begun are waited for below */
      if (!(begun[i] = worker != NULL))
        break;
      accel_stage_start_begin (stage, worker, streams);
    }
  for (guint i = 0; i < graph->order->len; i++)
    {
      AccelStage *stage = graph->order->pdata[i];
      g_autoptr (GError) start_error = NULL;

      if (!begun[i])
        continue;
      started[i] = accel_stage_start_end (stage, &start_error);
      if (!started[i] && error && !*error)
        g_propagate_error (error, g_steal_pointer (&start_error));
    }
  for (guint i = 0; i < graph->order->len; i++)
    ok &= started[i];
  /* a stage that started all the same, its wait stopped or none */
  if (ok && accel_graph_start_was_stopped (graph, error))
    ok = FALSE;
  if (ok)
    return TRUE;
  for (guint i = 0; i < graph->order->len; i++)
    if (started[i])
      accel_stage_close (graph->order->pdata[i]);
  for (guint i = 0; i < graph->order->len; i++)
    if (started[i])
      accel_stage_join (graph->order->pdata[i]);
  return FALSE;
}

/* a note for the graph's start, once however often it starts */
static void
add_note (AccelGraph *graph, gchar *note)
{
  if (g_ptr_array_find_with_equal_func (graph->notes, note, g_str_equal, NULL))
    g_free (note);
  else
    g_ptr_array_add (graph->notes, note);
}

/* a fault scheduled for a stage the graph does not have never fires, and a
 * hang in a stage without a deadline fails nothing: a misspelt ACCEL_FAULT
 * would test nothing, and say nothing */
static void
note_faults_without_effect (AccelGraph *graph)
{
  g_auto (GStrv) stages = accel_fault_dup_stages ();
  AccelWorld *world = accel_world_get_default ();

  /* the ranks of a world run parts of one pipeline: a stage may be
   * another rank's */
  if (world && accel_world_get_size (world) > 1)
    return;
  for (guint i = 0; stages[i]; i++)
    {
      AccelStage *stage = accel_graph_get_stage (graph, stages[i]);
      gint64 deadline_ms = 0;

      if (stage)
        g_object_get (stage, "deadline", &deadline_ms, NULL);
      if (!stage)
        add_note (graph,
            g_strdup_printf ("a fault is scheduled for stage '%s', which "
                             "graph '%s' does not have: it never fires here",
                stages[i], graph->name));
      else if (deadline_ms == 0 && accel_fault_has_hang (stages[i]))
        add_note (graph,
            g_strdup_printf ("a hang is scheduled for stage '%s', which has "
                             "no deadline: its frame is only delayed by 1 s, "
                             "and nothing fails",
                stages[i]));
    }
}

/* the graph cannot start: what waits on the application's behalf (a pull
 * from a sink, a push into a source's full queue) stops waiting, until
 * the next start. Before the stages started it waited for good */
static gboolean
fail_start (AccelGraph *graph)
{
  for (guint i = 0; i < graph->stages->len; i++)
    accel_stage_set_graph_failed (graph->stages->pdata[i], TRUE);
  g_mutex_lock (&graph->stop_lock);
  graph->starting = FALSE;
  g_mutex_unlock (&graph->stop_lock);
  return FALSE;
}

/**
 * accel_graph_start:
 * @graph: a graph
 * @error: return location for a #GError, or %NULL
 *
 * Prepares the graph if needed, starts every stage's thread (each runs its
 * start() there), then lets the sources produce.
 *
 * Returns: %FALSE when a stage could not start; the graph is stopped again,
 * and counts as failed for its stages until it starts again
 * (accel_stage_graph_has_failed ()). Called from the thread that builds
 * the graph.
 */
gboolean
accel_graph_start (AccelGraph *graph, GError **error)
{
  g_autoptr (AccelStreamAllocator) streams = NULL;
  g_autoptr (GHashTable) by_segment = g_hash_table_new (NULL, NULL);
  g_autoptr (GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);
  AccelStageObserver observer;
  AccelStageWatchdog *watchdog;
  gboolean one_stream;

  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), FALSE);

  g_mutex_lock (&graph->stop_lock);
  if (graph->state == GRAPH_RUNNING)
    {
      g_mutex_unlock (&graph->stop_lock);
      return accel_graph_refuse_call (graph, "it is started once", error);
    }
  /* two threads that start one graph would prepare it together */
  if (graph->starting)
    {
      g_mutex_unlock (&graph->stop_lock);
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "graph '%s' is being started on another thread: it is started "
          "once",
          graph->name);
      return FALSE;
    }
  graph->starting = TRUE;
  g_atomic_int_set (&graph->start_stopped, FALSE);
  for (guint i = 0; i < graph->stages->len; i++)
    accel_stage_interrupt_start (graph->stages->pdata[i], FALSE);
  g_mutex_unlock (&graph->stop_lock);
  accel_fault_init_from_env ();
  /* each run counts its own frames, faults and restarts */
  for (guint i = 0; i < graph->stages->len; i++)
    {
      AccelStage *stage = graph->stages->pdata[i];

      accel_stage_reset_stats (stage);
      accel_stage_supervisor_reset (
          &accel_stage_get_private (stage)->supervisor);
    }
  if (graph->state == GRAPH_STOPPED)
    graph->state = GRAPH_PREPARED;
  /* a graph prepared before counts its descriptors again against what is
   * open now: other graphs may have started since */
  if (graph->state != GRAPH_NEW
      && !accel_graph_check_descriptors (graph, error))
    return fail_start (graph);
  if (!accel_graph_prepare (graph, error))
    return fail_start (graph);
  /* what an earlier start noted (where it resumed) is not this one's */
  g_ptr_array_set_size (graph->notes, graph->n_prepare_notes);
  if (graph->state_dir && !accel_state_dir_open (graph, error))
    return fail_start (graph);

  note_faults_without_effect (graph);
  accel_graph_partition (graph);
  g_mutex_lock (&graph->lock);
  graph->n_sinks_done = 0;
  graph->hung = FALSE;
  graph->stopping = FALSE;
  graph->drain_until = 0;
  g_clear_error (&graph->error);
  g_mutex_unlock (&graph->lock);

  observer = graph_observer;
  accel_graph_observe_steps (graph, &observer);
  streams = accel_stream_allocator_new (graph->stream_policy, graph->n_streams);
  one_stream = graph->stream_policy == ACCEL_STREAM_POLICY_SINGLE;
  for (guint i = 1; i < graph->order->len; i++)
    one_stream &= accel_stage_get_device (graph->order->pdata[i])
                  == accel_stage_get_device (graph->order->pdata[0]);

  for (guint i = 0; i < graph->order->len; i++)
    {
      AccelStage *stage = graph->order->pdata[i];
      accel_stage_set_observer (stage, &observer, graph);
      accel_stage_set_stepped (stage, graph->stepped);
      accel_stage_set_one_stream (stage, one_stream);
      accel_stage_set_frame_limit (stage,
          accel_stage_is_remote_source (stage) ? -1 : graph->frame_limit);
      accel_stage_set_graph_failed (stage, FALSE);
      accel_stage_set_graph_ending (stage, FALSE);
      accel_stage_set_graph_drains (stage, FALSE);
    }
  /* made first: a thread it cannot have fails the start, not the run */
  watchdog
      = accel_stage_watchdog_start (graph->order, on_stage_error, graph, error);
  if (!watchdog)
    return fail_start (graph);
  if (!start_stages (graph, by_segment, by_name, streams, error))
    {
      accel_stage_watchdog_stop (watchdog);
      drop_workers (graph);
      return fail_start (graph);
    }
  /* a stop from another thread comes before the graph runs (and fails
   * the start: start_was_stopped ()) or after its stages began: between
   * the two it closed the stages that begin then, on no thread */
  g_mutex_lock (&graph->stop_lock);
  graph->starting = FALSE;
  /* stopped once every stage had started: they stop again, unbegun */
  if (accel_graph_start_was_stopped (graph, error))
    {
      for (guint i = 0; i < graph->order->len; i++)
        accel_stage_close (graph->order->pdata[i]);
      for (guint i = 0; i < graph->order->len; i++)
        accel_stage_join (graph->order->pdata[i]);
      g_mutex_unlock (&graph->stop_lock);
      accel_stage_watchdog_stop (watchdog);
      drop_workers (graph);
      return fail_start (graph);
    }
  graph->state = GRAPH_RUNNING;
  graph->watchdog = watchdog;
  for (guint i = 0; i < graph->order->len; i++)
    accel_stage_begin (graph->order->pdata[i]);
  g_mutex_unlock (&graph->stop_lock);
  return TRUE;
}

/* whether the failed graph still lets the frames in flight reach its
 * sinks: until each has ended its stream or failed, a stage hangs, or the
 * drain's time runs out (said, with the sinks it cuts short). Under the
 * graph's lock */
static gboolean
drains (AccelGraph *graph)
{
  gint64 now = g_get_monotonic_time ();
  g_autoptr (GString) waiting = NULL;
  guint n_failed = 0;

  for (guint i = 0; i < graph->order->len; i++)
    n_failed
        += accel_stage_ends_a_branch (graph->order->pdata[i])
           && g_str_equal (
               accel_stage_get_state_name (graph->order->pdata[i]), "failed");
  if (graph->drain_until == 0 || graph->hung
      || graph->n_sinks_done + n_failed >= graph->n_sinks)
    return FALSE;
  if (now < graph->drain_until)
    return TRUE;
  waiting = g_string_new (NULL);
  for (guint i = 0; i < graph->order->len; i++)
    {
      AccelStage *stage = graph->order->pdata[i];
      if (accel_stage_ends_a_branch (stage)
          && g_str_equal (accel_stage_get_state_name (stage), "running"))
        g_string_append_printf (waiting, "%s'%s'", waiting->len ? ", " : "",
            accel_stage_get_name (stage));
    }
  g_message ("graph '%s' failed, and after %d s %s had not finished the "
             "frames in flight: they are lost",
      graph->name, (int)(DRAIN_US / G_USEC_PER_SEC),
      waiting->len ? waiting->str : "its sinks");
  graph->drain_until = 0;
  return FALSE;
}

/**
 * accel_graph_wait:
 * @graph: a graph that was started (running, or stopped since)
 * @timeout_us: how long to wait, or -1 for as long as it takes
 * @error: return location for a #GError, or %NULL
 *
 * Waits until every sink has seen end of stream (and its GPU work is done),
 * a stage fails or the graph is stopped (accel_graph_stop() from another
 * thread wakes it up at once). A graph that was never started fails at
 * once (%ACCEL_ERROR_FAILED, saying so): nothing would ever end the wait.
 *
 * After a stage's fault escalated, the sources end their streams and the
 * stages downstream of the failed one finish the frames it handed them:
 * the wait returns the error once every sink has ended or failed, at most
 * 5 s later (said on stderr, naming the sinks cut short), and at once
 * after a hang or in a world of several ranks. Its sinks then hold every
 * frame before the one that failed. A @timeout_us that runs out first
 * gives %ACCEL_ERROR_TIMEOUT, its message the graph's error and then the
 * wait's: a later wait returns the error once the drain is over.
 *
 * A stage's own faults keep their codes (a missed deadline is
 * %ACCEL_ERROR_DEADLINE, a pool that timed out %ACCEL_ERROR_TIMEOUT) and
 * their messages name the stage. To tell a stage's %ACCEL_ERROR_TIMEOUT from
 * this wait's own, wait with -1 on a thread of its own, as accel-run does:
 * accel_graph_stop() ends that wait too.
 *
 * Returns: %TRUE at end of stream; %FALSE with the first stage error, with
 * %ACCEL_ERROR_STOPPED when the graph was stopped before its end, with
 * %ACCEL_ERROR_TIMEOUT when @timeout_us ran out (naming each stage the
 * program feeds or drains, an io.app-sink say, that waits for it), or with
 * %ACCEL_ERROR_FAILED on one of its stages' threads (whose stage it would
 * hold up for good). MT safe.
 */
gboolean
accel_graph_wait (AccelGraph *graph, gint64 timeout_us, GError **error)
{
  gint64 deadline = accel_deadline_after (timeout_us);
  gboolean ok = TRUE;

  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), FALSE);
  if (graph->state != GRAPH_RUNNING && graph->state != GRAPH_STOPPED)
    return accel_graph_refuse_call (
        graph, "a wait needs it started (accel_graph_start)", error);
  if (accel_graph_on_stage_thread (graph))
    return accel_graph_refuse_stage_thread (graph, "a wait", error);

  g_mutex_lock (&graph->lock);
  while (
      !graph->stopping
      && (graph->error ? drains (graph) : graph->n_sinks_done < graph->n_sinks))
    {
      if (graph->error && (deadline < 0 || deadline > graph->drain_until))
        {
          g_cond_wait_until (&graph->cond, &graph->lock, graph->drain_until);
        }
      else if (deadline < 0)
        {
          g_cond_wait (&graph->cond, &graph->lock);
        }
      else if (!g_cond_wait_until (&graph->cond, &graph->lock, deadline))
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT,
              "graph '%s' %s within %" G_GINT64_FORMAT " ms", graph->name,
              graph->error ? "failed, and its sinks did not finish the "
                             "frames in flight"
                           : "did not finish",
              timeout_us / 1000);
          if (error && graph->error)
            g_prefix_error (error, "%s; ", graph->error->message);
          else if (error)
            accel_graph_append_app_waits (graph, *error);
          ok = FALSE;
          break;
        }
    }
  if (ok && graph->error)
    {
      g_propagate_error (error, g_error_copy (graph->error));
      ok = FALSE;
    }
  else if (ok && graph->n_sinks_done < graph->n_sinks)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED,
          "graph '%s' was stopped before its end", graph->name);
      ok = FALSE;
    }
  g_mutex_unlock (&graph->lock);
  return ok;
}

/* one line for @stage's frames that reached no output after faults, or
 * NULL when there were none; adds its counts to @skipped and @lost */
static gchar *
describe_incomplete (AccelStage *st, guint64 *skipped, guint64 *lost)
{
  guint64 s = accel_stage_get_n_skipped (st), l = accel_stage_get_n_lost (st);
  GString *line;
  g_autofree gchar *fault = NULL;

  if (s + l == 0)
    return NULL;
  line = g_string_new (NULL);
  g_string_printf (line, "stage '%s' (%s)", accel_stage_get_name (st),
      accel_stage_get_kind_name (st));
  if (s > 0)
    g_string_append_printf (line,
        " skipped %" G_GUINT64_FORMAT
        " frame%s after faults (%" G_GUINT64_FORMAT " restarts)%s",
        s, s == 1 ? "" : "s", accel_stage_get_n_restarts (st),
        l > 0 ? " and" : "");
  if (l > 0)
    g_string_append_printf (line, " lost %" G_GUINT64_FORMAT " frame%s %s", l,
        l == 1 ? "" : "s",
        accel_stage_get_stage_kind (st) == ACCEL_STAGE_SINK
            ? "on their way out when its output failed"
            : "a restart could not produce again");
  /* the counts alone do not say why */
  if (s > 0 && (fault = accel_stage_dup_first_fault (st)))
    g_string_append_printf (line, "; the first: %s", fault);
  /* nor that a stateful stage's later frames are not a clean run's */
  if (s > 0 && accel_stage_carries_state (st))
    g_string_append (line, "; it carries state from frame to frame, so its "
                           "frames after the fault differ from a run "
                           "without it");
  *skipped += s;
  *lost += l;
  return g_string_free (line, FALSE);
}

/**
 * accel_graph_check_complete:
 * @graph: a graph that ran (at its end, or stopped since)
 * @error: return location for a #GError, or %NULL
 *
 * Whether the graph's last run handed every frame on. A stage's
 * supervision may go on past a fault: on-fault resume or stop skips the
 * frame, an out-of-memory frame is skipped after its retry, and a sink
 * whose output failed loses the frames on their way out. The run then
 * reaches its end, and accel_graph_run () and accel_graph_wait () return
 * %TRUE, as the strategies asked; this says what was left out (accel-run's
 * exit status 3).
 *
 * Returns: %TRUE when no stage skipped or lost a frame and the run did
 * not fail; %FALSE with %ACCEL_ERROR_INCOMPLETE, whose message has a line
 * for each stage that did (its counts and its first fault), a line with
 * the totals, and for a run that failed a last line with its error (it
 * said %TRUE, though the frames the failure held reached no sink).
 * MT safe.
 */
gboolean
accel_graph_check_complete (AccelGraph *graph, GError **error)
{
  g_autoptr (GString) lines = g_string_new (NULL);
  g_autofree gchar *failed = NULL;
  guint64 skipped = 0, lost = 0;

  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), FALSE);
  for (guint i = 0; i < graph->stages->len; i++)
    {
      g_autofree gchar *line
          = describe_incomplete (graph->stages->pdata[i], &skipped, &lost);

      if (line)
        g_string_append_printf (lines, "%s\n", line);
    }
  g_mutex_lock (&graph->lock);
  failed = graph->error ? g_strdup (graph->error->message) : NULL;
  g_mutex_unlock (&graph->lock);
  if (skipped + lost == 0 && !failed)
    return TRUE;
  if (skipped + lost > 0)
    g_string_append_printf (lines,
        "the run ended without every frame: %" G_GUINT64_FORMAT
        " skipped, %" G_GUINT64_FORMAT " lost\n",
        skipped, lost);
  /* what the failed stage and those after it still held reached no sink,
   * counted nowhere */
  if (failed)
    g_string_append_printf (
        lines, "the run failed before its end: %s\n", failed);
  g_string_truncate (lines, lines->len - 1);
  g_set_error_literal (error, ACCEL_ERROR, ACCEL_ERROR_INCOMPLETE, lines->str);
  return FALSE;
}

/**
 * accel_graph_is_hung:
 * @graph: a graph
 *
 * Whether a stage's frame ran past its watchdog since the graph started
 * (%ACCEL_ERROR_HUNG, which is the graph's error unless another came
 * first): accel_graph_stop() waits for that frame, which may never
 * return, so a process that cannot wait ends without it.
 *
 * Returns: %TRUE when a stage hung. MT safe.
 */
gboolean
accel_graph_is_hung (AccelGraph *graph)
{
  gboolean hung;

  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), FALSE);
  g_mutex_lock (&graph->lock);
  hung = graph->hung;
  g_mutex_unlock (&graph->lock);
  return hung;
}

/* a start under way on another thread fails, and a stage's start () that
 * waits (for a FIFO's reader) stops waiting. Under stop_lock */
static void
interrupt_start_locked (AccelGraph *graph)
{
  if (!graph->starting)
    return;
  g_atomic_int_set (&graph->start_stopped, TRUE);
  /* the stages, not the order: that is being made as the graph prepares */
  for (guint i = 0; i < graph->stages->len; i++)
    accel_stage_interrupt_start (graph->stages->pdata[i], TRUE);
}

/**
 * accel_graph_interrupt_start:
 * @graph: a graph
 *
 * Makes the accel_graph_start () that runs on another thread fail with
 * %ACCEL_ERROR_STOPPED, at once where a stage waits in its start () (for
 * a FIFO's reader: it waited up to its start-timeout), else as the next
 * stage would start; the stages started stop again. Does nothing while no
 * start runs: a graph that runs goes on (accel_graph_stop () stops it).
 * For a Ctrl-C that comes while the graph starts. MT safe; returns at
 * once.
 */
void
accel_graph_interrupt_start (AccelGraph *graph)
{
  g_return_if_fail (ACCEL_IS_GRAPH (graph));
  g_mutex_lock (&graph->stop_lock);
  if (graph->state != GRAPH_RUNNING)
    interrupt_start_locked (graph);
  g_mutex_unlock (&graph->stop_lock);
}

/**
 * accel_graph_stop:
 * @graph: a graph
 *
 * Stops every stage at once, wherever the data is: queued buffers are
 * dropped, blocked producers wake up, each thread waits for its stream and
 * ends; a thread blocked in accel_graph_wait() returns. Safe to call in any
 * state and more than once, and from any thread but a stage's: a stop
 * while another is under way (accel_graph_run () stops the graph it ran
 * when another thread stopped it) waits for that one to end; one while
 * accel_graph_start () runs on another thread makes that start fail with
 * %ACCEL_ERROR_STOPPED (a stage waiting in its start () for a FIFO's
 * reader stops waiting) and returns at once; one before any start does
 * nothing. It waits for every stage's thread, so on one it is a
 * programming error (a critical, and nothing is stopped). MT safe.
 */
void
accel_graph_stop (AccelGraph *graph)
{
  g_return_if_fail (ACCEL_IS_GRAPH (graph));
  g_return_if_fail (!accel_graph_on_stage_thread (graph));

  g_mutex_lock (&graph->stop_lock);
  if (graph->state != GRAPH_RUNNING)
    {
      interrupt_start_locked (graph);
      g_mutex_unlock (&graph->stop_lock);
      return;
    }
  g_mutex_lock (&graph->lock);
  graph->stopping = TRUE;
  g_cond_broadcast (&graph->cond);
  g_mutex_unlock (&graph->lock);

  for (guint i = 0; i < graph->order->len; i++)
    accel_stage_close (graph->order->pdata[i]);
  /* the watchdog names a stage whose frame holds the stop */
  for (guint i = 0; i < graph->order->len; i++)
    accel_stage_join (graph->order->pdata[i]);
  g_clear_pointer (&graph->watchdog, accel_stage_watchdog_stop);
  /* the last reference ends each thread */
  drop_workers (graph);
  graph->state = GRAPH_STOPPED;
  g_mutex_unlock (&graph->stop_lock);
}

/**
 * accel_graph_set_state_dir:
 * @graph: a graph that is not running
 * @dir: (nullable): a directory for the graph's state, or %NULL for none
 * @commit_interval_us: how often commit logs reach the disk (fsync)
 *
 * With a state directory, every sink keeps a commit log there
 * (`<sink>.commits`) of the sequence numbers it finished. When the graph
 * starts again (in this process or a new one), sources resume from the
 * first sequence number some sink has not committed, and sinks skip what
 * they committed: no input is lost and no output is written twice, as long
 * as the sources can replay.
 *
 * Called from the thread that builds the graph, before accel_graph_start().
 */
void
accel_graph_set_state_dir (
    AccelGraph *graph, const char *dir, gint64 commit_interval_us)
{
  g_return_if_fail (ACCEL_IS_GRAPH (graph));
  g_return_if_fail (graph->state != GRAPH_RUNNING);
  g_free (graph->state_dir);
  graph->state_dir = g_strdup (dir);
  graph->commit_interval_us = commit_interval_us;
}

/**
 * accel_graph_send_eos:
 * @graph: a running graph
 *
 * Ends the stream at every source: each stops producing and sends end of
 * stream, which flows through the graph so every sink finishes its work
 * (files are finalised); accel_graph_wait() then returns. For a graceful
 * stop, as on Ctrl-C. MT safe.
 */
void
accel_graph_send_eos (AccelGraph *graph)
{
  g_return_if_fail (ACCEL_IS_GRAPH (graph));
  if (graph->state != GRAPH_RUNNING)
    return;
  for (guint i = 0; i < graph->order->len; i++)
    accel_stage_set_graph_ending (graph->order->pdata[i], TRUE);
  for (guint i = 0; i < graph->order->len; i++)
    {
      AccelStage *stage = graph->order->pdata[i];
      if (accel_stage_get_n_inputs (stage) == 0)
        accel_stage_send_eos (stage);
    }
}

/**
 * accel_graph_set_frame_limit:
 * @graph: a graph that is not running
 * @n_frames: frames each source produces before end of stream, or -1; a
 *   source of another graph's frames (nccl.recv) ends where that graph's
 *   stream ends instead
 *
 * Called from the thread that builds the graph, before accel_graph_start().
 */
void
accel_graph_set_frame_limit (AccelGraph *graph, gint64 n_frames)
{
  g_return_if_fail (ACCEL_IS_GRAPH (graph));
  g_return_if_fail (graph->state != GRAPH_RUNNING);
  graph->frame_limit = n_frames;
}

/* how long accel_graph_run () lets a stage wait for the program before
 * it says so */
#define RUN_APP_WAIT_NOTICE_US (10 * G_USEC_PER_SEC)

/* accel_graph_wait (-1) for accel_graph_run (), which says once when a
 * stage the program feeds or drains has waited for it long: the thread
 * that runs the graph cannot pull or push, and an io.app-sink of more
 * frames than it holds held the run for good, silently. Another thread
 * may still, so the run waits on */
static gboolean
wait_run (AccelGraph *graph, GError **error)
{
  gboolean said = FALSE;

  for (;;)
    {
      GError *local = NULL;
      g_autoptr (GString) says = NULL;
      gboolean timed_out;

      if (accel_graph_wait (graph, said ? -1 : G_USEC_PER_SEC, &local))
        return TRUE;
      g_mutex_lock (&graph->lock);
      /* the wait's own timeout, the drain's too, not a stage's */
      timed_out = g_error_matches (local, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT)
                  && !graph->stopping
                  && !(graph->error
                       && g_str_equal (local->message, graph->error->message));
      g_mutex_unlock (&graph->lock);
      if (!timed_out)
        {
          g_propagate_error (error, local);
          return FALSE;
        }
      g_error_free (local);
      says = describe_app_waits (graph, RUN_APP_WAIT_NOTICE_US);
      if (says->len == 0)
        continue;
      g_warning ("graph '%s': %s, for over %d s; accel_graph_run () holds "
                 "the thread that called it: another thread, or a "
                 "new-buffer handler, must do it",
          graph->name, says->str + strlen ("; "),
          (int)(RUN_APP_WAIT_NOTICE_US / G_USEC_PER_SEC));
      said = TRUE;
    }
}

/**
 * accel_graph_run:
 * @graph: a graph
 * @error: return location for a #GError, or %NULL
 *
 * Starts the graph, waits for end of stream or the first error, and stops.
 * A stepped graph is refused: its steps come from the thread this would
 * block for good. A stage the program feeds or drains (io.app-source,
 * io.app-sink) is fed or drained from another thread, or from its
 * signals: nothing else ends its stream. One that has waited for the
 * program for 10 s is named in a warning, once (the run waits on: another
 * thread may still come).
 *
 * Returns: %TRUE when every sink reached end of stream. Called from the
 * thread that builds the graph, which it blocks until the graph stops.
 */
gboolean
accel_graph_run (AccelGraph *graph, GError **error)
{
  gboolean ok;

  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), FALSE);
  if (graph->stepped)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "graph '%s' is stepped: run it with accel_graph_start () and "
          "accel_graph_step (), or set it unstepped",
          graph->name);
      return FALSE;
    }
  if (!accel_graph_start (graph, error))
    return FALSE;
  ok = wait_run (graph, error);
  accel_graph_stop (graph);
  return ok;
}
