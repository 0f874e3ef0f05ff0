/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: nccl.reduce-scatter, every rank's input
 * reduced, and part r of the result in rank r's output */
#pragma once

#include "accelcollective.h"

G_BEGIN_DECLS

#define ACCEL_TYPE_REDUCE_SCATTER (accel_reduce_scatter_get_type ())
G_DECLARE_FINAL_TYPE (AccelReduceScatter, accel_reduce_scatter, ACCEL,
    REDUCE_SCATTER, AccelCollective)

G_END_DECLS
