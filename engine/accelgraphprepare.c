/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: preparing a graph: order the stages, check every link's types
 * (naming both ends of a mismatch), insert the copies where memory or
 * device differ, negotiate each stage's output types; and the graph drawn
 * as DOT */
#define G_LOG_DOMAIN "accel-graph"

#include "accelgraph-private.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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
          accel_graph_port_name (link->src, ACCEL_PORT_OUTPUT, link->src_port),
          accel_stage_get_name (link->dst),
          accel_graph_port_name (link->dst, ACCEL_PORT_INPUT, link->dst_port));
  AccelStage *copy = accel_stage_new ("core.memcpy", name, error);

  if (!copy)
    return NULL;
  g_object_set (copy, "device", device, "memory", memory, NULL);
  return copy;
}

/* a type @stage refused, said with where it came from: the stages that
 * feed @links' inputs that the message does not name yet, so that a type
 * mismatch names both stages */
static void
name_producers (GError *error, AccelStage *stage, GraphLink *const *links)
{
  g_autoptr (GString) from = g_string_new (NULL);

  for (guint p = 0; links && p < accel_stage_get_n_inputs (stage); p++)
    {
      AccelStage *src = links[p]->src;
      g_autofree gchar *named
          = g_strdup_printf ("stage '%s'", accel_stage_get_name (src));

      /* a message that names the producer as a stage has said it; a port
       * or a parameter of the same name has not */
      if (strstr (error->message, named))
        continue;
      g_string_append_printf (from, "%s'%s' %s %s (%s)",
          from->len ? ", " : "; its input ",
          accel_stage_get_port (stage, ACCEL_PORT_INPUT, p)->name,
          from->len ? "from" : "comes from", named,
          accel_stage_get_kind_name (src));
    }
  if (from->len)
    {
      gchar *message = g_strconcat (error->message, from->str, NULL);

      g_free (error->message);
      error->message = message;
    }
}

/* negotiates @stage, fed by @links (NULL for a copy the graph made), and
 * checks that every output type has a size; a failure names the stage, as
 * the stage's own errors may not, and a type it refused the stages it
 * came from */
static gboolean
negotiate_stage (AccelStage *stage, const AccelType *in_types,
    GraphLink *const *links, GError **error)
{
  const char *name = accel_stage_get_name (stage);
  GError *local = NULL;

  if (!accel_stage_negotiate (stage, in_types, &local))
    {
      g_autofree gchar *prefix = g_strdup_printf ("stage '%s'", name);
      if (!g_str_has_prefix (local->message, prefix))
        g_prefix_error (&local, "stage '%s' (%s): ", name,
            accel_stage_get_kind_name (stage));
      if (g_error_matches (local, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH))
        name_producers (local, stage, links);
      g_propagate_error (error, local);
      return FALSE;
    }
  /* a sink that writes files: a location it cannot write is a mistake of
   * the pipeline, better said now than after its first frame */
  if (ACCEL_IS_FILE_OUTPUT (stage)
      && !accel_file_output_check_path (ACCEL_FILE_OUTPUT (stage), error))
    return FALSE;
  for (guint o = 0; o < accel_stage_get_n_outputs (stage); o++)
    {
      const AccelType *type = accel_stage_get_output_type (stage, o);
      gsize size;

      if (!accel_type_get_size_checked (type, &size))
        {
          g_autofree gchar *t = accel_type_to_string (type);
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
              "stage '%s' (%s): output '%s' of type %s is too large: its "
              "size in bytes overflows",
              name, accel_stage_get_kind_name (stage),
              accel_graph_port_name (stage, ACCEL_PORT_OUTPUT, o), t);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
check_and_wire (AccelGraph *graph, AccelStage *stage, GError **error)
{
  guint n_in = accel_stage_get_n_inputs (stage);
  AccelType in_types[ACCEL_MAX_PORTS];
  GraphLink *links[ACCEL_MAX_PORTS];

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
              accel_graph_port_name (
                  link->src, ACCEL_PORT_OUTPUT, link->src_port),
              accel_stage_get_kind_name (link->src),
              accel_stage_get_name (stage), templ->name,
              accel_stage_get_kind_name (stage), ht, wt, reason);
          return FALSE;
        }
      in_types[p] = *have;
      links[p] = link;

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
          /* a copy between two GPUs goes peer to peer where they can;
           * enabled here, before any frame is captured */
          if (have_loc >= 0 && want_loc >= 0)
            {
              g_autoptr (GError) peer_error = NULL;
              if (!accel_device_enable_peer_access (
                      dev, accel_stage_get_device (link->src), &peer_error)
                  && peer_error)
                g_debug ("%s; '%s' copies through host memory",
                    peer_error->message, accel_stage_get_name (copy));
            }
          if (!negotiate_stage (copy, have, NULL, error))
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

  return negotiate_stage (stage, in_types, links, error);
}

