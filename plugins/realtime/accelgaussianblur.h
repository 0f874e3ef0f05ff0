/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.gaussian-blur */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_GAUSSIAN_BLUR (accel_gaussian_blur_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelGaussianBlur, accel_gaussian_blur, ACCEL, GAUSSIAN_BLUR, AccelStage)

G_END_DECLS
