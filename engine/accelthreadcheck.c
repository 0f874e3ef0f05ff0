/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: named threads that a path leaves and comes back to. A stage hands
 * a buffer to a consumer on another thread by a push that waits for room
 * in its mailbox; if stages A and C share a thread and A -> B -> C runs
 * through another thread, A can wait for room at B while B waits for room
 * at C, which only that same thread drains: neither ever moves. Segments
 * cannot do this (a stage joins one only when all its producers are in
 * it), so named threads are the one way to build such a graph, and it is
 * refused while it is prepared. So are threads that feed each other in a
 * ring, each waiting for room at the next, and two stages of one thread
 * whose frames meet at a stage off it */
#define G_LOG_DOMAIN "accel-graph"

#include "accelgraph-private.h"
#include "accelstage-private.h"

/* whether @stage runs on the thread named @thread */
static gboolean
on_thread (AccelStage *stage, const char *thread)
{
  const char *name = accel_stage_get_thread_name (stage);

  return name && g_str_equal (name, thread);
}

/* a path from a stage on @thread through other threads back to @thread,
 * as its stages from the end back to the start, or NULL: a breadth-first
 * search from every stage on @thread, each stage off it visited once */
static GPtrArray *
find_return (AccelGraph *graph, const char *thread)
{
  /* each stage off the thread that was reached, mapped to the stage it
   * was reached from first */
  g_autoptr (GHashTable) from = g_hash_table_new (NULL, NULL);
  g_autoptr (GQueue) queue = g_queue_new ();
  GPtrArray *path = NULL;

  for (guint i = 0; i < graph->order->len; i++)
    if (on_thread (graph->order->pdata[i], thread))
      g_queue_push_tail (queue, graph->order->pdata[i]);
  while (!g_queue_is_empty (queue) && !path)
    {
      AccelStage *stage = g_queue_pop_head (queue);
      gboolean left = !on_thread (stage, thread);

      for (guint l = 0; l < graph->wiring->len && !path; l++)
        {
          GraphLink *link = &g_array_index (graph->wiring, GraphLink, l);

          if (link->src != stage)
            continue;
          /* back on the thread after leaving it: the path found; on it
           * without leaving, a link within the thread */
          if (on_thread (link->dst, thread))
            {
              if (!left)
                continue;
              path = g_ptr_array_new ();
              g_ptr_array_add (path, link->dst);
              for (AccelStage *s = stage;; s = g_hash_table_lookup (from, s))
                {
                  g_ptr_array_add (path, s);
                  if (on_thread (s, thread))
                    break;
                }
            }
          else if (!g_hash_table_contains (from, link->dst))
            {
              g_hash_table_insert (from, link->dst, stage);
              g_queue_push_tail (queue, link->dst);
            }
        }
    }
  return path;
}

/* what a stage runs on, as a key: its named thread (interned), or the
 * stage itself for a thread of its own */
static gconstpointer
thread_key (AccelStage *stage)
{
  const char *name = accel_stage_get_thread_name (stage);

  return name ? (gconstpointer)g_intern_string (name) : (gconstpointer)stage;
}

typedef struct
{
  AccelGraph *graph;
  GHashTable *state; /* key -> 1 on the search's path, 2 done */
  GPtrArray *ring;   /* the links of the ring found, GraphLink *, reversed */
} RingSearch;

/* a depth-first search of the threads from @key along the links between
 * two threads; TRUE with the ring's links from @key back to where the
 * ring closes */
static gboolean
find_ring (RingSearch *r, gconstpointer key, gconstpointer *closes)
{
  g_hash_table_insert (r->state, (gpointer)key, GINT_TO_POINTER (1));
  for (guint l = 0; l < r->graph->wiring->len; l++)
    {
      GraphLink *link = &g_array_index (r->graph->wiring, GraphLink, l);
      gconstpointer to = thread_key (link->dst);
      gint state;

      if (thread_key (link->src) != key || to == key)
        continue;
      state = GPOINTER_TO_INT (g_hash_table_lookup (r->state, to));
      if (state == 1 || (state == 0 && find_ring (r, to, closes)))
        {
          if (state == 1)
            *closes = to;
          if (*closes)
            g_ptr_array_add (r->ring, link);
          /* past where it closed, the path is no part of the ring */
          if (*closes == key)
            *closes = NULL;
          return TRUE;
        }
    }
  g_hash_table_insert (r->state, (gpointer)key, GINT_TO_POINTER (2));
  return FALSE;
}

