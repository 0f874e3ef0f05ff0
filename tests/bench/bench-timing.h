/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* benchmarks: the GPU time of enqueued work, by CUDA events, launched or
 * captured once and replayed; the wall time of a pipeline */
#pragma once

#include <accel/accel.h>
#include <cuda_runtime_api.h>

typedef void (*BenchEnqueue) (cudaStream_t stream, void *data);

float bench_time_ms (
    cudaStream_t stream, int reps, BenchEnqueue fn, void *data);
float bench_graph_time_ms (
    cudaStream_t stream, int reps, BenchEnqueue fn, void *data);
double bench_pipeline_seconds (const char *yaml, AccelCaptureMode mode);
void bench_pipeline_report (const char *what, const char *yaml, guint frames);
