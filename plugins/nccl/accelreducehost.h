/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: element-wise reductions on the host, for Gloo's
 * collectives: sum, prod, min and max of every dtype the stages take (f16
 * and bf16 through f32, rounded back at each step as NCCL does; integers
 * wrap), and avg as a sum divided by the world's size afterwards */
#pragma once

#include <accel/accel.h>

#include "accelgloo.h"

G_BEGIN_DECLS

/**
 * AccelReduceOp:
 * @ACCEL_REDUCE_SUM: the sum
 * @ACCEL_REDUCE_PROD: the product
 * @ACCEL_REDUCE_MIN: the least
 * @ACCEL_REDUCE_MAX: the greatest
 * @ACCEL_REDUCE_AVG: the sum divided by the number of ranks (integers:
 *   truncated toward zero)
 */
typedef enum
{
  ACCEL_REDUCE_SUM,
  ACCEL_REDUCE_PROD,
  ACCEL_REDUCE_MIN,
  ACCEL_REDUCE_MAX,
  ACCEL_REDUCE_AVG,
} AccelReduceOp;

#define ACCEL_TYPE_REDUCE_OP (accel_reduce_op_get_type ())
GType accel_reduce_op_get_type (void);

gboolean accel_reduce_dtype_supported (AccelDType dtype);
AccelGlooReduceFunc accel_reduce_host_func (AccelDType dtype, AccelReduceOp op);
void accel_reduce_host_divide (
    AccelDType dtype, gpointer data, gsize n, guint by);

G_END_DECLS
