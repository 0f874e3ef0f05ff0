/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: refcounted CUDA events, shared by the buffers one frame touched */
#define G_LOG_DOMAIN "accel-event"

#include "accel-private.h"

struct _AccelEvent
{
  gint refcount;
  AccelDevice *device;
  cudaEvent_t handle;
};

AccelEvent *
accel_event_new (AccelDevice *device, GError **error)
{
  cudaEvent_t handle;
  AccelEvent *ev;

  if (!accel_device_make_current (device, error)
      || !accel_cuda_check (
          cudaEventCreateWithFlags (&handle, cudaEventDisableTiming), error))
    return NULL;
  ev = g_new0 (AccelEvent, 1);
  ev->refcount = 1;
  ev->device = g_object_ref (device);
  ev->handle = handle;
  return ev;
}

AccelEvent *
accel_event_ref (AccelEvent *ev)
{
  g_atomic_int_inc (&ev->refcount);
  return ev;
}

void
accel_event_unref (AccelEvent *ev)
{
  if (!g_atomic_int_dec_and_test (&ev->refcount))
    return;
  accel_device_make_current (ev->device, NULL);
  accel_cuda_check (cudaEventDestroy (ev->handle), NULL);
  g_object_unref (ev->device);
  g_free (ev);
}

/* re-recording an event others still hold only makes them wait for a later
 * point of the same stream: later, never wrong */
gboolean
accel_event_record (AccelEvent *ev, AccelStream *stream, GError **error)
{
  return accel_cuda_check (
      cudaEventRecord (ev->handle, accel_stream_get_cuda (stream)), error);
}

cudaEvent_t
accel_event_get_cuda (AccelEvent *ev)
{
  return ev->handle;
}