/* the stages' names as they are now: a stage renamed since it was added
 * (g_object_set (stage, "name", ...)) could leave the state directory or
 * share another's commit log */
static gboolean
check_names (AccelGraph *graph, GError **error)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < graph->stages->len; i++)
    {
      AccelStage *stage = graph->stages->pdata[i];

      if (!accel_graph_check_stage_name (stage, error))
        return FALSE;
      if (!g_hash_table_add (seen, (gpointer)accel_stage_get_name (stage)))
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
              "graph '%s' has two stages named '%s' (one was renamed after "
              "it was added)",
              graph->name, accel_stage_get_name (stage));
          return FALSE;
        }
    }
  return TRUE;
}

/* the file @path names, whether it is there yet or not, as a path: links
 * and "./" resolved, so that two names of one file compare equal; NULL
 * for what is no regular file (a FIFO, /dev/null: shared on purpose) */
static gchar *
file_key (const char *path)
{
  if (!path || !*path)
    return NULL;
  if (g_file_test (path, G_FILE_TEST_EXISTS)
      && !g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return NULL;
  return accel_file_resolved_path (path);
}

/* the string property @name of @stage, or NULL */
static gchar *
dup_string_property (AccelStage *stage, const char *name)
{
  GParamSpec *pspec
      = g_object_class_find_property (G_OBJECT_GET_CLASS (stage), name);
  gchar *value = NULL;

  if (pspec && pspec->value_type == G_TYPE_STRING)
    g_object_get (stage, name, &value, NULL);
  return value;
}

/* the file a source reads (its "location", or the first location= of its
 * GStreamer "description": a filesrc's, not one it records into), or
 * NULL */
gchar *
accel_graph_source_input (AccelStage *stage)
{
  g_autofree gchar *description = NULL;
  g_auto (GStrv) locations = NULL;
  gchar *location;

  if (accel_stage_get_n_inputs (stage) > 0)
    return NULL;
  if ((location = dup_string_property (stage, "location")))
    return location;
  description = dup_string_property (stage, "description");
  locations = accel_description_locations (description);
  for (guint i = 0; locations[i]; i++)
    if (!ACCEL_IS_FILE_OUTPUT (stage)
        || !accel_file_output_writes (ACCEL_FILE_OUTPUT (stage), locations[i]))
      return g_strdup (locations[i]);
  return NULL;
}

/* a file a stage uses, as named */
typedef struct
{
  gchar *path;
  gboolean writes;
} FileUse;

/* the files @stage uses into @uses: the one it writes (a sink's, or what
 * a source's description records) and the one it reads (a source's);
 * returns how many, 0 to 2, each to be freed */
static guint
stage_files (AccelStage *stage, FileUse uses[2])
{
  guint n = 0;
  gchar *path;

  if (ACCEL_IS_FILE_OUTPUT (stage)
      && (path = accel_file_output_get_path (ACCEL_FILE_OUTPUT (stage))))
    uses[n++] = (FileUse){ path, TRUE };
  if ((path = accel_graph_source_input (stage)))
    uses[n++] = (FileUse){ path, FALSE };
  return n;
}

static void
clear_file_uses (FileUse *uses, guint n)
{
  for (guint i = 0; i < n; i++)
    g_free (uses[i].path);
}

/* a sink that writes a file per frame (a name pattern) writes any file of
 * that pattern: another stage's file among them is refused too, naming
 * both (only its first file was compared) */
static gboolean
check_pattern_files (GPtrArray *stages, GError **error)
{
  for (guint i = 0; i < stages->len; i++)
    {
      AccelStage *stage = stages->pdata[i];

      if (!ACCEL_IS_FILE_OUTPUT (stage)
          || !ACCEL_FILE_OUTPUT_GET_IFACE (stage)->writes_name)
        continue;
      for (guint j = 0; j < stages->len; j++)
        {
          AccelStage *other = stages->pdata[j];
          FileUse uses[2];
          guint n = other == stage ? 0 : stage_files (other, uses);

          for (guint u = 0; u < n; u++)
            {
              if (!accel_file_output_writes (
                      ACCEL_FILE_OUTPUT (stage), uses[u].path))
                continue;
              g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
                  "stage '%s' (%s) %s %s, one of the files stage '%s' (%s) "
                  "writes: %s",
                  accel_stage_get_name (other),
                  accel_stage_get_kind_name (other),
                  uses[u].writes ? "writes" : "reads", uses[u].path,
                  accel_stage_get_name (stage),
                  accel_stage_get_kind_name (stage),
                  uses[u].writes ? "their frames would mix in one file"
                                 : "the run would write over its own input");
              clear_file_uses (uses, n);
              return FALSE;
            }
          clear_file_uses (uses, n);
        }
    }
  return TRUE;
}

