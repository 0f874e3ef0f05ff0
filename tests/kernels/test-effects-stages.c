/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* realtime.effects, realtime.blend and realtime.analysis on the host
 * backend: graphs from core.test-source to core.checksum-sink give what the
 * host references give on the same frames; their parameter and type errors;
 * a stateful stage restarted after a fault takes its history back */
#include "accel-test.h"
#include "test-effects.h"
#include "test-image.h"
#include "core/pattern.h"
#include "effects/analysis.h"
#include "effects/blend.h"
#include "effects/effects.h"

#define N_FRAMES 5
#define WIDTH 37
#define HEIGHT 23

static const char *const formats[] = { "RGBA8", "BGRA8" };

static int
format_of (const char *name)
{
  return g_str_equal (name, "BGRA8") ? ACCEL_IMAGE_BGRA8 : ACCEL_IMAGE_RGBA8;
}

static void
link_ok (AccelGraph *g, const char *a, const char *b)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (accel_graph_link (g, a, b, &error));
  g_assert_no_error (error);
}

static AccelStage *
image_source (
    AccelGraph *g, const char *name, const char *format, int width, int height)
{
  AccelStage *src = accel_test_stage (g, "core.test-source", name);

  g_object_set (src, "format", format, "width", width, "height", height,
      "num-buffers", (gint64)N_FRAMES, NULL);
  return src;
}

/* frame @seq of the test source */
static void
pattern (TestFrame *f, guint64 seq)
{
  accel_pattern_fill_u8_host (f->data, f->size, seq);
}

