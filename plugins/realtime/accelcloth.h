/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.cloth, a cloth by position-based
 * dynamics */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_CLOTH (accel_cloth_get_type ())
G_DECLARE_FINAL_TYPE (AccelCloth, accel_cloth, ACCEL, CLOTH, AccelStage)

G_END_DECLS
