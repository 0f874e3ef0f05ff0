/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: a worker thread running one GMainContext, for one or more stages.
 * G_MESSAGES_DEBUG=accel-worker tells when threads start and stop and when
 * another thread waits for a call on one */
#define G_LOG_DOMAIN "accel-worker"

#include "accel-private.h"

struct _AccelWorker
{
  gint refcount;
  gint n_stages; /* atomic: the stages it runs */
  gchar *name;
  GMainContext *context;
  GMainLoop *loop;
  GThread *thread;
};

static gboolean
quit_loop (gpointer loop)
{
  g_main_loop_quit (loop);
  return G_SOURCE_REMOVE;
}

static gpointer
worker_thread (gpointer data)
{
  AccelWorker *worker = data;

  g_debug ("worker '%s' runs", worker->name);
  g_main_context_push_thread_default (worker->context);
  g_main_loop_run (worker->loop);
  g_main_context_pop_thread_default (worker->context);
  g_debug ("worker '%s' leaves its loop", worker->name);
  return NULL;
}

/**
 * accel_worker_new:
 * @name: the thread's name
 * @error: return location for a #GError, or %NULL
 *
 * Starts a thread that runs a new main context until accel_worker_stop().
 *
 * Returns: (transfer full) (nullable): the worker, or %NULL when no thread
 * can be made (a process or thread limit: g_thread_new () aborted the
 * process). Called from the thread that starts the graph.
 */
AccelWorker *
accel_worker_new (const char *name, GError **error)
{
  AccelWorker *worker = g_new0 (AccelWorker, 1);

  worker->refcount = 1;
  worker->name = g_strdup (name);
  worker->context = g_main_context_new ();
  worker->loop = g_main_loop_new (worker->context, FALSE);
  worker->thread = accel_thread_try_new (name, worker_thread, worker, error);
  if (worker->thread)
    return worker;
  accel_worker_unref (worker);
  return NULL;
}

/**
 * accel_worker_ref:
 * @worker: a worker
 *
 * Returns: (transfer full): @worker, with one more reference. MT safe.
 */
AccelWorker *
accel_worker_ref (AccelWorker *worker)
{
  g_atomic_int_inc (&worker->refcount);
  return worker;
}

/**
 * accel_worker_unref:
 * @worker: (transfer full): a worker
 *
 * The last reference stops the thread (see accel_worker_stop()). MT safe,
 * but the last reference must not be dropped on the worker's own thread.
 */
void
accel_worker_unref (AccelWorker *worker)
{
  if (!g_atomic_int_dec_and_test (&worker->refcount))
    return;
  accel_worker_stop (worker);
  g_main_loop_unref (worker->loop);
  g_main_context_unref (worker->context);
  g_free (worker->name);
  g_free (worker);
}

/* a stage runs on @worker (@delta 1) or no longer does (-1). MT safe */
void
accel_worker_count_stage (AccelWorker *worker, gint delta)
{
  g_atomic_int_add (&worker->n_stages, delta);
}

/* whether @worker runs more than one stage: one of them that waited in
 * its thread would hold the others up. MT safe */
gboolean
accel_worker_is_shared (AccelWorker *worker)
{
  return g_atomic_int_get (&worker->n_stages) > 1;
}

/**
 * accel_worker_get_context:
 * @worker: a worker
 *
 * Returns: (transfer none): the context the worker's thread runs. MT safe.
 */
GMainContext *
accel_worker_get_context (AccelWorker *worker)
{
  return worker->context;
}

/**
 * accel_worker_is_current:
 * @worker: a worker
 *
 * Returns: whether the calling thread is @worker's. MT safe.
 */
gboolean
accel_worker_is_current (AccelWorker *worker)
{
  return worker->thread == g_thread_self ();
}

struct _AccelWorkerCall
{
  AccelWorker *worker;
  GSourceFunc func;
  gpointer data;
  GMutex lock;
  GCond cond;
  gboolean done;
  gint64 t0;
};

static gboolean
run_call (gpointer data)
{
  AccelWorkerCall *call = data;

  call->func (call->data);
  g_mutex_lock (&call->lock);
  call->done = TRUE;
  g_cond_signal (&call->cond);
  g_mutex_unlock (&call->lock);
  return G_SOURCE_REMOVE;
}

/**
 * accel_worker_call_begin:
 * @worker: a worker
 * @func: (scope notified): what to run; its return value is ignored
 * @data: (closure func): data for @func
 *
 * Runs @func on the worker's thread, ahead of buffers; on the worker's own
 * thread it runs at once. accel_worker_call_end() waits for it.
 *
 * Returns: (transfer full): the call. MT safe.
 */
AccelWorkerCall *
accel_worker_call_begin (AccelWorker *worker, GSourceFunc func, gpointer data)
{
  AccelWorkerCall *call = g_new0 (AccelWorkerCall, 1);
  GSource *source;

  call->worker = worker;
  call->func = func;
  call->data = data;
  call->t0 = g_get_monotonic_time ();
  g_mutex_init (&call->lock);
  g_cond_init (&call->cond);
  if (accel_worker_is_current (worker))
    {
      run_call (call);
      return call;
    }
  source = g_idle_source_new ();
  g_source_set_priority (source, G_PRIORITY_HIGH);
  g_source_set_callback (source, run_call, call, NULL);
  g_source_attach (source, worker->context);
  g_source_unref (source);
  return call;
}

/**
 * accel_worker_call_end:
 * @call: (transfer full): a call from accel_worker_call_begin()
 *
 * Waits until the call has run, and frees it. MT safe.
 */
void
accel_worker_call_end (AccelWorkerCall *call)
{
  g_mutex_lock (&call->lock);
  while (!call->done)
    g_cond_wait (&call->cond, &call->lock);
  g_mutex_unlock (&call->lock);
  g_debug ("a call on worker '%s' took %" G_GINT64_FORMAT " us, waiting "
           "included",
      call->worker->name, g_get_monotonic_time () - call->t0);
  g_mutex_clear (&call->lock);
  g_cond_clear (&call->cond);
  g_free (call);
}

/**
 * accel_worker_call:
 * @worker: a worker
 * @func: (scope call): what to run; its return value is ignored
 * @data: (closure func): data for @func
 *
 * Runs @func on the worker's thread, ahead of buffers, and waits for it; on
 * the worker's own thread it runs at once.
 *
 * MT safe; blocks the calling thread until @func has run.
 */
void
accel_worker_call (AccelWorker *worker, GSourceFunc func, gpointer data)
{
  accel_worker_call_end (accel_worker_call_begin (worker, func, data));
}

/**
 * accel_worker_stop:
 * @worker: a worker
 *
 * Ends the loop and joins the thread; what runs there must be unblocked
 * first. Stopping twice is harmless.
 *
 * Called from a thread other than the worker's (the one that stops the
 * graph).
 */
void
accel_worker_stop (AccelWorker *worker)
{
  GSource *source;

  if (!worker->thread)
    return;
  /* quit from inside the loop: a quit before the thread reached
   * g_main_loop_run () (a worker stopped as soon as made) would be lost */
  source = g_idle_source_new ();
  g_source_set_priority (source, G_PRIORITY_HIGH);
  g_source_set_callback (source, quit_loop, worker->loop, NULL);
  g_source_attach (source, worker->context);
  g_source_unref (source);
  g_thread_join (worker->thread);
  worker->thread = NULL;
  g_debug ("worker '%s' stopped", worker->name);
}
