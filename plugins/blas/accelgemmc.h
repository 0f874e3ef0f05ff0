/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel blas plugin: blas.gemm-c */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_GEMM_C (accel_gemm_c_get_type ())
G_DECLARE_FINAL_TYPE (AccelGemmC, accel_gemm_c, ACCEL, GEMM_C, AccelStage)

G_END_DECLS
