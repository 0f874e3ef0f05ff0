/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: accelparticles, a live particle system: a fountain in a box,
 * drawn as additive discs coloured by age; a held button makes the pointer
 * an attractor */
#include "gstaccelparticles.h"

#include <cuda_runtime_api.h>
#include <string.h>

#include "particles/particles.h"

GST_DEBUG_CATEGORY_STATIC (gst_accel_particles_debug);
#define GST_CAT_DEFAULT gst_accel_particles_debug

#define DEFAULT_CAPACITY 262144
#define DEFAULT_EMIT_RATE 0
#define DEFAULT_GRAVITY 1.0f
#define DEFAULT_DRAG 0.1f
#define DEFAULT_CURL 0.0f
#define DEFAULT_COLLIDE_RADIUS 0.0f
#define DEFAULT_POINT_SIZE 1
#define DEFAULT_SEED 1
#define DEFAULT_ATTRACT 6.0f
/* the attractor's reach, in world units (the box is [-1, 1]) */
#define POINTER_RADIUS 0.8f
/* the box and a margin fill the shorter side of the frame */
#define VIEW_EXTENT 2.2f

enum
{
  PROP_0,
  PROP_CAPACITY,
  PROP_EMIT_RATE,
  PROP_GRAVITY,
  PROP_DRAG,
  PROP_CURL,
  PROP_COLLIDE_RADIUS,
  PROP_POINT_SIZE,
  PROP_SEED,
  PROP_ATTRACT,
};

struct _GstAccelParticles
{
  GstAccelSimSrc parent;

  /* properties, under the object lock */
  guint capacity, emit_rate, seed;
  gfloat gravity, drag, curl, collide_radius, attract;
  gint point_size;

  /* streaming thread only */
  AccelParticlesParams params; /* the running system's */
  gboolean device;
  gpointer block; /* two states, the step's scratch, the splat's sums */
  AccelParticleState state[2];
  AccelParticlesScratch scratch;
  guint32 *accum;
  guint current; /* the state the next step reads */
  guint64 step;
};

G_DEFINE_TYPE_WITH_CODE (GstAccelParticles, gst_accel_particles,
    GST_TYPE_ACCEL_SIM_SRC,
    GST_DEBUG_CATEGORY_INIT (gst_accel_particles_debug, "accelparticles", 0,
        "accel particle system source"));
GST_ELEMENT_REGISTER_DEFINE (
    accelparticles, "accelparticles", GST_RANK_NONE, GST_TYPE_ACCEL_PARTICLES);

static void
gst_accel_particles_stop_sim (GstAccelSimSrc *src)
{
  GstAccelParticles *self = GST_ACCEL_PARTICLES (src);

  if (self->device)
    cudaFree (self->block);
  else
    g_free (self->block);
  self->block = NULL;
}

/* 256-byte steps keep every part aligned for wide accesses */
static gsize
round_up (gsize n)
{
  return (n + 255) & ~(gsize)255;
}

/* an empty system: both states, the scratch and the sums in one block */
static gboolean
gst_accel_particles_start_sim (
    GstAccelSimSrc *src, gpointer stream, int width, int height)
{
  GstAccelParticles *self = GST_ACCEL_PARTICLES (src);
  AccelParticlesParams *p = &self->params;
  AccelSplatParams sp = { width, height };
  gsize state_size, scratch_size, accum_size, size;
  guint8 *base;

  GST_OBJECT_LOCK (self);
  accel_particles_params_init (p, self->capacity);
  p->seed = self->seed;
  p->collide_radius = self->collide_radius;
  GST_OBJECT_UNLOCK (self);
  if (p->collide_radius > 0.0f)
    accel_particles_params_set_grid (p, p->boxes[0].lo, p->boxes[0].hi);

  state_size = round_up (accel_particle_state_size (p->capacity));
  scratch_size = round_up (accel_particles_scratch_size (p));
  accum_size = accel_particles_splat_accum_size (&sp) * sizeof (guint32);
  size = 2 * state_size + scratch_size + accum_size;
  self->device = stream != NULL;
  if (!self->device)
    self->block = g_try_malloc0 (size);
  else if (cudaMalloc (&self->block, size) != cudaSuccess
           || cudaMemsetAsync (self->block, 0, size, stream) != cudaSuccess)
    g_clear_pointer (&self->block, cudaFree);
  if (!self->block)
    return FALSE;

  base = self->block;
  accel_particle_state_init (&self->state[0], base, p->capacity);
  accel_particle_state_init (&self->state[1], base + state_size, p->capacity);
  accel_particles_scratch_init (&self->scratch, base + 2 * state_size, p);
  self->accum = (guint32 *)(base + 2 * state_size + scratch_size);
  self->current = 0;
  self->step = 0;
  GST_DEBUG_OBJECT (self, "%u particles at most, %" G_GSIZE_FORMAT " bytes",
      p->capacity, size);
  return TRUE;
}

