/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: nccl.send (see accelsend.h). It passes each frame on
 * as it sent it, so it is a transform, not a sink: a sink skips the frames
 * it committed before a crash, and the receiver, which resumes where the
 * world agreed, would wait for them */
#define G_LOG_DOMAIN "accel-nccl"

#include "accelsend.h"
#include "accelpair.h"

struct _AccelSend
{
  AccelCollective parent;

  guint peer;
};

G_DEFINE_FINAL_TYPE (AccelSend, accel_send, ACCEL_TYPE_COLLECTIVE)

enum
{
  PROP_0,
  PROP_PEER,
};

static gboolean
accel_send_members (AccelCollective *self, AccelWorld *world, guint *rank,
    guint *size, gchar **key, GError **error)
{
  return accel_pair_members (
      self, world, ACCEL_SEND (self)->peer, rank, size, key, error);
}

static AccelFlow
accel_send_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelBuffer *in = frame->inputs[0], *out = frame->outputs[0];
  AccelWorld *world = accel_world_get_default ();

  if (!accel_communicator_send (
          accel_collective_get_communicator (ACCEL_COLLECTIVE (stage)), frame,
          in, accel_pair_peer_index (world, ACCEL_SEND (stage)->peer), error))
    return ACCEL_FLOW_ERROR;
  if (!accel_communicator_copy (frame, in, out, error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

/* the receiver ends where this stream ends */
static gboolean
accel_send_eos (AccelStage *stage, GError **error)
{
  AccelCommunicator *comm
      = accel_collective_get_communicator (ACCEL_COLLECTIVE (stage));

  if (!ACCEL_STAGE_CLASS (accel_send_parent_class)->eos (stage, error))
    return FALSE;
  return !comm
         || accel_communicator_send_end (comm,
             accel_stage_is_host (stage) ? NULL
                                         : accel_stage_get_stream (stage),
             accel_pair_peer_index (
                 accel_world_get_default (), ACCEL_SEND (stage)->peer),
             error);
}

static void
accel_send_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;

  switch (prop_id)
    {
    case PROP_PEER:
      ACCEL_SEND (object)->peer = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_send_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_PEER:
      g_value_set_uint (value, ACCEL_SEND (object)->peer);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_send_class_init (AccelSendClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);

  gobject_class->set_property = accel_send_set_property;
  gobject_class->get_property = accel_send_get_property;
  stage_class->process = accel_send_process;
  stage_class->eos = accel_send_eos;
  ACCEL_COLLECTIVE_CLASS (klass)->members = accel_send_members;
  accel_pair_class_install_peer (
      gobject_class, PROP_PEER, "The rank whose nccl.recv gets the frames");
  accel_stage_class_set_metadata (stage_class, "nccl.send",
      "Each frame sent to another rank's nccl.recv (the same group), and "
      "passed on, through NCCL on a GPU and Gloo on the host");
  accel_collective_class_add_ports (
      stage_class, TRUE, TRUE, "the frame as it was sent");
}

static void
accel_send_init (AccelSend *self)
{
}
