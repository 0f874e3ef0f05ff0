/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the effects, blend and analysis kernels on the GPU against their host
 * references: fresh random frames (and flat ones, for the histogram's
 * one-atomic-per-warp path), odd and large sizes, tight, unaligned and
 * 16-byte aligned rows, outputs poisoned before each run so an unwritten
 * pixel (or a written byte between rows) fails.
 *
 * Exact everywhere (outputs, histories, histograms, motion sums, the
 * statistics' floats), except where gamma is on: its power function is each
 * platform's own, so outputs may differ by GAMMA_TOLERANCE and histories
 * by GAMMA_HISTORY_TOLERANCE (0..255 scale). */
#include <math.h>
#include <cuda_runtime.h>

#include "accel-test.h"
#include "test-effects.h"
#include "test-image.h"
#include "effects/analysis.h"
#include "effects/blend.h"
#include "effects/effects.h"

#define GAMMA_TOLERANCE 1
#define GAMMA_HISTORY_TOLERANCE 1e-2f
/* frames of each temporal case */
#define N_FRAMES 3

typedef enum
{
  PITCH_TIGHT,
  PITCH_ODD,  /* 13 bytes more than a row: pixels unaligned */
  PITCH_WIDE, /* a row rounded up to 256 bytes, plus 256: 16-byte rows */
} PitchKind;

static const char *const pitch_names[] = { "tight", "odd", "wide" };

static const int sizes[][2]
    = { { 1, 1 }, { 7, 3 }, { 64, 48 }, { 1921, 1079 } };

static const int rgba_formats[] = { ACCEL_IMAGE_RGBA8, ACCEL_IMAGE_BGRA8 };

static const struct
{
  const char *name;
  const char *description;
} fx_cases[] = {
  { "identity", "" },
  { "matrix", "contrast=1.3 saturation=0.7 hue=-40 brightness=0.05" },
  { "sepia-invert", "sepia=0.8 invert" },
  { "vignette", "vignette=0.8/0.3" },
  { "chroma-key", "chroma-key=#30d050/0.2/0.15" },
  { "hard-key", "chroma-key=#30d050/0.2/0" },
  { "gamma", "gamma=2.2 contrast=1.1" },
  { "difference", "difference" },
  { "echo", "echo=0.85 vignette=0.5" },
  { "all", "chroma-key=#00ff00/0.3/0.1 contrast=1.2 saturation=0.8 hue=20 "
           "sepia=0.2 gamma=0.8 vignette=0.4 difference echo=0.9" },
};

static const char *const blend_names[]
    = { "over", "add", "multiply", "screen" };

typedef enum
{
  CONTENT_RANDOM,
  CONTENT_FLAT,   /* one colour, alpha opaque */
  CONTENT_HALVES, /* left half flat, right half random */
} Content;

static const char *const content_names[] = { "random", "flat", "halves" };

typedef struct
{
  int kind; /* 0 effects, 1 blend, 2 analysis */
  int index;
  int format;
  int width, height;
  PitchKind pitch;
} GpuCase;

static void
check_cuda (int status, const char *what)
{
  if (status != cudaSuccess)
    {
      g_test_message ("%s: %s", what, cudaGetErrorString (status));
      g_assert_cmpint (status, ==, cudaSuccess);
    }
}

static size_t
pitch_of (int width, PitchKind kind)
{
  size_t row = (size_t)width * 4;

  switch (kind)
    {
    case PITCH_ODD:
      return row + 13;
    case PITCH_WIDE:
      return (row + 255) / 256 * 256 + 256;
    default:
      return row;
    }
}

static cudaStream_t
new_stream (void)
{
  cudaStream_t stream;

  check_cuda (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking),
      "cudaStreamCreateWithFlags");
  return stream;
}

/* inputs and poison go in on the kernels' own @stream: a non-blocking
 * stream does not wait for the legacy stream's cudaMemcpy () or
 * cudaMemset () */
static void *
device_copy (const TestFrame *f, cudaStream_t stream)
{
  void *d = NULL;

  check_cuda (cudaMalloc (&d, f->size), "cudaMalloc");
  check_cuda (
      cudaMemcpyAsync (d, f->data, f->size, cudaMemcpyHostToDevice, stream),
      "cudaMemcpyAsync");
  return d;
}

