/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the graph: links, validation and type negotiation, run and stop */
#define G_LOG_DOMAIN "accel-graph"

#include "accel-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>

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
  GPtrArray *stages; /* AccelStage*, owned */
  GArray *links;     /* GraphLink, as the user made them */
  GArray *wiring;    /* GraphLink, with inserted copies */
  GPtrArray *order;  /* AccelStage*, topological */
  GPtrArray *notes;  /* gchar*, what prepare() decided */
  GraphState state;
  gint64 frame_limit;
  gchar *state_dir;
  gint64 commit_interval_us;

  GPtrArray *workers; /* AccelWorker*, while running */

  GMutex lock;
  GCond cond;
  guint n_sinks;
  guint n_sinks_done;
  GError *error;
  gboolean stopping;
};

G_DEFINE_FINAL_TYPE (AccelGraph, accel_graph, G_TYPE_OBJECT)

static gboolean open_commit_logs (AccelGraph *graph, GError **error);

static void
accel_graph_dispose (GObject *object)
{
  AccelGraph *self = ACCEL_GRAPH (object);

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
  g_ptr_array_unref (self->stages);
  g_array_unref (self->links);
  g_array_unref (self->wiring);
  g_clear_pointer (&self->order, g_ptr_array_unref);
  g_ptr_array_unref (self->notes);
  g_ptr_array_unref (self->workers);
  g_clear_error (&self->error);
  g_mutex_clear (&self->lock);
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
  self->commit_interval_us = 100 * 1000;
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
}

/**
 * accel_graph_new:
 * @name: (nullable): a name for messages
 *
 * Returns: (transfer full): an empty graph on the default device.
 */
AccelGraph *
accel_graph_new (const char *name)
{
  AccelGraph *self = g_object_new (ACCEL_TYPE_GRAPH, NULL);

  self->name = g_strdup (name ? name : "graph");
  return self;
}

const char *
accel_graph_get_name (AccelGraph *graph)
{
  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), NULL);
  return graph->name;
}

/**
 * accel_graph_set_device:
 * @graph: a graph that is not running
 * @device: (nullable): device for stages that name none; %NULL: the default
 */
void
accel_graph_set_device (AccelGraph *graph, AccelDevice *device)
{
  g_return_if_fail (ACCEL_IS_GRAPH (graph));
  g_set_object (&graph->device, device);
}

/**
 * accel_graph_get_device:
 * @graph: a graph
 *
 * Returns: (transfer none): the device of stages that name none.
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
 */
void
accel_graph_set_stream_policy (
    AccelGraph *graph, AccelStreamPolicy policy, guint n_streams)
{
  g_return_if_fail (ACCEL_IS_GRAPH (graph));
  graph->stream_policy = policy;
  graph->n_streams = MAX (n_streams, 1);
}

/**
 * accel_graph_add:
 * @graph: a graph that is not running
 * @stage: (transfer none): a stage; the graph takes a reference
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %FALSE when a stage of the same name is already there.
 */
gboolean
accel_graph_add (AccelGraph *graph, AccelStage *stage, GError **error)
{
  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), FALSE);
  g_return_val_if_fail (ACCEL_IS_STAGE (stage), FALSE);
  g_return_val_if_fail (graph->state == GRAPH_NEW, FALSE);

  if (accel_graph_get_stage (graph, accel_stage_get_name (stage)))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "graph '%s' already has a stage named '%s'", graph->name,
          accel_stage_get_name (stage));
      return FALSE;
    }
  g_ptr_array_add (graph->stages, g_object_ref (stage));
  return TRUE;
}

/**
 * accel_graph_get_stage:
 * @graph: a graph
 * @name: a stage name
 *
 * Returns: (transfer none) (nullable): the stage called @name.
 */
AccelStage *
accel_graph_get_stage (AccelGraph *graph, const char *name)
{
  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), NULL);
  for (guint i = 0; i < graph->stages->len; i++)
    if (g_strcmp0 (accel_stage_get_name (graph->stages->pdata[i]), name) == 0)
      return graph->stages->pdata[i];
  return NULL;
}

