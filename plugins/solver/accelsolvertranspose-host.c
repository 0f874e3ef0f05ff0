/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel solver plugin: transposes on the host */
#include "accelsolvertranspose.h"

void
accel_solver_transpose_f32_host (const float *in, size_t in_ld, float *out,
    size_t out_rows, size_t out_cols, size_t out_ld, int upper)
{
  for (size_t r = 0; r < out_rows; r++)
    for (size_t c = 0; c < out_cols; c++)
      out[r * out_ld + c] = upper && r > c ? 0.0f : in[c * in_ld + r];
}

void
accel_solver_transpose_f64_host (const double *in, size_t in_ld, double *out,
    size_t out_rows, size_t out_cols, size_t out_ld, int upper)
{
  for (size_t r = 0; r < out_rows; r++)
    for (size_t c = 0; c < out_cols; c++)
      out[r * out_ld + c] = upper && r > c ? 0.0 : in[c * in_ld + r];
}
