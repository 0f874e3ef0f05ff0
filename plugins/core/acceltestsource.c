/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel core plugin: core.test-source, deterministic tensors or images */
#define G_LOG_DOMAIN "accel-test-source"

#include "acceltestsource.h"
#include "core/pattern.h"

struct _AccelTestSource
{
  AccelStage parent;

  gchar *shape;
  gchar *dtype;
  gchar *format;
  gint width, height;
  gint64 num_buffers;
  guint64 spin_ns;
  /* the parameters given since construction, by PROP_ bit: an image's
   * and a tensor's are refused together */
  guint given;
  gboolean constructed;
};

G_DEFINE_FINAL_TYPE (AccelTestSource, accel_test_source, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_SHAPE,
  PROP_DTYPE,
  PROP_FORMAT,
  PROP_WIDTH,
  PROP_HEIGHT,
  PROP_NUM_BUFFERS,
  PROP_SPIN_NS,
};

/* a parameter of the other kind of output than the one made: it would be
 * ignored without a word */
static gboolean
check_kind_params (AccelTestSource *self, gboolean image, GError **error)
{
  static const struct
  {
    guint prop;
    const char *name;
    gboolean image;
  } params[] = { { PROP_SHAPE, "shape", FALSE }, { PROP_DTYPE, "dtype", FALSE },
    { PROP_WIDTH, "width", TRUE }, { PROP_HEIGHT, "height", TRUE } };
  AccelStage *stage = ACCEL_STAGE (self);

  for (guint i = 0; i < G_N_ELEMENTS (params); i++)
    if (params[i].image != image && (self->given & (1u << params[i].prop)))
      {
        g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
            image ? "stage '%s' (%s) sets '%s' beside 'format': format makes "
                    "an image of width x height, '%s' is a tensor's; set one "
                    "kind of output"
                  : "stage '%s' (%s) sets '%s' without 'format': '%s' is an "
                    "image's, and without a format the stage makes a tensor "
                    "of 'shape'",
            accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
            params[i].name, params[i].name);
        return FALSE;
      }
  return TRUE;
}

static gboolean
accel_test_source_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelTestSource *self = ACCEL_TEST_SOURCE (stage);
  AccelDType dtype;

  if (!check_kind_params (self, self->format && *self->format, error))
    return FALSE;
  if (self->format && *self->format)
    {
      AccelFormat format = accel_format_from_string (self->format);
      if (format == ACCEL_FORMAT_ANY)
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
              "stage '%s': format '%s' is not one of RGBA8, BGRA8, GRAY8, "
              "NV12, "
              "I420, RGBAF32",
              accel_stage_get_name (stage), self->format);
          return FALSE;
        }
      accel_type_init_image (&out_types[0], format, ACCEL_MEMORY_DEVICE,
          self->width, self->height);
      return TRUE;
    }

  dtype = accel_dtype_from_string (self->dtype);
  if (dtype != ACCEL_DTYPE_F32 && dtype != ACCEL_DTYPE_U8)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "stage '%s' (%s): dtype '%s' is not f32 or u8",
          accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
          self->dtype);
      return FALSE;
    }
  accel_type_init_tensor (&out_types[0], dtype, ACCEL_MEMORY_DEVICE, 0, NULL);
  return accel_type_parse_dims (&out_types[0], self->shape, error);
}

/* num-buffers ends the stream before the frame past it takes a buffer */
static gboolean
accel_test_source_has_frame (AccelStage *stage, guint64 sequence)
{
  AccelTestSource *self = ACCEL_TEST_SOURCE (stage);

  return self->num_buffers < 0 || sequence < (guint64)self->num_buffers;
}

