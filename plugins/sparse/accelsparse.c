/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel sparse plugin: the CSR ports, their checks and the cuSPARSE state
 * that sparse.spmv and sparse.spmm share */
#define G_LOG_DOMAIN "accel-sparse"

#include <cuda_runtime_api.h>

#include "accelsparse-private.h"
#include "accelsparsehost.h"

static const char *const port_names[] = {
  "row_offsets",
  "col_indices",
  "values",
  "x",
};

/**
 * accel_sparse_class_add_ports:
 * @klass: a stage class, from its class_init
 * @dense_rank: 1 for a dense vector x, 2 for a dense matrix
 * @description: one line about x
 *
 * Adds the inputs row_offsets, col_indices, values and x, and the output y,
 * all in device memory.
 */
void
accel_sparse_class_add_ports (
    AccelStageClass *klass, gint dense_rank, const char *description)
{
  AccelType index, values, dense;

  accel_type_init_tensor (
      &index, ACCEL_DTYPE_I32, ACCEL_MEMORY_DEVICE, 1, NULL);
  accel_type_init_tensor (
      &values, ACCEL_DTYPE_ANY, ACCEL_MEMORY_DEVICE, 1, NULL);
  accel_type_init_tensor (
      &dense, ACCEL_DTYPE_ANY, ACCEL_MEMORY_DEVICE, dense_rank, NULL);
  accel_stage_class_add_port (klass, ACCEL_PORT_INPUT, "row_offsets", &index,
      "i32 [m+1]: where each row's entries start, then nnz");
  accel_stage_class_add_port (klass, ACCEL_PORT_INPUT, "col_indices", &index,
      "i32 [nnz]: the column of each entry");
  accel_stage_class_add_port (klass, ACCEL_PORT_INPUT, "values", &values,
      "f32 or f64 [nnz]: the entries");
  accel_stage_class_add_port (
      klass, ACCEL_PORT_INPUT, "x", &dense, description);
  accel_stage_class_add_port (klass, ACCEL_PORT_OUTPUT, "y", &dense,
      dense_rank == 1 ? "[m]: alpha A x, the dtype of the values"
                      : "[m, k]: alpha A x, row-major, the dtype of the "
                        "values");
}

static gboolean shape_error (AccelStage *stage, const AccelType *in_types,
    GError **error, const char *format, ...) G_GNUC_PRINTF (4, 5);

static gboolean
shape_error (AccelStage *stage, const AccelType *in_types, GError **error,
    const char *format, ...)
{
  g_autofree gchar *what = NULL;
  GString *inputs = g_string_new (NULL);
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  for (guint i = 0; i < G_N_ELEMENTS (port_names); i++)
    {
      g_autofree gchar *t = accel_type_to_string (&in_types[i]);
      g_string_append_printf (
          inputs, "%s%s %s", i ? ", " : "", port_names[i], t);
    }
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH,
      "stage '%s' (%s): %s; the inputs are %s", accel_stage_get_name (stage),
      accel_stage_get_kind_name (stage), what, inputs->str);
  g_string_free (inputs, TRUE);
  return FALSE;
}

/**
 * accel_sparse_negotiate:
 * @stage: the negotiating stage
 * @in_types: its four input types
 * @dense_rank: 1 (SpMV) or 2 (SpMM)
 * @shape: (out): the product's sizes
 * @error: return location for a #GError, or %NULL
 *
 * Called from negotiate().
 *
 * Returns: %TRUE when the inputs make a product; otherwise %FALSE with
 * %ACCEL_ERROR_TYPE_MISMATCH naming the stage, what disagrees and every
 * input's type.
 */
