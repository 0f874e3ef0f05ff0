/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel solver plugin: solver.svd, A = U S V^T (gesvd) */
#define G_LOG_DOMAIN "accel-solver"

#include <lapacke.h>
#include <string.h>

#include "accelhostscratch.h"
#include "accelsolver-private.h"
#include "accelsvd.h"

struct _AccelSvd
{
  AccelStage parent;

  AccelSolverShape shape;
  gint64 k; /* min (m, n) */
  AccelSolverGpu gpu;
  gsize off_u, off_vt, off_rwork; /* regions of gpu.mat after the matrix */
  int lwork;

  /* host: one matrix (gesvd overwrites it) and the unconverged
   * superdiagonal */
  gpointer copy, superb;
};

G_DEFINE_FINAL_TYPE (AccelSvd, accel_svd, ACCEL_TYPE_STAGE)

enum
{
  PORT_S,
  PORT_U,
  PORT_VT,
};

static gboolean
accel_svd_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelSvd *self = ACCEL_SVD (stage);
  const AccelSolverShape *s = &self->shape;

  if (!accel_solver_negotiate_matrix (
          stage, &in_types[0], FALSE, &self->shape, error))
    return FALSE;
  self->k = MIN (s->m, s->n);
  accel_solver_output_type (s, &out_types[PORT_S], 1, self->k, 0);
  accel_solver_output_type (s, &out_types[PORT_U], 2, s->m, self->k);
  accel_solver_output_type (s, &out_types[PORT_VT], 2, self->k, s->n);
  return TRUE;
}

/* gesvd of cuSOLVER takes only matrices with at least as many rows as
 * columns. A row-major A read column-major is A^T, n x m: when n >= m it
 * goes in as it is, and A^T = U' S V'^T gives A = V' S U'^T, so cuSOLVER's
 * U' read row-major is our V^T and its V'^T read row-major our U, written
 * straight into the outputs. Otherwise A goes in transposed and U and V^T
 * come out transposed back. */
static gboolean
goes_in_transposed (const AccelSvd *self)
{
  return self->shape.m > self->shape.n;
}

