/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: nccl.all-reduce (see accelallreduce.h) */
#define G_LOG_DOMAIN "accel-nccl"

#include "accelallreduce.h"

struct _AccelAllReduce
{
  AccelCollective parent;

  AccelReduceOp op;
};

G_DEFINE_FINAL_TYPE (AccelAllReduce, accel_all_reduce, ACCEL_TYPE_COLLECTIVE)

enum
{
  PROP_0,
  PROP_OP,
};

static AccelFlow
accel_all_reduce_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelAllReduce *self = ACCEL_ALL_REDUCE (stage);

  if (!accel_communicator_all_reduce (
          accel_collective_get_communicator (ACCEL_COLLECTIVE (self)), frame,
          accel_stage_get_input_type (stage, 0)->dtype, self->op, error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_all_reduce_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelAllReduce *self = ACCEL_ALL_REDUCE (object);

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
accel_all_reduce_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelAllReduce *self = ACCEL_ALL_REDUCE (object);

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
accel_all_reduce_class_init (AccelAllReduceClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);

  gobject_class->set_property = accel_all_reduce_set_property;
  gobject_class->get_property = accel_all_reduce_get_property;
  stage_class->process = accel_all_reduce_process;

  accel_collective_class_install_op (gobject_class, PROP_OP);

  accel_stage_class_set_metadata (stage_class, "nccl.all-reduce",
      "Every rank's input reduced element by element (sum, prod, min, max, "
      "avg) into every rank's output, through NCCL on a GPU and Gloo on the "
      "host");
  accel_collective_class_add_ports (
      stage_class, TRUE, TRUE, "the reduction, the input's type");
}

static void
accel_all_reduce_init (AccelAllReduce *self)
{
}
