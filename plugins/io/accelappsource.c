/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: io.app-source, buffers pushed by the application */
#define G_LOG_DOMAIN "accel-app-source"

#include "accelappsource.h"
#include "accelio-private.h"

#include <string.h>

/* pushed buffers the GPU may still be copying from */
#define HOLD_SLOTS 4

struct _AccelAppSource
{
  AccelStage parent;

  AccelIoTypeProps type_props;
  guint max_buffers;
  gboolean block;

  GMutex lock;
  GCond cond;
  GQueue queue; /* AccelBuffer*, pushed and not taken */
  gboolean eos;
  gboolean flushing; /* stopped: pushes fail until the next start */
  AccelIoNumbers numbers;
  AccelIoRing *ring; /* GPU: the buffers being copied */
};

G_DEFINE_FINAL_TYPE (AccelAppSource, accel_app_source, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_MAX_BUFFERS,
  PROP_BLOCK,
  PROP_CURRENT_LEVEL_BUFFERS,
  PROP_TYPE_FIRST,
};

enum
{
  SIGNAL_PUSH_BUFFER,
  SIGNAL_END_OF_STREAM,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static gboolean
accel_app_source_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelAppSource *self = ACCEL_APP_SOURCE (stage);
  gboolean ok;

  g_mutex_lock (&self->lock);
  ok = accel_io_type_props_to_type (
      &self->type_props, stage, &out_types[0], error);
  g_mutex_unlock (&self->lock);
  return ok;
}

/* queues @buffer, or says why not; *@full: refused only because the queue
 * is full and block is off, which the application asked for */
static gboolean
push_buffer (
    AccelAppSource *self, AccelBuffer *buffer, gboolean *full, GError **error)
{
  AccelStage *stage = ACCEL_STAGE (self);
  AccelType want;
  g_autoptr (GError) type_error = NULL;
  gboolean failed = FALSE, gone = FALSE;

  /* the type properties may be set meanwhile, on any thread, until the
   * graph is prepared */
  g_mutex_lock (&self->lock);
  if (!accel_io_type_props_to_type (
          &self->type_props, stage, &want, &type_error))
    {
      g_mutex_unlock (&self->lock);
      g_propagate_error (error, g_steal_pointer (&type_error));
      return FALSE;
    }
  g_mutex_unlock (&self->lock);
  if (!accel_io_types_match (accel_buffer_peek_type (buffer), &want))
    {
      g_autofree gchar *have
          = accel_type_to_string (accel_buffer_peek_type (buffer));
      g_autofree gchar *out = accel_type_to_string (&want);
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH,
          "stage '%s' (io.app-source): a pushed buffer of type %s does not "
          "fit the output type %s; push buffers of that type, or set shape "
          "and dtype (or format, width and height) to what the application "
          "pushes before the graph is prepared",
          accel_stage_get_name (stage), have, out);
      return FALSE;
    }

  g_mutex_lock (&self->lock);
  /* in slices: a graph that failed or was finalized takes no more
   * frames, and nothing else would wake this wait */
  while (self->block && self->max_buffers > 0
         && self->queue.length >= self->max_buffers && !self->eos
         && !self->flushing && !(failed = accel_stage_graph_has_failed (stage))
         && !(gone = accel_stage_graph_is_gone (stage)))
    g_cond_wait_until (&self->cond, &self->lock,
        g_get_monotonic_time () + ACCEL_IO_WAIT_SLICE_US);
  /* a failed graph ends the source's stream too: the failure says more */
  failed = failed || accel_stage_graph_has_failed (stage);
  /* a graph collected while running was stopped first: its end says more */
  gone = gone || accel_stage_graph_is_gone (stage);
  if (self->eos || self->flushing || failed || gone
      || (self->max_buffers > 0 && self->queue.length >= self->max_buffers))
    goto refused;
  g_queue_push_tail (&self->queue, accel_buffer_ref (buffer));
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  return TRUE;

  /* ERRORS */
refused:
  {
    const char *why = gone             ? "once its graph is finalized"
                      : self->flushing ? "while the stage is stopped"
                      : failed ? "after the graph failed (accel_graph_wait () "
                                 "or accel_graph_start () says why)"
                      : self->eos ? "after end of stream"
                                  : "while its queue is full (block is off)";
    *full = !self->flushing && !failed && !gone && !self->eos;
    g_mutex_unlock (&self->lock);
    g_set_error (error, ACCEL_ERROR,
        self->flushing || gone ? ACCEL_ERROR_STOPPED : ACCEL_ERROR_FAILED,
        "stage '%s' (io.app-source): cannot push a buffer %s",
        accel_stage_get_name (stage), why);
    return FALSE;
  }
}

