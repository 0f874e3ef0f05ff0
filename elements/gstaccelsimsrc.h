/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: base class of the simulation sources: a live simulation rendered
 * to RGBA frames at the negotiated size and framerate, stirred by the
 * pointer (GstNavigation events from the video sink) */
#pragma once

#include <gst/base/gstbasesrc.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define GST_TYPE_ACCEL_SIM_SRC (gst_accel_sim_src_get_type ())
G_DECLARE_DERIVABLE_TYPE (
    GstAccelSimSrc, gst_accel_sim_src, GST, ACCEL_SIM_SRC, GstBaseSrc)

/**
 * GstAccelPointer:
 * @inside: the pointer has been over the frame
 * @x: its position, in output pixels
 * @y: its position, in output pixels
 * @dx: its movement since the previous frame, in output pixels
 * @dy: its movement since the previous frame, in output pixels
 * @down: a button is held
 * @clicks: presses since the previous frame (a click shorter than a frame
 *   still counts)
 *
 * The pointer as one frame's step sees it.
 */
typedef struct
{
  gboolean inside;
  gdouble x, y;
  gdouble dx, dy;
  gboolean down;
  guint clicks;
} GstAccelPointer;

/**
 * GstAccelSimSrcClass:
 * @start_sim: makes the simulation's state for frames of @width x @height
 *   (device memory with a @stream, host memory with %NULL); called from the
 *   streaming thread when caps are set, the element's CUDA context current
 * @stop_sim: frees it (the context current, when there is one)
 * @step: advances the simulation one frame and renders it as RGBA8 into
 *   @rgba (device memory, enqueued on @stream; or host memory, with %NULL);
 *   returns a cudaError_t (0 on success)
 * @debug_category: the element's own debug category, set in its class_init:
 *   the base class tells its part of each frame's story there too, so that
 *   `GST_DEBUG=accelfluid:6` shows all of it
 */
struct _GstAccelSimSrcClass
{
  GstBaseSrcClass parent_class;

  gboolean (*start_sim) (
      GstAccelSimSrc *self, gpointer stream, int width, int height);
  void (*stop_sim) (GstAccelSimSrc *self);
  int (*step) (GstAccelSimSrc *self, gpointer stream,
      const GstAccelPointer *pointer, guint8 *rgba, size_t pitch, int width,
      int height);
  GstDebugCategory *debug_category;
};

/* the debug category of @obj's element (GstAccelSimSrcClass) */
#define GST_ACCEL_SIM_SRC_CAT(obj)                                             \
  (GST_ACCEL_SIM_SRC_GET_CLASS (obj)->debug_category)

G_END_DECLS
