/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.convert, colour conversion between the
 * image formats */
#define G_LOG_DOMAIN "accel-convert"

#include "accelconvert.h"
#include "accelrealtime-private.h"
#include "image/convert.h"

#define ALL_FORMATS                                                            \
  (ACCEL_REALTIME_FILTER_FORMATS                                               \
      | ACCEL_REALTIME_FORMAT_BIT (ACCEL_FORMAT_NV12)                          \
      | ACCEL_REALTIME_FORMAT_BIT (ACCEL_FORMAT_I420))

struct _AccelConvert
{
  AccelStage parent;

  gchar *format;
};

G_DEFINE_FINAL_TYPE (AccelConvert, accel_convert, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_FORMAT,
};

/* the output format is fixed here: a new format takes effect the next time
 * the graph is prepared */
static gboolean
accel_convert_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelConvert *self = ACCEL_CONVERT (stage);
  AccelFormat format
      = accel_format_from_string (self->format ? self->format : "");

  if (format == ACCEL_FORMAT_ANY)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "stage '%s' (realtime.convert): format '%s' is not one of RGBA8, "
          "BGRA8, GRAY8, NV12, I420, RGBAF32",
          accel_stage_get_name (stage), self->format ? self->format : "");
      return FALSE;
    }
  if (!accel_realtime_check_format (stage, &in_types[0], ALL_FORMATS, error))
    return FALSE;
  accel_type_init_image (&out_types[0], format, ACCEL_MEMORY_DEVICE,
      in_types[0].dims[1], in_types[0].dims[0]);
  return TRUE;
}

static AccelFlow
accel_convert_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelRealtimeImage in, out;

  accel_realtime_image_init (&in, frame->inputs[0]);
  accel_realtime_image_init (&out, frame->outputs[0]);
  if (accel_stage_is_host (stage))
    {
      if (!accel_realtime_host_check (stage,
              accel_convert_host (in.format, in.data, in.pitch, out.format,
                  out.data, out.pitch, in.width, in.height),
              error))
        return ACCEL_FLOW_ERROR;
      return ACCEL_FLOW_OK;
    }
  if (!accel_cuda_check (accel_convert (accel_stream_get_handle (frame->stream),
                             in.format, in.data, in.pitch, out.format, out.data,
                             out.pitch, in.width, in.height),
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_convert_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelConvert *self = ACCEL_CONVERT (object);

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;

  switch (prop_id)
    {
    case PROP_FORMAT:
      g_free (self->format);
      self->format = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_convert_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelConvert *self = ACCEL_CONVERT (object);

  switch (prop_id)
    {
    case PROP_FORMAT:
      g_value_set_string (value, self->format);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_convert_finalize (GObject *object)
{
  AccelConvert *self = ACCEL_CONVERT (object);

  g_free (self->format);
  G_OBJECT_CLASS (accel_convert_parent_class)->finalize (object);
}

static void
accel_convert_class_init (AccelConvertClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = accel_convert_set_property;
  gobject_class->get_property = accel_convert_get_property;
  gobject_class->finalize = accel_convert_finalize;
  stage_class->negotiate = accel_convert_negotiate;
  stage_class->process = accel_convert_process;
  stage_class->can_capture = accel_stage_can_capture_always;

  g_object_class_install_property (gobject_class, PROP_FORMAT,
      g_param_spec_string ("format", "Format",
          "Output format: RGBA8, BGRA8, GRAY8, NV12, I420 or RGBAF32", "RGBA8",
          flags | ACCEL_PARAM_FIXED));

  accel_stage_class_set_metadata (stage_class, "realtime.convert",
      "Colour conversion between RGBA8, BGRA8, GRAY8, NV12, I420 and "
      "RGBAF32 (BT.601 full range for YUV, 4:2:0 chroma as the mean of each "
      "2x2 block)");
  accel_realtime_class_add_image_ports (stage_class,
      "an image of any of the six formats", "the image in 'format'");
}

static void
accel_convert_init (AccelConvert *self)
{
}
