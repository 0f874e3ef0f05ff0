/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* types: formatting, sizes and the link rules */
#include "accel-test.h"

static void
test_to_string (void)
{
  AccelType t;
  gint64 dims[2] = { 480, 640 };
  g_autofree gchar *a = NULL, *b = NULL, *c = NULL;

  accel_type_init_tensor (&t, ACCEL_DTYPE_F32, ACCEL_MEMORY_DEVICE, 2, dims);
  a = accel_type_to_string (&t);
  g_assert_cmpstr (a, ==, "tensor<f32>[480x640]@device");

  accel_type_init_image (
      &t, ACCEL_FORMAT_NV12, ACCEL_MEMORY_HOST, ACCEL_DIM_ANY, 1080);
  b = accel_type_to_string (&t);
  g_assert_cmpstr (b, ==, "image<NV12>[1080x?]@host");

  accel_type_init_any (&t);
  c = accel_type_to_string (&t);
  g_assert_cmpstr (c, ==, "any<?>[...]@any");
}

static void
test_sizes (void)
{
  AccelType t;
  gint64 dims[3] = { 2, 3, 5 };

  accel_type_init_tensor (&t, ACCEL_DTYPE_F64, ACCEL_MEMORY_DEVICE, 3, dims);
  g_assert_true (accel_type_is_fixed (&t));
  g_assert_cmpuint (accel_type_get_size (&t), ==, 2 * 3 * 5 * 8);

  /* odd 4:2:0 sizes round the chroma planes up */
  accel_type_init_image (&t, ACCEL_FORMAT_NV12, ACCEL_MEMORY_DEVICE, 7, 3);
  g_assert_cmpuint (accel_type_get_size (&t), ==, 7 * 3 + 4 * 2 * 2);
  accel_type_init_image (&t, ACCEL_FORMAT_I420, ACCEL_MEMORY_DEVICE, 7, 3);
  g_assert_cmpuint (accel_type_get_size (&t), ==, 7 * 3 + 2 * 4 * 2);
  accel_type_init_image (&t, ACCEL_FORMAT_RGBAF32, ACCEL_MEMORY_DEVICE, 3, 2);
  g_assert_cmpuint (accel_type_get_size (&t), ==, 3 * 2 * 16);

  accel_type_init_image (&t, ACCEL_FORMAT_ANY, ACCEL_MEMORY_DEVICE, 3, 2);
  g_assert_false (accel_type_is_fixed (&t));
}

static void
test_accepts (void)
{
  AccelType templ, t;
  gint64 dims[2] = { 4, 8 };
  gint64 any_dims[2] = { ACCEL_DIM_ANY, 8 };
  g_autofree gchar *r1 = NULL, *r2 = NULL, *r3 = NULL;

  accel_type_init_tensor (&t, ACCEL_DTYPE_F32, ACCEL_MEMORY_DEVICE, 2, dims);
  accel_type_init_tensor (
      &templ, ACCEL_DTYPE_F32, ACCEL_MEMORY_ANY, 2, any_dims);
  g_assert_true (accel_type_accepts (&templ, &t, NULL));

  templ.dims[1] = 9;
  g_assert_false (accel_type_accepts (&templ, &t, &r1));
  g_assert_cmpstr (r1, ==, "dimension 1 is 8, not 9");

  accel_type_init_tensor (
      &templ, ACCEL_DTYPE_U8, ACCEL_MEMORY_ANY, ACCEL_RANK_ANY, NULL);
  g_assert_false (accel_type_accepts (&templ, &t, &r2));
  g_assert_cmpstr (r2, ==, "dtype f32 is not u8");

  accel_type_init_image (
      &templ, ACCEL_FORMAT_ANY, ACCEL_MEMORY_ANY, ACCEL_DIM_ANY, ACCEL_DIM_ANY);
  g_assert_false (accel_type_accepts (&templ, &t, &r3));
  g_assert_cmpstr (r3, ==, "kind tensor is not image");
}

