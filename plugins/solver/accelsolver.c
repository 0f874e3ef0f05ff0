/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel solver plugin: shape checks, the cuSOLVER handle, scratch and info
 * that the solver.* stages share */
#define G_LOG_DOMAIN "accel-solver"

#include <cuda_runtime_api.h>
#include <float.h>
#include <lapacke.h>
#include <string.h>

#include "accelsolver-private.h"
#include "accelsolverfinite.h"
#include "accelsolvertranspose.h"

/**
 * accel_solver_class_add_port:
 * @klass: a stage class, from its class_init
 * @direction: input or output
 * @name: the port's name
 * @description: one line for tools
 *
 * Adds a port for f32 or f64 tensors of any rank in device memory;
 * negotiate() checks the rest.
 */
void
accel_solver_class_add_port (AccelStageClass *klass,
    AccelPortDirection direction, const char *name, const char *description)
{
  AccelType t;

  accel_type_init_tensor (
      &t, ACCEL_DTYPE_ANY, ACCEL_MEMORY_DEVICE, ACCEL_RANK_ANY, NULL);
  accel_stage_class_add_port (klass, direction, name, &t, description);
}

static gchar *
dims_to_string (const AccelType *type)
{
  GString *s = g_string_new (NULL);

  for (gint d = 0; d < type->n_dims; d++)
    g_string_append_printf (
        s, "%s%" G_GINT64_FORMAT, d ? "x" : "", type->dims[d]);
  if (type->n_dims <= 0)
    g_string_append (s, "a scalar");
  return g_string_free (s, FALSE);
}

static gboolean mismatch (AccelStage *stage, GError **error, const char *format,
    ...) G_GNUC_PRINTF (3, 4);

static gboolean
mismatch (AccelStage *stage, GError **error, const char *format, ...)
{
  g_autofree gchar *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH,
      "stage '%s' (%s): %s", accel_stage_get_name (stage),
      accel_stage_get_kind_name (stage), what);
  return FALSE;
}

/**
 * accel_solver_negotiate_matrix:
 * @stage: the negotiating stage
 * @a: the type of input a
 * @square: the stage needs square matrices
 * @shape: (out): what @a holds
 * @error: return location for a #GError, or %NULL
 *
 * Called from negotiate(): @a must be an f32 or f64 matrix [m, n] or batch
 * of them [batch, m, n].
 *
 * Returns: %TRUE when it is; otherwise %FALSE with
 * %ACCEL_ERROR_TYPE_MISMATCH naming the stage and the shape.
 */
gboolean
accel_solver_negotiate_matrix (AccelStage *stage, const AccelType *a,
    gboolean square, AccelSolverShape *shape, GError **error)
{
  g_autofree gchar *dims = dims_to_string (a);

  memset (shape, 0, sizeof (*shape));
  if (a->kind != ACCEL_KIND_TENSOR
      || (a->dtype != ACCEL_DTYPE_F32 && a->dtype != ACCEL_DTYPE_F64))
    return mismatch (stage, error, "a is %s %s; the stage takes f32 or f64",
        accel_kind_to_string (a->kind), accel_dtype_to_string (a->dtype));
  if (a->n_dims != 2 && a->n_dims != 3)
    return mismatch (stage, error,
        "a is %s; it must be a matrix [m, n] or a batch of them "
        "[batch, m, n]",
        dims);
  for (gint d = 0; d < a->n_dims; d++)
    if (a->dims[d] < 1 || a->dims[d] > G_MAXINT32)
      return mismatch (stage, error,
          "a is %s; every dimension must be between 1 and 2^31 - 1", dims);

  shape->dtype = a->dtype;
  shape->batched = a->n_dims == 3;
  shape->batch = shape->batched ? a->dims[0] : 1;
  shape->m = a->dims[a->n_dims - 2];
  shape->n = a->dims[a->n_dims - 1];
  if (shape->m * shape->n > G_MAXINT32)
    return mismatch (stage, error,
        "a is %s; a matrix of more than 2^31 - 1 elements is too large for "
        "cuSOLVER's 32-bit interface",
        dims);
  if (square && shape->m != shape->n)
    return mismatch (stage, error, "a is %s; each matrix must be square", dims);
  shape->nrhs = 1;
  return TRUE;
}

