/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.particles, a particle system stepped
 * once per tick; a source whose output is the particle state (for
 * realtime.splat, or anything that takes particles)
 *
 * An emitter shoots particles up from near the bottom of a [-1, 1]^3 box
 * that holds them, under gravity and drag, pulled by an attractor, pushed
 * by a repeller, stirred by curl noise, and (with collide-radius set) kept
 * apart from each other. */
#define G_LOG_DOMAIN "accel-particles"

#include "accelparticles.h"
#include "accelrealtime-private.h"
#include "particles/particles.h"

#include <cuda_runtime_api.h>
#include <string.h>

struct _AccelParticles
{
  AccelStage parent;

  /* properties */
  guint capacity, emit_rate, seed;
  gfloat dt, lifetime, speed, spread, emitter_x, emitter_y, emitter_radius;
  guint colour;
  gfloat gravity, drag, curl, bounce, friction, particle_radius;
  gfloat attractor_x, attractor_y, attractor_strength, attractor_radius;
  gfloat repeller_x, repeller_y, repeller_strength, repeller_radius;
  gboolean collisions;
  gint64 num_buffers;

  /* stage thread only, between start() and stop() */
  AccelSpatialGrid grid; /* fixed at start: the index's layout */
  AccelBuffer *state;    /* the particles at start, or restored */
  AccelBuffer *last;     /* the last step's output: the particles now */
  AccelBuffer *scratch;  /* a step's working memory */
  AccelParticlesScratch work;
};

G_DEFINE_FINAL_TYPE (AccelParticles, accel_particles, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_CAPACITY,
  PROP_EMIT_RATE,
  PROP_LIFETIME,
  PROP_SPEED,
  PROP_SPREAD,
  PROP_EMITTER_X,
  PROP_EMITTER_Y,
  PROP_EMITTER_RADIUS,
  PROP_COLOUR,
  PROP_GRAVITY,
  PROP_DRAG,
  PROP_ATTRACTOR_X,
  PROP_ATTRACTOR_Y,
  PROP_ATTRACTOR_STRENGTH,
  PROP_ATTRACTOR_RADIUS,
  PROP_REPELLER_X,
  PROP_REPELLER_Y,
  PROP_REPELLER_STRENGTH,
  PROP_REPELLER_RADIUS,
  PROP_CURL,
  PROP_BOUNCE,
  PROP_FRICTION,
  PROP_COLLIDE_RADIUS,
  PROP_COLLISIONS_DEPRECATED,
  PROP_PARTICLE_RADIUS_DEPRECATED,
  PROP_SEED,
  PROP_DT,
  PROP_NUM_BUFFERS,
  N_PROPS
};

/**
 * accel_particles_type_init:
 * @type: the type to fill
 * @memory: where the state lives
 * @capacity: particles it can hold, or %ACCEL_DIM_ANY in a template
 *
 * The type of a particle state: ACCEL_PARTICLES_ROWS rows of @capacity
 * 32-bit words (see particles/particles.h). MT safe.
 */
void
accel_particles_type_init (AccelType *type, AccelMemory memory, gint64 capacity)
{
  memset (type, 0, sizeof *type);
  type->kind = ACCEL_KIND_PARTICLES;
  type->dtype = ACCEL_DTYPE_F32;
  type->format = ACCEL_FORMAT_ANY;
  type->memory = memory;
  type->n_dims = 2;
  type->dims[0] = ACCEL_PARTICLES_ROWS;
  type->dims[1] = capacity;
}

/**
 * accel_particles_check_state:
 * @stage: the stage that takes @type
 * @in: the type offered to @stage's input
 * @error: return location for a #GError, or %NULL
 *
 * Whether @in is a particle state (accel_particles_type_init()), for the
 * stages that take one. Called from negotiate().
 *
 * Returns: %TRUE, or %FALSE with ACCEL_ERROR_TYPE_MISMATCH naming @stage.
 */
gboolean
accel_particles_check_state (
    AccelStage *stage, const AccelType *in, GError **error)
{
  if (in->n_dims != 2 || in->dims[0] != ACCEL_PARTICLES_ROWS
      || in->dims[1] < ACCEL_PARTICLES_MIN_CAPACITY)
    {
      g_autofree gchar *offered = accel_type_to_string (in);
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH,
          "stage '%s' (%s) takes a particle state of %d rows, not %s",
          accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
          ACCEL_PARTICLES_ROWS, offered);
      return FALSE;
    }
  return TRUE;
}

