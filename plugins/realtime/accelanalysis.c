/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.analysis, per-channel statistics,
 * histograms and motion energy of each frame, and the frame itself, as it
 * is or histogram-equalised
 *
 * Outputs:
 *   out        the frame (a copy: the engine has no way to hand an input
 *              buffer on), or with equalize set, the equalised frame
 *   stats      tensor<f32>[5x5]: rows R, G, B, A, luma (BT.601 Y); columns
 *              min, max, mean, standard deviation, motion energy (the mean
 *              absolute difference to the previous frame; 0 for the first
 *              frame and after a flush)
 *   histogram  tensor<u32>[5x256]: the 256-bin histogram of each of those
 *              channels
 * Every output is written each frame; links to the ones a graph wants. */
#define G_LOG_DOMAIN "accel-analysis"

#include <cuda_runtime_api.h>
#include <string.h>

#include "accelanalysis.h"
#include "accelrealtime-private.h"
#include "effects/analysis.h"

/* what a snapshot starts with */
typedef struct
{
  guint32 magic;
  gint32 width, height;
  guint32 valid;
} PreviousHeader;

#define PREVIOUS_MAGIC 0x31414e41u /* "ANA1" */

struct _AccelAnalysis
{
  AccelStage parent;

  AccelEqualizeMode equalize;

  /* stage thread only, between start() and stop() */
  int width, height;
  AccelBuffer *previous; /* the last frame, tightly packed */
  AccelBuffer *motion;   /* ACCEL_ANALYSIS_CHANNELS 64-bit sums */
  gboolean previous_valid;
};

G_DEFINE_FINAL_TYPE (AccelAnalysis, accel_analysis, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_EQUALIZE,
};

#define ACCEL_TYPE_EQUALIZE_MODE (accel_equalize_mode_get_type ())
static GType accel_equalize_mode_get_type (void);

