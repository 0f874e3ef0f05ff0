/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel blas plugin: shape checks, the cuBLAS handle and the general matrix
 * product that the blas.* stages share */
#define G_LOG_DOMAIN "accel-blas"

#include <cuda_runtime_api.h>
#include <string.h>

#include "accelblas-private.h"

/**
 * accel_blas_class_add_matrix_port:
 * @klass: a stage class, from its class_init
 * @direction: input or output
 * @name: the port's name
 * @rank: its rank, or %ACCEL_RANK_ANY where negotiate() checks it
 * @description: one line for tools
 *
 * Adds a port for tensors of any dtype in device memory; negotiate() says
 * which dtypes it takes.
 */
void
accel_blas_class_add_matrix_port (AccelStageClass *klass,
    AccelPortDirection direction, const char *name, gint rank,
    const char *description)
{
  AccelType t;

  accel_type_init_tensor (&t, ACCEL_DTYPE_ANY, ACCEL_MEMORY_DEVICE, rank, NULL);
  accel_stage_class_add_port (klass, direction, name, &t, description);
}

/**
 * accel_blas_cuda_dtype:
 * @dtype: f32, f64, f16 or bf16
 *
 * Returns: the `cudaDataType` of @dtype.
 */
cudaDataType
accel_blas_cuda_dtype (AccelDType dtype)
{
  switch (dtype)
    {
    case ACCEL_DTYPE_F64:
      return CUDA_R_64F;
    case ACCEL_DTYPE_F16:
      return CUDA_R_16F;
    case ACCEL_DTYPE_BF16:
      return CUDA_R_16BF;
    default:
      return CUDA_R_32F;
    }
}

/**
 * accel_gemm_gpu:
 * @stage: the processing stage
 * @gpu: its cuBLAS state, bound to the frame's stream
 * @shape: the negotiated product
 * @alpha: factor of the product
 * @beta: factor of the addend in @c (0: @c is not read)
 * @a: device pointer to A
 * @b: device pointer to B
 * @c: device pointer to the output (and the addend)
 * @error: return location for a #GError, or %NULL
 *
 * Enqueues c = alpha op(A) op(B) + beta c on the handle's stream; f16 and
 * bf16 accumulate in f32.
 *
 * Returns: %TRUE on success.
 */
