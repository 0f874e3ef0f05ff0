/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel solver plugin: finds NaN and infinities in a stage's inputs, which
 * LAPACK and cuSOLVER would each treat their own way */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C"
{
#endif

  /* GPU launchers: atomically lowers *@first to the index of each element
   * of @data[0 .. count) that is NaN or infinite; *@first must be set
   * beforehand (all ones: none). Return a cudaError_t. */
  int accel_solver_find_nonfinite_f32 (
      void *stream, const float *data, size_t count, unsigned long long *first);
  int accel_solver_find_nonfinite_f64 (void *stream, const double *data,
      size_t count, unsigned long long *first);

  /* host references: the index of the first such element, or @count */
  size_t accel_solver_find_nonfinite_f32_host (const float *data, size_t count);
  size_t accel_solver_find_nonfinite_f64_host (
      const double *data, size_t count);

#ifdef __cplusplus
}
#endif
