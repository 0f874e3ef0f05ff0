/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ACCEL_HOST_SIMD: marks a host reference's row loop to be built twice on
 * x86-64, for the baseline and for AVX2 + FMA, the better one picked when
 * the library loads; the functions it calls are inlined into each build.
 *
 * The host references keep every multiply-add an explicit fmaf(): without
 * FMA in the instruction set each is a call into libm, and no loop around it
 * vectorizes. fmaf() is exact either way, and the vector forms of add,
 * multiply, divide and square root round as the scalar ones do, so both
 * builds give the same bits. */
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)            \
    && defined(__has_attribute)
#if __has_attribute(target_clones)
/* flatten: the helpers a row loop calls are built into each clone too */
#define ACCEL_HOST_SIMD                                                        \
  __attribute__ ((target_clones ("arch=x86-64-v3", "default"), flatten))
#endif
#endif

#ifndef ACCEL_HOST_SIMD
#define ACCEL_HOST_SIMD
#endif