/**
 * accel_graph_get_stages:
 * @graph: a graph
 *
 * Returns: (transfer none) (element-type AccelStage): the stages, in the
 * order they run once prepared (inserted copies included), else as added.
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
 * Returns: (transfer none) (element-type utf8): what preparing decided on
 * the user's behalf, such as inserted copies.
 */
GPtrArray *
accel_graph_get_notes (AccelGraph *graph)
{
  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), NULL);
  return graph->notes;
}

static const char *
port_name (AccelStage *stage, AccelPortDirection dir, guint port)
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
        what, accel_stage_get_name (stage), port_name (stage, dir, 0));
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
 * Returns: %FALSE with %ACCEL_ERROR_INVALID_PIPELINE for a missing port or
 * an input that is already linked.
 */
gboolean
accel_graph_link_ports (AccelGraph *graph, AccelStage *src,
    const char *src_port, AccelStage *dst, const char *dst_port, GError **error)
{
  GraphLink link = { src, 0, dst, 0 };

  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), FALSE);
  g_return_val_if_fail (graph->state == GRAPH_NEW, FALSE);

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
              port_name (dst, ACCEL_PORT_INPUT, link.dst_port),
              accel_stage_get_name (l->src),
              port_name (l->src, ACCEL_PORT_OUTPUT, l->src_port));
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

  *stage = accel_graph_get_stage (graph, parts[0]);
  if (!*stage)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "graph '%s' has no stage named '%s'", graph->name, parts[0]);
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
 * Returns: %TRUE on success.
 */
gboolean
accel_graph_link (
    AccelGraph *graph, const char *src, const char *dst, GError **error)
{
  AccelStage *s, *d;
  g_autofree gchar *sp = NULL, *dp = NULL;

  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), FALSE);
  if (!split_spec (graph, src, &s, &sp, error)
      || !split_spec (graph, dst, &d, &dp, error))
    return FALSE;
  return accel_graph_link_ports (graph, s, sp, d, dp, error);
}

/* topological order of the user's stages; FALSE names a cycle */
static gboolean
sort_stages (AccelGraph *graph, GPtrArray *order, GError **error)
{
  guint n = graph->stages->len;
  g_autofree guint *indeg = g_new0 (guint, n);
  GQueue ready = G_QUEUE_INIT;

  for (guint l = 0; l < graph->links->len; l++)
    {
      GraphLink *link = &g_array_index (graph->links, GraphLink, l);
      guint d;
      g_ptr_array_find (graph->stages, link->dst, &d);
      indeg[d]++;
    }
  for (guint i = 0; i < n; i++)
    if (indeg[i] == 0)
      g_queue_push_tail (&ready, graph->stages->pdata[i]);

  while (!g_queue_is_empty (&ready))
    {
      AccelStage *s = g_queue_pop_head (&ready);
      g_ptr_array_add (order, s);
      for (guint l = 0; l < graph->links->len; l++)
        {
          GraphLink *link = &g_array_index (graph->links, GraphLink, l);
          guint d;
          if (link->src != s)
            continue;
          g_ptr_array_find (graph->stages, link->dst, &d);
          if (--indeg[d] == 0)
            g_queue_push_tail (&ready, link->dst);
        }
    }

  if (order->len < n)
    {
      GString *names = g_string_new (NULL);
      gboolean trimmed = TRUE;
      /* what is left are cycles and what hangs below them: peel off the
       * stages that feed nothing left, so the message names the cycle */
      while (trimmed)
        {
          trimmed = FALSE;
          for (guint i = 0; i < n; i++)
            {
              gboolean feeds = FALSE;
              if (indeg[i] == 0)
                continue;
              for (guint l = 0; l < graph->links->len && !feeds; l++)
                {
                  GraphLink *link = &g_array_index (graph->links, GraphLink, l);
                  guint d;
                  g_ptr_array_find (graph->stages, link->dst, &d);
                  feeds = link->src == graph->stages->pdata[i] && indeg[d] > 0;
                }
              if (!feeds)
                {
                  indeg[i] = 0;
                  trimmed = TRUE;
                }
            }
        }
      for (guint i = 0; i < n; i++)
        if (indeg[i] > 0)
          g_string_append_printf (names, "%s'%s'", names->len ? ", " : "",
              accel_stage_get_name (graph->stages->pdata[i]));
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "graph '%s' has a cycle through %s", graph->name, names->str);
      g_string_free (names, TRUE);
      return FALSE;
    }
  return TRUE;
}

