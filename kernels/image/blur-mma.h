/* SPDX-License-Identifier: LGPL-2.1-or-later */
// the Gaussian and the unsharp mask of RGBA8 rows on 16 bytes on the
// tensor cores (blur-mma.cu), for blur.cu's launchers
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

// the radii they take: from 5, below which the integer tiles (blur-gauss.cu)
// are as fast (measured in blur.cu's launcher), to 8, where the vertical pass's
// window fills one 32-deep product
#define ACCEL_GAUSS_MMA_MIN_RADIUS 5
#define ACCEL_GAUSS_MMA_MAX_RADIUS 8

// the Gaussian (or with @unsharp the unsharp mask of @amount) of @radius
// and its 2 @radius + 1 whole taps of sum 256 (accel_gaussian_weights_u8
// ()): the same bytes as the host's
int accel_gauss_mma (cudaStream_t stream, bool unsharp, const void *src,
    size_t src_pitch, void *dst, size_t dst_pitch, int width, int height,
    int radius, const uint32_t *taps, float amount);
