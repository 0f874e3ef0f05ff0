/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: what a communicator takes from the world's store: an
 * NCCL unique id, and Gloo's rendezvous (for the stages and for a direct
 * loop that measures them) */
#pragma once

#include <accel/accel.h>
#include <nccl.h>

#include "accelgloo.h"

G_BEGIN_DECLS

gboolean accel_world_comm_nccl_id (AccelWorld *world, const char *key,
    gboolean make, ncclUniqueId *id, GError **error);
AccelGloo *accel_world_comm_gloo (
    AccelWorld *world, const char *key, guint rank, guint size, char **message);

G_END_DECLS
