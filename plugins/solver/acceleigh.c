/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel solver plugin: solver.eigh, A = V diag (w) V^T for a symmetric A
 * (syevd) */
#define G_LOG_DOMAIN "accel-solver"

#include <lapacke.h>
#include <string.h>

#include "acceleigh.h"
#include "accelsolver-private.h"

/* a row-major symmetric A read column-major is A itself: syevd reads the
 * upper triangle of that reading, the lower triangle of the row-major A,
 * as the host's LAPACKE call does with 'L' */
#define GPU_FILL CUBLAS_FILL_MODE_UPPER
#define HOST_UPLO 'L'

struct _AccelEigh
{
  AccelStage parent;

  AccelSolverShape shape;
  AccelSolverGpu gpu;
  int lwork;
};

G_DEFINE_FINAL_TYPE (AccelEigh, accel_eigh, ACCEL_TYPE_STAGE)

enum
{
  PORT_W,
  PORT_V,
};

static gboolean
accel_eigh_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelEigh *self = ACCEL_EIGH (stage);
  const AccelSolverShape *s = &self->shape;

  if (!accel_solver_negotiate_matrix (
          stage, &in_types[0], TRUE, &self->shape, error))
    return FALSE;
  accel_solver_output_type (s, &out_types[PORT_W], 1, s->n, 0);
  accel_solver_output_type (s, &out_types[PORT_V], 2, s->n, s->n);
  return TRUE;
}

static gboolean
accel_eigh_start (AccelStage *stage, GError **error)
{
  AccelEigh *self = ACCEL_EIGH (stage);
  const AccelSolverShape *s = &self->shape;
  gsize es = accel_dtype_get_size (s->dtype);
  int n = (int)s->n;
  cusolverStatus_t status;

  if (accel_stage_is_host (stage))
    return TRUE;
  if (!accel_solver_gpu_start (
          stage, &self->gpu, s->n * s->n * es, s->batch, error))
    return FALSE;
  /* the eigenvalue pointer is not read here; any device pointer does */
  if (s->dtype == ACCEL_DTYPE_F64)
    status = cusolverDnDsyevd_bufferSize (self->gpu.handle,
        CUSOLVER_EIG_MODE_VECTOR, GPU_FILL, n, self->gpu.mat, n, self->gpu.mat,
        &self->lwork);
  else
    status = cusolverDnSsyevd_bufferSize (self->gpu.handle,
        CUSOLVER_EIG_MODE_VECTOR, GPU_FILL, n, self->gpu.mat, n, self->gpu.mat,
        &self->lwork);
  if (!accel_cusolver_check (stage, status, error)
      || !accel_solver_gpu_alloc_work (
          stage, &self->gpu, self->lwork * es, error))
    {
      accel_solver_gpu_stop (stage, &self->gpu);
      return FALSE;
    }
  return TRUE;
}

static void
accel_eigh_stop (AccelStage *stage)
{
  AccelEigh *self = ACCEL_EIGH (stage);

  accel_solver_gpu_stop (stage, &self->gpu);
}

static gboolean
check_info (
    AccelEigh *self, AccelFrame *frame, gint64 i, int info, GError **error)
{
  AccelStage *stage = ACCEL_STAGE (self);

  if (info < 0)
    return accel_solver_bad_parameter (stage, "syevd", info, error);
  if (info > 0)
    return accel_solver_bad_input (stage, frame, &self->shape, i, error,
        "the eigendecomposition did not converge (syevd info %d)", info);
  return TRUE;
}

/* syevd overwrites its matrix with the eigenvectors, in columns: the
 * output v starts as a copy of A */
static AccelFlow
process_host (AccelEigh *self, AccelFrame *frame, GError **error)
{
  const AccelSolverShape *s = &self->shape;
  gboolean dbl = s->dtype == ACCEL_DTYPE_F64;
  gsize es = accel_dtype_get_size (s->dtype);
  const guint8 *a = accel_buffer_get_data (frame->inputs[0]);
  guint8 *w = accel_buffer_get_data (frame->outputs[PORT_W]);
  guint8 *v = accel_buffer_get_data (frame->outputs[PORT_V]);
  gsize a_size = s->n * s->n * es;

  for (gint64 i = 0; i < s->batch; i++)
    {
      gpointer vi = v + i * a_size, wi = w + i * s->n * es;
      lapack_int info;

      memcpy (vi, a + i * a_size, a_size);
      info = dbl ? LAPACKE_dsyevd (
                 LAPACK_ROW_MAJOR, 'V', HOST_UPLO, s->n, vi, s->n, wi)
                 : LAPACKE_ssyevd (
                     LAPACK_ROW_MAJOR, 'V', HOST_UPLO, s->n, vi, s->n, wi);
      if (!check_info (self, frame, i, info, error)
          || (accel_solver_find_nonfinite_host (s, wi, s->n)
              && !accel_solver_overflowed (
                  ACCEL_STAGE (self), frame, s, i, "its eigenvalues", error)))
        return ACCEL_FLOW_ERROR;
    }
  return ACCEL_FLOW_OK;
}

