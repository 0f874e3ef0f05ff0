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
  AccelPool *pool;      /* host memory the application gets */
  AccelBuffer *pending; /* filled by process(), queued by render() */
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

static gboolean
accel_app_sink_start (AccelStage *stage, GError **error)
{
  AccelAppSink *self = ACCEL_APP_SINK (stage);
  AccelType type = *accel_stage_get_input_type (stage, 0);

  type.memory
      = accel_stage_is_host (stage) ? ACCEL_MEMORY_HOST : ACCEL_MEMORY_PINNED;
  /* the pool bounds what is queued plus what the application holds */
  self->pool = accel_pool_new (
      accel_stage_get_device (stage), &type, MAX (self->max_buffers, 1));
  accel_pool_set_timeout (self->pool, ACCEL_IO_WAIT_SLICE_US);
  /* a restart keeps the frames the application has not pulled */
  if (accel_stage_is_restarting (stage))
    return TRUE;
  g_mutex_lock (&self->lock);
  g_queue_clear_full (&self->queue, (GDestroyNotify)accel_buffer_unref);
  self->eos = FALSE;
  g_mutex_unlock (&self->lock);
  return TRUE;
}

/* the stream ended: a pull that finds the queue empty returns at once */
static gboolean
accel_app_sink_eos (AccelStage *stage, GError **error)
{
  AccelAppSink *self = ACCEL_APP_SINK (stage);

  g_mutex_lock (&self->lock);
  self->eos = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  g_object_notify (G_OBJECT (self), "eos");
  return TRUE;
}

static void
accel_app_sink_stop (AccelStage *stage)
{
  AccelAppSink *self = ACCEL_APP_SINK (stage);

  g_clear_pointer (&self->pending, accel_buffer_unref);
  /* buffers still queued or held keep the pool */
  g_clear_object (&self->pool);
  if (accel_stage_is_restarting (stage))
    return;
  g_mutex_lock (&self->lock);
  self->eos = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  g_object_notify (G_OBJECT (self), "eos");
}

/* a host buffer for the next frame: waits while the application holds them
 * all, or, with drop, takes back the oldest it has not pulled */
static AccelBuffer *
acquire_host_buffer (AccelAppSink *self, GError **error)
{
  for (;;)
    {
      GError *pool_error = NULL;
      AccelBuffer *buffer = accel_pool_acquire (self->pool, &pool_error);
      AccelBuffer *oldest = NULL;

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
      if (accel_stage_should_yield (ACCEL_STAGE (self)))
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED,
              "stopped while the application held all %u buffers",
              self->max_buffers);
          return NULL;
        }
    }
}

/* copies the frame into host memory (on the GPU, enqueued); render() hands
 * it out once that is done */
static AccelFlow
accel_app_sink_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelAppSink *self = ACCEL_APP_SINK (stage);
  AccelBuffer *in = frame->inputs[0];
  AccelBuffer *out;

  g_clear_pointer (&self->pending, accel_buffer_unref);
  if (!(out = acquire_host_buffer (self, error)))
    return ACCEL_FLOW_ERROR;
  accel_buffer_set_sequence (out, frame->sequence);
  accel_buffer_set_pts (out, accel_buffer_get_pts (in));
  accel_buffer_set_duration (out, accel_buffer_get_duration (in));
  if (accel_stage_is_host (stage))
    memcpy (accel_buffer_get_data (out), accel_buffer_get_data (in),
        accel_buffer_get_size (in));
  else if (!accel_io_copy_async (frame->stream, accel_buffer_get_data (out),
               accel_buffer_get_data (in), accel_buffer_get_size (in), error))
    {
      accel_buffer_unref (out);
      return ACCEL_FLOW_ERROR;
    }
  self->pending = out;
  return ACCEL_FLOW_OK;
}

static AccelFlow
accel_app_sink_render (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelAppSink *self = ACCEL_APP_SINK (stage);

  g_mutex_lock (&self->lock);
  g_queue_push_tail (&self->queue, g_steal_pointer (&self->pending));
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  g_signal_emit (self, signals[SIGNAL_NEW_BUFFER], 0);
  return ACCEL_FLOW_OK;
}

/* the "pull-buffer" action signal */
static AccelBuffer *
accel_app_sink_pull_buffer (AccelAppSink *self, gint64 timeout_us)
{
  gint64 deadline = accel_io_deadline_after (MAX (timeout_us, 0));
  AccelBuffer *buffer;

  g_mutex_lock (&self->lock);
  /* in slices: a graph that failed sends no more frames, and nothing else
   * would wake a pull without a timeout */
  while (!(buffer = g_queue_pop_head (&self->queue)) && !self->eos
         && !accel_stage_graph_has_failed (ACCEL_STAGE (self)))
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
  g_clear_object (&self->pool);
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
          "stage waits (or drops the oldest queued one, with drop)",
          1, G_MAXUINT16, 4, flags));
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
   * has stopped, the buffers still queued, then %NULL. MT safe.
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
}
