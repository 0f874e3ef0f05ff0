/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: io.gst-sink */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_GST_SINK (accel_gst_sink_get_type ())
G_DECLARE_FINAL_TYPE (AccelGstSink, accel_gst_sink, ACCEL, GST_SINK, AccelStage)

G_END_DECLS
