/* accel: box blur element */
#include "gstaccelboxblur.h"

#include "image/blur.h"
#include "image/image.h"

GST_DEBUG_CATEGORY_STATIC (gst_accel_box_blur_debug);
#define GST_CAT_DEFAULT gst_accel_box_blur_debug

#define DEFAULT_RADIUS 1

enum
{
  PROP_0,
  PROP_RADIUS,
};

struct _GstAccelBoxBlur
{
  GstAccelFilter parent;

  gint radius;
};

G_DEFINE_TYPE (GstAccelBoxBlur, gst_accel_box_blur, GST_TYPE_ACCEL_FILTER);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (accelboxblur, "accelboxblur",
    GST_RANK_NONE, GST_TYPE_ACCEL_BOX_BLUR,
    GST_DEBUG_CATEGORY_INIT (
        gst_accel_box_blur_debug, "accelboxblur", 0, "accel box blur"));

static int
gst_accel_box_blur_filter_host (GstAccelFilter *filter, int format,
    const void *src, size_t src_pitch, void *dst, size_t dst_pitch, int width,
    int height)
{
  GstAccelBoxBlur *self = GST_ACCEL_BOX_BLUR (filter);
  gint radius;

  GST_OBJECT_LOCK (self);
  radius = self->radius;
  GST_OBJECT_UNLOCK (self);

  return accel_box_blur_host (
      format, src, src_pitch, dst, dst_pitch, width, height, radius);
}

static void
gst_accel_box_blur_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstAccelBoxBlur *self = GST_ACCEL_BOX_BLUR (object);

  switch (prop_id)
    {
    case PROP_RADIUS:
      GST_OBJECT_LOCK (self);
      self->radius = g_value_get_int (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
    }
}

static void
gst_accel_box_blur_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstAccelBoxBlur *self = GST_ACCEL_BOX_BLUR (object);

  switch (prop_id)
    {
    case PROP_RADIUS:
      GST_OBJECT_LOCK (self);
      g_value_set_int (value, self->radius);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
    }
}

static void
gst_accel_box_blur_class_init (GstAccelBoxBlurClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAccelFilterClass *filter_class = GST_ACCEL_FILTER_CLASS (klass);

  gobject_class->set_property = gst_accel_box_blur_set_property;
  gobject_class->get_property = gst_accel_box_blur_get_property;

  g_object_class_install_property (gobject_class, PROP_RADIUS,
      g_param_spec_int ("radius", "Radius",
          "Half width of the square window in pixels (window 2 radius + 1)", 0,
          ACCEL_IMAGE_MAX_RADIUS, DEFAULT_RADIUS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_set_static_metadata (element_class, "accel box blur",
      "Filter/Effect/Video",
      "Mean over a square window of RGBA, BGRA or GRAY8 "
      "frames",
      "accel");

  filter_class->filter_host = gst_accel_box_blur_filter_host;
}

static void
gst_accel_box_blur_init (GstAccelBoxBlur *self)
{
  self->radius = DEFAULT_RADIUS;
}
