/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel solver plugin: solver.lu, x = A^-1 b through the LU factorization
 * with partial pivoting (getrf + getrs) */
#define G_LOG_DOMAIN "accel-solver"

#include <float.h>
#include <lapacke.h>
#include <string.h>

#include "accellu.h"
#include "accelhostscratch.h"
#include "accelsolver-private.h"

struct _AccelLu
{
  AccelStage parent;

  AccelSolverShape shape;
  AccelSolverGpu gpu;
  gsize off_ipiv, off_rhs; /* regions of gpu.mat after the matrix */
  int lwork;

  /* host: the factorization of one matrix and its pivots */
  gpointer lu;
  lapack_int *ipiv;
};

G_DEFINE_FINAL_TYPE (AccelLu, accel_lu, ACCEL_TYPE_STAGE)

static gboolean
accel_lu_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelLu *self = ACCEL_LU (stage);

  return accel_solver_negotiate_system (
      stage, in_types, out_types, &self->shape, error);
}

static cusolverStatus_t
getrf_size (AccelLu *self, int *lwork)
{
  int n = (int)self->shape.n;

  if (self->shape.dtype == ACCEL_DTYPE_F64)
    return cusolverDnDgetrf_bufferSize (
        self->gpu.handle, n, n, self->gpu.mat, n, lwork);
  return cusolverDnSgetrf_bufferSize (
      self->gpu.handle, n, n, self->gpu.mat, n, lwork);
}

static gboolean
accel_lu_start (AccelStage *stage, GError **error)
{
  AccelLu *self = ACCEL_LU (stage);
  const AccelSolverShape *s = &self->shape;
  gsize es = accel_dtype_get_size (s->dtype);

  if (accel_stage_is_host (stage))
    {
      if ((self->lu = accel_host_scratch_new (stage, s->n * s->n, es, error))
          && (self->ipiv = accel_host_scratch_new (
                  stage, s->n, sizeof (lapack_int), error)))
        return TRUE;
      g_clear_pointer (&self->lu, g_free);
      return FALSE;
    }
  self->off_ipiv = accel_solver_align (s->n * s->n * es);
  self->off_rhs = self->off_ipiv + accel_solver_align (s->n * sizeof (int));
  if (!accel_solver_gpu_start (stage, &self->gpu,
          self->off_rhs + (s->nrhs > 1 ? s->n * s->nrhs * es : 0), 2 * s->batch,
          error))
    return FALSE;
  if (!accel_cusolver_check (stage, getrf_size (self, &self->lwork), error)
      || !accel_solver_gpu_alloc_work (
          stage, &self->gpu, self->lwork * es, error))
    {
      accel_solver_gpu_stop (stage, &self->gpu);
      return FALSE;
    }
  return TRUE;
}

static void
accel_lu_stop (AccelStage *stage)
{
  AccelLu *self = ACCEL_LU (stage);

  accel_solver_gpu_stop (stage, &self->gpu);
  g_clear_pointer (&self->lu, g_free);
  g_clear_pointer (&self->ipiv, g_free);
}

static gboolean
check_info (AccelLu *self, AccelFrame *frame, gint64 i, int info_factor,
    int info_solve, GError **error)
{
  AccelStage *stage = ACCEL_STAGE (self);

  if (info_factor < 0)
    return accel_solver_bad_parameter (stage, "getrf", info_factor, error);
  if (info_factor > 0)
    return accel_solver_bad_input (stage, frame, &self->shape, i, error,
        "a is singular: pivot %d of %" G_GINT64_FORMAT
        " of its LU factorization is exactly zero",
        info_factor, self->shape.n);
  if (info_solve < 0)
    return accel_solver_bad_parameter (stage, "getrs", info_solve, error);
  return TRUE;
}

/* matrix @i's factors or x overflowed from finite a and b: a pivot below
 * the smallest normal number, whose reciprocal getrf multiplies by
 * (OpenBLAS's does), or an x past the largest. It gave NaN in x (exit 0),
 * or LAPACKE's "parameter 5 had an illegal value" */
static AccelFlow
not_finite (AccelLu *self, AccelFrame *frame, gint64 i, GError **error)
{
  gboolean dbl = self->shape.dtype == ACCEL_DTYPE_F64;

  accel_solver_bad_input (ACCEL_STAGE (self), frame, &self->shape, i, error,
      "a and b are finite, but its LU factors or x are not: a is too badly "
      "scaled or ill-conditioned for %s (a pivot below %g, the smallest "
      "normal %s, or an element of x past the largest); scale a%s",
      dbl ? "f64" : "f32", dbl ? DBL_MIN : FLT_MIN, dbl ? "f64" : "f32",
      dbl ? "" : ", or solve in f64");
  return ACCEL_FLOW_ERROR;
}

