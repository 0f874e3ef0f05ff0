/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: accelfluid, a live 2D stable-fluids simulation: the dye is
 * rendered on a square grid and scaled to the negotiated frame; a jet
 * stirs it, and dragging the pointer pushes the fluid and pours dye */
#include "gstaccelfluid.h"

#include <cuda_runtime_api.h>
#include <string.h>

#include "fluid/fluid.h"
#include "image/resize.h"

GST_DEBUG_CATEGORY_STATIC (gst_accel_fluid_debug);
#define GST_CAT_DEFAULT gst_accel_fluid_debug

#define DEFAULT_GRID_SIZE 256
#define DEFAULT_PRESSURE_ITERATIONS 40
#define DEFAULT_VORTICITY 0.3f
#define DEFAULT_VISCOSITY 0.0f
#define DEFAULT_DYE_DECAY 0.995f
#define DEFAULT_JET TRUE

enum
{
  PROP_0,
  PROP_GRID_SIZE,
  PROP_PRESSURE_ITERATIONS,
  PROP_VORTICITY,
  PROP_VISCOSITY,
  PROP_DYE_DECAY,
  PROP_JET,
};

struct _GstAccelFluid
{
  GstAccelSimSrc parent;

  /* properties, under the object lock */
  gint grid_size;
  gint pressure_iterations;
  gfloat vorticity, viscosity, dye_decay;
  gboolean jet;

  /* streaming thread only */
  gint n;          /* the running grid's size */
  gboolean device; /* the state is in device memory */
  gpointer block;  /* every field */
  AccelFluidFields fields;
  guint8 *grid_rgba; /* the dye at grid size, when the frame is not */
};

G_DEFINE_TYPE_WITH_CODE (GstAccelFluid, gst_accel_fluid, GST_TYPE_ACCEL_SIM_SRC,
    GST_DEBUG_CATEGORY_INIT (
        gst_accel_fluid_debug, "accelfluid", 0, "accel fluid source"));
GST_ELEMENT_REGISTER_DEFINE (
    accelfluid, "accelfluid", GST_RANK_NONE, GST_TYPE_ACCEL_FLUID);

static gpointer
alloc_zeroed (gboolean device, gpointer stream, size_t size)
{
  gpointer p = NULL;

  if (!device)
    return g_try_malloc0 (size);
  if (cudaMalloc (&p, size) != cudaSuccess)
    return NULL;
  if (cudaMemsetAsync (p, 0, size, stream) != cudaSuccess)
    g_clear_pointer (&p, cudaFree);
  return p;
}

static void
free_block (gboolean device, gpointer p)
{
  if (device)
    cudaFree (p);
  else
    g_free (p);
}

static void
gst_accel_fluid_stop_sim (GstAccelSimSrc *src)
{
  GstAccelFluid *self = GST_ACCEL_FLUID (src);

  free_block (self->device, self->block);
  free_block (self->device, self->grid_rgba);
  self->block = NULL;
  self->grid_rgba = NULL;
}

/* still water, no dye */
static gboolean
gst_accel_fluid_start_sim (
    GstAccelSimSrc *src, gpointer stream, int width, int height)
{
  GstAccelFluid *self = GST_ACCEL_FLUID (src);
  int n;

  GST_OBJECT_LOCK (self);
  n = self->n = self->grid_size;
  GST_OBJECT_UNLOCK (self);
  self->device = stream != NULL;
  self->block = alloc_zeroed (self->device, stream, accel_fluid_state_size (n));
  if (self->block && (width != n || height != n))
    self->grid_rgba = alloc_zeroed (self->device, stream, (size_t)n * n * 4);
  if (!self->block || ((width != n || height != n) && !self->grid_rgba))
    {
      gst_accel_fluid_stop_sim (src);
      return FALSE;
    }
  accel_fluid_fields_init (&self->fields, self->block, n);
  GST_DEBUG_OBJECT (self, "%dx%d grid for %dx%d frames", n, n, width, height);
  return TRUE;
}

