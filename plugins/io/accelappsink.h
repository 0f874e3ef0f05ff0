/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: io.app-sink */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_APP_SINK (accel_app_sink_get_type ())
G_DECLARE_FINAL_TYPE (AccelAppSink, accel_app_sink, ACCEL, APP_SINK, AccelStage)

G_END_DECLS
