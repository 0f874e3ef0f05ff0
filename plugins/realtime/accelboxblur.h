/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.box-blur */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_BOX_BLUR (accel_box_blur_get_type ())
G_DECLARE_FINAL_TYPE (AccelBoxBlur, accel_box_blur, ACCEL, BOX_BLUR, AccelStage)

G_END_DECLS
