/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: io.png-sink */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_PNG_SINK (accel_png_sink_get_type ())
G_DECLARE_FINAL_TYPE (AccelPngSink, accel_png_sink, ACCEL, PNG_SINK, AccelStage)

G_END_DECLS
