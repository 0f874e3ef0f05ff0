/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvrtc.kernel on a GPU: user kernels compiled at run time, from inline
 * source and from a file, with derived and explicit launch shapes and with
 * options, compared exactly to the same arithmetic on the host. Skips
 * without a GPU. */
#include <glib/gstdio.h>
#include <string.h>

#include "accel-test.h"
#include "tensor-io.h"

/* one thread an element: the derived grid covers n */
static const char affine_source[]
    = "#ifndef GAIN\n"
      "#define GAIN 2\n"
      "#endif\n"
      "extern \"C\" __global__ void\n"
      "kernel (const float *in, float *out, long long n)\n"
      "{\n"
      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "  if (i < n)\n"
      "    out[i] = in[i] * GAIN + 1.0f;\n"
      "}\n";

/* any grid: each thread strides over the elements */
static const char stride_source[]
    = "extern \"C\" __global__ void\n"
      "affine (const float *in, float *out, long long n)\n"
      "{\n"
      "  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "       i < n; i += (long long)gridDim.x * blockDim.x)\n"
      "    out[i] = in[i] * 2.0f + 1.0f;\n"
      "}\n";

static const char truncate_source[]
    = "extern \"C\" __global__ void\n"
      "kernel (const float *in, int *out, long long n)\n"
      "{\n"
      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "  if (i < n)\n"
      "    out[i] = (int)in[i];\n"
      "}\n";

/* one frame of @n floats in [-1000, 1000) */
static GPtrArray *
make_frames (gint64 n, AccelType *type)
{
  GPtrArray *frames
      = g_ptr_array_new_with_free_func ((GDestroyNotify)g_bytes_unref);
  float *data = g_new (float, n);

  for (gint64 i = 0; i < n; i++)
    data[i] = (float)g_test_rand_double_range (-1000.0, 1000.0);
  g_ptr_array_add (frames, g_bytes_new_take (data, n * sizeof (float)));
  accel_type_init_tensor (type, ACCEL_DTYPE_F32, ACCEL_MEMORY_DEVICE, 1, &n);
  return frames;
}

/* out[i] == in[i] * gain + 1, each step rounded as the GPU does with
 * --fmad=false (and exactly anyway for gain 2) */
static void
check_affine (GPtrArray *in, GPtrArray *out, float gain)
{
  gsize size_in, size_out;
  const float *x = g_bytes_get_data (in->pdata[0], &size_in);
  const float *y;

  g_assert_cmpuint (out->len, ==, 1);
  y = g_bytes_get_data (out->pdata[0], &size_out);
  g_assert_cmpuint (size_out, ==, size_in);
  for (gsize i = 0; i < size_in / sizeof (float); i++)
    {
      volatile float t = x[i] * gain;
      float want = t + 1.0f;

      if (memcmp (&y[i], &want, sizeof (float)) != 0)
        {
          g_test_message (
              "element %" G_GSIZE_FORMAT ": %.9g, want %.9g", i, y[i], want);
          g_assert_cmpfloat (y[i], ==, want);
        }
    }
}

static void
test_inline (gconstpointer data)
{
  gint64 n = GPOINTER_TO_SIZE (data);
  AccelType t;
  g_autoptr (GPtrArray) in = make_frames (n, &t);
  g_autoptr (GPtrArray) out = test_tensor_transform (
      "nvrtc.kernel", FALSE, &t, in, "source", affine_source, NULL);

  check_affine (in, out, 2.0f);
}

static void
test_explicit_grid (void)
{
  AccelType t;
  g_autoptr (GPtrArray) in = make_frames (1 << 20, &t);
  g_autoptr (GPtrArray) out
      = test_tensor_transform ("nvrtc.kernel", FALSE, &t, in, "source",
          stride_source, "entry", "affine", "grid", 7, "block", 96, NULL);

  check_affine (in, out, 2.0f);
}

