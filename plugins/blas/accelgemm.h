/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel blas plugin: blas.gemm */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_GEMM (accel_gemm_get_type ())
G_DECLARE_FINAL_TYPE (AccelGemm, accel_gemm, ACCEL, GEMM, AccelStage)

G_END_DECLS
