/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: io.app-sink, buffers the application pulls, in host
 * memory */
#define G_LOG_DOMAIN "accel-app-sink"

#include "accelappsink.h"
#include "accelio-private.h"

#include <string.h>

struct _AccelAppSink
{
  AccelStage parent;

  guint max_buffers;
  gboolean drop;

  GMutex lock;
  GCond cond;
  GQueue queue; /* AccelBuffer*, ready to pull */
  gboolean eos;
  guint64 n_dropped;
  GThread *thread;      /* the stage's: a pull there never waits */
  AccelPool *pool;      /* host memory the application gets */
  AccelBuffer *pending; /* filled by process(), queued by render() */

  /* frames the stage went back to its loop with while the application
   * held every buffer: copies of its own, handed on in order once there
   * is room. Stage thread only */
  AccelPool *aside_pool;  /* at most max-buffers frames wait aside */
  GQueue aside;           /* AccelBuffer*, complete, oldest first */
  AccelBuffer *aside_new; /* filled by process(), aside from render() */
  GSource *retry;         /* hands on what is aside when no frame comes */
  gboolean eos_after_aside;
};

G_DEFINE_FINAL_TYPE (AccelAppSink, accel_app_sink, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_MAX_BUFFERS,
  PROP_DROP,
  PROP_EOS,
  PROP_N_DROPPED,
};

enum
{
  SIGNAL_PULL_BUFFER,
  SIGNAL_NEW_BUFFER,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* puts @buffer (taken) in the queue for the application */
static void
queue_buffer (AccelAppSink *self, AccelBuffer *buffer)
{
  g_mutex_lock (&self->lock);
  g_queue_push_tail (&self->queue, buffer);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  g_signal_emit (self, signals[SIGNAL_NEW_BUFFER], 0);
}

static void
set_eos (AccelAppSink *self)
{
  g_mutex_lock (&self->lock);
  self->eos = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  g_object_notify (G_OBJECT (self), "eos");
}

/* how long a wait for the application to make room lasts */
typedef enum
{
  WAIT_NONE,  /* not at all */
  WAIT_YIELD, /* until the engine has something to run first */
  WAIT_STOP,  /* until the stage stops */
} Wait;

/* a host buffer for the next frame: waits (as @wait says, in slices)
 * while the application holds them all, or, with drop, takes back the
 * oldest it has not pulled. %NULL without an error: no room now */
static AccelBuffer *
acquire_host_buffer (AccelAppSink *self, Wait wait, GError **error)
{
  for (;;)
    {
      GError *pool_error = NULL;
      AccelBuffer *buffer;
      AccelBuffer *oldest = NULL;
      gboolean queued = FALSE;

      /* with drop, a frame queued is taken back at once: waiting a slice
       * first held the graph to one frame a slice */
      if (self->drop)
        {
          g_mutex_lock (&self->lock);
          queued = !g_queue_is_empty (&self->queue);
          g_mutex_unlock (&self->lock);
        }
      accel_pool_set_timeout (self->pool,
          wait != WAIT_NONE && !queued ? ACCEL_IO_WAIT_SLICE_US : 0);
      buffer = accel_pool_acquire (self->pool, &pool_error);

      if (buffer)
        return buffer;
      if (!g_error_matches (pool_error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT))
        {
          g_propagate_error (error, pool_error);
          return NULL;
        }
      g_error_free (pool_error);
      if (self->drop)
        {
          g_mutex_lock (&self->lock);
          if ((oldest = g_queue_pop_head (&self->queue)))
            self->n_dropped++;
          g_mutex_unlock (&self->lock);
        }
      if (oldest)
        {
          accel_buffer_unref (oldest);
          continue;
        }
      if (wait == WAIT_NONE
          || (wait == WAIT_YIELD
              && accel_stage_should_yield (ACCEL_STAGE (self)))
          || accel_stage_should_stop (ACCEL_STAGE (self)))
        return NULL;
    }
}

/* @to is frame @sequence, at @from's time */
static void
take_timing (AccelBuffer *to, guint64 sequence, AccelBuffer *from)
{
  accel_buffer_set_sequence (to, sequence);
  accel_buffer_set_pts (to, accel_buffer_get_pts (from));
  accel_buffer_set_duration (to, accel_buffer_get_duration (from));
}

/* hands the frames set aside to the application, oldest first, while there
 * is room (waiting for it with @wait); what finds none stays aside */
static gboolean
hand_on_aside (AccelAppSink *self, Wait wait, GError **error)
{
  AccelBuffer *held;

  while ((held = g_queue_peek_head (&self->aside)))
    {
      GError *local = NULL;
      AccelBuffer *out = acquire_host_buffer (self, wait, &local);

      if (local)
        {
          g_propagate_error (error, local);
          return FALSE;
        }
      if (!out)
        return TRUE;
      take_timing (out, accel_buffer_get_sequence (held), held);
      /* host memory both, and @held is whole: its frame was rendered */
      memcpy (accel_buffer_get_data (out), accel_buffer_get_data (held),
          accel_buffer_get_size (held));
      accel_buffer_unref (g_queue_pop_head (&self->aside));
      queue_buffer (self, out);
    }
  return TRUE;
}

/* a buffer of the stage's own for a frame that goes aside */
static AccelBuffer *
acquire_aside (AccelAppSink *self, GError **error)
{
  GError *pool_error = NULL;
  AccelBuffer *buffer = accel_pool_acquire (self->aside_pool, &pool_error);

  if (buffer)
    return buffer;
  if (!g_error_matches (pool_error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT))
    {
      g_propagate_error (error, pool_error);
      return NULL;
    }
  g_error_free (pool_error);
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED,
      "stopped while the application held all %u buffers and %u frames "
      "waited aside",
      self->max_buffers, g_queue_get_length (&self->aside));
  return NULL;
}