/* this step's forces: the properties, and the pointer as an attractor
 * while a button is held */
static void
update_params (GstAccelParticles *self, const GstAccelPointer *pointer,
    const AccelSplatParams *sp)
{
  AccelParticlesParams *p = &self->params;

  GST_OBJECT_LOCK (self);
  /* 0: the default, also once another rate was set */
  p->emitter.rate = self->emit_rate > 0
                        ? self->emit_rate
                        : accel_particles_default_emit_rate (p->capacity);
  p->gravity[1] = -self->gravity;
  p->drag = self->drag;
  p->curl_strength = self->curl;
  p->n_attractors = 0;
  if (pointer->inside && (pointer->down || pointer->clicks > 0))
    {
      AccelParticleAttractor *a = &p->attractors[p->n_attractors++];

      a->x = ((float)pointer->x - sp->width * 0.5f) / sp->scale + sp->center_x;
      a->y = (sp->height * 0.5f - (float)pointer->y) / sp->scale + sp->center_y;
      a->z = 0.0f;
      a->strength = self->attract;
      a->radius = POINTER_RADIUS;
    }
  GST_OBJECT_UNLOCK (self);
}

static void
splat_params (
    GstAccelParticles *self, int width, int height, AccelSplatParams *sp)
{
  *sp = (AccelSplatParams){ .width = width,
    .height = height,
    .scale = MIN (width, height) / VIEW_EXTENT,
    .end_colour = 0x00ff2020u,
    .gain = 1.0f };
  GST_OBJECT_LOCK (self);
  sp->point_size = self->point_size;
  GST_OBJECT_UNLOCK (self);
}

static int
gst_accel_particles_step (GstAccelSimSrc *src, gpointer stream,
    const GstAccelPointer *pointer, guint8 *rgba, size_t pitch, int width,
    int height)
{
  GstAccelParticles *self = GST_ACCEL_PARTICLES (src);
  const AccelParticleState *in = &self->state[self->current];
  const AccelParticleState *out = &self->state[self->current ^ 1];
  AccelSplatParams sp;
  int err;

  splat_params (self, width, height, &sp);
  update_params (self, pointer, &sp);
  GST_LOG_OBJECT (self, "step %" G_GUINT64_FORMAT "%s", self->step,
      self->params.n_attractors > 0 ? ", the pointer attracts" : "");
  if (stream)
    err = accel_particles_step (
        stream, &self->params, self->step, in, out, &self->scratch);
  else
    err = accel_particles_step_host (
        &self->params, self->step, in, out, &self->scratch);
  if (err)
    return err;
  self->current ^= 1;
  self->step++;
  if (stream)
    return accel_particles_splat (
        stream, &sp, out, self->params.capacity, self->accum, rgba, pitch);
  return accel_particles_splat_host (
      &sp, out, self->params.capacity, self->accum, rgba, pitch);
}

static void
gst_accel_particles_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstAccelParticles *self = GST_ACCEL_PARTICLES (object);
  g_autofree gchar *contents = g_strdup_value_contents (value);

  GST_OBJECT_LOCK (self);
  switch (prop_id)
    {
    case PROP_CAPACITY:
      self->capacity = g_value_get_uint (value);
      break;
    case PROP_EMIT_RATE:
      self->emit_rate = g_value_get_uint (value);
      break;
    case PROP_GRAVITY:
      self->gravity = g_value_get_float (value);
      break;
    case PROP_DRAG:
      self->drag = g_value_get_float (value);
      break;
    case PROP_CURL:
      self->curl = g_value_get_float (value);
      break;
    case PROP_COLLIDE_RADIUS:
      self->collide_radius = g_value_get_float (value);
      break;
    case PROP_POINT_SIZE:
      self->point_size = g_value_get_int (value);
      break;
    case PROP_SEED:
      self->seed = g_value_get_uint (value);
      break;
    case PROP_ATTRACT:
      self->attract = g_value_get_float (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
    }
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "%s = %s", pspec->name, contents);
}

