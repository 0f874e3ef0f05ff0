/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel blaslt plugin: blaslt.matmul-bias */
#pragma once

#include "accelblaslt-private.h"

G_BEGIN_DECLS

#define ACCEL_TYPE_MATMUL_BIAS (accel_matmul_bias_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelMatmulBias, accel_matmul_bias, ACCEL, MATMUL_BIAS, AccelLtMatmul)

G_END_DECLS
