/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel plugins: f16 and bf16 values on the host, as the blas and blaslt
 * host implementations compute them: widened to f32 and rounded back to the
 * nearest (ties to even), like the GPU's conversions (not installed) */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

float accel_f16_to_f32 (guint16 h);
guint16 accel_f32_to_f16 (float f);
float accel_bf16_to_f32 (guint16 b);
guint16 accel_f32_to_bf16 (float f);

gboolean accel_dtype_is_half (AccelDType dtype);
void accel_half_widen (
    AccelDType dtype, const guint16 *in, float *out, gsize n);
void accel_half_narrow (
    AccelDType dtype, const float *in, guint16 *out, gsize n);

G_END_DECLS
