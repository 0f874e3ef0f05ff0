/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bandwidth of the fused effects pass, the blends and the analysis passes,
 * as a fraction of what a device-to-device cudaMemcpyAsync reaches in the
 * same run, at 1080p and 4K (RGBA8).
 *
 * Bytes moved are each input read once plus each output written once: a
 * frame in and a frame out for the effects (plus the history, read and
 * written, for the temporal ones), two in and one out for a blend, one in
 * for a histogram (plus the previous frame, read and written, with
 * motion), one in and one out for equalisation. The L2 cache is flushed
 * before every timed run, each run is timed with a pair of events and the
 * median of REPS runs after WARMUP untimed ones is reported. */
#include <cuda_runtime.h>

#include "accel-test.h"
#include "test-image.h"
#include "effects/analysis.h"
#include "effects/blend.h"
#include "effects/effects.h"

#define WARMUP 5
#define REPS 51
/* more than any L2 cache: writing it evicts the frames */
#define FLUSH_BYTES ((size_t)256 << 20)

typedef enum
{
  OP_COPY,
  OP_EFFECTS,
  OP_BLEND,
  OP_ACCUMULATE,
  OP_STATS,
  OP_EQUALIZE,
} Op;

typedef struct
{
  const char *name;
  Op op;
  const char *description; /* effects */
  int mode;                /* blend, equalize */
  int flags;               /* accumulate */
} BenchCase;

static const BenchCase cases[] = {
  { "effects grade", OP_EFFECTS, "contrast=1.2 saturation=0.8 vignette=0.4" },
  { "effects matrix+key", OP_EFFECTS,
      "hue=30 sepia=0.3 invert chroma-key=#00ff00/0.3/0.1" },
  { "effects gamma", OP_EFFECTS, "gamma=2.2 contrast=1.1" },
  { "effects echo", OP_EFFECTS, "echo=0.9" },
  { "effects difference+echo", OP_EFFECTS, "difference echo=0.9" },
  { "blend over", OP_BLEND, NULL, ACCEL_BLEND_OVER },
  { "blend screen", OP_BLEND, NULL, ACCEL_BLEND_SCREEN },
  { "histogram", OP_ACCUMULATE, NULL, 0, 0 },
  { "histogram+luma", OP_ACCUMULATE, NULL, 0, ACCEL_ANALYSIS_LUMA },
  { "histogram+luma+motion", OP_ACCUMULATE, NULL, 0,
      ACCEL_ANALYSIS_LUMA | ACCEL_ANALYSIS_MOTION | ACCEL_ANALYSIS_KEEP },
  { "stats", OP_STATS },
  { "equalize luma", OP_EQUALIZE, NULL, ACCEL_EQUALIZE_LUMA },
  { "equalize per-channel", OP_EQUALIZE, NULL, ACCEL_EQUALIZE_CHANNELS },
};

static const int frame_sizes[][2] = { { 1920, 1080 }, { 3840, 2160 } };

typedef struct
{
  cudaStream_t stream;
  cudaEvent_t start, stop;
  void *flush;
} Bench;

/* what the runs of one frame size share */
typedef struct
{
  int width, height;
  size_t pitch, size;
  void *a, *b, *out, *prev;
  float *history;
  uint32_t *hist;
  uint64_t *motion;
  float *stats;
} Buffers;

static void
check (int status, const char *what)
{
  if (status != cudaSuccess)
    {
      g_printerr ("%s: %s\n", what, cudaGetErrorString (status));
      exit (1);
    }
}

static int
compare_floats (const void *a, const void *b)
{
  float x = *(const float *)a, y = *(const float *)b;

  return (x > y) - (x < y);
}