static void *
device_poisoned (size_t size, cudaStream_t stream)
{
  void *d = NULL;

  check_cuda (cudaMalloc (&d, size), "cudaMalloc");
  check_cuda (
      cudaMemsetAsync (d, TEST_POISON, size, stream), "cudaMemsetAsync");
  return d;
}

static void
download (void *host, const void *device, size_t size)
{
  check_cuda (cudaDeviceSynchronize (), "cudaDeviceSynchronize");
  check_cuda (
      cudaMemcpy (host, device, size, cudaMemcpyDeviceToHost), "cudaMemcpy");
}

/* @got against @want: samples within @tolerance, bytes between rows
 * poisoned in both */
static void
compare_frames (const TestFrame *want, const TestFrame *got, int tolerance)
{
  size_t row = (size_t)want->width * 4;

  for (int y = 0; y < want->height; y++)
    for (size_t i = 0; i < want->pitch; i++)
      {
        size_t at = (size_t)y * want->pitch + i;
        int w = want->data[at], g = got->data[at];
        if (i >= row)
          {
            if (g != TEST_POISON)
              g_test_message (
                  "byte %zu of row %d, between rows, written", i, y);
            g_assert_cmphex (g, ==, TEST_POISON);
          }
        else if (abs (w - g) > tolerance)
          {
            g_test_message ("pixel (%zu, %d) byte %zu", i / 4, y, i % 4);
            g_assert_cmpint (g, ==, w);
          }
      }
}

static void
fill_content (TestFrame *f, Content content, GRand *rand)
{
  guint8 colour[4] = { (guint8)g_rand_int (rand), (guint8)g_rand_int (rand),
    (guint8)g_rand_int (rand), 255 };

  test_frame_fill_random (f, rand);
  if (content == CONTENT_RANDOM)
    return;
  for (int y = 0; y < f->height; y++)
    for (int x = 0; x < (content == CONTENT_FLAT ? f->width : f->width / 2);
         x++)
      memcpy (f->data + (size_t)y * f->pitch + 4 * (size_t)x, colour, 4);
}

static void
test_effects_case (const GpuCase *gc)
{
  const char *description = fx_cases[gc->index].description;
  g_autoptr (GRand) rand = g_rand_new_with_seed (g_test_rand_int ());
  int w = gc->width, h = gc->height, fmt = gc->format;
  size_t pitch = pitch_of (w, gc->pitch);
  AccelEffectsParams p;
  g_autofree float *want_history = NULL, *got_history = NULL;
  size_t history_size;
  gboolean gamma;
  void *d_history = NULL;
  cudaStream_t stream;

  g_assert_cmpint (accel_effects_parse (description, &p, NULL, 0), ==, 0);
  gamma = (p.flags & ACCEL_EFFECTS_GAMMA) != 0;
  history_size = accel_effects_history_size (&p, w, h);
  stream = new_stream ();
  if (history_size)
    {
      want_history = g_malloc0 (history_size);
      got_history = g_malloc (history_size);
      d_history = device_poisoned (history_size, stream);
    }
  for (int frame = 0; frame < (history_size ? N_FRAMES : 1); frame++)
    {
      g_autoptr (TestFrame) in = test_frame_new (fmt, w, h, pitch);
      g_autoptr (TestFrame) want = test_frame_new (fmt, w, h, pitch);
      g_autoptr (TestFrame) got = test_frame_new (fmt, w, h, pitch);
      void *d_in, *d_out;

      test_frame_fill_random (in, rand);
      g_assert_cmpint (
          accel_effects_apply_host (fmt, in->data, in->pitch, want->data,
              want->pitch, w, h, &p, want_history, frame > 0),
          ==, 0);
      d_in = device_copy (in, stream);
      d_out = device_poisoned (got->size, stream);
      check_cuda (accel_effects_apply (stream, fmt, d_in, in->pitch, d_out,
                      got->pitch, w, h, &p, d_history, frame > 0),
          "accel_effects_apply");
      check_cuda (cudaStreamSynchronize (stream), "cudaStreamSynchronize");
      download (got->data, d_out, got->size);
      g_test_message ("frame %d", frame);
      compare_frames (want, got, gamma ? GAMMA_TOLERANCE : 0);

      if (history_size)
        {
          download (got_history, d_history, history_size);
          if (!gamma)
            g_assert_cmpmem (
                want_history, history_size, got_history, history_size);
          else
            for (size_t i = 0; i < history_size / 4; i++)
              if (!(fabsf (want_history[i] - got_history[i])
                      <= GAMMA_HISTORY_TOLERANCE))
                {
                  g_test_message ("history float %zu", i);
                  g_assert_cmpfloat (got_history[i], ==, want_history[i]);
                }
        }
      cudaFree (d_in);
      cudaFree (d_out);
    }
  cudaFree (d_history);
  cudaStreamDestroy (stream);
}

