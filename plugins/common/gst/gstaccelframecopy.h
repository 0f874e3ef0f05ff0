/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the 2D copies between a mapped video frame's planes and planes
 * elsewhere, on a CUDA stream, that the GStreamer plugin accel and the io
 * plugin's GStreamer bridge make (not installed) */
#pragma once

#include <gst/video/video.h>

G_BEGIN_DECLS

int gst_accel_frame_copy_planes (GstVideoFrame *frame, guint8 *const *other,
    const gsize *other_pitch, gboolean into_frame, gpointer stream);

G_END_DECLS