/* b of A x = b, once a is negotiated into @shape: a vector [n] or a matrix
 * [n, nrhs] per matrix of a, of a's dtype */
static gboolean
negotiate_rhs (AccelStage *stage, const AccelType *a, const AccelType *b,
    AccelSolverShape *shape, GError **error)
{
  g_autofree gchar *da = dims_to_string (a);
  g_autofree gchar *db = dims_to_string (b);
  gint lead = shape->batched ? 1 : 0;

  if (b->kind != ACCEL_KIND_TENSOR || b->dtype != shape->dtype)
    return mismatch (stage, error, "a is %s but b is %s %s; both must be %s",
        accel_dtype_to_string (shape->dtype), accel_kind_to_string (b->kind),
        accel_dtype_to_string (b->dtype), accel_dtype_to_string (shape->dtype));
  if (b->n_dims != a->n_dims - 1 && b->n_dims != a->n_dims)
    {
      g_autofree gchar *batch = shape->batched ? g_strdup_printf (
                                    "%" G_GINT64_FORMAT ", ", shape->batch)
                                               : g_strdup ("");

      return mismatch (stage, error,
          "a is %s but b is %s; b must be [%s%" G_GINT64_FORMAT
          "] or [%s%" G_GINT64_FORMAT ", nrhs]",
          da, db, batch, shape->n, batch, shape->n);
    }
  if (shape->batched && b->dims[0] != shape->batch)
    return mismatch (stage, error,
        "a is %s but b is %s; batches of %" G_GINT64_FORMAT
        " and %" G_GINT64_FORMAT " differ",
        da, db, shape->batch, b->dims[0]);
  if (b->dims[lead] != shape->n)
    return mismatch (stage, error,
        "a is %s but b is %s; b must have %" G_GINT64_FORMAT
        " rows, one per row of a",
        da, db, shape->n);
  shape->rhs_vector = b->n_dims == a->n_dims - 1;
  shape->nrhs = shape->rhs_vector ? 1 : b->dims[lead + 1];
  if (shape->nrhs < 1 || shape->nrhs * shape->n > G_MAXINT32)
    return mismatch (stage, error,
        "b is %s; it must have between 1 and 2^31 - 1 elements per matrix", db);
  return TRUE;
}

/**
 * accel_solver_negotiate_system:
 * @stage: the negotiating stage
 * @in_types: the types of inputs a and b
 * @out_types: (out): gets the type of output x
 * @shape: (out): the negotiated shape
 * @error: return location for a #GError, or %NULL
 *
 * negotiate() of the solvers of A x = b: a is a square f32 or f64 matrix
 * (or a batch of them), b a vector [n] or a matrix [n, nrhs] per matrix of
 * a, of a's dtype; x is typed as b, in device memory.
 *
 * Returns: %TRUE when they are; otherwise %FALSE with
 * %ACCEL_ERROR_TYPE_MISMATCH naming the stage and the shapes.
 */
gboolean
accel_solver_negotiate_system (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, AccelSolverShape *shape, GError **error)
{
  if (!accel_solver_negotiate_matrix (stage, &in_types[0], TRUE, shape, error)
      || !negotiate_rhs (stage, &in_types[0], &in_types[1], shape, error))
    return FALSE;
  out_types[0] = in_types[1];
  out_types[0].memory = ACCEL_MEMORY_DEVICE;
  return TRUE;
}

/**
 * accel_solver_output_type:
 * @shape: the negotiated shape
 * @out: (out): an output type
 * @rank: 1 or 2: of one matrix's output
 * @rows: its first dimension
 * @cols: its second (rank 2)
 *
 * Makes the type of an output of @shape's dtype, with the batch in front
 * when the input has one.
 */
void
accel_solver_output_type (const AccelSolverShape *shape, AccelType *out,
    gint rank, gint64 rows, gint64 cols)
{
  gint64 dims[3];
  gint n = 0;

  if (shape->batched)
    dims[n++] = shape->batch;
  dims[n++] = rows;
  if (rank == 2)
    dims[n++] = cols;
  accel_type_init_tensor (out, shape->dtype, ACCEL_MEMORY_DEVICE, n, dims);
}