/* whether @use of @stage shares a file with a use seen before it (in
 * @users, those that write also in @writes) in a way refused, set in
 * @error naming the two stages; records @use where it is the first */
static gboolean
file_use_clashes (AccelStage *stage, const FileUse *use, GHashTable *users,
    GHashTable *writes, GError **error)
{
  gchar *key = accel_file_identity (use->path);
  gboolean other_writes;
  AccelStage *other;

  if (!key)
    return FALSE;
  if (!(other = g_hash_table_lookup (users, key)))
    {
      g_hash_table_insert (users, key, stage);
      if (use->writes)
        g_hash_table_add (writes, key);
      return FALSE;
    }
  other_writes = g_hash_table_contains (writes, key);
  g_free (key);
  /* two sources may read one file */
  if (!use->writes && !other_writes)
    return FALSE;
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
      "stage '%s' (%s) %s %s, which stage '%s' (%s) %s: %s",
      accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
      use->writes ? "writes" : "reads", use->path, accel_stage_get_name (other),
      accel_stage_get_kind_name (other), other_writes ? "writes" : "reads",
      use->writes && other_writes ? "their frames would mix in one file"
                                  : "the run would write over its own input");
  return TRUE;
}

/* two sinks that write one file mix their frames in it, and a sink that
 * writes a source's file writes over the run's own input: both refused,
 * naming the two stages. Checked before the stages negotiate: a source
 * prerolls its description there, which opens the files it records into */
static gboolean
check_shared_files (GPtrArray *stages, GError **error)
{
  g_autoptr (GHashTable) users
      = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) writes = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < stages->len; i++)
    {
      AccelStage *stage = stages->pdata[i];
      FileUse uses[2];
      guint n = stage_files (stage, uses);
      gboolean clash = FALSE;

      for (guint u = 0; u < n && !clash; u++)
        clash = file_use_clashes (stage, &uses[u], users, writes, error);
      clear_file_uses (uses, n);
      if (clash)
        return FALSE;
    }
  return check_pattern_files (stages, error);
}

/* a stage that writes or reads a file of the graph's state in its
 * directory @dir (a sink's location named after a commit log, say: a file
 * there whose name @is_state takes) writes over its own state, or takes it
 * for input: refused, naming the stage and the file. Other files there
 * are the stages' own */
