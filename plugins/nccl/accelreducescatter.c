/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: nccl.reduce-scatter (see accelreducescatter.h) */
#define G_LOG_DOMAIN "accel-nccl"

#include "accelreducescatter.h"

struct _AccelReduceScatter
{
  AccelCollective parent;

  AccelReduceOp op;
};

G_DEFINE_FINAL_TYPE (
    AccelReduceScatter, accel_reduce_scatter, ACCEL_TYPE_COLLECTIVE)

enum
{
  PROP_0,
  PROP_OP,
};

static gboolean
accel_reduce_scatter_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelWorld *world = accel_world_get_default ();
  guint size = world ? accel_world_get_size (world) : 1;

  if (!accel_collective_check_input (stage, &in_types[0], error))
    return FALSE;
  if (in_types[0].kind != ACCEL_KIND_TENSOR || in_types[0].n_dims < 1
      || in_types[0].dims[0] % size != 0)
    {
      g_autofree gchar *text = accel_type_to_string (&in_types[0]);
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH,
          "stage '%s' (nccl.reduce-scatter) takes a tensor whose outermost "
          "dimension the world's %u ranks divide, not %s",
          accel_stage_get_name (stage), size, text);
      return FALSE;
    }
  out_types[0] = in_types[0];
  out_types[0].dims[0] /= size;
  out_types[0].memory = ACCEL_MEMORY_DEVICE;
  return TRUE;
}

static AccelFlow
accel_reduce_scatter_process (
    AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelReduceScatter *self = ACCEL_REDUCE_SCATTER (stage);

  if (!accel_communicator_reduce_scatter (
          accel_collective_get_communicator (ACCEL_COLLECTIVE (self)), frame,
          accel_stage_get_input_type (stage, 0)->dtype, self->op, error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_reduce_scatter_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelReduceScatter *self = ACCEL_REDUCE_SCATTER (object);

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;

  switch (prop_id)
    {
    case PROP_OP:
      self->op = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_reduce_scatter_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelReduceScatter *self = ACCEL_REDUCE_SCATTER (object);

  switch (prop_id)
    {
    case PROP_OP:
      g_value_set_enum (value, self->op);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_reduce_scatter_class_init (AccelReduceScatterClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);

  gobject_class->set_property = accel_reduce_scatter_set_property;
  gobject_class->get_property = accel_reduce_scatter_get_property;
  stage_class->negotiate = accel_reduce_scatter_negotiate;
  stage_class->process = accel_reduce_scatter_process;

  accel_collective_class_install_op (gobject_class, PROP_OP);

  accel_stage_class_set_metadata (stage_class, "nccl.reduce-scatter",
      "Every rank's input reduced element by element (sum, prod, min, max, "
      "avg), and part r of the result along the outermost dimension in rank "
      "r's output, through NCCL on a GPU and Gloo on the host");
  accel_collective_class_add_ports (stage_class, TRUE, TRUE,
      "this rank's part: the outermost dimension divided by the world's "
      "size");
}

static void
accel_reduce_scatter_init (AccelReduceScatter *self)
{
}
