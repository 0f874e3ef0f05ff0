/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: accelcloth, a live cloth pinned at its top corners, in a gusting
 * wind, over a sphere; pressing a button grabs the vertex whose place at
 * rest is under the pointer and drags it along */
#include "gstaccelcloth.h"

#include <cuda_runtime_api.h>
#include <math.h>

#include "cloth/cloth.h"

GST_DEBUG_CATEGORY_STATIC (gst_accel_cloth_debug);
#define GST_CAT_DEFAULT gst_accel_cloth_debug

#define DEFAULT_GRID_SIZE 48
#define DEFAULT_ITERATIONS 20
#define DEFAULT_GRAVITY 9.8f
#define DEFAULT_WIND 6.0f
#define DEFAULT_SPHERE_RADIUS 0.5f

enum
{
  PROP_0,
  PROP_GRID_SIZE,
  PROP_ITERATIONS,
  PROP_GRAVITY,
  PROP_WIND,
  PROP_SPHERE_RADIUS,
  PROP_SOLVER,
};

struct _GstAccelCloth
{
  GstAccelSimSrc parent;

  /* properties, under the object lock */
  gint grid_size, iterations;
  AccelClothSolver solver;
  gfloat gravity, wind, sphere_radius;

  /* streaming thread only */
  AccelClothParams params; /* the running cloth's */
  AccelClothView view;
  gboolean device;
  gpointer state, depth;
  AccelClothState arrays;
  guint64 frame;
};

G_DEFINE_TYPE_WITH_CODE (GstAccelCloth, gst_accel_cloth, GST_TYPE_ACCEL_SIM_SRC,
    GST_DEBUG_CATEGORY_INIT (
        gst_accel_cloth_debug, "accelcloth", 0, "accel cloth source"));
GST_ELEMENT_REGISTER_DEFINE (
    accelcloth, "accelcloth", GST_RANK_NONE, GST_TYPE_ACCEL_CLOTH);

static void
free_block (gboolean device, gpointer p)
{
  if (device)
    cudaFree (p);
  else
    g_free (p);
}

static gpointer
alloc_block (gboolean device, size_t size)
{
  gpointer p = NULL;

  if (!device)
    return g_try_malloc (size);
  return cudaMalloc (&p, size) == cudaSuccess ? p : NULL;
}

static void
gst_accel_cloth_stop_sim (GstAccelSimSrc *src)
{
  GstAccelCloth *self = GST_ACCEL_CLOTH (src);

  free_block (self->device, self->state);
  free_block (self->device, self->depth);
  self->state = self->depth = NULL;
}

/* a flat sheet at rest, seen whole in the frame */
static gboolean
gst_accel_cloth_start_sim (
    GstAccelSimSrc *src, gpointer stream, int width, int height)
{
  GstAccelCloth *self = GST_ACCEL_CLOTH (src);
  AccelClothParams *p = &self->params;

  GST_OBJECT_LOCK (self);
  accel_cloth_params_init (p, self->grid_size, self->grid_size);
  GST_OBJECT_UNLOCK (self);
  p->sphere[1] = -0.9f;
  p->sphere[2] = 0.3f;
  accel_cloth_view_init (&self->view, p, width, height);
  self->device = stream != NULL;
  self->frame = 0;
  self->state = alloc_block (self->device, accel_cloth_state_size (p->w, p->h));
  self->depth = alloc_block (
      self->device, accel_cloth_depth_size (&self->view) * sizeof (guint64));
  if (!self->state || !self->depth)
    {
      gst_accel_cloth_stop_sim (src);
      return FALSE;
    }
  accel_cloth_state_init (&self->arrays, self->state, p->w, p->h);
  GST_DEBUG_OBJECT (self, "%dx%d vertices for %dx%d frames, on the %s", p->w,
      p->h, width, height, self->device ? "GPU" : "host");
  if (self->device ? accel_cloth_reset (stream, p, &self->arrays) == cudaSuccess
                   : accel_cloth_reset_host (p, &self->arrays) == 0)
    return TRUE;
  /* the base class stops only a simulation that started */
  gst_accel_cloth_stop_sim (src);
  return FALSE;
}