/**
 * accel_solver_align:
 * @size: bytes
 *
 * Returns: @size rounded up to 256 bytes, so that regions carved one after
 * the other out of one allocation stay aligned for cuSOLVER.
 */
gsize
accel_solver_align (gsize size)
{
  return (size + 255) & ~(gsize)255;
}

/* the infos, then the index of the first non-finite element of each input
 * and an output (ACCEL_SOLVER_N_FIRST), in one block: one copy brings both
 * back */
static gsize
info_offset_first (const AccelSolverGpu *gpu)
{
  return (gpu->n_info * sizeof (int) + 7) / 8 * 8;
}

static gsize
info_size (const AccelSolverGpu *gpu)
{
  return info_offset_first (gpu) + ACCEL_SOLVER_N_FIRST * sizeof (guint64);
}

static guint64 *
first_slots (const AccelSolverGpu *gpu, int *info)
{
  return (guint64 *)((guint8 *)info + info_offset_first (gpu));
}

/**
 * accel_solver_gpu_start:
 * @stage: the starting stage
 * @gpu: (out): its cuSOLVER state
 * @mat_size: bytes of matrix scratch
 * @n_info: infos a frame collects
 * @error: return location for a #GError, or %NULL
 *
 * Makes the handle, bound to the stage's stream, the matrix scratch and
 * the infos. The stage then asks cuSOLVER for its workspace sizes and calls
 * accel_solver_gpu_alloc_work(). Called from start().
 *
 * Returns: %TRUE on success; on failure nothing is left to release.
 */
gboolean
accel_solver_gpu_start (AccelStage *stage, AccelSolverGpu *gpu, gsize mat_size,
    guint n_info, GError **error)
{
  cudaStream_t stream
      = accel_stream_get_handle (accel_stage_get_stream (stage));

  memset (gpu, 0, sizeof (*gpu));
  if (!accel_cusolver_check (stage, cusolverDnCreate (&gpu->handle), error)
      || !accel_cusolver_check (
          stage, cusolverDnSetStream (gpu->handle, stream), error))
    goto failed;
  gpu->bound_stream = stream;
  gpu->n_info = n_info;
  if (!accel_cuda_check (
          cudaMallocAsync (&gpu->mat, MAX (mat_size, 1), stream), error)
      || !accel_cuda_check (
          cudaMallocAsync ((void **)&gpu->dev_info, info_size (gpu), stream),
          error)
      || !accel_cuda_check (
          cudaMallocHost ((void **)&gpu->host_info, info_size (gpu)), error))
    goto failed;
  gpu->dev_first = first_slots (gpu, gpu->dev_info);
  gpu->host_first = first_slots (gpu, gpu->host_info);
  return TRUE;

  /* ERRORS */
failed:
  accel_solver_gpu_stop (stage, gpu);
  return FALSE;
}

/**
 * accel_solver_gpu_alloc_work:
 * @stage: the starting stage
 * @gpu: its cuSOLVER state
 * @size: bytes of workspace
 * @error: return location for a #GError, or %NULL
 *
 * Allocates the workspace on the stage's stream. Called from start().
 *
 * Returns: %TRUE on success.
 */
gboolean
accel_solver_gpu_alloc_work (
    AccelStage *stage, AccelSolverGpu *gpu, gsize size, GError **error)
{
  return accel_cuda_check (
      cudaMallocAsync (&gpu->work, MAX (size, 1),
          accel_stream_get_handle (accel_stage_get_stream (stage))),
      error);
}

/**
 * accel_solver_gpu_stop:
 * @stage: the stopping stage
 * @gpu: its cuSOLVER state
 *
 * Releases what start() made and zeroes @gpu. Called from stop(), when the
 * stage's stream is idle.
 */
void
accel_solver_gpu_stop (AccelStage *stage, AccelSolverGpu *gpu)
{
  AccelStream *s = accel_stage_get_stream (stage);
  cudaStream_t stream = s ? accel_stream_get_handle (s) : NULL;

  if (gpu->work)
    accel_cuda_check (cudaFreeAsync (gpu->work, stream), NULL);
  if (gpu->mat)
    accel_cuda_check (cudaFreeAsync (gpu->mat, stream), NULL);
  if (gpu->dev_info)
    accel_cuda_check (cudaFreeAsync (gpu->dev_info, stream), NULL);
  if (gpu->host_info)
    accel_cuda_check (cudaFreeHost (gpu->host_info), NULL);
  if (gpu->handle)
    accel_cusolver_check (stage, cusolverDnDestroy (gpu->handle), NULL);
  memset (gpu, 0, sizeof (*gpu));
}

