/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: io.pattern-source, test images (SMPTE bars, gradient,
 * checkerboard, noise) */
#define G_LOG_DOMAIN "accel-pattern-source"

#include "accelpatternsource.h"
#include "accelio-private.h"

#include <string.h>

#include "image/pixel.h"

typedef enum
{
  ACCEL_PATTERN_SMPTE,
  ACCEL_PATTERN_GRADIENT,
  ACCEL_PATTERN_CHECKERBOARD,
  ACCEL_PATTERN_NOISE,
} AccelPattern;

#define ACCEL_TYPE_PATTERN (accel_pattern_get_type ())
static GType accel_pattern_get_type (void);

/* noise frames in flight between the host and the GPU */
#define NOISE_SLOTS 3

struct _AccelPatternSource
{
  AccelStage parent;

  AccelPattern pattern;
  gchar *format;
  gint width, height;
  gint64 num_buffers;
  gchar *framerate;
  guint seed;
  gint square_size;

  gint fps_n, fps_d;
  /* a frame-independent pattern, made once: host memory on the host, else
   * device memory copied to each frame on the GPU */
  AccelBuffer *reference;
  AccelIoRing *ring; /* noise on the GPU: staging on its way to the device */
};

G_DEFINE_FINAL_TYPE (AccelPatternSource, accel_pattern_source, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_PATTERN,
  PROP_FORMAT,
  PROP_WIDTH,
  PROP_HEIGHT,
  PROP_NUM_BUFFERS,
  PROP_FRAMERATE,
  PROP_SEED,
  PROP_SQUARE_SIZE,
};

static const AccelFormat pattern_formats[] = {
  ACCEL_FORMAT_RGBA8,
  ACCEL_FORMAT_BGRA8,
  ACCEL_FORMAT_GRAY8,
  ACCEL_FORMAT_RGBAF32,
};

