/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel rand plugin: rand.uniform */
#pragma once

#include "accelrand-private.h"

G_BEGIN_DECLS

#define ACCEL_TYPE_RAND_UNIFORM (accel_rand_uniform_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelRandUniform, accel_rand_uniform, ACCEL, RAND_UNIFORM, AccelRand)

G_END_DECLS