gboolean
accel_graph_check_state_files (AccelGraph *graph, const char *dir,
    gboolean (*is_state) (const char *name), GError **error)
{
  g_autofree gchar *real = realpath (dir, NULL);
  g_autofree gchar *inside = real ? g_strconcat (real, "/", NULL) : NULL;

  for (guint i = 0; inside && i < graph->order->len; i++)
    {
      AccelStage *stage = graph->order->pdata[i];
      FileUse uses[2];
      guint n = stage_files (stage, uses);

      for (guint u = 0; u < n; u++)
        {
          g_autofree gchar *key = file_key (uses[u].path);

          if (!key || !g_str_has_prefix (key, inside)
              || strchr (key + strlen (inside), '/')
              || !is_state (key + strlen (inside)))
            continue;
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
              "stage '%s' (%s) %s %s, a file of the state directory %s: "
              "the run would %s",
              accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
              uses[u].writes ? "writes" : "reads", uses[u].path, dir,
              uses[u].writes ? "write over its own state"
                             : "read its own state");
          clear_file_uses (uses, n);
          return FALSE;
        }
      clear_file_uses (uses, n);
    }
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
 * types). Called from the thread that builds the graph, before
 * accel_graph_start().
 */
gboolean
accel_graph_prepare (AccelGraph *graph, GError **error)
{
  g_autoptr (GPtrArray) sorted = g_ptr_array_new ();

  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), FALSE);
  if (graph->state == GRAPH_PREPARED || graph->state == GRAPH_STOPPED)
    return TRUE;
  if (graph->state == GRAPH_RUNNING)
    return accel_graph_refuse_call (
        graph, "it was prepared as it started", error);

  if (graph->stages->len == 0)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "graph '%s' has no stages", graph->name);
      return FALSE;
    }
  if (!check_names (graph, error) || !sort_stages (graph, sorted, error)
      || !check_shared_files (sorted, error))
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

      if (!check_and_wire (graph, stage, error)
          || !accel_graph_check_capture (stage, error))
        goto failed;
      g_ptr_array_add (graph->order, g_object_ref (stage));
    }

  if (!accel_graph_check_descriptors (graph, error)
      || !accel_graph_check_threads (graph, error))
    goto failed;
  for (guint i = 0; i < graph->order->len; i++)
    accel_stage_clear_links (graph->order->pdata[i]);
  for (guint l = 0; l < graph->wiring->len; l++)
    {
      GraphLink *link = &g_array_index (graph->wiring, GraphLink, l);
      accel_stage_add_link (
          link->src, link->src_port, link->dst, link->dst_port);
    }
  /* the ends of the branches the graph's end waits for */
  for (guint i = 0; i < graph->order->len; i++)
    graph->n_sinks += accel_stage_ends_a_branch (graph->order->pdata[i]);
  /* only a graph prepared holds the stages to what they negotiated: one
   * that failed may be changed and prepared again */
  for (guint i = 0; i < graph->order->len; i++)
    accel_stage_fix_params (graph->order->pdata[i]);
  graph->n_prepare_notes = graph->notes->len;
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

/* appends @text as the inside of a DOT double-quoted string: quotes and
 * backslashes escaped, line breaks as graphviz's \n, other control
 * characters as spaces, so no name can end the string or the line, and a
 * byte that is not UTF-8 as the text \xNN, as the metrics give it
 * (graphviz refuses such a file) */
static void
append_dot_escaped (GString *s, const char *text)
{
  g_autofree gchar *valid = accel_utf8_escape_bytes (text);

  for (const char *p = valid; *p; p++)
    {
      if (*p == '"' || *p == '\\')
        {
          g_string_append_c (s, '\\');
          g_string_append_c (s, *p);
        }
      else if (*p == '\n')
        g_string_append (s, "\\n");
      else if (g_ascii_iscntrl (*p))
        g_string_append_c (s, ' ');
      else
        g_string_append_c (s, *p);
    }
}

/* appends @format with each %s argument escaped by append_dot_escaped();
 * only %s is understood, and %% */