/* this step's parameters: the pointer pushes and pours dye while a button
 * is held (or was clicked since the last frame); otherwise the jet */
static void
make_params (GstAccelFluid *self, const GstAccelPointer *pointer, int width,
    int height, AccelFluidParams *p)
{
  int n = self->n;
  float sx = (float)n / width, sy = (float)n / height;

  GST_OBJECT_LOCK (self);
  *p = (AccelFluidParams){ .n = n,
    .dt = 1.0f,
    .viscosity = self->viscosity,
    .vorticity = self->vorticity,
    .pressure_iters = self->pressure_iterations,
    .diffuse_iters = 20,
    .dye_decay = self->dye_decay };
  if (self->jet)
    {
      p->inject_x = n * 0.5f;
      p->inject_y = n * 0.9f;
      p->inject_radius = n / 40.0f + 1.0f;
      p->force_y = -0.4f;
      p->dye_amount = 0.08f;
    }
  GST_OBJECT_UNLOCK (self);

  if (pointer->inside && (pointer->down || pointer->clicks > 0))
    {
      p->inject_x = (float)pointer->x * sx;
      p->inject_y = (float)pointer->y * sy;
      p->inject_radius = n / 24.0f + 1.0f;
      p->force_x = (float)pointer->dx * sx * 0.5f;
      p->force_y = (float)pointer->dy * sy * 0.5f;
      p->dye_amount = 0.5f;
    }
}

static int
gst_accel_fluid_step (GstAccelSimSrc *src, gpointer stream,
    const GstAccelPointer *pointer, guint8 *rgba, size_t pitch, int width,
    int height)
{
  GstAccelFluid *self = GST_ACCEL_FLUID (src);
  size_t grid_pitch = (size_t)self->n * 4;
  AccelFluidParams p;
  int err;

  make_params (self, pointer, width, height, &p);
  GST_LOG_OBJECT (self, "step of the %dx%d grid%s", p.n, p.n,
      pointer->inside && (pointer->down || pointer->clicks > 0)
          ? ", the pointer pushes and pours dye"
      : p.dye_amount > 0.0f ? ", the jet pours dye"
                            : "");
  if (!stream)
    {
      accel_fluid_step_host (&p, &self->fields);
      if (!self->grid_rgba)
        return accel_fluid_render_host (&p, &self->fields, rgba, pitch);
      accel_fluid_render_host (&p, &self->fields, self->grid_rgba, grid_pitch);
      return accel_resize_host (ACCEL_IMAGE_RGBA8, self->grid_rgba, grid_pitch,
          p.n, p.n, rgba, pitch, width, height);
    }
  if ((err = accel_fluid_step (stream, &p, &self->fields)))
    return err;
  if (!self->grid_rgba)
    return accel_fluid_render (stream, &p, &self->fields, rgba, pitch);
  if ((err = accel_fluid_render (
           stream, &p, &self->fields, self->grid_rgba, grid_pitch)))
    return err;
  return accel_resize (stream, ACCEL_IMAGE_RGBA8, self->grid_rgba, grid_pitch,
      p.n, p.n, rgba, pitch, width, height);
}

static void
gst_accel_fluid_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstAccelFluid *self = GST_ACCEL_FLUID (object);
  g_autofree gchar *contents = g_strdup_value_contents (value);

  GST_OBJECT_LOCK (self);
  switch (prop_id)
    {
    case PROP_GRID_SIZE:
      self->grid_size = g_value_get_int (value);
      break;
    case PROP_PRESSURE_ITERATIONS:
      self->pressure_iterations = g_value_get_int (value);
      break;
    case PROP_VORTICITY:
      self->vorticity = g_value_get_float (value);
      break;
    case PROP_VISCOSITY:
      self->viscosity = g_value_get_float (value);
      break;
    case PROP_DYE_DECAY:
      self->dye_decay = g_value_get_float (value);
      break;
    case PROP_JET:
      self->jet = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
    }
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "%s = %s", pspec->name, contents);
}