static gboolean
accel_svd_start (AccelStage *stage, GError **error)
{
  AccelSvd *self = ACCEL_SVD (stage);
  const AccelSolverShape *s = &self->shape;
  gsize es = accel_dtype_get_size (s->dtype);
  gboolean transposed = goes_in_transposed (self);
  int rows = (int)(transposed ? s->m : s->n);
  int cols = (int)(transposed ? s->n : s->m);
  cusolverStatus_t status;

  if (accel_stage_is_host (stage))
    {
      if ((self->copy = accel_host_scratch_new (stage, s->m * s->n, es, error))
          && (self->superb
              = accel_host_scratch_new (stage, self->k, es, error)))
        return TRUE;
      g_clear_pointer (&self->copy, g_free);
      return FALSE;
    }
  self->off_u = accel_solver_align (s->m * s->n * es);
  self->off_vt = self->off_u;
  if (transposed)
    self->off_vt += accel_solver_align (s->m * self->k * es);
  self->off_rwork = self->off_vt;
  if (transposed)
    self->off_rwork += accel_solver_align (self->k * s->n * es);
  if (!accel_solver_gpu_start (
          stage, &self->gpu, self->off_rwork + self->k * es, s->batch, error))
    return FALSE;
  if (s->dtype == ACCEL_DTYPE_F64)
    status = cusolverDnDgesvd_bufferSize (
        self->gpu.handle, rows, cols, &self->lwork);
  else
    status = cusolverDnSgesvd_bufferSize (
        self->gpu.handle, rows, cols, &self->lwork);
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
accel_svd_stop (AccelStage *stage)
{
  AccelSvd *self = ACCEL_SVD (stage);

  accel_solver_gpu_stop (stage, &self->gpu);
  g_clear_pointer (&self->copy, g_free);
  g_clear_pointer (&self->superb, g_free);
}

static gboolean
check_info (
    AccelSvd *self, AccelFrame *frame, gint64 i, int info, GError **error)
{
  AccelStage *stage = ACCEL_STAGE (self);

  if (info < 0)
    return accel_solver_bad_parameter (stage, "gesvd", info, error);
  if (info > 0)
    return accel_solver_bad_input (stage, frame, &self->shape, i, error,
        "the SVD did not converge: %d superdiagonals of the bidiagonal form "
        "did not reach zero",
        info);
  return TRUE;
}

static AccelFlow
process_host (AccelSvd *self, AccelFrame *frame, GError **error)
{
  const AccelSolverShape *s = &self->shape;
  gboolean dbl = s->dtype == ACCEL_DTYPE_F64;
  gsize es = accel_dtype_get_size (s->dtype);
  gint64 k = self->k;
  const guint8 *a = accel_buffer_get_data (frame->inputs[0]);
  guint8 *sv = accel_buffer_get_data (frame->outputs[PORT_S]);
  guint8 *u = accel_buffer_get_data (frame->outputs[PORT_U]);
  guint8 *vt = accel_buffer_get_data (frame->outputs[PORT_VT]);

  for (gint64 i = 0; i < s->batch; i++)
    {
      gpointer si = sv + i * k * es, ui = u + i * s->m * k * es;
      gpointer vti = vt + i * k * s->n * es;
      lapack_int info;

      memcpy (self->copy, a + i * s->m * s->n * es, s->m * s->n * es);
      info = dbl ? LAPACKE_dgesvd (LAPACK_ROW_MAJOR, 'S', 'S', s->m, s->n,
                 self->copy, s->n, si, ui, k, vti, s->n, self->superb)
                 : LAPACKE_sgesvd (LAPACK_ROW_MAJOR, 'S', 'S', s->m, s->n,
                     self->copy, s->n, si, ui, k, vti, s->n, self->superb);
      if (!check_info (self, frame, i, info, error)
          || (accel_solver_find_nonfinite_host (s, si, k)
              && !accel_solver_overflowed (ACCEL_STAGE (self), frame, s, i,
                  "its singular values", error)))
        return ACCEL_FLOW_ERROR;
    }
  return ACCEL_FLOW_OK;
}

static cusolverStatus_t
gesvd (AccelSvd *self, int rows, int cols, gpointer a, gpointer sv, gpointer u,
    int ldu, gpointer vt, int ldvt, int *info)
{
  AccelSolverGpu *gpu = &self->gpu;
  gpointer rwork = (guint8 *)gpu->mat + self->off_rwork;

  if (self->shape.dtype == ACCEL_DTYPE_F64)
    return cusolverDnDgesvd (gpu->handle, 'S', 'S', rows, cols, a, rows, sv, u,
        ldu, vt, ldvt, gpu->work, self->lwork, rwork, info);
  return cusolverDnSgesvd (gpu->handle, 'S', 'S', rows, cols, a, rows, sv, u,
      ldu, vt, ldvt, gpu->work, self->lwork, rwork, info);
}

static AccelFlow
accel_svd_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelSvd *self = ACCEL_SVD (stage);
  const AccelSolverShape *s = &self->shape;
  AccelSolverGpu *gpu = &self->gpu;
  gsize es = accel_dtype_get_size (s->dtype);
  gint64 m = s->m, n = s->n, k = self->k;
  const guint8 *a = accel_buffer_get_data (frame->inputs[0]);
  guint8 *sv = accel_buffer_get_data (frame->outputs[PORT_S]);
  guint8 *u = accel_buffer_get_data (frame->outputs[PORT_U]);
  guint8 *vt = accel_buffer_get_data (frame->outputs[PORT_VT]);
  gpointer f = gpu->mat;
  gpointer u_slot = (guint8 *)gpu->mat + self->off_u;
  gpointer vt_slot = (guint8 *)gpu->mat + self->off_vt;

  if (!accel_solver_check_inputs (stage, gpu, frame, s, error))
    return ACCEL_FLOW_ERROR;
  if (accel_stage_is_host (stage))
    return process_host (self, frame, error);

  if (!accel_solver_gpu_bind (stage, gpu, frame, error))
    return ACCEL_FLOW_ERROR;
  /* one matrix after the other through the same scratch, in stream order */
  for (gint64 i = 0; i < s->batch; i++)
    {
      const guint8 *ai = a + i * m * n * es;
      gpointer si = sv + i * k * es, ui = u + i * m * k * es;
      gpointer vti = vt + i * k * n * es;
      int *info = gpu->dev_info + i;

      if (!goes_in_transposed (self))
        {
          if (!accel_solver_copy (frame, f, ai, m * n * es, error)
              || !accel_cusolver_check (stage,
                  gesvd (self, (int)n, (int)m, f, si, vti, (int)n, ui, (int)m,
                      info),
                  error))
            return ACCEL_FLOW_ERROR;
          continue;
        }
      if (!accel_solver_transpose (
              s->dtype, frame, ai, n, f, n, m, m, FALSE, error)
          || !accel_cusolver_check (stage,
              gesvd (self, (int)m, (int)n, f, si, u_slot, (int)m, vt_slot,
                  (int)k, info),
              error)
          || !accel_solver_transpose (
              s->dtype, frame, u_slot, m, ui, m, k, k, FALSE, error)
          || !accel_solver_transpose (
              s->dtype, frame, vt_slot, k, vti, k, n, n, FALSE, error))
        return ACCEL_FLOW_ERROR;
    }
  if (!accel_solver_gpu_find_nonfinite_output (
          gpu, frame, s, sv, s->batch * k, error)
      || !accel_solver_gpu_fetch_info (stage, gpu, frame, s, error))
    return ACCEL_FLOW_ERROR;
  for (gint64 i = 0; i < s->batch; i++)
    if (!check_info (self, frame, i, gpu->host_info[i], error))
      return ACCEL_FLOW_ERROR;
  if (!accel_solver_gpu_check_output (
          stage, gpu, frame, s, k, "its singular values", error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_svd_class_init (AccelSvdClass *klass)
{
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);

  stage_class->negotiate = accel_svd_negotiate;
  stage_class->start = accel_svd_start;
  stage_class->stop = accel_svd_stop;
  stage_class->process = accel_svd_process;

  accel_stage_class_set_metadata (stage_class, "solver.svd",
      "Singular value decomposition A = U diag (s) V^T (gesvd), reduced: "
      "k = min (m, n) singular values in decreasing order, U m x k and V^T "
      "k x n with orthonormal columns and rows; for a matrix or a batch; "
      "f32 or f64");
  accel_solver_class_add_port (stage_class, ACCEL_PORT_INPUT, "a",
      "[m, n] or [batch, m, n], row-major, f32 or f64");
  accel_solver_class_add_port (stage_class, ACCEL_PORT_OUTPUT, "s",
      "[batch,] k, the dtype of a, decreasing");
  accel_solver_class_add_port (
      stage_class, ACCEL_PORT_OUTPUT, "u", "[batch,] m x k, the dtype of a");
  accel_solver_class_add_port (
      stage_class, ACCEL_PORT_OUTPUT, "vt", "[batch,] k x n, the dtype of a");
}

static void
accel_svd_init (AccelSvd *self)
{
}