/* the pointer in the world, on the plane through the origin that faces
 * the view */
static void
unproject (const AccelClothView *v, const GstAccelPointer *pointer, float *x,
    float *y, float *z)
{
  float tilted_y
      = ((float)v->height * 0.5f - (float)pointer->y) / v->scale + v->center_y;

  *x = ((float)pointer->x - (float)v->width * 0.5f) / v->scale + v->center_x;
  *y = tilted_y * v->cos_tilt;
  *z = -tilted_y * v->sin_tilt;
}

/* this frame's forces, and the grab: the vertex that was under the pointer
 * at rest follows it while a button is held */
static void
update_params (GstAccelCloth *self, const GstAccelPointer *pointer)
{
  AccelClothParams *p = &self->params;

  GST_OBJECT_LOCK (self);
  p->iterations = self->iterations;
  p->solver = self->solver;
  p->gravity[1] = -self->gravity;
  p->sphere[3] = self->sphere_radius;
  accel_cloth_params_set_wind (p, self->wind, self->frame);
  GST_OBJECT_UNLOCK (self);

  if (!pointer->inside || !(pointer->down || pointer->clicks > 0))
    {
      p->grab = -1;
      return;
    }
  unproject (
      &self->view, pointer, &p->grab_pos[0], &p->grab_pos[1], &p->grab_pos[2]);
  if (p->grab < 0)
    {
      int i = (int)lroundf (
          p->grab_pos[0] / p->spacing + (float)(p->w - 1) * 0.5f);
      int j = (int)lroundf (
          (float)(p->h - 1) * 0.5f - p->grab_pos[1] / p->spacing);

      i = CLAMP (i, 0, p->w - 1);
      j = CLAMP (j, 0, p->h - 1);
      p->grab = j * p->w + i;
    }
}

static int
gst_accel_cloth_step (GstAccelSimSrc *src, gpointer stream,
    const GstAccelPointer *pointer, guint8 *rgba, size_t pitch, int width,
    int height)
{
  GstAccelCloth *self = GST_ACCEL_CLOTH (src);
  int err;

  update_params (self, pointer);
  self->frame++;
  if (self->params.grab >= 0)
    GST_LOG_OBJECT (self, "step %" G_GUINT64_FORMAT ", vertex %d grabbed",
        self->frame, self->params.grab);
  else
    GST_LOG_OBJECT (self, "step %" G_GUINT64_FORMAT, self->frame);
  if (!stream)
    return accel_cloth_step_host (&self->params, &self->arrays)
           || accel_cloth_render_host (&self->params, &self->arrays,
               &self->view, self->depth, rgba, pitch);
  if ((err = accel_cloth_step (stream, &self->params, &self->arrays)))
    return err;
  return accel_cloth_render (stream, &self->params, &self->arrays, &self->view,
      self->depth, rgba, pitch);
}

static gfloat *
float_field (GstAccelCloth *self, guint prop_id)
{
  switch (prop_id)
    {
    case PROP_GRAVITY:
      return &self->gravity;
    case PROP_WIND:
      return &self->wind;
    case PROP_SPHERE_RADIUS:
      return &self->sphere_radius;
    default:
      return NULL;
    }
}

static void
gst_accel_cloth_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstAccelCloth *self = GST_ACCEL_CLOTH (object);
  gfloat *f = float_field (self, prop_id);
  g_autofree gchar *contents = g_strdup_value_contents (value);

  GST_OBJECT_LOCK (self);
  if (f)
    *f = g_value_get_float (value);
  else if (prop_id == PROP_GRID_SIZE)
    self->grid_size = g_value_get_int (value);
  else if (prop_id == PROP_ITERATIONS)
    self->iterations = g_value_get_int (value);
  else if (prop_id == PROP_SOLVER)
    self->solver = g_value_get_enum (value);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "%s = %s", pspec->name, contents);
}