/* the kernels' parameters from the properties, read each step so a
 * parameter change applies from the next one */
static void
accel_particles_params (AccelParticles *self, AccelParticlesParams *p)
{
  accel_particles_params_init (p, self->capacity);
  p->dt = self->dt;
  p->seed = self->seed;
  p->emitter.rate = self->emit_rate;
  p->emitter.lifetime = self->lifetime;
  p->emitter.speed = self->speed;
  p->emitter.spread = self->spread;
  p->emitter.pos[0] = self->emitter_x;
  p->emitter.pos[1] = self->emitter_y;
  p->emitter.radius = self->emitter_radius;
  p->emitter.colour = self->colour;
  p->gravity[1] = self->gravity;
  p->drag = self->drag;
  p->curl_strength = self->curl;
  p->restitution = self->bounce;
  p->friction = self->friction;
  if (self->attractor_strength != 0.0f)
    p->attractors[p->n_attractors++]
        = (AccelParticleAttractor){ self->attractor_x, self->attractor_y, 0.0f,
            self->attractor_strength, self->attractor_radius };
  if (self->repeller_strength != 0.0f)
    p->attractors[p->n_attractors++]
        = (AccelParticleAttractor){ self->repeller_x, self->repeller_y, 0.0f,
            -self->repeller_strength, self->repeller_radius };
  p->collide_radius = self->collisions ? self->particle_radius : 0.0f;
  p->grid = self->grid;
}

static gboolean
accel_particles_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  accel_particles_type_init (
      &out_types[0], ACCEL_MEMORY_DEVICE, ACCEL_PARTICLES (stage)->capacity);
  return TRUE;
}

static AccelBuffer *
new_block (AccelStage *stage, gsize size, GError **error)
{
  AccelType bytes;

  accel_type_init_bytes (&bytes, ACCEL_MEMORY_DEVICE, (gint64)size);
  return accel_buffer_new (accel_stage_get_device (stage), &bytes, error);
}

static gboolean
accel_particles_start (AccelStage *stage, GError **error)
{
  AccelParticles *self = ACCEL_PARTICLES (stage);
  static const float lo[3] = { -1.0f, -1.0f, -1.0f }, hi[3] = { 1, 1, 1 };
  AccelParticlesParams p;
  guint pool_size;

  /* the next step reads the last output (accel_particles_process ()): a
   * pool of one would wait for itself */
  g_object_get (stage, "pool-size", &pool_size, NULL);
  if (pool_size == 1)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "stage '%s' (realtime.particles): pool-size 1 is too small: the "
          "stage keeps its last output to step from, so it needs 2",
          accel_stage_get_name (stage));
      return FALSE;
    }

  /* the index is laid out for the radius at start (a later radius is still
   * correct, only slower or faster) and always there, so collisions can be
   * switched on while running */
  accel_particles_params (self, &p);
  p.collide_radius = self->particle_radius;
  accel_particles_params_set_grid (&p, lo, hi);
  self->grid = p.grid;
  self->state
      = new_block (stage, accel_particle_state_size (p.capacity), error);
  if (!self->state)
    return FALSE;
  self->scratch = new_block (stage, accel_particles_scratch_size (&p), error);
  if (!self->scratch)
    return FALSE;
  accel_particles_scratch_init (
      &self->work, accel_buffer_get_data (self->scratch), &p);
  /* no particles yet: a zero count */
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
accel_particles_stop (AccelStage *stage)
{
  AccelParticles *self = ACCEL_PARTICLES (stage);

  g_clear_pointer (&self->state, accel_buffer_unref);
  g_clear_pointer (&self->last, accel_buffer_unref);
  g_clear_pointer (&self->scratch, accel_buffer_unref);
}

/* the particles the next step starts from */
static AccelBuffer *
current (AccelParticles *self)
{
  return self->last ? self->last : self->state;
}

