/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: realtime.particles, a particle system */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_PARTICLES (accel_particles_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelParticles, accel_particles, ACCEL, PARTICLES, AccelStage)

void accel_particles_type_init (
    AccelType *type, AccelMemory memory, gint64 capacity);
gboolean accel_particles_check_state (
    AccelStage *stage, const AccelType *in, GError **error);

G_END_DECLS