/**
 * accel_solver_gpu_bind:
 * @stage: the processing stage
 * @gpu: its cuSOLVER state
 * @frame: the frame
 * @error: return location for a #GError, or %NULL
 *
 * Points the handle at the frame's stream, when it is not there already.
 * Called from process().
 *
 * Returns: %TRUE on success.
 */
gboolean
accel_solver_gpu_bind (
    AccelStage *stage, AccelSolverGpu *gpu, AccelFrame *frame, GError **error)
{
  cudaStream_t stream = accel_stream_get_handle (frame->stream);

  if (G_LIKELY (gpu->bound_stream == stream))
    return TRUE;
  if (!accel_cusolver_check (
          stage, cusolverDnSetStream (gpu->handle, stream), error))
    return FALSE;
  gpu->bound_stream = stream;
  return TRUE;
}

/* rows and columns of each matrix of input @port: a is m x n, b n x nrhs */
static void
input_matrix_dims (
    const AccelSolverShape *shape, guint port, gint64 *rows, gint64 *cols)
{
  *rows = port == 0 ? shape->m : shape->n;
  *cols = port == 0 ? shape->n : shape->nrhs;
}

static gboolean
nonfinite_input (AccelStage *stage, AccelFrame *frame,
    const AccelSolverShape *shape, guint port, guint64 index, GError **error)
{
  gint64 rows, cols, per_matrix, at;

  input_matrix_dims (shape, port, &rows, &cols);
  per_matrix = rows * cols;
  at = (gint64)index % per_matrix;
  return accel_solver_bad_input (stage, frame, shape,
      (gint64)index / per_matrix, error,
      "%s holds NaN or an infinity at row %" G_GINT64_FORMAT
      ", column %" G_GINT64_FORMAT
      "; the factorizations are defined for finite values only",
      port == 0 ? "a" : "b", at / cols, at % cols);
}

/**
 * accel_solver_gpu_fetch_info:
 * @stage: the processing stage
 * @gpu: its cuSOLVER state
 * @frame: the frame whose calls are enqueued
 * @shape: the negotiated shape
 * @error: return location for a #GError, or %NULL
 *
 * Copies the frame's infos to @gpu->host_info and waits for them: a known
 * host wait of every solver stage. cuSOLVER tells a singular or indefinite
 * matrix only through its info in device memory, and a frame whose result
 * is wrong must fail before its output goes downstream, so the stage's
 * thread waits here for the frame's GPU work. The search that
 * accel_solver_check_inputs() enqueued comes back with them: an input
 * holding NaN or an infinity fails the frame here, before its infos are
 * read. Called from process().
 *
 * Returns: %TRUE when the infos are on the host and the inputs finite.
 */
gboolean
accel_solver_gpu_fetch_info (AccelStage *stage, AccelSolverGpu *gpu,
    AccelFrame *frame, const AccelSolverShape *shape, GError **error)
{
  cudaStream_t stream = accel_stream_get_handle (frame->stream);

  if (!accel_cuda_check (cudaMemcpyAsync (gpu->host_info, gpu->dev_info,
                             info_size (gpu), cudaMemcpyDeviceToHost, stream),
          error)
      || !accel_cuda_check (cudaStreamSynchronize (stream), error))
    return FALSE;
  for (guint p = 0; p < frame->n_inputs && p < ACCEL_SOLVER_MAX_INPUTS; p++)
    if (gpu->host_first[p] != G_MAXUINT64)
      return nonfinite_input (
          stage, frame, shape, p, gpu->host_first[p], error);
  return TRUE;
}

static int
find_nonfinite (AccelDType dtype, gpointer stream, gconstpointer data,
    gsize count, guint64 *first)
{
  if (dtype == ACCEL_DTYPE_F64)
    return accel_solver_find_nonfinite_f64 (
        stream, data, count, (unsigned long long *)first);
  return accel_solver_find_nonfinite_f32 (
      stream, data, count, (unsigned long long *)first);
}

