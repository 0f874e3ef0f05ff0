/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.sobel */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_SOBEL (accel_sobel_get_type ())
G_DECLARE_FINAL_TYPE (AccelSobel, accel_sobel, ACCEL, SOBEL, AccelStage)

G_END_DECLS
