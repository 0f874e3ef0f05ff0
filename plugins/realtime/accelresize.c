/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.resize, bilinear resampling to any size */
#define G_LOG_DOMAIN "accel-resize"

#include "accelresize.h"
#include "accelrealtime-private.h"
#include "image/resize.h"

struct _AccelResize
{
  AccelStage parent;

  gint width;
  gint height;
};

G_DEFINE_FINAL_TYPE (AccelResize, accel_resize, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_WIDTH,
  PROP_HEIGHT,
};

/* the output size is fixed here: changing width or height while the graph
 * runs takes effect the next time it is prepared */
static gboolean
accel_resize_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelResize *self = ACCEL_RESIZE (stage);
  const AccelType *in = &in_types[0];

  if (!accel_realtime_check_format (
          stage, in, ACCEL_REALTIME_FILTER_FORMATS, error))
    return FALSE;
  accel_type_init_image (&out_types[0], in->format, ACCEL_MEMORY_DEVICE,
      self->width > 0 ? self->width : in->dims[1],
      self->height > 0 ? self->height : in->dims[0]);
  return TRUE;
}

static AccelFlow
accel_resize_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelRealtimeImage in, out;

  accel_realtime_image_init (&in, frame->inputs[0]);
  accel_realtime_image_init (&out, frame->outputs[0]);
  if (accel_stage_is_host (stage))
    {
      if (!accel_realtime_host_check (stage,
              accel_resize_host (in.format, in.data, in.pitch, in.width,
                  in.height, out.data, out.pitch, out.width, out.height),
              error))
        return ACCEL_FLOW_ERROR;
      return ACCEL_FLOW_OK;
    }
  if (!accel_cuda_check (accel_resize (accel_stream_get_handle (frame->stream),
                             in.format, in.data, in.pitch, in.width, in.height,
                             out.data, out.pitch, out.width, out.height),
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_resize_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelResize *self = ACCEL_RESIZE (object);

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;

  switch (prop_id)
    {
    case PROP_WIDTH:
      self->width = g_value_get_int (value);
      break;
    case PROP_HEIGHT:
      self->height = g_value_get_int (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_resize_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelResize *self = ACCEL_RESIZE (object);

  switch (prop_id)
    {
    case PROP_WIDTH:
      g_value_set_int (value, self->width);
      break;
    case PROP_HEIGHT:
      g_value_set_int (value, self->height);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_resize_class_init (AccelResizeClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = accel_resize_set_property;
  gobject_class->get_property = accel_resize_get_property;
  stage_class->negotiate = accel_resize_negotiate;
  stage_class->process = accel_resize_process;
  stage_class->can_capture = accel_stage_can_capture_always;

  g_object_class_install_property (gobject_class, PROP_WIDTH,
      g_param_spec_int ("width", "Width",
          "Output width in pixels; 0 keeps the input's", 0, G_MAXINT16, 0,
          flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_HEIGHT,
      g_param_spec_int ("height", "Height",
          "Output height in pixels; 0 keeps the input's", 0, G_MAXINT16, 0,
          flags | ACCEL_PARAM_FIXED));

  accel_stage_class_set_metadata (stage_class, "realtime.resize",
      "Bilinear resize to any size, pixel centres aligned, edges clamped");
  accel_realtime_class_add_image_ports (stage_class,
      "RGBA8, BGRA8, GRAY8 or RGBAF32 image", "the resized image, same format");
}

static void
accel_resize_init (AccelResize *self)
{
}
