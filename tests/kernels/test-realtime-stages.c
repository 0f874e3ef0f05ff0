/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the realtime plugin's stages on the host backend: found through
 * ACCEL_PLUGIN_PATH, run in graphs from core.test-source to
 * core.checksum-sink with the host references' results, and their type
 * errors */
#include <stdlib.h>

#include "accel-test.h"
#include "test-image.h"
#include "test-stages.h"
#include "core/pattern.h"

#define N_FRAMES 3
#define WIDTH 37
#define HEIGHT 23

typedef struct
{
  const char *kind;
  int format;
  TestCase tc;
} StageCase;

static void
link_ok (AccelGraph *g, const char *a, const char *b)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (accel_graph_link (g, a, b, &error));
  g_assert_no_error (error);
}

static AccelStage *
image_source (AccelGraph *g, const char *format, int width, int height)
{
  AccelStage *src = accel_test_stage (g, "core.test-source", "src");

  g_object_set (src, "format", format, "width", width, "height", height,
      "num-buffers", (gint64)N_FRAMES, NULL);
  return src;
}

/* the stage's properties for the kernel case it should run */
static void
configure (AccelStage *stage, const StageCase *sc)
{
  const TestCase *tc = &sc->tc;
  int of, ow, oh;

  switch (tc->kernel)
    {
    case TEST_KERNEL_GAUSSIAN_BLUR:
      g_object_set (stage, "sigma", tc->f, NULL);
      break;
    case TEST_KERNEL_BOX_BLUR:
      g_object_set (stage, "radius", tc->n, NULL);
      break;
    case TEST_KERNEL_UNSHARP:
      g_object_set (stage, "amount", tc->f, "sigma", tc->g, NULL);
      break;
    case TEST_KERNEL_SOBEL:
      g_object_set (stage, "scale", tc->f, NULL);
      break;
    case TEST_KERNEL_MEDIAN:
      g_object_set (stage, "size", tc->n, NULL);
      break;
    case TEST_KERNEL_THRESHOLD:
      g_object_set (stage, "value", tc->f / 255.0f, NULL);
      break;
    case TEST_KERNEL_RESIZE:
      test_case_output (tc, sc->format, WIDTH, HEIGHT, &of, &ow, &oh);
      g_object_set (stage, "width", ow, "height", oh, NULL);
      break;
    case TEST_KERNEL_CONVERT:
      g_object_set (stage, "format", test_format_name (tc->dst_format), NULL);
      break;
    }
}

/* what the checksum sink must report: the host reference applied to the
 * test source's frames */
static gchar *
expected_digest (const StageCase *sc)
{
  g_autoptr (GChecksum) all = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr (TestFrame) in = test_frame_new (sc->format, WIDTH, HEIGHT, 0);
  g_autoptr (TestFrame) out = NULL;
  int of, ow, oh;

  test_case_output (&sc->tc, sc->format, WIDTH, HEIGHT, &of, &ow, &oh);
  out = test_frame_new (of, ow, oh, 0);
  for (guint64 s = 0; s < N_FRAMES; s++)
    {
      g_autofree gchar *sum = NULL, *line = NULL;

      if (sc->format == ACCEL_IMAGE_RGBAF32)
        accel_pattern_fill_f32_host ((float *)in->data, in->size / 4, s);
      else
        accel_pattern_fill_u8_host (in->data, in->size, s);
      g_assert_cmpint (test_case_run (&sc->tc, FALSE, NULL, in, in->data, out,
                           out->data, NULL, 0),
          ==, 0);
      sum = g_compute_checksum_for_data (
          G_CHECKSUM_SHA256, out->data, out->size);
      line = g_strdup_printf ("%" G_GUINT64_FORMAT " %s\n", s, sum);
      g_checksum_update (all, (const guchar *)line, -1);
    }
  return g_strdup (g_checksum_get_string (all));
}

static void
test_stage_runs (gconstpointer data)
{
  const StageCase *sc = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("realtime");
  g_autofree gchar *digest = NULL, *expected = NULL;
  AccelStage *stage, *sink;

  image_source (g, test_format_name (sc->format), WIDTH, HEIGHT);
  stage = accel_test_stage (g, sc->kind, "stage");
  configure (stage, sc);
  sink = accel_test_stage (g, "core.checksum-sink", "sink");
  link_ok (g, "src", "stage");
  link_ok (g, "stage", "sink");

  g_assert_true (accel_graph_run (g, &error));
  g_assert_no_error (error);
  g_assert_true (accel_stage_is_host (stage));
  g_assert_cmpuint (accel_checksum_sink_get_n_received (sink), ==, N_FRAMES);
  digest = accel_checksum_sink_dup_digest (sink);
  expected = expected_digest (sc);
  g_assert_cmpstr (digest, ==, expected);
}

