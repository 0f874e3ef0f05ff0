/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nvrtc plugin: compiling CUDA C++ to a CUBIN through NVRTC, with an
 * on-disk cache (not installed; the tests use it on the host) */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

gchar *accel_nvrtc_cache_get_dir (void);
gchar *accel_nvrtc_cache_key (
    const char *source, const char *options, const char *arch);

GBytes *accel_nvrtc_compile (const char *source, const char *name,
    const char *options, const char *arch, gchar **log, GError **error);
GBytes *accel_nvrtc_compile_full (const char *source, const char *name,
    const char *options, const char *arch, const char *cache_dir,
    gboolean *cache_hit, gchar **log, GError **error);

gboolean accel_nvrtc_split_options (
    const char *options, gchar ***argv, GError **error);

gchar *accel_nvrtc_quote_log (
    const char *log, const char *name, const char *source);

G_END_DECLS
