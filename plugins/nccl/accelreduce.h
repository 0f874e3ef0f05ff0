/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: nccl.reduce, every rank's input reduced (sum, prod,
 * min, max, avg) into the output of one rank, the root */
#pragma once

#include "accelcollective.h"

G_BEGIN_DECLS

#define ACCEL_TYPE_REDUCE (accel_reduce_get_type ())
G_DECLARE_FINAL_TYPE (AccelReduce, accel_reduce, ACCEL, REDUCE, AccelCollective)

G_END_DECLS
