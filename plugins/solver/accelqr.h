/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel solver plugin: solver.qr */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_QR (accel_qr_get_type ())
G_DECLARE_FINAL_TYPE (AccelQr, accel_qr, ACCEL, QR, AccelStage)

G_END_DECLS
