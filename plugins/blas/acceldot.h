/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel blas plugin: blas.dot */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_DOT (accel_dot_get_type ())
G_DECLARE_FINAL_TYPE (AccelDot, accel_dot, ACCEL, DOT, AccelStage)

G_END_DECLS
