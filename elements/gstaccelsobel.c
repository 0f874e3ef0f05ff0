/* accel: Sobel edge magnitude element */
#include "gstaccelsobel.h"

#include "image/sobel.h"

GST_DEBUG_CATEGORY_STATIC (gst_accel_sobel_debug);
#define GST_CAT_DEFAULT gst_accel_sobel_debug

#define DEFAULT_SCALE 1.0f

enum
{
  PROP_0,
  PROP_SCALE,
};

struct _GstAccelSobel
{
  GstAccelFilter parent;

  gfloat scale;
};

G_DEFINE_TYPE (GstAccelSobel, gst_accel_sobel, GST_TYPE_ACCEL_FILTER);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (accelsobel, "accelsobel", GST_RANK_NONE,
    GST_TYPE_ACCEL_SOBEL,
    GST_DEBUG_CATEGORY_INIT (
        gst_accel_sobel_debug, "accelsobel", 0, "accel Sobel"));

static int
gst_accel_sobel_filter_host (GstAccelFilter *filter, int format,
    const void *src, size_t src_pitch, void *dst, size_t dst_pitch, int width,
    int height)
{
  GstAccelSobel *self = GST_ACCEL_SOBEL (filter);
  gfloat scale;

  GST_OBJECT_LOCK (self);
  scale = self->scale;
  GST_OBJECT_UNLOCK (self);

  return accel_sobel_host (
      format, src, src_pitch, dst, dst_pitch, NULL, 0, width, height, scale);
}

static void
gst_accel_sobel_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstAccelSobel *self = GST_ACCEL_SOBEL (object);

  switch (prop_id)
    {
    case PROP_SCALE:
      GST_OBJECT_LOCK (self);
      self->scale = g_value_get_float (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
    }
}

static void
gst_accel_sobel_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstAccelSobel *self = GST_ACCEL_SOBEL (object);

  switch (prop_id)
    {
    case PROP_SCALE:
      GST_OBJECT_LOCK (self);
      g_value_set_float (value, self->scale);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
    }
}

static void
gst_accel_sobel_class_init (GstAccelSobelClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAccelFilterClass *filter_class = GST_ACCEL_FILTER_CLASS (klass);

  gobject_class->set_property = gst_accel_sobel_set_property;
  gobject_class->get_property = gst_accel_sobel_get_property;

  g_object_class_install_property (gobject_class, PROP_SCALE,
      g_param_spec_float ("scale", "Scale",
          "Factor applied to the gradient magnitude before clamping", 0.0f,
          16.0f, DEFAULT_SCALE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_set_static_metadata (element_class, "accel Sobel",
      "Filter/Effect/Video",
      "Sobel gradient magnitude of the luma of RGBA, BGRA or GRAY8 frames",
      "accel");

  filter_class->filter_host = gst_accel_sobel_filter_host;
}

static void
gst_accel_sobel_init (GstAccelSobel *self)
{
  self->scale = DEFAULT_SCALE;
}
