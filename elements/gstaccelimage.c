/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: video frames in the image kernels' layout: the planes' places,
 * whether a frame already is in it, and staging copies where it is not */
#include "gstaccelimage.h"

#include <accel/accel.h>
#include <cuda_runtime_api.h>
#include <string.h>

#include "image/image.h"

/**
 * gst_accel_image_format_from_video:
 * @format: a video format
 *
 * Returns: its ACCEL_IMAGE_* format, 0 for one the kernels do not take.
 */
int
gst_accel_image_format_from_video (GstVideoFormat format)
{
  switch (format)
    {
    case GST_VIDEO_FORMAT_RGBA:
      return ACCEL_IMAGE_RGBA8;
    case GST_VIDEO_FORMAT_BGRA:
      return ACCEL_IMAGE_BGRA8;
    case GST_VIDEO_FORMAT_GRAY8:
      return ACCEL_IMAGE_GRAY8;
    case GST_VIDEO_FORMAT_NV12:
      return ACCEL_IMAGE_NV12;
    case GST_VIDEO_FORMAT_I420:
      return ACCEL_IMAGE_I420;
    default:
      return 0;
    }
}

/**
 * gst_accel_image_format_name:
 * @format: an ACCEL_IMAGE_* format
 *
 * Returns: its name as the video formats spell it, for logs.
 */
const gchar *
gst_accel_image_format_name (int format)
{
  static const gchar *names[]
      = { "unknown", "RGBA", "BGRA", "GRAY8", "NV12", "I420", "RGBAF32" };

  return format > 0 && format < (int)G_N_ELEMENTS (names) ? names[format]
                                                          : names[0];
}

static int
n_planes (int format)
{
  return format == ACCEL_IMAGE_I420 ? 3 : format == ACCEL_IMAGE_NV12 ? 2 : 1;
}

/* where plane @p starts and its pitch, for a first plane of @pitch bytes
 * and @height rows (image.h) */
static void
plane_place (
    int format, gsize pitch, int height, int p, gsize *offset, gsize *p_pitch)
{
  gsize chroma = (pitch + 1) / 2, rows = (gsize)(height + 1) / 2;

  *offset = 0;
  *p_pitch = pitch;
  if (p == 0)
    return;
  *offset = pitch * height;
  *p_pitch = format == ACCEL_IMAGE_NV12 ? 2 * chroma : chroma;
  if (p == 2)
    *offset += chroma * rows;
}

/* bytes of a row of plane @p, and its rows */
static void
plane_extent (int format, int width, int height, int p, gsize *row, int *rows)
{
  *row = (gsize)width * accel_image_bytes_per_pixel (format);
  *rows = height;
  if (p == 0)
    return;
  *row = (gsize)(width + 1) / 2 * (format == ACCEL_IMAGE_NV12 ? 2 : 1);
  *rows = (height + 1) / 2;
}

static gsize
image_size (int format, gsize pitch, int width, int height)
{
  int last = n_planes (format) - 1, rows;
  gsize offset, p_pitch, row;

  plane_place (format, pitch, height, last, &offset, &p_pitch);
  plane_extent (format, width, height, last, &row, &rows);
  return offset + p_pitch * rows;
}

static void
image_init (
    GstAccelImage *image, GstVideoFrame *frame, gpointer data, gsize pitch)
{
  image->format
      = gst_accel_image_format_from_video (GST_VIDEO_FRAME_FORMAT (frame));
  image->data = data;
  image->pitch = pitch;
  image->width = GST_VIDEO_FRAME_WIDTH (frame);
  image->height = GST_VIDEO_FRAME_HEIGHT (frame);
}

/**
 * gst_accel_image_from_frame:
 * @image: (out caller-allocates): the frame as the kernels take it
 * @frame: a mapped frame
 *
 * Returns: %TRUE when @frame's planes lie as the kernels expect, so that
 *   they can work on it in place.
 */
gboolean
gst_accel_image_from_frame (GstAccelImage *image, GstVideoFrame *frame)
{
  guint8 *base = GST_VIDEO_FRAME_PLANE_DATA (frame, 0);
  gsize pitch = GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0);

  image_init (image, frame, base, pitch);
  if (!image->format
      || GST_VIDEO_FRAME_N_PLANES (frame) != (guint)n_planes (image->format))
    return FALSE;
  for (int p = 1; p < n_planes (image->format); p++)
    {
      gsize offset, p_pitch;

      plane_place (image->format, pitch, image->height, p, &offset, &p_pitch);
      if ((guint8 *)GST_VIDEO_FRAME_PLANE_DATA (frame, p) != base + offset
          || (gsize)GST_VIDEO_FRAME_PLANE_STRIDE (frame, p) != p_pitch)
        return FALSE;
    }
  return TRUE;
}

