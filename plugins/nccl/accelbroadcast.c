/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: nccl.broadcast (see accelbroadcast.h) */
#define G_LOG_DOMAIN "accel-nccl"

#include "accelbroadcast.h"

struct _AccelBroadcast
{
  AccelCollective parent;

  guint root;
};

G_DEFINE_FINAL_TYPE (AccelBroadcast, accel_broadcast, ACCEL_TYPE_COLLECTIVE)

enum
{
  PROP_0,
  PROP_ROOT,
};

/* a root outside the world would fail every frame on every rank */
static gboolean
accel_broadcast_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  return accel_collective_check_root (
             stage, ACCEL_BROADCAST (stage)->root, error)
         && ACCEL_STAGE_CLASS (accel_broadcast_parent_class)
                ->negotiate (stage, in_types, out_types, error);
}

static AccelFlow
accel_broadcast_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  if (!accel_communicator_broadcast (
          accel_collective_get_communicator (ACCEL_COLLECTIVE (stage)), frame,
          ACCEL_BROADCAST (stage)->root, error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_broadcast_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;

  switch (prop_id)
    {
    case PROP_ROOT:
      ACCEL_BROADCAST (object)->root = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_broadcast_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_ROOT:
      g_value_set_uint (value, ACCEL_BROADCAST (object)->root);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_broadcast_class_init (AccelBroadcastClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);

  gobject_class->set_property = accel_broadcast_set_property;
  gobject_class->get_property = accel_broadcast_get_property;
  stage_class->negotiate = accel_broadcast_negotiate;
  stage_class->process = accel_broadcast_process;
  g_object_class_install_property (gobject_class, PROP_ROOT,
      g_param_spec_uint ("root", "Root", "The rank whose input goes to all", 0,
          65535, 0,
          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS
              | ACCEL_PARAM_FIXED));
  accel_stage_class_set_metadata (stage_class, "nccl.broadcast",
      "The root rank's input in every rank's output (the other ranks' input "
      "paces them and is not read), through NCCL on a GPU and Gloo on the "
      "host");
  accel_collective_class_add_ports (
      stage_class, TRUE, TRUE, "the root's input, the input's type");
}

static void
accel_broadcast_init (AccelBroadcast *self)
{
}
