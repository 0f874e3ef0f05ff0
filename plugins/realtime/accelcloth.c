/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.cloth, a grid cloth solved with
 * position-based dynamics, pinned, under gravity and a gusting wind, over a
 * sphere; a source that renders a shaded frame each tick */
#define G_LOG_DOMAIN "accel-cloth"

#include "accelcloth.h"
#include "accelrealtime-private.h"
#include "cloth/cloth.h"

#include <cuda_runtime_api.h>
#include <string.h>

struct _AccelCloth
{
  AccelStage parent;

  /* properties */
  AccelClothParams params;
  gint width, height;
  gfloat gravity, wind;
  gint64 num_buffers;
  /* grid-size, grid-width and grid-height as given after construction
   * (0: not given), so that a size beside a width that disagrees is
   * refused whichever was set last */
  gint given_size, given_w, given_h;

  /* stage thread only, between start() and stop() */
  AccelBuffer *state; /* every array, device (or host) memory */
  AccelBuffer *depth; /* the render's depth keys */
  AccelClothState arrays;
};

G_DEFINE_FINAL_TYPE (AccelCloth, accel_cloth, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_GRID_SIZE,
  PROP_GRID_WIDTH,
  PROP_GRID_HEIGHT,
  PROP_WIDTH,
  PROP_HEIGHT,
  PROP_ITERATIONS,
  PROP_GRAVITY,
  PROP_WIND,
  PROP_SPHERE_X,
  PROP_SPHERE_Y,
  PROP_SPHERE_Z,
  PROP_SPHERE_RADIUS,
  PROP_PIN,
  PROP_SOLVER,
  PROP_NUM_BUFFERS,
};

static GType
solver_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    { ACCEL_CLOTH_SOLVER_JACOBI, "Jacobi sweeps", "jacobi" },
    { ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL,
        "coloured Gauss-Seidel sweeps: faster convergence per sweep",
        "gauss-seidel" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (
        &type, g_enum_register_static ("AccelClothSolver", values));
  return type;
}

static GType
pin_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    { ACCEL_CLOTH_PIN_NONE, "nothing pinned", "none" },
    { ACCEL_CLOTH_PIN_CORNERS, "the top row's two ends", "corners" },
    { ACCEL_CLOTH_PIN_TOP_ROW, "the whole top row", "top-row" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("AccelClothPin", values));
  return type;
}

static gboolean
accel_cloth_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelCloth *self = ACCEL_CLOTH (stage);

  if (self->given_size
      && ((self->given_w && self->given_w != self->given_size)
          || (self->given_h && self->given_h != self->given_size)))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "stage '%s' (%s): grid-size %d sets grid-width and grid-height, "
          "which are given as %d and %d: give grid-size alone for a square "
          "cloth, or grid-width and grid-height",
          accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
          self->given_size, self->given_w ? self->given_w : self->given_size,
          self->given_h ? self->given_h : self->given_size);
      return FALSE;
    }
  accel_type_init_image (&out_types[0], ACCEL_FORMAT_RGBA8, ACCEL_MEMORY_DEVICE,
      self->width, self->height);
  return TRUE;
}

static AccelBuffer *
new_block (AccelStage *stage, gsize size, GError **error)
{
  AccelType bytes;

  accel_type_init_bytes (&bytes, ACCEL_MEMORY_DEVICE, (gint64)size);
  return accel_buffer_new (accel_stage_get_device (stage), &bytes, error);
}

static void
view_init (AccelCloth *self, AccelClothView *v)
{
  accel_cloth_view_init (v, &self->params, self->width, self->height);
}

