/* accel: base class of the accel image filter elements */
#include "gstaccelfilter.h"

#include "image/image.h"

GST_DEBUG_CATEGORY_STATIC (gst_accel_filter_debug);
#define GST_CAT_DEFAULT gst_accel_filter_debug

#define ACCEL_FILTER_CAPS GST_VIDEO_CAPS_MAKE ("{ RGBA, BGRA, GRAY8 }")

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE (
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (ACCEL_FILTER_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE (
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (ACCEL_FILTER_CAPS));

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstAccelFilter, gst_accel_filter,
    GST_TYPE_VIDEO_FILTER,
    GST_DEBUG_CATEGORY_INIT (
        gst_accel_filter_debug, "accelfilter", 0, "accel filter base class"));

int
gst_accel_filter_format_from_video (GstVideoFormat format)
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

static GstFlowReturn
gst_accel_filter_transform_frame (
    GstVideoFilter *filter, GstVideoFrame *in_frame, GstVideoFrame *out_frame)
{
  GstAccelFilter *self = GST_ACCEL_FILTER (filter);
  GstAccelFilterClass *klass = GST_ACCEL_FILTER_GET_CLASS (self);
  int format
      = gst_accel_filter_format_from_video (GST_VIDEO_FRAME_FORMAT (in_frame));
  int ret;

  ret = klass->filter_host (self, format,
      GST_VIDEO_FRAME_PLANE_DATA (in_frame, 0),
      GST_VIDEO_FRAME_PLANE_STRIDE (in_frame, 0),
      GST_VIDEO_FRAME_PLANE_DATA (out_frame, 0),
      GST_VIDEO_FRAME_PLANE_STRIDE (out_frame, 0),
      GST_VIDEO_FRAME_WIDTH (in_frame), GST_VIDEO_FRAME_HEIGHT (in_frame));
  if (ret != ACCEL_IMAGE_OK)
    goto failed;

  return GST_FLOW_OK;

  /* ERRORS */
failed:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
        ("image kernel failed with code %d", ret));
    return GST_FLOW_ERROR;
  }
}

static void
gst_accel_filter_class_init (GstAccelFilterClass *klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstVideoFilterClass *vfilter_class = GST_VIDEO_FILTER_CLASS (klass);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  vfilter_class->transform_frame = gst_accel_filter_transform_frame;
  gst_type_mark_as_plugin_api (GST_TYPE_ACCEL_FILTER, 0);
}

static void
gst_accel_filter_init (GstAccelFilter *self)
{
}
