/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel solver plugin: NaN and infinities in an input, found on the host */
#include <math.h>

#include "accelsolverfinite.h"

size_t
accel_solver_find_nonfinite_f32_host (const float *data, size_t count)
{
  for (size_t i = 0; i < count; i++)
    if (!isfinite (data[i]))
      return i;
  return count;
}

size_t
accel_solver_find_nonfinite_f64_host (const double *data, size_t count)
{
  for (size_t i = 0; i < count; i++)
    if (!isfinite (data[i]))
      return i;
  return count;
}
