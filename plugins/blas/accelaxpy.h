/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel blas plugin: blas.axpy */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_AXPY (accel_axpy_get_type ())
G_DECLARE_FINAL_TYPE (AccelAxpy, accel_axpy, ACCEL, AXPY, AccelStage)

G_END_DECLS
