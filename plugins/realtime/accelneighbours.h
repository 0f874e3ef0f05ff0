/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.neighbours, a neighbour count per
 * particle */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_NEIGHBOURS (accel_neighbours_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelNeighbours, accel_neighbours, ACCEL, NEIGHBOURS, AccelStage)

G_END_DECLS
