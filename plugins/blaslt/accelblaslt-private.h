/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel blaslt plugin: the matrix product with a fused epilogue that
 * blaslt.matmul and blaslt.matmul-bias share (not installed) */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

/**
 * AccelLtEpilogue:
 * @ACCEL_LT_EPILOGUE_NONE: out = alpha op(A) op(B)
 * @ACCEL_LT_EPILOGUE_BIAS: adds bias[j] to column j
 * @ACCEL_LT_EPILOGUE_RELU: max (0, x) of each element
 * @ACCEL_LT_EPILOGUE_GELU: GELU of each element, in the tanh approximation
 *   cuBLASLt computes: 0.5 x (1 + tanh (sqrt (2 / pi) (x + 0.044715 x^3)))
 * @ACCEL_LT_EPILOGUE_BIAS_RELU: the bias, then ReLU
 * @ACCEL_LT_EPILOGUE_BIAS_GELU: the bias, then GELU
 *
 * What cuBLASLt applies to the product before it stores it. The bias
 * epilogues need the bias input of blaslt.matmul-bias; there the bias is
 * added whichever is chosen (relu there means bias-relu).
 */
typedef enum
{
  ACCEL_LT_EPILOGUE_NONE,
  ACCEL_LT_EPILOGUE_BIAS,
  ACCEL_LT_EPILOGUE_RELU,
  ACCEL_LT_EPILOGUE_GELU,
  ACCEL_LT_EPILOGUE_BIAS_RELU,
  ACCEL_LT_EPILOGUE_BIAS_GELU,
} AccelLtEpilogue;

#define ACCEL_TYPE_LT_EPILOGUE (accel_lt_epilogue_get_type ())
GType accel_lt_epilogue_get_type (void);

#define ACCEL_TYPE_LT_MATMUL (accel_lt_matmul_get_type ())
G_DECLARE_DERIVABLE_TYPE (
    AccelLtMatmul, accel_lt_matmul, ACCEL, LT_MATMUL, AccelStage)

/**
 * AccelLtMatmulClass:
 * @has_bias: the class has the input port "bias" after a and b
 *
 * The two kinds differ only in their ports: an engine port is always
 * linked, so the bias is a kind of its own.
 */
struct _AccelLtMatmulClass
{
  AccelStageClass parent_class;

  gboolean has_bias;
};

void accel_lt_matmul_class_add_ports (AccelLtMatmulClass *klass);

/**
 * accel_cublaslt_check:
 * @stage: the stage making the call
 * @call: a cuBLASLt call (its `cublasStatus_t` is checked)
 * @error: return location for a #GError, or %NULL
 *
 * Evaluates @call; on failure sets @error (%ACCEL_ERROR_LIBRARY) naming the
 * stage, the call, cuBLASLt's status and the file and line, logs the same,
 * and returns %FALSE.
 */
#define accel_cublaslt_check(stage, call, error)                               \
  accel_cublaslt_check_full (                                                  \
      (stage), (int)(call), #call, __FILE__, __LINE__, (error))

gboolean accel_cublaslt_check_full (AccelStage *stage, int status,
    const char *call, const char *file, int line, GError **error);

G_END_DECLS
