/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel blaslt plugin: blaslt.matmul-bias, out = epilogue (alpha op(A)
 * op(B) + bias) */
#define G_LOG_DOMAIN "accel-blaslt"

#include "accelmatmulbias.h"

struct _AccelMatmulBias
{
  AccelLtMatmul parent;
};

G_DEFINE_FINAL_TYPE (AccelMatmulBias, accel_matmul_bias, ACCEL_TYPE_LT_MATMUL)

static void
accel_matmul_bias_class_init (AccelMatmulBiasClass *klass)
{
  AccelLtMatmulClass *lt_class = ACCEL_LT_MATMUL_CLASS (klass);

  lt_class->has_bias = TRUE;
  accel_stage_class_set_metadata (ACCEL_STAGE_CLASS (klass),
      "blaslt.matmul-bias",
      "Matrix product of row-major matrices plus a bias per column with a "
      "fused epilogue, out = epilogue (alpha op(A) op(B) + bias), through "
      "cuBLASLt; the bias is always added (epilogue relu means bias-relu); "
      "f32, or f16 and bf16 accumulated in f32");
  accel_lt_matmul_class_add_ports (lt_class);
}

static void
accel_matmul_bias_init (AccelMatmulBias *self)
{
}
