/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* benchmarks: the GPU time of enqueued work, by CUDA events */
#include "bench-timing.h"

/* the mean time of @reps runs of @fn on @stream, after one to warm up */
float
bench_time_ms (cudaStream_t stream, int reps, BenchEnqueue fn, void *data)
{
  cudaEvent_t a, b;
  float ms;

  cudaEventCreate (&a);
  cudaEventCreate (&b);
  fn (stream, data);
  cudaEventRecord (a, stream);
  for (int i = 0; i < reps; i++)
    fn (stream, data);
  cudaEventRecord (b, stream);
  cudaEventSynchronize (b);
  cudaEventElapsedTime (&ms, a, b);
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  return ms / reps;
}
