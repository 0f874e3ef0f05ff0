/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: stepped graphs, for an application that drives a simulation frame
 * by frame: the sources produce a frame only when the graph steps, and a
 * step returns once that frame has reached every sink, so a parameter set
 * between two steps applies exactly at the next frame */
#define G_LOG_DOMAIN "accel-graph"

#include "accelgraph-private.h"

/* a sink as the steps see it */
typedef struct
{
  AccelStage *sink;
  GPtrArray *above; /* the stages upstream: a frame one skips never comes */
  /* the frames it skipped or withheld, and those lost above it, each once
   * however many stages report it: the branches above a join, or the
   * stages of a captured batch after the one that failed it, and the
   * stage that did */
  guint64 n_lost;
  /* the sequences lost from the last frame it took on, as sorted runs
   * (LostRun): consecutive losses are one run, so it holds a few runs
   * however long the sink takes nothing */
  GArray *lost;
  guint64 target; /* the frames the steps asked of it */
  gboolean asked; /* running as the step began: it takes a frame */
  gboolean ended; /* its stream ended: it takes no more */
} StepSink;

typedef struct
{
  guint64 first, last;
} LostRun;

static void
step_sink_free (gpointer data)
{
  StepSink *s = data;

  g_ptr_array_unref (s->above);
  g_array_unref (s->lost);
  g_free (s);
}

#define RUN(s, i) g_array_index ((s)->lost, LostRun, (i))

/* frame @sequence was lost at or above @s: counted once, however many
 * stages report it */
static void
note_lost (StepSink *s, guint64 sequence)
{
  guint i;

  /* mostly the latest: i is the first run after @sequence */
  for (i = s->lost->len; i > 0; i--)
    if (RUN (s, i - 1).first <= sequence)
      break;
  if (i > 0 && sequence <= RUN (s, i - 1).last)
    return;
  s->n_lost++;
  if (i > 0 && RUN (s, i - 1).last + 1 == sequence)
    {
      RUN (s, i - 1).last = sequence;
      if (i < s->lost->len && RUN (s, i).first == sequence + 1)
        {
          RUN (s, i - 1).last = RUN (s, i).last;
          g_array_remove_index (s->lost, i);
        }
    }
  else if (i < s->lost->len && RUN (s, i).first == sequence + 1)
    RUN (s, i).first = sequence;
  else
    {
      LostRun run = { sequence, sequence };
      g_array_insert_val (s->lost, i, run);
    }
}

/* @s took frame @sequence (or lost it itself): each stage above it has
 * handed on the frames before it, or said which of them it lost; a
 * report of @sequence itself may still come */
static void
forget_lost_before (StepSink *s, guint64 sequence)
{
  guint n = 0;

  while (n < s->lost->len && RUN (s, n).last < sequence)
    n++;
  if (n > 0)
    g_array_remove_range (s->lost, 0, n);
  if (s->lost->len > 0 && RUN (s, 0).first < sequence)
    RUN (s, 0).first = sequence;
}

/* a sink finished frame @sequence, or (@lost) a stage skipped or withheld
 * it: a step may be over */
static void
on_stage_frame (
    AccelStage *stage, guint64 sequence, gboolean lost, gpointer user_data)
{
  AccelGraph *graph = user_data;

  g_mutex_lock (&graph->lock);
  for (guint i = 0; i < graph->step_sinks->len; i++)
    {
      StepSink *s = graph->step_sinks->pdata[i];

      if (stage == s->sink)
        {
          if (lost)
            note_lost (s, sequence);
          forget_lost_before (s, sequence);
        }
      else if (lost && g_ptr_array_find (s->above, stage, NULL))
        note_lost (s, sequence);
    }
  g_cond_broadcast (&graph->cond);
  g_mutex_unlock (&graph->lock);
}

/* the stages upstream of @stage, into @above */
static void
collect_above (AccelGraph *graph, AccelStage *stage, GPtrArray *above)
{
  for (guint l = 0; l < graph->wiring->len; l++)
    {
      GraphLink *link = &g_array_index (graph->wiring, GraphLink, l);

      if (link->dst == stage && !g_ptr_array_find (above, link->src, NULL))
        {
          g_ptr_array_add (above, link->src);
          collect_above (graph, link->src, above);
        }
    }
}

