/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel core plugin: core.null-sink, takes buffers and drops them */
#define G_LOG_DOMAIN "accel-null-sink"

#include "accelnullsink.h"

struct _AccelNullSink
{
  AccelStage parent;
};

G_DEFINE_FINAL_TYPE (AccelNullSink, accel_null_sink, ACCEL_TYPE_STAGE)

/* nothing to do: the engine records this stage's read fence on release */
static AccelFlow
accel_null_sink_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  return ACCEL_FLOW_OK;
}

static void
accel_null_sink_class_init (AccelNullSinkClass *klass)
{
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  AccelType in;

  stage_class->process = accel_null_sink_process;

  stage_class->can_capture = accel_stage_can_capture_always;
  accel_stage_class_set_metadata (
      stage_class, "core.null-sink", "Drop every buffer (counts them)");
  accel_type_init_any (&in);
  accel_stage_class_add_port (
      stage_class, ACCEL_PORT_INPUT, "in", &in, "any data");
}

static void
accel_null_sink_init (AccelNullSink *self)
{
}
