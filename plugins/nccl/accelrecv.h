/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: nccl.recv, a source of the frames another rank's
 * nccl.send sends */
#pragma once

#include "accelcollective.h"

G_BEGIN_DECLS

#define ACCEL_TYPE_RECV (accel_recv_get_type ())
G_DECLARE_FINAL_TYPE (AccelRecv, accel_recv, ACCEL, RECV, AccelCollective)

G_END_DECLS
