/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel fft plugin: the transform base class and what its stages share
 * (not installed) */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

/**
 * AccelFftType:
 * @ACCEL_FFT_TYPE_AUTO: from the input: c2c for complex data, r2c for real
 *   data (forward); c2c (inverse)
 * @ACCEL_FFT_TYPE_C2C: complex to complex, same shape
 * @ACCEL_FFT_TYPE_R2C: real to complex (forward only): the last transformed
 *   dimension n becomes n / 2 + 1
 * @ACCEL_FFT_TYPE_C2R: complex to real (inverse only): the last transformed
 *   dimension m becomes the `real-length` property, or 2 (m - 1)
 */
typedef enum
{
  ACCEL_FFT_TYPE_AUTO,
  ACCEL_FFT_TYPE_C2C,
  ACCEL_FFT_TYPE_R2C,
  ACCEL_FFT_TYPE_C2R,
} AccelFftType;

#define ACCEL_TYPE_FFT_TYPE (accel_fft_type_get_type ())
GType accel_fft_type_get_type (void);

#define ACCEL_TYPE_FFT (accel_fft_get_type ())
G_DECLARE_DERIVABLE_TYPE (AccelFft, accel_fft, ACCEL, FFT, AccelStage)

/**
 * AccelFftClass:
 * @sign: the sign of the exponent: -1 for the forward transform, +1 for the
 *   inverse (the convention of cuFFT and FFTW)
 *
 * fft.forward and fft.inverse differ only in @sign.
 */
struct _AccelFftClass
{
  AccelStageClass parent_class;

  int sign;
};

/**
 * accel_cufft_check:
 * @stage: the stage making the call
 * @call: a cuFFT call (its `cufftResult` is checked)
 * @error: return location for a #GError, or %NULL
 *
 * Evaluates @call; on failure sets @error (%ACCEL_ERROR_LIBRARY) naming the
 * stage, the call, cuFFT's status and the file and line, logs the same, and
 * returns %FALSE.
 */
#define accel_cufft_check(stage, call, error)                                  \
  accel_cufft_check_full (                                                     \
      (stage), (int)(call), #call, __FILE__, __LINE__, (error))

gboolean accel_cufft_check_full (AccelStage *stage, int status,
    const char *call, const char *file, int line, GError **error);
const char *accel_cufft_status_name (int status);

G_END_DECLS
