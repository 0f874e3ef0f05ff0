/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.blend, a layer (input b) blended over a
 * base (input a) */
#define G_LOG_DOMAIN "accel-blend"

#include "accelblend.h"
#include "accelrealtime-private.h"
#include "effects/blend.h"

struct _AccelBlend
{
  AccelStage parent;

  AccelBlendMode mode;
  gfloat opacity;
};

G_DEFINE_FINAL_TYPE (AccelBlend, accel_blend, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_MODE,
  PROP_OPACITY,
};

#define ACCEL_TYPE_BLEND_MODE (accel_blend_mode_get_type ())
static GType accel_blend_mode_get_type (void);

static GType
accel_blend_mode_get_type (void)
{
  static gsize type;
  static const GEnumValue values[] = {
    { ACCEL_BLEND_OVER, "The layer over the base", "over" },
    { ACCEL_BLEND_ADD, "Sum, clipped at white", "add" },
    { ACCEL_BLEND_MULTIPLY, "Product: darkens", "multiply" },
    { ACCEL_BLEND_SCREEN, "Inverted product of the inverses: lightens",
        "screen" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (
        &type, g_enum_register_static ("AccelBlendMode", values));
  return (GType)type;
}

static gboolean
accel_blend_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  if (!accel_realtime_check_format (
          stage, &in_types[0], ACCEL_REALTIME_RGBA_FORMATS, error)
      || !accel_realtime_check_format (
          stage, &in_types[1], ACCEL_REALTIME_RGBA_FORMATS, error))
    return FALSE;
  if (in_types[0].format != in_types[1].format
      || in_types[0].dims[0] != in_types[1].dims[0]
      || in_types[0].dims[1] != in_types[1].dims[1])
    {
      g_autofree gchar *a = accel_type_to_string (&in_types[0]);
      g_autofree gchar *b = accel_type_to_string (&in_types[1]);
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH,
          "stage '%s' (realtime.blend) blends two images of one format and "
          "size, not %s on 'a' and %s on 'b'",
          accel_stage_get_name (stage), a, b);
      return FALSE;
    }
  out_types[0] = in_types[0];
  out_types[0].memory = ACCEL_MEMORY_DEVICE;
  return TRUE;
}

static AccelFlow
accel_blend_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelBlend *self = ACCEL_BLEND (stage);
  AccelRealtimeImage a, b, out;

  accel_realtime_image_init (&a, frame->inputs[0]);
  accel_realtime_image_init (&b, frame->inputs[1]);
  accel_realtime_image_init (&out, frame->outputs[0]);
  if (accel_stage_is_host (stage))
    {
      if (!accel_realtime_host_check (stage,
              accel_blend_host (a.format, a.data, a.pitch, b.data, b.pitch,
                  out.data, out.pitch, a.width, a.height, (int)self->mode,
                  self->opacity),
              error))
        return ACCEL_FLOW_ERROR;
      return ACCEL_FLOW_OK;
    }
  if (!accel_cuda_check (
          accel_blend (accel_stream_get_handle (frame->stream), a.format,
              a.data, a.pitch, b.data, b.pitch, out.data, out.pitch, a.width,
              a.height, (int)self->mode, self->opacity),
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_blend_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelBlend *self = ACCEL_BLEND (object);

  switch (prop_id)
    {
    case PROP_MODE:
      self->mode = (AccelBlendMode)g_value_get_enum (value);
      break;
    case PROP_OPACITY:
      self->opacity = g_value_get_float (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_blend_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelBlend *self = ACCEL_BLEND (object);

  switch (prop_id)
    {
    case PROP_MODE:
      g_value_set_enum (value, (gint)self->mode);
      break;
    case PROP_OPACITY:
      g_value_set_float (value, self->opacity);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_blend_class_init (AccelBlendClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;
  AccelType image;

  gobject_class->set_property = accel_blend_set_property;
  gobject_class->get_property = accel_blend_get_property;
  stage_class->negotiate = accel_blend_negotiate;
  stage_class->process = accel_blend_process;
  stage_class->can_capture = accel_stage_can_capture_always;

  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode",
          "How the layer's colour combines with the base's",
          ACCEL_TYPE_BLEND_MODE, ACCEL_BLEND_OVER, flags));
  g_object_class_install_property (gobject_class, PROP_OPACITY,
      g_param_spec_float ("opacity", "Opacity",
          "How much of the blend replaces the base, times the layer's alpha",
          0.0f, 1.0f, 1.0f, flags));

  accel_stage_class_set_metadata (stage_class, "realtime.blend",
      "A layer blended over a base (over, add, multiply, screen) with an "
      "opacity, straight alpha");
  accel_type_init_image (&image, ACCEL_FORMAT_ANY, ACCEL_MEMORY_DEVICE,
      ACCEL_DIM_ANY, ACCEL_DIM_ANY);
  accel_stage_class_add_port (
      stage_class, ACCEL_PORT_INPUT, "a", &image, "the base, RGBA8 or BGRA8");
  accel_stage_class_add_port (stage_class, ACCEL_PORT_INPUT, "b", &image,
      "the layer, of the base's format and size");
  accel_stage_class_add_port (
      stage_class, ACCEL_PORT_OUTPUT, "out", &image, "the blend");
}

static void
accel_blend_init (AccelBlend *self)
{
}
