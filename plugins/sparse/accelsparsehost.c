/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel sparse plugin: CSR products in plain C */
#include "accelsparsehost.h"

AccelCsrStatus
accel_csr_validate (const int32_t *row_offsets, const int32_t *col_indices,
    int64_t m, int64_t n, int64_t nnz, int64_t *where)
{
  *where = 0;
  if (row_offsets[0] != 0)
    return ACCEL_CSR_BAD_FIRST_OFFSET;
  for (int64_t i = 0; i < m; i++)
    if (row_offsets[i + 1] < row_offsets[i])
      {
        *where = i;
        return ACCEL_CSR_DECREASING_OFFSET;
      }
  if (row_offsets[m] != nnz)
    {
      *where = m;
      return ACCEL_CSR_BAD_LAST_OFFSET;
    }
  for (int64_t j = 0; j < nnz; j++)
    if (col_indices[j] < 0 || col_indices[j] >= n)
      {
        *where = j;
        return ACCEL_CSR_BAD_COLUMN;
      }
  return ACCEL_CSR_OK;
}

#define DEFINE_SPMV(T, suffix)                                                 \
  void accel_csr_spmv_##suffix##_host (int64_t m, const int32_t *row_offsets,  \
      const int32_t *col_indices, const T *values, const T *x, T *y,           \
      double alpha)                                                            \
  {                                                                            \
    for (int64_t i = 0; i < m; i++)                                            \
      {                                                                        \
        double sum = 0.0;                                                      \
        for (int32_t j = row_offsets[i]; j < row_offsets[i + 1]; j++)          \
          sum += (double)values[j] * (double)x[col_indices[j]];                \
        y[i] = (T)(alpha * sum);                                               \
      }                                                                        \
  }

#define DEFINE_SPMM(T, suffix)                                                 \
  void accel_csr_spmm_##suffix##_host (int64_t m, int64_t k,                   \
      const int32_t *row_offsets, const int32_t *col_indices, const T *values, \
      const T *x, T *y, double alpha)                                          \
  {                                                                            \
    for (int64_t i = 0; i < m; i++)                                            \
      for (int64_t c = 0; c < k; c++)                                          \
        {                                                                      \
          double sum = 0.0;                                                    \
          for (int32_t j = row_offsets[i]; j < row_offsets[i + 1]; j++)        \
            sum += (double)values[j] * (double)x[col_indices[j] * k + c];      \
          y[i * k + c] = (T)(alpha * sum);                                     \
        }                                                                      \
  }

DEFINE_SPMV (float, f32)
DEFINE_SPMV (double, f64)
DEFINE_SPMM (float, f32)
DEFINE_SPMM (double, f64)
