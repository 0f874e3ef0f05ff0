/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* benchmarks: a source of device tensors filled with a constant byte, and
 * the timing of one graph run */
#pragma once

#include "accel-test.h"

G_BEGIN_DECLS

#define BENCH_TYPE_FILL_SOURCE (bench_fill_source_get_type ())
G_DECLARE_FINAL_TYPE (
    BenchFillSource, bench_fill_source, BENCH, FILL_SOURCE, AccelStage)

/* 0x3c3c3c3c is about 0.0115 as f32: no NaN, no denormals */
#define BENCH_FILL_BYTE 0x3c

void bench_fill_source_set_shape (
    AccelStage *stage, AccelDType dtype, gint n_dims, const gint64 *dims);
double bench_run_graph (AccelGraph *graph, guint frames);
void bench_check_cuda (int status, const char *what);

G_END_DECLS