static void
test_blend_case (const GpuCase *gc)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (g_test_rand_int ());
  int w = gc->width, h = gc->height, fmt = gc->format, mode = gc->index;
  /* the layer's rows another kind of alignment than the base's */
  g_autoptr (TestFrame) a = test_frame_new (fmt, w, h, pitch_of (w, gc->pitch));
  g_autoptr (TestFrame) b
      = test_frame_new (fmt, w, h, pitch_of (w, (gc->pitch + 1) % 3));
  g_autoptr (TestFrame) want
      = test_frame_new (fmt, w, h, pitch_of (w, gc->pitch));
  g_autoptr (TestFrame) got = test_frame_new (fmt, w, h, want->pitch);
  float opacity = (float)g_rand_double_range (rand, 0.0, 1.0);
  cudaStream_t stream = new_stream ();
  void *d_a, *d_b, *d_out;

  test_frame_fill_random (a, rand);
  test_frame_fill_random (b, rand);
  g_assert_cmpint (accel_blend_host (fmt, a->data, a->pitch, b->data, b->pitch,
                       want->data, want->pitch, w, h, mode, opacity),
      ==, 0);
  d_a = device_copy (a, stream);
  d_b = device_copy (b, stream);
  d_out = device_poisoned (got->size, stream);
  check_cuda (accel_blend (stream, fmt, d_a, a->pitch, d_b, b->pitch, d_out,
                  got->pitch, w, h, mode, opacity),
      "accel_blend");
  download (got->data, d_out, got->size);
  compare_frames (want, got, 0);
  cudaFree (d_a);
  cudaFree (d_b);
  cudaFree (d_out);
  cudaStreamDestroy (stream);
}

#define N_BINS (ACCEL_ANALYSIS_CHANNELS * ACCEL_ANALYSIS_BINS)
#define N_STATS (ACCEL_ANALYSIS_CHANNELS * ACCEL_ANALYSIS_STATS)

/* two frames through accumulate (the second against the first), the
 * statistics and both equalisations, each compared with the host's */