/* where data of @memory produced on @device can be read without a copy:
 * -1 for the host, else the GPU index; -2 for anywhere */
static gint
location_of (AccelDevice *device, AccelMemory memory)
{
  if (memory == ACCEL_MEMORY_MANAGED || memory == ACCEL_MEMORY_ANY)
    return -2;
  if (accel_device_is_host (device) || memory != ACCEL_MEMORY_DEVICE)
    return -1;
  return accel_device_get_index (device);
}

static AccelStage *
insert_copy (AccelGraph *graph, GraphLink *link, AccelDevice *device,
    AccelMemory memory, GError **error)
{
  g_autofree gchar *name
      = g_strdup_printf ("%s.%s->%s.%s", accel_stage_get_name (link->src),
          port_name (link->src, ACCEL_PORT_OUTPUT, link->src_port),
          accel_stage_get_name (link->dst),
          port_name (link->dst, ACCEL_PORT_INPUT, link->dst_port));
  AccelStage *copy = accel_stage_new ("core.memcpy", name, error);

  if (!copy)
    return NULL;
  g_object_set (copy, "device", device, "memory", memory, NULL);
  return copy;
}

static gboolean
check_and_wire (AccelGraph *graph, AccelStage *stage, GError **error)
{
  guint n_in = accel_stage_get_n_inputs (stage);
  AccelType in_types[ACCEL_MAX_PORTS];

  for (guint p = 0; p < n_in; p++)
    {
      const AccelPortTemplate *templ
          = accel_stage_get_port (stage, ACCEL_PORT_INPUT, p);
      GraphLink *link = NULL;
      const AccelType *have;
      g_autofree gchar *reason = NULL;
      gint have_loc, want_loc;

      for (guint l = 0; l < graph->links->len && !link; l++)
        {
          GraphLink *c = &g_array_index (graph->links, GraphLink, l);
          if (c->dst == stage && c->dst_port == p)
            link = c;
        }
      if (!link)
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
              "input '%s.%s' (%s) is not linked", accel_stage_get_name (stage),
              templ->name, accel_stage_get_kind_name (stage));
          return FALSE;
        }

      have = accel_stage_get_output_type (link->src, link->src_port);
      if (!accel_type_accepts (&templ->type, have, &reason))
        {
          g_autofree gchar *ht = accel_type_to_string (have);
          g_autofree gchar *wt = accel_type_to_string (&templ->type);
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH,
              "cannot link '%s.%s' (%s) to '%s.%s' (%s): output type %s does "
              "not "
              "fit input type %s: %s",
              accel_stage_get_name (link->src),
              port_name (link->src, ACCEL_PORT_OUTPUT, link->src_port),
              accel_stage_get_kind_name (link->src),
              accel_stage_get_name (stage), templ->name,
              accel_stage_get_kind_name (stage), ht, wt, reason);
          return FALSE;
        }
      in_types[p] = *have;

      have_loc = location_of (accel_stage_get_device (link->src), have->memory);
      want_loc = location_of (accel_stage_get_device (stage),
          templ->type.memory == ACCEL_MEMORY_ANY ? have->memory
                                                 : templ->type.memory);
      if (templ->type.memory == ACCEL_MEMORY_ANY
          && accel_stage_get_device (stage)
                 == accel_stage_get_device (link->src))
        want_loc = have_loc;

      if (have_loc != want_loc && have_loc != -2 && want_loc != -2)
        {
          AccelMemory want = templ->type.memory == ACCEL_MEMORY_ANY
                                 ? ACCEL_MEMORY_DEVICE
                                 : templ->type.memory;
          AccelDevice *dev
              = accel_stage_get_device (want_loc >= 0 ? stage : link->src);
          AccelStage *copy = insert_copy (graph, link, dev, want, error);
          GraphLink a = { link->src, link->src_port, NULL, 0 };
          GraphLink b = { NULL, 0, stage, p };
          AccelType copied;
          g_autofree gchar *ht = accel_type_to_string (have);

          if (!copy)
            return FALSE;
          if (!accel_stage_negotiate (copy, have, error))
            {
              g_object_unref (copy);
              return FALSE;
            }
          copied = *accel_stage_get_output_type (copy, 0);
          a.dst = copy;
          b.src = copy;
          g_array_append_val (graph->wiring, a);
          g_array_append_val (graph->wiring, b);
          g_ptr_array_add (graph->order, copy); /* takes the reference */
          in_types[p] = copied;
          g_ptr_array_add (graph->notes,
              g_strdup_printf ("inserted a copy %s "
                               "from %s memory on %s to %s memory on %s",
                  accel_stage_get_name (copy),
                  accel_memory_to_string (have->memory),
                  accel_device_get_name (accel_stage_get_device (link->src)),
                  accel_memory_to_string (want),
                  accel_device_get_name (accel_stage_get_device (stage))));
        }
      else
        {
          g_array_append_val (graph->wiring, *link);
        }
    }

  if (!accel_stage_negotiate (stage, in_types, error))
    return FALSE;
  if (accel_stage_get_stage_kind (stage) == ACCEL_STAGE_SINK)
    graph->n_sinks++;
  return TRUE;
}

