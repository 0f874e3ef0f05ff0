/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel fft plugin: fft.forward */
#pragma once

#include "accelfft-private.h"

G_BEGIN_DECLS

#define ACCEL_TYPE_FFT_FORWARD (accel_fft_forward_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelFftForward, accel_fft_forward, ACCEL, FFT_FORWARD, AccelFft)

G_END_DECLS
