/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: core.memcpy, moves data between memory kinds and devices.
 * G_MESSAGES_DEBUG=accel-memcpy tells what each copy stage moves where */
#define G_LOG_DOMAIN "accel-memcpy"

#include "accel-private.h"

#include <string.h>

struct _AccelMemcpy
{
  AccelStage parent;

  AccelMemory memory;
};

G_DEFINE_FINAL_TYPE (AccelMemcpy, accel_memcpy, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_MEMORY,
};

static gboolean
accel_memcpy_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  out_types[0] = in_types[0];
  out_types[0].memory = ACCEL_MEMCPY (stage)->memory;
  g_debug ("'%s' copies %s memory to %s memory", accel_stage_get_name (stage),
      accel_memory_to_string (in_types[0].memory),
      accel_memory_to_string (out_types[0].memory));
  return TRUE;
}

static AccelFlow
accel_memcpy_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelBuffer *in = frame->inputs[0], *out = frame->outputs[0];
  AccelDevice *src, *dst;

  ACCEL_TRACE ("'%s' copies frame %" G_GUINT64_FORMAT ", %" G_GSIZE_FORMAT
               " bytes",
      accel_stage_get_name (stage), frame->sequence,
      accel_buffer_get_size (in));
  if (accel_stage_is_host (stage))
    {
      memcpy (accel_buffer_get_data (out), accel_buffer_get_data (in),
          accel_buffer_get_size (in));
      return ACCEL_FLOW_OK;
    }
  /* between two GPUs: peer to peer where preparing the graph enabled it,
   * else staged through host memory by the driver; the engine's waits
   * already order the copy after the writer on the other device, and the
   * writer's reuse of the buffer after the copy */
  src = accel_buffer_get_device (in);
  dst = accel_stage_get_device (stage);
  if (src != dst && !accel_device_is_host (src) && !accel_device_is_host (dst)
      && accel_buffer_peek_type (in)->memory == ACCEL_MEMORY_DEVICE
      && accel_buffer_peek_type (out)->memory == ACCEL_MEMORY_DEVICE)
    {
      if (!accel_cuda_check (
              cudaMemcpyPeerAsync (accel_buffer_get_data (out),
                  accel_device_get_index (dst), accel_buffer_get_data (in),
                  accel_device_get_index (src), accel_buffer_get_size (in),
                  accel_stream_get_cuda (frame->stream)),
              error))
        return ACCEL_FLOW_ERROR;
      return ACCEL_FLOW_OK;
    }
  /* unified addressing: the runtime knows where both pointers live */
  if (!accel_cuda_check (
          cudaMemcpyAsync (accel_buffer_get_data (out),
              accel_buffer_get_data (in), accel_buffer_get_size (in),
              cudaMemcpyDefault, accel_stream_get_cuda (frame->stream)),
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_memcpy_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_MEMORY:
      ACCEL_MEMCPY (object)->memory = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_memcpy_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_MEMORY:
      g_value_set_enum (value, ACCEL_MEMCPY (object)->memory);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_memcpy_class_init (AccelMemcpyClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  AccelType any;

  gobject_class->set_property = accel_memcpy_set_property;
  gobject_class->get_property = accel_memcpy_get_property;
  stage_class->negotiate = accel_memcpy_negotiate;
  stage_class->process = accel_memcpy_process;
  stage_class->can_capture = accel_stage_can_capture_always;

  g_object_class_install_property (gobject_class, PROP_MEMORY,
      g_param_spec_enum ("memory", "Memory", "Memory kind of the copy",
          ACCEL_TYPE_MEMORY, ACCEL_MEMORY_DEVICE,
          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS));

  accel_stage_class_set_metadata (stage_class, "core.memcpy",
      "Copy data to another memory kind or device (inserted by the graph "
      "where a link needs it)");
  accel_type_init_any (&any);
  accel_stage_class_add_port (
      stage_class, ACCEL_PORT_INPUT, "in", &any, "any data");
  accel_stage_class_add_port (stage_class, ACCEL_PORT_OUTPUT, "out", &any,
      "the same data in the memory kind asked for");
}

static void
accel_memcpy_init (AccelMemcpy *self)
{
}