static GType
accel_equalize_mode_get_type (void)
{
  static gsize type;
  static const GEnumValue values[] = {
    { ACCEL_EQUALIZE_NONE, "The frame as it came", "none" },
    { ACCEL_EQUALIZE_LUMA,
        "Luma equalised, R, G and B moved alike so the chroma stays", "luma" },
    { ACCEL_EQUALIZE_CHANNELS, "R, G and B equalised each on its own",
        "per-channel" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (
        &type, g_enum_register_static ("AccelEqualizeMode", values));
  return (GType)type;
}

static gboolean
accel_analysis_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  static const gint64 stats_dims[]
      = { ACCEL_ANALYSIS_CHANNELS, ACCEL_ANALYSIS_STATS };
  static const gint64 histogram_dims[]
      = { ACCEL_ANALYSIS_CHANNELS, ACCEL_ANALYSIS_BINS };

  if (!accel_realtime_check_format (
          stage, &in_types[0], ACCEL_REALTIME_RGBA_FORMATS, error))
    return FALSE;
  out_types[0] = in_types[0];
  out_types[0].memory = ACCEL_MEMORY_DEVICE;
  accel_type_init_tensor (
      &out_types[1], ACCEL_DTYPE_F32, ACCEL_MEMORY_DEVICE, 2, stats_dims);
  accel_type_init_tensor (
      &out_types[2], ACCEL_DTYPE_U32, ACCEL_MEMORY_DEVICE, 2, histogram_dims);
  return TRUE;
}

static gboolean
accel_analysis_start (AccelStage *stage, GError **error)
{
  AccelAnalysis *self = ACCEL_ANALYSIS (stage);
  const AccelType *in = accel_stage_get_input_type (stage, 0);
  AccelDevice *device = accel_stage_get_device (stage);
  AccelType bytes;

  self->height = (int)in->dims[0];
  self->width = (int)in->dims[1];
  self->previous_valid = FALSE;
  accel_type_init_bytes (
      &bytes, ACCEL_MEMORY_DEVICE, (gint64)self->width * self->height * 4);
  self->previous = accel_buffer_new (device, &bytes, error);
  if (!self->previous)
    return FALSE;
  accel_type_init_bytes (&bytes, ACCEL_MEMORY_DEVICE,
      (gint64)(ACCEL_ANALYSIS_CHANNELS * sizeof (guint64)));
  self->motion = accel_buffer_new (device, &bytes, error);
  return self->motion != NULL;
}

static void
accel_analysis_stop (AccelStage *stage)
{
  AccelAnalysis *self = ACCEL_ANALYSIS (stage);

  g_clear_pointer (&self->previous, accel_buffer_unref);
  g_clear_pointer (&self->motion, accel_buffer_unref);
  self->previous_valid = FALSE;
}

/* accumulate (histograms, motion against the previous frame, which it
 * then replaces), statistics, and the frame out */
/* from the second frame on, motion against the previous frame is always
 * measured */
static gboolean
accel_analysis_can_capture (AccelStage *stage, const AccelFrame *frame)
{
  return ACCEL_ANALYSIS (stage)->previous_valid;
}

static AccelFlow
accel_analysis_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelAnalysis *self = ACCEL_ANALYSIS (stage);
  AccelRealtimeImage in, out;
  gpointer previous = accel_buffer_get_data (self->previous);
  guint64 *motion = accel_buffer_get_data (self->motion);
  float *stats = accel_buffer_get_data (frame->outputs[1]);
  guint32 *histogram = accel_buffer_get_data (frame->outputs[2]);
  gsize pitch = (gsize)self->width * 4;
  int flags = ACCEL_ANALYSIS_LUMA | ACCEL_ANALYSIS_KEEP
              | (self->previous_valid ? ACCEL_ANALYSIS_MOTION : 0);
  gpointer stream;

  accel_realtime_image_init (&in, frame->inputs[0]);
  accel_realtime_image_init (&out, frame->outputs[0]);
  if (accel_stage_is_host (stage))
    {
      if (!accel_realtime_host_check (stage,
              accel_analysis_accumulate_host (in.format, in.data, in.pitch,
                  in.width, in.height, flags, previous, pitch, histogram,
                  motion),
              error)
          || !accel_realtime_host_check (stage,
              accel_analysis_stats_host (histogram, motion, stats), error)
          || !accel_realtime_host_check (stage,
              accel_equalize_host (in.format, in.data, in.pitch, out.data,
                  out.pitch, in.width, in.height, histogram,
                  (int)self->equalize),
              error))
        return ACCEL_FLOW_ERROR;
      self->previous_valid = TRUE;
      return ACCEL_FLOW_OK;
    }

  stream = accel_stream_get_handle (frame->stream);
  if (!accel_cuda_check (
          accel_analysis_accumulate (stream, in.format, in.data, in.pitch,
              in.width, in.height, flags, previous, pitch, histogram, motion),
          error)
      || !accel_cuda_check (
          accel_analysis_stats (stream, histogram, motion, stats), error)
      || !accel_cuda_check (
          accel_equalize (stream, in.format, in.data, in.pitch, out.data,
              out.pitch, in.width, in.height, histogram, (int)self->equalize),
          error))
    return ACCEL_FLOW_ERROR;
  self->previous_valid = TRUE;
  return ACCEL_FLOW_OK;
}

/* the next frame's motion energy is 0 again */
static void
accel_analysis_flush (AccelStage *stage)
{
  ACCEL_ANALYSIS (stage)->previous_valid = FALSE;
}

/* the previous frame, behind a header; a copy to the host (a sync, every
 * snapshot-interval frames) */
static GBytes *
accel_analysis_snapshot (AccelStage *stage)
{
  AccelAnalysis *self = ACCEL_ANALYSIS (stage);
  PreviousHeader header
      = { PREVIOUS_MAGIC, self->width, self->height, self->previous_valid };
  gsize size;
  guint8 *copy;

  if (!self->previous)
    return NULL;
  size = accel_buffer_get_size (self->previous);
  copy = g_malloc (sizeof (header) + size);
  memcpy (copy, &header, sizeof (header));
  if (accel_stage_is_host (stage))
    memcpy (
        copy + sizeof (header), accel_buffer_get_data (self->previous), size);
  else if (!accel_cuda_check (
               cudaMemcpyAsync (copy + sizeof (header),
                   accel_buffer_get_data (self->previous), size,
                   cudaMemcpyDeviceToHost,
                   accel_stream_get_handle (accel_stage_get_stream (stage))),
               NULL)
           || !accel_stream_synchronize (accel_stage_get_stream (stage), NULL))
    {
      g_free (copy);
      return NULL;
    }
  return g_bytes_new_take (copy, sizeof (header) + size);
}

