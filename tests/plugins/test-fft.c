/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fft.forward and fft.inverse on the host backend (FFTW): against the DFT
 * from its definition on fresh random inputs, round trips, normalisation
 * and the type errors at link time */
#include <string.h>

#include "accel-test.h"
#include "fft-check.h"
#include "numeric-reference.h"
#include "tensor-io.h"

static void
test_case (gconstpointer data)
{
  const FftCase *c = data;
  g_autoptr (FftData) d = fft_data_new (c, 3);
  g_autoptr (GPtrArray) out = fft_case_run (c, d, TRUE);
  double err = fft_case_check (c, d, out);

  g_test_message ("%s: relative error %.3g", c->path, err);
}

/* src -> fft.forward -> fft.inverse (normalize) -> sink gives the input */
static void
round_trip (AccelDType dtype, gint n_dims, const gint64 *dims, gboolean real,
    gint64 real_length)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("round-trip");
  g_autoptr (GPtrArray) out = NULL;
  AccelStage *src, *fwd, *inv;
  AccelType type;
  gsize n_values = test_values_per_element (dtype);
  g_autoptr (GPtrArray) inputs
      = g_ptr_array_new_with_free_func ((GDestroyNotify)g_bytes_unref);

  accel_graph_set_device (g, accel_device_get_host ());
  accel_type_init_tensor (&type, dtype, ACCEL_MEMORY_DEVICE, n_dims, dims);
  n_values *= accel_type_get_n_elements (&type);
  src = accel_test_stage (g, "test.tensor-source", "src");
  fwd = accel_test_stage (g, "fft.forward", "fwd");
  inv = accel_test_stage (g, "fft.inverse", "inv");
  accel_test_stage (g, "test.tensor-sink", "sink");
  test_tensor_source_set_type (TEST_TENSOR_SOURCE (src), &type);
  for (guint f = 0; f < 2; f++)
    {
      g_autofree double *x = test_random_values (n_values);
      g_ptr_array_add (inputs, test_from_double (dtype, x, n_values));
      test_tensor_source_push (TEST_TENSOR_SOURCE (src), inputs->pdata[f]);
    }
  g_object_set (fwd, "rank", n_dims, NULL);
  g_object_set (inv, "rank", n_dims, "normalize", TRUE, NULL);
  if (real)
    g_object_set (inv, "real-length", real_length, NULL);
  test_stage_set_enum (inv, "type", real ? "c2r" : "c2c");
  g_assert_true (accel_graph_link (g, "src", "fwd", &error));
  g_assert_true (accel_graph_link (g, "fwd", "inv", &error));
  g_assert_true (accel_graph_link (g, "inv", "sink", &error));
  out = test_tensor_run (g, "sink");

  g_assert_cmpuint (out->len, ==, inputs->len);
  for (guint f = 0; f < out->len; f++)
    {
      gsize na, nb;
      g_autofree double *a = test_to_double (dtype, inputs->pdata[f], &na);
      g_autofree double *b = test_to_double (dtype, out->pdata[f], &nb);
      g_assert_cmpuint (na, ==, nb);
      g_assert_cmpfloat (test_rel_error (b, a, na), <=, fft_tolerance (dtype));
    }
}

static void
test_round_trip_c2c (void)
{
  const gint64 d1[] = { 1000 }, d2[] = { 24, 18 }, d3[] = { 6, 10, 7 };

  round_trip (ACCEL_DTYPE_C64, 1, d1, FALSE, 0);
  round_trip (ACCEL_DTYPE_C128, 2, d2, FALSE, 0);
  round_trip (ACCEL_DTYPE_C64, 3, d3, FALSE, 0);
}

static void
test_round_trip_real (void)
{
  const gint64 even[] = { 256 }, odd[] = { 255 }, d2[] = { 15, 21 };

  round_trip (ACCEL_DTYPE_F32, 1, even, TRUE, 256);
  round_trip (ACCEL_DTYPE_F64, 1, odd, TRUE, 255);
  round_trip (ACCEL_DTYPE_F64, 2, d2, TRUE, 21);
}

/* graph src (of @dtype, @dims) -> @kind: prepare fails with a type
 * mismatch naming the stage and the input type */
static void
expect_mismatch (const char *kind, AccelDType dtype, gint n_dims,
    const gint64 *dims, const char *fft_type, gint rank, gint64 real_length,
    const char *says)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("mismatch");
  g_autofree gchar *shown = NULL;
  AccelStage *src, *stage;
  AccelType type;

  accel_graph_set_device (g, accel_device_get_host ());
  accel_type_init_tensor (&type, dtype, ACCEL_MEMORY_DEVICE, n_dims, dims);
  src = accel_test_stage (g, "test.tensor-source", "src");
  stage = accel_test_stage (g, kind, "transform");
  accel_test_stage (g, "test.tensor-sink", "sink");
  test_tensor_source_set_type (TEST_TENSOR_SOURCE (src), &type);
  test_stage_set_enum (stage, "type", fft_type);
  g_object_set (stage, "rank", rank, "real-length", real_length, NULL);
  g_assert_true (accel_graph_link (g, "src", "transform", &error));
  g_assert_true (accel_graph_link (g, "transform", "sink", &error));
  g_assert_false (accel_graph_prepare (g, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH);
  g_test_message ("%s", error->message);
  shown = accel_type_to_string (&type);
  g_assert_nonnull (strstr (error->message, "'transform'"));
  g_assert_nonnull (strstr (error->message, kind));
  g_assert_nonnull (strstr (error->message, shown));
  if (says)
    g_assert_nonnull (strstr (error->message, says));
}