static void
test_analysis_case (const GpuCase *gc)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (g_test_rand_int ());
  int w = gc->width, h = gc->height, fmt = gc->format;
  size_t pitch = pitch_of (w, gc->pitch);
  g_autoptr (TestFrame) want_prev = test_frame_new (fmt, w, h, pitch);
  g_autoptr (TestFrame) got_prev = test_frame_new (fmt, w, h, pitch);
  guint32 want_hist[N_BINS], got_hist[N_BINS];
  guint64 want_motion[ACCEL_ANALYSIS_CHANNELS],
      got_motion[ACCEL_ANALYSIS_CHANNELS];
  float want_stats[N_STATS], got_stats[N_STATS];
  cudaStream_t stream = new_stream ();
  void *d_prev = device_poisoned (got_prev->size, stream);
  void *d_hist = NULL, *d_motion = NULL, *d_stats = NULL;

  check_cuda (cudaMalloc (&d_hist, sizeof (want_hist)), "cudaMalloc");
  check_cuda (cudaMalloc (&d_motion, sizeof (want_motion)), "cudaMalloc");
  check_cuda (cudaMalloc (&d_stats, sizeof (want_stats)), "cudaMalloc");

  for (int frame = 0; frame < 3; frame++)
    {
      /* frame 2: no luma, no motion, nothing kept */
      int flags = frame == 2 ? 0
                             : (ACCEL_ANALYSIS_LUMA | ACCEL_ANALYSIS_KEEP
                                 | (frame > 0 ? ACCEL_ANALYSIS_MOTION : 0));
      g_autoptr (TestFrame) in = test_frame_new (fmt, w, h, pitch);
      void *d_in;

      fill_content (in, (Content)gc->index, rand);
      d_in = device_copy (in, stream);
      check_cuda (
          cudaMemsetAsync (d_hist, TEST_POISON, sizeof (got_hist), stream),
          "cudaMemsetAsync");
      check_cuda (
          cudaMemsetAsync (d_motion, TEST_POISON, sizeof (got_motion), stream),
          "cudaMemsetAsync");
      g_assert_cmpint (
          accel_analysis_accumulate_host (fmt, in->data, in->pitch, w, h, flags,
              want_prev->data, want_prev->pitch, want_hist, want_motion),
          ==, 0);
      check_cuda (accel_analysis_accumulate (stream, fmt, d_in, in->pitch, w, h,
                      flags, d_prev, got_prev->pitch, d_hist, d_motion),
          "accel_analysis_accumulate");
      download (got_hist, d_hist, sizeof (got_hist));
      download (got_motion, d_motion, sizeof (got_motion));
      download (got_prev->data, d_prev, got_prev->size);
      g_test_message ("frame %d", frame);
      g_assert_cmpmem (
          want_hist, sizeof (want_hist), got_hist, sizeof (got_hist));
      g_assert_cmpmem (
          want_motion, sizeof (want_motion), got_motion, sizeof (got_motion));
      compare_frames (want_prev, got_prev, 0);

      g_assert_cmpint (
          accel_analysis_stats_host (want_hist, want_motion, want_stats), ==,
          0);
      check_cuda (
          cudaMemsetAsync (d_stats, TEST_POISON, sizeof (got_stats), stream),
          "cudaMemsetAsync");
      check_cuda (accel_analysis_stats (stream, d_hist, d_motion, d_stats),
          "accel_analysis_stats");
      download (got_stats, d_stats, sizeof (got_stats));
      g_assert_cmpmem (
          want_stats, sizeof (want_stats), got_stats, sizeof (got_stats));

      for (int mode = ACCEL_EQUALIZE_NONE; mode <= ACCEL_EQUALIZE_CHANNELS;
           mode++)
        {
          g_autoptr (TestFrame) want = test_frame_new (fmt, w, h, pitch);
          g_autoptr (TestFrame) got = test_frame_new (fmt, w, h, pitch);
          void *d_out = device_poisoned (got->size, stream);

          g_assert_cmpint (accel_equalize_host (fmt, in->data, in->pitch,
                               want->data, want->pitch, w, h, want_hist, mode),
              ==, 0);
          check_cuda (accel_equalize (stream, fmt, d_in, in->pitch, d_out,
                          got->pitch, w, h, d_hist, mode),
              "accel_equalize");
          download (got->data, d_out, got->size);
          g_test_message ("equalize mode %d", mode);
          compare_frames (want, got, 0);
          cudaFree (d_out);
        }
      cudaFree (d_in);
    }
  cudaFree (d_prev);
  cudaFree (d_hist);
  cudaFree (d_motion);
  cudaFree (d_stats);
  cudaStreamDestroy (stream);
}

static void
test_gpu_case (gconstpointer data)
{
  const GpuCase *gc = data;

  switch (gc->kind)
    {
    case 0:
      test_effects_case (gc);
      break;
    case 1:
      test_blend_case (gc);
      break;
    default:
      test_analysis_case (gc);
      break;
    }
}

