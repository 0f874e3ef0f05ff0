/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel solver plugin: solver.cholesky, x = A^-1 b for a symmetric positive
 * definite A through its Cholesky factorization (potrf + potrs) */
#define G_LOG_DOMAIN "accel-solver"

#include <lapacke.h>
#include <string.h>

#include "accelcholesky.h"
#include "accelhostscratch.h"
#include "accelsolver-private.h"

/* a row-major matrix read column-major is its transpose, which for a
 * symmetric A is A itself: the factorizations read the upper triangle of
 * the column-major reading, which is the lower triangle of the row-major
 * A, as the host's LAPACKE calls do with 'L' */
#define GPU_FILL CUBLAS_FILL_MODE_UPPER
#define HOST_UPLO 'L'

struct _AccelCholesky
{
  AccelStage parent;

  AccelSolverShape shape;
  AccelSolverGpu gpu;
  gsize off_rhs; /* region of gpu.mat after the matrix */
  int lwork;

  gpointer factor; /* host: the factorization of one matrix */
};

G_DEFINE_FINAL_TYPE (AccelCholesky, accel_cholesky, ACCEL_TYPE_STAGE)

static gboolean
accel_cholesky_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelCholesky *self = ACCEL_CHOLESKY (stage);

  return accel_solver_negotiate_system (
      stage, in_types, out_types, &self->shape, error);
}

static cusolverStatus_t
potrf_size (AccelCholesky *self, int *lwork)
{
  int n = (int)self->shape.n;

  if (self->shape.dtype == ACCEL_DTYPE_F64)
    return cusolverDnDpotrf_bufferSize (
        self->gpu.handle, GPU_FILL, n, self->gpu.mat, n, lwork);
  return cusolverDnSpotrf_bufferSize (
      self->gpu.handle, GPU_FILL, n, self->gpu.mat, n, lwork);
}

static gboolean
accel_cholesky_start (AccelStage *stage, GError **error)
{
  AccelCholesky *self = ACCEL_CHOLESKY (stage);
  const AccelSolverShape *s = &self->shape;
  gsize es = accel_dtype_get_size (s->dtype);

  if (accel_stage_is_host (stage))
    {
      self->factor = accel_host_scratch_new (stage, s->n * s->n, es, error);
      return self->factor != NULL;
    }
  self->off_rhs = accel_solver_align (s->n * s->n * es);
  if (!accel_solver_gpu_start (stage, &self->gpu,
          self->off_rhs + (s->nrhs > 1 ? s->n * s->nrhs * es : 0), 2 * s->batch,
          error))
    return FALSE;
  if (!accel_cusolver_check (stage, potrf_size (self, &self->lwork), error)
      || !accel_solver_gpu_alloc_work (
          stage, &self->gpu, self->lwork * es, error))
    {
      accel_solver_gpu_stop (stage, &self->gpu);
      return FALSE;
    }
  return TRUE;
}

static void
accel_cholesky_stop (AccelStage *stage)
{
  AccelCholesky *self = ACCEL_CHOLESKY (stage);

  accel_solver_gpu_stop (stage, &self->gpu);
  g_clear_pointer (&self->factor, g_free);
}

static gboolean
check_info (AccelCholesky *self, AccelFrame *frame, gint64 i, int info_factor,
    int info_solve, GError **error)
{
  AccelStage *stage = ACCEL_STAGE (self);

  if (info_factor < 0)
    return accel_solver_bad_parameter (stage, "potrf", info_factor, error);
  if (info_factor > 0)
    return accel_solver_bad_input (stage, frame, &self->shape, i, error,
        "a is not positive definite: its leading minor of order %d is not "
        "positive",
        info_factor);
  if (info_solve < 0)
    return accel_solver_bad_parameter (stage, "potrs", info_solve, error);
  return TRUE;
}

static AccelFlow
process_host (AccelCholesky *self, AccelFrame *frame, GError **error)
{
  const AccelSolverShape *s = &self->shape;
  gboolean dbl = s->dtype == ACCEL_DTYPE_F64;
  gsize es = accel_dtype_get_size (s->dtype);
  const guint8 *a = accel_buffer_get_data (frame->inputs[0]);
  const guint8 *b = accel_buffer_get_data (frame->inputs[1]);
  guint8 *x = accel_buffer_get_data (frame->outputs[0]);
  gsize a_size = s->n * s->n * es, b_size = s->n * s->nrhs * es;

  for (gint64 i = 0; i < s->batch; i++)
    {
      lapack_int info, info_solve = 0;

      memcpy (self->factor, a + i * a_size, a_size);
      info = dbl ? LAPACKE_dpotrf (
                 LAPACK_ROW_MAJOR, HOST_UPLO, s->n, self->factor, s->n)
                 : LAPACKE_spotrf (
                     LAPACK_ROW_MAJOR, HOST_UPLO, s->n, self->factor, s->n);
      if (info == 0
          && accel_solver_find_nonfinite_host (s, self->factor, s->n * s->n))
        {
          accel_solver_overflowed (
              ACCEL_STAGE (self), frame, s, i, "its factor", error);
          return ACCEL_FLOW_ERROR;
        }
      if (info == 0)
        {
          memcpy (x + i * b_size, b + i * b_size, b_size);
          info_solve = dbl ? LAPACKE_dpotrs (LAPACK_ROW_MAJOR, HOST_UPLO, s->n,
                           s->nrhs, self->factor, s->n,
                           (double *)(x + i * b_size), s->nrhs)
                           : LAPACKE_spotrs (LAPACK_ROW_MAJOR, HOST_UPLO, s->n,
                               s->nrhs, self->factor, s->n,
                               (float *)(x + i * b_size), s->nrhs);
        }
      if (!check_info (self, frame, i, info, info_solve, error)
          || (accel_solver_find_nonfinite_host (
                  s, x + i * b_size, s->n * s->nrhs)
              && !accel_solver_overflowed (
                  ACCEL_STAGE (self), frame, s, i, "x", error)))
        return ACCEL_FLOW_ERROR;
    }
  return ACCEL_FLOW_OK;
}

