/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel solver plugin: solver.qr, A = Q R through Householder reflections
 * (geqrf + orgqr) */
#define G_LOG_DOMAIN "accel-solver"

#include <lapacke.h>
#include <string.h>

#include "accelqr.h"
#include "accelhostscratch.h"
#include "accelsolver-private.h"

struct _AccelQr
{
  AccelStage parent;

  AccelSolverShape shape;
  gint64 k; /* min (m, n) */
  AccelSolverGpu gpu;
  gsize off_tau; /* region of gpu.mat after the matrix */
  int lwork;

  /* host: one matrix's factorization and its reflectors */
  gpointer factor, tau;
};

G_DEFINE_FINAL_TYPE (AccelQr, accel_qr, ACCEL_TYPE_STAGE)

enum
{
  PORT_Q,
  PORT_R,
};

static gboolean
accel_qr_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelQr *self = ACCEL_QR (stage);
  const AccelSolverShape *s = &self->shape;

  if (!accel_solver_negotiate_matrix (
          stage, &in_types[0], FALSE, &self->shape, error))
    return FALSE;
  self->k = MIN (s->m, s->n);
  accel_solver_output_type (s, &out_types[PORT_Q], 2, s->m, self->k);
  accel_solver_output_type (s, &out_types[PORT_R], 2, self->k, s->n);
  return TRUE;
}

static cusolverStatus_t
workspace_size (AccelQr *self, int *lwork)
{
  const AccelSolverShape *s = &self->shape;
  cusolverDnHandle_t h = self->gpu.handle;
  gpointer a = self->gpu.mat;
  gpointer tau = (guint8 *)self->gpu.mat + self->off_tau;
  int m = (int)s->m, n = (int)s->n, k = (int)self->k;
  int geqrf = 0, orgqr = 0;
  cusolverStatus_t status;

  if (s->dtype == ACCEL_DTYPE_F64)
    {
      status = cusolverDnDgeqrf_bufferSize (h, m, n, a, m, &geqrf);
      if (status == CUSOLVER_STATUS_SUCCESS)
        status = cusolverDnDorgqr_bufferSize (h, m, k, k, a, m, tau, &orgqr);
    }
  else
    {
      status = cusolverDnSgeqrf_bufferSize (h, m, n, a, m, &geqrf);
      if (status == CUSOLVER_STATUS_SUCCESS)
        status = cusolverDnSorgqr_bufferSize (h, m, k, k, a, m, tau, &orgqr);
    }
  *lwork = MAX (geqrf, orgqr);
  return status;
}

static gboolean
accel_qr_start (AccelStage *stage, GError **error)
{
  AccelQr *self = ACCEL_QR (stage);
  const AccelSolverShape *s = &self->shape;
  gsize es = accel_dtype_get_size (s->dtype);

  if (accel_stage_is_host (stage))
    {
      if ((self->factor
              = accel_host_scratch_new (stage, s->m * s->n, es, error))
          && (self->tau = accel_host_scratch_new (stage, self->k, es, error)))
        return TRUE;
      g_clear_pointer (&self->factor, g_free);
      return FALSE;
    }
  self->off_tau = accel_solver_align (s->m * s->n * es);
  if (!accel_solver_gpu_start (
          stage, &self->gpu, self->off_tau + self->k * es, 2 * s->batch, error))
    return FALSE;
  if (!accel_cusolver_check (stage, workspace_size (self, &self->lwork), error)
      || !accel_solver_gpu_alloc_work (
          stage, &self->gpu, self->lwork * es, error))
    {
      accel_solver_gpu_stop (stage, &self->gpu);
      return FALSE;
    }
  return TRUE;
}

static void
accel_qr_stop (AccelStage *stage)
{
  AccelQr *self = ACCEL_QR (stage);

  accel_solver_gpu_stop (stage, &self->gpu);
  g_clear_pointer (&self->factor, g_free);
  g_clear_pointer (&self->tau, g_free);
}

/* q (m x k) and r (k x n) from one row-major factorization of leading
 * dimension n: r is its upper triangle, then orgqr makes q in place */
static AccelFlow
process_host (AccelQr *self, AccelFrame *frame, GError **error)
{
  AccelStage *stage = ACCEL_STAGE (self);
  const AccelSolverShape *s = &self->shape;
  gboolean dbl = s->dtype == ACCEL_DTYPE_F64;
  gsize es = accel_dtype_get_size (s->dtype);
  gint64 k = self->k;
  const guint8 *a = accel_buffer_get_data (frame->inputs[0]);
  guint8 *q = accel_buffer_get_data (frame->outputs[PORT_Q]);
  guint8 *r = accel_buffer_get_data (frame->outputs[PORT_R]);
  guint8 *f = self->factor;

  for (gint64 i = 0; i < s->batch; i++)
    {
      guint8 *qi = q + i * s->m * k * es, *ri = r + i * k * s->n * es;
      lapack_int info;

      memcpy (f, a + i * s->m * s->n * es, s->m * s->n * es);
      info = dbl ? LAPACKE_dgeqrf (
                 LAPACK_ROW_MAJOR, s->m, s->n, (double *)f, s->n, self->tau)
                 : LAPACKE_sgeqrf (
                     LAPACK_ROW_MAJOR, s->m, s->n, (float *)f, s->n, self->tau);
      if (info != 0)
        {
          accel_solver_bad_parameter (stage, "geqrf", info, error);
          return ACCEL_FLOW_ERROR;
        }
      /* orgqr refused its own factors as an illegal parameter */
      if (accel_solver_find_nonfinite_host (s, f, s->m * s->n))
        {
          accel_solver_overflowed (stage, frame, s, i, "its factors", error);
          return ACCEL_FLOW_ERROR;
        }
      memset (ri, 0, k * s->n * es);
      for (gint64 row = 0; row < k; row++)
        memcpy (ri + (row * s->n + row) * es, f + (row * s->n + row) * es,
            (s->n - row) * es);
      info = dbl ? LAPACKE_dorgqr (
                 LAPACK_ROW_MAJOR, s->m, k, k, (double *)f, s->n, self->tau)
                 : LAPACKE_sorgqr (
                     LAPACK_ROW_MAJOR, s->m, k, k, (float *)f, s->n, self->tau);
      if (info != 0)
        {
          accel_solver_bad_parameter (stage, "orgqr", info, error);
          return ACCEL_FLOW_ERROR;
        }
      for (gint64 row = 0; row < s->m; row++)
        memcpy (qi + row * k * es, f + row * s->n * es, k * es);
    }
  return ACCEL_FLOW_OK;
}

