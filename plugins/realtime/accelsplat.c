/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.splat, a particle state drawn into an
 * RGBA8 frame: an orthographic view along z, each particle an additive disc
 * whose colour fades from its own towards an end colour with age. The sums
 * are integers, so the frame does not depend on the drawing order. */
#define G_LOG_DOMAIN "accel-splat"

#include "accelparticles.h"
#include "accelsplat.h"
#include "particles/particles.h"

#include <cuda_runtime_api.h>

struct _AccelSplat
{
  AccelStage parent;

  AccelSplatParams params;

  /* stage thread only, between start() and stop() */
  guint capacity;
  AccelBuffer *accum; /* width * height * 4 words */
};

G_DEFINE_FINAL_TYPE (AccelSplat, accel_splat, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_WIDTH,
  PROP_HEIGHT,
  PROP_CENTER_X,
  PROP_CENTER_Y,
  PROP_SCALE,
  PROP_POINT_SIZE,
  PROP_END_COLOUR,
  PROP_GAIN,
};

static gboolean
accel_splat_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelSplat *self = ACCEL_SPLAT (stage);
  const AccelType *in = &in_types[0];

  if (!accel_particles_check_state (stage, in, error))
    return FALSE;
  accel_type_init_image (&out_types[0], ACCEL_FORMAT_RGBA8, ACCEL_MEMORY_DEVICE,
      self->params.width, self->params.height);
  return TRUE;
}

static gboolean
accel_splat_start (AccelStage *stage, GError **error)
{
  AccelSplat *self = ACCEL_SPLAT (stage);
  AccelType bytes;

  self->capacity = (guint)accel_stage_get_input_type (stage, 0)->dims[1];
  accel_type_init_bytes (&bytes, ACCEL_MEMORY_DEVICE,
      (gint64)(accel_particles_splat_accum_size (&self->params)
               * sizeof (guint32)));
  self->accum
      = accel_buffer_new (accel_stage_get_device (stage), &bytes, error);
  return self->accum != NULL;
}

static void
accel_splat_stop (AccelStage *stage)
{
  g_clear_pointer (&ACCEL_SPLAT (stage)->accum, accel_buffer_unref);
}

