/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: video frames as the image kernels take them (kernels/image/image.h:
 * planes one after another, chroma pitches from the luma pitch), directly
 * where a frame is laid out that way, through staging where it is not */
#pragma once

#include <gst/video/video.h>

G_BEGIN_DECLS

/**
 * GstAccelImage:
 * @format: an ACCEL_IMAGE_* format
 * @data: the first byte (device memory for a GPU kernel)
 * @pitch: bytes from one row of the first plane to the next
 * @width: width in pixels
 * @height: height in pixels
 *
 * A frame in the kernels' layout.
 */
typedef struct
{
  int format;
  gpointer data;
  gsize pitch;
  int width;
  int height;
} GstAccelImage;

/**
 * GstAccelStaging:
 *
 * A frame's bytes in the kernels' layout, in device memory (through the
 * CUDA runtime, the caller's context current) or host memory; it grows to
 * the largest frame it held and is kept until cleared.
 */
typedef struct
{
  gpointer data;
  gsize size;
  gboolean device;
} GstAccelStaging;

int gst_accel_image_format_from_video (GstVideoFormat format);
const gchar *gst_accel_image_format_name (int format);
gboolean gst_accel_image_from_frame (
    GstAccelImage *image, GstVideoFrame *frame);
int gst_accel_image_stage (GstAccelImage *image, GstAccelStaging *staging,
    gboolean device, GstVideoFrame *frame, gboolean copy_in, gpointer stream);
int gst_accel_image_unstage (const GstAccelImage *image,
    const GstAccelStaging *staging, GstVideoFrame *frame, gpointer stream);
int gst_accel_image_alloc (GstAccelImage *image, GstAccelStaging *staging,
    gboolean device, int format, int width, int height);
int gst_accel_image_planes (
    const GstAccelImage *image, guint8 **data, gsize *pitch);
void gst_accel_staging_clear (GstAccelStaging *staging);

G_END_DECLS