static GType
accel_pattern_get_type (void)
{
  static gsize type;
  static const GEnumValue values[] = {
    { ACCEL_PATTERN_SMPTE, "SMPTE 75% colour bars", "smpte" },
    { ACCEL_PATTERN_GRADIENT, "Red across, green down, blue at half",
        "gradient" },
    { ACCEL_PATTERN_CHECKERBOARD, "White and black squares", "checkerboard" },
    { ACCEL_PATTERN_NOISE, "Random pixels from the seed and the frame",
        "noise" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (
        &type, g_enum_register_static ("AccelPatternSourcePattern", values));
  return (GType)type;
}

/* the pixels */

typedef struct
{
  guint8 r, g, b;
} Rgb;

/* 75% bars, full-range RGB */
static const Rgb smpte_top[7] = {
  { 191, 191, 191 },
  { 191, 191, 0 },
  { 0, 191, 191 },
  { 0, 191, 0 },
  { 191, 0, 191 },
  { 191, 0, 0 },
  { 0, 0, 191 },
};
static const Rgb smpte_middle[7] = {
  { 0, 0, 191 },
  { 0, 0, 0 },
  { 191, 0, 191 },
  { 0, 0, 0 },
  { 0, 191, 191 },
  { 0, 0, 0 },
  { 191, 191, 191 },
};
/* -I, 100% white, +Q, black under the first five bars */
static const Rgb smpte_bottom[4] = {
  { 0, 33, 76 },
  { 255, 255, 255 },
  { 50, 0, 106 },
  { 0, 0, 0 },
};
/* the PLUGE under the sixth bar: black, 4% and 8% above it */
static const Rgb smpte_pluge[3] = {
  { 0, 0, 0 },
  { 10, 10, 10 },
  { 20, 20, 20 },
};
static const Rgb black = { 0, 0, 0 };

static Rgb
smpte_pixel (gint64 x, gint64 y, gint64 w, gint64 h)
{
  if (y * 3 < h * 2)
    return smpte_top[x * 7 / w];
  if (y * 4 < h * 3)
    return smpte_middle[x * 7 / w];
  if (x * 7 < w * 5)
    return smpte_bottom[x * 28 / (w * 5)];
  if (x * 7 < w * 6)
    return smpte_pluge[MIN (x * 21 / w - 15, 2)];
  return black;
}

static guint8
ramp (gint64 v, gint64 n)
{
  return n > 1 ? (guint8)(v * 255 / (n - 1)) : 0;
}

static guint64
mix64 (guint64 z)
{
  z += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* the GRAY8 of a colour: the same byte as converting it from RGBA8 */
static guint8
luma (Rgb c)
{
  return accel_px_luma_u8 (c.r, c.g, c.b);
}

static void
put_pixel (AccelFormat format, guint8 *row, gint64 x, Rgb c, guint8 gray)
{
  switch (format)
    {
    case ACCEL_FORMAT_RGBA8:
      row[x * 4 + 0] = c.r;
      row[x * 4 + 1] = c.g;
      row[x * 4 + 2] = c.b;
      row[x * 4 + 3] = 255;
      break;
    case ACCEL_FORMAT_BGRA8:
      row[x * 4 + 0] = c.b;
      row[x * 4 + 1] = c.g;
      row[x * 4 + 2] = c.r;
      row[x * 4 + 3] = 255;
      break;
    case ACCEL_FORMAT_GRAY8:
      row[x] = gray;
      break;
    case ACCEL_FORMAT_RGBAF32:
      {
        gfloat *px = (gfloat *)row + x * 4;
        px[0] = c.r / 255.0f;
        px[1] = c.g / 255.0f;
        px[2] = c.b / 255.0f;
        px[3] = 1.0f;
        break;
      }
    default:
      g_assert_not_reached ();
    }
}

/* frame @seq of the pattern, tightly packed, into @data */
static void
fill_frame (
    AccelPatternSource *self, const AccelType *type, guint64 seq, guint8 *data)
{
  gint64 h = type->dims[0], w = type->dims[1];
  gsize row_bytes = accel_format_get_frame_size (type->format, w, 1);
  guint64 key = mix64 (((guint64)self->seed << 32) ^ seq);
  gint64 sq = self->square_size;

  for (gint64 y = 0; y < h; y++)
    {
      guint8 *row = data + (gsize)y * row_bytes;
      for (gint64 x = 0; x < w; x++)
        {
          Rgb c;
          guint8 gray;
          switch (self->pattern)
            {
            case ACCEL_PATTERN_SMPTE:
              c = smpte_pixel (x, y, w, h);
              gray = luma (c);
              break;
            case ACCEL_PATTERN_GRADIENT:
              c.r = ramp (x, w);
              c.g = ramp (y, h);
              c.b = 128;
              gray = luma (c);
              break;
            case ACCEL_PATTERN_CHECKERBOARD:
              gray = ((x / sq + y / sq) & 1) ? 0 : 255;
              c.r = c.g = c.b = gray;
              break;
            case ACCEL_PATTERN_NOISE:
            default:
              {
                guint64 r = mix64 (key + (guint64)(y * w + x));
                c.r = (guint8)r;
                c.g = (guint8)(r >> 8);
                c.b = (guint8)(r >> 16);
                gray = c.r;
                break;
              }
            }
          put_pixel (type->format, row, x, c, gray);
        }
    }
}

/* the stage */

static gboolean
accel_pattern_source_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelPatternSource *self = ACCEL_PATTERN_SOURCE (stage);
  AccelFormat format
      = accel_format_from_string (self->format ? self->format : "");
  AccelType type;

  if (!accel_io_parse_framerate (
          self->framerate, &self->fps_n, &self->fps_d, error))
    {
      g_prefix_error (error,
          "stage '%s' (io.pattern-source): ", accel_stage_get_name (stage));
      return FALSE;
    }
  accel_type_init_image (
      &type, format, ACCEL_MEMORY_DEVICE, self->width, self->height);
  if (format == ACCEL_FORMAT_ANY
      || !accel_io_check_format (
          stage, &type, pattern_formats, G_N_ELEMENTS (pattern_formats), NULL))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "stage '%s' (io.pattern-source): format '%s' is not one of RGBA8, "
          "BGRA8, GRAY8, RGBAF32",
          accel_stage_get_name (stage), self->format ? self->format : "");
      return FALSE;
    }
  out_types[0] = type;
  return TRUE;
}