static void
test_registered (void)
{
  static const char *const kinds[]
      = { "realtime.gaussian-blur", "realtime.box-blur", "realtime.sobel",
          "realtime.median", "realtime.unsharp", "realtime.threshold",
          "realtime.resize", "realtime.convert" };
  AccelRegistry *registry = accel_registry_get_default ();
  g_autoptr (GError) error = NULL;
  g_autofree gchar *text = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    g_assert_cmpuint (
        accel_registry_lookup (registry, kinds[i]), !=, G_TYPE_INVALID);
  text = accel_registry_describe (registry, "realtime.gaussian-blur", &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (text, "sigma"));
  g_assert_nonnull (strstr (text, "image<?>[?x?]@device"));
}

/* a wrong format on a link out of a realtime stage: the graph's message
 * names both stages, both ports and both types */
static void
test_link_mismatch_names_both (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("mismatch");

  image_source (g, "GRAY8", WIDTH, HEIGHT);
  accel_test_stage (g, "realtime.gaussian-blur", "blur");
  accel_test_stage (g, "test.image-sink", "screen");
  link_ok (g, "src", "blur");
  link_ok (g, "blur", "screen");
  g_assert_false (accel_graph_prepare (g, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH);
  g_assert_cmpstr (error->message, ==,
      "cannot link 'blur.out' (realtime.gaussian-blur) to 'screen.frames' "
      "(test.image-sink): output type image<GRAY8>[23x37]@device does not "
      "fit input type image<RGBA8>[?x?]@any: format GRAY8 is not RGBA8");
  g_clear_error (&error);

  /* a tensor into a realtime stage */
  {
    g_autoptr (AccelGraph) t = accel_graph_new ("tensor");
    AccelStage *src = accel_test_stage (t, "core.test-source", "numbers");

    g_object_set (src, "shape", "16", "num-buffers", (gint64)1, NULL);
    accel_test_stage (t, "realtime.sobel", "edges");
    accel_test_stage (t, "core.null-sink", "sink");
    link_ok (t, "numbers", "edges");
    link_ok (t, "edges", "sink");
    g_assert_false (accel_graph_prepare (t, &error));
    g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH);
    g_assert_cmpstr (error->message, ==,
        "cannot link 'numbers.out' (core.test-source) to 'edges.in' "
        "(realtime.sobel): output type tensor<f32>[16]@device does not fit "
        "input type image<?>[?x?]@device: kind tensor is not image");
  }
}

/* a format the stage cannot filter: negotiate() says which stage and what
 * it takes */
