/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: completion strategies, telling a host context that GPU work is done */
#define G_LOG_DOMAIN "accel-completion"

#include "accel-private.h"

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
    }
  while (status == cudaErrorNotReady && g_get_monotonic_time () < spin_until);

  if (status == cudaErrorNotReady)
    {
      g_source_set_ready_time (
          source, g_get_monotonic_time () + ps->backoff_us);
      ps->backoff_us = MIN (ps->backoff_us * 2, BACKOFF_MAX_US);
      return G_SOURCE_CONTINUE;
    }

  accel_cuda_check (status, &error);
  ps->func (error, ps->user_data);
  return G_SOURCE_REMOVE;
}

static void
poll_source_finalize (GSource *source)
{
  PollSource *ps = (PollSource *)source;

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
  g_source_set_ready_time (&ps->source, 0);
  g_source_attach (&ps->source, context);
  g_source_unref (&ps->source);
  return TRUE;
}

/* hostfn: CUDA calls back on its own thread; hop to the context from there */
typedef struct
{
  GMainContext *context;
  AccelCompletionFunc func;
  gpointer user_data;
} HostFnData;

static gboolean
hostfn_dispatch (gpointer data)
{
  HostFnData *d = data;

  d->func (NULL, d->user_data);
  return G_SOURCE_REMOVE;
}

static void
hostfn_data_free (gpointer data)
{
  HostFnData *d = data;

  g_main_context_unref (d->context);
  g_free (d);
}

/* runs on a CUDA driver thread: must not call CUDA */
static void CUDART_CB
hostfn_callback (void *data)
{
  HostFnData *d = data;
  GSource *idle = g_idle_source_new ();

  g_source_set_priority (idle, G_PRIORITY_DEFAULT);
  g_source_set_static_name (idle, "accel-completion-hostfn");
  g_source_set_callback (idle, hostfn_dispatch, d, hostfn_data_free);
  g_source_attach (idle, d->context);
  g_source_unref (idle);
}

static gboolean
wait_hostfn (AccelStream *stream, GMainContext *context,
    AccelCompletionFunc func, gpointer user_data, GError **error)
{
  HostFnData *d = g_new0 (HostFnData, 1);

  d->context = g_main_context_ref (context);
  d->func = func;
  d->user_data = user_data;
  if (!accel_cuda_check (cudaLaunchHostFunc (accel_stream_get_cuda (stream),
                             hostfn_callback, d),
          error))
    {
      hostfn_data_free (d);
      return FALSE;
    }
  return TRUE;
}

/**
 * accel_completion_wait_async:
 * @mode: the strategy
 * @stream: the stream whose work so far must finish
 * @context: the context to call @func on
 * @func: called once the work is done (or the wait failed)
 * @user_data: data for @func
 * @error: return location for a #GError, or %NULL
 *
 * Arranges for @func to run on @context's thread when everything queued on
 * @stream so far has finished. With %ACCEL_COMPLETION_SYNC, or on the host,
 * @func runs before this returns. A pending poll wait is dropped, without
 * calling @func, when @context is destroyed.
 *
 * Returns: %FALSE, without calling @func, when the wait could not be set up.
 * Called from @context's thread.
 */
gboolean
accel_completion_wait_async (AccelCompletion mode, AccelStream *stream,
    GMainContext *context, AccelCompletionFunc func, gpointer user_data,
    GError **error)
{
  g_autoptr (GError) sync_error = NULL;

  g_return_val_if_fail (stream != NULL, FALSE);
  g_return_val_if_fail (func != NULL, FALSE);

  if (!accel_stream_get_handle (stream))
    {
      func (NULL, user_data);
      return TRUE;
    }

  switch (mode)
    {
    case ACCEL_COMPLETION_POLL:
      return wait_poll (stream, context, func, user_data, error);
    case ACCEL_COMPLETION_HOSTFN:
      return wait_hostfn (stream, context, func, user_data, error);
    case ACCEL_COMPLETION_SYNC:
      accel_stream_synchronize (stream, &sync_error);
      func (sync_error, user_data);
      return TRUE;
    default:
      g_return_val_if_reached (FALSE);
    }
}
