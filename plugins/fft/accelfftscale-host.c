/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel fft plugin: in-place scaling on the host */
#include "accelfftscale.h"

void
accel_fft_scale_f32_host (float *data, size_t n, float factor)
{
  for (size_t i = 0; i < n; i++)
    data[i] *= factor;
}

void
accel_fft_scale_f64_host (double *data, size_t n, double factor)
{
  for (size_t i = 0; i < n; i++)
    data[i] *= factor;
}
