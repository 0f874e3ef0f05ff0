/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel rand plugin: the random number generators and distributions in
 * plain C (the host implementation), and the GPU helper kernel */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

  typedef enum
  {
    ACCEL_RAND_PHILOX,
    ACCEL_RAND_XORWOW,
  } AccelRandGenerator;

  typedef enum
  {
    ACCEL_RAND_DIST_UNIFORM,
    ACCEL_RAND_DIST_NORMAL,
    ACCEL_RAND_DIST_LOG_NORMAL,
  } AccelRandDistribution;

  /* one block of Philox4x32-10: four 32-bit words of @counter under @key */
  void accel_rand_philox4x32_10 (
      const uint32_t key[2], const uint32_t counter[4], uint32_t out[4]);

  /* the 32-bit draws that @n values of @f64 (or f32) take: a value of f64
   * takes two, and normal values come in pairs */
  uint64_t accel_rand_draws (AccelRandDistribution dist, int f64, size_t n);

  /* fills @out with @n values of @dist (uniform on (a, b]; normal or log-
   * normal with mean a and standard deviation b of the normal), from the
   * draws of @generator keyed by @seed that start at @offset. Philox is
   * counter based: draw k is a function of (seed, k) alone. The host's
   * xorwow starts a fresh state from (seed, offset). Either way the values
   * depend on (generator, seed, offset) only */
  void accel_rand_fill_host (AccelRandGenerator generator, uint64_t seed,
      uint64_t offset, AccelRandDistribution dist, double a, double b, int f64,
      void *out, size_t n);

  /* GPU launcher: @data = @a + @b * @data on @stream; returns a
   * cudaError_t */
  int accel_rand_affine_f32 (
      void *stream, float *data, size_t n, float a, float b);
  int accel_rand_affine_f64 (
      void *stream, double *data, size_t n, double a, double b);

#ifdef __cplusplus
}
#endif