static void
append_stage_thread (GString *s, AccelStage *stage)
{
  const char *thread = accel_stage_get_thread_name (stage);

  if (thread)
    g_string_append_printf (
        s, "'%s' (thread '%s')", accel_stage_get_name (stage), thread);
  else
    g_string_append_printf (
        s, "'%s' (its own thread)", accel_stage_get_name (stage));
}

/* threads that wait on each other in a ring: a stage on thread A feeds
 * one on B, and one on B one on A (s1 on io -> x on compute, s2 on
 * compute -> y on io). With both mailboxes full each thread waits in a
 * push for the other, which waits in its own */
static gboolean
check_rings (AccelGraph *graph, GError **error)
{
  g_autoptr (GHashTable) state = g_hash_table_new (NULL, NULL);
  g_autoptr (GPtrArray) ring = g_ptr_array_new ();
  RingSearch r = { graph, state, ring };
  g_autoptr (GString) names = NULL;
  gconstpointer closes = NULL;
  gboolean found = FALSE;

  for (guint i = 0; i < graph->order->len && !found; i++)
    {
      gconstpointer key = thread_key (graph->order->pdata[i]);

      if (!g_hash_table_contains (state, key))
        found = find_ring (&r, key, &closes);
    }
  if (!found)
    return TRUE;
  names = g_string_new (NULL);
  for (guint k = ring->len; k-- > 0;)
    {
      GraphLink *link = ring->pdata[k];

      if (k + 1 < ring->len)
        g_string_append (names, ", ");
      append_stage_thread (names, link->src);
      g_string_append (names, " -> ");
      append_stage_thread (names, link->dst);
    }
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
      "threads wait on each other in a ring: %s; with their mailboxes full "
      "each would wait for the next for good: put the stages of the ring "
      "on one thread, or on threads of their own",
      names->str);
  return FALSE;
}

/* adds @stage to @reached and queues it, and with it, @through, every
 * other stage of its named thread (but @thread's): a thread that waits in
 * one of its stages' pushes runs none of the others */
static void
reach (AccelGraph *graph, AccelStage *stage, const char *thread,
    gboolean through, GHashTable *reached, GQueue *queue)
{
  const char *its = accel_stage_get_thread_name (stage);

  if (!g_hash_table_add (reached, stage))
    return;
  g_queue_push_tail (queue, stage);
  if (!through || !its || g_str_equal (its, thread))
    return;
  for (guint i = 0; i < graph->order->len; i++)
    if (on_thread (graph->order->pdata[i], its))
      reach (graph, graph->order->pdata[i], thread, through, reached, queue);
}

/* follows the links of the stages in @queue, and of those they reach */
static void
walk (AccelGraph *graph, const char *thread, gboolean through,
    GHashTable *reached, GQueue *queue)
{
  while (!g_queue_is_empty (queue))
    {
      AccelStage *at = g_queue_pop_head (queue);

      for (guint l = 0; l < graph->wiring->len; l++)
        {
          GraphLink *link = &g_array_index (graph->wiring, GraphLink, l);

          if (link->src == at)
            reach (graph, link->dst, thread, through, reached, queue);
        }
    }
}

/* the stages downstream of @stage (itself left out) */
static GHashTable *
downstream (AccelGraph *graph, AccelStage *stage)
{
  GHashTable *reached = g_hash_table_new (NULL, NULL);
  g_autoptr (GQueue) queue = g_queue_new ();

  g_queue_push_tail (queue, stage);
  walk (graph, NULL, FALSE, reached, queue);
  return reached;
}

/* the stages a path from @stage reaches once it leaves @thread by a link
 * of @stage's own, the stages off it included, and, @through, through
 * another named thread every stage of that thread: thread A running a1
 * and a2, thread B b1 and sink, a1 -> sink, a2 -> sum.x and b1 -> sum.y
 * meet at 'sum' through B (the run stopped for good after 8 frames) */
static GHashTable *
reached_leaving (
    AccelGraph *graph, AccelStage *stage, const char *thread, gboolean through)
{
  GHashTable *reached = g_hash_table_new (NULL, NULL);
  g_autoptr (GQueue) queue = g_queue_new ();

  for (guint l = 0; l < graph->wiring->len; l++)
    {
      GraphLink *link = &g_array_index (graph->wiring, GraphLink, l);

      if (link->src == stage && !on_thread (link->dst, thread))
        reach (graph, link->dst, thread, through, reached, queue);
    }
  walk (graph, thread, through, reached, queue);
  return reached;
}

