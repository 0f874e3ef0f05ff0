/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: segments: a chain of stages on one device whose process() never
 * blocks the host runs on one thread and one stream, each buffer handed on
 * by a function call, frames still pipelined by their events where a
 * segment meets another thread. A thread per stage costs a wake-up per hop
 * (about 11 µs of host time on an H100 host); a segment costs a call. And
 * which stages' work is captured into CUDA graphs (accelstagebatch.c) */
#define G_LOG_DOMAIN "accel-graph"

#include "accelgraph-private.h"
#include "accelstage-private.h"

/* why @stage needs a thread of its own, or NULL when it may join a
 * segment */
const char *
accel_stage_get_blocking_reason (AccelStage *stage)
{
  AccelStageClassInfo *info
      = accel_stage_class_info_lookup (G_OBJECT_TYPE (stage));

  if (accel_stage_get_thread_name (stage))
    return "its thread is named";
  if (accel_stage_is_host (stage))
    return "runs on the host backend";
  if (info && info->blocking)
    return "blocks its thread (I/O, an application or another framework)";
  if (info && info->start_waits)
    return "waits for other processes as it starts";
  if (ACCEL_STAGE_GET_CLASS (stage)->render)
    return "hands frames to the host after waiting for the GPU";
  return NULL;
}

/* the segment @stage joins: that of every producer of its inputs when they
 * share one and its device, else a new one it leads */
static AccelStage *
segment_of (AccelGraph *graph, AccelStage *stage)
{
  AccelStage *segment = NULL;
  gboolean any = FALSE;

  for (guint l = 0; l < graph->wiring->len; l++)
    {
      GraphLink *link = &g_array_index (graph->wiring, GraphLink, l);
      AccelStage *theirs;

      if (link->dst != stage)
        continue;
      theirs = accel_stage_get_segment (link->src);
      if (!theirs
          || accel_stage_get_device (link->src)
                 != accel_stage_get_device (stage)
          || (any && theirs != segment))
        return stage;
      segment = theirs;
      any = TRUE;
    }
  return any ? segment : stage;
}

/**
 * accel_graph_partition:
 * @graph: a prepared graph
 *
 * Puts each stage that may share a thread into a segment, in topological
 * order, and says in the graph's notes why the others stand alone. With
 * segments off every stage stands alone. Called from the thread that
 * starts the graph.
 */
void
accel_graph_partition (AccelGraph *graph)
{
  for (guint i = 0; i < graph->order->len; i++)
    {
      AccelStage *stage = graph->order->pdata[i];
      const char *why = graph->segments
                            ? accel_stage_get_blocking_reason (stage)
                            : "segments are off";

      const char *no_capture = accel_graph_capture_reason (graph, stage);

      accel_stage_set_segment (stage, why ? NULL : segment_of (graph, stage));
      accel_stage_set_capture (stage, no_capture == NULL);
      if (no_capture && graph->capture_mode == ACCEL_CAPTURE_ON)
        g_message ("stage '%s' runs with stream launches: %s",
            accel_stage_get_name (stage), no_capture);
      else if (no_capture)
        g_debug ("stage '%s' runs with stream launches: %s",
            accel_stage_get_name (stage), no_capture);
      if (why)
        g_debug ("stage '%s' has a thread of its own: %s",
            accel_stage_get_name (stage), why);
      else
        g_debug ("stage '%s' runs in the segment of '%s'",
            accel_stage_get_name (stage),
            accel_stage_get_name (accel_stage_get_segment (stage)));
    }
}

/* whether @stage's kind says its frames can be captured; a sink's
 * render() waits for its work, which must then be queued */
static gboolean
kind_can_capture (AccelStage *stage)
{
  AccelStageClass *klass = ACCEL_STAGE_GET_CLASS (stage);

  return klass->can_capture && !klass->render;
}

/* why @stage's work is not captured into CUDA graphs, or NULL when it is */
const char *
accel_graph_capture_reason (AccelGraph *graph, AccelStage *stage)
{
  if (graph->capture_mode == ACCEL_CAPTURE_OFF)
    return "graph mode is off for the pipeline";
  if (accel_stage_get_capture_mode (stage) == ACCEL_CAPTURE_OFF)
    return "graph mode is off for the stage";
  if (accel_stage_is_host (stage))
    return "it runs on the host backend";
  /* a capture takes in whatever any thread enqueues on the stream */
  if (graph->stream_policy != ACCEL_STREAM_POLICY_PER_STAGE)
    return "stages on other threads may share its stream (stream policy "
           "single or pooled)";
  return kind_can_capture (stage) ? NULL : "its kind cannot be captured";
}

/* a stage set to `graph: on` whose kind cannot be captured is refused */
gboolean
accel_graph_check_capture (AccelStage *stage, GError **error)
{
  if (accel_stage_get_capture_mode (stage) != ACCEL_CAPTURE_ON
      || kind_can_capture (stage))
    return TRUE;
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
      "stage '%s' (%s) has graph: on, but its kind cannot be captured into a "
      "CUDA graph (it reads results back to the host or its work changes "
      "every frame): use auto or off",
      accel_stage_get_name (stage), accel_stage_get_kind_name (stage));
  return FALSE;
}

/**
 * accel_graph_set_capture_mode:
 * @graph: a graph that is not running
 * @mode: whether stages' work is captured into CUDA graphs and replayed:
 *   %ACCEL_CAPTURE_AUTO (the default) where their kind can be,
 *   %ACCEL_CAPTURE_ON the same but every stage left to stream launches is
 *   reported, %ACCEL_CAPTURE_OFF never
 *
 * A stage's `graph` property set to off overrides. Called from the thread
 * that builds the graph, before accel_graph_start().
 */
void
accel_graph_set_capture_mode (AccelGraph *graph, AccelCaptureMode mode)
{
  g_return_if_fail (ACCEL_IS_GRAPH (graph));
  g_return_if_fail (mode == ACCEL_CAPTURE_AUTO || mode == ACCEL_CAPTURE_ON
                    || mode == ACCEL_CAPTURE_OFF);
  g_return_if_fail (graph->state != GRAPH_RUNNING);
  graph->capture_mode = mode;
}

/**
 * accel_graph_get_capture_mode:
 * @graph: a graph
 *
 * Returns: the graph mode set by accel_graph_set_capture_mode().
 */
AccelCaptureMode
accel_graph_get_capture_mode (AccelGraph *graph)
{
  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), ACCEL_CAPTURE_AUTO);
  return graph->capture_mode;
}

/**
 * accel_graph_set_segments:
 * @graph: a graph that is not running
 * @segments: whether chains of non-blocking GPU stages share a thread and
 *   a stream (the default) or every stage has a thread of its own
 *
 * A stage's `thread` property overrides either way. Called from the thread
 * that builds the graph, before accel_graph_start().
 */
void
accel_graph_set_segments (AccelGraph *graph, gboolean segments)
{
  g_return_if_fail (ACCEL_IS_GRAPH (graph));
  g_return_if_fail (graph->state != GRAPH_RUNNING);
  graph->segments = segments;
}
