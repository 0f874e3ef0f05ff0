/* SPDX-License-Identifier: LGPL-2.1-or-later */
// the box blur of RGBA8 rows on 16 bytes streamed down strips
// (blur-box.cu), for blur.cu's launcher
#pragma once

#include <cuda_runtime.h>

// the radii it takes: up to 7, where a box's sum of bytes still fits the
// 16-bit half of a word it is summed in
#define ACCEL_BOX_STRIPS_MAX_RADIUS 7

// the box blur of @radius (1 to ACCEL_BOX_STRIPS_MAX_RADIUS) of the RGBA8
// or BGRA8 frame @src into @dst, both on 16 bytes: the same bytes as the
// host's
int accel_box_strips (cudaStream_t stream, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, int radius);
