/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.neighbours, for each particle of a state
 * the number of other particles within a radius, through the spatial index
 * (accel/accelspatial.h): a tensor of capacity u32 words, 0 past the alive
 * count, written without a host sync. */
#define G_LOG_DOMAIN "accel-neighbours"

#include "accelneighbours.h"
#include "accelparticles.h"
#include "accelrealtime-private.h"
#include "particles/particles.h"

#include <accel/accelspatial.h>

/* the particles' box; a particle outside it still counts (in a border cell) */
#define BOX_LO (-1.0f)
#define BOX_HI 1.0f
/* at most this many cells along an axis, so a small radius keeps the index
 * small (its queries then scan more points per cell, the counts are the
 * same) */
#define MAX_CELLS_PER_AXIS 64

struct _AccelNeighbours
{
  AccelStage parent;

  gfloat radius;

  /* stage thread only, between start() and stop() */
  guint capacity;
  AccelSpatialGrid grid; /* laid out for the radius at start */
  AccelBuffer *index;    /* accel_spatial_index_size () bytes */
  AccelSpatialIndex ix;
};

G_DEFINE_FINAL_TYPE (AccelNeighbours, accel_neighbours, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_RADIUS,
};

static gboolean
accel_neighbours_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  const AccelType *in = &in_types[0];
  gint64 dims[1];

  if (!accel_particles_check_state (stage, in, error))
    return FALSE;
  dims[0] = in->dims[1];
  accel_type_init_tensor (
      &out_types[0], ACCEL_DTYPE_U32, ACCEL_MEMORY_DEVICE, 1, dims);
  return TRUE;
}

static gboolean
accel_neighbours_start (AccelStage *stage, GError **error)
{
  AccelNeighbours *self = ACCEL_NEIGHBOURS (stage);
  static const float lo[3] = { BOX_LO, BOX_LO, BOX_LO },
                     hi[3] = { BOX_HI, BOX_HI, BOX_HI };
  float cell = MAX (self->radius, (BOX_HI - BOX_LO) / MAX_CELLS_PER_AXIS);
  AccelType bytes;

  self->capacity = (guint)accel_stage_get_input_type (stage, 0)->dims[1];
  accel_spatial_grid_init (&self->grid, lo, hi, cell);
  accel_type_init_bytes (&bytes, ACCEL_MEMORY_DEVICE,
      (gint64)accel_spatial_index_size (&self->grid, self->capacity));
  self->index
      = accel_buffer_new (accel_stage_get_device (stage), &bytes, error);
  if (!self->index)
    return FALSE;
  accel_spatial_index_init (&self->ix, accel_buffer_get_data (self->index),
      &self->grid, self->capacity);
  return TRUE;
}

static void
accel_neighbours_stop (AccelStage *stage)
{
  g_clear_pointer (&ACCEL_NEIGHBOURS (stage)->index, accel_buffer_unref);
}

static AccelFlow
accel_neighbours_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelNeighbours *self = ACCEL_NEIGHBOURS (stage);
  AccelParticleState s;
  guint32 *counts = accel_buffer_get_data (frame->outputs[0]);
  gpointer stream;

  accel_particle_state_init (
      &s, accel_buffer_get_data (frame->inputs[0]), self->capacity);
  if (accel_stage_is_host (stage))
    {
      accel_spatial_build_host (
          &self->grid, s.px, s.py, s.pz, self->capacity, s.count, &self->ix);
      accel_spatial_count_indexed_neighbours_host (&self->grid, &self->ix, s.px,
          s.py, s.pz, self->capacity, s.count, self->radius, counts);
      return ACCEL_FLOW_OK;
    }
  stream = accel_stream_get_handle (frame->stream);
  if (!accel_cuda_check (accel_spatial_build (stream, &self->grid, s.px, s.py,
                             s.pz, self->capacity, s.count, &self->ix),
          error)
      || !accel_cuda_check (accel_spatial_count_indexed_neighbours (stream,
                                &self->grid, &self->ix, s.px, s.py, s.pz,
                                self->capacity, s.count, self->radius, counts),
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_neighbours_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelNeighbours *self = ACCEL_NEIGHBOURS (object);

  switch (prop_id)
    {
    case PROP_RADIUS:
      self->radius = g_value_get_float (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_neighbours_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelNeighbours *self = ACCEL_NEIGHBOURS (object);

  switch (prop_id)
    {
    case PROP_RADIUS:
      g_value_set_float (value, self->radius);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_neighbours_class_init (AccelNeighboursClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;
  AccelType in, out;
  gint64 any = ACCEL_DIM_ANY;

  gobject_class->set_property = accel_neighbours_set_property;
  gobject_class->get_property = accel_neighbours_get_property;
  stage_class->negotiate = accel_neighbours_negotiate;
  stage_class->start = accel_neighbours_start;
  stage_class->stop = accel_neighbours_stop;
  stage_class->process = accel_neighbours_process;
  /* its launches read the particle count on the GPU: the same every frame */
  stage_class->can_capture = accel_stage_can_capture_always;

  g_object_class_install_property (gobject_class, PROP_RADIUS,
      g_param_spec_float ("radius", "Radius",
          "Distance within which another particle counts as a neighbour "
          "(world units; the index is laid out for the radius at start, a "
          "radius changed while running is still exact)",
          0.0f, 2.0f, 0.05f, flags));

  accel_stage_class_set_metadata (stage_class, "realtime.neighbours",
      "For each particle, the number of other particles within a radius, "
      "through the spatial index");
  accel_particles_type_init (&in, ACCEL_MEMORY_DEVICE, ACCEL_DIM_ANY);
  accel_stage_class_add_port (stage_class, ACCEL_PORT_INPUT, "in", &in,
      "a particle state (realtime.particles)");
  accel_type_init_tensor (&out, ACCEL_DTYPE_U32, ACCEL_MEMORY_DEVICE, 1, &any);
  accel_stage_class_add_port (stage_class, ACCEL_PORT_OUTPUT, "out", &out,
      "capacity u32 counts, particle i's at i; 0 past the alive count");
}

static void
accel_neighbours_init (AccelNeighbours *self)
{
}
