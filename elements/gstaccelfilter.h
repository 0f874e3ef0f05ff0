/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: base class of the accel image filter elements */
#pragma once

#include <gst/cuda/gstcudacontext.h>
#include <accel/accel.h>
#include <gst/video/gstvideofilter.h>

#include "gstaccelimage.h"

G_BEGIN_DECLS

#define GST_TYPE_ACCEL_FILTER (gst_accel_filter_get_type ())
G_DECLARE_DERIVABLE_TYPE (
    GstAccelFilter, gst_accel_filter, GST, ACCEL_FILTER, GstVideoFilter)

/**
 * GstAccelFilterClass:
 * @filter: filters @src into @dst; returns an ACCEL_IMAGE_* code. With a
 *   @stream, enqueues the GPU kernel on it (@src and @dst in device memory,
 *   the element's CUDA context current); with %NULL runs the host
 *   implementation. Called from the streaming thread.
 * @filter_images: instead of @filter, for elements whose output differs
 *   from their input in format or size: the same, with both images in the
 *   kernels' layout (kernels/image/image.h)
 * @debug_category: the element's own debug category, set in its class_init:
 *   the base class tells its part of each frame's story there too, so that
 *   `GST_DEBUG=accelgaussianblur:6` shows all of it
 * @neighbourhood: each output pixel reads the rows above and below it, which
 *   in an interlaced frame are the other field's: interlaced input is
 *   refused (its fields were mixed)
 *
 * Frames in CUDA memory (video/x-raw(memory:CUDAMemory)) are filtered in
 * place on the GPU; frames in system memory go through device copies on a
 * GPU host and through the host implementation without one.
 */
struct _GstAccelFilterClass
{
  GstVideoFilterClass parent_class;

  int (*filter) (GstAccelFilter *self, void *stream, int format,
      const void *src, size_t src_pitch, void *dst, size_t dst_pitch, int width,
      int height);
  int (*filter_images) (GstAccelFilter *self, void *stream,
      const GstAccelImage *in, const GstAccelImage *out);
  GstDebugCategory *debug_category;
  gboolean neighbourhood;

  /*< private >*/
  GParamSpec **params; /* by property id, from install_param() */
  guint n_params;
};

/* the debug category of @obj's element (GstAccelFilterClass) */
#define GST_ACCEL_FILTER_CAT(obj)                                              \
  (GST_ACCEL_FILTER_GET_CLASS (obj)->debug_category)

int gst_accel_filter_format_from_video (GstVideoFormat format);
gpointer gst_accel_filter_get_stream (GstAccelFilter *self);
AccelStream *gst_accel_filter_get_sync_stream (GstAccelFilter *self);
GstCudaContext *gst_accel_filter_get_context (GstAccelFilter *self);
gboolean gst_accel_filter_get_downstream_waits (GstAccelFilter *self);
int gst_accel_filter_hold_input (GstAccelFilter *self, GstBuffer *inbuf);
gboolean gst_accel_filter_pass_gap (GstAccelFilter *self, GstBuffer *inbuf);
GstFlowReturn gst_accel_filter_prepare_transfer_buffer (
    GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer **outbuf);
gboolean gst_accel_filter_map_frames (GstAccelFilter *self, GstBuffer *inbuf,
    GstMapFlags in_flags, GstBuffer *outbuf, GstMapFlags out_flags,
    GstVideoFrame *in, GstVideoFrame *out);

void gst_accel_filter_class_install_param (
    GstAccelFilterClass *klass, guint prop_id, GParamSpec *pspec);
void gst_accel_filter_get_param (
    GstAccelFilter *self, guint prop_id, GValue *value);
gfloat gst_accel_filter_get_float (GstAccelFilter *self, guint prop_id);

G_END_DECLS
