/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the image kernels' host references written the plain way, one pixel at a
 * time on one thread (image-definitions.c); the same arguments and return
 * codes as the accel_*_host functions */
#pragma once

#include "image/image.h"

int definition_gaussian_blur (int format, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, float sigma);
int definition_box_blur (int format, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, int radius);
int definition_unsharp_mask (int format, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, float amount,
    float sigma);
int definition_sobel (int format, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, float *direction, size_t direction_pitch, int width,
    int height, float scale);
int definition_median (int format, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int size);
int definition_threshold (int format, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, float value);
int definition_resize (int format, const void *src, size_t src_pitch,
    int src_width, int src_height, void *dst, size_t dst_pitch, int dst_width,
    int dst_height);
int definition_convert (int src_format, const void *src, size_t src_pitch,
    int dst_format, void *dst, size_t dst_pitch, int width, int height);
int definition_convert_yuv (int matrix, int full_range, int src_format,
    const void *src, size_t src_pitch, int dst_format, void *dst,
    size_t dst_pitch, int width, int height);
