/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* programmatic dependent launch: a kernel launched this way may start on
 * free SMs while the kernel before it in the stream is still running, and
 * waits in overlap_wait () until that one has ended and its writes are
 * seen, so that dependent kernels back to back do not pay the launch
 * between them (in a stream, and in a graph captured from one) */
#pragma once

#include <cuda_runtime.h>

/* the launch attribute that allows it */
static inline cudaLaunchAttribute
overlap_attribute (void)
{
  cudaLaunchAttribute a = {};

  a.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  a.val.programmaticStreamSerializationAllowed = 1;
  return a;
}

/* @kernel<<<@grid, @block, @smem, @stream>>> (@args), allowed to start
 * early: it must call overlap_wait () before it reads or writes global
 * memory */
template <typename... Params, typename... Args>
static cudaError_t
launch_overlapped (void (*kernel) (Params...), dim3 grid, dim3 block,
    size_t smem, cudaStream_t stream, Args... args)
{
  cudaLaunchAttribute attr = overlap_attribute ();
  cudaLaunchConfig_t config = {};

  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  config.attrs = &attr;
  config.numAttrs = 1;
  return cudaLaunchKernelEx (&config, kernel, args...);
}

/* the kernel before has ended and its writes are seen; the kernel after
 * may launch now (from every block: only once all have come here, so it
 * takes no SM this kernel still needs, and no kernel further on starts
 * early). A no-op for a kernel launched the usual way */
__device__ __forceinline__ void
overlap_wait (void)
{
  cudaGridDependencySynchronize ();
  cudaTriggerProgrammaticLaunchCompletion ();
}
