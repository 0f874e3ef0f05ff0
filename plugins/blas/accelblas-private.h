/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel blas plugin: what its stages share (not installed) */
#pragma once

#include <cublas_v2.h>
#include <accel/accel.h>

#include "acceldense.h"

G_BEGIN_DECLS

/**
 * AccelBlasGpu:
 * @handle: the stage's cuBLAS handle
 * @bound_stream: the stream @handle is bound to
 * @workspace: cuBLAS's workspace, from the stream-ordered allocator
 * @workspace_size: its size
 *
 * A stage's cuBLAS state, made in start() and released in stop().
 */
typedef struct
{
  cublasHandle_t handle;
  gpointer bound_stream;
  gpointer workspace;
  gsize workspace_size;
} AccelBlasGpu;

gboolean accel_blas_vector_pair_negotiate (AccelStage *stage,
    const AccelType *x, const AccelType *y, gint64 *n, GError **error);
void accel_blas_class_add_matrix_port (AccelStageClass *klass,
    AccelPortDirection direction, const char *name, gint rank,
    const char *description);

gboolean accel_gemm_gpu (AccelStage *stage, AccelBlasGpu *gpu,
    const AccelGemmShape *shape, double alpha, double beta, gconstpointer a,
    gconstpointer b, gpointer c, GError **error);

gboolean accel_blas_gpu_start (AccelStage *stage, AccelBlasGpu *gpu,
    cublasPointerMode_t pointer_mode, GError **error);
void accel_blas_gpu_stop (AccelStage *stage, AccelBlasGpu *gpu);
gboolean accel_blas_gpu_bind (
    AccelStage *stage, AccelBlasGpu *gpu, AccelFrame *frame, GError **error);
cudaDataType accel_blas_cuda_dtype (AccelDType dtype);

/**
 * accel_cublas_check:
 * @stage: the stage making the call
 * @call: a cuBLAS call (its `cublasStatus_t` is checked)
 * @error: return location for a #GError, or %NULL
 *
 * Evaluates @call; on failure sets @error (%ACCEL_ERROR_LIBRARY) naming the
 * stage, the call, cuBLAS's status and the file and line, logs the same,
 * and returns %FALSE.
 */
#define accel_cublas_check(stage, call, error)                                 \
  accel_cublas_check_full (                                                    \
      (stage), (int)(call), #call, __FILE__, __LINE__, (error))

gboolean accel_cublas_check_full (AccelStage *stage, int status,
    const char *call, const char *file, int line, GError **error);

G_END_DECLS
