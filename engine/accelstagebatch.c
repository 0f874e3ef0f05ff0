/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: graph mode. While a segment's thread walks a frame through its
 * stages, the process() of each stage that can be captured is not called
 * but batched, with the hand-on of its outputs to anyone outside the batch.
 * When the walk is over (or before anything else must run on the stream),
 * the batch is keyed by its stages, their parameters and their buffers'
 * addresses: a key seen before replays its CUDA graph with one launch; a new
 * one calls the batched process() functions under stream capture and keeps
 * the graph. Then the frames' fences are released (events recorded after
 * the launch) and the batched hand-ons made.
 *
 * The waits for other streams are enqueued as each stage acquires its
 * buffers, before the launch, never captured: an event wait inside a graph
 * would name one event of the ring, and the key would change every frame */
#define G_LOG_DOMAIN "accel-capture"

#include "accelstage-private.h"

/* executable graphs a segment keeps: its pools cycle through their buffers,
 * and each combination of addresses is a key */
#define ACCEL_CAPTURE_CACHE_SIZE 32
/* captures in a row that fail with no stage to blame before the batch's
 * stages give up graph mode */
#define ACCEL_CAPTURE_MAX_FAILURES 3

typedef struct
{
  AccelStage *stage;
  guint64 sequence;
  gint64 pts;
  AccelStream *stream; /* the stage's, owned by it */
  AccelBuffer *inputs[ACCEL_MAX_PORTS];
  AccelBuffer *outputs[ACCEL_MAX_PORTS];
} BatchedFrame;

typedef struct
{
  AccelStage *producer;
  AccelLink *link; /* in the producer's links, fixed while running */
  AccelBuffer *buffer;
  guint64 sequence;
} BatchedPush;

struct _AccelStageBatch
{
  GArray *frames, *spare_frames; /* BatchedFrame */
  GArray *pushes, *spare_pushes; /* BatchedPush */
  GArray *key;                   /* guint64, rebuilt per flush */
  AccelStream *stream;           /* the batched frames', while any */
  guint depth;                   /* walks and flushes under way */
  gboolean orphaned; /* its stage stopped: freed once no longer in use */
  guint failures;    /* captures that failed in a row, no stage to blame */
  guint flushing;    /* flushes under way: their pushes are yet to go */
  AccelCaptureCache *cache;
  gchar *nvtx_name; /* "<segment> graph": the range of a replay or capture */
};

static void
frame_clear (BatchedFrame *f)
{
  for (guint i = 0; i < ACCEL_MAX_PORTS; i++)
    {
      g_clear_pointer (&f->inputs[i], accel_buffer_unref);
      g_clear_pointer (&f->outputs[i], accel_buffer_unref);
    }
}

static void
push_clear (BatchedPush *p)
{
  g_clear_pointer (&p->buffer, accel_buffer_unref);
}

static GArray *
frames_new (void)
{
  GArray *a = g_array_sized_new (FALSE, TRUE, sizeof (BatchedFrame), 8);
  g_array_set_clear_func (a, (GDestroyNotify)frame_clear);
  return a;
}

static GArray *
pushes_new (void)
{
  GArray *a = g_array_sized_new (FALSE, TRUE, sizeof (BatchedPush), 8);
  g_array_set_clear_func (a, (GDestroyNotify)push_clear);
  return a;
}

/* the stage whose batch @self's frames join: its segment's first */
static AccelStage *
owner_of (AccelStage *self)
{
  AccelStage *segment = accel_stage_get_private (self)->segment;

  return segment ? segment : self;
}

/* @self's segment's batch, made on first use; NULL once the segment's
 * first stage has stopped */
static AccelStageBatch *
batch_of (AccelStage *self)
{
  AccelStagePrivate *owner = accel_stage_get_private (owner_of (self));

  if (!owner->batch && !owner->stopped)
    {
      owner->batch = g_new0 (AccelStageBatch, 1);
      owner->batch->frames = frames_new ();
      owner->batch->pushes = pushes_new ();
      owner->batch->key = g_array_new (FALSE, FALSE, sizeof (guint64));
      owner->batch->nvtx_name = g_strconcat (owner->name, " graph", NULL);
    }
  return owner->batch;
}

static void
batch_free (AccelStageBatch *batch)
{
  g_array_unref (batch->frames);
  g_array_unref (batch->pushes);
  g_clear_pointer (&batch->spare_frames, g_array_unref);
  g_clear_pointer (&batch->spare_pushes, g_array_unref);
  g_array_unref (batch->key);
  accel_capture_cache_free (batch->cache);
  g_free (batch->nvtx_name);
  g_free (batch);
}

