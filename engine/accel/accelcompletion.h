/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: how a host thread learns that GPU work on a stream has finished */
#pragma once

#include <glib-object.h>
#include <accel/accelstream.h>

G_BEGIN_DECLS

/**
 * AccelCompletion:
 * @ACCEL_COMPLETION_POLL: a #GSource on the waiting context queries an event,
 *   spinning briefly, then backing off (default; lowest latency measured)
 * @ACCEL_COMPLETION_HOSTFN: cudaLaunchHostFunc posts back to the context
 * @ACCEL_COMPLETION_SYNC: block the thread until the stream is done
 */
typedef enum
{
  ACCEL_COMPLETION_POLL,
  ACCEL_COMPLETION_HOSTFN,
  ACCEL_COMPLETION_SYNC,
} AccelCompletion;

#define ACCEL_TYPE_COMPLETION (accel_completion_get_type ())
GType accel_completion_get_type (void);

/**
 * AccelCompletionFunc:
 * @error: (nullable): why the wait failed, or %NULL when the work is done
 * @user_data: data given to accel_completion_wait_async()
 *
 * Called on the thread that runs the #GMainContext given to
 * accel_completion_wait_async().
 */
typedef void (*AccelCompletionFunc) (const GError *error, gpointer user_data);

gboolean accel_completion_wait_async (AccelCompletion mode, AccelStream *stream,
    GMainContext *context, AccelCompletionFunc func, gpointer user_data,
    GError **error);

G_END_DECLS