static void
gst_accel_particles_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstAccelParticles *self = GST_ACCEL_PARTICLES (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id)
    {
    case PROP_CAPACITY:
      g_value_set_uint (value, self->capacity);
      break;
    case PROP_EMIT_RATE:
      g_value_set_uint (value, self->emit_rate);
      break;
    case PROP_GRAVITY:
      g_value_set_float (value, self->gravity);
      break;
    case PROP_DRAG:
      g_value_set_float (value, self->drag);
      break;
    case PROP_CURL:
      g_value_set_float (value, self->curl);
      break;
    case PROP_COLLIDE_RADIUS:
      g_value_set_float (value, self->collide_radius);
      break;
    case PROP_POINT_SIZE:
      g_value_set_int (value, self->point_size);
      break;
    case PROP_SEED:
      g_value_set_uint (value, self->seed);
      break;
    case PROP_ATTRACT:
      g_value_set_float (value, self->attract);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
    }
  GST_OBJECT_UNLOCK (self);
}

static void
install_float (GObjectClass *klass, guint id, const char *name,
    const char *nick, const char *blurb, float lo, float hi, float def)
{
  g_object_class_install_property (klass, id,
      g_param_spec_float (name, nick, blurb, lo, hi, def,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));
}

static void
gst_accel_particles_class_init (GstAccelParticlesClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAccelSimSrcClass *sim_class = GST_ACCEL_SIM_SRC_CLASS (klass);
  GParamFlags ready
      = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY;

  gobject_class->set_property = gst_accel_particles_set_property;
  gobject_class->get_property = gst_accel_particles_get_property;

  g_object_class_install_property (gobject_class, PROP_CAPACITY,
      g_param_spec_uint ("capacity", "Capacity",
          "Particles alive at most (taken when caps are set)",
          ACCEL_PARTICLES_MIN_CAPACITY, 1u << 28, DEFAULT_CAPACITY, ready));
  g_object_class_install_property (gobject_class, PROP_EMIT_RATE,
      g_param_spec_uint ("emit-rate", "Emit rate",
          "Particles born per frame (0: about the capacity over a lifetime)", 0,
          1u << 28, DEFAULT_EMIT_RATE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));
  install_float (gobject_class, PROP_GRAVITY, "gravity", "Gravity",
      "Downward acceleration, in box heights per second squared", -100.0f,
      100.0f, DEFAULT_GRAVITY);
  install_float (gobject_class, PROP_DRAG, "drag", "Drag",
      "Velocity lost per second, as a fraction", 0.0f, 100.0f, DEFAULT_DRAG);
  install_float (gobject_class, PROP_CURL, "curl", "Curl noise",
      "Acceleration of the curl-noise flow (0: off)", 0.0f, 100.0f,
      DEFAULT_CURL);
  g_object_class_install_property (gobject_class, PROP_COLLIDE_RADIUS,
      g_param_spec_float ("collide-radius", "Collide radius",
          "Particles closer than twice this push each other apart, through "
          "the spatial index (0: no particle-particle collisions)",
          0.0f, 0.5f, DEFAULT_COLLIDE_RADIUS, ready));
  g_object_class_install_property (gobject_class, PROP_POINT_SIZE,
      g_param_spec_int ("point-size", "Point size",
          "Radius of a particle's disc in pixels (0: one pixel)", 0, 64,
          DEFAULT_POINT_SIZE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_SEED,
      g_param_spec_uint ("seed", "Seed", "Seed of the emission's randomness", 0,
          G_MAXUINT32, DEFAULT_SEED, ready));
  install_float (gobject_class, PROP_ATTRACT, "attract", "Attract",
      "Pull of the pointer while a button is held (negative: push)", -1000.0f,
      1000.0f, DEFAULT_ATTRACT);

  gst_element_class_set_static_metadata (element_class, "accel particles",
      "Source/Video",
      "A running particle system (emitter, gravity, drag, curl noise, "
      "collisions with the box and each other) drawn as additive discs; "
      "hold a button in the video window to pull the particles",
      ACCEL_ELEMENT_AUTHOR);

  sim_class->start_sim = gst_accel_particles_start_sim;
  sim_class->stop_sim = gst_accel_particles_stop_sim;
  sim_class->step = gst_accel_particles_step;
  sim_class->debug_category = gst_accel_particles_debug;
}

static void
gst_accel_particles_init (GstAccelParticles *self)
{
  self->capacity = DEFAULT_CAPACITY;
  self->emit_rate = DEFAULT_EMIT_RATE;
  self->gravity = DEFAULT_GRAVITY;
  self->drag = DEFAULT_DRAG;
  self->curl = DEFAULT_CURL;
  self->collide_radius = DEFAULT_COLLIDE_RADIUS;
  self->point_size = DEFAULT_POINT_SIZE;
  self->seed = DEFAULT_SEED;
  self->attract = DEFAULT_ATTRACT;
}
