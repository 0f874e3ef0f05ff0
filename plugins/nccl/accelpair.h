/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: the communicator of two ranks that nccl.send and
 * nccl.recv share */
#pragma once

#include "accelcollective.h"

G_BEGIN_DECLS

gboolean accel_pair_members (AccelCollective *self, AccelWorld *world,
    guint peer, guint *rank, guint *size, gchar **key, GError **error);
guint accel_pair_peer_index (AccelWorld *world, guint peer);
void accel_pair_class_install_peer (
    GObjectClass *klass, guint prop_id, const char *blurb);

G_END_DECLS
