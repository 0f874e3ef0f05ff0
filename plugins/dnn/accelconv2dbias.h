/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel dnn plugin: dnn.conv2d-bias */
#pragma once

#include "acceldnn-private.h"

G_BEGIN_DECLS

#define ACCEL_TYPE_CONV2D_BIAS (accel_conv2d_bias_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelConv2dBias, accel_conv2d_bias, ACCEL, CONV2D_BIAS, AccelDnnConv)

G_END_DECLS