/* num-buffers ends the stream before the frame past it takes a buffer */
static gboolean
accel_particles_has_frame (AccelStage *stage, guint64 sequence)
{
  AccelParticles *self = ACCEL_PARTICLES (stage);

  return self->num_buffers < 0 || sequence < (guint64)self->num_buffers;
}

/* a step from the particles now into the output, which then holds them:
 * the step cannot work in place (it compacts), and keeping a reference to
 * the output (read by the next stage and by the next step, written by
 * neither) saves copying it back */

static AccelFlow
accel_particles_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelParticles *self = ACCEL_PARTICLES (stage);
  AccelBuffer *out = frame->outputs[0];
  gpointer stream = accel_stream_get_handle (frame->stream);
  AccelParticlesParams p;
  AccelParticleState in_s, out_s;

  accel_particles_params (self, &p);
  accel_particle_state_init (
      &in_s, accel_buffer_get_data (current (self)), p.capacity);
  accel_particle_state_init (&out_s, accel_buffer_get_data (out), p.capacity);
  if (accel_stage_is_host (stage))
    accel_particles_step_host (&p, frame->sequence, &in_s, &out_s, &self->work);
  else if (!accel_cuda_check (accel_particles_step (stream, &p, frame->sequence,
                                  &in_s, &out_s, &self->work),
               error))
    return ACCEL_FLOW_ERROR;
  /* the previous output goes back to its pool once downstream is done: a
   * later output of ours that reuses it is written on our stream, after
   * this step's reads */
  g_clear_pointer (&self->last, accel_buffer_unref);
  self->last = accel_buffer_ref (out);
  return ACCEL_FLOW_OK;
}

/* the whole state; a copy to the host (a sync, every snapshot-interval
 * frames) */
static GBytes *
accel_particles_snapshot (AccelStage *stage)
{
  AccelParticles *self = ACCEL_PARTICLES (stage);

  return accel_realtime_snapshot_block (
      stage, current (self), accel_buffer_get_size (self->state));
}

static gboolean
accel_particles_restore (AccelStage *stage, GBytes *state, GError **error)
{
  AccelParticles *self = ACCEL_PARTICLES (stage);

  g_clear_pointer (&self->last, accel_buffer_unref);
  return accel_realtime_restore_block (stage, self->state,
      accel_buffer_get_size (self->state), state, "capacity", error);
}

/* every float property, in the struct */
static gfloat *
float_field (AccelParticles *self, guint prop_id)
{
  switch (prop_id)
    {
    case PROP_LIFETIME:
      return &self->lifetime;
    case PROP_SPEED:
      return &self->speed;
    case PROP_SPREAD:
      return &self->spread;
    case PROP_EMITTER_X:
      return &self->emitter_x;
    case PROP_EMITTER_Y:
      return &self->emitter_y;
    case PROP_EMITTER_RADIUS:
      return &self->emitter_radius;
    case PROP_GRAVITY:
      return &self->gravity;
    case PROP_DRAG:
      return &self->drag;
    case PROP_ATTRACTOR_X:
      return &self->attractor_x;
    case PROP_ATTRACTOR_Y:
      return &self->attractor_y;
    case PROP_ATTRACTOR_STRENGTH:
      return &self->attractor_strength;
    case PROP_ATTRACTOR_RADIUS:
      return &self->attractor_radius;
    case PROP_REPELLER_X:
      return &self->repeller_x;
    case PROP_REPELLER_Y:
      return &self->repeller_y;
    case PROP_REPELLER_STRENGTH:
      return &self->repeller_strength;
    case PROP_REPELLER_RADIUS:
      return &self->repeller_radius;
    case PROP_CURL:
      return &self->curl;
    case PROP_BOUNCE:
      return &self->bounce;
    case PROP_FRICTION:
      return &self->friction;
    case PROP_PARTICLE_RADIUS_DEPRECATED:
      return &self->particle_radius;
    case PROP_DT:
      return &self->dt;
    default:
      return NULL;
    }
}

static guint *
uint_field (AccelParticles *self, guint prop_id)
{
  switch (prop_id)
    {
    case PROP_CAPACITY:
      return &self->capacity;
    case PROP_EMIT_RATE:
      return &self->emit_rate;
    case PROP_COLOUR:
      return &self->colour;
    case PROP_SEED:
      return &self->seed;
    default:
      return NULL;
    }
}

