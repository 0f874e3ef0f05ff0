/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel fft plugin: fft.inverse, the inverse transform */
#define G_LOG_DOMAIN "accel-fft"

#include "accelfftinverse.h"

struct _AccelFftInverse
{
  AccelFft parent;
};

G_DEFINE_FINAL_TYPE (AccelFftInverse, accel_fft_inverse, ACCEL_TYPE_FFT)

static void
accel_fft_inverse_class_init (AccelFftInverseClass *klass)
{
  ACCEL_FFT_CLASS (klass)->sign = 1;
  accel_stage_class_set_metadata (ACCEL_STAGE_CLASS (klass), "fft.inverse",
      "Inverse discrete Fourier transform (exponent sign +1, unnormalised "
      "unless normalize): 1D, 2D or 3D over the innermost dimensions, batched "
      "over the others; c2c or c2r, single or double precision");
}

static void
accel_fft_inverse_init (AccelFftInverse *self)
{
}
