/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel dnn plugin: the convolution base class and what its stages share
 * (not installed) */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

/**
 * AccelDnnActivation:
 * @ACCEL_DNN_ACTIVATION_NONE: the identity
 * @ACCEL_DNN_ACTIVATION_RELU: max (0, x)
 * @ACCEL_DNN_ACTIVATION_SIGMOID: 1 / (1 + exp (-x))
 * @ACCEL_DNN_ACTIVATION_TANH: tanh (x)
 * @ACCEL_DNN_ACTIVATION_ELU: x for x > 0, exp (x) - 1 otherwise
 *
 * What is applied to each element of the convolution (plus bias) before it
 * is stored.
 */
typedef enum
{
  ACCEL_DNN_ACTIVATION_NONE,
  ACCEL_DNN_ACTIVATION_RELU,
  ACCEL_DNN_ACTIVATION_SIGMOID,
  ACCEL_DNN_ACTIVATION_TANH,
  ACCEL_DNN_ACTIVATION_ELU,
} AccelDnnActivation;

#define ACCEL_TYPE_DNN_ACTIVATION (accel_dnn_activation_get_type ())
GType accel_dnn_activation_get_type (void);

/**
 * AccelConvShape:
 * @dtype: of every input and of the output: f32 or f16
 * @n: images per buffer
 * @c: input channels
 * @h: input rows
 * @w: input columns
 * @k: output channels (filters)
 * @r: filter rows
 * @s: filter columns
 * @p: output rows
 * @q: output columns
 * @groups: channel groups: each filter sees @c / @groups input channels
 * @pad_h: zero rows added above and below
 * @pad_w: zero columns added left and right
 * @stride_h: rows between two output rows' windows
 * @stride_w: columns between two output columns' windows
 * @dilation_h: rows between two filter taps
 * @dilation_w: columns between two filter taps
 *
 * A 2D convolution (cross-correlation, as in deep learning) of row-major
 * NCHW tensors, as negotiation found it: in [n, c, h, w], weights [k, c /
 * groups, r, s], bias [k], out [n, k, p, q].
 */
typedef struct
{
  AccelDType dtype;
  gint64 n, c, h, w;
  gint64 k, r, s;
  gint64 p, q;
  gint64 groups;
  gint64 pad_h, pad_w;
  gint64 stride_h, stride_w;
  gint64 dilation_h, dilation_w;
} AccelConvShape;

#define ACCEL_TYPE_DNN_CONV (accel_dnn_conv_get_type ())
G_DECLARE_DERIVABLE_TYPE (
    AccelDnnConv, accel_dnn_conv, ACCEL, DNN_CONV, AccelStage)

/**
 * AccelDnnConvClass:
 * @has_bias: the class has the input port "bias" after in and weights
 *
 * dnn.conv2d and dnn.conv2d-bias differ only in their ports: an engine
 * port is always linked, so the bias is a kind of its own.
 */
struct _AccelDnnConvClass
{
  AccelStageClass parent_class;

  gboolean has_bias;
};

void accel_dnn_conv_class_add_ports (AccelDnnConvClass *klass);

/**
 * accel_cudnn_check:
 * @stage: the stage making the call
 * @call: a cuDNN call (its `cudnnStatus_t` is checked)
 * @error: return location for a #GError, or %NULL
 *
 * Evaluates @call; on failure sets @error (%ACCEL_ERROR_LIBRARY) naming the
 * stage, the call, cuDNN's status and last error message and the file and
 * line, logs the same, and returns %FALSE.
 */
#define accel_cudnn_check(stage, call, error)                                  \
  accel_cudnn_check_full (                                                     \
      (stage), (int)(call), #call, __FILE__, __LINE__, (error))

gboolean accel_cudnn_check_full (AccelStage *stage, int status,
    const char *call, const char *file, int line, GError **error);

G_END_DECLS