/* a frame-independent pattern is made once, where the frames go */
static gboolean
make_reference (AccelPatternSource *self, const AccelType *type, GError **error)
{
  AccelStage *stage = ACCEL_STAGE (self);
  AccelDevice *device = accel_stage_get_device (stage);
  AccelStream *stream = accel_stage_get_stream (stage);
  g_autoptr (AccelBuffer) staging = NULL;
  AccelType pinned = *type;

  if (accel_stage_is_host (stage))
    {
      AccelType host = *type;
      host.memory = ACCEL_MEMORY_HOST;
      if (!(self->reference = accel_buffer_new (device, &host, error)))
        return FALSE;
      fill_frame (self, type, 0, accel_buffer_get_data (self->reference));
      return TRUE;
    }
  pinned.memory = ACCEL_MEMORY_PINNED;
  if (!(staging = accel_buffer_new (device, &pinned, error))
      || !(self->reference = accel_buffer_new (device, type, error)))
    return FALSE;
  fill_frame (self, type, 0, accel_buffer_get_data (staging));
  /* start() may wait: this happens once, before any frame */
  return accel_io_copy_async (stream, accel_buffer_get_data (self->reference),
             accel_buffer_get_data (staging), accel_buffer_get_size (staging),
             error)
         && accel_stream_synchronize (stream, error);
}

static gboolean
accel_pattern_source_start (AccelStage *stage, GError **error)
{
  AccelPatternSource *self = ACCEL_PATTERN_SOURCE (stage);
  const AccelType *type = accel_stage_get_output_type (stage, 0);

  if (self->pattern != ACCEL_PATTERN_NOISE)
    return make_reference (self, type, error);
  if (accel_stage_is_host (stage))
    return TRUE;
  self->ring = accel_io_ring_new (accel_stage_get_device (stage), NOISE_SLOTS,
      accel_type_get_size (type), error);
  return self->ring != NULL;
}

static void
accel_pattern_source_stop (AccelStage *stage)
{
  AccelPatternSource *self = ACCEL_PATTERN_SOURCE (stage);

  g_clear_pointer (&self->ring, accel_io_ring_free);
  g_clear_pointer (&self->reference, accel_buffer_unref);
}

/* num-buffers ends the stream before the frame past it takes a buffer */
static gboolean
accel_pattern_source_has_frame (AccelStage *stage, guint64 sequence)
{
  AccelPatternSource *self = ACCEL_PATTERN_SOURCE (stage);

  return self->num_buffers < 0 || sequence < (guint64)self->num_buffers;
}

