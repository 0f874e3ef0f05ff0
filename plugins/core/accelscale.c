/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel core plugin: core.scale, out = in * scale + offset (f32 or u8,
 * saturating) */
#define G_LOG_DOMAIN "accel-scale"

#include "accelscale.h"
#include "core/pattern.h"

struct _AccelScale
{
  AccelStage parent;

  gfloat scale;
  gfloat offset;
  guint64 spin_ns;
};

G_DEFINE_FINAL_TYPE (AccelScale, accel_scale, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_SCALE,
  PROP_OFFSET,
  PROP_SPIN_NS,
};

static gboolean
accel_scale_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  if (in_types[0].dtype != ACCEL_DTYPE_F32
      && in_types[0].dtype != ACCEL_DTYPE_U8)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH,
          "stage '%s' (core.scale) takes f32 or u8 data, not %s",
          accel_stage_get_name (stage),
          accel_dtype_to_string (in_types[0].dtype));
      return FALSE;
    }
  out_types[0] = in_types[0];
  out_types[0].memory = ACCEL_MEMORY_DEVICE;
  return TRUE;
}

static AccelFlow
accel_scale_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelScale *self = ACCEL_SCALE (stage);
  AccelBuffer *in = frame->inputs[0], *out = frame->outputs[0];
  gboolean is_f32 = accel_buffer_peek_type (in)->dtype == ACCEL_DTYPE_F32;
  gsize n = accel_buffer_get_size (in) / (is_f32 ? 4 : 1);
  gconstpointer src = accel_buffer_get_data (in);
  gpointer dst = accel_buffer_get_data (out);
  gpointer stream = accel_stream_get_handle (frame->stream);

  if (accel_stage_is_host (stage))
    {
      if (is_f32)
        accel_scale_f32_host (src, dst, n, self->scale, self->offset);
      else
        accel_scale_u8_host (src, dst, n, self->scale, self->offset);
      return ACCEL_FLOW_OK;
    }
  if (!accel_cuda_check (is_f32 ? accel_scale_f32 (stream, src, dst, n,
                             self->scale, self->offset, self->spin_ns)
                                : accel_scale_u8 (stream, src, dst, n,
                                    self->scale, self->offset, self->spin_ns),
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_scale_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelScale *self = ACCEL_SCALE (object);

  switch (prop_id)
    {
    case PROP_SCALE:
      self->scale = g_value_get_float (value);
      break;
    case PROP_OFFSET:
      self->offset = g_value_get_float (value);
      break;
    case PROP_SPIN_NS:
      self->spin_ns = g_value_get_uint64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_scale_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelScale *self = ACCEL_SCALE (object);

  switch (prop_id)
    {
    case PROP_SCALE:
      g_value_set_float (value, self->scale);
      break;
    case PROP_OFFSET:
      g_value_set_float (value, self->offset);
      break;
    case PROP_SPIN_NS:
      g_value_set_uint64 (value, self->spin_ns);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_scale_class_init (AccelScaleClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;
  AccelType in, out;

  gobject_class->set_property = accel_scale_set_property;
  gobject_class->get_property = accel_scale_get_property;
  stage_class->negotiate = accel_scale_negotiate;
  stage_class->process = accel_scale_process;
  stage_class->can_capture = accel_stage_can_capture_always;

  g_object_class_install_property (gobject_class, PROP_SCALE,
      g_param_spec_float ("scale", "Scale", "Factor for every element",
          -G_MAXFLOAT, G_MAXFLOAT, 1.0f, flags));
  g_object_class_install_property (gobject_class, PROP_OFFSET,
      g_param_spec_float ("offset", "Offset", "Added after scaling",
          -G_MAXFLOAT, G_MAXFLOAT, 0.0f, flags));
  g_object_class_install_property (gobject_class, PROP_SPIN_NS,
      g_param_spec_uint64 ("spin-ns", "Spin",
          "GPU time the kernel waits "
          "before reading, in ns (makes a slow reader)",
          0, G_GUINT64_CONSTANT (10000000000), 0, flags));

  accel_stage_class_set_metadata (stage_class, "core.scale",
      "Scale and offset every element: out = in * scale + offset");
  accel_type_init_any (&in);
  in.memory = ACCEL_MEMORY_DEVICE;
  out = in;
  accel_stage_class_add_port (
      stage_class, ACCEL_PORT_INPUT, "in", &in, "f32 or u8 data");
  accel_stage_class_add_port (
      stage_class, ACCEL_PORT_OUTPUT, "out", &out, "same type as the input");
}

static void
accel_scale_init (AccelScale *self)
{
}
