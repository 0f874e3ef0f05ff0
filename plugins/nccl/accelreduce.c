/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: nccl.reduce (see accelreduce.h) */
#define G_LOG_DOMAIN "accel-nccl"

#include "accelreduce.h"

struct _AccelReduce
{
  AccelCollective parent;

  AccelReduceOp op;
  guint root;
};

G_DEFINE_FINAL_TYPE (AccelReduce, accel_reduce, ACCEL_TYPE_COLLECTIVE)

enum
{
  PROP_0,
  PROP_OP,
  PROP_ROOT,
};

/* a root outside the world would fail every frame on every rank */
static gboolean
accel_reduce_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  return accel_collective_check_root (stage, ACCEL_REDUCE (stage)->root, error)
         && ACCEL_STAGE_CLASS (accel_reduce_parent_class)
                ->negotiate (stage, in_types, out_types, error);
}

static AccelFlow
accel_reduce_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelReduce *self = ACCEL_REDUCE (stage);

  if (!accel_communicator_reduce (
          accel_collective_get_communicator (ACCEL_COLLECTIVE (self)), frame,
          accel_stage_get_input_type (stage, 0)->dtype, self->op, self->root,
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_reduce_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelReduce *self = ACCEL_REDUCE (object);

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;

  switch (prop_id)
    {
    case PROP_OP:
      self->op = g_value_get_enum (value);
      break;
    case PROP_ROOT:
      self->root = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_reduce_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelReduce *self = ACCEL_REDUCE (object);

  switch (prop_id)
    {
    case PROP_OP:
      g_value_set_enum (value, self->op);
      break;
    case PROP_ROOT:
      g_value_set_uint (value, self->root);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_reduce_class_init (AccelReduceClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);

  gobject_class->set_property = accel_reduce_set_property;
  gobject_class->get_property = accel_reduce_get_property;
  stage_class->negotiate = accel_reduce_negotiate;
  stage_class->process = accel_reduce_process;

  accel_collective_class_install_op (gobject_class, PROP_OP);
  g_object_class_install_property (gobject_class, PROP_ROOT,
      g_param_spec_uint ("root", "Root", "The rank that gets the reduction", 0,
          65535, 0,
          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS
              | ACCEL_PARAM_FIXED));

  accel_stage_class_set_metadata (stage_class, "nccl.reduce",
      "Every rank's input reduced element by element (sum, prod, min, max, "
      "avg) into the root's output (the other ranks' output is their "
      "input), through NCCL on a GPU and Gloo on the host");
  accel_collective_class_add_ports (stage_class, TRUE, TRUE,
      "on the root the reduction, elsewhere the input; the input's type");
}

static void
accel_reduce_init (AccelReduce *self)
{
}
