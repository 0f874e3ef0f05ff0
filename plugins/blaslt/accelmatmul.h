/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel blaslt plugin: blaslt.matmul */
#pragma once

#include "accelblaslt-private.h"

G_BEGIN_DECLS

#define ACCEL_TYPE_MATMUL (accel_matmul_get_type ())
G_DECLARE_FINAL_TYPE (AccelMatmul, accel_matmul, ACCEL, MATMUL, AccelLtMatmul)

G_END_DECLS
