/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: stepped graphs, for an application that drives a simulation frame
 * by frame: the sources produce a frame only when the graph steps, and a
 * step returns once that frame has reached every sink, so a parameter set
 * between two steps applies exactly at the next frame */
#define G_LOG_DOMAIN "accel-graph"

#include "accelgraph-private.h"

/* a sink finished a frame, or any stage skipped one: a step may be over */
static void
on_sink_frame (AccelStage *stage, gpointer user_data)
{
  AccelGraph *graph = user_data;

  g_mutex_lock (&graph->lock);
  graph->n_sink_frames++;
  g_cond_broadcast (&graph->cond);
  g_mutex_unlock (&graph->lock);
}

/* what the graph hears of its stages when it runs stepped */
void
accel_graph_observe_steps (AccelGraph *graph, AccelStageObserver *observer)
{
  if (graph->stepped)
    observer->frame = on_sink_frame;
}

/**
 * accel_graph_set_stepped:
 * @graph: a graph that is not running
 * @stepped: whether the sources produce a frame only for each
 *   accel_graph_step()
 *
 * A stepped graph is driven by the application: it never runs ahead of
 * it, and a parameter set with accel_stage_set_param_async() between two
 * steps applies from the next frame on, exactly. It ends when stepped past
 * its sources' last frame; until then accel_graph_wait() waits for the
 * application. Called from the thread that builds the graph, before
 * accel_graph_start().
 */
void
accel_graph_set_stepped (AccelGraph *graph, gboolean stepped)
{
  g_return_if_fail (ACCEL_IS_GRAPH (graph));
  g_return_if_fail (graph->state != GRAPH_RUNNING);
  graph->stepped = stepped;
}

/* the sinks downstream of @stage, into @sinks */
static void
collect_sinks (AccelGraph *graph, AccelStage *stage, GHashTable *sinks)
{
  if (accel_stage_get_n_outputs (stage) == 0)
    {
      g_hash_table_add (sinks, stage);
      return;
    }
  for (guint l = 0; l < graph->wiring->len; l++)
    {
      GraphLink *link = &g_array_index (graph->wiring, GraphLink, l);
      if (link->src == stage)
        collect_sinks (graph, link->dst, sinks);
    }
}

/* frames done, skipped or committed before by the sinks of @graph; each
 * frame another stage skipped or withheld counted once for every sink
 * below it, which it never reaches */
static guint64
sink_frames (AccelGraph *graph)
{
  guint64 n = 0;

  for (guint i = 0; i < graph->order->len; i++)
    {
      AccelStage *stage = graph->order->pdata[i];
      guint64 skipped = accel_stage_get_n_skipped (stage)
                        + accel_stage_get_n_withheld (stage);

      if (accel_stage_get_n_outputs (stage) == 0)
        n += accel_stage_get_n_processed (stage) + skipped;
      else if (skipped > 0)
        {
          g_autoptr (GHashTable) sinks = g_hash_table_new (NULL, NULL);

          collect_sinks (graph, stage, sinks);
          n += skipped * g_hash_table_size (sinks);
        }
    }
  return n;
}

/**
 * accel_graph_step:
 * @graph: a running stepped graph (accel_graph_set_stepped())
 * @timeout_us: how long to wait for the frame, or -1 for as long as it
 *   takes
 * @error: return location for a #GError, or %NULL
 *
 * Has every source produce one frame and waits until each sink has taken
 * it (finished it, or skipped it after a fault). Parameters set before
 * the call apply to this frame; the sources produce nothing more until the
 * next step. Called from the application's thread, never a stage's.
 *
 * Returns: %TRUE when the frame went through; %FALSE with
 * %ACCEL_ERROR_TIMEOUT past @timeout_us, %ACCEL_ERROR_STOPPED when the
 * graph has ended (its sources' last frame was the step before) or was
 * stopped, the error that stopped it, or %ACCEL_ERROR_FAILED for a graph
 * that is not stepped or a call on one of its stages' threads.
 */
gboolean
accel_graph_step (AccelGraph *graph, gint64 timeout_us, GError **error)
{
  gint64 deadline = accel_deadline_after (timeout_us);
  guint64 target;
  gboolean ok, ended;

  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), FALSE);
  if (!graph->stepped)
    return accel_graph_refuse_call (
        graph, "a step needs a stepped graph (accel_graph_set_stepped)", error);
  if (graph->state != GRAPH_RUNNING)
    return accel_graph_refuse_call (
        graph, "a step needs it started (accel_graph_start)", error);
  if (accel_graph_on_stage_thread (graph))
    return accel_graph_refuse_stage_thread (graph, "a step", error);

  /* each sink that is still running takes one frame; with none left
   * there is no frame to take (the target would be met as it is). A step
   * that timed out asked for a frame still on its way: this one's comes
   * after it */
  g_mutex_lock (&graph->lock);
  /* a sink that ended since takes no frame: the late one may never come */
  if (graph->step_sinks_done != graph->n_sinks_done)
    graph->step_target = 0;
  graph->step_sinks_done = graph->n_sinks_done;
  target = MAX (graph->step_target, sink_frames (graph))
           + (graph->n_sinks - graph->n_sinks_done);
  graph->step_target = target;
  ended = graph->n_sinks_done == graph->n_sinks;
  g_mutex_unlock (&graph->lock);
  for (guint i = 0; i < graph->order->len && !ended; i++)
    if (accel_stage_get_n_inputs (graph->order->pdata[i]) == 0)
      accel_stage_step_async (graph->order->pdata[i]);

  g_mutex_lock (&graph->lock);
  while (!graph->error && !graph->stopping
         && graph->n_sinks_done < graph->n_sinks
         && sink_frames (graph) < target)
    if (deadline < 0)
      g_cond_wait (&graph->cond, &graph->lock);
    else if (!g_cond_wait_until (&graph->cond, &graph->lock, deadline))
      break;
  ok = !ended && !graph->error && sink_frames (graph) >= target;
  if (graph->error)
    g_propagate_error (error, g_error_copy (graph->error));
  else if (!ok && !graph->stopping && graph->n_sinks_done < graph->n_sinks)
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT,
        "graph '%s': a step took more than %" G_GINT64_FORMAT " ms",
        graph->name, timeout_us / 1000);
  else if (!ok)
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED,
        "graph '%s' has ended: no frame to step to", graph->name);
  g_mutex_unlock (&graph->lock);
  return ok;
}
