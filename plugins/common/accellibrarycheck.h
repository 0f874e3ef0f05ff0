/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel plugins: the one checked path for CUDA library statuses, shared by
 * the library plugins (not installed) */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

gboolean accel_library_check_failed (AccelStage *stage, const char *log_domain,
    const char *library, int status, const char *status_name,
    const char *detail, const char *call, const char *file, int line,
    GError **error);

G_END_DECLS