static gchar *
run_to_digest (AccelGraph *g, AccelStage *sink, guint n_expected)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (accel_graph_run (g, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (accel_checksum_sink_get_n_received (sink), ==, n_expected);
  return accel_checksum_sink_dup_digest (sink);
}

static void
test_registered (void)
{
  static const char *const kinds[]
      = { "realtime.effects", "realtime.blend", "realtime.analysis" };
  AccelRegistry *registry = accel_registry_get_default ();
  g_autoptr (GError) error = NULL;
  g_autofree gchar *text = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    g_assert_cmpuint (
        accel_registry_lookup (registry, kinds[i]), !=, G_TYPE_INVALID);
  text = accel_registry_describe (registry, "realtime.analysis", &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (text, "equalize"));
  g_assert_nonnull (strstr (text, "histogram"));
}

typedef struct
{
  const char *description;
  const char *format;
} EffectsCase;

static gchar *
effects_expected (
    const char *description, int format, guint64 skip, gboolean restored)
{
  return test_effects_expected (
      description, format, WIDTH, HEIGHT, N_FRAMES, skip, restored);
}

static void
test_effects_runs (gconstpointer data)
{
  const EffectsCase *ec = data;
  g_autoptr (AccelGraph) g = accel_graph_new ("effects");
  g_autofree gchar *digest = NULL, *expected = NULL;
  AccelStage *fx, *sink;

  image_source (g, "src", ec->format, WIDTH, HEIGHT);
  fx = accel_test_stage (g, "realtime.effects", "fx");
  g_object_set (fx, "effects", ec->description, NULL);
  sink = accel_test_stage (g, "core.checksum-sink", "sink");
  link_ok (g, "src", "fx");
  link_ok (g, "fx", "sink");
  digest = run_to_digest (g, sink, N_FRAMES);
  g_assert_true (accel_stage_is_host (fx));
  expected = effects_expected (
      ec->description, format_of (ec->format), G_MAXUINT64, FALSE);
  g_assert_cmpstr (digest, ==, expected);
}

static void
test_effects_parse_error (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("typo");
  AccelStage *fx;
  g_autofree gchar *kept = NULL;

  image_source (g, "src", "RGBA8", WIDTH, HEIGHT);
  fx = accel_test_stage (g, "realtime.effects", "grade");
  g_object_set (fx, "effects", "contrast=1.2 saturatoin=0.8", NULL);
  accel_test_stage (g, "core.null-sink", "sink");
  link_ok (g, "src", "grade");
  link_ok (g, "grade", "sink");
  g_assert_false (accel_graph_prepare (g, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (error->message, ==,
      "stage 'grade' (realtime.effects): effects: unknown effect 'saturatoin' "
      "(did "
      "you mean 'saturation'?)");
  /* the property keeps what was set */
  g_object_get (fx, "effects", &kept, NULL);
  g_assert_cmpstr (kept, ==, "contrast=1.2 saturatoin=0.8");
}

static void
test_effects_range_error (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("range");

  image_source (g, "src", "BGRA8", WIDTH, HEIGHT);
  g_object_set (accel_test_stage (g, "realtime.effects", "fx"), "effects",
      "vignette=0.4/1.2", NULL);
  accel_test_stage (g, "core.null-sink", "sink");
  link_ok (g, "src", "fx");
  link_ok (g, "fx", "sink");
  g_assert_false (accel_graph_prepare (g, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (error->message, ==,
      "stage 'fx' (realtime.effects): effects: 'vignette=0.4/1.2': the radius "
      "must be "
      "in [0, 1)");
}

static void
test_unsupported_format (void)
{
  static const char *const kinds[]
      = { "realtime.effects", "realtime.analysis" };

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (AccelGraph) g = accel_graph_new ("gray");
      g_autofree gchar *want = NULL;

      image_source (g, "src", "GRAY8", WIDTH, HEIGHT);
      accel_test_stage (g, kinds[i], "stage");
      accel_test_stage (g, "core.null-sink", "sink");
      link_ok (g, "src", "stage");
      link_ok (g, "stage.out", "sink");
      g_assert_false (accel_graph_prepare (g, &error));
      g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH);
      want = g_strdup_printf ("stage 'stage' (%s) takes RGBA8 or BGRA8 "
                              "images, not image<GRAY8>[23x37]@device; its "
                              "input 'in' comes from stage 'src' "
                              "(core.test-source)",
          kinds[i]);
      g_assert_cmpstr (error->message, ==, want);
    }
}

/* a fault at frame 2 restarts the stage; with a snapshot after every frame
 * the echo's trail comes back and the frames after it are what they would
 * have been had frame 2 never come */
static void
test_effects_restores_history (void)
{
  const char *description = "echo=0.6 difference";
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("restart");
  g_autofree gchar *digest = NULL, *expected = NULL, *lost = NULL;
  AccelStage *fx, *sink;

  image_source (g, "src", "RGBA8", WIDTH, HEIGHT);
  fx = accel_test_stage (g, "realtime.effects", "fx");
  g_object_set (fx, "effects", description, "snapshot-interval", 1, NULL);
  sink = accel_test_stage (g, "core.checksum-sink", "sink");
  link_ok (g, "src", "fx");
  link_ok (g, "fx", "sink");
  g_assert_true (accel_fault_inject_parse ("fx:library:2", &error));
  g_assert_no_error (error);
  digest = run_to_digest (g, sink, N_FRAMES - 1);
  accel_fault_clear ();
  g_assert_cmpuint (accel_stage_get_n_restarts (fx), ==, 1);

  expected = effects_expected (description, ACCEL_IMAGE_RGBA8, 2, TRUE);
  lost = effects_expected (description, ACCEL_IMAGE_RGBA8, 2, FALSE);
  g_assert_cmpstr (expected, !=, lost);
  g_assert_cmpstr (digest, ==, expected);
}

/* the temporal effects changed while running, then a restart: the
 * snapshot, of the old effects, is dropped and the new ones start afresh,
 * where the restart failed the graph ("the saved history is of ... other
 * temporal effects") */
static void
test_effects_restart_after_change (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("change");
  g_auto (GValue) echo = G_VALUE_INIT;
  AccelStage *fx, *sink;

  image_source (g, "src", "RGBA8", WIDTH, HEIGHT);
  fx = accel_test_stage (g, "realtime.effects", "fx");
  g_object_set (fx, "effects", "difference", "snapshot-interval", 1, NULL);
  sink = accel_test_stage (g, "core.checksum-sink", "sink");
  link_ok (g, "src", "fx");
  link_ok (g, "fx", "sink");
  g_assert_true (accel_fault_inject_parse ("fx:library:3", &error));
  g_assert_no_error (error);
  accel_graph_set_stepped (g, TRUE);
  g_assert_true (accel_graph_start (g, &error));
  g_assert_no_error (error);
  g_value_init (&echo, G_TYPE_STRING);
  g_value_set_string (&echo, "echo=0.5");
  for (guint i = 0; i < N_FRAMES; i++)
    {
      /* the frame that faults is the first of the new effects: the last
       * snapshot is of the old ones */
      if (i == 3)
        g_assert_true (accel_stage_set_param_async (fx, "effects", &echo));
      g_assert_true (accel_graph_step (g, 10 * G_USEC_PER_SEC, &error));
      g_assert_no_error (error);
    }
  accel_fault_clear ();
  g_assert_cmpuint (accel_stage_get_n_restarts (fx), ==, 1);
  g_assert_cmpuint (accel_stage_get_n_processed (sink), ==, N_FRAMES - 1);
  accel_graph_stop (g);
}

typedef struct
{
  int mode;
  const char *nick;
  const char *format;
} BlendCase;

/* the test pattern blended with its own inverse */
static void
test_blend_runs (gconstpointer data)
{
  const BlendCase *bc = data;
  int format = format_of (bc->format);
  g_autoptr (AccelGraph) g = accel_graph_new ("blend");
  g_autoptr (GChecksum) all = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr (TestFrame) a = test_frame_new (format, WIDTH, HEIGHT, 0);
  g_autoptr (TestFrame) b = test_frame_new (format, WIDTH, HEIGHT, 0);
  g_autoptr (TestFrame) out = test_frame_new (format, WIDTH, HEIGHT, 0);
  g_autofree gchar *digest = NULL;
  AccelEffectsParams invert;
  AccelStage *mix, *sink;

  image_source (g, "src", bc->format, WIDTH, HEIGHT);
  g_object_set (accel_test_stage (g, "realtime.effects", "neg"), "effects",
      "invert", NULL);
  mix = accel_test_stage (g, "realtime.blend", "mix");
  g_object_set (mix, "opacity", 0.7f, "mode", bc->mode, NULL);
  sink = accel_test_stage (g, "core.checksum-sink", "sink");
  link_ok (g, "src", "neg");
  link_ok (g, "src", "mix.a");
  link_ok (g, "neg", "mix.b");
  link_ok (g, "mix", "sink");
  digest = run_to_digest (g, sink, N_FRAMES);

  g_assert_cmpint (accel_effects_parse ("invert", &invert, NULL, 0), ==, 0);
  for (guint64 s = 0; s < N_FRAMES; s++)
    {
      pattern (a, s);
      g_assert_cmpint (accel_effects_apply_host (format, a->data, a->pitch,
                           b->data, b->pitch, WIDTH, HEIGHT, &invert, NULL, 0),
          ==, 0);
      g_assert_cmpint (
          accel_blend_host (format, a->data, a->pitch, b->data, b->pitch,
              out->data, out->pitch, WIDTH, HEIGHT, bc->mode, 0.7f),
          ==, 0);
      test_digest_add (all, s, out->data, out->size);
    }
  g_assert_cmpstr (digest, ==, g_checksum_get_string (all));
}

/* the stages the two inputs come from are named too, also where they
 * are named as the ports are (the port's name in the message was taken
 * for the stage's) */
static void
test_blend_mismatch (void)
{
  static const struct
  {
    const char *fa, *fb;
    int wb;
    const char *message;
    const char *na, *nb;
  } cases[] = {
    { "RGBA8", "BGRA8", WIDTH,
        "stage 'mix' (realtime.blend) blends two images of one format and "
        "size, not image<RGBA8>[23x37]@device on 'a' and "
        "image<BGRA8>[23x37]@device on 'b'; its input 'a' comes from stage "
        "'base' (core.test-source), "
        "'b' from stage 'layer' (core.test-source)" },
    { "BGRA8", "BGRA8", 36,
        "stage 'mix' (realtime.blend) blends two images of one format and "
        "size, not image<BGRA8>[23x37]@device on 'a' and "
        "image<BGRA8>[23x36]@device on 'b'; its input 'a' comes from stage "
        "'base' (core.test-source), "
        "'b' from stage 'layer' (core.test-source)" },
    { "RGBA8", "BGRA8", WIDTH,
        "stage 'mix' (realtime.blend) blends two images of one format and "
        "size, not image<RGBA8>[23x37]@device on 'a' and "
        "image<BGRA8>[23x37]@device on 'b'; its input 'a' comes from stage "
        "'a' (core.test-source), 'b' from stage 'b' (core.test-source)",
        "a", "b" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (AccelGraph) g = accel_graph_new ("mismatch");

      const char *na = cases[i].na ? cases[i].na : "base";
      const char *nb = cases[i].nb ? cases[i].nb : "layer";

      image_source (g, na, cases[i].fa, WIDTH, HEIGHT);
      image_source (g, nb, cases[i].fb, cases[i].wb, HEIGHT);
      accel_test_stage (g, "realtime.blend", "mix");
      accel_test_stage (g, "core.null-sink", "sink");
      link_ok (g, na, "mix.a");
      link_ok (g, nb, "mix.b");
      link_ok (g, "mix", "sink");
      g_assert_false (accel_graph_prepare (g, &error));
      g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH);
      g_assert_cmpstr (error->message, ==, cases[i].message);
    }
}

typedef struct
{
  int equalize;
  const char *nick;
  const char *format;
} AnalysisCase;

/* the three outputs against the host references, frame by frame, motion
 * against the previous frame */
static void
test_analysis_runs (gconstpointer data)
{
  const AnalysisCase *ac = data;
  int format = format_of (ac->format);
  g_autoptr (AccelGraph) g = accel_graph_new ("analysis");
  g_autoptr (GChecksum) images = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr (GChecksum) stats = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr (GChecksum) hists = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr (TestFrame) in = test_frame_new (format, WIDTH, HEIGHT, 0);
  g_autoptr (TestFrame) out = test_frame_new (format, WIDTH, HEIGHT, 0);
  g_autoptr (TestFrame) prev = test_frame_new (format, WIDTH, HEIGHT, 0);
  g_autofree gchar *d_out = NULL, *d_stats = NULL, *d_hist = NULL;
  guint32 hist[ACCEL_ANALYSIS_CHANNELS * ACCEL_ANALYSIS_BINS];
  guint64 motion[ACCEL_ANALYSIS_CHANNELS];
  float st[ACCEL_ANALYSIS_CHANNELS * ACCEL_ANALYSIS_STATS];
  AccelStage *an, *s_out, *s_stats, *s_hist;
  gboolean moved = FALSE;

  image_source (g, "src", ac->format, WIDTH, HEIGHT);
  an = accel_test_stage (g, "realtime.analysis", "an");
  g_object_set (an, "equalize", ac->equalize, NULL);
  s_out = accel_test_stage (g, "core.checksum-sink", "frames");
  s_stats = accel_test_stage (g, "core.checksum-sink", "stats");
  s_hist = accel_test_stage (g, "core.checksum-sink", "hist");
  link_ok (g, "src", "an");
  link_ok (g, "an.out", "frames");
  link_ok (g, "an.stats", "stats");
  link_ok (g, "an.histogram", "hist");
  d_out = run_to_digest (g, s_out, N_FRAMES);
  d_stats = accel_checksum_sink_dup_digest (s_stats);
  d_hist = accel_checksum_sink_dup_digest (s_hist);
  g_assert_cmpuint (accel_checksum_sink_get_n_received (s_stats), ==, N_FRAMES);
  g_assert_cmpint (
      accel_stage_get_output_type (an, 1)->dtype, ==, ACCEL_DTYPE_F32);
  g_assert_cmpint (accel_stage_get_output_type (an, 2)->dims[1], ==, 256);

  for (guint64 s = 0; s < N_FRAMES; s++)
    {
      int flags = ACCEL_ANALYSIS_LUMA | ACCEL_ANALYSIS_KEEP
                  | (s > 0 ? ACCEL_ANALYSIS_MOTION : 0);
      pattern (in, s);
      g_assert_cmpint (
          accel_analysis_accumulate_host (format, in->data, in->pitch, WIDTH,
              HEIGHT, flags, prev->data, prev->pitch, hist, motion),
          ==, 0);
      g_assert_cmpint (accel_analysis_stats_host (hist, motion, st), ==, 0);
      g_assert_cmpint (
          accel_equalize_host (format, in->data, in->pitch, out->data,
              out->pitch, WIDTH, HEIGHT, hist, ac->equalize),
          ==, 0);
      moved |= st[4] > 0.0f;
      test_digest_add (images, s, out->data, out->size);
      test_digest_add (stats, s, st, sizeof (st));
      test_digest_add (hists, s, hist, sizeof (hist));
    }
  g_assert_true (moved);
  g_assert_cmpstr (d_out, ==, g_checksum_get_string (images));
  g_assert_cmpstr (d_stats, ==, g_checksum_get_string (stats));
  g_assert_cmpstr (d_hist, ==, g_checksum_get_string (hists));
}

int
main (int argc, char **argv)
{
  static const struct
  {
    const char *name;
    const char *description;
  } descriptions[] = {
    { "identity", "" },
    { "grade", "contrast=1.2 saturation=0.8 vignette=0.4" },
    { "gamma", "hue=45 sepia=0.3 invert gamma=1.8" },
    { "chroma-key", "chroma-key=#40c080/0.25/0.1 brightness=0.1" },
    { "difference", "difference" },
    { "echo", "echo=0.8 contrast=1.5" },
    { "temporal", "difference echo=0.9 vignette=0.7/0.2" },
  };
  static const struct
  {
    int mode;
    const char *nick;
  } blend_modes[] = {
    { ACCEL_BLEND_OVER, "over" },
    { ACCEL_BLEND_ADD, "add" },
    { ACCEL_BLEND_MULTIPLY, "multiply" },
    { ACCEL_BLEND_SCREEN, "screen" },
  };
  static const struct
  {
    int mode;
    const char *nick;
  } equalize_modes[] = {
    { ACCEL_EQUALIZE_NONE, "none" },
    { ACCEL_EQUALIZE_LUMA, "luma" },
    { ACCEL_EQUALIZE_CHANNELS, "per-channel" },
  };
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) keep = g_ptr_array_new_with_free_func (g_free);

  g_test_init (&argc, &argv, NULL);
  accel_backend_set_default (ACCEL_BACKEND_HOST, &error);
  g_assert_no_error (error);

  g_test_add_func ("/effects-stages/registered", test_registered);
  g_test_add_func ("/effects-stages/effects/parse-error-names-stage",
      test_effects_parse_error);
  g_test_add_func (
      "/effects-stages/effects/range-error", test_effects_range_error);
  g_test_add_func (
      "/effects-stages/unsupported-format", test_unsupported_format);
  g_test_add_func ("/effects-stages/effects/restores-history",
      test_effects_restores_history);
  g_test_add_func ("/effects-stages/restart-after-change",
      test_effects_restart_after_change);
  g_test_add_func ("/effects-stages/blend/mismatch", test_blend_mismatch);

  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    {
      for (guint i = 0; i < G_N_ELEMENTS (descriptions); i++)
        {
          EffectsCase *ec = g_new0 (EffectsCase, 1);
          g_autofree gchar *path = NULL;
          ec->description = descriptions[i].description;
          ec->format = formats[f];
          path = g_strdup_printf ("/effects-stages/effects/%s/%s", formats[f],
              descriptions[i].name);
          g_test_add_data_func (path, ec, test_effects_runs);
          g_ptr_array_add (keep, ec);
        }
      for (guint i = 0; i < G_N_ELEMENTS (blend_modes); i++)
        {
          BlendCase *bc = g_new0 (BlendCase, 1);
          g_autofree gchar *path = NULL;
          bc->mode = blend_modes[i].mode;
          bc->nick = blend_modes[i].nick;
          bc->format = formats[f];
          path = g_strdup_printf (
              "/effects-stages/blend/%s/%s", formats[f], bc->nick);
          g_test_add_data_func (path, bc, test_blend_runs);
          g_ptr_array_add (keep, bc);
        }
      for (guint i = 0; i < G_N_ELEMENTS (equalize_modes); i++)
        {
          AnalysisCase *ac = g_new0 (AnalysisCase, 1);
          g_autofree gchar *path = NULL;
          ac->equalize = equalize_modes[i].mode;
          ac->nick = equalize_modes[i].nick;
          ac->format = formats[f];
          path = g_strdup_printf (
              "/effects-stages/analysis/%s/%s", formats[f], ac->nick);
          g_test_add_data_func (path, ac, test_analysis_runs);
          g_ptr_array_add (keep, ac);
        }
    }
  return g_test_run ();
}
