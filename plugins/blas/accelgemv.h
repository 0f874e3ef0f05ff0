/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel blas plugin: blas.gemv */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_GEMV (accel_gemv_get_type ())
G_DECLARE_FINAL_TYPE (AccelGemv, accel_gemv, ACCEL, GEMV, AccelStage)

G_END_DECLS
