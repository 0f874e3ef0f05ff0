/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: the order of a communicator's frames. NCCL pairs the
 * ranks' operations by their order alone, so a frame that one rank skipped
 * or dropped before a collective would pair the others' frame with its
 * next one, silently: a collective's members exchange their first frame's
 * number, and a difference or a later gap fails as a lost communicator
 * (the world is rebuilt and resumes where its sinks stopped). A pair's frames
 * carry their number instead, and a receiver reports what never came */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

/**
 * AccelFrameOrder:
 * @next: the sequence the next frame should have
 * @started: whether a frame came yet
 *
 * Zeroed with the communicator, when its stage starts.
 */
typedef struct
{
  guint64 next;
  gboolean started;
} AccelFrameOrder;

gboolean accel_frame_order_started (AccelFrameOrder *order);
gboolean accel_frame_order_collective (AccelFrameOrder *order, const char *who,
    guint rank, guint64 sequence, guint64 first_low, guint64 first_high,
    GError **error);
gboolean accel_frame_order_mark_end (AccelFrameOrder *order, AccelStage *stage,
    AccelWorld *world, const char *key, guint member, GError **error);
gchar *accel_frame_order_peer_ended (AccelStage *stage, AccelWorld *world,
    const char *key, guint member, guint size, guint64 frame,
    gboolean while_ending);
void accel_frame_order_sent (AccelFrameOrder *order, guint64 sequence);
gboolean accel_frame_order_received (AccelFrameOrder *order, const char *who,
    guint peer, guint64 sequence, GError **error);
void accel_frame_order_wait_for_end (AccelStage *stage, AccelWorld *world,
    const char *key, guint member, guint timeout_ms);

G_END_DECLS
