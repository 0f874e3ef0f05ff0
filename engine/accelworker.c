/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: a worker thread running one GMainContext, for one or more stages */
#define G_LOG_DOMAIN "accel-stage"

#include "accel-private.h"

struct _AccelWorker
{
  gint refcount;
  gchar *name;
  GMainContext *context;
  GMainLoop *loop;
  GThread *thread;
};

static gpointer
worker_thread (gpointer data)
{
  AccelWorker *worker = data;

  g_main_context_push_thread_default (worker->context);
  g_main_loop_run (worker->loop);
  g_main_context_pop_thread_default (worker->context);
  return NULL;
}

AccelWorker *
accel_worker_new (const char *name)
{
  AccelWorker *worker = g_new0 (AccelWorker, 1);

  worker->refcount = 1;
  worker->name = g_strdup (name);
  worker->context = g_main_context_new ();
  worker->loop = g_main_loop_new (worker->context, FALSE);
  worker->thread = g_thread_new (name, worker_thread, worker);
  return worker;
}

AccelWorker *
accel_worker_ref (AccelWorker *worker)
{
  g_atomic_int_inc (&worker->refcount);
  return worker;
}

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

GMainContext *
accel_worker_get_context (AccelWorker *worker)
{
  return worker->context;
}

gboolean
accel_worker_is_current (AccelWorker *worker)
{
  return worker->thread == g_thread_self ();
}

typedef struct
{
  GSourceFunc func;
  gpointer data;
  GMutex lock;
  GCond cond;
  gboolean done;
} Call;

static gboolean
run_call (gpointer data)
{
  Call *call = data;

  call->func (call->data);
  g_mutex_lock (&call->lock);
  call->done = TRUE;
  g_cond_signal (&call->cond);
  g_mutex_unlock (&call->lock);
  return G_SOURCE_REMOVE;
}

/* runs @func on the worker's thread, ahead of buffers, and waits for it */
void
accel_worker_call (AccelWorker *worker, GSourceFunc func, gpointer data)
{
  Call call = { func, data };
  GSource *source;

  if (accel_worker_is_current (worker))
    {
      func (data);
      return;
    }
  g_mutex_init (&call.lock);
  g_cond_init (&call.cond);
  source = g_idle_source_new ();
  g_source_set_priority (source, G_PRIORITY_HIGH);
  g_source_set_callback (source, run_call, &call, NULL);
  g_source_attach (source, worker->context);
  g_source_unref (source);

  g_mutex_lock (&call.lock);
  while (!call.done)
    g_cond_wait (&call.cond, &call.lock);
  g_mutex_unlock (&call.lock);
  g_mutex_clear (&call.lock);
  g_cond_clear (&call.cond);
}

/* ends the loop and joins the thread; what runs there must be unblocked */
void
accel_worker_stop (AccelWorker *worker)
{
  if (!worker->thread)
    return;
  g_main_loop_quit (worker->loop);
  g_thread_join (worker->thread);
  worker->thread = NULL;
}