static gboolean
retry_aside (gpointer user_data)
{
  AccelAppSink *self = user_data;
  g_autoptr (GError) error = NULL;

  /* a frame between its process() and render() is handed on first */
  if (self->pending || self->aside_new)
    return G_SOURCE_CONTINUE;
  if (!hand_on_aside (self, WAIT_NONE, &error))
    g_warning ("stage '%s' (io.app-sink): %s",
        accel_stage_get_name (ACCEL_STAGE (self)), error->message);
  if (!g_queue_is_empty (&self->aside))
    return G_SOURCE_CONTINUE;
  self->retry = NULL;
  if (self->eos_after_aside)
    set_eos (self);
  return G_SOURCE_REMOVE;
}

/* frames aside are handed on before the next frame's, or by this source
 * once the application makes room, so that a slow stream does not hold
 * them back */
static void
watch_aside (AccelAppSink *self)
{
  if (self->retry || g_queue_is_empty (&self->aside))
    return;
  self->retry = g_timeout_source_new (ACCEL_IO_WAIT_SLICE_US / 1000);
  g_source_set_callback (self->retry, retry_aside, self, NULL);
  g_source_attach (self->retry, accel_stage_get_context (ACCEL_STAGE (self)));
  g_source_unref (self->retry);
}

static gboolean
accel_app_sink_start (AccelStage *stage, GError **error)
{
  AccelAppSink *self = ACCEL_APP_SINK (stage);
  AccelType type = *accel_stage_get_input_type (stage, 0);

  g_atomic_pointer_set (&self->thread, g_thread_self ());
  type.memory
      = accel_stage_is_host (stage) ? ACCEL_MEMORY_HOST : ACCEL_MEMORY_PINNED;
  /* the pool bounds what is queued plus what the application holds */
  self->pool = accel_pool_new (
      accel_stage_get_device (stage), &type, MAX (self->max_buffers, 1));
  /* allocated only when a frame goes aside */
  self->aside_pool = accel_pool_new (
      accel_stage_get_device (stage), &type, MAX (self->max_buffers, 1));
  accel_pool_set_timeout (self->aside_pool, 0);
  /* a restart keeps the frames the application has not pulled, and those
   * aside */
  if (accel_stage_is_restarting (stage))
    {
      watch_aside (self);
      return TRUE;
    }
  g_queue_clear_full (&self->aside, (GDestroyNotify)accel_buffer_unref);
  self->eos_after_aside = FALSE;
  g_mutex_lock (&self->lock);
  g_queue_clear_full (&self->queue, (GDestroyNotify)accel_buffer_unref);
  self->eos = FALSE;
  g_mutex_unlock (&self->lock);
  return TRUE;
}

