/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: nccl.all-gather (see accelallgather.h) */
#define G_LOG_DOMAIN "accel-nccl"

#include "accelallgather.h"

struct _AccelAllGather
{
  AccelCollective parent;
};

G_DEFINE_FINAL_TYPE (AccelAllGather, accel_all_gather, ACCEL_TYPE_COLLECTIVE)

/* a tensor gains an outermost dimension, the rank; other data becomes a
 * tensor of its bytes, one row per rank */
static gboolean
accel_all_gather_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelWorld *world = accel_world_get_default ();
  gint64 size = world ? accel_world_get_size (world) : 1;
  const AccelType *in = &in_types[0];

  if (!accel_collective_check_input (stage, in, error))
    return FALSE;
  if (in->kind == ACCEL_KIND_TENSOR && in->n_dims < ACCEL_TYPE_MAX_DIMS)
    {
      gint64 dims[ACCEL_TYPE_MAX_DIMS];
      dims[0] = size;
      memcpy (dims + 1, in->dims, in->n_dims * sizeof (gint64));
      accel_type_init_tensor (
          &out_types[0], in->dtype, ACCEL_MEMORY_DEVICE, in->n_dims + 1, dims);
      return TRUE;
    }
  {
    /* an image's elements are its bytes' (its pixels hold several) */
    gint64 dims[2] = { size,
      (gint64)(accel_type_get_size (in) / accel_dtype_get_size (in->dtype)) };
    accel_type_init_tensor (
        &out_types[0], in->dtype, ACCEL_MEMORY_DEVICE, 2, dims);
  }
  return TRUE;
}

static AccelFlow
accel_all_gather_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  if (!accel_communicator_all_gather (
          accel_collective_get_communicator (ACCEL_COLLECTIVE (stage)), frame,
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_all_gather_class_init (AccelAllGatherClass *klass)
{
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);

  stage_class->negotiate = accel_all_gather_negotiate;
  stage_class->process = accel_all_gather_process;
  accel_stage_class_set_metadata (stage_class, "nccl.all-gather",
      "Every rank's input, in rank order, in every rank's output (a tensor "
      "with the rank as its outermost dimension), through NCCL on a GPU and "
      "Gloo on the host");
  accel_collective_class_add_ports (stage_class, TRUE, TRUE,
      "tensor [world, input dims...] of the input's dtype");
}

static void
accel_all_gather_init (AccelAllGather *self)
{
}