/* a flat sheet at rest */
static gboolean
accel_cloth_start (AccelStage *stage, GError **error)
{
  AccelCloth *self = ACCEL_CLOTH (stage);
  AccelClothParams *p = &self->params;
  AccelClothView v;

  view_init (self, &v);
  self->state = new_block (stage, accel_cloth_state_size (p->w, p->h), error);
  if (!self->state)
    return FALSE;
  self->depth = new_block (
      stage, accel_cloth_depth_size (&v) * sizeof (guint64), error);
  if (!self->depth)
    return FALSE;
  accel_cloth_state_init (
      &self->arrays, accel_buffer_get_data (self->state), p->w, p->h);
  if (accel_stage_is_host (stage))
    return accel_realtime_host_check (
        stage, accel_cloth_reset_host (p, &self->arrays), error);
  return accel_cuda_check (
      accel_cloth_reset (
          accel_stream_get_handle (accel_stage_get_stream (stage)), p,
          &self->arrays),
      error);
}

static void
accel_cloth_stop (AccelStage *stage)
{
  AccelCloth *self = ACCEL_CLOTH (stage);

  g_clear_pointer (&self->state, accel_buffer_unref);
  g_clear_pointer (&self->depth, accel_buffer_unref);
}

/* this frame's forces: gravity down, the wind in gusts */
static void
frame_params (AccelCloth *self, guint64 sequence, AccelClothParams *p)
{
  *p = self->params;
  p->gravity[1] = -self->gravity;
  accel_cloth_params_set_wind (p, self->wind, sequence);
}

/* the wind gusts with the frame number, an argument of the launches: only
 * a still cloth's step is the same every frame */
static gboolean
accel_cloth_can_capture (AccelStage *stage, const AccelFrame *frame)
{
  AccelCloth *self = ACCEL_CLOTH (stage);

  return self->wind == 0.0f;
}

/* num-buffers ends the stream before the frame past it takes a buffer */
static gboolean
accel_cloth_has_frame (AccelStage *stage, guint64 sequence)
{
  AccelCloth *self = ACCEL_CLOTH (stage);

  return self->num_buffers < 0 || sequence < (guint64)self->num_buffers;
}