/* the "push-buffer" action signal */
static gboolean
accel_app_source_push_buffer (
    AccelAppSource *self, AccelBuffer *buffer, GError **error)
{
  g_autoptr (GError) local = NULL;
  gboolean full = FALSE;

  g_return_val_if_fail (buffer != NULL, FALSE);

  if (push_buffer (self, buffer, &full, &local))
    return TRUE;
  /* a caller that takes no error (Python cannot pass one) is told why on
   * stderr: a bare FALSE left it to guess. A full queue without block is
   * what such a caller asked for */
  if (!error && !full)
    g_warning ("%s", local->message);
  g_propagate_error (error, g_steal_pointer (&local));
  return FALSE;
}

/* the "end-of-stream" action signal */
static gboolean
accel_app_source_end_of_stream (AccelAppSource *self)
{
  gboolean was;

  g_mutex_lock (&self->lock);
  was = self->eos;
  self->eos = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  return !was;
}

/* the stream ended, by "end-of-stream" or by the graph (its end of stream,
 * a frame limit): pushes are refused from now on, where they were queued
 * for no one and, once the queue was full, waited for good. What is still
 * queued goes nowhere, and is said to */
static gboolean
accel_app_source_eos (AccelStage *stage, GError **error)
{
  AccelAppSource *self = ACCEL_APP_SOURCE (stage);
  guint left;

  g_mutex_lock (&self->lock);
  self->eos = TRUE;
  left = self->queue.length;
  g_queue_clear_full (&self->queue, (GDestroyNotify)accel_buffer_unref);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  if (left > 0)
    g_message ("stage '%s' (io.app-source): the stream ended with %u pushed "
               "buffer%s not taken, left out",
        accel_stage_get_name (stage), left, left == 1 ? "" : "s");
  return TRUE;
}

static gboolean
accel_app_source_start (AccelStage *stage, GError **error)
{
  AccelAppSource *self = ACCEL_APP_SOURCE (stage);

  g_mutex_lock (&self->lock);
  self->flushing = FALSE;
  /* a restart goes on with the queue it kept, and so with its numbers */
  if (!accel_stage_is_restarting (stage))
    accel_io_numbers_reset (&self->numbers);
  g_mutex_unlock (&self->lock);
  if (accel_stage_is_host (stage))
    return TRUE;
  self->ring = accel_io_ring_new (
      accel_stage_get_device (stage), HOLD_SLOTS, 0, error);
  return self->ring != NULL;
}

static void
accel_app_source_stop (AccelStage *stage)
{
  AccelAppSource *self = ACCEL_APP_SOURCE (stage);

  g_clear_pointer (&self->ring, accel_io_ring_free);
  /* a restart keeps what the application pushed, and its end of stream */
  if (accel_stage_is_restarting (stage))
    return;
  g_mutex_lock (&self->lock);
  g_queue_clear_full (&self->queue, (GDestroyNotify)accel_buffer_unref);
  self->flushing = TRUE;
  self->eos = FALSE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
}

/* the next pushed buffer; NULL at end of stream, or when the thread is
 * wanted elsewhere (@yield set) */
static AccelBuffer *
take_buffer (AccelAppSource *self, gboolean *yield)
{
  AccelBuffer *buffer;

  *yield = FALSE;
  g_mutex_lock (&self->lock);
  while (!(buffer = g_queue_pop_head (&self->queue)) && !self->eos)
    {
      gint64 until = g_get_monotonic_time () + ACCEL_IO_WAIT_SLICE_US;
      if (g_cond_wait_until (&self->cond, &self->lock, until))
        continue;
      g_mutex_unlock (&self->lock);
      *yield = accel_stage_should_yield (ACCEL_STAGE (self));
      g_mutex_lock (&self->lock);
      if (*yield)
        break;
    }
  if (buffer)
    g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  return buffer;
}

