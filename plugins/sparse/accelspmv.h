/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel sparse plugin: sparse.spmv */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_SPMV (accel_spmv_get_type ())
G_DECLARE_FINAL_TYPE (AccelSpmv, accel_spmv, ACCEL, SPMV, AccelStage)

G_END_DECLS
