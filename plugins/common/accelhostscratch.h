/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel plugins: host memory a stage's host path computes in, allocated so
 * that a size the machine cannot hold fails the stage's start with an
 * error rather than aborting the process (not installed) */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

gpointer accel_host_scratch_new (
    AccelStage *stage, gsize n, gsize size, GError **error);

G_END_DECLS