/* arguments each launcher refuses without launching anything */
static void
test_gpu_invalid_arguments (void)
{
  AccelEffectsParams echo, none;
  void *d = NULL;
  char *b;

  check_cuda (cudaMalloc (&d, 8192), "cudaMalloc");
  b = d;
  g_assert_cmpint (accel_effects_parse ("echo", &echo, NULL, 0), ==, 0);
  g_assert_cmpint (accel_effects_parse ("", &none, NULL, 0), ==, 0);
  g_assert_cmpint (accel_effects_apply (NULL, ACCEL_IMAGE_GRAY8, b, 4, b + 4096,
                       4, 1, 1, &none, NULL, 0),
      ==, cudaErrorInvalidValue);
  g_assert_cmpint (accel_effects_apply (NULL, ACCEL_IMAGE_RGBA8, b, 4, b + 4096,
                       4, 1, 1, &echo, NULL, 0),
      ==, cudaErrorInvalidValue);
  /* the history must hold float4s */
  g_assert_cmpint (accel_effects_apply (NULL, ACCEL_IMAGE_RGBA8, b, 4, b + 4096,
                       4, 1, 1, &echo, (float *)(b + 2052), 0),
      ==, cudaErrorInvalidValue);
  g_assert_cmpint (accel_blend (NULL, ACCEL_IMAGE_RGBA8, b, 4, b + 16, 4,
                       b + 4096, 4, 1, 1, 9, 1.0f),
      ==, cudaErrorInvalidValue);
  g_assert_cmpint (accel_blend (NULL, ACCEL_IMAGE_RGBA8, b, 4, b + 16, 4,
                       b + 4096, 4, 1, 1, ACCEL_BLEND_OVER, -0.5f),
      ==, cudaErrorInvalidValue);
  g_assert_cmpint (
      accel_analysis_accumulate (NULL, ACCEL_IMAGE_RGBA8, b, 4, 1, 1,
          ACCEL_ANALYSIS_MOTION, NULL, 0, (uint32_t *)(b + 4096), NULL),
      ==, cudaErrorInvalidValue);
  g_assert_cmpint (accel_analysis_accumulate (NULL, ACCEL_IMAGE_RGBAF32, b, 16,
                       1, 1, 0, NULL, 0, (uint32_t *)(b + 4096), NULL),
      ==, cudaErrorInvalidValue);
  g_assert_cmpint (accel_analysis_stats (NULL, NULL, NULL, (float *)b), ==,
      cudaErrorInvalidValue);
  g_assert_cmpint (accel_equalize (NULL, ACCEL_IMAGE_RGBA8, b, 4, b + 16, 4, 1,
                       1, (uint32_t *)(b + 4096), 5),
      ==, cudaErrorInvalidValue);
  /* nothing was left behind for the next launch to report */
  g_assert_cmpint (cudaGetLastError (), ==, cudaSuccess);
  cudaFree (d);
}

/* the stages on the GPU: graphs whose checksums equal the host references'
 * (descriptions without gamma, so equal to the bit) */
#define STAGE_FRAMES 6
#define STAGE_WIDTH 641
#define STAGE_HEIGHT 359

static void
link_ok (AccelGraph *g, const char *a, const char *b)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (accel_graph_link (g, a, b, &error));
  g_assert_no_error (error);
}

static void
add_source (AccelGraph *g, const char *format)
{
  g_object_set (accel_test_stage (g, "core.test-source", "src"), "format",
      format, "width", STAGE_WIDTH, "height", STAGE_HEIGHT, "num-buffers",
      (gint64)STAGE_FRAMES, NULL);
}

static void
test_gpu_effects_stage (void)
{
  static const char *const descriptions[] = {
    "contrast=1.2 saturation=0.8 vignette=0.4",
    "chroma-key=#40c080/0.25/0.1 hue=30 difference echo=0.8",
  };

  for (guint i = 0; i < G_N_ELEMENTS (descriptions); i++)
    for (guint f = 0; f < G_N_ELEMENTS (rgba_formats); f++)
      {
        const char *format = test_format_name (rgba_formats[f]);
        g_autoptr (GError) error = NULL;
        g_autoptr (AccelGraph) g = accel_graph_new ("effects");
        g_autofree gchar *digest = NULL, *expected = NULL;
        AccelStage *fx, *sink;

        add_source (g, format);
        fx = accel_test_stage (g, "realtime.effects", "fx");
        g_object_set (fx, "effects", descriptions[i], NULL);
        sink = accel_test_stage (g, "core.checksum-sink", "sink");
        link_ok (g, "src", "fx");
        link_ok (g, "fx", "sink");
        g_assert_true (accel_graph_run (g, &error));
        g_assert_no_error (error);
        g_assert_false (accel_stage_is_host (fx));
        digest = accel_checksum_sink_dup_digest (sink);
        expected = test_effects_expected (descriptions[i], rgba_formats[f],
            STAGE_WIDTH, STAGE_HEIGHT, STAGE_FRAMES, G_MAXUINT64, FALSE);
        g_test_message ("%s %s", descriptions[i], format);
        g_assert_cmpstr (digest, ==, expected);
      }
}

