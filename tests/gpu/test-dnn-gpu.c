/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dnn.conv2d and dnn.conv2d-bias on a GPU (cuDNN): against the host
 * backend (a direct convolution in plain C) on the same fresh random
 * inputs, and against the double precision reference where it is cheap,
 * with the host tests' bounds (f32 stays f32: no TF32); the host tests'
 * shapes with every activation, and layers of the size of ResNet's. Skips
 * without a GPU. */
#include "accel-test.h"
#include "dnn-check.h"
#include "tensor-io.h"

static void
test_case (gconstpointer data)
{
  const DnnCase *c = data;
  gboolean reference
      = c->n * c->c * c->h * c->w * c->k * c->r * c->s <= 64 * 1024 * 1024;
  g_autoptr (DnnData) d = dnn_data_new (c, 2, reference);
  g_autoptr (GPtrArray) gpu = dnn_case_run (c, d, FALSE);
  g_autoptr (GPtrArray) host = dnn_case_run (c, d, TRUE);
  double err = reference ? dnn_case_check (c, d, gpu) : -1.0;
  double diff = dnn_compare_runs (c, gpu, host);

  g_test_message (
      "%s: relative error %.3g, GPU against host %.3g", c->path, err, diff);
  g_assert_cmpfloat (diff, <=, dnn_tolerance (c->dtype));
}

static void
free_case (gpointer data)
{
  DnnCase *c = data;

  g_free ((gchar *)c->path);
  g_free (c);
}

/* the geometry: in [n, c, h, w], weights [k, c / groups, r, s], pad,
 * stride, dilation (the same in both directions unless given) and groups */
typedef struct
{
  const char *name;
  gint64 n, c, h, w, k, r, s;
  gint pad_h, pad_w, stride_h, stride_w, dilation_h, dilation_w, groups;
} Geometry;

static const Geometry geometries[] = {
  { "1x1", 1, 8, 5, 7, 4, 1, 1, 0, 0, 1, 1, 1, 1, 1 },
  { "3x3-pad1", 2, 3, 9, 11, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1 },
  { "3x3-stride2", 1, 4, 13, 10, 6, 3, 3, 1, 1, 2, 2, 1, 1, 1 },
  { "3x3-dilation2", 1, 3, 12, 12, 4, 3, 3, 2, 2, 1, 1, 2, 2, 1 },
  { "groups2", 2, 6, 8, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1, 2 },
  { "depthwise", 1, 4, 9, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 4 },
  { "batch3-odd", 3, 5, 7, 9, 3, 3, 2, 1, 0, 1, 2, 1, 1, 1 },
  { "asymmetric", 2, 2, 15, 11, 3, 5, 3, 3, 2, 2, 3, 2, 1, 1 },
  { "resnet-3x3", 2, 64, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1 },
  { "resnet-1x1-stride2", 2, 64, 56, 56, 128, 1, 1, 0, 0, 2, 2, 1, 1, 1 },
  { "resnet-7x7-stem", 1, 3, 224, 224, 64, 7, 7, 3, 3, 2, 2, 1, 1, 1 },
};

static void
add (const char *kind, AccelDType dtype, const Geometry *g,
    const char *activation, double alpha)
{
  DnnCase *c = g_new0 (DnnCase, 1);
  g_autofree gchar *scaled
      = alpha != 1.0 ? g_strdup_printf ("-alpha%g", alpha) : g_strdup ("");

  c->path = g_strdup_printf ("/dnn-gpu/%s/%s/%s/%s%s", kind + 4,
      accel_dtype_to_string (dtype), g->name, activation, scaled);
  c->kind = kind;
  c->dtype = dtype;
  c->n = g->n;
  c->c = g->c;
  c->h = g->h;
  c->w = g->w;
  c->k = g->k;
  c->r = g->r;
  c->s = g->s;
  c->pad_h = g->pad_h;
  c->pad_w = g->pad_w;
  c->stride_h = g->stride_h;
  c->stride_w = g->stride_w;
  c->dilation_h = g->dilation_h;
  c->dilation_w = g->dilation_w;
  c->groups = g->groups;
  c->activation = activation;
  c->alpha = alpha;
  g_test_add_data_func_full (c->path, c, test_case, free_case);
}

int
main (int argc, char **argv)
{
  static const char *const activations[]
      = { "none", "relu", "sigmoid", "tanh", "elu" };
  static const AccelDType dtypes[] = { ACCEL_DTYPE_F32, ACCEL_DTYPE_F16 };

  accel_test_require_gpu ();
  g_test_init (&argc, &argv, NULL);
  test_tensor_stages_register ();

  for (guint t = 0; t < G_N_ELEMENTS (dtypes); t++)
    for (guint i = 0; i < G_N_ELEMENTS (geometries); i++)
      {
        add ("dnn.conv2d", dtypes[t], &geometries[i], "none", 1.0);
        add ("dnn.conv2d-bias", dtypes[t], &geometries[i], "relu", 1.0);
      }
  /* every activation, with and without the bias, on a small and a large
   * shape: the fused and the separate paths */
  for (guint a = 0; a < G_N_ELEMENTS (activations); a++)
    {
      add ("dnn.conv2d", ACCEL_DTYPE_F32, &geometries[1], activations[a], 0.5);
      /* relu with the bias is in the loop above */
      if (a == 1)
        continue;
      add ("dnn.conv2d-bias", ACCEL_DTYPE_F32, &geometries[4], activations[a],
          1.0);
      add ("dnn.conv2d-bias", ACCEL_DTYPE_F32, &geometries[8], activations[a],
          1.0);
    }
  return g_test_run ();
}