static cusolverStatus_t
syevd (AccelEigh *self, gpointer a, gpointer w, int *info)
{
  AccelSolverGpu *gpu = &self->gpu;
  int n = (int)self->shape.n;

  if (self->shape.dtype == ACCEL_DTYPE_F64)
    return cusolverDnDsyevd (gpu->handle, CUSOLVER_EIG_MODE_VECTOR, GPU_FILL, n,
        a, n, w, gpu->work, self->lwork, info);
  return cusolverDnSsyevd (gpu->handle, CUSOLVER_EIG_MODE_VECTOR, GPU_FILL, n,
      a, n, w, gpu->work, self->lwork, info);
}

static AccelFlow
accel_eigh_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelEigh *self = ACCEL_EIGH (stage);
  const AccelSolverShape *s = &self->shape;
  AccelSolverGpu *gpu = &self->gpu;
  gsize es = accel_dtype_get_size (s->dtype);
  gsize a_size = s->n * s->n * es;
  const guint8 *a = accel_buffer_get_data (frame->inputs[0]);
  guint8 *w = accel_buffer_get_data (frame->outputs[PORT_W]);
  guint8 *v = accel_buffer_get_data (frame->outputs[PORT_V]);

  if (!accel_solver_check_inputs (stage, gpu, frame, s, error))
    return ACCEL_FLOW_ERROR;
  if (accel_stage_is_host (stage))
    return process_host (self, frame, error);

  if (!accel_solver_gpu_bind (stage, gpu, frame, error))
    return ACCEL_FLOW_ERROR;
  /* the eigenvectors come out in the columns of a column-major matrix:
   * transposed into the row-major v they stay columns. One matrix after
   * the other through the same scratch, in stream order. */
  for (gint64 i = 0; i < s->batch; i++)
    if (!accel_solver_copy (frame, gpu->mat, a + i * a_size, a_size, error)
        || !accel_cusolver_check (stage,
            syevd (self, gpu->mat, w + i * s->n * es, gpu->dev_info + i), error)
        || !accel_solver_transpose (s->dtype, frame, gpu->mat, s->n,
            v + i * a_size, s->n, s->n, s->n, FALSE, error))
      return ACCEL_FLOW_ERROR;
  if (!accel_solver_gpu_find_nonfinite_output (
          gpu, frame, s, w, s->batch * s->n, error)
      || !accel_solver_gpu_fetch_info (stage, gpu, frame, s, error))
    return ACCEL_FLOW_ERROR;
  for (gint64 i = 0; i < s->batch; i++)
    if (!check_info (self, frame, i, gpu->host_info[i], error))
      return ACCEL_FLOW_ERROR;
  if (!accel_solver_gpu_check_output (
          stage, gpu, frame, s, s->n, "its eigenvalues", error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_eigh_class_init (AccelEighClass *klass)
{
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);

  stage_class->negotiate = accel_eigh_negotiate;
  stage_class->start = accel_eigh_start;
  stage_class->stop = accel_eigh_stop;
  stage_class->process = accel_eigh_process;

  accel_stage_class_set_metadata (stage_class, "solver.eigh",
      "Eigendecomposition of a symmetric matrix, A = V diag (w) V^T "
      "(syevd; only the lower triangle of A is read): eigenvalues in "
      "increasing order, eigenvectors in the columns of V; for a matrix or "
      "a batch; f32 or f64");
  accel_solver_class_add_port (stage_class, ACCEL_PORT_INPUT, "a",
      "[n, n] or [batch, n, n], row-major, symmetric, f32 or f64");
  accel_solver_class_add_port (stage_class, ACCEL_PORT_OUTPUT, "w",
      "[batch,] n, the dtype of a, increasing");
  accel_solver_class_add_port (stage_class, ACCEL_PORT_OUTPUT, "v",
      "[batch,] n x n, the dtype of a: eigenvector j in column j");
}

static void
accel_eigh_init (AccelEigh *self)
{
}
