/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: nccl.all-gather, every rank's input, in rank
 * order, in every rank's output */
#pragma once

#include "accelcollective.h"

G_BEGIN_DECLS

#define ACCEL_TYPE_ALL_GATHER (accel_all_gather_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelAllGather, accel_all_gather, ACCEL, ALL_GATHER, AccelCollective)

G_END_DECLS
