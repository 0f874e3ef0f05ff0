/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel sparse plugin: what sparse.spmv and sparse.spmm share (not
 * installed) */
#pragma once

#include <cusparse.h>
#include <accel/accel.h>

G_BEGIN_DECLS

/* input ports 0-2 of both stages: the matrix in CSR */
enum
{
  ACCEL_SPARSE_ROW_OFFSETS,
  ACCEL_SPARSE_COL_INDICES,
  ACCEL_SPARSE_VALUES,
  ACCEL_SPARSE_DENSE, /* x */
};

/**
 * AccelSparseShape:
 * @m: rows of the matrix
 * @n: columns of the matrix (the dense input's rows)
 * @k: columns of the dense input (1 for a vector)
 * @nnz: stored entries
 * @dtype: f32 or f64, of the values, the dense input and the output
 */
typedef struct
{
  gint64 m, n, k, nnz;
  AccelDType dtype;
} AccelSparseShape;

/**
 * AccelSparseGpu:
 *
 * A stage's cuSPARSE handle, descriptors and workspace. The descriptors
 * are made on the first frame and then only pointed at each frame's
 * buffers.
 */
typedef struct
{
  cusparseHandle_t handle;
  cusparseSpMatDescr_t matrix;
  gboolean dense_matrix; /* the dense operands are matrices (SpMM) */
  cusparseDnVecDescr_t vec_in, vec_out;
  cusparseDnMatDescr_t mat_in, mat_out;
  gpointer bound_stream;
  gpointer workspace;
  gsize workspace_size;
  gboolean workspace_known;
} AccelSparseGpu;

void accel_sparse_class_add_ports (
    AccelStageClass *klass, gint dense_rank, const char *description);
gboolean accel_sparse_negotiate (AccelStage *stage, const AccelType *in_types,
    gint dense_rank, AccelSparseShape *shape, GError **error);
gboolean accel_sparse_validate_host (AccelStage *stage, AccelFrame *frame,
    const AccelSparseShape *shape, GError **error);

gboolean accel_sparse_gpu_start (
    AccelStage *stage, AccelSparseGpu *gpu, GError **error);
void accel_sparse_gpu_stop (AccelStage *stage, AccelSparseGpu *gpu);
gboolean accel_sparse_gpu_bind (AccelStage *stage, AccelSparseGpu *gpu,
    AccelFrame *frame, const AccelSparseShape *shape, GError **error);
gboolean accel_sparse_gpu_ensure_workspace (AccelStage *stage,
    AccelSparseGpu *gpu, gsize size, AccelFrame *frame, GError **error);
cudaDataType accel_sparse_cuda_dtype (AccelDType dtype);

/**
 * accel_cusparse_check:
 * @stage: the stage making the call
 * @call: a cuSPARSE call (its `cusparseStatus_t` is checked)
 * @error: return location for a #GError, or %NULL
 *
 * Evaluates @call; on failure sets @error (%ACCEL_ERROR_LIBRARY) naming the
 * stage, the call, cuSPARSE's status and the file and line, logs the same,
 * and returns %FALSE.
 */
#define accel_cusparse_check(stage, call, error)                               \
  accel_cusparse_check_full (                                                  \
      (stage), (int)(call), #call, __FILE__, __LINE__, (error))

gboolean accel_cusparse_check_full (AccelStage *stage, int status,
    const char *call, const char *file, int line, GError **error);

G_END_DECLS