static AccelFlow
accel_pattern_source_process (
    AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelPatternSource *self = ACCEL_PATTERN_SOURCE (stage);
  AccelBuffer *out = frame->outputs[0];
  gpointer data = accel_buffer_get_data (out);
  gsize size = accel_buffer_get_size (out);
  gint64 duration = accel_io_frame_duration (self->fps_n, self->fps_d);
  gpointer staging;

  if (duration > 0)
    {
      accel_buffer_set_pts (
          out, accel_io_frame_pts (frame->sequence, self->fps_n, self->fps_d));
      accel_buffer_set_duration (out, duration);
    }

  if (self->reference && accel_stage_is_host (stage))
    {
      memcpy (data, accel_buffer_get_data (self->reference), size);
      return ACCEL_FLOW_OK;
    }
  if (self->reference)
    return accel_io_copy_async (frame->stream, data,
               accel_buffer_get_data (self->reference), size, error)
               ? ACCEL_FLOW_OK
               : ACCEL_FLOW_ERROR;
  if (accel_stage_is_host (stage))
    {
      fill_frame (self, accel_buffer_peek_type (out), frame->sequence, data);
      return ACCEL_FLOW_OK;
    }
  if (!accel_io_ring_acquire (self->ring, &staging, error))
    return ACCEL_FLOW_ERROR;
  fill_frame (self, accel_buffer_peek_type (out), frame->sequence, staging);
  if (!accel_io_copy_async (frame->stream, data, staging, size, error)
      || !accel_io_ring_commit (self->ring, frame->stream, NULL, error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_pattern_source_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelPatternSource *self = ACCEL_PATTERN_SOURCE (object);

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;

  switch (prop_id)
    {
    case PROP_PATTERN:
      self->pattern = g_value_get_enum (value);
      break;
    case PROP_FORMAT:
      g_free (self->format);
      self->format = g_value_dup_string (value);
      break;
    case PROP_WIDTH:
      self->width = g_value_get_int (value);
      break;
    case PROP_HEIGHT:
      self->height = g_value_get_int (value);
      break;
    case PROP_NUM_BUFFERS:
      self->num_buffers = g_value_get_int64 (value);
      break;
    case PROP_FRAMERATE:
      g_free (self->framerate);
      self->framerate = g_value_dup_string (value);
      break;
    case PROP_SEED:
      self->seed = g_value_get_uint (value);
      break;
    case PROP_SQUARE_SIZE:
      self->square_size = g_value_get_int (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_pattern_source_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelPatternSource *self = ACCEL_PATTERN_SOURCE (object);

  switch (prop_id)
    {
    case PROP_PATTERN:
      g_value_set_enum (value, self->pattern);
      break;
    case PROP_FORMAT:
      g_value_set_string (value, self->format);
      break;
    case PROP_WIDTH:
      g_value_set_int (value, self->width);
      break;
    case PROP_HEIGHT:
      g_value_set_int (value, self->height);
      break;
    case PROP_NUM_BUFFERS:
      g_value_set_int64 (value, self->num_buffers);
      break;
    case PROP_FRAMERATE:
      g_value_set_string (value, self->framerate);
      break;
    case PROP_SEED:
      g_value_set_uint (value, self->seed);
      break;
    case PROP_SQUARE_SIZE:
      g_value_set_int (value, self->square_size);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_pattern_source_finalize (GObject *object)
{
  AccelPatternSource *self = ACCEL_PATTERN_SOURCE (object);

  g_free (self->format);
  g_free (self->framerate);
  G_OBJECT_CLASS (accel_pattern_source_parent_class)->finalize (object);
}

static void
accel_pattern_source_class_init (AccelPatternSourceClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;
  AccelType out;

  gobject_class->set_property = accel_pattern_source_set_property;
  gobject_class->get_property = accel_pattern_source_get_property;
  gobject_class->finalize = accel_pattern_source_finalize;
  stage_class->negotiate = accel_pattern_source_negotiate;
  stage_class->start = accel_pattern_source_start;
  stage_class->stop = accel_pattern_source_stop;
  stage_class->process = accel_pattern_source_process;
  stage_class->has_frame = accel_pattern_source_has_frame;

  g_object_class_install_property (gobject_class, PROP_PATTERN,
      g_param_spec_enum ("pattern", "Pattern", "What the images show",
          ACCEL_TYPE_PATTERN, ACCEL_PATTERN_SMPTE, flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_FORMAT,
      g_param_spec_string ("format", "Format",
          "Image format: RGBA8, BGRA8, GRAY8 or RGBAF32", "RGBA8",
          flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_WIDTH,
      g_param_spec_int ("width", "Width", "Image width in pixels", 1,
          G_MAXINT16, 320, flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_HEIGHT,
      g_param_spec_int ("height", "Height", "Image height in pixels", 1,
          G_MAXINT16, 240, flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_NUM_BUFFERS,
      g_param_spec_int64 ("num-buffers", "Number of buffers",
          "Images to produce before end of stream (-1: no end)", -1, G_MAXINT64,
          -1, flags));
  g_object_class_install_property (gobject_class, PROP_FRAMERATE,
      g_param_spec_string ("framerate", "Frame rate",
          "Frames per second as N/D, for the images' timestamps (0/1: none)",
          "30/1", flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_SEED,
      g_param_spec_uint ("seed", "Seed",
          "Seed of the noise pattern: frame s of a seed is always the same", 0,
          G_MAXUINT, 0, flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_SQUARE_SIZE,
      g_param_spec_int ("square-size", "Square size",
          "Side of the checkerboard's squares in pixels", 1, G_MAXINT16, 8,
          flags | ACCEL_PARAM_FIXED));

  accel_stage_class_set_metadata (stage_class, "io.pattern-source",
      "Test images: SMPTE colour bars, a gradient, a checkerboard or "
      "reproducible noise");
  accel_type_init_image (&out, ACCEL_FORMAT_ANY, ACCEL_MEMORY_DEVICE,
      ACCEL_DIM_ANY, ACCEL_DIM_ANY);
  accel_stage_class_add_port (
      stage_class, ACCEL_PORT_OUTPUT, "out", &out, "the images");
}

static void
accel_pattern_source_init (AccelPatternSource *self)
{
}