/**
 * accel_graph_prepare:
 * @graph: a graph
 * @error: return location for a #GError, or %NULL
 *
 * Checks the graph (every input linked, no cycle), negotiates types from the
 * sources down, checks every link's types and inserts a copy where data must
 * move between host and device or between GPUs (listed in
 * accel_graph_get_notes()). Done by accel_graph_start() if not called.
 *
 * Returns: %FALSE with %ACCEL_ERROR_INVALID_PIPELINE or
 * %ACCEL_ERROR_TYPE_MISMATCH (naming both stages, both ports and both
 * types).
 */
gboolean
accel_graph_prepare (AccelGraph *graph, GError **error)
{
  g_autoptr (GPtrArray) sorted = g_ptr_array_new ();

  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), FALSE);
  if (graph->state == GRAPH_PREPARED)
    return TRUE;
  g_return_val_if_fail (graph->state == GRAPH_NEW, FALSE);

  if (graph->stages->len == 0)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "graph '%s' has no stages", graph->name);
      return FALSE;
    }
  if (!sort_stages (graph, sorted, error))
    return FALSE;

  g_clear_pointer (&graph->order, g_ptr_array_unref);
  graph->order = g_ptr_array_new_with_free_func (g_object_unref);
  g_array_set_size (graph->wiring, 0);
  g_ptr_array_set_size (graph->notes, 0);
  graph->n_sinks = 0;

  for (guint i = 0; i < sorted->len; i++)
    {
      AccelStage *stage = sorted->pdata[i];
      AccelDevice *dev = NULL;

      g_object_get (stage, "device", &dev, NULL);
      if (!dev)
        g_object_set (stage, "device", accel_graph_get_device (graph), NULL);
      g_clear_object (&dev);

      if (!check_and_wire (graph, stage, error))
        goto failed;
      g_ptr_array_add (graph->order, g_object_ref (stage));
    }

  for (guint i = 0; i < graph->order->len; i++)
    accel_stage_clear_links (graph->order->pdata[i]);
  for (guint l = 0; l < graph->wiring->len; l++)
    {
      GraphLink *link = &g_array_index (graph->wiring, GraphLink, l);
      accel_stage_add_link (
          link->src, link->src_port, link->dst, link->dst_port);
    }
  graph->state = GRAPH_PREPARED;
  return TRUE;

  /* ERRORS */
