/* SPDX-License-Identifier: LGPL-2.1-or-later */
// the Gaussian and the unsharp mask of RGBA8 rows on 16 bytes in integer
// tiles (blur-gauss.cu) or strips (blur-gauss-run.cu), for blur.cu's
// launchers
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

// the largest radius they take (their parameters hold as many taps either
// side)
#define ACCEL_GAUSS_TILES_MAX_RADIUS 9

// the Gaussian (or with @unsharp the unsharp mask of @amount) of @radius
// (1 to ACCEL_GAUSS_TILES_MAX_RADIUS) and its 2 @radius + 1 whole taps of
// sum 256 (accel_gaussian_weights_u8 ()), none above 255, of the RGBA8 or
// BGRA8 frame @src into @dst, both on 16 bytes: the same bytes as the
// host's
int accel_gauss_tiles (cudaStream_t stream, bool unsharp, const void *src,
    size_t src_pitch, void *dst, size_t dst_pitch, int width, int height,
    int radius, const uint32_t *taps, float amount);