/* the stream ended: a pull that finds the queue empty returns at once,
 * after the frames aside */
static gboolean
accel_app_sink_eos (AccelStage *stage, GError **error)
{
  AccelAppSink *self = ACCEL_APP_SINK (stage);

  if (!hand_on_aside (self, WAIT_NONE, error))
    return FALSE;
  if (!g_queue_is_empty (&self->aside))
    {
      g_debug ("stage '%s': the end waits for %u frames aside",
          accel_stage_get_name (stage), g_queue_get_length (&self->aside));
      self->eos_after_aside = TRUE;
      return TRUE;
    }
  set_eos (self);
  return TRUE;
}

static void
accel_app_sink_stop (AccelStage *stage)
{
  AccelAppSink *self = ACCEL_APP_SINK (stage);
  AccelBuffer *held;

  /* the thread may end, and another take its place */
  g_atomic_pointer_set (&self->thread, NULL);
  if (self->retry)
    g_source_destroy (self->retry);
  self->retry = NULL;
  /* not rendered, so not committed: as a frame cut short */
  g_clear_pointer (&self->pending, accel_buffer_unref);
  g_clear_pointer (&self->aside_new, accel_buffer_unref);
  /* buffers still queued or held keep the pools */
  g_clear_object (&self->pool);
  g_clear_object (&self->aside_pool);
  if (accel_stage_is_restarting (stage))
    return;
  /* each frame aside was committed: the application gets it, past
   * max-buffers now that nothing more comes */
  while ((held = g_queue_pop_head (&self->aside)))
    queue_buffer (self, held);
  set_eos (self);
}

/* copies the frame into host memory (on the GPU, enqueued); render() hands
 * it out once that is done */
static AccelFlow
accel_app_sink_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelAppSink *self = ACCEL_APP_SINK (stage);
  AccelBuffer *in = frame->inputs[0];
  GError *local = NULL;
  AccelBuffer *out = NULL;
  gboolean set_aside = FALSE, handed;

  g_clear_pointer (&self->pending, accel_buffer_unref);
  g_clear_pointer (&self->aside_new, accel_buffer_unref);
  /* the waits for the application to pull are backpressure, not work */
  accel_stage_wait_begin (stage);
  handed = hand_on_aside (self, WAIT_YIELD, error);
  /* with no room aside either, what the engine has to run first (a
   * parameter change, a flush) waits for the application: the frame
   * failed, and with it the graph, though the application held nothing
   * (its frames queued, not pulled yet). Only a stop ends the wait */
  if (handed && g_queue_get_length (&self->aside) >= MAX (self->max_buffers, 1))
    handed = hand_on_aside (self, WAIT_STOP, error);
  /* behind frames still aside, this one goes aside too */
  if (handed && g_queue_is_empty (&self->aside))
    out = acquire_host_buffer (self, WAIT_YIELD, &local);
  accel_stage_wait_end (stage);
  if (!handed)
    return ACCEL_FLOW_ERROR;
  if (local)
    {
      g_propagate_error (error, local);
      return ACCEL_FLOW_ERROR;
    }
  if (!out)
    {
      /* the application holds every buffer and the engine has something
       * to run first (a parameter change, a flush, a stop): failing the
       * frame would fail the graph, and the engine cannot hand the frame
       * back. It waits aside, and the thread goes back to its loop */
      if (!(out = acquire_aside (self, error)))
        return ACCEL_FLOW_ERROR;
      g_debug ("stage '%s': frame %" G_GUINT64_FORMAT " waits aside",
          accel_stage_get_name (stage), frame->sequence);
      set_aside = TRUE;
    }
  take_timing (out, frame->sequence, in);
  if (accel_stage_is_host (stage))
    memcpy (accel_buffer_get_data (out), accel_buffer_get_data (in),
        accel_buffer_get_size (in));
  else if (!accel_io_copy_async (frame->stream, accel_buffer_get_data (out),
               accel_buffer_get_data (in), accel_buffer_get_size (in), error))
    {
      accel_buffer_unref (out);
      return ACCEL_FLOW_ERROR;
    }
  if (set_aside)
    self->aside_new = out;
  else
    self->pending = out;
  return ACCEL_FLOW_OK;
}