static void
test_type_errors (void)
{
  const gint64 d2[] = { 4, 8 }, d1[] = { 8 }, half[] = { 4, 5 },
               one[] = { 4, 1 };

  /* no integer transforms */
  expect_mismatch ("fft.forward", ACCEL_DTYPE_I32, 1, d1, "auto", 0, 0, NULL);
  /* c2r is an inverse, r2c a forward transform of real data */
  expect_mismatch ("fft.forward", ACCEL_DTYPE_C64, 2, d2, "c2r", 0, 0, NULL);
  expect_mismatch ("fft.inverse", ACCEL_DTYPE_F32, 2, d2, "auto", 0, 0, NULL);
  expect_mismatch ("fft.forward", ACCEL_DTYPE_C64, 2, d2, "r2c", 0, 0, NULL);
  expect_mismatch ("fft.forward", ACCEL_DTYPE_F64, 2, d2, "c2c", 0, 0, NULL);
  /* a 3-D transform of a matrix */
  expect_mismatch ("fft.forward", ACCEL_DTYPE_C128, 2, d2, "auto", 3, 0, NULL);
  /* 5 complex values make 8 or 9 reals, not 7 */
  expect_mismatch ("fft.inverse", ACCEL_DTYPE_C64, 2, half, "c2r", 1, 7,
      "makes 8 or 9 real values, not 7");
  /* and one makes one (it said "0 or 1") */
  expect_mismatch ("fft.inverse", ACCEL_DTYPE_C64, 2, one, "c2r", 1, 2,
      "makes 1 real value, not 2 (property real-length)");
  /* unset, real-length is 2 (m - 1): 0 here, which the message explains */
  expect_mismatch ("fft.inverse", ACCEL_DTYPE_C64, 2, one, "c2r", 1, 0,
      "makes 1 real value, not 0 (property real-length unset: 2 (m - 1))");
  /* r2c on an inverse is the direction, whatever the input (it sent a
   * complex input to real and a real one to complex) */
  expect_mismatch ("fft.inverse", ACCEL_DTYPE_C64, 2, d2, "r2c", 0, 0,
      "type r2c is a forward transform (fft.forward)");
  expect_mismatch ("fft.inverse", ACCEL_DTYPE_F32, 2, d2, "r2c", 0, 0,
      "type r2c is a forward transform (fft.forward)");
  /* real-length where there is no real output was taken and ignored */
  expect_mismatch ("fft.forward", ACCEL_DTYPE_F32, 2, d2, "auto", 0, 9,
      "real-length (9) sizes the real output of a c2r transform; this one "
      "is r2c");
  expect_mismatch (
      "fft.inverse", ACCEL_DTYPE_C64, 2, d2, "c2c", 0, 11, "this one is c2c");
}

/* the output types negotiation gives, r2c and c2r */
static void
test_output_types (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("types");
  const gint64 dims[] = { 3, 10, 16 };
  AccelStage *src, *fwd, *inv;
  g_autofree gchar *t1 = NULL, *t2 = NULL;
  AccelType type;

  accel_graph_set_device (g, accel_device_get_host ());
  accel_type_init_tensor (&type, ACCEL_DTYPE_F64, ACCEL_MEMORY_DEVICE, 3, dims);
  src = accel_test_stage (g, "test.tensor-source", "src");
  fwd = accel_test_stage (g, "fft.forward", "fwd");
  inv = accel_test_stage (g, "fft.inverse", "inv");
  accel_test_stage (g, "test.tensor-sink", "sink");
  test_tensor_source_set_type (TEST_TENSOR_SOURCE (src), &type);
  g_object_set (fwd, "rank", 2, NULL);
  g_object_set (inv, "rank", 2, "real-length", (gint64)16, NULL);
  test_stage_set_enum (inv, "type", "c2r");
  g_assert_true (accel_graph_link (g, "src", "fwd", &error));
  g_assert_true (accel_graph_link (g, "fwd", "inv", &error));
  g_assert_true (accel_graph_link (g, "inv", "sink", &error));
  g_assert_true (accel_graph_prepare (g, &error));
  g_assert_no_error (error);
  t1 = accel_type_to_string (accel_stage_get_output_type (fwd, 0));
  t2 = accel_type_to_string (accel_stage_get_output_type (inv, 0));
  g_assert_cmpstr (t1, ==, "tensor<c128>[3x10x9]@device");
  g_assert_cmpstr (t2, ==, "tensor<f64>[3x10x16]@device");
}

int
main (int argc, char **argv)
{
  accel_backend_set_default (ACCEL_BACKEND_HOST, NULL);
  g_test_init (&argc, &argv, NULL);
  test_tensor_stages_register ();

  for (guint i = 0; i < fft_n_cases; i++)
    g_test_add_data_func (fft_cases[i].path, &fft_cases[i], test_case);
  g_test_add_func ("/fft/round-trip/c2c", test_round_trip_c2c);
  g_test_add_func ("/fft/round-trip/r2c-c2r", test_round_trip_real);
  g_test_add_func ("/fft/negotiate/output-types", test_output_types);
  g_test_add_func ("/fft/negotiate/type-errors", test_type_errors);
  return g_test_run ();
}
