/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the particle system source */
#pragma once

#include "gstaccelsimsrc.h"

G_BEGIN_DECLS

#define GST_TYPE_ACCEL_PARTICLES (gst_accel_particles_get_type ())
G_DECLARE_FINAL_TYPE (GstAccelParticles, gst_accel_particles, GST,
    ACCEL_PARTICLES, GstAccelSimSrc)

GST_ELEMENT_REGISTER_DECLARE (accelparticles);

G_END_DECLS