static void
accel_particles_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelParticles *self = ACCEL_PARTICLES (object);
  gfloat *f = float_field (self, prop_id);
  guint *u = uint_field (self, prop_id);

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;
  if (f)
    *f = g_value_get_float (value);
  else if (u)
    *u = g_value_get_uint (value);
  else if (prop_id == PROP_COLLIDE_RADIUS)
    {
      /* 0 switches collisions off and keeps the last radius, which lays
       * out the index at start */
      gfloat r = g_value_get_float (value);
      self->collisions = r > 0.0f;
      if (r > 0.0f)
        self->particle_radius = r;
    }
  else if (prop_id == PROP_COLLISIONS_DEPRECATED)
    self->collisions = g_value_get_boolean (value);
  else if (prop_id == PROP_NUM_BUFFERS)
    self->num_buffers = g_value_get_int64 (value);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
accel_particles_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelParticles *self = ACCEL_PARTICLES (object);
  gfloat *f = float_field (self, prop_id);
  guint *u = uint_field (self, prop_id);

  if (f)
    g_value_set_float (value, *f);
  else if (u)
    g_value_set_uint (value, *u);
  else if (prop_id == PROP_COLLIDE_RADIUS)
    g_value_set_float (value, self->collisions ? self->particle_radius : 0.0f);
  else if (prop_id == PROP_COLLISIONS_DEPRECATED)
    g_value_set_boolean (value, self->collisions);
  else if (prop_id == PROP_NUM_BUFFERS)
    g_value_set_int64 (value, self->num_buffers);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
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
install_uint (GObjectClass *klass, guint id, const char *name,
    const char *blurb, guint lo, guint hi, guint def)
{
  g_object_class_install_property (
      klass, id, g_param_spec_uint (name, name, blurb, lo, hi, def, FLAGS));
}