gboolean
accel_sparse_negotiate (AccelStage *stage, const AccelType *in_types,
    gint dense_rank, AccelSparseShape *shape, GError **error)
{
  const AccelType *offsets = &in_types[ACCEL_SPARSE_ROW_OFFSETS];
  const AccelType *indices = &in_types[ACCEL_SPARSE_COL_INDICES];
  const AccelType *values = &in_types[ACCEL_SPARSE_VALUES];
  const AccelType *x = &in_types[ACCEL_SPARSE_DENSE];

  for (guint i = 0; i < G_N_ELEMENTS (port_names); i++)
    if (in_types[i].kind != ACCEL_KIND_TENSOR
        || in_types[i].n_dims != (i == ACCEL_SPARSE_DENSE ? dense_rank : 1))
      return shape_error (stage, in_types, error,
          "%s must be a tensor of rank %d", port_names[i],
          i == ACCEL_SPARSE_DENSE ? dense_rank : 1);
  if (offsets->dtype != ACCEL_DTYPE_I32 || indices->dtype != ACCEL_DTYPE_I32)
    return shape_error (
        stage, in_types, error, "row_offsets and col_indices must be i32");
  if (values->dtype != ACCEL_DTYPE_F32 && values->dtype != ACCEL_DTYPE_F64)
    return shape_error (stage, in_types, error, "values must be f32 or f64");
  if (x->dtype != values->dtype)
    return shape_error (stage, in_types, error,
        "x must have the dtype of the values (%s)",
        accel_dtype_to_string (values->dtype));
  if (offsets->dims[0] < 2)
    return shape_error (stage, in_types, error,
        "row_offsets needs m + 1 entries for m >= 1 rows");
  if (indices->dims[0] != values->dims[0])
    return shape_error (stage, in_types, error,
        "col_indices and values must have one entry per stored value "
        "(%" G_GINT64_FORMAT " and %" G_GINT64_FORMAT ")",
        indices->dims[0], values->dims[0]);
  if (offsets->dims[0] - 1 > G_MAXINT32 || x->dims[0] > G_MAXINT32
      || values->dims[0] > G_MAXINT32)
    return shape_error (
        stage, in_types, error, "the matrix is too large for 32-bit indices");

  shape->m = offsets->dims[0] - 1;
  shape->nnz = indices->dims[0];
  shape->n = x->dims[0];
  shape->k = dense_rank == 2 ? x->dims[1] : 1;
  shape->dtype = values->dtype;
  return TRUE;
}

/**
 * accel_sparse_validate_host:
 * @stage: the processing stage
 * @frame: its frame
 * @shape: the negotiated sizes
 * @error: return location for a #GError, or %NULL
 *
 * Called from process() on the host backend, before any product: a
 * malformed matrix would read out of bounds.
 *
 * Returns: %TRUE when the frame's CSR arrays are well formed; otherwise
 * %FALSE with %ACCEL_ERROR_INVALID_INPUT saying where they are not.
 */
gboolean
accel_sparse_validate_host (AccelStage *stage, AccelFrame *frame,
    const AccelSparseShape *shape, GError **error)
{
  const gint32 *offsets
      = accel_buffer_get_data (frame->inputs[ACCEL_SPARSE_ROW_OFFSETS]);
  const gint32 *indices
      = accel_buffer_get_data (frame->inputs[ACCEL_SPARSE_COL_INDICES]);
  gint64 where;
  g_autofree gchar *what = NULL;

  switch (accel_csr_validate (
      offsets, indices, shape->m, shape->n, shape->nnz, &where))
    {
    case ACCEL_CSR_OK:
      return TRUE;
    case ACCEL_CSR_BAD_FIRST_OFFSET:
      what = g_strdup_printf ("row_offsets[0] is %d, not 0", offsets[0]);
      break;
    case ACCEL_CSR_DECREASING_OFFSET:
      what = g_strdup_printf (
          "row_offsets[%" G_GINT64_FORMAT
          "] = %d is less than row_offsets[%" G_GINT64_FORMAT "] = %d",
          where + 1, offsets[where + 1], where, offsets[where]);
      break;
    case ACCEL_CSR_BAD_LAST_OFFSET:
      what = g_strdup_printf ("row_offsets[%" G_GINT64_FORMAT
                              "] is %d, not nnz = %" G_GINT64_FORMAT,
          where, offsets[where], shape->nnz);
      break;
    default:
      what = g_strdup_printf ("col_indices[%" G_GINT64_FORMAT
                              "] = %d is outside [0, %" G_GINT64_FORMAT ")",
          where, indices[where], shape->n);
      break;
    }
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT,
      "stage '%s' (%s): frame %" G_GUINT64_FORMAT ": malformed CSR matrix: %s",
      accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
      frame->sequence, what);
  return FALSE;
}

