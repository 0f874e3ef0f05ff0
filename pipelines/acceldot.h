/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel-run: a graph drawn by graphviz's dot (acceldot.c) */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

GBytes *accel_dot_render (
    const char *dot, const char *format, guint timeout_ms, GError **error);

G_END_DECLS
