/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel rand plugin: rand.normal */
#pragma once

#include "accelrand-private.h"

G_BEGIN_DECLS

#define ACCEL_TYPE_RAND_NORMAL (accel_rand_normal_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelRandNormal, accel_rand_normal, ACCEL, RAND_NORMAL, AccelRand)

G_END_DECLS