/* what the graph hears of its stages when it runs stepped, and its sinks
 * as the steps see them; as it starts */
void
accel_graph_observe_steps (AccelGraph *graph, AccelStageObserver *observer)
{
  g_clear_pointer (&graph->step_sinks, g_ptr_array_unref);
  if (!graph->stepped)
    return;
  observer->frame = on_stage_frame;
  graph->step_sinks = g_ptr_array_new_with_free_func (step_sink_free);
  for (guint i = 0; i < graph->order->len; i++)
    {
      AccelStage *stage = graph->order->pdata[i];
      StepSink *s;

      if (!accel_stage_ends_a_branch (stage))
        continue;
      s = g_new0 (StepSink, 1);
      s->sink = stage;
      s->above = g_ptr_array_new ();
      collect_above (graph, stage, s->above);
      s->lost = g_array_new (FALSE, FALSE, sizeof (LostRun));
      g_ptr_array_add (graph->step_sinks, s);
    }
}

/* @sink's stream ended: the steps ask nothing more of it. Under the
 * graph's lock */
void
accel_graph_step_sink_ended (AccelGraph *graph, AccelStage *sink)
{
  for (guint i = 0; graph->step_sinks && i < graph->step_sinks->len; i++)
    {
      StepSink *s = graph->step_sinks->pdata[i];

      if (s->sink == sink)
        s->ended = TRUE;
    }
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

/* the frames @s finished, skipped or committed before, and those skipped
 * or withheld above it, which never reach it (under the graph's lock) */
static guint64
sink_frames (StepSink *s)
{
  return accel_stage_get_n_processed (s->sink) + s->n_lost;
}

/* how many sinks the step asked a frame of still wait for it (under the
 * graph's lock); @reached: how many have it */
static guint
sinks_waiting (AccelGraph *graph, guint *reached)
{
  guint waiting = 0;

  *reached = 0;
  for (guint i = 0; i < graph->step_sinks->len; i++)
    {
      StepSink *s = graph->step_sinks->pdata[i];

      if (!s->asked)
        continue;
      if (sink_frames (s) >= s->target)
        *reached += 1;
      else if (!s->ended)
        waiting++;
    }
  return waiting;
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
  guint waiting, reached = 0;
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
   * there is no frame to take. A step that timed out asked for a frame
   * still on its way: this one's comes after it. A sink whose stream ends
   * during the step takes none, and the step is through once every other
   * has its frame (it waited on the one that ended) */
  g_mutex_lock (&graph->lock);
  ended = TRUE;
  for (guint i = 0; i < graph->step_sinks->len; i++)
    {
      StepSink *s = graph->step_sinks->pdata[i];

      s->asked = !s->ended;
      if (s->ended)
        continue;
      ended = FALSE;
      s->target = MAX (s->target, sink_frames (s)) + 1;
    }
  g_mutex_unlock (&graph->lock);
  for (guint i = 0; i < graph->order->len && !ended; i++)
    if (accel_stage_get_n_inputs (graph->order->pdata[i]) == 0)
      accel_stage_step_async (graph->order->pdata[i]);

  g_mutex_lock (&graph->lock);
  while (!ended && !graph->error && !graph->stopping
         && sinks_waiting (graph, &reached) > 0)
    if (deadline < 0)
      g_cond_wait (&graph->cond, &graph->lock);
    else if (!g_cond_wait_until (&graph->cond, &graph->lock, deadline))
      break;
  waiting = ended ? 0 : sinks_waiting (graph, &reached);
  ok = !ended && !graph->error && waiting == 0 && reached > 0;
  if (graph->error)
    g_propagate_error (error, g_error_copy (graph->error));
  else if (graph->stopping && !ok)
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED,
        "graph '%s' was stopped during the step", graph->name);
  else if (!ok && waiting > 0)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT,
          "graph '%s': a step took more than %" G_GINT64_FORMAT " ms",
          graph->name, timeout_us / 1000);
      if (error)
        accel_graph_append_app_waits (graph, *error);
    }
  else if (!ok)
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED,
        "graph '%s' has ended: no frame to step to", graph->name);
  g_mutex_unlock (&graph->lock);
  return ok;
}