failed:
  {
    g_clear_pointer (&graph->order, g_ptr_array_unref);
    g_array_set_size (graph->wiring, 0);
    return FALSE;
  }
}

static void
on_stage_eos (AccelStage *stage, gpointer user_data)
{
  AccelGraph *graph = user_data;

  g_mutex_lock (&graph->lock);
  graph->n_sinks_done++;
  g_cond_broadcast (&graph->cond);
  g_mutex_unlock (&graph->lock);
}

static void
on_stage_error (AccelStage *stage, const GError *error, gpointer user_data)
{
  AccelGraph *graph = user_data;

  g_mutex_lock (&graph->lock);
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
    }
  g_cond_broadcast (&graph->cond);
  g_mutex_unlock (&graph->lock);
}

/* a thread of its own, or the one shared under the stage's thread name */
static AccelWorker *
worker_for (AccelGraph *graph, GHashTable *by_name, AccelStage *stage)
{
  const char *name = accel_stage_get_thread_name (stage);
  AccelWorker *worker = name ? g_hash_table_lookup (by_name, name) : NULL;

  if (!worker)
    {
      worker = accel_worker_new (name ? name : accel_stage_get_name (stage));
      g_ptr_array_add (graph->workers, worker);
      if (name)
        g_hash_table_insert (by_name, (gpointer)name, worker);
    }
  return worker;
}

static const AccelStageObserver graph_observer = {
  .eos = on_stage_eos,
  .error = on_stage_error,
};

/**
 * accel_graph_start:
 * @graph: a graph
 * @error: return location for a #GError, or %NULL
 *
 * Prepares the graph if needed, starts every stage's thread (each runs its
 * start() there), then lets the sources produce.
 *
 * Returns: %FALSE when a stage could not start; the graph is stopped again.
 */
gboolean
accel_graph_start (AccelGraph *graph, GError **error)
{
  g_autoptr (AccelStreamAllocator) streams = NULL;
  g_autoptr (GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);
  gboolean one_stream;

  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), FALSE);
  g_return_val_if_fail (graph->state != GRAPH_RUNNING, FALSE);

  accel_fault_init_from_env ();
  if (graph->state == GRAPH_STOPPED)
    graph->state = GRAPH_PREPARED;
  if (!accel_graph_prepare (graph, error) || !open_commit_logs (graph, error))
    return FALSE;

  g_mutex_lock (&graph->lock);
  graph->n_sinks_done = 0;
  graph->stopping = FALSE;
  g_clear_error (&graph->error);
  g_mutex_unlock (&graph->lock);

  streams = accel_stream_allocator_new (graph->stream_policy, graph->n_streams);
  one_stream = graph->stream_policy == ACCEL_STREAM_POLICY_SINGLE;
  for (guint i = 1; i < graph->order->len; i++)
    one_stream &= accel_stage_get_device (graph->order->pdata[i])
                  == accel_stage_get_device (graph->order->pdata[0]);

  for (guint i = 0; i < graph->order->len; i++)
    {
      AccelStage *stage = graph->order->pdata[i];
      accel_stage_set_observer (stage, &graph_observer, graph);
      accel_stage_set_one_stream (stage, one_stream);
      accel_stage_set_frame_limit (stage, graph->frame_limit);
      if (!accel_stage_start (
              stage, worker_for (graph, by_name, stage), streams, error))
        {
          for (guint j = 0; j < i; j++)
            accel_stage_close (graph->order->pdata[j]);
          for (guint j = 0; j < i; j++)
            accel_stage_join (graph->order->pdata[j]);
          g_ptr_array_set_size (graph->workers, 0);
          return FALSE;
        }
    }
  graph->state = GRAPH_RUNNING;
  for (guint i = 0; i < graph->order->len; i++)
    accel_stage_begin (graph->order->pdata[i]);
  return TRUE;
}

