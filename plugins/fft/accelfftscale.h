/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel fft plugin: scaling of transform results (the normalize property) */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C"
{
#endif

  /* GPU launchers: multiply @n values in place by @factor on @stream;
   * return a cudaError_t */
  int accel_fft_scale_f32 (void *stream, float *data, size_t n, float factor);
  int accel_fft_scale_f64 (void *stream, double *data, size_t n, double factor);

  /* host references */
  void accel_fft_scale_f32_host (float *data, size_t n, float factor);
  void accel_fft_scale_f64_host (double *data, size_t n, double factor);

#ifdef __cplusplus
}
#endif