static AccelFlow
accel_cloth_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelCloth *self = ACCEL_CLOTH (stage);
  AccelBuffer *out = frame->outputs[0];
  gpointer stream = accel_stream_get_handle (frame->stream);
  AccelClothParams p;
  AccelClothView v;

  frame_params (self, frame->sequence, &p);
  view_init (self, &v);
  if (accel_stage_is_host (stage))
    {
      if (!accel_realtime_host_check (
              stage, accel_cloth_step_host (&p, &self->arrays), error)
          || !accel_realtime_host_check (stage,
              accel_cloth_render_host (&p, &self->arrays, &v,
                  accel_buffer_get_data (self->depth),
                  accel_buffer_get_data (out), (size_t)v.width * 4),
              error))
        return ACCEL_FLOW_ERROR;
      return ACCEL_FLOW_OK;
    }
  if (!accel_cuda_check (accel_cloth_step (stream, &p, &self->arrays), error)
      || !accel_cuda_check (
          accel_cloth_render (stream, &p, &self->arrays, &v,
              accel_buffer_get_data (self->depth), accel_buffer_get_data (out),
              (size_t)v.width * 4),
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

/* positions, previous positions and normals; a copy to the host (a sync,
 * every snapshot-interval frames) */
static GBytes *
accel_cloth_snapshot (AccelStage *stage)
{
  AccelCloth *self = ACCEL_CLOTH (stage);

  return accel_realtime_snapshot_block (stage, self->state,
      accel_cloth_persistent_size (self->params.w, self->params.h));
}

static gboolean
accel_cloth_restore (AccelStage *stage, GBytes *state, GError **error)
{
  AccelCloth *self = ACCEL_CLOTH (stage);

  return accel_realtime_restore_block (stage, self->state,
      accel_cloth_persistent_size (self->params.w, self->params.h), state,
      "grid size", error);
}

static gfloat *
float_field (AccelCloth *self, guint prop_id)
{
  switch (prop_id)
    {
    case PROP_GRAVITY:
      return &self->gravity;
    case PROP_WIND:
      return &self->wind;
    case PROP_SPHERE_X:
    case PROP_SPHERE_Y:
    case PROP_SPHERE_Z:
    case PROP_SPHERE_RADIUS:
      return &self->params.sphere[prop_id - PROP_SPHERE_X];
    default:
      return NULL;
    }
}

static void
accel_cloth_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelCloth *self = ACCEL_CLOTH (object);
  gfloat *f = float_field (self, prop_id);

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;
  if (f)
    {
      *f = g_value_get_float (value);
      return;
    }
  switch (prop_id)
    {
    case PROP_GRID_SIZE:
      self->given_size = g_value_get_int (value);
      self->params.h = g_value_get_int (value);
      /* a square grid: the width too */
      G_GNUC_FALLTHROUGH;
    case PROP_GRID_WIDTH:
      if (prop_id == PROP_GRID_WIDTH)
        self->given_w = g_value_get_int (value);
      self->params.w = g_value_get_int (value);
      /* the cloth spans 2 units across, whatever its resolution */
      self->params.spacing = 2.0f / (float)(self->params.w - 1);
      break;
    case PROP_GRID_HEIGHT:
      self->given_h = g_value_get_int (value);
      self->params.h = g_value_get_int (value);
      break;
    case PROP_WIDTH:
      self->width = g_value_get_int (value);
      break;
    case PROP_HEIGHT:
      self->height = g_value_get_int (value);
      break;
    case PROP_ITERATIONS:
      self->params.iterations = g_value_get_int (value);
      break;
    case PROP_PIN:
      self->params.pin = g_value_get_enum (value);
      break;
    case PROP_SOLVER:
      self->params.solver = g_value_get_enum (value);
      break;
    case PROP_NUM_BUFFERS:
      self->num_buffers = g_value_get_int64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
    }
}

static void
accel_cloth_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelCloth *self = ACCEL_CLOTH (object);
  gfloat *f = float_field (self, prop_id);

  if (f)
    {
      g_value_set_float (value, *f);
      return;
    }
  switch (prop_id)
    {
    case PROP_GRID_SIZE:
    case PROP_GRID_WIDTH:
      g_value_set_int (value, self->params.w);
      break;
    case PROP_GRID_HEIGHT:
      g_value_set_int (value, self->params.h);
      break;
    case PROP_WIDTH:
      g_value_set_int (value, self->width);
      break;
    case PROP_HEIGHT:
      g_value_set_int (value, self->height);
      break;
    case PROP_ITERATIONS:
      g_value_set_int (value, self->params.iterations);
      break;
    case PROP_PIN:
      g_value_set_enum (value, self->params.pin);
      break;
    case PROP_SOLVER:
      g_value_set_enum (value, self->params.solver);
      break;
    case PROP_NUM_BUFFERS:
      g_value_set_int64 (value, self->num_buffers);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
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

/* @extra: ACCEL_PARAM_FIXED for what sizes the state or the frame */
static void
install_int (GObjectClass *klass, guint id, const char *name, const char *blurb,
    int lo, int hi, int def, GParamFlags extra)
{
  g_object_class_install_property (klass, id,
      g_param_spec_int (name, name, blurb, lo, hi, def, FLAGS | extra));
}

/* the construct properties' defaults were set as given: forgotten */
static void
accel_cloth_constructed (GObject *object)
{
  AccelCloth *self = ACCEL_CLOTH (object);

  G_OBJECT_CLASS (accel_cloth_parent_class)->constructed (object);
  self->given_size = self->given_w = self->given_h = 0;
}

static void
accel_cloth_class_init (AccelClothClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  AccelType out;

  gobject_class->constructed = accel_cloth_constructed;
  gobject_class->set_property = accel_cloth_set_property;
  gobject_class->get_property = accel_cloth_get_property;
  stage_class->negotiate = accel_cloth_negotiate;
  stage_class->start = accel_cloth_start;
  stage_class->stop = accel_cloth_stop;
  stage_class->process = accel_cloth_process;
  stage_class->has_frame = accel_cloth_has_frame;
  stage_class->can_capture = accel_cloth_can_capture;
  stage_class->snapshot = accel_cloth_snapshot;
  stage_class->restore = accel_cloth_restore;

  /* grid-size, as the element accelcloth calls it: a square grid; not a
   * construct property, so it never resets grid-width and grid-height */
  g_object_class_install_property (gobject_class, PROP_GRID_SIZE,
      g_param_spec_int ("grid-size", "Grid size",
          "Vertices per side of a square cloth: sets grid-width and "
          "grid-height (reads grid-width)",
          2, 4096, 48,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | ACCEL_PARAM_FIXED));
  install_int (gobject_class, PROP_GRID_WIDTH, "grid-width",
      "Vertices per row of the cloth (which spans 2 units across)", 2, 4096, 48,
      ACCEL_PARAM_FIXED);
  install_int (gobject_class, PROP_GRID_HEIGHT, "grid-height",
      "Rows of vertices of the cloth", 2, 4096, 48, ACCEL_PARAM_FIXED);
  install_int (gobject_class, PROP_WIDTH, "width", "Frame width in pixels", 1,
      16384, 512, ACCEL_PARAM_FIXED);
  install_int (gobject_class, PROP_HEIGHT, "height", "Frame height in pixels",
      1, 16384, 512, ACCEL_PARAM_FIXED);
  install_int (gobject_class, PROP_ITERATIONS, "iterations",
      "Constraint sweeps per frame (Jacobi: rounded up to even)", 0, 10000, 20,
      0);
  install_float (gobject_class, PROP_GRAVITY, "gravity",
      "Downward acceleration, units per second squared", -1000.0f, 1000.0f,
      9.8f);
  install_float (gobject_class, PROP_WIND, "wind",
      "Strength of the gusting wind along z, on a face square to it", 0.0f,
      1000.0f, 6.0f);
  install_float (gobject_class, PROP_SPHERE_X, "sphere-x",
      "Centre of the sphere, x", -1000.0f, 1000.0f, 0.0f);
  install_float (gobject_class, PROP_SPHERE_Y, "sphere-y",
      "Centre of the sphere, y", -1000.0f, 1000.0f, -0.9f);
  install_float (gobject_class, PROP_SPHERE_Z, "sphere-z",
      "Centre of the sphere, z", -1000.0f, 1000.0f, 0.3f);
  install_float (gobject_class, PROP_SPHERE_RADIUS, "sphere-radius",
      "Radius of the sphere (0: none)", 0.0f, 1000.0f, 0.5f);
  g_object_class_install_property (gobject_class, PROP_PIN,
      g_param_spec_enum ("pin", "Pin", "Which vertices are pinned",
          pin_get_type (), ACCEL_CLOTH_PIN_CORNERS, FLAGS));
  g_object_class_install_property (gobject_class, PROP_SOLVER,
      g_param_spec_enum ("solver", "Solver",
          "How a sweep satisfies the constraints: Jacobi (each vertex from "
          "the last sweep's positions) or coloured Gauss-Seidel (in place, "
          "five colours in turn; stiffer for as many sweeps)",
          solver_get_type (), ACCEL_CLOTH_SOLVER_JACOBI, FLAGS));
  g_object_class_install_property (gobject_class, PROP_NUM_BUFFERS,
      g_param_spec_int64 ("num-buffers", "Number of buffers",
          "Frames before end of stream (-1: no end)", -1, G_MAXINT64, -1,
          FLAGS));

  accel_stage_class_set_metadata (stage_class, "realtime.cloth",
      "A cloth (position-based dynamics: structural, shear and bend "
      "constraints) pinned under gravity and a gusting wind, over a sphere; "
      "renders it shaded");
  accel_type_init_image (&out, ACCEL_FORMAT_RGBA8, ACCEL_MEMORY_DEVICE,
      ACCEL_DIM_ANY, ACCEL_DIM_ANY);
  accel_stage_class_add_port (
      stage_class, ACCEL_PORT_OUTPUT, "out", &out, "width x height RGBA8");
}

static void
accel_cloth_init (AccelCloth *self)
{
  accel_cloth_params_init (&self->params, 48, 48);
}
