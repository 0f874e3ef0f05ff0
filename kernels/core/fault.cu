/* SPDX-License-Identifier: LGPL-2.1-or-later */
// a kernel that faults on purpose, for fault injection
#include <cuda_runtime.h>

#include <stdint.h>

#include "fault.h"

__global__ static void
write_through_bad_pointer (int *p)
{
  p[threadIdx.x] = 1;
}

extern "C" int
accel_fault_illegal_address_launch (void *stream)
{
  write_through_bad_pointer<<<1, 32, 0, (cudaStream_t)stream>>> (
      (int *)(uintptr_t)0x10);
  return cudaGetLastError ();
}
