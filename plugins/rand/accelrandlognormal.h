/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel rand plugin: rand.log-normal */
#pragma once

#include "accelrand-private.h"

G_BEGIN_DECLS

#define ACCEL_TYPE_RAND_LOG_NORMAL (accel_rand_log_normal_get_type ())
G_DECLARE_FINAL_TYPE (AccelRandLogNormal, accel_rand_log_normal, ACCEL,
    RAND_LOG_NORMAL, AccelRand)

G_END_DECLS