/**
 * accel_sparse_cuda_dtype:
 * @dtype: f32 or f64
 *
 * Returns: the `cudaDataType` of @dtype.
 */
cudaDataType
accel_sparse_cuda_dtype (AccelDType dtype)
{
  return dtype == ACCEL_DTYPE_F64 ? CUDA_R_64F : CUDA_R_32F;
}

/**
 * accel_sparse_gpu_start:
 * @stage: the starting stage
 * @gpu: its cuSPARSE state, zeroed
 * @error: return location for a #GError, or %NULL
 *
 * Makes the handle, bound to the stage's stream. Called from start().
 *
 * Returns: %TRUE on success.
 */
gboolean
accel_sparse_gpu_start (AccelStage *stage, AccelSparseGpu *gpu, GError **error)
{
  cudaStream_t stream
      = accel_stream_get_handle (accel_stage_get_stream (stage));

  if (!accel_cusparse_check (stage, cusparseCreate (&gpu->handle), error))
    return FALSE;
  if (!accel_cusparse_check (
          stage, cusparseSetStream (gpu->handle, stream), error))
    {
      /* the engine calls stop () only after a start () that succeeded */
      accel_sparse_gpu_stop (stage, gpu);
      return FALSE;
    }
  gpu->bound_stream = stream;
  return TRUE;
}

/**
 * accel_sparse_gpu_stop:
 * @stage: the stopping stage
 * @gpu: its cuSPARSE state
 *
 * Releases what accel_sparse_gpu_start() and the frames made, and zeroes
 * @gpu. Called from stop(), when the stage's stream is idle.
 */
void
accel_sparse_gpu_stop (AccelStage *stage, AccelSparseGpu *gpu)
{
  if (gpu->matrix)
    accel_cusparse_check (stage, cusparseDestroySpMat (gpu->matrix), NULL);
  if (gpu->vec_in)
    accel_cusparse_check (stage, cusparseDestroyDnVec (gpu->vec_in), NULL);
  if (gpu->vec_out)
    accel_cusparse_check (stage, cusparseDestroyDnVec (gpu->vec_out), NULL);
  if (gpu->mat_in)
    accel_cusparse_check (stage, cusparseDestroyDnMat (gpu->mat_in), NULL);
  if (gpu->mat_out)
    accel_cusparse_check (stage, cusparseDestroyDnMat (gpu->mat_out), NULL);
  if (gpu->workspace)
    accel_cuda_check (
        cudaFreeAsync (gpu->workspace,
            accel_stream_get_handle (accel_stage_get_stream (stage))),
        NULL);
  if (gpu->handle)
    accel_cusparse_check (stage, cusparseDestroy (gpu->handle), NULL);
  memset (gpu, 0, sizeof (*gpu));
}

/**
 * accel_sparse_gpu_bind:
 * @stage: the processing stage
 * @gpu: its cuSPARSE state
 * @frame: the frame
 * @shape: the negotiated sizes
 * @error: return location for a #GError, or %NULL
 *
 * Points the handle at the frame's stream and the descriptors at the
 * frame's buffers, making the descriptors on the first frame. Called from
 * process().
 *
 * Returns: %TRUE on success.
 */
