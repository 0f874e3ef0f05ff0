/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.median, a 3x3 or 5x5 median filter */
#define G_LOG_DOMAIN "accel-median"

#include "accelmedian.h"
#include "accelrealtime-private.h"
#include "image/median.h"

struct _AccelMedian
{
  AccelStage parent;

  gint size;
};

G_DEFINE_FINAL_TYPE (AccelMedian, accel_median, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_SIZE,
};

/* the range is 3 to 5, for a property that may change while running:
 * 4 is refused at prepare, and fails the frame when set while running */
static gboolean
check_size (AccelMedian *self, AccelError code, GError **error)
{
  if (self->size == 3 || self->size == 5)
    return TRUE;
  g_set_error (error, ACCEL_ERROR, code,
      "stage '%s' (realtime.median): size %d is not 3 or 5",
      accel_stage_get_name (ACCEL_STAGE (self)), self->size);
  return FALSE;
}

static gboolean
accel_median_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelMedian *self = ACCEL_MEDIAN (stage);

  if (!check_size (self, ACCEL_ERROR_INVALID_PIPELINE, error))
    return FALSE;
  if (!accel_realtime_check_format (
          stage, &in_types[0], ACCEL_REALTIME_FILTER_FORMATS, error))
    return FALSE;
  out_types[0] = in_types[0];
  out_types[0].memory = ACCEL_MEMORY_DEVICE;
  return TRUE;
}

static AccelFlow
accel_median_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelMedian *self = ACCEL_MEDIAN (stage);
  AccelRealtimeImage in, out;

  if (!check_size (self, ACCEL_ERROR_INVALID_INPUT, error))
    return ACCEL_FLOW_ERROR;
  accel_realtime_image_init (&in, frame->inputs[0]);
  accel_realtime_image_init (&out, frame->outputs[0]);
  if (accel_stage_is_host (stage))
    {
      if (!accel_realtime_host_check (stage,
              accel_median_host (in.format, in.data, in.pitch, out.data,
                  out.pitch, in.width, in.height, self->size),
              error))
        return ACCEL_FLOW_ERROR;
      return ACCEL_FLOW_OK;
    }
  if (!accel_cuda_check (accel_median (accel_stream_get_handle (frame->stream),
                             in.format, in.data, in.pitch, out.data, out.pitch,
                             in.width, in.height, self->size),
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_median_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelMedian *self = ACCEL_MEDIAN (object);

  switch (prop_id)
    {
    case PROP_SIZE:
      self->size = g_value_get_int (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_median_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelMedian *self = ACCEL_MEDIAN (object);

  switch (prop_id)
    {
    case PROP_SIZE:
      g_value_set_int (value, self->size);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_median_class_init (AccelMedianClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = accel_median_set_property;
  gobject_class->get_property = accel_median_get_property;
  stage_class->negotiate = accel_median_negotiate;
  stage_class->process = accel_median_process;
  stage_class->can_capture = accel_stage_can_capture_always;

  g_object_class_install_property (gobject_class, PROP_SIZE,
      g_param_spec_int (
          "size", "Size", "Side of the square window: 3 or 5", 3, 5, 3, flags));

  accel_stage_class_set_metadata (stage_class, "realtime.median",
      "Median filter of every channel over a 3x3 or 5x5 window, edges "
      "clamped");
  accel_realtime_class_add_image_ports (stage_class,
      "RGBA8, BGRA8, GRAY8 or RGBAF32 image", "the filtered image");
}

static void
accel_median_init (AccelMedian *self)
{
}