static AccelFlow
accel_app_source_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelAppSource *self = ACCEL_APP_SOURCE (stage);
  AccelBuffer *out = frame->outputs[0];
  g_autoptr (AccelBuffer) in = NULL;
  gboolean yield;

  /* the application's next push is input from outside, not work */
  accel_stage_wait_begin (stage);
  in = take_buffer (self, &yield);
  accel_stage_wait_end (stage);
  if (!in)
    return yield ? ACCEL_FLOW_SKIP : ACCEL_FLOW_EOS;
  /* push-buffer checked it against the type properties, which may have
   * changed before they were fixed at prepare (a buffer pushed before the
   * graph was): the copy takes the output's size from it */
  if (!accel_io_types_match (
          accel_buffer_peek_type (in), accel_buffer_peek_type (out)))
    {
      g_autofree gchar *have
          = accel_type_to_string (accel_buffer_peek_type (in));
      g_autofree gchar *want
          = accel_type_to_string (accel_buffer_peek_type (out));
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT,
          "a pushed buffer of type %s does not fit the negotiated output "
          "type %s: the type properties changed after it was pushed",
          have, want);
      return ACCEL_FLOW_ERROR;
    }

  /* a frame given up for the stage's messages takes no sequence number */
  accel_buffer_set_sequence (
      out, accel_io_numbers_take (&self->numbers, frame->sequence));
  accel_buffer_set_pts (out, accel_buffer_get_pts (in));
  accel_buffer_set_duration (out, accel_buffer_get_duration (in));

  if (accel_stage_is_host (stage))
    {
      if (!accel_device_is_host (accel_buffer_get_device (in))
          && accel_buffer_peek_type (in)->memory == ACCEL_MEMORY_DEVICE)
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT,
              "a buffer in the memory of %s was pushed to a stage on the "
              "host",
              accel_device_get_name (accel_buffer_get_device (in)));
          return ACCEL_FLOW_ERROR;
        }
      memcpy (accel_buffer_get_data (out), accel_buffer_get_data (in),
          accel_buffer_get_size (out));
      return ACCEL_FLOW_OK;
    }
  /* the application's buffer may still be written on a stream of its own;
   * the ring keeps it until the copy is done */
  if (!accel_stage_adopt_input (stage, in, error)
      || !accel_io_ring_acquire (self->ring, NULL, error)
      || !accel_io_copy_async (frame->stream, accel_buffer_get_data (out),
          accel_buffer_get_data (in), accel_buffer_get_size (out), error)
      || !accel_io_ring_commit (self->ring, frame->stream, in, error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_app_source_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelAppSource *self = ACCEL_APP_SOURCE (object);
  gboolean known;

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;
  switch (prop_id)
    {
    case PROP_MAX_BUFFERS:
      g_mutex_lock (&self->lock);
      self->max_buffers = g_value_get_uint (value);
      g_cond_broadcast (&self->cond);
      g_mutex_unlock (&self->lock);
      break;
    case PROP_BLOCK:
      g_mutex_lock (&self->lock);
      self->block = g_value_get_boolean (value);
      g_cond_broadcast (&self->cond);
      g_mutex_unlock (&self->lock);
      break;
    default:
      g_mutex_lock (&self->lock);
      known = prop_id >= PROP_TYPE_FIRST
              && accel_io_type_props_set (
                  &self->type_props, prop_id - PROP_TYPE_FIRST, value);
      g_mutex_unlock (&self->lock);
      if (!known)
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_app_source_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelAppSource *self = ACCEL_APP_SOURCE (object);
  gboolean known;

  switch (prop_id)
    {
    case PROP_MAX_BUFFERS:
      g_value_set_uint (value, self->max_buffers);
      break;
    case PROP_BLOCK:
      g_value_set_boolean (value, self->block);
      break;
    case PROP_CURRENT_LEVEL_BUFFERS:
      g_mutex_lock (&self->lock);
      g_value_set_uint (value, self->queue.length);
      g_mutex_unlock (&self->lock);
      break;
    default:
      g_mutex_lock (&self->lock);
      known = prop_id >= PROP_TYPE_FIRST
              && accel_io_type_props_get (
                  &self->type_props, prop_id - PROP_TYPE_FIRST, value);
      g_mutex_unlock (&self->lock);
      if (!known)
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_app_source_finalize (GObject *object)
{
  AccelAppSource *self = ACCEL_APP_SOURCE (object);

  g_queue_clear_full (&self->queue, (GDestroyNotify)accel_buffer_unref);
  accel_io_type_props_clear (&self->type_props);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  G_OBJECT_CLASS (accel_app_source_parent_class)->finalize (object);
}

static void
accel_app_source_constructed (GObject *object)
{
  G_OBJECT_CLASS (accel_app_source_parent_class)->constructed (object);
  accel_io_type_props_constructed (&ACCEL_APP_SOURCE (object)->type_props);
}

static void
accel_app_source_class_init (AccelAppSourceClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;
  AccelType out;

  gobject_class->constructed = accel_app_source_constructed;
  gobject_class->set_property = accel_app_source_set_property;
  gobject_class->get_property = accel_app_source_get_property;
  gobject_class->finalize = accel_app_source_finalize;
  stage_class->negotiate = accel_app_source_negotiate;
  stage_class->start = accel_app_source_start;
  stage_class->stop = accel_app_source_stop;
  stage_class->eos = accel_app_source_eos;
  stage_class->process = accel_app_source_process;

  g_object_class_install_property (gobject_class, PROP_MAX_BUFFERS,
      g_param_spec_uint ("max-buffers", "Max buffers",
          "Pushed buffers queued before a push waits (0: no limit)", 0,
          G_MAXUINT, 4, flags));
  g_object_class_install_property (gobject_class, PROP_BLOCK,
      g_param_spec_boolean ("block", "Block",
          "Whether a push into a full queue waits for room (else it fails)",
          TRUE, flags));
  /* a binding that must not wait in a push (Python's main thread, where
   * Ctrl-C would be held off) asks before it pushes */
  g_object_class_install_property (gobject_class, PROP_CURRENT_LEVEL_BUFFERS,
      g_param_spec_uint ("current-level-buffers", "Current level buffers",
          "Pushed buffers queued now, not yet taken by the stage", 0, G_MAXUINT,
          0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  accel_io_type_props_install (gobject_class, PROP_TYPE_FIRST);

  /**
   * AccelAppSource::push-buffer:
   * @source: the stage
   * @buffer: (transfer none): a buffer of the stage's output type, in any
   *   memory
   * @error: (type gpointer) (nullable): a `GError **` for the reason of a
   *   refusal, or %NULL: the reason is then a warning (but for a full
   *   queue with block off)
   *
   * Queues @buffer (a reference) as the next frame; the stage copies it
   * into its output. Waits for room while the queue is full and block is
   * on. Refused, returning %FALSE, for a buffer of another type
   * (%ACCEL_ERROR_TYPE_MISMATCH), after end of stream, and once the stage
   * has stopped (%ACCEL_ERROR_STOPPED). MT safe.
   *
   * Returns: %TRUE when the buffer was queued.
   */
  signals[SIGNAL_PUSH_BUFFER] = g_signal_new_class_handler ("push-buffer",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (accel_app_source_push_buffer), NULL, NULL, NULL,
      G_TYPE_BOOLEAN, 2, ACCEL_TYPE_BUFFER | G_SIGNAL_TYPE_STATIC_SCOPE,
      G_TYPE_POINTER);

  /**
   * AccelAppSource::end-of-stream:
   * @source: the stage
   *
   * No more buffers will come: the stage ends the stream once the queued
   * ones have gone out. MT safe.
   *
   * Returns: %FALSE when the stream had ended already.
   */
  signals[SIGNAL_END_OF_STREAM] = g_signal_new_class_handler ("end-of-stream",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (accel_app_source_end_of_stream), NULL, NULL, NULL,
      G_TYPE_BOOLEAN, 0);

  /* neither a GStreamer description nor an application can be asked for
   * a frame again */
  accel_stage_class_set_live (stage_class, TRUE);
  /* waits for the application or GStreamer */
  accel_stage_class_set_blocking (stage_class, TRUE);
  accel_stage_class_set_needs_application (stage_class, TRUE);
  accel_stage_class_set_metadata (stage_class, "io.app-source",
      "Buffers the application pushes (\"push-buffer\" and "
      "\"end-of-stream\" action signals)");
  accel_type_init_any (&out);
  out.memory = ACCEL_MEMORY_DEVICE;
  accel_stage_class_add_port (
      stage_class, ACCEL_PORT_OUTPUT, "out", &out, "the pushed buffers");
}

static void
accel_app_source_init (AccelAppSource *self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  g_queue_init (&self->queue);
}