static int
staging_reserve (GstAccelStaging *staging, gboolean device, gsize size)
{
  if (staging->data && staging->size >= size && staging->device == device)
    return cudaSuccess;
  gst_accel_staging_clear (staging);
  staging->device = device;
  if (!device)
    staging->data = g_try_malloc (size);
  else
    {
      cudaError_t status;

      accel_device_global_call_begin ();
      status = cudaMalloc (&staging->data, size);
      accel_device_global_call_end ();
      if (status != cudaSuccess)
        staging->data = NULL;
    }
  if (!staging->data)
    return cudaErrorMemoryAllocation;
  staging->size = size;
  return cudaSuccess;
}

/**
 * gst_accel_image_alloc:
 * @image: (out caller-allocates): an image in @staging
 * @staging: where it lives
 * @device: in device memory (the caller's CUDA context current)
 * @format: an ACCEL_IMAGE_* format
 * @width: its width
 * @height: its height
 *
 * Returns: a cudaError_t: cudaErrorMemoryAllocation when it does not fit.
 */
int
gst_accel_image_alloc (GstAccelImage *image, GstAccelStaging *staging,
    gboolean device, int format, int width, int height)
{
  gsize pitch = (gsize)width * accel_image_bytes_per_pixel (format);
  int err = staging_reserve (
      staging, device, image_size (format, pitch, width, height));

  *image = (GstAccelImage){ format, staging->data, pitch, width, height };
  return err;
}

/**
 * gst_accel_image_planes:
 * @image: an image
 * @data: (out caller-allocates) (array fixed-size=4): where each plane starts
 * @pitch: (out caller-allocates) (array fixed-size=4): each plane's pitch
 *
 * Returns: the number of planes.
 */
int
gst_accel_image_planes (const GstAccelImage *image, guint8 **data, gsize *pitch)
{
  for (int p = 0; p < n_planes (image->format); p++)
    {
      gsize offset;

      plane_place (
          image->format, image->pitch, image->height, p, &offset, &pitch[p]);
      data[p] = (guint8 *)image->data + offset;
    }
  return n_planes (image->format);
}

/* copies every plane between @frame and @image; on the GPU enqueued on
 * @stream (any memory kinds: the addresses say which) */
static int
copy_planes (const GstAccelImage *image, gboolean device, GstVideoFrame *frame,
    gboolean to_image, gpointer stream)
{
  for (int p = 0; p < n_planes (image->format); p++)
    {
      guint8 *plane = GST_VIDEO_FRAME_PLANE_DATA (frame, p);
      gsize stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);
      gsize offset, p_pitch, row;
      guint8 *mine;
      int rows, err;

      plane_place (
          image->format, image->pitch, image->height, p, &offset, &p_pitch);
      plane_extent (image->format, image->width, image->height, p, &row, &rows);
      mine = (guint8 *)image->data + offset;
      if (device)
        {
          err = to_image ? cudaMemcpy2DAsync (mine, p_pitch, plane, stride, row,
                    rows, cudaMemcpyDefault, stream)
                         : cudaMemcpy2DAsync (plane, stride, mine, p_pitch, row,
                             rows, cudaMemcpyDefault, stream);
          if (err)
            return err;
          continue;
        }
      for (int y = 0; y < rows; y++)
        if (to_image)
          memcpy (mine + y * p_pitch, plane + y * stride, row);
        else
          memcpy (plane + y * stride, mine + y * p_pitch, row);
    }
  return cudaSuccess;
}

/**
 * gst_accel_image_stage:
 * @image: (out caller-allocates): @frame's image in @staging
 * @staging: where it goes
 * @device: @staging in device memory (the caller's CUDA context current)
 * @frame: a mapped frame, in any memory
 * @copy_in: copy @frame's pixels in (an input), or not (an output)
 * @stream: the stream the copies are enqueued on (with @device)
 *
 * Returns: a cudaError_t.
 */
int
gst_accel_image_stage (GstAccelImage *image, GstAccelStaging *staging,
    gboolean device, GstVideoFrame *frame, gboolean copy_in, gpointer stream)
{
  int format
      = gst_accel_image_format_from_video (GST_VIDEO_FRAME_FORMAT (frame));
  int err = gst_accel_image_alloc (image, staging, device, format,
      GST_VIDEO_FRAME_WIDTH (frame), GST_VIDEO_FRAME_HEIGHT (frame));

  if (err || !copy_in)
    return err;
  return copy_planes (image, device, frame, TRUE, stream);
}

/**
 * gst_accel_image_unstage:
 * @image: an output image from gst_accel_image_stage()
 * @staging: where it lives
 * @frame: the frame it was staged for
 * @stream: the stream the copies are enqueued on (device staging)
 *
 * Copies the pixels out to @frame. Returns: a cudaError_t.
 */
int
gst_accel_image_unstage (const GstAccelImage *image,
    const GstAccelStaging *staging, GstVideoFrame *frame, gpointer stream)
{
  return copy_planes (image, staging->device, frame, FALSE, stream);
}

void
gst_accel_staging_clear (GstAccelStaging *staging)
{
  if (staging->device && staging->data)
    {
      /* not while a graph in this process captures a stream */
      accel_device_global_call_begin ();
      cudaFree (staging->data);
      accel_device_global_call_end ();
    }
  else
    g_free (staging->data);
  staging->data = NULL;
  staging->size = 0;
}
