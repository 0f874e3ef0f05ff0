/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stage kinds that exist only in the tests: a typed consumer, a two-input
 * sink, a slow sink, stages that fail or misbehave on purpose, a live
 * source and one that never writes its frames */
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

#define TEST_TYPE_MISBEHAVER (test_misbehaver_get_type ())
G_DECLARE_FINAL_TYPE (
    TestMisbehaver, test_misbehaver, TEST, MISBEHAVER, AccelStage)

#define TEST_TYPE_SKIP_SINK (test_skip_sink_get_type ())
G_DECLARE_FINAL_TYPE (TestSkipSink, test_skip_sink, TEST, SKIP_SINK, AccelStage)

#define TEST_TYPE_RENDER_FAILER (test_render_failer_get_type ())
G_DECLARE_FINAL_TYPE (
    TestRenderFailer, test_render_failer, TEST, RENDER_FAILER, AccelStage)

#define TEST_TYPE_COUNTER (test_counter_get_type ())
G_DECLARE_FINAL_TYPE (TestCounter, test_counter, TEST, COUNTER, AccelStage)

#define TEST_TYPE_LIVE_SOURCE (test_live_source_get_type ())
G_DECLARE_FINAL_TYPE (
    TestLiveSource, test_live_source, TEST, LIVE_SOURCE, AccelStage)
void test_live_source_set_num_buffers (TestLiveSource *self, guint64 n);

#define TEST_TYPE_BLANK_SOURCE (test_blank_source_get_type ())
G_DECLARE_FINAL_TYPE (
    TestBlankSource, test_blank_source, TEST, BLANK_SOURCE, AccelStage)
/* runs @frames frames of a blank source on @device, after memory of their
 * size was freed dirty; returns how many it found not zeroed */
guint test_blank_source_count_unzeroed (AccelDevice *device, guint frames);

void test_stages_register (void);

/* pairs of (sequence on input 0, sequence on input 1) a pair sink saw */
GArray *test_pair_sink_get_pairs (TestPairSink *sink);