/* a walk or a flush is over; an orphaned batch goes with the last */
static void
batch_release (AccelStageBatch *batch)
{
  if (--batch->depth == 0 && batch->orphaned)
    batch_free (batch);
}

/* whether the frames of @target would join @self's batch: one thread, one
 * stream, one segment */
gboolean
accel_stage_batch_holds (AccelStage *self, AccelStage *target)
{
  AccelStagePrivate *a = accel_stage_get_private (self);
  AccelStagePrivate *b = accel_stage_get_private (target);

  return a->worker == b->worker && a->stream == b->stream
         && owner_of (self) == owner_of (target);
}

/**
 * accel_stage_batch_defer:
 * @self: the stage running @frame
 * @frame: acquired, about to be processed
 *
 * Batches @frame's process() when the stage and this frame can be
 * captured. Stage thread.
 *
 * Returns: %TRUE when batched: process() is not to be called now.
 */
gboolean
accel_stage_batch_defer (AccelStage *self, AccelFrame *frame)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  AccelStageClass *klass = ACCEL_STAGE_GET_CLASS (self);
  AccelStageBatch *batch;
  BatchedFrame *f;

  /* priv->capture: the kind can be captured (accelsegment.c) */
  if (!priv->capture || !accel_stream_get_handle (frame->stream)
      || accel_fault_pending () || !klass->can_capture (self, frame)
      || !(batch = batch_of (self)) || batch->orphaned)
    return FALSE;
  /* the first frame after a start or a change runs as it comes: what a
   * stage makes on first use (plans, workspaces) is not captured */
  if (!priv->capture_warm)
    {
      priv->capture_warm = TRUE;
      return FALSE;
    }
  if (batch->frames->len > 0 && batch->stream != frame->stream)
    accel_stage_batch_flush (self);

  batch->stream = frame->stream;
  g_array_set_size (batch->frames, batch->frames->len + 1);
  f = &g_array_index (batch->frames, BatchedFrame, batch->frames->len - 1);
  f->stage = self;
  f->sequence = frame->sequence;
  f->pts = frame->pts;
  f->stream = frame->stream;
  for (guint i = 0; i < frame->n_inputs; i++)
    f->inputs[i] = accel_buffer_ref (frame->inputs[i]);
  for (guint o = 0; o < frame->n_outputs; o++)
    f->outputs[o] = accel_buffer_ref (frame->outputs[o]);
  return TRUE;
}

/* hands @buffer on along @link once the batch has run; takes @buffer */
void
accel_stage_batch_push (
    AccelStage *self, AccelLink *link, AccelBuffer *buffer, guint64 sequence)
{
  AccelStageBatch *batch = batch_of (self);
  BatchedPush p = { self, link, buffer, sequence };

  /* the segment stopped meanwhile: the graph is going down */
  if (!batch || batch->orphaned)
    {
      accel_buffer_unref (buffer);
      return;
    }

  g_array_append_val (batch->pushes, p);
}

static void
frame_view (AccelStagePrivate *priv, BatchedFrame *f, AccelFrame *frame)
{
  frame->stream = f->stream;
  frame->sequence = f->sequence;
  frame->pts = f->pts;
  frame->n_inputs = priv->n_in;
  frame->inputs = f->inputs;
  frame->n_outputs = priv->n_out;
  frame->outputs = f->outputs;
}

/* what identifies the batch's work: each stage, its parameters' generation
 * and its buffers' addresses and sizes */
static void
build_key (GArray *key, GArray *frames)
{
  g_array_set_size (key, 0);
  for (guint i = 0; i < frames->len; i++)
    {
      BatchedFrame *f = &g_array_index (frames, BatchedFrame, i);
      AccelStagePrivate *priv = accel_stage_get_private (f->stage);
      guint64 words[2]
          = { GPOINTER_TO_SIZE (f->stage), priv->capture_generation };

      g_array_append_vals (key, words, 2);
      for (guint p = 0; p < priv->n_in + priv->n_out; p++)
        {
          AccelBuffer *b
              = p < priv->n_in ? f->inputs[p] : f->outputs[p - priv->n_in];
          guint64 w[2] = { GPOINTER_TO_SIZE (accel_buffer_get_data (b)),
            accel_buffer_get_size (b) };
          g_array_append_vals (key, w, 2);
        }
    }
}

static AccelFlow
call_process (BatchedFrame *f, GError **error)
{
  AccelStagePrivate *priv = accel_stage_get_private (f->stage);
  const char *previous = accel_stage_enter (f->stage);
  AccelFrame frame;
  AccelFlow flow;

  frame_view (priv, f, &frame);
  accel_stage_watch_work (f->stage, f->sequence);
  ACCEL_NVTX_PUSH (priv->name, f->sequence);
  flow = ACCEL_STAGE_GET_CLASS (f->stage)->process (f->stage, &frame, error);
  ACCEL_NVTX_POP ();
  accel_stage_unwatch_work (f->stage);
  accel_stage_leave (previous);
  return flow;
}

