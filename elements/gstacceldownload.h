/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the download element, system memory from CUDA memory */
#pragma once

#include "gstaccelfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_ACCEL_DOWNLOAD (gst_accel_download_get_type ())
G_DECLARE_FINAL_TYPE (
    GstAccelDownload, gst_accel_download, GST, ACCEL_DOWNLOAD, GstAccelFilter)

GST_ELEMENT_REGISTER_DECLARE (acceldownload);

G_END_DECLS