static int
run_once (const BenchCase *bc, const AccelEffectsParams *p, Buffers *f,
    cudaStream_t s)
{
  const int fmt = ACCEL_IMAGE_RGBA8;

  if (!bc)
    return cudaMemcpyAsync (f->out, f->a, f->size, cudaMemcpyDeviceToDevice, s);
  switch (bc->op)
    {
    case OP_EFFECTS:
      return accel_effects_apply (s, fmt, f->a, f->pitch, f->out, f->pitch,
          f->width, f->height, p, f->history, 1);
    case OP_BLEND:
      return accel_blend (s, fmt, f->a, f->pitch, f->b, f->pitch, f->out,
          f->pitch, f->width, f->height, bc->mode, 0.7f);
    case OP_ACCUMULATE:
      return accel_analysis_accumulate (s, fmt, f->a, f->pitch, f->width,
          f->height, bc->flags, f->prev, f->pitch, f->hist, f->motion);
    case OP_STATS:
      return accel_analysis_stats (s, f->hist, f->motion, f->stats);
    case OP_EQUALIZE:
    default:
      return accel_equalize (s, fmt, f->a, f->pitch, f->out, f->pitch, f->width,
          f->height, f->hist, bc->mode);
    }
}

/* median time of one run in microseconds */
static double
time_runs (
    Bench *b, const BenchCase *bc, const AccelEffectsParams *p, Buffers *f)
{
  float ms[REPS];

  for (int i = 0; i < WARMUP; i++)
    check (run_once (bc, p, f, b->stream), "warm-up");
  for (int i = 0; i < REPS; i++)
    {
      check (cudaMemsetAsync (b->flush, i & 0xff, FLUSH_BYTES, b->stream),
          "cudaMemsetAsync");
      check (cudaEventRecord (b->start, b->stream), "cudaEventRecord");
      check (run_once (bc, p, f, b->stream), "run");
      check (cudaEventRecord (b->stop, b->stream), "cudaEventRecord");
      check (cudaEventSynchronize (b->stop), "cudaEventSynchronize");
      check (cudaEventElapsedTime (&ms[i], b->start, b->stop),
          "cudaEventElapsedTime");
    }
  qsort (ms, REPS, sizeof (float), compare_floats);
  return ms[REPS / 2] * 1000.0;
}

/* bytes a run reads and writes */
static size_t
bytes_of (const BenchCase *bc, const AccelEffectsParams *p, const Buffers *f)
{
  size_t frame = f->size;

  switch (bc->op)
    {
    case OP_EFFECTS:
      return 2 * frame
             + 2 * accel_effects_history_size (p, f->width, f->height);
    case OP_BLEND:
      return 3 * frame;
    case OP_ACCUMULATE:
      return (bc->flags & ACCEL_ANALYSIS_MOTION) ? 3 * frame : frame;
    case OP_STATS:
      return 0;
    case OP_EQUALIZE:
    default:
      return 2 * frame;
    }
}

