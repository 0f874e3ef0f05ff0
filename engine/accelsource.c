/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: what only sources do (produce a frame whenever downstream has
 * room, up to a frame limit, from a resume sequence; live sources record
 * what they produced), and the transform's role, which is the source's
 * without the producing */
#define G_LOG_DOMAIN "accel-stage"

#include "accelstage-private.h"

#include <errno.h>
#include <unistd.h>

/* a few frames per dispatch: each main loop iteration costs a poll() */
#define FRAMES_PER_DISPATCH 8

static gboolean
produce_dispatch (gpointer user_data)
{
  AccelStage *self = user_data;
  AccelStagePrivate *priv = accel_stage_get_private (self);
  const char *previous;
  gboolean more;

  if (priv->busy)
    return G_SOURCE_CONTINUE;
  priv->busy = TRUE;
  previous = accel_stage_enter (self);
  more = TRUE;
  for (guint n = 0; n < FRAMES_PER_DISPATCH && more; n++)
    {
      more = !priv->done && accel_stage_run_frame (self, NULL);
      if (accel_mailbox_has_control (priv->mailbox)
          || accel_stage_is_parked (self)
          || accel_stage_is_waiting_for_buffer (self))
        break;
    }
  accel_stage_leave (previous);
  priv->busy = FALSE;
  /* downstream has no room: produce again once the parked outputs are
   * taken (accelstagepark.c), or once a buffer is free
   * (accelstagebufferwait.c) */
  if (!more || accel_stage_is_parked (self)
      || accel_stage_is_waiting_for_buffer (self))
    {
      priv->source.produce = NULL;
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

/**
 * accel_stage_produce_again:
 * @self: a stage
 *
 * A source that stopped producing while its outputs waited (parked, or a
 * frame that waited for a buffer) produces again once nothing holds it;
 * any other stage, or a source that is mid-frame, done or producing, is
 * left as it is. Stage thread.
 */
void
accel_stage_produce_again (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);

  if (priv->n_in == 0 && !priv->busy && !priv->done && !priv->source.produce
      && !accel_stage_is_parked (self)
      && !accel_stage_is_waiting_for_buffer (self))
    priv->role->begin (self);
}

static void
source_begin (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  GSource *source;

  /* stepped: each frame waits for its step message */
  if (priv->source.stepped)
    return;
  source = g_idle_source_new ();
  g_source_set_static_name (source, "accel-produce");
  g_source_set_priority (source, G_PRIORITY_DEFAULT_IDLE);
  g_source_set_callback (source, produce_dispatch, self, NULL);
  priv->source.produce = source;
  g_source_attach (source, priv->context);
  g_source_unref (source);
}

/* a live source's last sequence (-1: none), overwritten in place, without
 * fsync: it has to outlive the process, not the machine */
static void
record_produced (AccelStage *self, gint64 sequence)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  char line[32];
  int n;

  if (priv->source.produced_fd < 0)
    return;
  /* none: a line of the same width that reads as no number */
  if (sequence < 0)
    n = g_snprintf (line, sizeof (line), "%20s\n", "none");
  else
    n = g_snprintf (line, sizeof (line), "%020" G_GINT64_FORMAT "\n", sequence);
  if (pwrite (priv->source.produced_fd, line, n, 0) != n)
    g_warning ("stage '%s': cannot record its last sequence: %s", priv->name,
        g_strerror (errno));
}

/* the sequence is recorded as it is taken, before the frame is made: a
 * live source's frame is gone from its device once it starts on it, and a
 * consumer in its segment that dies runs inside its push, before the
 * frame is done (the next worker counted one frame too few lost) */
static AccelSequenceResult
source_next_sequence (AccelStage *self, AccelBuffer **inputs, guint64 *sequence)
{
  AccelSourceState *source = &accel_stage_get_private (self)->source;
  AccelStageClass *klass = ACCEL_STAGE_GET_CLASS (self);

  /* before the outputs are taken: the frame past the end needs none */
  if ((source->frame_limit >= 0
          && source->next_sequence >= (guint64)source->frame_limit)
      || (klass->has_frame && !klass->has_frame (self, source->next_sequence)))
    return ACCEL_SEQUENCE_END;
  *sequence = source->next_sequence++;
  record_produced (self, (gint64)*sequence);
  return ACCEL_SEQUENCE_RUN;
}

static AccelFrameResult
push_outputs (AccelStage *self, AccelFrame *frame, gint64 t0, GError **error)
{
  return accel_stage_push_outputs (self, frame);
}

static gboolean
source_frame_done (AccelStage *self, guint64 sequence, GError **error)
{
  accel_stage_get_private (self)->source.last_done = (gint64)sequence;
  return TRUE;
}

/* at the end of the stream the sequence taken for the end itself made no
 * frame: the last one handed on is what was produced (a clean run's rerun
 * counted one frame lost) */
static void
source_end (AccelStage *self)
{
  record_produced (self, accel_stage_get_private (self)->source.last_done);
  accel_stage_send_eos_downstream (self);
}

const AccelStageRole accel_source_role = {
  .begin = source_begin,
  .next_sequence = source_next_sequence,
  .hand_on = push_outputs,
  .frame_done = source_frame_done,
  .end = source_end,
};

void
accel_source_state_clear (AccelSourceState *source)
{
  if (source->produced_fd >= 0)
    close (source->produced_fd);
  source->produced_fd = -1;
}

/* transforms: the frame is that of the inputs */

static AccelSequenceResult
input_sequence (AccelStage *self, AccelBuffer **inputs, guint64 *sequence)
{
  *sequence = accel_buffer_get_sequence (inputs[0]);
  return ACCEL_SEQUENCE_RUN;
}

static gboolean
nothing_to_record (AccelStage *self, guint64 sequence, GError **error)
{
  return TRUE;
}

const AccelStageRole accel_transform_role = {
  .next_sequence = input_sequence,
  .hand_on = push_outputs,
  .frame_done = nothing_to_record,
  .end = accel_stage_send_eos_downstream,
};
