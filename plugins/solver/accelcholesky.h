/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel solver plugin: solver.cholesky */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_CHOLESKY (accel_cholesky_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelCholesky, accel_cholesky, ACCEL, CHOLESKY, AccelStage)

G_END_DECLS
