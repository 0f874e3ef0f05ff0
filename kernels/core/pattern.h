/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test patterns and a scale/offset transform: the core stages' kernels */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* value of element @i of frame @seq: small integers, exact in f32 */
#define ACCEL_PATTERN_F32(seq, i)                                              \
  ((float)(((uint64_t)(seq)*131u + (uint64_t)(i)*7u) % 1021u))
#define ACCEL_PATTERN_U8(seq, i)                                               \
  ((uint8_t)(((uint64_t)(seq)*131u + (uint64_t)(i)*7u) % 251u))

  /* GPU launchers: return a cudaError_t; @spin_ns delays the kernel on the GPU
   * (the race tests' slow writer and slow reader) */
  int accel_pattern_fill_f32 (
      void *stream, float *out, size_t n, uint64_t seq, uint64_t spin_ns);
  int accel_pattern_fill_u8 (
      void *stream, uint8_t *out, size_t n, uint64_t seq, uint64_t spin_ns);
  int accel_scale_f32 (void *stream, const float *in, float *out, size_t n,
      float scale, float offset, uint64_t spin_ns);
  int accel_scale_u8 (void *stream, const uint8_t *in, uint8_t *out, size_t n,
      float scale, float offset, uint64_t spin_ns);

  /* host references */
  void accel_pattern_fill_f32_host (float *out, size_t n, uint64_t seq);
  void accel_pattern_fill_u8_host (uint8_t *out, size_t n, uint64_t seq);
  void accel_scale_f32_host (
      const float *in, float *out, size_t n, float scale, float offset);
  void accel_scale_u8_host (
      const uint8_t *in, uint8_t *out, size_t n, float scale, float offset);

#ifdef __cplusplus
}
#endif