/**
 * accel_graph_wait:
 * @graph: a running graph
 * @timeout_us: how long to wait, or -1 for as long as it takes
 * @error: return location for a #GError, or %NULL
 *
 * Waits until every sink has seen end of stream (and its GPU work is done)
 * or a stage fails.
 *
 * Returns: %TRUE at end of stream; %FALSE with the first stage error (its
 * message names the stage), or %ACCEL_ERROR_TIMEOUT. MT safe.
 */
gboolean
accel_graph_wait (AccelGraph *graph, gint64 timeout_us, GError **error)
{
  gint64 deadline = timeout_us < 0 ? -1 : g_get_monotonic_time () + timeout_us;
  gboolean ok = TRUE;

  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), FALSE);

  g_mutex_lock (&graph->lock);
  while (!graph->error && graph->n_sinks_done < graph->n_sinks)
    {
      if (deadline < 0)
        {
          g_cond_wait (&graph->cond, &graph->lock);
        }
      else if (!g_cond_wait_until (&graph->cond, &graph->lock, deadline))
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT,
              "graph '%s' did not finish within %" G_GINT64_FORMAT " ms",
              graph->name, timeout_us / 1000);
          ok = FALSE;
          break;
        }
    }
  if (ok && graph->error)
    {
      g_propagate_error (error, g_error_copy (graph->error));
      ok = FALSE;
    }
  g_mutex_unlock (&graph->lock);
  return ok;
}

/**
 * accel_graph_stop:
 * @graph: a graph
 *
 * Stops every stage at once, wherever the data is: queued buffers are
 * dropped, blocked producers wake up, each thread waits for its stream and
 * ends. Safe to call in any state and more than once.
 */
void
accel_graph_stop (AccelGraph *graph)
{
  g_return_if_fail (ACCEL_IS_GRAPH (graph));
  if (graph->state != GRAPH_RUNNING)
    return;

  g_mutex_lock (&graph->lock);
  graph->stopping = TRUE;
  g_mutex_unlock (&graph->lock);

  for (guint i = 0; i < graph->order->len; i++)
    accel_stage_close (graph->order->pdata[i]);
  for (guint i = 0; i < graph->order->len; i++)
    accel_stage_join (graph->order->pdata[i]);
  /* the last reference ends each thread */
  g_ptr_array_set_size (graph->workers, 0);
  graph->state = GRAPH_STOPPED;
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
 */
void
accel_graph_set_state_dir (
    AccelGraph *graph, const char *dir, gint64 commit_interval_us)
{
  g_return_if_fail (ACCEL_IS_GRAPH (graph));
  g_free (graph->state_dir);
  graph->state_dir = g_strdup (dir);
  graph->commit_interval_us = commit_interval_us;
}

/* a live source keeps its last sequence in <stage>.produced: what it had
 * produced from @resume on was never committed, and it cannot produce it
 * again, so it is lost; counted, and said in a note */
static gboolean
open_produced_file (
    AccelGraph *graph, AccelStage *stage, guint64 resume, GError **error)
{
  g_autofree gchar *file
      = g_strdup_printf ("%s.produced", accel_stage_get_name (stage));
  g_autofree gchar *path = g_build_filename (graph->state_dir, file, NULL);
  g_autofree gchar *text = NULL;
  guint64 last, n_lost = 0;
  int fd;

  if (resume != G_MAXUINT64 && g_file_get_contents (path, &text, NULL, NULL)
      && g_ascii_string_to_unsigned (
          g_strstrip (text), 10, 0, G_MAXUINT64 - 1, &last, NULL)
      && last >= resume)
    {
      n_lost = last - resume + 1;
      g_ptr_array_add (graph->notes,
          g_strdup_printf ("stage '%s' (%s) is live and cannot produce "
                           "frames again: %" G_GUINT64_FORMAT
                           " frames (sequences %" G_GUINT64_FORMAT
                           " to %" G_GUINT64_FORMAT
                           ") were lost in the restart",
              accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
              n_lost, resume, last));
    }
  fd = g_open (path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED, "cannot open %s: %s",
          path, g_strerror (errno));
      return FALSE;
    }
  accel_stage_set_produced_file (stage, fd, n_lost);
  return TRUE;
}