static AccelFlow
accel_app_sink_render (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelAppSink *self = ACCEL_APP_SINK (stage);

  if (self->pending)
    queue_buffer (self, g_steal_pointer (&self->pending));
  if (self->aside_new)
    {
      g_queue_push_tail (&self->aside, g_steal_pointer (&self->aside_new));
      watch_aside (self);
    }
  return ACCEL_FLOW_OK;
}

/* the "pull-buffer" action signal */
static AccelBuffer *
accel_app_sink_pull_buffer (AccelAppSink *self, gint64 timeout_us)
{
  gint64 deadline;
  AccelBuffer *buffer;

  /* on the stage's thread (a new-buffer handler) nothing is queued while
   * it waits: it would wait out its timeout, or for good */
  if (g_atomic_pointer_get (&self->thread) == g_thread_self ())
    timeout_us = 0;
  deadline = accel_deadline_after (MAX (timeout_us, 0));

  g_mutex_lock (&self->lock);
  /* in slices: a graph that failed or was finalized sends no more
   * frames, and nothing else would wake a pull without a timeout */
  while (!(buffer = g_queue_pop_head (&self->queue)) && !self->eos
         && !accel_stage_graph_has_failed (ACCEL_STAGE (self))
         && !accel_stage_graph_is_gone (ACCEL_STAGE (self)))
    {
      gint64 slice = g_get_monotonic_time () + ACCEL_IO_WAIT_SLICE_US;

      if (timeout_us >= 0 && deadline <= g_get_monotonic_time ())
        break;
      g_cond_wait_until (&self->cond, &self->lock,
          timeout_us < 0 ? slice : MIN (slice, deadline));
    }
  g_mutex_unlock (&self->lock);
  return buffer;
}

