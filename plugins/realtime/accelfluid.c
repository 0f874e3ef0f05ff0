/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.fluid, a 2D stable-fluids simulation that
 * renders its dye each tick; a source, with injection at a point (where a
 * pointer would stir it) set through its parameters */
#define G_LOG_DOMAIN "accel-fluid"

#include "accelfluid.h"
#include "accelrealtime-private.h"
#include "fluid/fluid.h"

#include <cuda_runtime_api.h>
#include <string.h>

struct _AccelFluid
{
  AccelStage parent;

  AccelFluidParams params;
  gint64 num_buffers;
  AccelBuffer *state; /* every field, device (or host) memory */
  AccelFluidFields fields;
};

G_DEFINE_FINAL_TYPE (AccelFluid, accel_fluid, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_GRID_SIZE,
  PROP_SIZE_DEPRECATED,
  PROP_DT,
  PROP_VISCOSITY,
  PROP_VORTICITY,
  PROP_PRESSURE_ITERATIONS,
  PROP_DIFFUSE_ITERATIONS,
  PROP_DYE_DECAY,
  PROP_INJECT_X,
  PROP_INJECT_Y,
  PROP_INJECT_RADIUS,
  PROP_FORCE_X,
  PROP_FORCE_Y,
  PROP_DYE,
  PROP_NUM_BUFFERS,
};

static gboolean
accel_fluid_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelFluid *self = ACCEL_FLUID (stage);

  accel_type_init_image (&out_types[0], ACCEL_FORMAT_RGBA8, ACCEL_MEMORY_DEVICE,
      self->params.n, self->params.n);
  return TRUE;
}

static gboolean
accel_fluid_start (AccelStage *stage, GError **error)
{
  AccelFluid *self = ACCEL_FLUID (stage);
  int n = self->params.n;
  AccelType bytes;

  accel_type_init_bytes (
      &bytes, ACCEL_MEMORY_DEVICE, (gint64)accel_fluid_state_size (n));
  self->state
      = accel_buffer_new (accel_stage_get_device (stage), &bytes, error);
  if (!self->state)
    return FALSE;
  accel_fluid_fields_init (
      &self->fields, accel_buffer_get_data (self->state), n);
  /* still water, no dye */
  if (accel_stage_is_host (stage))
    {
      memset (accel_buffer_get_data (self->state), 0,
          accel_buffer_get_size (self->state));
      return TRUE;
    }
  return accel_cuda_check (
      cudaMemsetAsync (accel_buffer_get_data (self->state), 0,
          accel_buffer_get_size (self->state),
          accel_stream_get_handle (accel_stage_get_stream (stage))),
      error);
}

static void
accel_fluid_stop (AccelStage *stage)
{
  g_clear_pointer (&ACCEL_FLUID (stage)->state, accel_buffer_unref);
}

/* num-buffers ends the stream before the frame past it takes a buffer */
static gboolean
accel_fluid_has_frame (AccelStage *stage, guint64 sequence)
{
  AccelFluid *self = ACCEL_FLUID (stage);

  return self->num_buffers < 0 || sequence < (guint64)self->num_buffers;
}