static AccelFlow
process_host (AccelLu *self, AccelFrame *frame, GError **error)
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

      memcpy (self->lu, a + i * a_size, a_size);
      info = dbl ? LAPACKE_dgetrf (
                 LAPACK_ROW_MAJOR, s->n, s->n, self->lu, s->n, self->ipiv)
                 : LAPACKE_sgetrf (
                     LAPACK_ROW_MAJOR, s->n, s->n, self->lu, s->n, self->ipiv);
      if (info == 0
          && accel_solver_find_nonfinite_host (s, self->lu, s->n * s->n))
        return not_finite (self, frame, i, error);
      if (info == 0)
        {
          memcpy (x + i * b_size, b + i * b_size, b_size);
          info_solve = dbl ? LAPACKE_dgetrs (LAPACK_ROW_MAJOR, 'N', s->n,
                           s->nrhs, self->lu, s->n, self->ipiv,
                           (double *)(x + i * b_size), s->nrhs)
                           : LAPACKE_sgetrs (LAPACK_ROW_MAJOR, 'N', s->n,
                               s->nrhs, self->lu, s->n, self->ipiv,
                               (float *)(x + i * b_size), s->nrhs);
        }
      if (!check_info (self, frame, i, info, info_solve, error))
        return ACCEL_FLOW_ERROR;
      if (accel_solver_find_nonfinite_host (s, x + i * b_size, s->n * s->nrhs))
        return not_finite (self, frame, i, error);
    }
  return ACCEL_FLOW_OK;
}

static cusolverStatus_t
getrf (AccelLu *self, int n, gpointer a, int *ipiv, int *info)
{
  if (self->shape.dtype == ACCEL_DTYPE_F64)
    return cusolverDnDgetrf (
        self->gpu.handle, n, n, a, n, self->gpu.work, ipiv, info);
  return cusolverDnSgetrf (
      self->gpu.handle, n, n, a, n, self->gpu.work, ipiv, info);
}

static cusolverStatus_t
getrs_transposed (AccelLu *self, int n, int nrhs, gconstpointer lu,
    const int *ipiv, gpointer b, int *info)
{
  if (self->shape.dtype == ACCEL_DTYPE_F64)
    return cusolverDnDgetrs (
        self->gpu.handle, CUBLAS_OP_T, n, nrhs, lu, n, ipiv, b, n, info);
  return cusolverDnSgetrs (
      self->gpu.handle, CUBLAS_OP_T, n, nrhs, lu, n, ipiv, b, n, info);
}

static AccelFlow
accel_lu_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelLu *self = ACCEL_LU (stage);
  const AccelSolverShape *s = &self->shape;
  AccelSolverGpu *gpu = &self->gpu;
  gsize es = accel_dtype_get_size (s->dtype);
  const guint8 *a = accel_buffer_get_data (frame->inputs[0]);
  const guint8 *b = accel_buffer_get_data (frame->inputs[1]);
  guint8 *x = accel_buffer_get_data (frame->outputs[0]);
  gsize a_size = s->n * s->n * es, b_size = s->n * s->nrhs * es;
  gpointer lu = gpu->mat;
  int *ipiv = (int *)((guint8 *)gpu->mat + self->off_ipiv);
  gpointer rhs = (guint8 *)gpu->mat + self->off_rhs;
  int n = (int)s->n, nrhs = (int)s->nrhs;

  if (!accel_solver_check_inputs (stage, gpu, frame, s, error))
    return ACCEL_FLOW_ERROR;
  if (accel_stage_is_host (stage))
    return process_host (self, frame, error);

  if (!accel_solver_gpu_bind (stage, gpu, frame, error))
    return ACCEL_FLOW_ERROR;
  /* a row-major matrix read column-major is its transpose: getrf factors
   * A^T, and getrs with the transpose flag solves (A^T)^T x = A x = b.
   * The matrices go one after the other through the same scratch, in
   * stream order. */
  for (gint64 i = 0; i < s->batch; i++)
    {
      gpointer target;

      if (!accel_solver_copy (frame, lu, a + i * a_size, a_size, error)
          || !accel_cusolver_check (
              stage, getrf (self, n, lu, ipiv, gpu->dev_info + i), error))
        return ACCEL_FLOW_ERROR;
      target = accel_solver_rhs_in (
          s, frame, b + i * b_size, x + i * b_size, rhs, error);
      if (!target
          || !accel_cusolver_check (stage,
              getrs_transposed (self, n, nrhs, lu, ipiv, target,
                  gpu->dev_info + s->batch + i),
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
  if (gpu->host_first[ACCEL_SOLVER_MAX_INPUTS] != G_MAXUINT64)
    return not_finite (self, frame,
        (gint64)(gpu->host_first[ACCEL_SOLVER_MAX_INPUTS]
                 / (guint64)(s->n * s->nrhs)),
        error);
  return ACCEL_FLOW_OK;
}

static void
accel_lu_class_init (AccelLuClass *klass)
{
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);

  stage_class->negotiate = accel_lu_negotiate;
  stage_class->start = accel_lu_start;
  stage_class->stop = accel_lu_stop;
  stage_class->process = accel_lu_process;

  accel_stage_class_set_metadata (stage_class, "solver.lu",
      "Solves A x = b through the LU factorization with partial pivoting "
      "(getrf + getrs), for a matrix or a batch; a singular A fails the "
      "frame; f32 or f64");
  accel_solver_class_add_port (stage_class, ACCEL_PORT_INPUT, "a",
      "[n, n] or [batch, n, n], row-major, f32 or f64");
  accel_solver_class_add_port (stage_class, ACCEL_PORT_INPUT, "b",
      "[n] or [n, nrhs] per matrix of a, the dtype of a");
  accel_solver_class_add_port (
      stage_class, ACCEL_PORT_OUTPUT, "x", "the shape and dtype of b");
}

static void
accel_lu_init (AccelLu *self)
{
}
