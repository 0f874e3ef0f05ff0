/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.unsharp */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_UNSHARP (accel_unsharp_get_type ())
G_DECLARE_FINAL_TYPE (AccelUnsharp, accel_unsharp, ACCEL, UNSHARP, AccelStage)

G_END_DECLS
