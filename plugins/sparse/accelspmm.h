/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel sparse plugin: sparse.spmm */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_SPMM (accel_spmm_get_type ())
G_DECLARE_FINAL_TYPE (AccelSpmm, accel_spmm, ACCEL, SPMM, AccelStage)

G_END_DECLS
