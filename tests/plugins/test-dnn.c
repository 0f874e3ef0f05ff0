/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dnn.conv2d and dnn.conv2d-bias on the host backend (a direct
 * convolution in plain C): against an independent plain C double precision
 * reference on fresh random inputs, and what negotiation refuses */
#include "accel-test.h"
#include "dnn-check.h"
#include "tensor-io.h"

#define F32 ACCEL_DTYPE_F32
#define F16 ACCEL_DTYPE_F16
#define CONV "dnn.conv2d"
#define BIAS "dnn.conv2d-bias"

/* path, kind, dtype, n, c, h, w, k, r, s, pad h w, stride h w, dilation
 * h w, groups, activation, alpha */
static const DnnCase cases[] = {
  { "/dnn/conv2d/1x1", CONV, F32, 1, 8, 5, 7, 4, 1, 1, 0, 0, 1, 1, 1, 1, 1,
      NULL, 1.0 },
  { "/dnn/conv2d/3x3-pad1", CONV, F32, 2, 3, 9, 11, 5, 3, 3, 1, 1, 1, 1, 1, 1,
      1, NULL, 1.0 },
  { "/dnn/conv2d/3x3-stride2", CONV, F32, 1, 4, 13, 10, 6, 3, 3, 1, 1, 2, 2, 1,
      1, 1, NULL, 1.0 },
  { "/dnn/conv2d/3x3-dilation2", CONV, F32, 1, 3, 12, 12, 4, 3, 3, 2, 2, 1, 1,
      2, 2, 1, NULL, 1.0 },
  { "/dnn/conv2d/groups2", CONV, F32, 2, 6, 8, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1, 2,
      NULL, 1.0 },
  { "/dnn/conv2d/depthwise", CONV, F32, 1, 4, 9, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1,
      4, NULL, 1.0 },
  { "/dnn/conv2d/batch3-odd", CONV, F32, 3, 5, 7, 9, 3, 3, 2, 1, 0, 1, 2, 1, 1,
      1, NULL, 0.5 },
  { "/dnn/conv2d/asymmetric", CONV, F32, 2, 2, 15, 11, 3, 5, 3, 3, 2, 2, 3, 2,
      1, 1, NULL, -1.5 },
  { "/dnn/conv2d/pad-past-filter", CONV, F32, 1, 2, 4, 5, 3, 1, 1, 2, 3, 1, 1,
      1, 1, 1, NULL, 1.0 },
  { "/dnn/conv2d/relu", CONV, F32, 2, 3, 8, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1,
      "relu", 1.0 },
  { "/dnn/conv2d/sigmoid", CONV, F32, 1, 3, 8, 6, 4, 3, 3, 0, 0, 1, 1, 1, 1, 1,
      "sigmoid", 1.0 },
  { "/dnn/conv2d/tanh", CONV, F32, 1, 4, 7, 7, 2, 3, 3, 1, 1, 2, 2, 1, 1, 2,
      "tanh", 1.0 },
  { "/dnn/conv2d/elu", CONV, F32, 1, 3, 6, 9, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1,
      "elu", 2.0 },
  { "/dnn/conv2d-bias/none", BIAS, F32, 2, 3, 9, 9, 4, 3, 3, 1, 1, 1, 1, 1, 1,
      1, NULL, 1.0 },
  { "/dnn/conv2d-bias/relu", BIAS, F32, 3, 4, 10, 7, 6, 3, 3, 1, 1, 2, 1, 1, 1,
      2, "relu", 1.0 },
  { "/dnn/conv2d-bias/sigmoid", BIAS, F32, 1, 2, 8, 8, 3, 1, 1, 0, 0, 1, 1, 1,
      1, 1, "sigmoid", 1.0 },
  { "/dnn/conv2d-bias/tanh", BIAS, F32, 1, 3, 11, 11, 4, 3, 3, 2, 2, 1, 1, 2, 2,
      1, "tanh", 0.5 },
  { "/dnn/conv2d-bias/elu", BIAS, F32, 2, 6, 7, 7, 6, 3, 3, 1, 1, 1, 1, 1, 1, 3,
      "elu", 1.0 },
  { "/dnn/conv2d/f16", CONV, F16, 1, 4, 8, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1,
      NULL, 1.0 },
  { "/dnn/conv2d-bias/f16-relu", BIAS, F16, 2, 3, 9, 7, 5, 3, 3, 1, 1, 2, 2, 1,
      1, 1, "relu", 1.0 },
};

