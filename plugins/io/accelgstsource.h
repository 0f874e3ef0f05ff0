/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: io.gst-source */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_GST_SOURCE (accel_gst_source_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelGstSource, accel_gst_source, ACCEL, GST_SOURCE, AccelStage)

G_END_DECLS