static AccelFlow
accel_test_source_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelTestSource *self = ACCEL_TEST_SOURCE (stage);
  AccelBuffer *out = frame->outputs[0];
  const AccelType *type = accel_buffer_peek_type (out);
  gpointer data = accel_buffer_get_data (out);
  gboolean is_f32 = type->dtype == ACCEL_DTYPE_F32;
  gsize n = accel_buffer_get_size (out) / (is_f32 ? 4 : 1);

  if (accel_stage_is_host (stage))
    {
      if (is_f32)
        accel_pattern_fill_f32_host (data, n, frame->sequence);
      else
        accel_pattern_fill_u8_host (data, n, frame->sequence);
      return ACCEL_FLOW_OK;
    }
  if (!accel_cuda_check (
          is_f32
              ? accel_pattern_fill_f32 (accel_stream_get_handle (frame->stream),
                  data, n, frame->sequence, self->spin_ns)
              : accel_pattern_fill_u8 (accel_stream_get_handle (frame->stream),
                  data, n, frame->sequence, self->spin_ns),
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

/* an empty string gives nothing (format's default), and takes back what
 * was given */
static gboolean
gives_value (const GValue *value)
{
  const char *text;

  if (!G_VALUE_HOLDS_STRING (value))
    return TRUE;
  text = g_value_get_string (value);
  return text && *text;
}

static void
accel_test_source_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelTestSource *self = ACCEL_TEST_SOURCE (object);

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;
  if (self->constructed)
    self->given = gives_value (value) ? self->given | (1u << prop_id)
                                      : self->given & ~(1u << prop_id);
  switch (prop_id)
    {
    case PROP_SHAPE:
      g_free (self->shape);
      self->shape = g_value_dup_string (value);
      break;
    case PROP_DTYPE:
      g_free (self->dtype);
      self->dtype = g_value_dup_string (value);
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
    case PROP_SPIN_NS:
      self->spin_ns = g_value_get_uint64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_test_source_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelTestSource *self = ACCEL_TEST_SOURCE (object);

  switch (prop_id)
    {
    case PROP_SHAPE:
      g_value_set_string (value, self->shape);
      break;
    case PROP_DTYPE:
      g_value_set_string (value, self->dtype);
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
    case PROP_SPIN_NS:
      g_value_set_uint64 (value, self->spin_ns);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_test_source_finalize (GObject *object)
{
  AccelTestSource *self = ACCEL_TEST_SOURCE (object);

  g_free (self->shape);
  g_free (self->dtype);
  g_free (self->format);
  G_OBJECT_CLASS (accel_test_source_parent_class)->finalize (object);
}

static void
accel_test_source_constructed (GObject *object)
{
  ACCEL_TEST_SOURCE (object)->constructed = TRUE;
  G_OBJECT_CLASS (accel_test_source_parent_class)->constructed (object);
}

static void
accel_test_source_class_init (AccelTestSourceClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;
  AccelType out;

  gobject_class->set_property = accel_test_source_set_property;
  gobject_class->get_property = accel_test_source_get_property;
  gobject_class->finalize = accel_test_source_finalize;
  gobject_class->constructed = accel_test_source_constructed;
  stage_class->negotiate = accel_test_source_negotiate;
  stage_class->process = accel_test_source_process;
  stage_class->has_frame = accel_test_source_has_frame;

  g_object_class_install_property (gobject_class, PROP_SHAPE,
      g_param_spec_string ("shape", "Shape",
          "Tensor dimensions, outermost "
          "first, such as 1024 or 480x640 (without a format)",
          "1024", flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_DTYPE,
      g_param_spec_string ("dtype", "Dtype",
          "Tensor element type: f32 or u8 (without a format)", "f32",
          flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_FORMAT,
      g_param_spec_string ("format", "Format",
          "Image format (RGBA8, BGRA8, "
          "GRAY8, NV12, I420, RGBAF32); empty for a tensor",
          "", flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_WIDTH,
      g_param_spec_int ("width", "Width",
          "Image width in pixels (with a format)", 1, G_MAXINT16, 320,
          flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_HEIGHT,
      g_param_spec_int ("height", "Height",
          "Image height in pixels (with a format)", 1, G_MAXINT16, 240,
          flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_NUM_BUFFERS,
      g_param_spec_int64 ("num-buffers", "Number of buffers",
          "Buffers to "
          "produce before end of stream (-1: no end)",
          -1, G_MAXINT64, -1, flags));
  g_object_class_install_property (gobject_class, PROP_SPIN_NS,
      g_param_spec_uint64 ("spin-ns", "Spin",
          "GPU time the fill kernel "
          "waits before writing, in ns (makes a slow writer)",
          0, G_GUINT64_CONSTANT (10000000000), 0, flags));

  accel_stage_class_set_metadata (stage_class, "core.test-source",
      "Deterministic test tensors or images: element i of frame s is "
      "(131 s + 7 i) mod 1021 (f32) or mod 251 (u8)");
  accel_type_init_any (&out);
  accel_type_init_tensor (
      &out, ACCEL_DTYPE_ANY, ACCEL_MEMORY_DEVICE, ACCEL_RANK_ANY, NULL);
  out.kind = ACCEL_KIND_ANY;
  accel_stage_class_add_port (
      stage_class, ACCEL_PORT_OUTPUT, "out", &out, "the pattern");
}

static void
accel_test_source_init (AccelTestSource *self)
{
}
