/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* NVIDIA's NPP doing the closest equivalent of an image kernel case, for
 * the benchmark's comparison column */
#pragma once

#include <glib.h>

#include "test-image.h"

typedef struct _BenchNpp BenchNpp;

/* whether the benchmark was built with NPP */
gboolean bench_npp_built (void);

/* NULL where the benchmark was built without NPP */
BenchNpp *bench_npp_new (void *stream);
void bench_npp_free (BenchNpp *npp);

/* whether NPP has an equivalent of @tc on an @in_format frame */
gboolean bench_npp_has (const TestCase *tc, int in_format);

/* enqueues NPP's equivalent of @tc from @in (device @src) into @out
 * (device @dst); returns 0 or an NPP status */
int bench_npp_run (BenchNpp *npp, const TestCase *tc, const TestFrame *in,
    const void *src, const TestFrame *out, void *dst);
