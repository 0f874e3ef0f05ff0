/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: frames in CUDA memory from GStreamer's own CUDA elements (no
 * GstAccelSyncMeta), read without blocking the host on every frame */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/**
 * GstAccelForeignHold:
 *
 * A frame from a GStreamer CUDA element goes back to its writer as soon as
 * it is released, and the writer writes it again without waiting for any
 * event of ours. Rather than waiting for its reads before releasing it, an
 * element keeps a reference until its next frame, with the event recorded
 * after the reads; by then that event is long done, so the wait on it
 * costs nothing.
 */
typedef struct
{
  GstBuffer *buffer;
  gpointer read_done; /* cudaEvent_t */
} GstAccelForeignHold;

void gst_accel_foreign_enter (GstBuffer *buffer);
int gst_accel_foreign_hold (
    GstAccelForeignHold *hold, GstBuffer *buffer, gpointer stream);
int gst_accel_foreign_release (GstAccelForeignHold *hold);
void gst_accel_foreign_clear (GstAccelForeignHold *hold);

G_END_DECLS
