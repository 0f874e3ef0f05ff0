/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: completion strategies, telling a host context that GPU work is done.
 * G_MESSAGES_DEBUG=accel-completion tells which strategy each wait takes and
 * how long it took: for a poll, after how many queries and back-offs */
#define G_LOG_DOMAIN "accel-completion"

#include "accel-private.h"

/**
 * accel_completion_get_type:
 *
 * Returns: the #GType of #AccelCompletion. MT safe.
 */
GType
accel_completion_get_type (void)
{
  static gsize type;
  static const GEnumValue values[] = {
    { ACCEL_COMPLETION_POLL, "ACCEL_COMPLETION_POLL", "poll" },
    { ACCEL_COMPLETION_HOSTFN, "ACCEL_COMPLETION_HOSTFN", "hostfn" },
    { ACCEL_COMPLETION_SYNC, "ACCEL_COMPLETION_SYNC", "sync" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (
        &type, g_enum_register_static ("AccelCompletion", values));
  return (GType)type;
}

/* poll: query the event, spin for SPIN_US, then back off from BACKOFF_MIN_US
 * doubling to BACKOFF_MAX_US between queries */
#define SPIN_US 20
#define BACKOFF_MIN_US 50
#define BACKOFF_MAX_US 2000

typedef struct
{
  GSource source;
  AccelDevice *device;
  cudaEvent_t event;
  AccelCompletionFunc func;
  gpointer user_data;
  gint64 backoff_us;
  /* for the summary when the wait ends */
  guint stream_id;
  gint64 t_start;
  guint n_queries;
  guint n_backoffs;
  gboolean finished;
} PollSource;

static gboolean
poll_source_dispatch (GSource *source, GSourceFunc callback, gpointer data)
{
  PollSource *ps = (PollSource *)source;
  g_autoptr (GError) error = NULL;
  gint64 spin_until = g_get_monotonic_time () + SPIN_US;
  cudaError_t status;

  accel_device_make_current (ps->device, NULL);
  do
    {
      status = cudaEventQuery (ps->event);
      ps->n_queries++;
    }
  while (status == cudaErrorNotReady && g_get_monotonic_time () < spin_until);

  if (status == cudaErrorNotReady)
    {
      g_source_set_ready_time (
          source, g_get_monotonic_time () + ps->backoff_us);
      ps->backoff_us = MIN (ps->backoff_us * 2, BACKOFF_MAX_US);
      ps->n_backoffs++;
      return G_SOURCE_CONTINUE;
    }

  ps->finished = TRUE;
  if (accel_cuda_check (status, &error))
    ACCEL_TRACE ("stream %u: poll wait done after %u queries and %u "
                 "back-offs, %" G_GINT64_FORMAT " us",
        ps->stream_id, ps->n_queries, ps->n_backoffs,
        g_get_monotonic_time () - ps->t_start);
  else
    g_debug ("stream %u: poll wait failed after %u queries and %u "
             "back-offs: %s",
        ps->stream_id, ps->n_queries, ps->n_backoffs, error->message);
  ps->func (error, ps->user_data);
  return G_SOURCE_REMOVE;
}

static void
poll_source_finalize (GSource *source)
{
  PollSource *ps = (PollSource *)source;

  if (!ps->finished)
    g_debug ("stream %u: poll wait dropped unfinished after %u queries, its "
             "context gone; no callback",
        ps->stream_id, ps->n_queries);
  accel_device_make_current (ps->device, NULL);
  accel_cuda_check (cudaEventDestroy (ps->event), NULL);
  g_object_unref (ps->device);
}

static GSourceFuncs poll_source_funcs = {
  .dispatch = poll_source_dispatch,
  .finalize = poll_source_finalize,
};

static gboolean
wait_poll (AccelStream *stream, GMainContext *context, AccelCompletionFunc func,
    gpointer user_data, GError **error)
{
  cudaEvent_t event = NULL;
  PollSource *ps;

  if (!accel_cuda_check (
          cudaEventCreateWithFlags (&event, cudaEventDisableTiming), error))
    return FALSE;
  if (!accel_cuda_check (
          cudaEventRecord (event, accel_stream_get_cuda (stream)), error))
    {
      accel_cuda_check (cudaEventDestroy (event), NULL);
      return FALSE;
    }

  ps = (PollSource *)g_source_new (&poll_source_funcs, sizeof (PollSource));
  g_source_set_static_name (&ps->source, "accel-completion-poll");
  ps->device = g_object_ref (accel_stream_get_device (stream));
  ps->event = event;
  ps->func = func;
  ps->user_data = user_data;
  ps->backoff_us = BACKOFF_MIN_US;
  ps->stream_id = accel_stream_get_id (stream);
  ps->t_start = g_get_monotonic_time ();
  g_source_set_ready_time (&ps->source, 0);
  g_source_attach (&ps->source, context);
  g_source_unref (&ps->source);
  return TRUE;
}

/* hostfn: CUDA calls back on its own thread; hop to the context from there.
 * The context's reference keeps it alive until the callback has attached
 * its idle source; then the callback drops it, so that a context whose
 * loop ended before the idle ran is freed with the idle (and the data)
 * rather than held by it for good */
typedef struct
{
  GMainContext *context;
  AccelCompletionFunc func;
  gpointer user_data;
  guint stream_id;
  gint64 t_start;
  gint64 t_callback;
  gboolean dispatched;
} HostFnData;

static gboolean
hostfn_dispatch (gpointer data)
{
  HostFnData *d = data;

  d->dispatched = TRUE;
  ACCEL_TRACE ("stream %u: hostfn wait done, %" G_GINT64_FORMAT
               " us, of which %" G_GINT64_FORMAT " us on the way back to "
               "the context",
      d->stream_id, g_get_monotonic_time () - d->t_start,
      g_get_monotonic_time () - d->t_callback);
  d->func (NULL, d->user_data);
  return G_SOURCE_REMOVE;
}

static void
hostfn_data_free (gpointer data)
{
  HostFnData *d = data;

  if (d->t_callback && !d->dispatched)
    g_debug ("stream %u: hostfn wait dropped, its context gone; no callback",
        d->stream_id);
  g_free (d);
}

/* runs on a CUDA driver thread: must not call CUDA */
static void CUDART_CB
hostfn_callback (void *data)
{
  HostFnData *d = data;
  GMainContext *context = d->context;
  GSource *idle = g_idle_source_new ();

  d->t_callback = g_get_monotonic_time ();
  ACCEL_TRACE ("stream %u: host function ran after %" G_GINT64_FORMAT
               " us; posting to the waiting context",
      d->stream_id, d->t_callback - d->t_start);
  g_source_set_priority (idle, G_PRIORITY_DEFAULT);
  g_source_set_static_name (idle, "accel-completion-hostfn");
  g_source_set_callback (idle, hostfn_dispatch, d, hostfn_data_free);
  g_source_attach (idle, context);
  g_source_unref (idle);
  /* @d may be freed from here on, by the dispatch or with the context */
  g_main_context_unref (context);
}

static gboolean
wait_hostfn (AccelStream *stream, GMainContext *context,
    AccelCompletionFunc func, gpointer user_data, GError **error)
{
  HostFnData *d = g_new0 (HostFnData, 1);

  d->context = g_main_context_ref (context);
  d->func = func;
  d->user_data = user_data;
  d->stream_id = accel_stream_get_id (stream);
  d->t_start = g_get_monotonic_time ();
  if (!accel_cuda_check (cudaLaunchHostFunc (accel_stream_get_cuda (stream),
                             hostfn_callback, d),
          error))
    {
      g_main_context_unref (d->context);
      hostfn_data_free (d);
      return FALSE;
    }
  return TRUE;
}

static gboolean
wait_sync (AccelStream *stream, AccelCompletionFunc func, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  gint64 t0 = g_get_monotonic_time ();

  if (accel_stream_synchronize (stream, &error))
    ACCEL_TRACE ("stream %u: sync wait blocked the thread %" G_GINT64_FORMAT
                 " us",
        accel_stream_get_id (stream), g_get_monotonic_time () - t0);
  else
    g_debug ("stream %u: sync wait failed: %s", accel_stream_get_id (stream),
        error->message);
  func (error, user_data);
  return TRUE;
}

/**
 * accel_completion_wait_async:
 * @mode: the strategy
 * @stream: the stream whose work so far must finish
 * @context: the context to call @func on
 * @func: (scope async): called once the work is done (or the wait failed)
 * @user_data: (closure func): data for @func
 * @error: return location for a #GError, or %NULL
 *
 * Arranges for @func to run on @context's thread when everything queued on
 * @stream so far has finished. With %ACCEL_COMPLETION_SYNC, or on the host
 * (a stream without a handle), @func runs before this returns, blocking the
 * thread until then. A pending wait is dropped, without calling @func, when
 * @context is destroyed.
 *
 * Returns: %FALSE, without calling @func, when the wait could not be set up.
 * Called from the thread that runs @context (the stage's thread).
 */
gboolean
accel_completion_wait_async (AccelCompletion mode, AccelStream *stream,
    GMainContext *context, AccelCompletionFunc func, gpointer user_data,
    GError **error)
{
  g_return_val_if_fail (stream != NULL, FALSE);
  g_return_val_if_fail (func != NULL, FALSE);

  if (!accel_stream_get_handle (stream))
    {
      ACCEL_TRACE ("stream %u has no device work (host): done at once",
          accel_stream_get_id (stream));
      func (NULL, user_data);
      return TRUE;
    }

  switch (mode)
    {
    case ACCEL_COMPLETION_POLL:
      ACCEL_TRACE ("stream %u: poll wait", accel_stream_get_id (stream));
      return wait_poll (stream, context, func, user_data, error);
    case ACCEL_COMPLETION_HOSTFN:
      ACCEL_TRACE ("stream %u: hostfn wait", accel_stream_get_id (stream));
      return wait_hostfn (stream, context, func, user_data, error);
    case ACCEL_COMPLETION_SYNC:
      ACCEL_TRACE ("stream %u: sync wait", accel_stream_get_id (stream));
      return wait_sync (stream, func, user_data);
    default:
      g_return_val_if_reached (FALSE);
    }
}
