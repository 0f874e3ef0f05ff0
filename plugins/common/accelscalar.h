/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel plugins: a library stage's scalar parameters (alpha, beta) as its
 * product takes them, checked alike on the host and the GPU (not
 * installed) */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

gboolean accel_scalar_check (AccelStage *stage, const char *name, double value,
    AccelDType dtype, gboolean running, GError **error);

G_END_DECLS
