/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stage kinds of the plugin tests: a source of given host tensors and a
 * sink that keeps what it receives, on either backend */
#pragma once

#include <accel/accel.h>

#define TEST_TYPE_TENSOR_SOURCE (test_tensor_source_get_type ())
G_DECLARE_FINAL_TYPE (
    TestTensorSource, test_tensor_source, TEST, TENSOR_SOURCE, AccelStage)

#define TEST_TYPE_TENSOR_SINK (test_tensor_sink_get_type ())
G_DECLARE_FINAL_TYPE (
    TestTensorSink, test_tensor_sink, TEST, TENSOR_SINK, AccelStage)

void test_tensor_stages_register (void);

/* the type of every frame (memory is made device memory) */
void test_tensor_source_set_type (
    TestTensorSource *source, const AccelType *type);
/* frame n is the n-th pushed; then end of stream */
void test_tensor_source_push (TestTensorSource *source, GBytes *data);

/* (element-type GBytes) the frames received, by arrival */
GPtrArray *test_tensor_sink_get_frames (TestTensorSink *sink);
/* (element-type guint64) their sequence numbers */
GArray *test_tensor_sink_get_sequences (TestTensorSink *sink);

/* runs two graphs that @build makes of @data (GPU, the same inputs): one
 * with stream launches, one in graph mode; asserts that "stage" replayed
 * frames in graph mode, and that both gave the sink "sink" the same bytes,
 * frame for frame */
void test_tensor_assert_graph_mode_exact (
    AccelGraph *(*build) (gconstpointer data), gconstpointer data);

/* sets the enum property @property of @stage by its value's nick */
void test_stage_set_enum (
    AccelStage *stage, const char *property, const char *nick);

/* a test.tensor-source per input of @stage, named after its port
 * @ports[i], of type @types[i], pushing the frames @inputs[i] (GBytes), and
 * linked to that port */
void test_tensor_link_sources (AccelGraph *graph, AccelStage *stage,
    guint n_inputs, const char *const *ports, const AccelType *types,
    GPtrArray *const *inputs);

/* asserts that preparing @graph fails with ACCEL_ERROR @code and @message,
 * as test_assert_stage_message () checks it */
void test_expect_prepare_error (
    AccelGraph *graph, gint code, const char *message);

/* asserts that @got is the stage's own @message, followed for a type it
 * refused by the stages its inputs come from ("; its input 'a' comes from
 * stage 'x' (kind), ...") */
void test_assert_stage_message (const char *got, const char *message);

/* runs @graph whose sink stage is @sink_name and returns its frames */
GPtrArray *test_tensor_run (AccelGraph *graph, const char *sink_name);

/* src (test.tensor-source of @type and @frames) -> @kind -> sink; on the
 * host device when @host, on the default device otherwise; the stage's
 * properties from the NULL-terminated @first_property list */
GPtrArray *test_tensor_transform (const char *kind, gboolean host,
    const AccelType *type, GPtrArray *frames, const char *first_property,
    ...) G_GNUC_NULL_TERMINATED;
