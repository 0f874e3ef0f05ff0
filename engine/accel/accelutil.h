/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: small utilities shared by the engine and its front ends */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

guint accel_str_edit_distance (const char *a, const char *b);
gint64 accel_deadline_after (gint64 timeout_us);

G_END_DECLS
