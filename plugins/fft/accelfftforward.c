/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel fft plugin: fft.forward, the forward transform */
#define G_LOG_DOMAIN "accel-fft"

#include "accelfftforward.h"

struct _AccelFftForward
{
  AccelFft parent;
};

G_DEFINE_FINAL_TYPE (AccelFftForward, accel_fft_forward, ACCEL_TYPE_FFT)

static void
accel_fft_forward_class_init (AccelFftForwardClass *klass)
{
  ACCEL_FFT_CLASS (klass)->sign = -1;
  accel_stage_class_set_metadata (ACCEL_STAGE_CLASS (klass), "fft.forward",
      "Forward discrete Fourier transform (exponent sign -1, unnormalised "
      "unless normalize): 1D, 2D or 3D over the innermost dimensions, batched "
      "over the others; c2c or r2c, single or double precision");
}

static void
accel_fft_forward_init (AccelFftForward *self)
{
}