static gboolean
accel_analysis_restore (AccelStage *stage, GBytes *state, GError **error)
{
  AccelAnalysis *self = ACCEL_ANALYSIS (stage);
  gsize size;
  const guint8 *data = g_bytes_get_data (state, &size);
  PreviousHeader header;

  if (size >= sizeof (header))
    memcpy (&header, data, sizeof (header));
  if (size < sizeof (header) || header.magic != PREVIOUS_MAGIC
      || !self->previous || header.width != self->width
      || header.height != self->height
      || size - sizeof (header) != accel_buffer_get_size (self->previous))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT,
          "stage '%s': the saved frame is of another size",
          accel_stage_get_name (stage));
      return FALSE;
    }
  size -= sizeof (header);
  if (accel_stage_is_host (stage))
    memcpy (
        accel_buffer_get_data (self->previous), data + sizeof (header), size);
  /* synchronous on purpose: @state is the caller's memory */
  else if (!accel_cuda_check (
               cudaMemcpyAsync (accel_buffer_get_data (self->previous),
                   data + sizeof (header), size, cudaMemcpyHostToDevice,
                   accel_stream_get_handle (accel_stage_get_stream (stage))),
               error)
           || !accel_stream_synchronize (accel_stage_get_stream (stage), error))
    return FALSE;
  self->previous_valid = header.valid != 0;
  return TRUE;
}

static void
accel_analysis_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelAnalysis *self = ACCEL_ANALYSIS (object);

  switch (prop_id)
    {
    case PROP_EQUALIZE:
      self->equalize = (AccelEqualizeMode)g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_analysis_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelAnalysis *self = ACCEL_ANALYSIS (object);

  switch (prop_id)
    {
    case PROP_EQUALIZE:
      g_value_set_enum (value, (gint)self->equalize);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_analysis_finalize (GObject *object)
{
  AccelAnalysis *self = ACCEL_ANALYSIS (object);

  g_clear_pointer (&self->previous, accel_buffer_unref);
  g_clear_pointer (&self->motion, accel_buffer_unref);
  G_OBJECT_CLASS (accel_analysis_parent_class)->finalize (object);
}

static void
accel_analysis_class_init (AccelAnalysisClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  AccelType image, stats, histogram;

  gobject_class->set_property = accel_analysis_set_property;
  gobject_class->get_property = accel_analysis_get_property;
  gobject_class->finalize = accel_analysis_finalize;
  stage_class->negotiate = accel_analysis_negotiate;
  stage_class->start = accel_analysis_start;
  stage_class->stop = accel_analysis_stop;
  stage_class->process = accel_analysis_process;
  stage_class->can_capture = accel_analysis_can_capture;
  stage_class->flush = accel_analysis_flush;
  stage_class->snapshot = accel_analysis_snapshot;
  stage_class->restore = accel_analysis_restore;

  g_object_class_install_property (gobject_class, PROP_EQUALIZE,
      g_param_spec_enum ("equalize", "Equalize",
          "Histogram equalisation of the frame on 'out': none, luma (keeps "
          "the chroma) or per-channel",
          ACCEL_TYPE_EQUALIZE_MODE, ACCEL_EQUALIZE_NONE,
          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS));

  accel_stage_class_set_metadata (stage_class, "realtime.analysis",
      "Per-channel min, max, mean, standard deviation, motion energy and "
      "256-bin histograms of each frame; the frame as it is or equalised");
  accel_type_init_image (&image, ACCEL_FORMAT_ANY, ACCEL_MEMORY_DEVICE,
      ACCEL_DIM_ANY, ACCEL_DIM_ANY);
  accel_type_init_tensor (
      &stats, ACCEL_DTYPE_F32, ACCEL_MEMORY_DEVICE, 2, NULL);
  accel_type_init_tensor (
      &histogram, ACCEL_DTYPE_U32, ACCEL_MEMORY_DEVICE, 2, NULL);
  accel_stage_class_add_port (
      stage_class, ACCEL_PORT_INPUT, "in", &image, "RGBA8 or BGRA8 image");
  accel_stage_class_add_port (stage_class, ACCEL_PORT_OUTPUT, "out", &image,
      "the image, as it came or equalised");
  accel_stage_class_add_port (stage_class, ACCEL_PORT_OUTPUT, "stats", &stats,
      "5x5 floats: rows R, G, B, A, luma; columns min, max, mean, stddev, "
      "motion energy");
  accel_stage_class_add_port (stage_class, ACCEL_PORT_OUTPUT, "histogram",
      &histogram, "5x256 counts: the histogram of R, G, B, A and luma");
}

static void
accel_analysis_init (AccelAnalysis *self)
{
}
