/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* how many blocks of a kernel the current device runs at once: for grids
 * sized to one wave, and for launchers that choose a kernel by it */
#pragma once

#include <atomic>
#include <cuda_runtime.h>

/* blocks of @kernel (@block threads and @smem bytes of dynamic shared
 * memory each) resident on the current device at once, or 0 where the
 * runtime cannot say. The count per SM is asked once per kernel (@per_sm
 * keeps it), the SMs every call (the device may change between calls). An
 * error in asking is cleared, so that the launch after it does not take
 * it for its own */
static inline int
resident_blocks (
    const void *kernel, int block, size_t smem, std::atomic<int> &per_sm)
{
  int n = per_sm.load (std::memory_order_relaxed), device = 0, sms = 0;

  if (n == 0)
    {
      if (cudaOccupancyMaxActiveBlocksPerMultiprocessor (
              &n, kernel, block, smem)
              != cudaSuccess
          || n < 1)
        {
          (void)cudaGetLastError ();
          return 0;
        }
      per_sm.store (n, std::memory_order_relaxed);
    }
  if (cudaGetDevice (&device) != cudaSuccess
      || cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, device)
             != cudaSuccess)
    {
      (void)cudaGetLastError ();
      return 0;
    }
  return n * sms;
}
