/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: nccl.send, each frame sent to another rank (its
 * nccl.recv), for pipelines split across ranks */
#pragma once

#include "accelcollective.h"

G_BEGIN_DECLS

#define ACCEL_TYPE_SEND (accel_send_get_type ())
G_DECLARE_FINAL_TYPE (AccelSend, accel_send, ACCEL, SEND, AccelCollective)

G_END_DECLS