static void
gst_accel_cloth_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstAccelCloth *self = GST_ACCEL_CLOTH (object);
  gfloat *f = float_field (self, prop_id);

  GST_OBJECT_LOCK (self);
  if (f)
    g_value_set_float (value, *f);
  else if (prop_id == PROP_GRID_SIZE)
    g_value_set_int (value, self->grid_size);
  else if (prop_id == PROP_ITERATIONS)
    g_value_set_int (value, self->iterations);
  else if (prop_id == PROP_SOLVER)
    g_value_set_enum (value, self->solver);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  GST_OBJECT_UNLOCK (self);
}

/* the nicks of realtime.cloth's solver parameter; a type of its own, as
 * the stage plugin may register its enum in the same process */
static GType
gst_accel_cloth_solver_get_type (void)
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
        &type, g_enum_register_static ("GstAccelClothSolver", values));
  return type;
}

static void
gst_accel_cloth_class_init (GstAccelClothClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAccelSimSrcClass *sim_class = GST_ACCEL_SIM_SRC_CLASS (klass);
  GParamFlags playing
      = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING;

  gobject_class->set_property = gst_accel_cloth_set_property;
  gobject_class->get_property = gst_accel_cloth_get_property;

  g_object_class_install_property (gobject_class, PROP_GRID_SIZE,
      g_param_spec_int ("grid-size", "Grid size",
          "Vertices per side of the cloth (taken when caps are set)", 2, 4096,
          DEFAULT_GRID_SIZE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_ITERATIONS,
      g_param_spec_int ("iterations", "Iterations",
          "Constraint sweeps per frame (rounded up to even)", 0, 10000,
          DEFAULT_ITERATIONS, playing));
  g_object_class_install_property (gobject_class, PROP_GRAVITY,
      g_param_spec_float ("gravity", "Gravity",
          "Downward acceleration, units per second squared", -1000.0f, 1000.0f,
          DEFAULT_GRAVITY, playing));
  g_object_class_install_property (gobject_class, PROP_WIND,
      g_param_spec_float ("wind", "Wind",
          "Strength of the gusting wind, on a face square to it", 0.0f, 1000.0f,
          DEFAULT_WIND, playing));
  g_object_class_install_property (gobject_class, PROP_SPHERE_RADIUS,
      g_param_spec_float ("sphere-radius", "Sphere radius",
          "Radius of the sphere the cloth falls on (0: none)", 0.0f, 100.0f,
          DEFAULT_SPHERE_RADIUS, playing));
  g_object_class_install_property (gobject_class, PROP_SOLVER,
      g_param_spec_enum ("solver", "Solver",
          "How a sweep satisfies the constraints: Jacobi (each vertex from "
          "the last sweep's positions) or coloured Gauss-Seidel (in place, "
          "five colours in turn; stiffer for as many sweeps)",
          gst_accel_cloth_solver_get_type (), ACCEL_CLOTH_SOLVER_JACOBI,
          playing));

  gst_element_class_set_static_metadata (element_class, "accel cloth",
      "Source/Video",
      "A running cloth (position-based dynamics) pinned at its top corners in "
      "a gusting wind, over a sphere; press a button in the video window to "
      "grab it and drag it",
      ACCEL_ELEMENT_AUTHOR);

  sim_class->start_sim = gst_accel_cloth_start_sim;
  sim_class->stop_sim = gst_accel_cloth_stop_sim;
  sim_class->step = gst_accel_cloth_step;
  sim_class->debug_category = gst_accel_cloth_debug;
}

static void
gst_accel_cloth_init (GstAccelCloth *self)
{
  self->grid_size = DEFAULT_GRID_SIZE;
  self->iterations = DEFAULT_ITERATIONS;
  self->gravity = DEFAULT_GRAVITY;
  self->wind = DEFAULT_WIND;
  self->sphere_radius = DEFAULT_SPHERE_RADIUS;
}