/**
 * accel_solver_gpu_find_nonfinite_output:
 * @gpu: the stage's cuSOLVER state
 * @frame: the frame, whose stream the search goes on
 * @shape: the negotiated shape
 * @data: an output of the frame, on the device
 * @count: its elements
 * @error: return location for a #GError, or %NULL
 *
 * Enqueues the search for NaN and infinities in @data: from finite inputs
 * a factorization whose pivot's reciprocal overflows gives them. After
 * accel_solver_gpu_fetch_info (), `host_first[ACCEL_SOLVER_MAX_INPUTS]`
 * holds the first one's index (%G_MAXUINT64: none). Called from
 * process(), after the calls that write @data.
 *
 * Returns: %TRUE when the search is enqueued.
 */
gboolean
accel_solver_gpu_find_nonfinite_output (AccelSolverGpu *gpu, AccelFrame *frame,
    const AccelSolverShape *shape, gconstpointer data, gsize count,
    GError **error)
{
  return accel_cuda_check (
      find_nonfinite (shape->dtype, accel_stream_get_handle (frame->stream),
          data, count, gpu->dev_first + ACCEL_SOLVER_MAX_INPUTS),
      error);
}

/* whether @data's @count elements hold NaN or an infinity, on the host */
gboolean
accel_solver_find_nonfinite_host (
    const AccelSolverShape *shape, gconstpointer data, gsize count)
{
  return (shape->dtype == ACCEL_DTYPE_F64
                 ? accel_solver_find_nonfinite_f64_host (data, count)
                 : accel_solver_find_nonfinite_f32_host (data, count))
         < count;
}

/**
 * accel_solver_check_inputs:
 * @stage: the processing stage
 * @gpu: its cuSOLVER state (unused on the host backend)
 * @frame: the frame
 * @shape: the negotiated shape
 * @error: return location for a #GError, or %NULL
 *
 * Looks for NaN and infinities in the frame's inputs, which LAPACKE would
 * refuse as an illegal parameter and cuSOLVER would factor into NaN, so
 * that both backends fail such a frame alike, as bad input. On the host the
 * inputs are searched now; on a GPU the search is enqueued on the frame's
 * stream and accel_solver_gpu_fetch_info() reports what it found. Called
 * from process(), before the frame's other work.
 *
 * Returns: %TRUE when the host search found nothing or the GPU search is
 * enqueued.
 */
gboolean
accel_solver_check_inputs (AccelStage *stage, AccelSolverGpu *gpu,
    AccelFrame *frame, const AccelSolverShape *shape, GError **error)
{
  gboolean host = accel_stage_is_host (stage);
  gpointer stream = accel_stream_get_handle (frame->stream);

  if (!host
      && !accel_cuda_check (
          cudaMemsetAsync (gpu->dev_first, 0xff,
              ACCEL_SOLVER_N_FIRST * sizeof (guint64), stream),
          error))
    return FALSE;
  for (guint p = 0; p < frame->n_inputs && p < ACCEL_SOLVER_MAX_INPUTS; p++)
    {
      gconstpointer data = accel_buffer_get_data (frame->inputs[p]);
      gint64 rows, cols;
      gsize count, first;

      input_matrix_dims (shape, p, &rows, &cols);
      count = (gsize)(shape->batch * rows * cols);
      if (host)
        {
          first = shape->dtype == ACCEL_DTYPE_F64
                      ? accel_solver_find_nonfinite_f64_host (data, count)
                      : accel_solver_find_nonfinite_f32_host (data, count);
          if (first < count)
            return nonfinite_input (stage, frame, shape, p, first, error);
          continue;
        }
      if (!accel_cuda_check (find_nonfinite (shape->dtype, stream, data, count,
                                 gpu->dev_first + p),
              error))
        return FALSE;
    }
  return TRUE;
}

