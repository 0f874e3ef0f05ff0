/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel dnn plugin: dnn.conv2d-bias, out = activation (alpha conv (in,
 * weights) + bias) */
#define G_LOG_DOMAIN "accel-dnn"

#include "accelconv2dbias.h"

struct _AccelConv2dBias
{
  AccelDnnConv parent;
};

G_DEFINE_FINAL_TYPE (AccelConv2dBias, accel_conv2d_bias, ACCEL_TYPE_DNN_CONV)

static void
accel_conv2d_bias_class_init (AccelConv2dBiasClass *klass)
{
  AccelDnnConvClass *conv_class = ACCEL_DNN_CONV_CLASS (klass);

  conv_class->has_bias = TRUE;
  accel_stage_class_set_metadata (ACCEL_STAGE_CLASS (klass), "dnn.conv2d-bias",
      "2D convolution (cross-correlation) of row-major NCHW tensors plus a "
      "bias per output channel, then an activation, out = activation (alpha "
      "conv (in, weights) + bias), through cuDNN (fused where cuDNN can); "
      "f32, or f16 accumulated in f32");
  accel_dnn_conv_class_add_ports (conv_class);
}

static void
accel_conv2d_bias_init (AccelConv2dBias *self)
{
}