static void
append_dot (GString *s, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  for (const char *p = format; *p; p++)
    {
      if (p[0] == '%' && p[1] == 's')
        {
          append_dot_escaped (s, va_arg (args, const char *));
          p++;
        }
      else if (p[0] == '%' && p[1] == '%')
        {
          g_string_append_c (s, '%');
          p++;
        }
      else
        g_string_append_c (s, *p);
    }
  va_end (args);
}

/**
 * accel_graph_to_dot:
 * @graph: a graph (prepared, for types and inserted copies)
 *
 * Returns: (transfer full): the graph in graphviz's dot language: stages with
 * kind and device, links labelled with their types, inserted copies dashed.
 * Called from the thread that builds the graph, or from any thread once it
 * has started.
 */
gchar *
accel_graph_to_dot (AccelGraph *graph)
{
  GString *s;
  GPtrArray *stages;
  GArray *links;
  const char *policy;

  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), NULL);

  s = g_string_new (NULL);
  stages = accel_graph_get_stages (graph);
  links = graph->order ? graph->wiring : graph->links;
  policy = graph->stream_policy == ACCEL_STREAM_POLICY_SINGLE   ? "single"
           : graph->stream_policy == ACCEL_STREAM_POLICY_POOLED ? "pooled"
                                                                : "per-stage";

  append_dot (s,
      "digraph \"%s\" {\n  rankdir=LR;\n"
      "  label=\"%s (streams: %s)\";\n  node [shape=box, "
      "fontname=monospace];\n",
      graph->name, graph->name, policy);
  if (graph->order)
    accel_graph_partition (graph);
  for (guint i = 0; i < stages->len; i++)
    {
      AccelStage *st = stages->pdata[i];
      AccelStage *segment = graph->order ? accel_stage_get_segment (st) : NULL;
      gboolean inserted = g_ptr_array_find (graph->stages, st, NULL) == FALSE;
      const char *alone = !graph->order ? NULL
                          : !graph->segments
                              ? "segments are off"
                              : accel_stage_get_blocking_reason (st);

      /* a segment is a cluster: DOT merges the subgraphs of one name */
      if (segment)
        append_dot (s,
            "  subgraph \"cluster_%s\" {\n    label=\"segment: one thread, "
            "one stream\";\n    style=rounded;\n  ",
            accel_stage_get_name (segment));
      /* the label's line breaks are graphviz's, written unescaped */
      append_dot (s, "  \"%s\" [label=\"%s", accel_stage_get_name (st),
          accel_stage_get_name (st));
      g_string_append (s, "\\n");
      append_dot (s, "%s", accel_stage_get_kind_name (st));
      g_string_append (s, "\\non ");
      append_dot (s, "%s", accel_device_get_name (accel_stage_get_device (st)));
      if (alone)
        {
          g_string_append (s, "\\nown thread: ");
          append_dot (s, "%s", alone);
        }
      g_string_append_printf (s, "\"%s];\n", inserted ? ", style=dashed" : "");
      if (segment)
        g_string_append (s, "  }\n");
    }
  for (guint l = 0; l < links->len; l++)
    {
      GraphLink *link = &g_array_index (links, GraphLink, l);
      g_autofree gchar *type
          = graph->order ? accel_type_to_string (
                accel_stage_get_output_type (link->src, link->src_port))
                         : NULL;
      append_dot (s, "  \"%s\" -> \"%s\" [label=\"%s -> %s",
          accel_stage_get_name (link->src), accel_stage_get_name (link->dst),
          accel_graph_port_name (link->src, ACCEL_PORT_OUTPUT, link->src_port),
          accel_graph_port_name (link->dst, ACCEL_PORT_INPUT, link->dst_port));
      if (type)
        {
          g_string_append (s, "\\n");
          append_dot (s, "%s", type);
        }
      g_string_append (s, "\"];\n");
    }
  g_string_append (s, "}\n");
  return g_string_free (s, FALSE);
}