static AccelFlow
accel_splat_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelSplat *self = ACCEL_SPLAT (stage);
  AccelParticleState s;
  guint8 *rgba = accel_buffer_get_data (frame->outputs[0]);
  gsize pitch = (gsize)self->params.width * 4;

  accel_particle_state_init (
      &s, accel_buffer_get_data (frame->inputs[0]), self->capacity);
  if (accel_stage_is_host (stage))
    {
      accel_particles_splat_host (&self->params, &s, self->capacity,
          accel_buffer_get_data (self->accum), rgba, pitch);
      return ACCEL_FLOW_OK;
    }
  if (!accel_cuda_check (
          accel_particles_splat (accel_stream_get_handle (frame->stream),
              &self->params, &s, self->capacity,
              accel_buffer_get_data (self->accum), rgba, pitch),
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_splat_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelSplatParams *p = &ACCEL_SPLAT (object)->params;

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;
  switch (prop_id)
    {
    case PROP_WIDTH:
      p->width = g_value_get_int (value);
      break;
    case PROP_HEIGHT:
      p->height = g_value_get_int (value);
      break;
    case PROP_CENTER_X:
      p->center_x = g_value_get_float (value);
      break;
    case PROP_CENTER_Y:
      p->center_y = g_value_get_float (value);
      break;
    case PROP_SCALE:
      p->scale = g_value_get_float (value);
      break;
    case PROP_POINT_SIZE:
      p->point_size = g_value_get_int (value);
      break;
    case PROP_END_COLOUR:
      p->end_colour = g_value_get_uint (value);
      break;
    case PROP_GAIN:
      p->gain = g_value_get_float (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_splat_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelSplatParams *p = &ACCEL_SPLAT (object)->params;

  switch (prop_id)
    {
    case PROP_WIDTH:
      g_value_set_int (value, p->width);
      break;
    case PROP_HEIGHT:
      g_value_set_int (value, p->height);
      break;
    case PROP_CENTER_X:
      g_value_set_float (value, p->center_x);
      break;
    case PROP_CENTER_Y:
      g_value_set_float (value, p->center_y);
      break;
    case PROP_SCALE:
      g_value_set_float (value, p->scale);
      break;
    case PROP_POINT_SIZE:
      g_value_set_int (value, p->point_size);
      break;
    case PROP_END_COLOUR:
      g_value_set_uint (value, p->end_colour);
      break;
    case PROP_GAIN:
      g_value_set_float (value, p->gain);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

#define FLAGS (G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS)

static void
install_float (GObjectClass *klass, guint id, const char *name,
    const char *blurb, float lo, float hi, float def)
{
  g_object_class_install_property (
      klass, id, g_param_spec_float (name, name, blurb, lo, hi, def, FLAGS));
}

static void
accel_splat_class_init (AccelSplatClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  AccelType in, out;

  gobject_class->set_property = accel_splat_set_property;
  gobject_class->get_property = accel_splat_get_property;
  stage_class->negotiate = accel_splat_negotiate;
  stage_class->start = accel_splat_start;
  stage_class->stop = accel_splat_stop;
  stage_class->process = accel_splat_process;
  stage_class->can_capture = accel_stage_can_capture_always;

  g_object_class_install_property (gobject_class, PROP_WIDTH,
      g_param_spec_int ("width", "Width", "Frame width in pixels", 1, 16384,
          512, FLAGS | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_HEIGHT,
      g_param_spec_int ("height", "Height", "Frame height in pixels", 1, 16384,
          512, FLAGS | ACCEL_PARAM_FIXED));
  install_float (gobject_class, PROP_CENTER_X, "center-x",
      "World x at the frame's centre", -1e6f, 1e6f, 0.0f);
  install_float (gobject_class, PROP_CENTER_Y, "center-y",
      "World y at the frame's centre", -1e6f, 1e6f, 0.0f);
  install_float (gobject_class, PROP_SCALE, "scale",
      "Pixels per world unit (256 fits the [-1, 1] box in 512 pixels)", 0.0f,
      1e6f, 256.0f);
  g_object_class_install_property (gobject_class, PROP_POINT_SIZE,
      g_param_spec_int ("point-size", "Point size",
          "Radius of a particle's disc in pixels (0: one pixel)", 0, 64, 1,
          FLAGS));
  g_object_class_install_property (gobject_class, PROP_END_COLOUR,
      g_param_spec_uint ("end-colour", "End colour",
          "Colour a particle fades to by the end of its life, RGBA8 with R in "
          "the low byte (0xAABBGGRR); its alpha 0 fades the particle out",
          0, G_MAXUINT32, 0x00ff2020u, FLAGS));
  install_float (gobject_class, PROP_GAIN, "gain",
      "Brightness of one particle (additive; sums saturate)", 0.0f, 16.0f,
      1.0f);

  accel_stage_class_set_metadata (stage_class, "realtime.splat",
      "Particles drawn as additive discs into an RGBA8 frame, coloured by "
      "age (an orthographic view along z)");
  accel_particles_type_init (&in, ACCEL_MEMORY_DEVICE, ACCEL_DIM_ANY);
  accel_stage_class_add_port (stage_class, ACCEL_PORT_INPUT, "in", &in,
      "a particle state (realtime.particles)");
  accel_type_init_image (&out, ACCEL_FORMAT_RGBA8, ACCEL_MEMORY_DEVICE,
      ACCEL_DIM_ANY, ACCEL_DIM_ANY);
  accel_stage_class_add_port (
      stage_class, ACCEL_PORT_OUTPUT, "out", &out, "width x height RGBA8");
}

static void
accel_splat_init (AccelSplat *self)
{
}
