/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel fft plugin: fft.inverse */
#pragma once

#include "accelfft-private.h"

G_BEGIN_DECLS

#define ACCEL_TYPE_FFT_INVERSE (accel_fft_inverse_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelFftInverse, accel_fft_inverse, ACCEL, FFT_INVERSE, AccelFft)

G_END_DECLS
