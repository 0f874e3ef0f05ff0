/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: frames in CUDA memory from GStreamer's own CUDA elements, held
 * until the reads of them are done instead of waited for */
#include "gstaccelforeign.h"

#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudamemory.h>

/**
 * gst_accel_foreign_enter:
 * @buffer: a frame in CUDA memory without GstAccelSyncMeta
 *
 * Makes sure its writer's work on it is done before an accel element reads
 * it. In GStreamer 1.22 CUDA memory has no stream: its writer finished
 * before it pushed, so there is nothing to do. From 1.24 a writer may push
 * with its stream's work in flight and marks the memory to be synchronized
 * (GST_CUDA_MEMORY_TRANSFER_NEED_SYNC): gst_cuda_memory_sync() is the one
 * wait it asks for. Called with the element's CUDA context current.
 */
void
gst_accel_foreign_enter (GstBuffer *buffer)
{
#if GST_CHECK_VERSION(1, 24, 0)
  for (guint i = 0; i < gst_buffer_n_memory (buffer); i++)
    {
      GstMemory *mem = gst_buffer_peek_memory (buffer, i);

      if (gst_is_cuda_memory (mem))
        gst_cuda_memory_sync (GST_CUDA_MEMORY_CAST (mem));
    }
#endif
}

/**
 * gst_accel_foreign_release:
 * @hold: a hold, possibly empty
 *
 * Waits for the reads of the held frame (done already in the steady state)
 * and lets it go back to its writer. Called with the element's CUDA
 * context current.
 *
 * Returns: a cudaError_t.
 */
int
gst_accel_foreign_release (GstAccelForeignHold *hold)
{
  int err = cudaSuccess;

  if (!hold->buffer)
    return cudaSuccess;
  err = cudaEventSynchronize (hold->read_done);
  gst_clear_buffer (&hold->buffer);
  return err;
}

/**
 * gst_accel_foreign_hold:
 * @hold: the element's hold
 * @buffer: the frame it just read on @stream
 * @stream: the element's stream, the reads enqueued
 *
 * Lets the previously held frame go (gst_accel_foreign_release()), then
 * keeps a reference to @buffer with an event recorded after the reads.
 * Called with the element's CUDA context current.
 *
 * Returns: a cudaError_t; on error nothing is held and the caller waits
 *   for its reads itself.
 */
int
gst_accel_foreign_hold (
    GstAccelForeignHold *hold, GstBuffer *buffer, gpointer stream)
{
  int err;

  if ((err = gst_accel_foreign_release (hold)))
    return err;
  if (!hold->read_done
      && (err = cudaEventCreateWithFlags (
              (cudaEvent_t *)&hold->read_done, cudaEventDisableTiming)))
    {
      hold->read_done = NULL;
      return err;
    }
  if ((err = cudaEventRecord (hold->read_done, stream)))
    return err;
  hold->buffer = gst_buffer_ref (buffer);
  return cudaSuccess;
}

/**
 * gst_accel_foreign_clear:
 * @hold: a hold, possibly empty
 *
 * Releases the held frame and frees the event. Called with the element's
 * CUDA context current.
 */
void
gst_accel_foreign_clear (GstAccelForeignHold *hold)
{
  gst_accel_foreign_release (hold);
  if (hold->read_done)
    cudaEventDestroy (hold->read_done);
  hold->read_done = NULL;
}
