/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: element-wise reductions on the host, for Gloo's
 * collectives: sum, prod, min and max of every dtype the stages take (f16
 * and bf16 through f32, rounded back at each step as NCCL does; integers
 * wrap), and avg as NCCL's: floats scaled by 1 / the world's size before
 * the sum, integers' sums divided after */
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
 * @ACCEL_REDUCE_AVG: the average over the ranks (floats: the sum of each
 *   value times 1 / the number of ranks; integers: the sum divided,
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
void accel_reduce_host_avg_before (
    AccelDType dtype, gpointer data, gsize n, guint ranks);
void accel_reduce_host_avg_after (
    AccelDType dtype, gpointer data, gsize n, guint ranks);

G_END_DECLS
