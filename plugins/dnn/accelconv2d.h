/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel dnn plugin: dnn.conv2d */
#pragma once

#include "acceldnn-private.h"

G_BEGIN_DECLS

#define ACCEL_TYPE_CONV2D (accel_conv2d_get_type ())
G_DECLARE_FINAL_TYPE (AccelConv2d, accel_conv2d, ACCEL, CONV2D, AccelDnnConv)

G_END_DECLS
