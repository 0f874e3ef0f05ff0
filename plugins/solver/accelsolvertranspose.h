/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel solver plugin: transposes between the row-major tensors and the
 * column-major matrices cuSOLVER works on */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C"
{
#endif

  /* GPU launchers: out[r * out_ld + c] = in[c * in_ld + r] for r <
   * out_rows, c < out_cols; with @upper, 0 where r > c (the R of a QR).
   * Return a cudaError_t. */
  int accel_solver_transpose_f32 (void *stream, const float *in, size_t in_ld,
      float *out, size_t out_rows, size_t out_cols, size_t out_ld, int upper);
  int accel_solver_transpose_f64 (void *stream, const double *in, size_t in_ld,
      double *out, size_t out_rows, size_t out_cols, size_t out_ld, int upper);

  /* host references */
  void accel_solver_transpose_f32_host (const float *in, size_t in_ld,
      float *out, size_t out_rows, size_t out_cols, size_t out_ld, int upper);
  void accel_solver_transpose_f64_host (const double *in, size_t in_ld,
      double *out, size_t out_rows, size_t out_cols, size_t out_ld, int upper);

#ifdef __cplusplus
}
#endif