/* "dir/stage.checkpoint", or NULL for a stage that keeps no state */
static gchar *
checkpoint_base (AccelGraph *graph, AccelStage *stage)
{
  g_autofree gchar *file = NULL;

  if (!ACCEL_STAGE_GET_CLASS (stage)->snapshot)
    return NULL;
  file = g_strdup_printf ("%s.checkpoint", accel_stage_get_name (stage));
  return g_build_filename (graph->state_dir, file, NULL);
}

/* whether @stage's state must be restored for the graph to resume: it
 * saved some, or it never saves any (snapshot-interval 0). A stage that
 * saved none though its first snapshot came at frame 0, before anything
 * could be committed, holds no state (effects without temporal ones) */
static gboolean
holds_state (AccelStage *stage, const char *base)
{
  g_autofree gchar *newest = NULL;
  guint64 seq;
  guint interval = 0;

  g_object_get (stage, "snapshot-interval", &interval, NULL);
  newest = accel_checkpoint_find (base, G_MAXUINT64, &seq);
  return newest != NULL || interval == 0;
}

/* Every stateful stage must start from its state after one same frame, the
 * one before the sources resume: the newest frame before @resume (the
 * first uncommitted one) at which each of them saved its state, or none,
 * and everything starts over. Frames after it run again and the sinks skip
 * what they committed. Returns where the sources resume. */
static guint64
common_checkpoint (AccelGraph *graph, guint64 resume)
{
  guint64 r = resume == G_MAXUINT64 ? 0 : resume, before;

  do
    {
      before = r;
      for (guint i = 0; i < graph->order->len && r > 0; i++)
        {
          AccelStage *stage = graph->order->pdata[i];
          g_autofree gchar *base = checkpoint_base (graph, stage);
          g_autofree gchar *from = NULL;
          guint64 seq;

          if (!base || !holds_state (stage, base))
            continue;
          from = accel_checkpoint_find (base, r, &seq);
          r = from ? MIN (r, seq + 1) : 0;
        }
    }
  while (r != before && r > 0);

  for (guint i = 0; i < graph->order->len; i++)
    {
      AccelStage *stage = graph->order->pdata[i];
      g_autofree gchar *base = checkpoint_base (graph, stage);
      g_autofree gchar *from = NULL;
      guint64 seq;

      if (!base)
        continue;
      if (r > 0 && holds_state (stage, base))
        from = accel_checkpoint_find (base, r, &seq);
      accel_stage_set_checkpoint (stage, base, from);
    }
  return resume == G_MAXUINT64 ? resume : r;
}

/* opens the sinks' commit logs and tells the sources where to resume */
static gboolean
open_commit_logs (AccelGraph *graph, GError **error)
{
  guint64 resume = G_MAXUINT64;

  if (!graph->state_dir)
    return TRUE;
  if (g_mkdir_with_parents (graph->state_dir, 0755) != 0)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "cannot create the state directory %s: %s", graph->state_dir,
          g_strerror (errno));
      return FALSE;
    }
  for (guint i = 0; i < graph->order->len; i++)
    {
      AccelStage *stage = graph->order->pdata[i];
      g_autofree gchar *file = NULL, *path = NULL;
      AccelCommitLog *log;

      if (accel_stage_get_stage_kind (stage) != ACCEL_STAGE_SINK)
        continue;
      file = g_strdup_printf ("%s.commits", accel_stage_get_name (stage));
      path = g_build_filename (graph->state_dir, file, NULL);
      if (!(log = accel_commit_log_open (path, error)))
        return FALSE;
      accel_commit_log_set_sync_interval (log, graph->commit_interval_us);
      resume = MIN (resume, accel_commit_log_first_uncommitted (log));
      accel_stage_set_commit_log (stage, log);
    }
  resume = common_checkpoint (graph, resume);
  for (guint i = 0; i < graph->order->len; i++)
    {
      AccelStage *stage = graph->order->pdata[i];
      if (accel_stage_get_n_inputs (stage) == 0)
        accel_stage_set_start_sequence (
            stage, resume == G_MAXUINT64 ? 0 : resume);
      if (accel_stage_is_live (stage)
          && !open_produced_file (graph, stage, resume, error))
        return FALSE;
    }
  if (resume > 0 && resume != G_MAXUINT64)
    g_ptr_array_add (
        graph->notes, g_strdup_printf ("resuming at sequence %" G_GUINT64_FORMAT
                                       " from the commit logs in %s",
                          resume, graph->state_dir));
  return TRUE;
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
    {
      AccelStage *stage = graph->order->pdata[i];
      if (accel_stage_get_n_inputs (stage) == 0)
        accel_stage_send_eos (stage);
    }
}