static void
bench_frame (Bench *b, int width, int height, GRand *rand)
{
  g_autoptr (TestFrame) frame
      = test_frame_new (ACCEL_IMAGE_RGBA8, width, height, 0);
  AccelEffectsParams all;
  Buffers f = { 0 };
  double copy_us, copy_gbs;

  f.width = width;
  f.height = height;
  f.pitch = frame->pitch;
  f.size = frame->size;
  g_assert_cmpint (
      accel_effects_parse ("difference echo", &all, NULL, 0), ==, 0);
  check (cudaMalloc (&f.a, f.size), "cudaMalloc");
  check (cudaMalloc (&f.b, f.size), "cudaMalloc");
  check (cudaMalloc (&f.out, f.size), "cudaMalloc");
  check (cudaMalloc (&f.prev, f.size), "cudaMalloc");
  check (cudaMalloc ((void **)&f.history,
             accel_effects_history_size (&all, width, height)),
      "cudaMalloc");
  check (cudaMemset (
             f.history, 0, accel_effects_history_size (&all, width, height)),
      "cudaMemset");
  check (cudaMalloc ((void **)&f.hist,
             sizeof (uint32_t) * ACCEL_ANALYSIS_CHANNELS * ACCEL_ANALYSIS_BINS),
      "cudaMalloc");
  check (cudaMalloc (
             (void **)&f.motion, sizeof (uint64_t) * ACCEL_ANALYSIS_CHANNELS),
      "cudaMalloc");
  check (cudaMalloc ((void **)&f.stats,
             sizeof (float) * ACCEL_ANALYSIS_CHANNELS * ACCEL_ANALYSIS_STATS),
      "cudaMalloc");

  test_frame_fill_random (frame, rand);
  check (cudaMemcpy (f.a, frame->data, f.size, cudaMemcpyHostToDevice),
      "cudaMemcpy");
  check (cudaMemcpy (f.prev, frame->data, f.size, cudaMemcpyHostToDevice),
      "cudaMemcpy");
  test_frame_fill_random (frame, rand);
  check (cudaMemcpy (f.b, frame->data, f.size, cudaMemcpyHostToDevice),
      "cudaMemcpy");
  /* the equalisations and statistics read the histogram of a */
  check (accel_analysis_accumulate (b->stream, ACCEL_IMAGE_RGBA8, f.a, f.pitch,
             width, height, ACCEL_ANALYSIS_LUMA, NULL, 0, f.hist, f.motion),
      "accel_analysis_accumulate");

  copy_us = time_runs (b, NULL, NULL, &f);
  copy_gbs = 2.0 * f.size / copy_us / 1000.0;
  g_print ("%4dx%-5d %-26s %9.1f %9.1f %8.0f %7.0f%%\n", width, height,
      "copy (RGBA8 frame)", 2.0 * f.size / 1e6, copy_us, copy_gbs, 100.0);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const BenchCase *bc = &cases[i];
      AccelEffectsParams p;
      double us, gbs;
      size_t bytes;

      accel_effects_params_init (&p);
      if (bc->description)
        g_assert_cmpint (
            accel_effects_parse (bc->description, &p, NULL, 0), ==, 0);
      bytes = bytes_of (bc, &p, &f);
      us = time_runs (b, bc, &p, &f);
      if (bytes == 0)
        {
          g_print ("%4dx%-5d %-26s %9s %9.1f %8s %8s\n", width, height,
              bc->name, "-", us, "-", "-");
          continue;
        }
      gbs = bytes / us / 1000.0;
      g_print ("%4dx%-5d %-26s %9.1f %9.1f %8.0f %7.0f%%\n", width, height,
          bc->name, bytes / 1e6, us, gbs, 100.0 * gbs / copy_gbs);
    }
  cudaFree (f.a);
  cudaFree (f.b);
  cudaFree (f.out);
  cudaFree (f.prev);
  cudaFree (f.history);
  cudaFree (f.hist);
  cudaFree (f.motion);
  cudaFree (f.stats);
}

int
main (int argc, char **argv)
{
  g_autoptr (GRand) rand = NULL;
  struct cudaDeviceProp prop;
  Bench b = { 0 };

  accel_test_require_gpu ();
  rand = g_rand_new_with_seed (20260101);

  check (cudaGetDeviceProperties (&prop, 0), "cudaGetDeviceProperties");
  check (cudaStreamCreateWithFlags (&b.stream, cudaStreamNonBlocking),
      "cudaStreamCreateWithFlags");
  check (cudaEventCreate (&b.start), "cudaEventCreate");
  check (cudaEventCreate (&b.stop), "cudaEventCreate");
  check (cudaMalloc (&b.flush, FLUSH_BYTES), "cudaMalloc");

  g_print ("effects, blends and analysis against a device-to-device copy on "
           "%s\n(RGBA8, random frames; bytes: inputs read once + outputs "
           "written once, histories\n read and written; L2 flushed before "
           "each run; median of %d runs after %d warm-up runs)\n\n",
      prop.name, REPS, WARMUP);
  g_print ("%-10s %-26s %9s %9s %8s %8s\n", "frame", "kernel", "MB moved",
      "time us", "GB/s", "of copy");
  for (guint i = 0; i < G_N_ELEMENTS (frame_sizes); i++)
    bench_frame (&b, frame_sizes[i][0], frame_sizes[i][1], rand);

  cudaFree (b.flush);
  cudaEventDestroy (b.start);
  cudaEventDestroy (b.stop);
  cudaStreamDestroy (b.stream);
  return 0;
}