/**
 * accel_solver_transpose:
 * @dtype: f32 or f64
 * @frame: the frame, whose stream the copy goes on
 * @in: device matrix, column-major with leading dimension @in_ld
 * @in_ld: see @in
 * @out: device matrix, row-major out_rows x out_cols, leading dimension
 *   @out_ld
 * @out_rows: see @out
 * @out_cols: see @out
 * @out_ld: see @out
 * @upper: zeros below the diagonal (the R of a QR)
 * @error: return location for a #GError, or %NULL
 *
 * Enqueues out = in^T, in the terms of accel_solver_transpose_f32().
 *
 * Returns: %TRUE on success.
 */
gboolean
accel_solver_transpose (AccelDType dtype, AccelFrame *frame, gconstpointer in,
    gsize in_ld, gpointer out, gsize out_rows, gsize out_cols, gsize out_ld,
    gboolean upper, GError **error)
{
  gpointer stream = accel_stream_get_handle (frame->stream);

  if (dtype == ACCEL_DTYPE_F64)
    return accel_cuda_check (accel_solver_transpose_f64 (stream, in, in_ld, out,
                                 out_rows, out_cols, out_ld, upper),
        error);
  return accel_cuda_check (accel_solver_transpose_f32 (stream, in, in_ld, out,
                               out_rows, out_cols, out_ld, upper),
      error);
}

/**
 * accel_solver_copy:
 * @frame: the frame, whose stream the copy goes on
 * @dst: device memory
 * @src: device memory
 * @size: bytes
 * @error: return location for a #GError, or %NULL
 *
 * Enqueues a device to device copy.
 *
 * Returns: %TRUE on success.
 */
gboolean
accel_solver_copy (AccelFrame *frame, gpointer dst, gconstpointer src,
    gsize size, GError **error)
{
  return accel_cuda_check (
      cudaMemcpyAsync (dst, src, size, cudaMemcpyDeviceToDevice,
          accel_stream_get_handle (frame->stream)),
      error);
}

/**
 * accel_solver_bad_input:
 * @stage: the processing stage
 * @frame: its frame
 * @shape: the negotiated shape
 * @index: which matrix of the batch
 * @error: return location for a #GError, or %NULL
 * @format: what is wrong with it, printf-style
 *
 * Sets @error to %ACCEL_ERROR_INVALID_INPUT naming the stage, the frame and
 * the matrix.
 *
 * Returns: %FALSE.
 */
gboolean
accel_solver_bad_input (AccelStage *stage, AccelFrame *frame,
    const AccelSolverShape *shape, gint64 index, GError **error,
    const char *format, ...)
{
  g_autofree gchar *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT,
      "stage '%s' (%s): frame %" G_GUINT64_FORMAT ", matrix %" G_GINT64_FORMAT
      " of %" G_GINT64_FORMAT ": %s",
      accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
      frame->sequence, index, shape->batch, what);
  return FALSE;
}

/**
 * accel_solver_overflowed:
 * @stage: the processing stage
 * @frame: the frame
 * @shape: the negotiated shape
 * @index: the matrix of the batch
 * @what: the output that is not finite ("its factors")
 * @error: return location for a #GError, or %NULL
 *
 * From finite inputs, matrix @index's @what holds NaN or an infinity: its
 * elements' products, or a pivot's reciprocal, overflowed. Cholesky gave
 * an infinite x, SVD and eigh infinite values, QR NaN in q or LAPACKE's
 * "parameter 5 had an illegal value", all but the last with exit 0.
 *
 * Returns: %FALSE, with accel_solver_bad_input ()'s error.
 */
gboolean
accel_solver_overflowed (AccelStage *stage, AccelFrame *frame,
    const AccelSolverShape *shape, gint64 index, const char *what,
    GError **error)
{
  gboolean dbl = shape->dtype == ACCEL_DTYPE_F64;

  return accel_solver_bad_input (stage, frame, shape, index, error,
      "the input is finite, but %s %s not: it is too large or too badly "
      "scaled for %s (a product, or a pivot's reciprocal, overflows past "
      "%g); scale it%s",
      what, g_str_has_suffix (what, "s") ? "are" : "is", dbl ? "f64" : "f32",
      dbl ? DBL_MAX : FLT_MAX, dbl ? "" : ", or solve in f64");
}

