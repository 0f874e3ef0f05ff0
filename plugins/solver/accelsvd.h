/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel solver plugin: solver.svd */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_SVD (accel_svd_get_type ())
G_DECLARE_FINAL_TYPE (AccelSvd, accel_svd, ACCEL, SVD, AccelStage)

G_END_DECLS
