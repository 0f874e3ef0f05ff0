/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: nccl.recv (see accelrecv.h). A frame on the wire is
 * a flag and its data, so the receiver declares the type (shape and dtype)
 * and ends where the sender's stream ends (or after num-buffers) */
#define G_LOG_DOMAIN "accel-nccl"

#include "accelrecv.h"
#include "accelpair.h"

struct _AccelRecv
{
  AccelCollective parent;

  guint peer;
  gchar *shape;
  gchar *dtype;
  gint64 num_buffers;
};

G_DEFINE_FINAL_TYPE (AccelRecv, accel_recv, ACCEL_TYPE_COLLECTIVE)

enum
{
  PROP_0,
  PROP_PEER,
  PROP_SHAPE,
  PROP_DTYPE,
  PROP_NUM_BUFFERS,
};

static gboolean
accel_recv_members (AccelCollective *self, AccelWorld *world, guint *rank,
    guint *size, gchar **key, GError **error)
{
  return accel_pair_members (
      self, world, ACCEL_RECV (self)->peer, rank, size, key, error);
}

static gboolean
accel_recv_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelRecv *self = ACCEL_RECV (stage);
  AccelDType dtype = accel_dtype_from_string (self->dtype);

  accel_type_init_tensor (&out_types[0], dtype, ACCEL_MEMORY_DEVICE, 0, NULL);
  /* named as given: a word of no element type was "not any" */
  if (!accel_reduce_dtype_supported (dtype))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "stage '%s' (%s): dtype '%s' is not f32, f64, f16, bf16, i32, u32 "
          "or u8",
          accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
          self->dtype ? self->dtype : "");
      return FALSE;
    }
  if (!accel_collective_check_input (stage, &out_types[0], error))
    return FALSE;
  return accel_type_parse_dims (&out_types[0], self->shape, error);
}

/* num-buffers ends the stream before the frame past it takes a buffer */
static gboolean
accel_recv_has_frame (AccelStage *stage, guint64 sequence)
{
  AccelRecv *self = ACCEL_RECV (stage);

  return self->num_buffers < 0 || sequence < (guint64)self->num_buffers;
}

/* a frame keeps the number its sender gave it, so a frame the sender's
 * rank skipped leaves a gap rather than renumbering the rest */
static AccelFlow
accel_recv_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelRecv *self = ACCEL_RECV (stage);
  guint64 sequence = 0;
  gboolean ended;

  if (!accel_communicator_recv (
          accel_collective_get_communicator (ACCEL_COLLECTIVE (stage)), frame,
          frame->outputs[0],
          accel_pair_peer_index (accel_world_get_default (), self->peer),
          self->peer, &sequence, &ended, error))
    return ACCEL_FLOW_ERROR;
  if (ended)
    return ACCEL_FLOW_EOS;
  accel_buffer_set_sequence (frame->outputs[0], sequence);
  return ACCEL_FLOW_OK;
}

static void
accel_recv_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelRecv *self = ACCEL_RECV (object);

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;

  switch (prop_id)
    {
    case PROP_PEER:
      self->peer = g_value_get_uint (value);
      break;
    case PROP_SHAPE:
      g_free (self->shape);
      self->shape = g_value_dup_string (value);
      break;
    case PROP_DTYPE:
      g_free (self->dtype);
      self->dtype = g_value_dup_string (value);
      break;
    case PROP_NUM_BUFFERS:
      self->num_buffers = g_value_get_int64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_recv_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelRecv *self = ACCEL_RECV (object);

  switch (prop_id)
    {
    case PROP_PEER:
      g_value_set_uint (value, self->peer);
      break;
    case PROP_SHAPE:
      g_value_set_string (value, self->shape);
      break;
    case PROP_DTYPE:
      g_value_set_string (value, self->dtype);
      break;
    case PROP_NUM_BUFFERS:
      g_value_set_int64 (value, self->num_buffers);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_recv_finalize (GObject *object)
{
  AccelRecv *self = ACCEL_RECV (object);

  g_free (self->shape);
  g_free (self->dtype);
  G_OBJECT_CLASS (accel_recv_parent_class)->finalize (object);
}

static void
accel_recv_class_init (AccelRecvClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = accel_recv_set_property;
  gobject_class->get_property = accel_recv_get_property;
  gobject_class->finalize = accel_recv_finalize;
  stage_class->negotiate = accel_recv_negotiate;
  stage_class->process = accel_recv_process;
  stage_class->has_frame = accel_recv_has_frame;
  ACCEL_COLLECTIVE_CLASS (klass)->members = accel_recv_members;
  accel_pair_class_install_peer (
      gobject_class, PROP_PEER, "The rank whose nccl.send sends the frames");
  g_object_class_install_property (gobject_class, PROP_SHAPE,
      g_param_spec_string ("shape", "Shape",
          "Tensor dimensions of each frame, outermost first, as the sender's",
          "1024", flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_DTYPE,
      g_param_spec_string ("dtype", "Element type",
          "f32, f64, f16, bf16, i32, u32 or u8, as the sender's", "f32",
          flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_NUM_BUFFERS,
      g_param_spec_int64 ("num-buffers", "Number of buffers",
          "Frames to receive before end of stream (-1: until the sender's "
          "stream ends)",
          -1, G_MAXINT64, -1, flags));
  accel_stage_class_set_metadata (stage_class, "nccl.recv",
      "Frames another rank's nccl.send sends (the same group), of a type "
      "declared here, through NCCL on a GPU and Gloo on the host");
  accel_collective_class_add_ports (
      stage_class, FALSE, TRUE, "the frames received");
  /* the sender's frame limit is this stream's */
  accel_stage_class_set_remote_source (stage_class, TRUE);
}

static void
accel_recv_init (AccelRecv *self)
{
}