static void
gst_accel_fluid_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstAccelFluid *self = GST_ACCEL_FLUID (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id)
    {
    case PROP_GRID_SIZE:
      g_value_set_int (value, self->grid_size);
      break;
    case PROP_PRESSURE_ITERATIONS:
      g_value_set_int (value, self->pressure_iterations);
      break;
    case PROP_VORTICITY:
      g_value_set_float (value, self->vorticity);
      break;
    case PROP_VISCOSITY:
      g_value_set_float (value, self->viscosity);
      break;
    case PROP_DYE_DECAY:
      g_value_set_float (value, self->dye_decay);
      break;
    case PROP_JET:
      g_value_set_boolean (value, self->jet);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
    }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_accel_fluid_class_init (GstAccelFluidClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAccelSimSrcClass *sim_class = GST_ACCEL_SIM_SRC_CLASS (klass);
  GParamFlags playing
      = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING;

  gobject_class->set_property = gst_accel_fluid_set_property;
  gobject_class->get_property = gst_accel_fluid_get_property;

  g_object_class_install_property (gobject_class, PROP_GRID_SIZE,
      g_param_spec_int ("grid-size", "Grid size",
          "Cells per side of the simulation grid (taken when caps are set)", 8,
          4096, DEFAULT_GRID_SIZE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_PRESSURE_ITERATIONS,
      g_param_spec_int ("pressure-iterations", "Pressure iterations",
          "Jacobi iterations of the pressure projection per frame", 2, 10000,
          DEFAULT_PRESSURE_ITERATIONS, playing));
  g_object_class_install_property (gobject_class, PROP_VORTICITY,
      g_param_spec_float ("vorticity", "Vorticity",
          "Vorticity confinement strength (0: off)", 0.0f, 10.0f,
          DEFAULT_VORTICITY, playing));
  g_object_class_install_property (gobject_class, PROP_VISCOSITY,
      g_param_spec_float ("viscosity", "Viscosity",
          "Kinematic viscosity (0: no diffusion pass)", 0.0f, 10.0f,
          DEFAULT_VISCOSITY, playing));
  g_object_class_install_property (gobject_class, PROP_DYE_DECAY,
      g_param_spec_float ("dye-decay", "Dye decay",
          "Fraction of the dye kept per frame", 0.0f, 1.0f, DEFAULT_DYE_DECAY,
          playing));
  g_object_class_install_property (gobject_class, PROP_JET,
      g_param_spec_boolean ("jet", "Jet",
          "A jet of dye rising from the bottom while the pointer is not "
          "pressed",
          DEFAULT_JET, playing));

  gst_element_class_set_static_metadata (element_class, "accel fluid",
      "Source/Video",
      "A running 2D fluid simulation (stable fluids: advection, pressure "
      "projection, vorticity confinement) rendering its dye; drag the "
      "pointer in the video window to push the fluid and pour dye",
      ACCEL_ELEMENT_AUTHOR);

  sim_class->start_sim = gst_accel_fluid_start_sim;
  sim_class->stop_sim = gst_accel_fluid_stop_sim;
  sim_class->step = gst_accel_fluid_step;
  sim_class->debug_category = gst_accel_fluid_debug;
}

static void
gst_accel_fluid_init (GstAccelFluid *self)
{
  self->grid_size = DEFAULT_GRID_SIZE;
  self->pressure_iterations = DEFAULT_PRESSURE_ITERATIONS;
  self->vorticity = DEFAULT_VORTICITY;
  self->viscosity = DEFAULT_VISCOSITY;
  self->dye_decay = DEFAULT_DYE_DECAY;
  self->jet = DEFAULT_JET;
}
