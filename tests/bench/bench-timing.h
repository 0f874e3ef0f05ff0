/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* benchmarks: the GPU time of enqueued work, by CUDA events */
#pragma once

#include <cuda_runtime_api.h>

typedef void (*BenchEnqueue) (cudaStream_t stream, void *data);

float bench_time_ms (
    cudaStream_t stream, int reps, BenchEnqueue fn, void *data);
