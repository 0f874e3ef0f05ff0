/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the synchronization state of one piece of GPU memory */
#pragma once

#include <glib.h>
#include <accel/acceldevice.h>
#include <accel/accelstream.h>

G_BEGIN_DECLS

/**
 * AccelFence:
 *
 * What orders the GPU work of everyone who touches one piece of memory
 * without blocking the host: the stream of the last writer and the event
 * recorded after its write, and for each stream that read the memory since,
 * the event recorded after its read.
 *
 * A reader calls accel_fence_acquire_read() before it enqueues its reads and
 * accel_fence_release_read() after; a writer calls
 * accel_fence_acquire_write() and accel_fence_release_write(). Acquiring
 * makes the stream wait, on the GPU, for the other streams' events (read
 * after write, write after read); releasing records the stream's event.
 * Work on one stream is ordered by the stream itself and waits for nothing.
 *
 * The engine's buffers carry one, and the GStreamer elements' sync meta
 * carries one: the contract is written once, here. All functions are MT
 * safe.
 */
typedef struct _AccelFence AccelFence;

AccelFence *accel_fence_new (AccelDevice *device);
void accel_fence_free (AccelFence *fence);

gboolean accel_fence_acquire_read (
    AccelFence *fence, AccelStream *stream, GError **error);
gboolean accel_fence_release_read (
    AccelFence *fence, AccelStream *stream, GError **error);
gboolean accel_fence_acquire_write (
    AccelFence *fence, AccelStream *stream, GError **error);
gboolean accel_fence_release_write (
    AccelFence *fence, AccelStream *stream, GError **error);

AccelStream *accel_fence_get_last_write_stream (AccelFence *fence);
guint accel_fence_get_n_read_fences (AccelFence *fence);

G_END_DECLS
