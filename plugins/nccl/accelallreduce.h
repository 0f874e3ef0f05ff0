/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: nccl.all-reduce, every rank's input reduced (sum,
 * prod, min, max, avg) into every rank's output */
#pragma once

#include "accelcollective.h"

G_BEGIN_DECLS

#define ACCEL_TYPE_ALL_REDUCE (accel_all_reduce_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelAllReduce, accel_all_reduce, ACCEL, ALL_REDUCE, AccelCollective)

G_END_DECLS