/* a fault at frame 2: the restarted stage takes back the history it had
 * after frame 1, copied from and to the GPU */
static void
test_gpu_effects_restores_history (void)
{
  const char *description = "difference echo=0.6";
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("restart");
  g_autofree gchar *digest = NULL, *expected = NULL;
  AccelStage *fx, *sink;

  add_source (g, "BGRA8");
  fx = accel_test_stage (g, "realtime.effects", "fx");
  g_object_set (fx, "effects", description, "snapshot-interval", 1, NULL);
  sink = accel_test_stage (g, "core.checksum-sink", "sink");
  link_ok (g, "src", "fx");
  link_ok (g, "fx", "sink");
  g_assert_true (accel_fault_inject_parse ("fx:library:2", &error));
  g_assert_true (accel_graph_run (g, &error));
  g_assert_no_error (error);
  accel_fault_clear ();
  g_assert_cmpuint (accel_stage_get_n_restarts (fx), ==, 1);
  digest = accel_checksum_sink_dup_digest (sink);
  expected = test_effects_expected (description, ACCEL_IMAGE_BGRA8, STAGE_WIDTH,
      STAGE_HEIGHT, STAGE_FRAMES, 2, TRUE);
  g_assert_cmpstr (digest, ==, expected);
}

/* the pattern screened with its inverse, then analysed and equalised */
static void
test_gpu_blend_analysis_stages (void)
{
  const int fmt = ACCEL_IMAGE_RGBA8;
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("blend-analysis");
  g_autoptr (GChecksum) frames = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr (GChecksum) stats = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr (GChecksum) hists = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr (TestFrame) a = test_frame_new (fmt, STAGE_WIDTH, STAGE_HEIGHT, 0);
  g_autoptr (TestFrame) b = test_frame_new (fmt, STAGE_WIDTH, STAGE_HEIGHT, 0);
  g_autoptr (TestFrame) m = test_frame_new (fmt, STAGE_WIDTH, STAGE_HEIGHT, 0);
  g_autoptr (TestFrame) out
      = test_frame_new (fmt, STAGE_WIDTH, STAGE_HEIGHT, 0);
  g_autoptr (TestFrame) prev
      = test_frame_new (fmt, STAGE_WIDTH, STAGE_HEIGHT, 0);
  g_autofree gchar *d_frames = NULL, *d_stats = NULL, *d_hists = NULL;
  guint32 hist[N_BINS];
  guint64 motion[ACCEL_ANALYSIS_CHANNELS];
  float st[N_STATS];
  AccelEffectsParams invert;
  AccelStage *s_frames, *s_stats, *s_hists;

  add_source (g, "RGBA8");
  g_object_set (accel_test_stage (g, "realtime.effects", "neg"), "effects",
      "invert", NULL);
  g_object_set (accel_test_stage (g, "realtime.blend", "mix"), "mode",
      ACCEL_BLEND_SCREEN, "opacity", 0.6f, NULL);
  g_object_set (accel_test_stage (g, "realtime.analysis", "an"), "equalize",
      ACCEL_EQUALIZE_LUMA, NULL);
  s_frames = accel_test_stage (g, "core.checksum-sink", "frames");
  s_stats = accel_test_stage (g, "core.checksum-sink", "stats");
  s_hists = accel_test_stage (g, "core.checksum-sink", "hists");
  link_ok (g, "src", "neg");
  link_ok (g, "src", "mix.a");
  link_ok (g, "neg", "mix.b");
  link_ok (g, "mix", "an");
  link_ok (g, "an.out", "frames");
  link_ok (g, "an.stats", "stats");
  link_ok (g, "an.histogram", "hists");
  g_assert_true (accel_graph_run (g, &error));
  g_assert_no_error (error);
  d_frames = accel_checksum_sink_dup_digest (s_frames);
  d_stats = accel_checksum_sink_dup_digest (s_stats);
  d_hists = accel_checksum_sink_dup_digest (s_hists);

  g_assert_cmpint (accel_effects_parse ("invert", &invert, NULL, 0), ==, 0);
  for (guint64 s = 0; s < STAGE_FRAMES; s++)
    {
      int flags = ACCEL_ANALYSIS_LUMA | ACCEL_ANALYSIS_KEEP
                  | (s > 0 ? ACCEL_ANALYSIS_MOTION : 0);

      accel_pattern_fill_u8_host (a->data, a->size, s);
      g_assert_cmpint (
          accel_effects_apply_host (fmt, a->data, a->pitch, b->data, b->pitch,
              a->width, a->height, &invert, NULL, 0),
          ==, 0);
      g_assert_cmpint (
          accel_blend_host (fmt, a->data, a->pitch, b->data, b->pitch, m->data,
              m->pitch, a->width, a->height, ACCEL_BLEND_SCREEN, 0.6f),
          ==, 0);
      g_assert_cmpint (
          accel_analysis_accumulate_host (fmt, m->data, m->pitch, m->width,
              m->height, flags, prev->data, prev->pitch, hist, motion),
          ==, 0);
      g_assert_cmpint (accel_analysis_stats_host (hist, motion, st), ==, 0);
      g_assert_cmpint (
          accel_equalize_host (fmt, m->data, m->pitch, out->data, out->pitch,
              m->width, m->height, hist, ACCEL_EQUALIZE_LUMA),
          ==, 0);
      test_digest_add (frames, s, out->data, out->size);
      test_digest_add (stats, s, st, sizeof (st));
      test_digest_add (hists, s, hist, sizeof (hist));
    }
  g_assert_cmpstr (d_frames, ==, g_checksum_get_string (frames));
  g_assert_cmpstr (d_stats, ==, g_checksum_get_string (stats));
  g_assert_cmpstr (d_hists, ==, g_checksum_get_string (hists));
}

