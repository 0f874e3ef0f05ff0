/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel solver plugin: what the solver.* stages share (not installed) */
#pragma once

#include <cusolverDn.h>
#include <accel/accel.h>

G_BEGIN_DECLS

/**
 * AccelSolverShape:
 * @dtype: f32 or f64, of every input and output
 * @batched: the input is [batch, rows, cols]; outputs get the batch too
 * @batch: matrices per buffer (1 when not @batched)
 * @m: rows of each matrix a
 * @n: columns of each matrix a
 * @nrhs: columns of each right-hand side b (1 for a vector)
 * @rhs_vector: b is a vector per matrix, [batch,] n
 *
 * What negotiation found: the solvers take a matrix or a batch of them.
 */
typedef struct
{
  AccelDType dtype;
  gboolean batched;
  gint64 batch;
  gint64 m, n;
  gint64 nrhs;
  gboolean rhs_vector;
} AccelSolverShape;

/**
 * AccelSolverGpu:
 * @handle: the stage's cuSOLVER handle
 * @bound_stream: the stream @handle is bound to
 * @mat: device scratch for the matrices of one product (the stage's layout)
 * @work: device scratch for cuSOLVER's workspace and the rest
 * @dev_info: cuSOLVER's info of every call of a frame, on the device
 * @host_info: the same, copied to pinned memory
 * @n_info: how many
 * @dev_first: for each input, then the output searched with
 *   accel_solver_gpu_find_nonfinite_output (), the index of its first
 *   element that is NaN or infinite (%G_MAXUINT64: none), on the device,
 *   after @dev_info
 * @host_first: the same, after @host_info
 *
 * A stage's cuSOLVER state: made in start(), released in stop(); the
 * scratch comes from the stream-ordered allocator on the stage's stream.
 */
typedef struct
{
  cusolverDnHandle_t handle;
  gpointer bound_stream;
  gpointer mat;
  gpointer work;
  int *dev_info;
  int *host_info;
  guint n_info;
  guint64 *dev_first;
  guint64 *host_first;
} AccelSolverGpu;

/* a and b */
#define ACCEL_SOLVER_MAX_INPUTS 2
/* the inputs', then an output's */
#define ACCEL_SOLVER_N_FIRST (ACCEL_SOLVER_MAX_INPUTS + 1)

void accel_solver_class_add_port (AccelStageClass *klass,
    AccelPortDirection direction, const char *name, const char *description);
gboolean accel_solver_negotiate_matrix (AccelStage *stage, const AccelType *a,
    gboolean square, AccelSolverShape *shape, GError **error);
gboolean accel_solver_negotiate_system (AccelStage *stage,
    const AccelType *in_types, AccelType *out_types, AccelSolverShape *shape,
    GError **error);
void accel_solver_output_type (const AccelSolverShape *shape, AccelType *out,
    gint rank, gint64 rows, gint64 cols);

gboolean accel_solver_gpu_start (AccelStage *stage, AccelSolverGpu *gpu,
    gsize mat_size, guint n_info, GError **error);
gboolean accel_solver_gpu_alloc_work (
    AccelStage *stage, AccelSolverGpu *gpu, gsize size, GError **error);
void accel_solver_gpu_stop (AccelStage *stage, AccelSolverGpu *gpu);
gboolean accel_solver_gpu_bind (
    AccelStage *stage, AccelSolverGpu *gpu, AccelFrame *frame, GError **error);
gboolean accel_solver_check_inputs (AccelStage *stage, AccelSolverGpu *gpu,
    AccelFrame *frame, const AccelSolverShape *shape, GError **error);
gboolean accel_solver_gpu_fetch_info (AccelStage *stage, AccelSolverGpu *gpu,
    AccelFrame *frame, const AccelSolverShape *shape, GError **error);
gboolean accel_solver_gpu_find_nonfinite_output (AccelSolverGpu *gpu,
    AccelFrame *frame, const AccelSolverShape *shape, gconstpointer data,
    gsize count, GError **error);
gboolean accel_solver_find_nonfinite_host (
    const AccelSolverShape *shape, gconstpointer data, gsize count);
gboolean accel_solver_transpose (AccelDType dtype, AccelFrame *frame,
    gconstpointer in, gsize in_ld, gpointer out, gsize out_rows, gsize out_cols,
    gsize out_ld, gboolean upper, GError **error);
gboolean accel_solver_copy (AccelFrame *frame, gpointer dst, gconstpointer src,
    gsize size, GError **error);
gsize accel_solver_align (gsize size);
gpointer accel_solver_rhs_in (const AccelSolverShape *shape, AccelFrame *frame,
    gconstpointer b, gpointer x, gpointer slot, GError **error);
gboolean accel_solver_rhs_out (const AccelSolverShape *shape, AccelFrame *frame,
    gconstpointer slot, gpointer x, GError **error);

gboolean accel_solver_bad_input (AccelStage *stage, AccelFrame *frame,
    const AccelSolverShape *shape, gint64 index, GError **error,
    const char *format, ...) G_GNUC_PRINTF (6, 7);
gboolean accel_solver_overflowed (AccelStage *stage, AccelFrame *frame,
    const AccelSolverShape *shape, gint64 index, const char *what,
    GError **error);
gboolean accel_solver_gpu_check_output (AccelStage *stage, AccelSolverGpu *gpu,
    AccelFrame *frame, const AccelSolverShape *shape, gsize per_matrix,
    const char *what, GError **error);
gboolean accel_solver_bad_parameter (
    AccelStage *stage, const char *routine, int info, GError **error);

/**
 * accel_cusolver_check:
 * @stage: the stage making the call
 * @call: a cuSOLVER call (its `cusolverStatus_t` is checked)
 * @error: return location for a #GError, or %NULL
 *
 * Evaluates @call; on failure sets @error (%ACCEL_ERROR_LIBRARY) naming the
 * stage, the call, cuSOLVER's status and the file and line, logs the same,
 * and returns %FALSE.
 */
#define accel_cusolver_check(stage, call, error)                               \
  accel_cusolver_check_full (                                                  \
      (stage), (int)(call), #call, __FILE__, __LINE__, (error))

gboolean accel_cusolver_check_full (AccelStage *stage, int status,
    const char *call, const char *file, int line, GError **error);
const char *accel_cusolver_status_name (int status);

G_END_DECLS
