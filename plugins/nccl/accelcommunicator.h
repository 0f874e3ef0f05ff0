/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: a communicator among ranks of the world: NCCL on the
 * stage's stream on a GPU, Gloo over TCP on the host backend; one per
 * collective stage, made when the stage starts from keys of the world's
 * store, so a rebuilt world (a new generation) makes new ones */
#pragma once

#include <accel/accel.h>

#include "accelreducehost.h"

G_BEGIN_DECLS

typedef struct _AccelCommunicator AccelCommunicator;

AccelCommunicator *accel_communicator_new (AccelStage *stage, AccelWorld *world,
    const char *key, guint rank, guint size, GError **error);
void accel_communicator_abandon (AccelCommunicator *comm);
void accel_communicator_free (AccelCommunicator *comm);
guint accel_communicator_get_size (AccelCommunicator *comm);
guint accel_communicator_get_rank (AccelCommunicator *comm);

gboolean accel_communicator_end (AccelCommunicator *comm, GError **error);
gboolean accel_communicator_copy (
    AccelFrame *frame, AccelBuffer *in, AccelBuffer *out, GError **error);
gboolean accel_communicator_all_reduce (AccelCommunicator *comm,
    AccelFrame *frame, AccelDType dtype, AccelReduceOp op, GError **error);
gboolean accel_communicator_reduce (AccelCommunicator *comm, AccelFrame *frame,
    AccelDType dtype, AccelReduceOp op, guint root, GError **error);
gboolean accel_communicator_reduce_scatter (AccelCommunicator *comm,
    AccelFrame *frame, AccelDType dtype, AccelReduceOp op, GError **error);
gboolean accel_communicator_all_gather (
    AccelCommunicator *comm, AccelFrame *frame, GError **error);
gboolean accel_communicator_broadcast (
    AccelCommunicator *comm, AccelFrame *frame, guint root, GError **error);
gboolean accel_communicator_send (AccelCommunicator *comm, AccelFrame *frame,
    AccelBuffer *buffer, guint peer, GError **error);
gboolean accel_communicator_send_end (
    AccelCommunicator *comm, AccelStream *stream, guint peer, GError **error);
gboolean accel_communicator_recv (AccelCommunicator *comm, AccelFrame *frame,
    AccelBuffer *buffer, guint peer, guint peer_rank, guint64 *sequence,
    gboolean *ended, GError **error);

G_END_DECLS
