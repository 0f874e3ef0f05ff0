/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stage kinds that exist only in the tests: a typed consumer, a two-input
 * sink, a slow sink and a stage that fails on purpose */
#pragma once

#include <accel/accel.h>

#define TEST_TYPE_IMAGE_SINK (test_image_sink_get_type ())
G_DECLARE_FINAL_TYPE (
    TestImageSink, test_image_sink, TEST, IMAGE_SINK, AccelStage)

#define TEST_TYPE_PAIR_SINK (test_pair_sink_get_type ())
G_DECLARE_FINAL_TYPE (TestPairSink, test_pair_sink, TEST, PAIR_SINK, AccelStage)

#define TEST_TYPE_SLOW_SINK (test_slow_sink_get_type ())
G_DECLARE_FINAL_TYPE (TestSlowSink, test_slow_sink, TEST, SLOW_SINK, AccelStage)

#define TEST_TYPE_FAILER (test_failer_get_type ())
G_DECLARE_FINAL_TYPE (TestFailer, test_failer, TEST, FAILER, AccelStage)

#define TEST_TYPE_COUNTER (test_counter_get_type ())
G_DECLARE_FINAL_TYPE (TestCounter, test_counter, TEST, COUNTER, AccelStage)

#define TEST_TYPE_LIVE_SOURCE (test_live_source_get_type ())
G_DECLARE_FINAL_TYPE (
    TestLiveSource, test_live_source, TEST, LIVE_SOURCE, AccelStage)
void test_live_source_set_num_buffers (TestLiveSource *self, guint64 n);

void test_stages_register (void);

/* pairs of (sequence on input 0, sequence on input 1) a pair sink saw */
GArray *test_pair_sink_get_pairs (TestPairSink *sink);
