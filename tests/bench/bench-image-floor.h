/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the floor under an image kernel's time: a kernel that reads as many bytes
 * as it reads and writes as many as it writes, and computes nothing */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C"
{
#endif

  /* the floor's two kernels: reads folded into fewer threads' writes, or
   * spread over as many threads as the larger side has 16-byte words */
  enum
  {
    BENCH_IMAGE_FLOOR_FOLDED,
    BENCH_IMAGE_FLOOR_SPREAD,
    BENCH_IMAGE_FLOOR_SHAPES,
  };

  int bench_image_floor (void *stream, int shape, const void *in,
      size_t in_bytes, void *out, size_t out_bytes);

#ifdef __cplusplus
}
#endif