static void
test_case (gconstpointer data)
{
  const DnnCase *c = data;
  g_autoptr (DnnData) d = dnn_data_new (c, 2, TRUE);
  g_autoptr (GPtrArray) out = dnn_case_run (c, d, TRUE);
  double err = dnn_case_check (c, d, out);

  g_test_message ("%s: relative error %.3g", c->path, err);
}

static void
expect_prepare_error (const DnnCase *c, gint port, const AccelType *type,
    gint code, const char *message)
{
  g_autoptr (DnnData) d = dnn_data_new (c, 0, FALSE);
  g_autoptr (AccelGraph) g = NULL;

  if (port >= 0)
    d->types[port] = *type;
  g = dnn_graph_new (c, d, TRUE);
  test_expect_prepare_error (g, code, message);
}

static void
test_link_errors (void)
{
  const DnnCase conv
      = { "", CONV, F32, 1, 3, 8, 8, 4, 3, 3, 0, 0, 1, 1, 1, 1, 1, NULL, 1.0 };
  const DnnCase groups4
      = { "", CONV, F32, 1, 6, 8, 8, 4, 3, 3, 0, 0, 1, 1, 1, 1, 4, NULL, 1.0 };
  const DnnCase groups2
      = { "", CONV, F32, 1, 6, 8, 8, 5, 3, 3, 0, 0, 1, 1, 1, 1, 2, NULL, 1.0 };
  const DnnCase big
      = { "", CONV, F32, 1, 1, 4, 4, 1, 5, 5, 0, 0, 1, 1, 1, 1, 1, NULL, 1.0 };
  const DnnCase dilated
      = { "", CONV, F32, 1, 1, 6, 6, 1, 3, 3, 1, 0, 1, 1, 4, 1, 1, NULL, 1.0 };
  const DnnCase bias = { "", BIAS, F32, 1, 3, 8, 8, 4, 3, 3, 0, 0, 1, 1, 1, 1,
    1, "relu", 1.0 };
  const DnnCase f64 = { "", CONV, ACCEL_DTYPE_F64, 1, 3, 8, 8, 4, 3, 3, 0, 0, 1,
    1, 1, 1, 1, NULL, 1.0 };
  /* the largest pads: an output of 2^64 - 2^33 + 1 elements */
  const DnnCase padded = { "", CONV, F32, 1, 1, 1, 1, 1, 1, 1, G_MAXINT,
    G_MAXINT, 1, 1, 1, 1, 1, NULL, 1.0 };
  const gint64 w_dims[] = { 4, 2, 3, 3 }, bias_dims[] = { 7 };
  const gint64 w16_dims[] = { 4, 3, 3, 3 };
  AccelType t;

  accel_type_init_tensor (&t, F32, ACCEL_MEMORY_DEVICE, 4, w_dims);
  expect_prepare_error (&conv, 1, &t, ACCEL_ERROR_TYPE_MISMATCH,
      "stage 'stage' (dnn.conv2d): in is 1x3x8x8 but weights is 4x2x3x3; "
      "with groups 1 each filter must have 3 channels, not 2");
  expect_prepare_error (&groups4, -1, NULL, ACCEL_ERROR_TYPE_MISMATCH,
      "stage 'stage' (dnn.conv2d): in is 1x6x8x8; its 6 channels are not a "
      "multiple of groups 4");
  expect_prepare_error (&groups2, -1, NULL, ACCEL_ERROR_TYPE_MISMATCH,
      "stage 'stage' (dnn.conv2d): weights is 5x3x3x3; its 5 filters are not "
      "a multiple of groups 2");
  expect_prepare_error (&big, -1, NULL, ACCEL_ERROR_TYPE_MISMATCH,
      "stage 'stage' (dnn.conv2d): in is 1x1x4x4 but weights is 1x1x5x5; "
      "with dilation-h 1 and dilation-w 1 the filter spans 5x5, more than "
      "the input padded by pad-h 0 and pad-w 0, 4x4: the output would be "
      "empty");
  expect_prepare_error (&dilated, -1, NULL, ACCEL_ERROR_TYPE_MISMATCH,
      "stage 'stage' (dnn.conv2d): in is 1x1x6x6 but weights is 1x1x3x3; "
      "with dilation-h 4 and dilation-w 1 the filter spans 9x3, more than "
      "the input padded by pad-h 1 and pad-w 0, 8x6: the output would be "
      "empty");
  expect_prepare_error (&padded, -1, NULL, ACCEL_ERROR_TYPE_MISMATCH,
      "stage 'stage' (dnn.conv2d): in is 1x1x1x1 and weights is 1x1x1x1; "
      "with pad-h 2147483647 and pad-w 2147483647 the output of "
      "1x1x4294967295x4294967295 has more than 2^31 - 1 elements");
  accel_type_init_tensor (&t, F32, ACCEL_MEMORY_DEVICE, 1, bias_dims);
  expect_prepare_error (&bias, 2, &t, ACCEL_ERROR_TYPE_MISMATCH,
      "stage 'stage' (dnn.conv2d-bias): bias is tensor<f32>[7]@device but "
      "weights is 4x3x3x3; bias must be f32 [4], one value per filter");
  expect_prepare_error (&f64, -1, NULL, ACCEL_ERROR_TYPE_MISMATCH,
      "stage 'stage' (dnn.conv2d): in is f64; the stage takes f32 or f16");
  accel_type_init_tensor (&t, ACCEL_DTYPE_U8, ACCEL_MEMORY_DEVICE, 4, w16_dims);
  expect_prepare_error (&conv, 1, &t, ACCEL_ERROR_TYPE_MISMATCH,
      "stage 'stage' (dnn.conv2d): weights is u8; the stage takes f32 or f16");
  accel_type_init_tensor (&t, F16, ACCEL_MEMORY_DEVICE, 4, w16_dims);
  expect_prepare_error (&conv, 1, &t, ACCEL_ERROR_TYPE_MISMATCH,
      "stage 'stage' (dnn.conv2d): in is f32 but weights is f16; both must "
      "have one dtype");
}