static void
test_names_round_trip (void)
{
  for (AccelDType d = ACCEL_DTYPE_U8; d <= ACCEL_DTYPE_C128; d++)
    g_assert_cmpint (
        accel_dtype_from_string (accel_dtype_to_string (d)), ==, d);
  for (AccelFormat f = ACCEL_FORMAT_RGBA8; f <= ACCEL_FORMAT_RGBAF32; f++)
    g_assert_cmpint (
        accel_format_from_string (accel_format_to_string (f)), ==, f);
  g_assert_cmpint (accel_format_from_string ("rgba8"), ==, ACCEL_FORMAT_RGBA8);
  g_assert_cmpint (accel_dtype_from_string ("f31"), ==, ACCEL_DTYPE_ANY);
}

/* the error domain's name, as GError users see it */
static void
test_error_quark (void)
{
  g_assert_cmpstr (g_quark_to_string (ACCEL_ERROR), ==, "accel-error-quark");
}

/* sizes that overflow a gsize: the checked call says so, the plain ones
 * complain instead of wrapping to a small size */
static void
test_size_overflow (void)
{
  AccelType t;
  gint64 wraps[4] = { 65536, 65536, 65536, 16384 };
  gint64 fits[2] = { 65536, 16384 };
  gsize size = 7;

  accel_type_init_tensor (&t, ACCEL_DTYPE_F32, ACCEL_MEMORY_DEVICE, 2, fits);
  g_assert_true (accel_type_get_size_checked (&t, &size));
  g_assert_cmpuint (size, ==, G_GUINT64_CONSTANT (4294967296));

  size = 7;
  accel_type_init_tensor (&t, ACCEL_DTYPE_F32, ACCEL_MEMORY_DEVICE, 4, wraps);
  g_assert_false (accel_type_get_size_checked (&t, &size));
  g_assert_cmpuint (size, ==, 7);

  accel_type_init_image (&t, ACCEL_FORMAT_RGBAF32, ACCEL_MEMORY_DEVICE,
      G_GINT64_CONSTANT (1) << 31, G_GINT64_CONSTANT (1) << 31);
  g_assert_false (accel_type_get_size_checked (&t, &size));
  g_assert_cmpuint (size, ==, 7);

  if (g_test_subprocess ())
    {
      accel_type_init_tensor (
          &t, ACCEL_DTYPE_F32, ACCEL_MEMORY_DEVICE, 4, wraps);
      accel_type_get_size (&t);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*CRITICAL*accel_type_get_size*");
}

static void
test_parse_dims_overflow (void)
{
  AccelType t;
  g_autoptr (GError) error = NULL;

  accel_type_init_tensor (&t, ACCEL_DTYPE_F32, ACCEL_MEMORY_DEVICE, 0, NULL);
  g_assert_true (accel_type_parse_dims (&t, "65536x16384", &error));
  g_assert_no_error (error);
  g_assert_false (
      accel_type_parse_dims (&t, "65536x65536x65536x16384", &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (error->message, ==,
      "shape '65536x65536x65536x16384' is too large: its size in bytes "
      "overflows");
  /* left alone */
  g_assert_cmpint (t.n_dims, ==, 2);
}

static void
test_null_type_is_a_critical (void)
{
  if (g_test_subprocess ())
    {
      accel_type_to_string (NULL);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*CRITICAL*accel_type_to_string*type != NULL*");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/type/to-string", test_to_string);
  g_test_add_func ("/type/sizes", test_sizes);
  g_test_add_func ("/type/size-overflow", test_size_overflow);
  g_test_add_func ("/type/parse-dims-overflow", test_parse_dims_overflow);
  g_test_add_func ("/type/null-is-a-critical", test_null_type_is_a_critical);
  g_test_add_func ("/type/accepts", test_accepts);
  g_test_add_func ("/type/names-round-trip", test_names_round_trip);
  g_test_add_func ("/error/quark-name", test_error_quark);
  return g_test_run ();
}
