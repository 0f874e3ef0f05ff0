/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel blaslt plugin: blaslt.matmul, out = epilogue (alpha op(A) op(B)) */
#define G_LOG_DOMAIN "accel-blaslt"

#include "accelmatmul.h"

struct _AccelMatmul
{
  AccelLtMatmul parent;
};

G_DEFINE_FINAL_TYPE (AccelMatmul, accel_matmul, ACCEL_TYPE_LT_MATMUL)

static void
accel_matmul_class_init (AccelMatmulClass *klass)
{
  AccelLtMatmulClass *lt_class = ACCEL_LT_MATMUL_CLASS (klass);

  lt_class->has_bias = FALSE;
  accel_stage_class_set_metadata (ACCEL_STAGE_CLASS (klass), "blaslt.matmul",
      "Matrix product of row-major matrices with a fused epilogue (relu or "
      "gelu), out = epilogue (alpha op(A) op(B)), through cuBLASLt; f32, or "
      "f16 and bf16 accumulated in f32");
  accel_lt_matmul_class_add_ports (lt_class);
}

static void
accel_matmul_init (AccelMatmul *self)
{
}
