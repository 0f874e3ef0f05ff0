/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel solver plugin: solver.eigh */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_EIGH (accel_eigh_get_type ())
G_DECLARE_FINAL_TYPE (AccelEigh, accel_eigh, ACCEL, EIGH, AccelStage)

G_END_DECLS