/* captures the frames' work; FALSE with @culprit set when a stage broke
 * the capture */
static gboolean
capture_locked (AccelStageBatch *batch, GArray *frames, AccelStage **culprit,
    GError **error)
{
  if (!accel_capture_begin (batch->stream, error))
    return FALSE;
  for (guint i = 0; i < frames->len && !*culprit; i++)
    {
      BatchedFrame *f = &g_array_index (frames, BatchedFrame, i);
      AccelFlow flow = call_process (f, error);

      if (flow != ACCEL_FLOW_OK || !accel_capture_is_valid (batch->stream))
        {
          *culprit = f->stage;
          if (error && !*error)
            g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
                flow == ACCEL_FLOW_OK ? "it made a call that cannot be captured"
                                      : "its process() did not return OK");
        }
    }
  if (*culprit)
    {
      accel_capture_end (batch->cache, batch->stream, NULL, 0, NULL);
      return FALSE;
    }
  return accel_capture_end (batch->cache, batch->stream,
      (guint64 *)batch->key->data, batch->key->len, error);
}

/* captures the frames' work and launches it; FALSE when it could not be
 * captured (nothing ran): the stage that broke the capture is left to
 * stream launches from now on, and the debug log says why */
static gboolean
capture (AccelStageBatch *batch, GArray *frames)
{
  GError *error = NULL;
  AccelStage *culprit = NULL;
  gboolean ok;

  /* no call that waits on the whole device may overlap the capture */
  accel_device_capture_begin ();
  ok = capture_locked (batch, frames, &culprit, &error);
  accel_device_capture_end ();
  if (ok)
    {
      batch->failures = 0;
      return TRUE;
    }
  if (culprit)
    {
      accel_stage_get_private (culprit)->capture = FALSE;
      g_debug ("stage '%s' goes back to stream launches: it cannot be "
               "captured: %s",
          accel_stage_get_name (culprit), error->message);
    }
  else if (++batch->failures < ACCEL_CAPTURE_MAX_FAILURES)
    g_debug ("a batch of %u frames runs with stream launches: %s", frames->len,
        error->message);
  else
    {
      /* no one stage to blame (the graph would not instantiate): the
       * batch's stages stop trying rather than pay twice every frame */
      for (guint i = 0; i < frames->len; i++)
        {
          BatchedFrame *f = &g_array_index (frames, BatchedFrame, i);
          accel_stage_get_private (f->stage)->capture = FALSE;
          g_debug ("stage '%s' goes back to stream launches: its batch "
                   "failed %u times: %s",
              accel_stage_get_name (f->stage), batch->failures, error->message);
        }
    }
  g_error_free (error);
  return FALSE;
}

/* runs the frames' work with stream launches; a frame that fails is the
 * fault of its stage, and the stages after it in the batch skip that
 * sequence (its hand-ons are dropped) */
static void
run_live (GArray *frames, GArray *pushes)
{
  for (guint i = 0; i < frames->len; i++)
    {
      BatchedFrame *f = &g_array_index (frames, BatchedFrame, i);
      GError *error = NULL;
      AccelFlow flow;

      if (f->stage == NULL)
        continue;
      flow = call_process (f, &error);
      if (flow == ACCEL_FLOW_OK)
        continue;
      if (!error)
        g_set_error (&error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
            "a batched frame did not return OK");
      for (guint j = i + 1; j < frames->len; j++)
        {
          BatchedFrame *g = &g_array_index (frames, BatchedFrame, j);
          if (g->stage && g->sequence == f->sequence)
            {
              g_autoptr (GError) before = g_error_new (ACCEL_ERROR, error->code,
                  "stage '%s' before it failed the frame: %s",
                  accel_stage_get_name (f->stage), error->message);

              accel_stage_count_fault (g->stage, g->sequence, FALSE, before);
              g->stage = NULL;
            }
        }
      for (guint j = 0; j < pushes->len; j++)
        {
          BatchedPush *p = &g_array_index (pushes, BatchedPush, j);
          if (p->sequence == f->sequence)
            g_clear_pointer (&p->buffer, accel_buffer_unref);
        }
      g_debug ("stage '%s' failed frame %" G_GUINT64_FORMAT
               " of a batch: the stages after it skip it",
          accel_stage_get_name (f->stage), f->sequence);
      accel_stage_handle_fault (f->stage, error, f->sequence);
    }
}

