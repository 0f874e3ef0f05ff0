/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: io.app-source */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_APP_SOURCE (accel_app_source_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelAppSource, accel_app_source, ACCEL, APP_SOURCE, AccelStage)

G_END_DECLS
