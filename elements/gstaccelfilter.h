/* accel: base class of the accel image filter elements */
#pragma once

#include <gst/video/gstvideofilter.h>

G_BEGIN_DECLS

#define GST_TYPE_ACCEL_FILTER (gst_accel_filter_get_type ())
G_DECLARE_DERIVABLE_TYPE (
    GstAccelFilter, gst_accel_filter, GST, ACCEL_FILTER, GstVideoFilter)

/**
 * GstAccelFilterClass:
 * @filter_host: runs the host reference from @in to @out; returns an
 *   ACCEL_IMAGE_* code. Called from the streaming thread.
 */
struct _GstAccelFilterClass
{
  GstVideoFilterClass parent_class;

  int (*filter_host) (GstAccelFilter *self, int format, const void *src,
      size_t src_pitch, void *dst, size_t dst_pitch, int width, int height);
};

int gst_accel_filter_format_from_video (GstVideoFormat format);

G_END_DECLS