gboolean
accel_gemm_gpu (AccelStage *stage, AccelBlasGpu *gpu,
    const AccelGemmShape *shape, double alpha, double beta, gconstpointer a,
    gconstpointer b, gpointer c, GError **error)
{
  const AccelGemmShape *s = shape;
  /* cuBLAS is column-major, and a row-major matrix read column-major is its
   * transpose: so the row-major C = op(A) op(B) is computed as the
   * column-major C^T = op(B)^T op(A)^T, with B passed first, A second and
   * m and n swapped. The transpose flags stay as they are, since op(X)^T
   * of a buffer read as X^T is op applied to that reading. */
  cublasOperation_t opa = s->transa ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opb = s->transb ? CUBLAS_OP_T : CUBLAS_OP_N;
  int m = (int)s->n, n = (int)s->m, k = (int)s->k;
  int lda = (int)s->ldb, ldb = (int)s->lda, ldc = (int)s->n;
  long long stride_a = s->stride_b, stride_b = s->stride_a;
  long long stride_c = s->m * s->n;
  int batch = (int)s->batch;
  float alpha_f = (float)alpha, beta_f = (float)beta;
  cudaDataType dt = accel_blas_cuda_dtype (s->dtype);

  switch (s->dtype)
    {
    case ACCEL_DTYPE_F32:
      if (batch == 1)
        return accel_cublas_check (stage,
            cublasSgemm (gpu->handle, opb, opa, m, n, k, &alpha_f, b, lda, a,
                ldb, &beta_f, c, ldc),
            error);
      return accel_cublas_check (stage,
          cublasSgemmStridedBatched (gpu->handle, opb, opa, m, n, k, &alpha_f,
              b, lda, stride_a, a, ldb, stride_b, &beta_f, c, ldc, stride_c,
              batch),
          error);
    case ACCEL_DTYPE_F64:
      if (batch == 1)
        return accel_cublas_check (stage,
            cublasDgemm (gpu->handle, opb, opa, m, n, k, &alpha, b, lda, a, ldb,
                &beta, c, ldc),
            error);
      return accel_cublas_check (stage,
          cublasDgemmStridedBatched (gpu->handle, opb, opa, m, n, k, &alpha, b,
              lda, stride_a, a, ldb, stride_b, &beta, c, ldc, stride_c, batch),
          error);
    default:
      /* f16 and bf16 in and out, f32 accumulation and scalars */
      if (batch == 1)
        return accel_cublas_check (stage,
            cublasGemmEx (gpu->handle, opb, opa, m, n, k, &alpha_f, b, dt, lda,
                a, dt, ldb, &beta_f, c, dt, ldc, CUBLAS_COMPUTE_32F,
                CUBLAS_GEMM_DEFAULT),
            error);
      return accel_cublas_check (stage,
          cublasGemmStridedBatchedEx (gpu->handle, opb, opa, m, n, k, &alpha_f,
              b, dt, lda, stride_a, a, dt, ldb, stride_b, &beta_f, c, dt, ldc,
              stride_c, batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
          error);
    }
}

/**
 * accel_blas_gpu_start:
 * @stage: the starting stage
 * @gpu: (out): its cuBLAS state
 * @pointer_mode: where the scalars of its calls live (device: results such
 *   as a dot product stay on the GPU and nothing waits for them)
 * @error: return location for a #GError, or %NULL
 *
 * Makes the handle, bound to the stage's stream, and a workspace of 32 MiB
 * (what cuBLAS asks for on Hopper) allocated on that stream. Called from
 * start().
 *
 * Returns: %TRUE on success; on failure nothing is left to release.
 */
gboolean
accel_blas_gpu_start (AccelStage *stage, AccelBlasGpu *gpu,
    cublasPointerMode_t pointer_mode, GError **error)
{
  cudaStream_t stream
      = accel_stream_get_handle (accel_stage_get_stream (stage));

  memset (gpu, 0, sizeof (*gpu));
  if (!accel_cublas_check (stage, cublasCreate (&gpu->handle), error))
    goto failed;
  gpu->workspace_size = 32 << 20;
  if (!accel_cuda_check (
          cudaMallocAsync (&gpu->workspace, gpu->workspace_size, stream),
          error))
    goto failed;
  if (!accel_cublas_check (
          stage, cublasSetPointerMode (gpu->handle, pointer_mode), error))
    goto failed;
  if (!accel_cublas_check (stage, cublasSetStream (gpu->handle, stream), error)
      || !accel_cublas_check (stage,
          cublasSetWorkspace (gpu->handle, gpu->workspace, gpu->workspace_size),
          error))
    goto failed;
  gpu->bound_stream = stream;
  return TRUE;

  /* ERRORS */
failed:
  accel_blas_gpu_stop (stage, gpu);
  return FALSE;
}

/**
 * accel_blas_gpu_stop:
 * @stage: the stopping stage
 * @gpu: its cuBLAS state
 *
 * Releases what accel_blas_gpu_start() made and zeroes @gpu. Called from
 * stop(), when the stage's stream is idle.
 */
void
accel_blas_gpu_stop (AccelStage *stage, AccelBlasGpu *gpu)
{
  if (gpu->workspace)
    accel_cuda_check (
        cudaFreeAsync (gpu->workspace,
            accel_stream_get_handle (accel_stage_get_stream (stage))),
        NULL);
  if (gpu->handle)
    accel_cublas_check (stage, cublasDestroy (gpu->handle), NULL);
  memset (gpu, 0, sizeof (*gpu));
}

/**
 * accel_blas_gpu_bind:
 * @stage: the processing stage
 * @gpu: its cuBLAS state
 * @frame: the frame
 * @error: return location for a #GError, or %NULL
 *
 * Points the handle at the frame's stream, when it is not there already.
 * Called from process().
 *
 * Returns: %TRUE on success.
 */
gboolean
accel_blas_gpu_bind (
    AccelStage *stage, AccelBlasGpu *gpu, AccelFrame *frame, GError **error)
{
  cudaStream_t stream = accel_stream_get_handle (frame->stream);

  if (G_LIKELY (gpu->bound_stream == stream))
    return TRUE;
  /* cublasSetStream drops the workspace: hand it back */
  if (!accel_cublas_check (stage, cublasSetStream (gpu->handle, stream), error)
      || !accel_cublas_check (stage,
          cublasSetWorkspace (gpu->handle, gpu->workspace, gpu->workspace_size),
          error))
    return FALSE;
  gpu->bound_stream = stream;
  return TRUE;
}

/**
 * accel_blas_vector_pair_negotiate:
 * @stage: the negotiating stage
 * @x: the type of input x
 * @y: the type of input y
 * @n: (out): the elements of each
 * @error: return location for a #GError, or %NULL
 *
 * Called from negotiate() of the stages that take two vectors: x and y of
 * one dtype and one shape (of any rank: the elements in order).
 *
 * Returns: %TRUE when they fit; otherwise %FALSE with
 * %ACCEL_ERROR_TYPE_MISMATCH naming both shapes.
 */
gboolean
accel_blas_vector_pair_negotiate (AccelStage *stage, const AccelType *x,
    const AccelType *y, gint64 *n, GError **error)
{
  if (!accel_dense_check_dtype (stage, "x", x, error)
      || !accel_dense_check_dtype (stage, "y", y, error))
    return FALSE;
  if (x->dtype != y->dtype)
    return accel_dense_mismatch (stage, error,
        "x is %s but y is %s; both must have one dtype",
        accel_dtype_to_string (x->dtype), accel_dtype_to_string (y->dtype));
  if (x->n_dims != y->n_dims
      || memcmp (x->dims, y->dims, x->n_dims * sizeof (gint64)) != 0)
    {
      g_autofree gchar *dx = accel_dense_dims_to_string (x);
      g_autofree gchar *dy = accel_dense_dims_to_string (y);
      return accel_dense_mismatch (stage, error,
          "x is %s but y is %s; they must have one shape", dx, dy);
    }
  *n = (gint64)accel_type_get_n_elements (x);
  if (*n > G_MAXINT32)
    return accel_dense_mismatch (stage, error,
        "x has %" G_GINT64_FORMAT " elements, more than 2^31 - 1", *n);
  return TRUE;
}