static void
test_unsupported_format (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("planar");

  image_source (g, "NV12", WIDTH, HEIGHT);
  accel_test_stage (g, "realtime.gaussian-blur", "blur");
  accel_test_stage (g, "core.checksum-sink", "sink");
  link_ok (g, "src", "blur");
  link_ok (g, "blur", "sink");
  g_assert_false (accel_graph_prepare (g, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH);
  g_assert_cmpstr (error->message, ==,
      "stage 'blur' (realtime.gaussian-blur) takes RGBA8, BGRA8, GRAY8 or "
      "RGBAF32 images, not image<NV12>[23x37]@device; its input 'in' comes "
      "from stage 'src' (core.test-source)");
}

static void
test_bad_parameters (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("convert");
  g_autoptr (AccelGraph) m = accel_graph_new ("median");

  image_source (g, "RGBA8", WIDTH, HEIGHT);
  g_object_set (
      accel_test_stage (g, "realtime.convert", "conv"), "format", "YUY2", NULL);
  accel_test_stage (g, "core.null-sink", "sink");
  link_ok (g, "src", "conv");
  link_ok (g, "conv", "sink");
  g_assert_false (accel_graph_prepare (g, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (error->message, ==,
      "stage 'conv' (realtime.convert): format 'YUY2' is not one of RGBA8, "
      "BGRA8, GRAY8, NV12, I420, RGBAF32");
  g_clear_error (&error);

  image_source (m, "RGBA8", WIDTH, HEIGHT);
  g_object_set (
      accel_test_stage (m, "realtime.median", "med"), "size", 4, NULL);
  accel_test_stage (m, "core.null-sink", "sink");
  link_ok (m, "src", "med");
  link_ok (m, "med", "sink");
  g_assert_false (accel_graph_prepare (m, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (error->message, ==,
      "stage 'med' (realtime.median): size 4 is not 3 or 5");
}

/* what sizes a simulation's state or frame is fixed once the graph is
 * prepared: a change after is refused, by accel_stage_set_param_async ()
 * and, with a warning, by g_object_set (), and the run keeps the negotiated
 * sizes (a bigger size read per frame wrote past the state and the frame) */
static void
test_fixed_parameters (void)
{
  static const struct
  {
    const char *kind, *prop;
    int value; /* the property's type: int, or uint for capacity */
  } cases[] = {
    { "realtime.particles", "capacity", 1 << 16 },
    { "realtime.splat", "width", 1024 },
    { "realtime.splat", "height", 1024 },
    { "realtime.cloth", "grid-width", 64 },
    { "realtime.cloth", "grid-size", 64 },
    { "realtime.cloth", "width", 1024 },
    { "realtime.fluid", "grid-size", 512 },
    { "realtime.fluid", "size", 512 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (AccelGraph) g = accel_graph_new ("fixed");
      g_autoptr (GError) error = NULL;
      g_auto (GValue) value = G_VALUE_INIT, before = G_VALUE_INIT;
      g_auto (GValue) after = G_VALUE_INIT;
      gboolean splat = g_str_equal (cases[i].kind, "realtime.splat");
      AccelStage *sim = accel_test_stage (
          g, splat ? "realtime.particles" : cases[i].kind, "sim");
      AccelStage *stage = sim;
      GParamSpec *pspec;

      g_test_message ("%s %s", cases[i].kind, cases[i].prop);
      g_object_set (sim, "num-buffers", (gint64)N_FRAMES, NULL);
      if (g_str_equal (cases[i].kind, "realtime.particles"))
        g_object_set (sim, "capacity", 256u, NULL);
      if (splat)
        {
          stage = accel_test_stage (g, "realtime.splat", "splat");
          g_object_set (stage, "width", 32, "height", 16, NULL);
          link_ok (g, "sim", "splat");
        }
      else if (!g_str_equal (cases[i].kind, "realtime.particles"))
        g_object_set (sim,
            g_str_has_suffix (cases[i].kind, "fluid") ? "grid-size" : "width",
            32, NULL);
      accel_test_stage (g, "core.checksum-sink", "sink");
      link_ok (g, splat ? "splat" : "sim", "sink");
      g_assert_true (accel_graph_prepare (g, &error));
      g_assert_no_error (error);

      pspec = g_object_class_find_property (
          G_OBJECT_GET_CLASS (stage), cases[i].prop);
      g_assert_nonnull (pspec);
      g_assert_true (pspec->flags & ACCEL_PARAM_FIXED);
      g_value_init (&before, pspec->value_type);
      g_object_get_property (G_OBJECT (stage), cases[i].prop, &before);
      g_value_init (&value, G_TYPE_INT);
      g_value_set_int (&value, cases[i].value);
      g_assert_false (
          accel_stage_set_param_async (stage, cases[i].prop, &value));
      g_test_expect_message ("accel-stage", G_LOG_LEVEL_WARNING,
          "*'" /* the property */ "*' is fixed once the graph is prepared*");
      g_object_set_property (G_OBJECT (stage), cases[i].prop, &value);
      g_test_assert_expected_messages ();
      g_value_init (&after, pspec->value_type);
      g_object_get_property (G_OBJECT (stage), cases[i].prop, &after);
      g_assert_cmpint (g_param_values_cmp (pspec, &before, &after), ==, 0);

      g_assert_true (accel_graph_run (g, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (
          accel_stage_get_n_processed (accel_graph_get_stage (g, "sink")), ==,
          N_FRAMES);
    }
}

/* an image stage's output size and format are fixed once the graph is
 * prepared (a change was taken, read back, and never applied); a median's
 * size of 4, in its range but no window, fails the frame naming it */
static void
test_image_fixed_parameters (void)
{
  static const struct
  {
    const char *kind, *prop, *value;
  } cases[] = {
    { "realtime.resize", "width", "8" },
    { "realtime.resize", "height", "8" },
    { "realtime.convert", "format", "GRAY8" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (AccelGraph) g = accel_graph_new ("fixed");
      g_autoptr (GError) error = NULL;
      g_auto (GValue) value = G_VALUE_INIT;
      AccelStage *stage;

      image_source (g, "RGBA8", WIDTH, HEIGHT);
      stage = accel_test_stage (g, cases[i].kind, "x");
      accel_test_stage (g, "core.null-sink", "sink");
      link_ok (g, "src", "x");
      link_ok (g, "x", "sink");
      g_assert_true (accel_graph_prepare (g, &error));
      g_assert_no_error (error);
      if (g_str_equal (cases[i].prop, "format"))
        {
          g_value_init (&value, G_TYPE_STRING);
          g_value_set_string (&value, cases[i].value);
        }
      else
        {
          g_value_init (&value, G_TYPE_INT);
          g_value_set_int (&value, atoi (cases[i].value));
        }
      g_assert_true (g_object_class_find_property (
                         G_OBJECT_GET_CLASS (stage), cases[i].prop)
                         ->flags
                     & ACCEL_PARAM_FIXED);
      g_assert_false (
          accel_stage_set_param_async (stage, cases[i].prop, &value));
    }
}

static void
test_median_size_while_running (void)
{
  g_autoptr (AccelGraph) g = accel_graph_new ("median");
  g_autoptr (GError) error = NULL;
  g_autofree gchar *fault = NULL;
  g_auto (GValue) four = G_VALUE_INIT;
  AccelStage *med;

  image_source (g, "RGBA8", WIDTH, HEIGHT);
  med = accel_test_stage (g, "realtime.median", "med");
  g_object_set (med, "on-fault", ACCEL_SUPERVISION_RESUME, NULL);
  accel_test_stage (g, "core.null-sink", "sink");
  link_ok (g, "src", "med");
  link_ok (g, "med", "sink");
  accel_graph_set_stepped (g, TRUE);
  g_assert_true (accel_graph_start (g, &error));
  g_assert_no_error (error);
  g_value_init (&four, G_TYPE_INT);
  g_value_set_int (&four, 4);
  g_assert_true (accel_stage_set_param_async (med, "size", &four));
  g_assert_true (accel_graph_step (g, 10 * G_USEC_PER_SEC, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (accel_stage_get_n_skipped (med), ==, 1);
  fault = accel_stage_dup_first_fault (med);
  g_assert_cmpstr (
      fault, ==, "stage 'med' (realtime.median): size 4 is not 3 or 5");
  accel_graph_stop (g);
}

static const StageCase filter_cases[] = {
  { "realtime.gaussian-blur", 0,
      { "sigma-1.5", TEST_KERNEL_GAUSSIAN_BLUR, 1.5f } },
  { "realtime.box-blur", 0, { "radius-2", TEST_KERNEL_BOX_BLUR, .n = 2 } },
  { "realtime.unsharp", 0, { "amount-0.8", TEST_KERNEL_UNSHARP, 0.8f, 1.2f } },
  { "realtime.sobel", 0, { "scale-0.5", TEST_KERNEL_SOBEL, 0.5f } },
  { "realtime.median", 0, { "3x3", TEST_KERNEL_MEDIAN, .n = 3 } },
  { "realtime.median", 0, { "5x5", TEST_KERNEL_MEDIAN, .n = 5 } },
  { "realtime.threshold", 0, { "half", TEST_KERNEL_THRESHOLD, 127.5f } },
  { "realtime.resize", 0, { "up", TEST_KERNEL_RESIZE, .num = 3, .den = 2 } },
  { "realtime.resize", 0, { "down", TEST_KERNEL_RESIZE, .num = 1, .den = 3 } },
};

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) cases = g_ptr_array_new_with_free_func (g_free);

  g_test_init (&argc, &argv, NULL);
  /* the host backend even where a GPU is usable */
  accel_backend_set_default (ACCEL_BACKEND_HOST, &error);
  g_assert_no_error (error);
  test_stages_register ();

  g_test_add_func ("/realtime/registered", test_registered);
  g_test_add_func (
      "/realtime/link-mismatch-names-both", test_link_mismatch_names_both);
  g_test_add_func (
      "/realtime/unsupported-format-names-stage", test_unsupported_format);
  g_test_add_func ("/realtime/bad-parameters", test_bad_parameters);
  g_test_add_func ("/realtime/fixed-parameters", test_fixed_parameters);
  g_test_add_func (
      "/realtime/image-fixed-parameters", test_image_fixed_parameters);
  g_test_add_func (
      "/realtime/median-size-while-running", test_median_size_while_running);

  for (guint i = 0; i < G_N_ELEMENTS (filter_cases); i++)
    for (guint f = 0; f < G_N_ELEMENTS (test_filter_formats); f++)
      {
        StageCase *sc = g_memdup2 (&filter_cases[i], sizeof (StageCase));
        g_autofree gchar *path = NULL;

        sc->format = test_filter_formats[f];
        path = g_strdup_printf ("/realtime/%s/%s/%s", sc->kind + 9, sc->tc.name,
            test_format_name (sc->format));
        g_test_add_data_func (path, sc, test_stage_runs);
        g_ptr_array_add (cases, sc);
      }
  for (guint a = 0; a < G_N_ELEMENTS (test_all_formats); a++)
    for (guint b = 0; b < G_N_ELEMENTS (test_all_formats); b++)
      {
        StageCase *sc = g_new0 (StageCase, 1);
        g_autofree gchar *path = NULL;

        sc->kind = "realtime.convert";
        sc->format = test_all_formats[a];
        sc->tc.name = "convert";
        sc->tc.kernel = TEST_KERNEL_CONVERT;
        sc->tc.dst_format = test_all_formats[b];
        path = g_strdup_printf ("/realtime/convert/%s-to-%s",
            test_format_name (sc->format),
            test_format_name (sc->tc.dst_format));
        g_test_add_data_func (path, sc, test_stage_runs);
        g_ptr_array_add (cases, sc);
      }
  return g_test_run ();
}