static void
accel_particles_class_init (AccelParticlesClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  AccelType out;

  gobject_class->set_property = accel_particles_set_property;
  gobject_class->get_property = accel_particles_get_property;
  stage_class->negotiate = accel_particles_negotiate;
  stage_class->start = accel_particles_start;
  stage_class->stop = accel_particles_stop;
  stage_class->process = accel_particles_process;
  stage_class->has_frame = accel_particles_has_frame;
  stage_class->snapshot = accel_particles_snapshot;
  stage_class->restore = accel_particles_restore;

  /* it sizes the state: fixed once the graph is prepared */
  g_object_class_install_property (gobject_class, PROP_CAPACITY,
      g_param_spec_uint ("capacity", "capacity", "Most particles alive at once",
          ACCEL_PARTICLES_MIN_CAPACITY, 1u << 30, 65536,
          FLAGS | ACCEL_PARAM_FIXED));
  install_uint (gobject_class, PROP_EMIT_RATE, "emit-rate",
      "Particles emitted per step (while there is room)", 0, 1u << 30, 400);
  install_float (gobject_class, PROP_LIFETIME, "lifetime",
      "Longest life of a particle, in time units (lives vary down to half)",
      0.0f, 1e6f, 2.5f);
  install_float (gobject_class, PROP_SPEED, "speed",
      "Speed at emission, units per time unit", 0.0f, 1e3f, 1.6f);
  install_float (gobject_class, PROP_SPREAD, "spread",
      "Scatter of the emission direction (0: a jet)", 0.0f, 100.0f, 0.3f);
  install_float (gobject_class, PROP_EMITTER_X, "emitter-x",
      "Emitter position, x (the box is [-1, 1])", -1e3f, 1e3f, 0.0f);
  install_float (gobject_class, PROP_EMITTER_Y, "emitter-y",
      "Emitter position, y (up)", -1e3f, 1e3f, -0.8f);
  install_float (gobject_class, PROP_EMITTER_RADIUS, "emitter-radius",
      "Radius of the ball particles are born in", 0.0f, 1e3f, 0.05f);
  install_uint (gobject_class, PROP_COLOUR, "colour",
      "Colour at birth, RGBA8 with R in the low byte (0xAABBGGRR)", 0,
      G_MAXUINT32, 0xff40a0ffu);
  install_float (gobject_class, PROP_GRAVITY, "gravity",
      "Acceleration along y (negative: down)", -1e3f, 1e3f, -1.0f);
  install_float (gobject_class, PROP_DRAG, "drag",
      "Fraction of velocity lost per time unit", 0.0f, 1e3f, 0.1f);
  install_float (gobject_class, PROP_ATTRACTOR_X, "attractor-x",
      "Attractor position, x", -1e3f, 1e3f, 0.5f);
  install_float (gobject_class, PROP_ATTRACTOR_Y, "attractor-y",
      "Attractor position, y", -1e3f, 1e3f, 0.3f);
  install_float (gobject_class, PROP_ATTRACTOR_STRENGTH, "attractor-strength",
      "Pull of the attractor at its centre (0: off)", -1e3f, 1e3f, 0.0f);
  install_float (gobject_class, PROP_ATTRACTOR_RADIUS, "attractor-radius",
      "Reach of the attractor", 0.0f, 1e3f, 0.8f);
  install_float (gobject_class, PROP_REPELLER_X, "repeller-x",
      "Repeller position, x", -1e3f, 1e3f, -0.4f);
  install_float (gobject_class, PROP_REPELLER_Y, "repeller-y",
      "Repeller position, y", -1e3f, 1e3f, 0.2f);
  install_float (gobject_class, PROP_REPELLER_STRENGTH, "repeller-strength",
      "Push of the repeller at its centre (0: off)", -1e3f, 1e3f, 0.0f);
  install_float (gobject_class, PROP_REPELLER_RADIUS, "repeller-radius",
      "Reach of the repeller", 0.0f, 1e3f, 0.4f);
  install_float (gobject_class, PROP_CURL, "curl",
      "Strength of the curl-noise swirl (0: off)", 0.0f, 1e3f, 0.0f);
  install_float (gobject_class, PROP_BOUNCE, "bounce",
      "Normal velocity kept by a bounce off the box (restitution)", 0.0f, 1.0f,
      0.5f);
  install_float (gobject_class, PROP_FRICTION, "friction",
      "Tangential velocity lost by a bounce", 0.0f, 1.0f, 0.1f);
  /* collide-radius, as the element accelparticles calls it; collisions and
   * particle-radius are the old pair */
  install_float (gobject_class, PROP_COLLIDE_RADIUS, "collide-radius",
      "Particles closer than twice this push each other apart, through the "
      "spatial index (0: no particle-particle collisions)",
      0.0f, 1.0f, 0.0f);
  g_object_class_install_property (gobject_class, PROP_COLLISIONS_DEPRECATED,
      g_param_spec_boolean ("collisions", "Collisions",
          "Deprecated: use collide-radius", FALSE,
          G_PARAM_READWRITE | G_PARAM_DEPRECATED | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class,
      PROP_PARTICLE_RADIUS_DEPRECATED,
      g_param_spec_float ("particle-radius", "Particle radius",
          "Deprecated: use collide-radius", 1e-4f, 1.0f, 0.01f,
          G_PARAM_READWRITE | G_PARAM_DEPRECATED | G_PARAM_STATIC_STRINGS));
  install_uint (gobject_class, PROP_SEED, "seed",
      "Seed of the emission's randomness and of the noise", 0, G_MAXUINT32, 1);
  install_float (
      gobject_class, PROP_DT, "dt", "Time step", 0.0f, 10.0f, 1.0f / 60.0f);
  g_object_class_install_property (gobject_class, PROP_NUM_BUFFERS,
      g_param_spec_int64 ("num-buffers", "Number of buffers",
          "Steps before end of stream (-1: no end)", -1, G_MAXINT64, -1,
          FLAGS));

  accel_stage_class_set_metadata (stage_class, "realtime.particles",
      "Particle system (emitter, gravity, drag, attractors, curl noise, "
      "box and particle-particle collisions); outputs the particle state");
  accel_particles_type_init (&out, ACCEL_MEMORY_DEVICE, ACCEL_DIM_ANY);
  accel_stage_class_add_port (stage_class, ACCEL_PORT_OUTPUT, "out", &out,
      "the particle state after each step");
}

static void
accel_particles_init (AccelParticles *self)
{
  /* the index's cell while collide-radius is 0 (collisions off) */
  self->particle_radius = 0.01f;
}
