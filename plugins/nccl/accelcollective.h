/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: what every collective stage shares: its communicator,
 * made when the stage starts among the ranks of the world and freed when
 * it stops, and the element types it takes */
#pragma once

#include <accel/accel.h>

#include "accelcommunicator.h"

G_BEGIN_DECLS

#define ACCEL_TYPE_COLLECTIVE (accel_collective_get_type ())
G_DECLARE_DERIVABLE_TYPE (
    AccelCollective, accel_collective, ACCEL, COLLECTIVE, AccelStage)

/**
 * AccelCollectiveClass:
 * @members: which ranks the communicator joins and this one's place among
 *   them, and its name in the store (default: every rank of the world,
 *   named by the `group` parameter). Stage thread, in start().
 */
struct _AccelCollectiveClass
{
  AccelStageClass parent_class;

  gboolean (*members) (AccelCollective *self, AccelWorld *world, guint *rank,
      guint *size, gchar **key, GError **error);
};

AccelCommunicator *accel_collective_get_communicator (AccelCollective *self);
const char *accel_collective_get_group (AccelCollective *self);
gboolean accel_collective_check_root (
    AccelStage *stage, guint root, GError **error);
gboolean accel_collective_check_input (
    AccelStage *stage, const AccelType *in, GError **error);
void accel_collective_class_add_ports (AccelStageClass *klass, gboolean input,
    gboolean output, const char *out_description);
void accel_collective_class_install_op (GObjectClass *klass, guint prop_id);

G_END_DECLS
