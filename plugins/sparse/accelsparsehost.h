/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel sparse plugin: CSR products in plain C (the host implementation) */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

  typedef enum
  {
    ACCEL_CSR_OK,
    ACCEL_CSR_BAD_FIRST_OFFSET,  /* row_offsets[0] is not 0 */
    ACCEL_CSR_DECREASING_OFFSET, /* row_offsets[i + 1] < row_offsets[i] */
    ACCEL_CSR_BAD_LAST_OFFSET,   /* row_offsets[m] is not nnz */
    ACCEL_CSR_BAD_COLUMN,        /* a column index outside [0, n) */
  } AccelCsrStatus;

  /* checks that the m x n matrix is well formed; *@where: the row or entry
   * at fault */
  AccelCsrStatus accel_csr_validate (const int32_t *row_offsets,
      const int32_t *col_indices, int64_t m, int64_t n, int64_t nnz,
      int64_t *where);

  /* y = alpha A x, A m x n in CSR, x [n], y [m]; sums in double */
  void accel_csr_spmv_f32_host (int64_t m, const int32_t *row_offsets,
      const int32_t *col_indices, const float *values, const float *x, float *y,
      double alpha);
  void accel_csr_spmv_f64_host (int64_t m, const int32_t *row_offsets,
      const int32_t *col_indices, const double *values, const double *x,
      double *y, double alpha);

  /* Y = alpha A X, X [n, k] and Y [m, k] row-major */
  void accel_csr_spmm_f32_host (int64_t m, int64_t k,
      const int32_t *row_offsets, const int32_t *col_indices,
      const float *values, const float *x, float *y, double alpha);
  void accel_csr_spmm_f64_host (int64_t m, int64_t k,
      const int32_t *row_offsets, const int32_t *col_indices,
      const double *values, const double *x, double *y, double alpha);

#ifdef __cplusplus
}
#endif
