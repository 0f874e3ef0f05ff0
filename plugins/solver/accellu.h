/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel solver plugin: solver.lu */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_LU (accel_lu_get_type ())
G_DECLARE_FINAL_TYPE (AccelLu, accel_lu, ACCEL, LU, AccelStage)

G_END_DECLS
