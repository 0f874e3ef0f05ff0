/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.convert */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_CONVERT (accel_convert_get_type ())
G_DECLARE_FINAL_TYPE (AccelConvert, accel_convert, ACCEL, CONVERT, AccelStage)

G_END_DECLS