/* where the frames of each stage on @thread come into it, by stage: the
 * stages of the thread that take them from another thread or make them
 * (sources), from which links within the thread hand them on by a call */
static GHashTable *
entries_by_stage (AccelGraph *graph, const char *thread)
{
  GHashTable *by_stage = g_hash_table_new_full (
      NULL, NULL, NULL, (GDestroyNotify)g_hash_table_unref);

  /* in the graph's order, every producer before its consumers */
  for (guint i = 0; i < graph->order->len; i++)
    {
      AccelStage *stage = graph->order->pdata[i];
      GHashTable *entries;
      gboolean fed = FALSE;

      if (!on_thread (stage, thread))
        continue;
      entries = g_hash_table_new (NULL, NULL);
      for (guint l = 0; l < graph->wiring->len; l++)
        {
          GraphLink *link = &g_array_index (graph->wiring, GraphLink, l);
          GHashTable *theirs;
          GHashTableIter iter;
          gpointer key;

          if (link->dst != stage)
            continue;
          theirs = g_hash_table_lookup (by_stage, link->src);
          if (!theirs)
            {
              g_hash_table_add (entries, stage);
              continue;
            }
          fed = TRUE;
          g_hash_table_iter_init (&iter, theirs);
          while (g_hash_table_iter_next (&iter, &key, NULL))
            g_hash_table_add (entries, key);
        }
      if (!fed)
        g_hash_table_add (entries, stage);
      g_hash_table_insert (by_stage, stage, entries);
    }
  return by_stage;
}

/* whether @a and @b hold a stage in common, looked up from the smaller */
static gboolean
share_any (GHashTable *a, GHashTable *b)
{
  GHashTableIter iter;
  gpointer key;

  if (g_hash_table_size (a) > g_hash_table_size (b))
    return share_any (b, a);
  g_hash_table_iter_init (&iter, a);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (g_hash_table_contains (b, key))
      return TRUE;
  return FALSE;
}

/* two stages of one thread, neither downstream of the other, each with a
 * link that leaves it, whose frames meet at a stage off it (a join:
 * blas.axpy of a -> sum.x and b -> sum.y) and come into the thread apart
 * (from another thread each, or two sources): with the join's mailbox from
 * the first full, the thread waits in a push for room that only the
 * second's frames, which that same thread would make, can give. (Frames
 * that come in at one stage of the thread go on to both by calls, each
 * frame to both before the next: the ordinary diamond; so does a stage
 * and one downstream of it.) Returns the join, its two stages in @a and
 * @b */
static AccelStage *
find_split_join (AccelGraph *graph, const char *thread, gboolean through,
    AccelStage **a, AccelStage **b)
{
  g_autoptr (GPtrArray) on = g_ptr_array_new ();
  g_autoptr (GPtrArray) below
      = g_ptr_array_new_with_free_func ((GDestroyNotify)g_hash_table_unref);
  g_autoptr (GPtrArray) leaving
      = g_ptr_array_new_with_free_func ((GDestroyNotify)g_hash_table_unref);
  g_autoptr (GHashTable) entries = entries_by_stage (graph, thread);

  for (guint i = 0; i < graph->order->len; i++)
    {
      AccelStage *stage = graph->order->pdata[i];
      GHashTable *reached;

      if (!on_thread (stage, thread))
        continue;
      reached = reached_leaving (graph, stage, thread, through);
      if (g_hash_table_size (reached) == 0)
        {
          g_hash_table_unref (reached);
          continue;
        }
      g_ptr_array_add (on, stage);
      g_ptr_array_add (leaving, reached);
      g_ptr_array_add (below, downstream (graph, stage));
    }
  for (guint i = 0; i < on->len; i++)
    for (guint j = i + 1; j < on->len; j++)
      {
        GHashTable *li = leaving->pdata[i], *lj = leaving->pdata[j];

        if (g_hash_table_contains (below->pdata[i], on->pdata[j])
            || g_hash_table_contains (below->pdata[j], on->pdata[i])
            || share_any (g_hash_table_lookup (entries, on->pdata[i]),
                g_hash_table_lookup (entries, on->pdata[j]))
            || !share_any (li, lj))
          continue;
        /* the first such join in the graph's order */
        for (guint k = 0; k < graph->order->len; k++)
          {
            AccelStage *join = graph->order->pdata[k];

            if (g_hash_table_contains (li, join)
                && g_hash_table_contains (lj, join))
              {
                *a = on->pdata[i];
                *b = on->pdata[j];
                return join;
              }
          }
      }
  return NULL;
}

