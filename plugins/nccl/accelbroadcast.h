/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: nccl.broadcast, one rank's input (the root's) in
 * every rank's output */
#pragma once

#include "accelcollective.h"

G_BEGIN_DECLS

#define ACCEL_TYPE_BROADCAST (accel_broadcast_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelBroadcast, accel_broadcast, ACCEL, BROADCAST, AccelCollective)

G_END_DECLS