static AccelFlow
accel_fluid_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelFluid *self = ACCEL_FLUID (stage);
  AccelBuffer *out = frame->outputs[0];
  gpointer stream = accel_stream_get_handle (frame->stream);
  size_t pitch = (size_t)self->params.n * 4;

  if (accel_stage_is_host (stage))
    {
      accel_fluid_step_host (&self->params, &self->fields);
      accel_fluid_render_host (
          &self->params, &self->fields, accel_buffer_get_data (out), pitch);
      return ACCEL_FLOW_OK;
    }
  if (!accel_cuda_check (
          accel_fluid_step (stream, &self->params, &self->fields), error)
      || !accel_cuda_check (
          accel_fluid_render (stream, &self->params, &self->fields,
              accel_buffer_get_data (out), pitch),
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

/* velocity, dye and pressure; a copy to the host (a sync, every
 * snapshot-interval frames) */
static GBytes *
accel_fluid_snapshot (AccelStage *stage)
{
  AccelFluid *self = ACCEL_FLUID (stage);

  return accel_realtime_snapshot_block (
      stage, self->state, accel_fluid_persistent_size (self->params.n));
}

static gboolean
accel_fluid_restore (AccelStage *stage, GBytes *state, GError **error)
{
  AccelFluid *self = ACCEL_FLUID (stage);

  return accel_realtime_restore_block (stage, self->state,
      accel_fluid_persistent_size (self->params.n), state, "grid size", error);
}

static void
accel_fluid_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelFluid *self = ACCEL_FLUID (object);
  AccelFluidParams *p = &self->params;

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;
  switch (prop_id)
    {
    case PROP_GRID_SIZE:
    case PROP_SIZE_DEPRECATED:
      p->n = g_value_get_int (value);
      break;
    case PROP_DT:
      p->dt = g_value_get_float (value);
      break;
    case PROP_VISCOSITY:
      p->viscosity = g_value_get_float (value);
      break;
    case PROP_VORTICITY:
      p->vorticity = g_value_get_float (value);
      break;
    case PROP_PRESSURE_ITERATIONS:
      p->pressure_iters = g_value_get_int (value);
      break;
    case PROP_DIFFUSE_ITERATIONS:
      p->diffuse_iters = g_value_get_int (value);
      break;
    case PROP_DYE_DECAY:
      p->dye_decay = g_value_get_float (value);
      break;
    case PROP_INJECT_X:
      p->inject_x = g_value_get_float (value);
      break;
    case PROP_INJECT_Y:
      p->inject_y = g_value_get_float (value);
      break;
    case PROP_INJECT_RADIUS:
      p->inject_radius = g_value_get_float (value);
      break;
    case PROP_FORCE_X:
      p->force_x = g_value_get_float (value);
      break;
    case PROP_FORCE_Y:
      p->force_y = g_value_get_float (value);
      break;
    case PROP_DYE:
      p->dye_amount = g_value_get_float (value);
      break;
    case PROP_NUM_BUFFERS:
      self->num_buffers = g_value_get_int64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_fluid_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelFluid *self = ACCEL_FLUID (object);
  AccelFluidParams *p = &self->params;

  switch (prop_id)
    {
    case PROP_GRID_SIZE:
    case PROP_SIZE_DEPRECATED:
      g_value_set_int (value, p->n);
      break;
    case PROP_DT:
      g_value_set_float (value, p->dt);
      break;
    case PROP_VISCOSITY:
      g_value_set_float (value, p->viscosity);
      break;
    case PROP_VORTICITY:
      g_value_set_float (value, p->vorticity);
      break;
    case PROP_PRESSURE_ITERATIONS:
      g_value_set_int (value, p->pressure_iters);
      break;
    case PROP_DIFFUSE_ITERATIONS:
      g_value_set_int (value, p->diffuse_iters);
      break;
    case PROP_DYE_DECAY:
      g_value_set_float (value, p->dye_decay);
      break;
    case PROP_INJECT_X:
      g_value_set_float (value, p->inject_x);
      break;
    case PROP_INJECT_Y:
      g_value_set_float (value, p->inject_y);
      break;
    case PROP_INJECT_RADIUS:
      g_value_set_float (value, p->inject_radius);
      break;
    case PROP_FORCE_X:
      g_value_set_float (value, p->force_x);
      break;
    case PROP_FORCE_Y:
      g_value_set_float (value, p->force_y);
      break;
    case PROP_DYE:
      g_value_set_float (value, p->dye_amount);
      break;
    case PROP_NUM_BUFFERS:
      g_value_set_int64 (value, self->num_buffers);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
install_float (GObjectClass *klass, guint id, const char *name,
    const char *blurb, float lo, float hi, float def)
{
  g_object_class_install_property (klass, id,
      g_param_spec_float (name, name, blurb, lo, hi, def,
          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS));
}

static void
accel_fluid_class_init (AccelFluidClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;
  AccelType out;

  gobject_class->set_property = accel_fluid_set_property;
  gobject_class->get_property = accel_fluid_get_property;
  stage_class->negotiate = accel_fluid_negotiate;
  stage_class->start = accel_fluid_start;
  stage_class->stop = accel_fluid_stop;
  stage_class->process = accel_fluid_process;
  /* every step is the same launches on the same fields */
  stage_class->can_capture = accel_stage_can_capture_always;
  stage_class->has_frame = accel_fluid_has_frame;
  stage_class->snapshot = accel_fluid_snapshot;
  stage_class->restore = accel_fluid_restore;

  /* grid-size, as the element accelfluid calls it; size is the old name */
  g_object_class_install_property (gobject_class, PROP_GRID_SIZE,
      g_param_spec_int ("grid-size", "Grid size",
          "Cells per side of the grid (and pixels per side of the frame)", 8,
          8192, 256, flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_SIZE_DEPRECATED,
      g_param_spec_int ("size", "Size", "Deprecated: use grid-size", 8, 8192,
          256,
          G_PARAM_READWRITE | G_PARAM_DEPRECATED | G_PARAM_STATIC_STRINGS
              | ACCEL_PARAM_FIXED));
  install_float (gobject_class, PROP_DT, "dt", "Time step, in cell units", 0.0f,
      100.0f, 1.0f);
  install_float (gobject_class, PROP_VISCOSITY, "viscosity",
      "Kinematic viscosity (0: no diffusion pass)", 0.0f, 10.0f, 0.0f);
  install_float (gobject_class, PROP_VORTICITY, "vorticity",
      "Vorticity confinement strength (0: off)", 0.0f, 10.0f, 0.3f);
  g_object_class_install_property (gobject_class, PROP_PRESSURE_ITERATIONS,
      g_param_spec_int ("pressure-iterations", "Pressure iterations",
          "Jacobi iterations of the pressure projection (rounded up to even)",
          2, 10000, 40, flags));
  g_object_class_install_property (gobject_class, PROP_DIFFUSE_ITERATIONS,
      g_param_spec_int ("diffuse-iterations", "Diffuse iterations",
          "Jacobi iterations of the viscous diffusion", 1, 10000, 20, flags));
  install_float (gobject_class, PROP_DYE_DECAY, "dye-decay",
      "Dye kept per step", 0.0f, 1.0f, 0.995f);
  install_float (gobject_class, PROP_INJECT_X, "inject-x",
      "Injection point, cells from the left", -1e6f, 1e6f, 128.0f);
  install_float (gobject_class, PROP_INJECT_Y, "inject-y",
      "Injection point, cells from the top", -1e6f, 1e6f, 230.0f);
  install_float (gobject_class, PROP_INJECT_RADIUS, "inject-radius",
      "Injection radius in cells (0: no injection)", 0.0f, 1e6f, 6.0f);
  install_float (gobject_class, PROP_FORCE_X, "force-x",
      "Velocity added per step at the point, x", -1e3f, 1e3f, 0.0f);
  install_float (gobject_class, PROP_FORCE_Y, "force-y",
      "Velocity added per step at the point, y", -1e3f, 1e3f, -0.4f);
  install_float (gobject_class, PROP_DYE, "dye",
      "Dye added per step at the point", 0.0f, 1e3f, 0.08f);
  g_object_class_install_property (gobject_class, PROP_NUM_BUFFERS,
      g_param_spec_int64 ("num-buffers", "Number of buffers",
          "Frames before end of stream (-1: no end)", -1, G_MAXINT64, -1,
          flags));

  accel_stage_class_set_metadata (stage_class, "realtime.fluid",
      "2D stable fluids (advection, diffusion, pressure projection, "
      "vorticity confinement) stirred at a point; renders the dye");
  accel_type_init_image (&out, ACCEL_FORMAT_RGBA8, ACCEL_MEMORY_DEVICE,
      ACCEL_DIM_ANY, ACCEL_DIM_ANY);
  accel_stage_class_add_port (stage_class, ACCEL_PORT_OUTPUT, "out", &out,
      "the dye, size x size RGBA8");
}

static void
accel_fluid_init (AccelFluid *self)
{
}