/* refuses two stages of @thread whose frames meet off it (@through other
 * named threads, or only by links) */
static gboolean
check_split_join (
    AccelGraph *graph, const char *thread, gboolean through, GError **error)
{
  AccelStage *a, *b, *join = find_split_join (graph, thread, through, &a, &b);

  if (!join)
    return TRUE;
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
      "stages '%s' and '%s' share thread '%s', and their frames meet at '%s' "
      "off it: once the frames from '%s' fill the mailbox on their way, the "
      "thread waits for room there while '%s' waits for a frame from '%s', "
      "which only that thread runs; put '%s' on '%s' too, or the two on "
      "threads of their own",
      accel_stage_get_name (a), accel_stage_get_name (b), thread,
      accel_stage_get_name (join), accel_stage_get_name (a),
      accel_stage_get_name (join), accel_stage_get_name (b),
      accel_stage_get_name (join), thread);
  return FALSE;
}

/**
 * accel_graph_check_threads:
 * @graph: a graph being prepared, its wiring made
 * @error: return location for a #GError, or %NULL
 *
 * Refuses a named thread that a path leaves and comes back to, naming the
 * path, one with two stages whose frames meet off it, and threads in a
 * ring (see above).
 *
 * Returns: %FALSE with %ACCEL_ERROR_INVALID_PIPELINE. Called from the
 * thread that builds the graph.
 */
/* two stages that wait for other processes as they start, on one named
 * thread, would start one after the other and each wait for the other's
 * peers (such stages join no segment): refused as the graph is prepared,
 * so that --validate and the YAML loader find it (the run found it as it
 * started, with no place in the file) */
static gboolean
check_waiting_apart (AccelGraph *graph, GError **error)
{
  g_autoptr (GHashTable) waiting = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < graph->order->len; i++)
    {
      AccelStage *stage = graph->order->pdata[i];
      const char *thread = accel_stage_get_thread_name (stage);
      AccelStage *other;

      if (!accel_stage_start_waits (stage) || !thread)
        continue;
      if ((other = g_hash_table_lookup (waiting, thread)))
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
              "stages '%s' and '%s' both wait for other processes as they "
              "start, and would share thread '%s': give each a thread of "
              "its own",
              accel_stage_get_name (other), accel_stage_get_name (stage),
              thread);
          return FALSE;
        }
      g_hash_table_insert (waiting, (gpointer)thread, stage);
    }
  return TRUE;
}

gboolean
accel_graph_check_threads (AccelGraph *graph, GError **error)
{
  g_autoptr (GHashTable) checked = g_hash_table_new (g_str_hash, g_str_equal);

  if (!check_waiting_apart (graph, error))
    return FALSE;

  for (guint i = 0; i < graph->order->len; i++)
    {
      const char *thread = accel_stage_get_thread_name (graph->order->pdata[i]);
      g_autoptr (GPtrArray) path = NULL;
      g_autoptr (GString) names = NULL;

      if (!thread || !g_hash_table_add (checked, (gpointer)thread))
        continue;
      path = find_return (graph, thread);
      if (!path)
        {
          if (!check_split_join (graph, thread, FALSE, error))
            return FALSE;
          continue;
        }
      names = g_string_new (NULL);
      for (guint k = path->len; k-- > 0;)
        g_string_append_printf (names, "%s'%s'",
            k + 1 < path->len ? " -> " : "",
            accel_stage_get_name (path->pdata[k]));
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "stages '%s' and '%s' share thread '%s', but the path %s leaves "
          "it and comes back: a full mailbox on the way would stop both for "
          "good; put the stages between them on '%s' too, or the two on "
          "threads of their own",
          accel_stage_get_name (path->pdata[path->len - 1]),
          accel_stage_get_name (path->pdata[0]), thread, names->str, thread);
      return FALSE;
    }
  if (!check_rings (graph, error))
    return FALSE;
  /* then joins met through another thread, once rings are said as such */
  g_hash_table_remove_all (checked);
  for (guint i = 0; i < graph->order->len; i++)
    {
      const char *thread = accel_stage_get_thread_name (graph->order->pdata[i]);

      if (thread && g_hash_table_add (checked, (gpointer)thread)
          && !check_split_join (graph, thread, TRUE, error))
        return FALSE;
    }
  return TRUE;
}
