/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel dnn plugin: dnn.conv2d, out = activation (alpha conv (in,
 * weights)) */
#define G_LOG_DOMAIN "accel-dnn"

#include "accelconv2d.h"

struct _AccelConv2d
{
  AccelDnnConv parent;
};

G_DEFINE_FINAL_TYPE (AccelConv2d, accel_conv2d, ACCEL_TYPE_DNN_CONV)

static void
accel_conv2d_class_init (AccelConv2dClass *klass)
{
  AccelDnnConvClass *conv_class = ACCEL_DNN_CONV_CLASS (klass);

  conv_class->has_bias = FALSE;
  accel_stage_class_set_metadata (ACCEL_STAGE_CLASS (klass), "dnn.conv2d",
      "2D convolution (cross-correlation) of row-major NCHW tensors with "
      "padding, stride, dilation and groups, then an activation, out = "
      "activation (alpha conv (in, weights)), through cuDNN; f32, or f16 "
      "accumulated in f32");
  accel_dnn_conv_class_add_ports (conv_class);
}

static void
accel_conv2d_init (AccelConv2d *self)
{
}
