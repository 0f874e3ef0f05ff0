/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the upload element, system memory to CUDA memory */
#pragma once

#include "gstaccelfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_ACCEL_UPLOAD (gst_accel_upload_get_type ())
G_DECLARE_FINAL_TYPE (
    GstAccelUpload, gst_accel_upload, GST, ACCEL_UPLOAD, GstAccelFilter)

GST_ELEMENT_REGISTER_DECLARE (accelupload);

G_END_DECLS