static void
accel_app_sink_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelAppSink *self = ACCEL_APP_SINK (object);

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;
  switch (prop_id)
    {
    case PROP_MAX_BUFFERS:
      self->max_buffers = g_value_get_uint (value);
      break;
    case PROP_DROP:
      self->drop = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_app_sink_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelAppSink *self = ACCEL_APP_SINK (object);

  switch (prop_id)
    {
    case PROP_MAX_BUFFERS:
      g_value_set_uint (value, self->max_buffers);
      break;
    case PROP_DROP:
      g_value_set_boolean (value, self->drop);
      break;
    case PROP_EOS:
      g_mutex_lock (&self->lock);
      g_value_set_boolean (value, self->eos);
      g_mutex_unlock (&self->lock);
      break;
    case PROP_N_DROPPED:
      g_mutex_lock (&self->lock);
      g_value_set_uint64 (value, self->n_dropped);
      g_mutex_unlock (&self->lock);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_app_sink_finalize (GObject *object)
{
  AccelAppSink *self = ACCEL_APP_SINK (object);

  g_queue_clear_full (&self->queue, (GDestroyNotify)accel_buffer_unref);
  g_clear_pointer (&self->pending, accel_buffer_unref);
  g_clear_pointer (&self->aside_new, accel_buffer_unref);
  g_queue_clear_full (&self->aside, (GDestroyNotify)accel_buffer_unref);
  if (self->retry)
    g_source_destroy (self->retry);
  g_clear_object (&self->pool);
  g_clear_object (&self->aside_pool);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  G_OBJECT_CLASS (accel_app_sink_parent_class)->finalize (object);
}

static void
accel_app_sink_class_init (AccelAppSinkClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;
  AccelType in;

  gobject_class->set_property = accel_app_sink_set_property;
  gobject_class->get_property = accel_app_sink_get_property;
  gobject_class->finalize = accel_app_sink_finalize;
  stage_class->start = accel_app_sink_start;
  stage_class->stop = accel_app_sink_stop;
  stage_class->eos = accel_app_sink_eos;
  stage_class->process = accel_app_sink_process;
  stage_class->render = accel_app_sink_render;

  g_object_class_install_property (gobject_class, PROP_MAX_BUFFERS,
      g_param_spec_uint ("max-buffers", "Max buffers",
          "Buffers queued for the application or held by it; past that the "
          "stage waits (or drops the oldest queued one, with drop). A "
          "parameter change, flush or stop that comes meanwhile sets the "
          "frame aside, in as many buffers more",
          1, G_MAXUINT16, 4, flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_DROP,
      g_param_spec_boolean ("drop", "Drop",
          "Drop the oldest buffer not pulled yet instead of waiting for the "
          "application",
          FALSE, flags));
  g_object_class_install_property (gobject_class, PROP_EOS,
      g_param_spec_boolean ("eos", "End of stream",
          "Whether the stage has stopped: nothing is queued after what "
          "remains",
          FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_N_DROPPED,
      g_param_spec_uint64 ("n-dropped", "Dropped",
          "Buffers dropped because the application did not pull them", 0,
          G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  /**
   * AccelAppSink::pull-buffer:
   * @sink: the stage
   * @timeout_us: how long to wait for a buffer in µs; -1 for as long as it
   *   takes, 0 to only look
   *
   * Takes the oldest buffer: the stage's input, in host memory (pinned on a
   * GPU), complete, with its sequence number and timestamps. Once the stage
   * has stopped, the buffers still queued, then %NULL. On the stage's own
   * thread (in a "new-buffer" handler) it never waits, whatever
   * @timeout_us: no buffer comes while that thread waits. MT safe.
   *
   * Returns: (transfer full) (nullable): a buffer, or %NULL when none came
   * in time or the stream is over.
   */
  signals[SIGNAL_PULL_BUFFER] = g_signal_new_class_handler ("pull-buffer",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (accel_app_sink_pull_buffer), NULL, NULL, NULL,
      ACCEL_TYPE_BUFFER, 1, G_TYPE_INT64);

  /**
   * AccelAppSink::new-buffer:
   * @sink: the stage
   *
   * A buffer is ready to pull. Emitted on the stage's thread: a handler
   * should be quick, or pull and hand the buffer to its own thread.
   */
  signals[SIGNAL_NEW_BUFFER]
      = g_signal_new ("new-buffer", G_TYPE_FROM_CLASS (klass),
          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  /* the application pulls: without one the pool fills and the graph
   * waits */
  accel_stage_class_set_needs_application (stage_class, TRUE);
  accel_stage_class_set_metadata (stage_class, "io.app-sink",
      "Hand every buffer to the application in host memory "
      "(\"pull-buffer\" action signal, \"new-buffer\" signal)");
  accel_type_init_any (&in);
  accel_stage_class_add_port (
      stage_class, ACCEL_PORT_INPUT, "in", &in, "any data");
}

static void
accel_app_sink_init (AccelAppSink *self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  g_queue_init (&self->queue);
  g_queue_init (&self->aside);
}