static void
add_case (GPtrArray *keep, int kind, int index, const char *name, int format,
    int w, int h, PitchKind pitch)
{
  static const char *const kinds[] = { "effects", "blend", "analysis" };
  GpuCase *gc = g_new0 (GpuCase, 1);
  g_autofree gchar *path = NULL;

  gc->kind = kind;
  gc->index = index;
  gc->format = format;
  gc->width = w;
  gc->height = h;
  gc->pitch = pitch;
  path = g_strdup_printf ("/gpu/%s/%s/%s/%dx%d/%s", kinds[kind], name,
      test_format_name (format), w, h, pitch_names[pitch]);
  g_test_add_data_func (path, gc, test_gpu_case);
  g_ptr_array_add (keep, gc);
}

int
main (int argc, char **argv)
{
  g_autoptr (GPtrArray) keep = NULL;

  accel_test_require_gpu ();
  g_test_init (&argc, &argv, NULL);
  keep = g_ptr_array_new_with_free_func (g_free);

  g_test_add_func (
      "/gpu/effects/invalid-arguments", test_gpu_invalid_arguments);
  g_test_add_func ("/gpu/effects/stage", test_gpu_effects_stage);
  g_test_add_func (
      "/gpu/effects/stage-restores-history", test_gpu_effects_restores_history);
  g_test_add_func (
      "/gpu/effects/blend-analysis-stages", test_gpu_blend_analysis_stages);
  for (guint si = 0; si < G_N_ELEMENTS (sizes); si++)
    for (int p = PITCH_TIGHT; p <= PITCH_WIDE; p++)
      for (guint fi = 0; fi < G_N_ELEMENTS (rgba_formats); fi++)
        {
          int w = sizes[si][0], h = sizes[si][1], f = rgba_formats[fi];

          for (guint i = 0; i < G_N_ELEMENTS (fx_cases); i++)
            add_case (keep, 0, (int)i, fx_cases[i].name, f, w, h, p);
          for (guint i = 0; i < G_N_ELEMENTS (blend_names); i++)
            add_case (keep, 1, (int)i, blend_names[i], f, w, h, p);
          for (guint i = 0; i < G_N_ELEMENTS (content_names); i++)
            add_case (keep, 2, (int)i, content_names[i], f, w, h, p);
        }
  return g_test_run ();
}