/**
 * accel_graph_set_frame_limit:
 * @graph: a graph that is not running
 * @n_frames: frames each source produces before end of stream, or -1
 */
void
accel_graph_set_frame_limit (AccelGraph *graph, gint64 n_frames)
{
  g_return_if_fail (ACCEL_IS_GRAPH (graph));
  graph->frame_limit = n_frames;
}

/**
 * accel_graph_run:
 * @graph: a graph
 * @error: return location for a #GError, or %NULL
 *
 * Starts the graph, waits for end of stream or the first error, and stops.
 *
 * Returns: %TRUE when every sink reached end of stream.
 */
gboolean
accel_graph_run (AccelGraph *graph, GError **error)
{
  gboolean ok;

  if (!accel_graph_start (graph, error))
    return FALSE;
  ok = accel_graph_wait (graph, -1, error);
  accel_graph_stop (graph);
  return ok;
}

/**
 * accel_graph_to_dot:
 * @graph: a graph (prepared, for types and inserted copies)
 *
 * Returns: (transfer full): the graph in graphviz's dot language: stages with
 * kind and device, links labelled with their types, inserted copies dashed.
 */
gchar *
accel_graph_to_dot (AccelGraph *graph)
{
  GString *s = g_string_new (NULL);
  GPtrArray *stages = accel_graph_get_stages (graph);
  GArray *links = graph->order ? graph->wiring : graph->links;
  const char *policy
      = graph->stream_policy == ACCEL_STREAM_POLICY_SINGLE   ? "single"
        : graph->stream_policy == ACCEL_STREAM_POLICY_POOLED ? "pooled"
                                                             : "per-stage";

  g_string_append_printf (s,
      "digraph \"%s\" {\n  rankdir=LR;\n"
      "  label=\"%s (streams: %s)\";\n  node [shape=box, "
      "fontname=monospace];\n",
      graph->name, graph->name, policy);
  for (guint i = 0; i < stages->len; i++)
    {
      AccelStage *st = stages->pdata[i];
      gboolean inserted = g_ptr_array_find (graph->stages, st, NULL) == FALSE;
      g_string_append_printf (s, "  \"%s\" [label=\"%s\\n%s\\non %s\"%s];\n",
          accel_stage_get_name (st), accel_stage_get_name (st),
          accel_stage_get_kind_name (st),
          accel_device_get_name (accel_stage_get_device (st)),
          inserted ? ", style=dashed" : "");
    }
  for (guint l = 0; l < links->len; l++)
    {
      GraphLink *link = &g_array_index (links, GraphLink, l);
      g_autofree gchar *type
          = graph->order ? accel_type_to_string (
                accel_stage_get_output_type (link->src, link->src_port))
                         : NULL;
      g_string_append_printf (s,
          "  \"%s\" -> \"%s\" [label=\"%s -> %s%s%s\"];\n",
          accel_stage_get_name (link->src), accel_stage_get_name (link->dst),
          port_name (link->src, ACCEL_PORT_OUTPUT, link->src_port),
          port_name (link->dst, ACCEL_PORT_INPUT, link->dst_port),
          type ? "\\n" : "", type ? type : "");
    }
  g_string_append (s, "}\n");
  return g_string_free (s, FALSE);
}