static cusolverStatus_t
geqrf (AccelQr *self, gpointer a, gpointer tau, int *info)
{
  int m = (int)self->shape.m, n = (int)self->shape.n;

  if (self->shape.dtype == ACCEL_DTYPE_F64)
    return cusolverDnDgeqrf (
        self->gpu.handle, m, n, a, m, tau, self->gpu.work, self->lwork, info);
  return cusolverDnSgeqrf (
      self->gpu.handle, m, n, a, m, tau, self->gpu.work, self->lwork, info);
}

static cusolverStatus_t
orgqr (AccelQr *self, gpointer a, gconstpointer tau, int *info)
{
  int m = (int)self->shape.m, k = (int)self->k;

  if (self->shape.dtype == ACCEL_DTYPE_F64)
    return cusolverDnDorgqr (self->gpu.handle, m, k, k, a, m, tau,
        self->gpu.work, self->lwork, info);
  return cusolverDnSorgqr (
      self->gpu.handle, m, k, k, a, m, tau, self->gpu.work, self->lwork, info);
}

static AccelFlow
accel_qr_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelQr *self = ACCEL_QR (stage);
  const AccelSolverShape *s = &self->shape;
  AccelSolverGpu *gpu = &self->gpu;
  gsize es = accel_dtype_get_size (s->dtype);
  gint64 k = self->k;
  const guint8 *a = accel_buffer_get_data (frame->inputs[0]);
  guint8 *q = accel_buffer_get_data (frame->outputs[PORT_Q]);
  guint8 *r = accel_buffer_get_data (frame->outputs[PORT_R]);
  gpointer f = gpu->mat;
  gpointer tau = (guint8 *)gpu->mat + self->off_tau;

  if (!accel_solver_check_inputs (stage, gpu, frame, s, error))
    return ACCEL_FLOW_ERROR;
  if (accel_stage_is_host (stage))
    return process_host (self, frame, error);

  if (!accel_solver_gpu_bind (stage, gpu, frame, error))
    return ACCEL_FLOW_ERROR;
  /* cuSOLVER factors column-major matrices: A goes in transposed (column-
   * major m x n, leading dimension m), R and Q come out transposed back to
   * row-major. One matrix after the other, through the same scratch. */
  for (gint64 i = 0; i < s->batch; i++)
    {
      if (!accel_solver_transpose (s->dtype, frame, a + i * s->m * s->n * es,
              s->n, f, s->n, s->m, s->m, FALSE, error)
          || !accel_cusolver_check (
              stage, geqrf (self, f, tau, gpu->dev_info + i), error)
          || !accel_solver_transpose (s->dtype, frame, f, s->m,
              r + i * k * s->n * es, k, s->n, s->n, TRUE, error)
          || !accel_cusolver_check (
              stage, orgqr (self, f, tau, gpu->dev_info + s->batch + i), error)
          || !accel_solver_transpose (s->dtype, frame, f, s->m,
              q + i * s->m * k * es, s->m, k, k, FALSE, error))
        return ACCEL_FLOW_ERROR;
    }
  /* neither call fails on data: a negative info is a wrong call */
  if (!accel_solver_gpu_find_nonfinite_output (
          gpu, frame, s, r, s->batch * k * s->n, error)
      || !accel_solver_gpu_fetch_info (stage, gpu, frame, s, error))
    return ACCEL_FLOW_ERROR;
  for (gint64 i = 0; i < s->batch; i++)
    if ((gpu->host_info[i] != 0
            && !accel_solver_bad_parameter (
                stage, "geqrf", gpu->host_info[i], error))
        || (gpu->host_info[s->batch + i] != 0
            && !accel_solver_bad_parameter (
                stage, "orgqr", gpu->host_info[s->batch + i], error)))
      return ACCEL_FLOW_ERROR;
  if (!accel_solver_gpu_check_output (
          stage, gpu, frame, s, k * s->n, "r", error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_qr_class_init (AccelQrClass *klass)
{
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);

  stage_class->negotiate = accel_qr_negotiate;
  stage_class->start = accel_qr_start;
  stage_class->stop = accel_qr_stop;
  stage_class->process = accel_qr_process;

  accel_stage_class_set_metadata (stage_class, "solver.qr",
      "QR factorization A = Q R through Householder reflections (geqrf + "
      "orgqr), reduced: Q m x k with orthonormal columns, R k x n upper "
      "triangular, k = min (m, n); for a matrix or a batch; f32 or f64");
  accel_solver_class_add_port (stage_class, ACCEL_PORT_INPUT, "a",
      "[m, n] or [batch, m, n], row-major, f32 or f64");
  accel_solver_class_add_port (
      stage_class, ACCEL_PORT_OUTPUT, "q", "[batch,] m x k, the dtype of a");
  accel_solver_class_add_port (
      stage_class, ACCEL_PORT_OUTPUT, "r", "[batch,] k x n, the dtype of a");
}

static void
accel_qr_init (AccelQr *self)
{
}