static void
test_file (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *dir = g_dir_make_tmp ("accel-nvrtc-gpu-XXXXXX", NULL);
  g_autofree gchar *path = g_build_filename (dir, "affine.cu", NULL);
  AccelType t;
  g_autoptr (GPtrArray) in = make_frames (1000, &t);
  g_autoptr (GPtrArray) out = NULL;

  g_assert_true (g_file_set_contents (path, affine_source, -1, &error));
  g_assert_no_error (error);
  out = test_tensor_transform (
      "nvrtc.kernel", FALSE, &t, in, "file", path, "cache", FALSE, NULL);
  check_affine (in, out, 2.0f);
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_options (void)
{
  AccelType t;
  g_autoptr (GPtrArray) in = make_frames (1000, &t);
  g_autoptr (GPtrArray) out = test_tensor_transform ("nvrtc.kernel", FALSE, &t,
      in, "source", affine_source, "options", "-DGAIN=3 --fmad=false", NULL);

  check_affine (in, out, 3.0f);
}

static void
test_out_dtype (void)
{
  AccelType t;
  g_autoptr (GPtrArray) in = make_frames (1000, &t);
  g_autoptr (GPtrArray) out = test_tensor_transform ("nvrtc.kernel", FALSE, &t,
      in, "source", truncate_source, "out-dtype", "i32", NULL);
  gsize size;
  const float *x = g_bytes_get_data (in->pdata[0], NULL);
  const gint32 *y = g_bytes_get_data (out->pdata[0], &size);

  g_assert_cmpuint (size, ==, 1000 * sizeof (gint32));
  for (guint i = 0; i < 1000; i++)
    g_assert_cmpint (y[i], ==, (gint32)x[i]);
}

/* a graph whose stage 'broken' runs @source fails to start with an error
 * naming the stage and holding each of @parts (NULL-terminated) */
static void
expect_start_error (const char *source, const char *const *parts)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("nvrtc-error");
  const gint64 n = 16;
  g_autoptr (GBytes) zeros = g_bytes_new_take (g_new0 (float, n), n * 4);
  AccelStage *src, *stage;
  AccelType t;

  src = accel_test_stage (g, "test.tensor-source", "src");
  stage = accel_test_stage (g, "nvrtc.kernel", "broken");
  accel_test_stage (g, "test.tensor-sink", "sink");
  accel_type_init_tensor (&t, ACCEL_DTYPE_F32, ACCEL_MEMORY_DEVICE, 1, &n);
  test_tensor_source_set_type (TEST_TENSOR_SOURCE (src), &t);
  test_tensor_source_push (TEST_TENSOR_SOURCE (src), zeros);
  g_object_set (stage, "source", source, "cache", FALSE, NULL);
  g_assert_true (accel_graph_link (g, "src", "broken", &error));
  g_assert_true (accel_graph_link (g, "broken", "sink", &error));
  g_assert_no_error (error);
  g_assert_false (accel_graph_run (g, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "stage 'broken' (nvrtc.kernel)"));
  for (guint i = 0; parts[i]; i++)
    g_assert_nonnull (strstr (error->message, parts[i]));
}

/* a compile error stops the graph with NVRTC's message and the line */
static void
test_compile_error (void)
{
  const char *const parts[]
      = { "broken.cu(4): error", "     4 | out[0] = in[0] * ;", NULL };

  expect_start_error ("extern \"C\" __global__ void\n"
                      "kernel (const float *in, float *out, long long n)\n"
                      "{\n"
                      "  out[0] = in[0] * ;\n"
                      "}\n",
      parts);
}

/* a kernel whose parameters are not (in, out, n) fails to start rather
 * than read its arguments from the wrong bytes */
static void
test_wrong_signature (void)
{
  const char *const two[] = { "'kernel' takes 2 parameters;", NULL };
  const char *const four[] = { "takes more than 3 parameters", NULL };
  const char *const narrow[] = { "3 parameters, not all of 8 bytes", NULL };

  expect_start_error ("extern \"C\" __global__ void\n"
                      "kernel (float *data, long long n)\n"
                      "{\n"
                      "  data[0] = (float)n;\n"
                      "}\n",
      two);
  expect_start_error (
      "extern \"C\" __global__ void\n"
      "kernel (const float *in, float *out, long long n, float gain)\n"
      "{\n"
      "  out[0] = in[0] * gain;\n"
      "}\n",
      four);
  expect_start_error ("extern \"C\" __global__ void\n"
                      "kernel (const float *in, float *out, int n)\n"
                      "{\n"
                      "  out[0] = in[0] * n;\n"
                      "}\n",
      narrow);
}

int
main (int argc, char **argv)
{
  g_autofree gchar *cache_home = NULL;
  int status;

  accel_test_require_gpu ();
  /* compiled kernels go to a cache of the test's own, not the user's */
  cache_home = g_dir_make_tmp ("accel-xdg-XXXXXX", NULL);
  g_setenv ("XDG_CACHE_HOME", cache_home, TRUE);
  g_unsetenv ("ACCEL_NVRTC_CACHE");
  g_test_init (&argc, &argv, NULL);
  test_tensor_stages_register ();

  g_test_add_data_func (
      "/nvrtc-gpu/inline/1", GSIZE_TO_POINTER (1), test_inline);
  g_test_add_data_func (
      "/nvrtc-gpu/inline/1000", GSIZE_TO_POINTER (1000), test_inline);
  g_test_add_data_func (
      "/nvrtc-gpu/inline/1M", GSIZE_TO_POINTER (1 << 20), test_inline);
  g_test_add_func ("/nvrtc-gpu/explicit-grid-stride", test_explicit_grid);
  g_test_add_func ("/nvrtc-gpu/file", test_file);
  g_test_add_func ("/nvrtc-gpu/options", test_options);
  g_test_add_func ("/nvrtc-gpu/out-dtype", test_out_dtype);
  g_test_add_func ("/nvrtc-gpu/compile-error", test_compile_error);
  g_test_add_func ("/nvrtc-gpu/wrong-signature", test_wrong_signature);
  status = g_test_run ();
  accel_test_remove_tree (cache_home);
  return status;
}