/**
 * accel_solver_gpu_check_output:
 * @stage: the processing stage
 * @gpu: its cuSOLVER state, after accel_solver_gpu_fetch_info ()
 * @frame: the frame
 * @shape: the negotiated shape
 * @per_matrix: the elements of each matrix's share of the output searched
 *   by accel_solver_gpu_find_nonfinite_output ()
 * @what: that output, as accel_solver_overflowed () names it
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %FALSE (accel_solver_overflowed ()) where the output searched
 *   holds NaN or an infinity.
 */
gboolean
accel_solver_gpu_check_output (AccelStage *stage, AccelSolverGpu *gpu,
    AccelFrame *frame, const AccelSolverShape *shape, gsize per_matrix,
    const char *what, GError **error)
{
  guint64 first = gpu->host_first[ACCEL_SOLVER_MAX_INPUTS];

  return first == G_MAXUINT64
         || accel_solver_overflowed (
             stage, frame, shape, (gint64)(first / per_matrix), what, error);
}

/**
 * accel_solver_bad_parameter:
 * @stage: the processing stage
 * @routine: the LAPACK or cuSOLVER routine
 * @info: its negative info
 * @error: return location for a #GError, or %NULL
 *
 * A negative info says the stage called the routine wrongly: sets @error
 * to %ACCEL_ERROR_LIBRARY saying which parameter. LAPACKE's own codes for
 * a workspace it could not allocate are %ACCEL_ERROR_OUT_OF_MEMORY.
 *
 * Returns: %FALSE.
 */
gboolean
accel_solver_bad_parameter (
    AccelStage *stage, const char *routine, int info, GError **error)
{
  if (info == LAPACK_WORK_MEMORY_ERROR || info == LAPACK_TRANSPOSE_MEMORY_ERROR)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_OUT_OF_MEMORY,
          "stage '%s' (%s): %s: LAPACKE could not allocate its %s (info %d)",
          accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
          routine,
          info == LAPACK_WORK_MEMORY_ERROR ? "workspace"
                                           : "row-major transposes",
          info);
      return FALSE;
    }
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_LIBRARY,
      "stage '%s' (%s): %s: parameter %d had an illegal value (info %d)",
      accel_stage_get_name (stage), accel_stage_get_kind_name (stage), routine,
      -info, info);
  return FALSE;
}

/**
 * accel_solver_rhs_in:
 * @shape: the negotiated shape
 * @frame: the frame, whose stream the copy goes on
 * @b: one matrix's right-hand sides, row-major n x nrhs
 * @x: where its solution goes, row-major n x nrhs
 * @slot: device scratch of n x nrhs (used when nrhs > 1)
 * @error: return location for a #GError, or %NULL
 *
 * cuSOLVER solves in place on column-major right-hand sides: a vector is
 * the same either way and is copied into @x, solved there; a matrix is
 * transposed into @slot, and accel_solver_rhs_out() brings the solution
 * back.
 *
 * Returns: (nullable): where to solve: @x or @slot (leading dimension n);
 * %NULL on failure.
 */
gpointer
accel_solver_rhs_in (const AccelSolverShape *shape, AccelFrame *frame,
    gconstpointer b, gpointer x, gpointer slot, GError **error)
{
  gsize es = accel_dtype_get_size (shape->dtype);

  if (shape->nrhs == 1)
    return accel_solver_copy (frame, x, b, shape->n * es, error) ? x : NULL;
  return accel_solver_transpose (shape->dtype, frame, b, shape->nrhs, slot,
             shape->nrhs, shape->n, shape->n, FALSE, error)
             ? slot
             : NULL;
}

/**
 * accel_solver_rhs_out:
 * @shape: the negotiated shape
 * @frame: the frame, whose stream the copy goes on
 * @slot: what accel_solver_rhs_in() returned, solved
 * @x: where the solution goes, row-major n x nrhs
 * @error: return location for a #GError, or %NULL
 *
 * Brings a solution solved in the scratch back to @x.
 *
 * Returns: %TRUE on success.
 */
gboolean
accel_solver_rhs_out (const AccelSolverShape *shape, AccelFrame *frame,
    gconstpointer slot, gpointer x, GError **error)
{
  if (slot == x)
    return TRUE;
  return accel_solver_transpose (shape->dtype, frame, slot, shape->n, x,
      shape->n, shape->nrhs, shape->nrhs, FALSE, error);
}