gboolean
accel_sparse_gpu_bind (AccelStage *stage, AccelSparseGpu *gpu,
    AccelFrame *frame, const AccelSparseShape *shape, GError **error)
{
  cudaStream_t stream = accel_stream_get_handle (frame->stream);
  cudaDataType dt = accel_sparse_cuda_dtype (shape->dtype);
  gpointer offsets
      = accel_buffer_get_data (frame->inputs[ACCEL_SPARSE_ROW_OFFSETS]);
  gpointer indices
      = accel_buffer_get_data (frame->inputs[ACCEL_SPARSE_COL_INDICES]);
  gpointer values = accel_buffer_get_data (frame->inputs[ACCEL_SPARSE_VALUES]);
  gpointer x = accel_buffer_get_data (frame->inputs[ACCEL_SPARSE_DENSE]);
  gpointer y = accel_buffer_get_data (frame->outputs[0]);

  if (gpu->bound_stream != stream)
    {
      if (!accel_cusparse_check (
              stage, cusparseSetStream (gpu->handle, stream), error))
        return FALSE;
      gpu->bound_stream = stream;
    }

  if (!gpu->matrix)
    {
      if (!accel_cusparse_check (stage,
              cusparseCreateCsr (&gpu->matrix, shape->m, shape->n, shape->nnz,
                  offsets, indices, values, CUSPARSE_INDEX_32I,
                  CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, dt),
              error))
        return FALSE;
    }
  else if (!accel_cusparse_check (stage,
               cusparseCsrSetPointers (gpu->matrix, offsets, indices, values),
               error))
    return FALSE;

  if (!gpu->dense_matrix)
    {
      if (!gpu->vec_in)
        return accel_cusparse_check (stage,
                   cusparseCreateDnVec (&gpu->vec_in, shape->n, x, dt), error)
               && accel_cusparse_check (stage,
                   cusparseCreateDnVec (&gpu->vec_out, shape->m, y, dt), error);
      return accel_cusparse_check (
                 stage, cusparseDnVecSetValues (gpu->vec_in, x), error)
             && accel_cusparse_check (
                 stage, cusparseDnVecSetValues (gpu->vec_out, y), error);
    }
  if (!gpu->mat_in)
    return accel_cusparse_check (stage,
               cusparseCreateDnMat (&gpu->mat_in, shape->n, shape->k, shape->k,
                   x, dt, CUSPARSE_ORDER_ROW),
               error)
           && accel_cusparse_check (stage,
               cusparseCreateDnMat (&gpu->mat_out, shape->m, shape->k, shape->k,
                   y, dt, CUSPARSE_ORDER_ROW),
               error);
  return accel_cusparse_check (
             stage, cusparseDnMatSetValues (gpu->mat_in, x), error)
         && accel_cusparse_check (
             stage, cusparseDnMatSetValues (gpu->mat_out, y), error);
}

/**
 * accel_sparse_gpu_ensure_workspace:
 * @stage: the processing stage
 * @gpu: its cuSPARSE state
 * @size: bytes the product needs
 * @frame: the frame
 * @error: return location for a #GError, or %NULL
 *
 * Grows the workspace, allocated on the frame's stream (in practice once,
 * on the first frame: the sizes are fixed by negotiation).
 *
 * Returns: %TRUE on success.
 */
gboolean
accel_sparse_gpu_ensure_workspace (AccelStage *stage, AccelSparseGpu *gpu,
    gsize size, AccelFrame *frame, GError **error)
{
  cudaStream_t stream = accel_stream_get_handle (frame->stream);

  if (size <= gpu->workspace_size)
    {
      gpu->workspace_known = TRUE;
      return TRUE;
    }
  if (gpu->workspace
      && !accel_cuda_check (cudaFreeAsync (gpu->workspace, stream), error))
    return FALSE;
  gpu->workspace = NULL;
  gpu->workspace_size = 0;
  if (!accel_cuda_check (
          cudaMallocAsync (&gpu->workspace, size, stream), error))
    return FALSE;
  /* only now: a frame after a failed allocation asks again */
  gpu->workspace_size = size;
  gpu->workspace_known = TRUE;
  return TRUE;
}
