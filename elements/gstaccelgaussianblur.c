/* accel: Gaussian blur element */
#include "gstaccelgaussianblur.h"

#include "image/blur.h"

GST_DEBUG_CATEGORY_STATIC (gst_accel_gaussian_blur_debug);
#define GST_CAT_DEFAULT gst_accel_gaussian_blur_debug

#define DEFAULT_SIGMA 1.0f

enum
{
  PROP_0,
  PROP_SIGMA,
};

struct _GstAccelGaussianBlur
{
  GstAccelFilter parent;

  gfloat sigma;
};

G_DEFINE_TYPE (
    GstAccelGaussianBlur, gst_accel_gaussian_blur, GST_TYPE_ACCEL_FILTER);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (accelgaussianblur, "accelgaussianblur",
    GST_RANK_NONE, GST_TYPE_ACCEL_GAUSSIAN_BLUR,
    GST_DEBUG_CATEGORY_INIT (gst_accel_gaussian_blur_debug, "accelgaussianblur",
        0, "accel Gaussian blur"));

static int
gst_accel_gaussian_blur_filter_host (GstAccelFilter *filter, int format,
    const void *src, size_t src_pitch, void *dst, size_t dst_pitch, int width,
    int height)
{
  GstAccelGaussianBlur *self = GST_ACCEL_GAUSSIAN_BLUR (filter);
  gfloat sigma;

  GST_OBJECT_LOCK (self);
  sigma = self->sigma;
  GST_OBJECT_UNLOCK (self);

  return accel_gaussian_blur_host (
      format, src, src_pitch, dst, dst_pitch, width, height, sigma);
}

static void
gst_accel_gaussian_blur_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstAccelGaussianBlur *self = GST_ACCEL_GAUSSIAN_BLUR (object);

  switch (prop_id)
    {
    case PROP_SIGMA:
      GST_OBJECT_LOCK (self);
      self->sigma = g_value_get_float (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
    }
}

static void
gst_accel_gaussian_blur_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstAccelGaussianBlur *self = GST_ACCEL_GAUSSIAN_BLUR (object);

  switch (prop_id)
    {
    case PROP_SIGMA:
      GST_OBJECT_LOCK (self);
      g_value_set_float (value, self->sigma);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
    }
}

static void
gst_accel_gaussian_blur_class_init (GstAccelGaussianBlurClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAccelFilterClass *filter_class = GST_ACCEL_FILTER_CLASS (klass);

  gobject_class->set_property = gst_accel_gaussian_blur_set_property;
  gobject_class->get_property = gst_accel_gaussian_blur_get_property;

  /* the kernel's radius is ceil (3 sigma), capped at 32 pixels */
  g_object_class_install_property (gobject_class, PROP_SIGMA,
      g_param_spec_float ("sigma", "Sigma",
          "Standard deviation of the Gaussian in pixels (radius ceil (3 "
          "sigma), at most 32)",
          0.1f, 10.0f, DEFAULT_SIGMA,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_set_static_metadata (element_class, "accel Gaussian blur",
      "Filter/Effect/Video",
      "Separable Gaussian blur of RGBA, BGRA or GRAY8 "
      "frames",
      "accel");

  filter_class->filter_host = gst_accel_gaussian_blur_filter_host;
}

static void
gst_accel_gaussian_blur_init (GstAccelGaussianBlur *self)
{
  self->sigma = DEFAULT_SIGMA;
}
