/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the factorization cases of the solver tests, host and GPU: fresh random
 * matrices, the stage's outputs, checked by reconstruction */
#pragma once

#include <accel/accel.h>

typedef struct
{
  const char *path;
  const char *kind;
  AccelDType dtype;
  gint64 batch; /* 0: a single matrix, no batch dimension */
  gint64 m, n;  /* of each matrix a (square for lu, cholesky, eigh) */
  gint64 nrhs;  /* lu and cholesky: columns of b; 0: b is a vector */
} SolverCase;

/* what a reconstruction may miss by: f32: 1e-4, f64: 1e-11 */
double solver_tolerance (AccelDType dtype);

typedef struct
{
  guint n_inputs;
  AccelType types[2];
  GPtrArray *inputs[2]; /* GBytes, one per frame: a, b */
  GPtrArray *values[2]; /* the same as doubles */
  guint n_outputs;
  const char *outputs[3];
} SolverData;

/* @n_frames of fresh matrices fit for @c's kind: shifted for lu,
 * symmetric positive definite for cholesky, symmetric for eigh */
SolverData *solver_data_new (const SolverCase *c, guint n_frames);
void solver_data_free (SolverData *data);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SolverData, solver_data_free)

/* source "a" (and "b") -> @c's stage "stage" -> a sink per output, named
 * after the output; not run */
AccelGraph *solver_graph_new (
    const SolverCase *c, const SolverData *data, gboolean host);
/* (element-type GPtrArray) per output, its frames */
GPtrArray *solver_case_run (
    const SolverCase *c, const SolverData *data, gboolean host);
/* asserts the outputs reconstruct the inputs within solver_tolerance();
 * returns the largest error */
double solver_case_check (
    const SolverCase *c, const SolverData *data, GPtrArray *outputs);
/* the largest relative difference of the unique parts of two runs: x of
 * lu and cholesky, s of svd, w of eigh (0 for qr) */
double solver_compare_runs (const SolverCase *c, GPtrArray *a, GPtrArray *b);

/* frame 0's matrix @index gets a zero row @row (singular) or, for
 * cholesky, a large negative diagonal element there (indefinite) */
void solver_data_spoil (
    const SolverCase *c, SolverData *data, gint64 index, gint64 row);
/* a graph of @c with that matrix, its stage escalating, fails with
 * ACCEL_ERROR_INVALID_INPUT naming the stage, frame 0 and the matrix, and
 * holding @part */
void solver_expect_bad_input (const SolverCase *c, gint64 index, gint64 row,
    gboolean host, const char *part);
/* frame 0's element (@row, @col) of matrix @index of input @port (0: a,
 * 1: b) becomes @value */
void solver_data_poison (const SolverCase *c, SolverData *data, guint port,
    gint64 index, gint64 row, gint64 col, double value);
/* a graph of @c with that element @value (NaN or an infinity), its stage
 * escalating, fails with ACCEL_ERROR_INVALID_INPUT naming the stage, frame
 * 0, the matrix and the element */
void solver_expect_nonfinite (const SolverCase *c, guint port, gint64 index,
    gint64 row, gint64 col, double value, gboolean host);
/* solver.lu: matrix @index of frame 0 regular but with a pivot below the
 * smallest normal number: the frame fails, saying so */
/* matrix @index of frame 0 finite but made to overflow (a Cholesky pivot
 * below the smallest normal, the others' elements near the largest): the
 * frame fails, naming @what of the output that is not finite (on a GPU,
 * or saying that the decomposition did not converge) */
void solver_expect_overflow (
    const SolverCase *c, gint64 index, gboolean host, const char *what);
/* finite input whose decomposition overflows, for each decomposition but
 * LU (solver_expect_tiny_pivot ()): Cholesky gave an infinite x, SVD and
 * eigh infinite values, QR NaN in q (f64) or LAPACKE's "parameter 5 had
 * an illegal value" (f32), all but the last with exit 0. @host: a
 * gboolean as a pointer, for g_test_add_data_func () */
void solver_check_overflow (gconstpointer host);
void solver_expect_tiny_pivot (
    const SolverCase *c, gint64 index, gboolean host);
