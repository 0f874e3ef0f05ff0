/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.resize */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_RESIZE (accel_resize_get_type ())
G_DECLARE_FINAL_TYPE (AccelResize, accel_resize, ACCEL, RESIZE, AccelStage)

G_END_DECLS