static GArray *
take (GArray **slot, GArray **spare, GArray *(*make) (void))
{
  GArray *taken = *slot;

  *slot = *spare ? g_steal_pointer (spare) : make ();
  return taken;
}

static void
give_back (GArray *taken, GArray **spare)
{
  g_array_set_size (taken, 0);
  if (!*spare)
    *spare = taken;
  else
    g_array_unref (taken);
}

/**
 * accel_stage_batch_flush:
 * @self: a stage whose segment may hold batched frames
 *
 * Runs the batched work (replayed, captured or, failing that, launched),
 * releases the frames' fences and makes the batched hand-ons. Re-entrant:
 * a hand-on may run consumers on this thread, which batch anew. Stage
 * thread.
 */
void
accel_stage_batch_flush (AccelStage *self)
{
  AccelStageBatch *batch = accel_stage_get_private (owner_of (self))->batch;
  GArray *frames, *pushes;
  gboolean hit = FALSE, captured = FALSE;
  GError *error = NULL;

  if (!batch || (batch->frames->len == 0 && batch->pushes->len == 0))
    return;
  /* the hand-ons below may run a stop on this thread */
  batch->depth++;
  batch->flushing++;
  frames = take (&batch->frames, &batch->spare_frames, frames_new);
  pushes = take (&batch->pushes, &batch->spare_pushes, pushes_new);

  if (frames->len > 0)
    {
      if (!batch->cache)
        batch->cache = accel_capture_cache_new (ACCEL_CAPTURE_CACHE_SIZE);
      build_key (batch->key, frames);
      /* replayed stages run no process(): one range for the graph */
      ACCEL_NVTX_PUSH (
          batch->nvtx_name, g_array_index (frames, BatchedFrame, 0).sequence);
      if (!accel_capture_cache_replay (batch->cache,
              (guint64 *)batch->key->data, batch->key->len, batch->stream, &hit,
              &error))
        {
          /* the launch failed: no frame of the batch ran */
          g_debug ("replaying a batch failed: %s", error->message);
          g_clear_error (&error);
          hit = FALSE;
        }
      captured = hit || capture (batch, frames);
      if (!captured)
        run_live (frames, pushes);
      ACCEL_NVTX_POP ();
      for (guint i = 0; i < frames->len; i++)
        {
          BatchedFrame *f = &g_array_index (frames, BatchedFrame, i);
          AccelStagePrivate *priv;
          AccelFrame frame;

          if (!f->stage)
            continue;
          priv = accel_stage_get_private (f->stage);
          frame_view (priv, f, &frame);
          if (!accel_stage_release_frame (f->stage, &frame, &error))
            {
              accel_stage_handle_fault (f->stage, error, f->sequence);
              error = NULL;
            }
          accel_stage_count_batched (f->stage, hit, captured && !hit);
        }
    }
  if (batch->frames->len == 0)
    batch->stream = NULL;
  give_back (frames, &batch->spare_frames);

  for (guint i = 0; i < pushes->len; i++)
    {
      BatchedPush *p = &g_array_index (pushes, BatchedPush, i);
      if (p->buffer && !batch->orphaned)
        accel_stage_push_link (
            p->producer, p->link, g_steal_pointer (&p->buffer));
    }
  batch->flushing--;
  give_back (pushes, &batch->spare_pushes);
  batch_release (batch);
}

/* whether a flush of @self's batch is under way, its pushes yet to go:
 * nothing may overtake them (a fault it raises sends no gap) */
gboolean
accel_stage_batch_is_flushing (AccelStage *self)
{
  AccelStageBatch *batch = accel_stage_get_private (owner_of (self))->batch;

  return batch && batch->flushing > 0;
}

/* a frame's walk begins on the stage's thread: the batch to give to
 * accel_stage_batch_leave(), or NULL */
AccelStageBatch *
accel_stage_batch_enter (AccelStage *self)
{
  AccelStageBatch *batch = batch_of (self);

  if (batch)
    batch->depth++;
  return batch;
}

/* and ends: the outermost walk runs the batch */
void
accel_stage_batch_leave (AccelStage *self, AccelStageBatch *batch)
{
  if (!batch)
    return;
  if (batch->depth == 1 && !batch->orphaned)
    accel_stage_batch_flush (self);
  batch_release (batch);
}

/* the stage stops: batched frames are dropped (the graph is going down),
 * and its graphs with them, now or when the walk under way ends; the
 * stream is idle. Stage thread */
void
accel_stage_batch_free (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  AccelStageBatch *batch = g_steal_pointer (&priv->batch);

  if (!batch)
    return;
  g_array_set_size (batch->frames, 0);
  g_array_set_size (batch->pushes, 0);
  if (batch->depth == 0)
    batch_free (batch);
  else
    batch->orphaned = TRUE;
}
