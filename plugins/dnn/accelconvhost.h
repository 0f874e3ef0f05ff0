/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel dnn plugin: the host implementation of the convolution, plain C
 * (not installed) */
#pragma once

#include "acceldnn-private.h"

G_BEGIN_DECLS

void accel_conv2d_host_f32 (const AccelConvShape *shape, const float *in,
    const float *weights, const float *bias, double alpha,
    AccelDnnActivation activation, float *out);

G_END_DECLS