/* the activation is read when the graph is prepared: set after it, the
 * change is refused with a warning and the frames keep the one negotiated,
 * as cuDNN's descriptors on a GPU do (the host read it per frame) */
static void
test_activation_fixed (void)
{
  static const DnnCase c = { "", "dnn.conv2d", F32, 1, 3, 8, 8, 4, 3, 3, 1, 1,
    1, 1, 1, 1, 1, NULL, 1.0 };
  g_autoptr (DnnData) d = dnn_data_new (&c, 2, TRUE);
  g_autoptr (AccelGraph) g = dnn_graph_new (&c, d, TRUE);
  g_autoptr (GPtrArray) out = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_true (accel_graph_prepare (g, &error));
  g_assert_no_error (error);
  g_test_expect_message ("accel-stage", G_LOG_LEVEL_WARNING,
      "*'activation' is fixed once the graph is prepared*");
  test_stage_set_enum (
      accel_graph_get_stage (g, "stage"), "activation", "relu");
  g_test_assert_expected_messages ();
  out = test_tensor_run (g, "sink");
  dnn_case_check (&c, d, out);
}

int
main (int argc, char **argv)
{
  accel_backend_set_default (ACCEL_BACKEND_HOST, NULL);
  g_test_init (&argc, &argv, NULL);
  test_tensor_stages_register ();

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    g_test_add_data_func (cases[i].path, &cases[i], test_case);
  g_test_add_func ("/dnn/negotiate/link-errors", test_link_errors);
  g_test_add_func ("/dnn/conv2d/activation-fixed", test_activation_fixed);
  return g_test_run ();
}