static cusolverStatus_t
potrf (AccelCholesky *self, int n, gpointer a, int *info)
{
  if (self->shape.dtype == ACCEL_DTYPE_F64)
    return cusolverDnDpotrf (
        self->gpu.handle, GPU_FILL, n, a, n, self->gpu.work, self->lwork, info);
  return cusolverDnSpotrf (
      self->gpu.handle, GPU_FILL, n, a, n, self->gpu.work, self->lwork, info);
}

static cusolverStatus_t
potrs (AccelCholesky *self, int n, int nrhs, gconstpointer factor, gpointer b,
    int *info)
{
  if (self->shape.dtype == ACCEL_DTYPE_F64)
    return cusolverDnDpotrs (
        self->gpu.handle, GPU_FILL, n, nrhs, factor, n, b, n, info);
  return cusolverDnSpotrs (
      self->gpu.handle, GPU_FILL, n, nrhs, factor, n, b, n, info);
}

static AccelFlow
accel_cholesky_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelCholesky *self = ACCEL_CHOLESKY (stage);
  const AccelSolverShape *s = &self->shape;
  AccelSolverGpu *gpu = &self->gpu;
  gsize es = accel_dtype_get_size (s->dtype);
  const guint8 *a = accel_buffer_get_data (frame->inputs[0]);
  const guint8 *b = accel_buffer_get_data (frame->inputs[1]);
  guint8 *x = accel_buffer_get_data (frame->outputs[0]);
  gsize a_size = s->n * s->n * es, b_size = s->n * s->nrhs * es;
  gpointer factor = gpu->mat;
  gpointer rhs = (guint8 *)gpu->mat + self->off_rhs;
  int n = (int)s->n, nrhs = (int)s->nrhs;

  if (!accel_solver_check_inputs (stage, gpu, frame, s, error))
    return ACCEL_FLOW_ERROR;
  if (accel_stage_is_host (stage))
    return process_host (self, frame, error);

  if (!accel_solver_gpu_bind (stage, gpu, frame, error))
    return ACCEL_FLOW_ERROR;
  /* one matrix after the other through the same scratch, in stream order */
  for (gint64 i = 0; i < s->batch; i++)
    {
      gpointer target;

      if (!accel_solver_copy (frame, factor, a + i * a_size, a_size, error)
          || !accel_cusolver_check (
              stage, potrf (self, n, factor, gpu->dev_info + i), error))
        return ACCEL_FLOW_ERROR;
      target = accel_solver_rhs_in (
          s, frame, b + i * b_size, x + i * b_size, rhs, error);
      if (!target
          || !accel_cusolver_check (stage,
              potrs (
                  self, n, nrhs, factor, target, gpu->dev_info + s->batch + i),
              error)
          || !accel_solver_rhs_out (s, frame, target, x + i * b_size, error))
        return ACCEL_FLOW_ERROR;
    }
  if (!accel_solver_gpu_find_nonfinite_output (
          gpu, frame, s, x, s->batch * s->n * s->nrhs, error)
      || !accel_solver_gpu_fetch_info (stage, gpu, frame, s, error))
    return ACCEL_FLOW_ERROR;
  for (gint64 i = 0; i < s->batch; i++)
    if (!check_info (self, frame, i, gpu->host_info[i],
            gpu->host_info[s->batch + i], error))
      return ACCEL_FLOW_ERROR;
  if (!accel_solver_gpu_check_output (
          stage, gpu, frame, s, s->n * s->nrhs, "x", error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_cholesky_class_init (AccelCholeskyClass *klass)
{
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);

  stage_class->negotiate = accel_cholesky_negotiate;
  stage_class->start = accel_cholesky_start;
  stage_class->stop = accel_cholesky_stop;
  stage_class->process = accel_cholesky_process;

  accel_stage_class_set_metadata (stage_class, "solver.cholesky",
      "Solves A x = b for symmetric positive definite A through its "
      "Cholesky factorization (potrf + potrs; only the lower triangle of A "
      "is read), for a matrix or a batch; an A that is not positive "
      "definite fails the frame; f32 or f64");
  accel_solver_class_add_port (stage_class, ACCEL_PORT_INPUT, "a",
      "[n, n] or [batch, n, n], row-major, symmetric positive definite, f32 "
      "or f64");
  accel_solver_class_add_port (stage_class, ACCEL_PORT_INPUT, "b",
      "[n] or [n, nrhs] per matrix of a, the dtype of a");
  accel_solver_class_add_port (
      stage_class, ACCEL_PORT_OUTPUT, "x", "the shape and dtype of b");
}

static void
accel_cholesky_init (AccelCholesky *self)
{
}
