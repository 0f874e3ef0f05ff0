/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bandwidth of the memory-bound image kernels, as a fraction of what a
 * device-to-device cudaMemcpyAsync reaches in the same run; the floor
 * under each kernel's time, a kernel moving the same bytes that computes
 * nothing (bench-image-floor.cu); and the time NVIDIA's NPP takes for its
 * closest equivalent on the same frames (when built with NPP).
 *
 * Bytes moved are each input read once plus each output written once; the
 * L2 cache is flushed before every timed run (a frame fits in it), each run
 * is timed with a pair of events and the median of REPS runs after WARMUP
 * untimed ones is reported. BENCH_IMAGE_REPS=N runs each case N times
 * with no warm-up instead (one launch a case under a profiler);
 * BENCH_IMAGE_ONLY=gray,NV12 runs the cases whose names hold one of the
 * words. */
#include <cuda_runtime.h>
#include <string.h>

#include "accel-test.h"
#include "bench-image-floor.h"
#include "bench-image-npp.h"
#include "test-image.h"

#define WARMUP 5
#define REPS 51

static int warmup = WARMUP, reps = REPS;
/* more than any L2 cache: writing it evicts the frames */
#define FLUSH_BYTES ((size_t)256 << 20)

typedef struct
{
  const char *name;
  int in_format;
  TestCase tc;
  int target; /* the least "of copy" it aims at, in %; 0: TARGET */
} BenchCase;

/* what every case aims at but where it says otherwise: 85 % of the frame
 * copy's bandwidth, and faster than NPP's equivalent (docs/benchmarks.md) */
#define TARGET 85

static const BenchCase cases[] = {
  { "threshold", ACCEL_IMAGE_RGBA8, { NULL, TEST_KERNEL_THRESHOLD, 128.0f } },
  { "convert RGBA8->BGRA8", ACCEL_IMAGE_RGBA8,
      { NULL, TEST_KERNEL_CONVERT, .dst_format = ACCEL_IMAGE_BGRA8 } },
  { "convert RGBA8->GRAY8", ACCEL_IMAGE_RGBA8,
      { NULL, TEST_KERNEL_CONVERT, .dst_format = ACCEL_IMAGE_GRAY8 } },
  { "convert RGBA8->NV12", ACCEL_IMAGE_RGBA8,
      { NULL, TEST_KERNEL_CONVERT, .dst_format = ACCEL_IMAGE_NV12 } },
  { "convert RGBA8->I420", ACCEL_IMAGE_RGBA8,
      { NULL, TEST_KERNEL_CONVERT, .dst_format = ACCEL_IMAGE_I420 } },
  { "convert NV12->RGBA8", ACCEL_IMAGE_NV12,
      { NULL, TEST_KERNEL_CONVERT, .dst_format = ACCEL_IMAGE_RGBA8 } },
  { "convert I420->RGBA8", ACCEL_IMAGE_I420,
      { NULL, TEST_KERNEL_CONVERT, .dst_format = ACCEL_IMAGE_RGBA8 } },
  /* BT.709 at limited range, as hardware decoders write HD */
  { "convert NV12(709)->RGBA8", ACCEL_IMAGE_NV12,
      { NULL, TEST_KERNEL_CONVERT, .dst_format = ACCEL_IMAGE_RGBA8,
          .yuv_matrix = ACCEL_YUV_BT709, .yuv_limited = TRUE } },
  { "convert GRAY8->RGBA8", ACCEL_IMAGE_GRAY8,
      { NULL, TEST_KERNEL_CONVERT, .dst_format = ACCEL_IMAGE_RGBA8 } },
  { "convert RGBA8->RGBAF32", ACCEL_IMAGE_RGBA8,
      { NULL, TEST_KERNEL_CONVERT, .dst_format = ACCEL_IMAGE_RGBAF32 } },
  { "convert RGBAF32->RGBA8", ACCEL_IMAGE_RGBAF32,
      { NULL, TEST_KERNEL_CONVERT, .dst_format = ACCEL_IMAGE_RGBA8 } },
  { "resize 1/2", ACCEL_IMAGE_RGBA8,
      { NULL, TEST_KERNEL_RESIZE, .num = 1, .den = 2 } },
  { "resize 2x", ACCEL_IMAGE_RGBA8,
      { NULL, TEST_KERNEL_RESIZE, .num = 2, .den = 1 } },
  { "gaussian-blur sigma 1", ACCEL_IMAGE_RGBA8,
      { NULL, TEST_KERNEL_GAUSSIAN_BLUR, 1.0f } },
  { "gaussian-blur sigma 2", ACCEL_IMAGE_RGBA8,
      { NULL, TEST_KERNEL_GAUSSIAN_BLUR, 2.0f } },
  { "gaussian-blur sigma 3", ACCEL_IMAGE_RGBA8,
      { NULL, TEST_KERNEL_GAUSSIAN_BLUR, 3.0f } },
  { "box-blur radius 1", ACCEL_IMAGE_RGBA8,
      { NULL, TEST_KERNEL_BOX_BLUR, .n = 1 } },
  { "box-blur radius 2", ACCEL_IMAGE_RGBA8,
      { NULL, TEST_KERNEL_BOX_BLUR, .n = 2 } },
  { "box-blur radius 3", ACCEL_IMAGE_RGBA8,
      { NULL, TEST_KERNEL_BOX_BLUR, .n = 3 } },
  { "box-blur radius 4", ACCEL_IMAGE_RGBA8,
      { NULL, TEST_KERNEL_BOX_BLUR, .n = 4 } },
  { "unsharp sigma 1", ACCEL_IMAGE_RGBA8,
      { NULL, TEST_KERNEL_UNSHARP, 1.0f, 1.0f } },
  { "unsharp sigma 3", ACCEL_IMAGE_RGBA8,
      { NULL, TEST_KERNEL_UNSHARP, 1.0f, 3.0f } },
  { "sobel", ACCEL_IMAGE_RGBA8, { NULL, TEST_KERNEL_SOBEL, 0.25f } },
  { "median 3x3", ACCEL_IMAGE_RGBA8, { NULL, TEST_KERNEL_MEDIAN, .n = 3 },
      .target = 70 },
  { "median 5x5", ACCEL_IMAGE_RGBA8, { NULL, TEST_KERNEL_MEDIAN, .n = 5 },
      .target = 50 },
};

static const int frame_sizes[][2] = { { 1920, 1080 }, { 3840, 2160 } };

/* the rows measured against their targets */
typedef struct
{
  int rows, met, npp_rows, npp_behind;
  GString *short_rows, *npp_rows_behind; /* a line each */
} Targets;

typedef struct
{
  cudaStream_t stream;
  cudaEvent_t start, stop;
  void *flush;
  gboolean with_npp; /* built with NPP */
  Targets targets;
} Bench;

/* counts case @bc's row at @width x @height, @of_copy % of the frame copy
 * and NPP at @npp_over_ours times its time (0: no NPP figure) */
static void
targets_add (Targets *t, const BenchCase *bc, int width, int height,
    double of_copy, double npp_over_ours)
{
  const int target = bc->target ? bc->target : TARGET;

  t->rows++;
  if (of_copy >= target)
    t->met++;
  else
    g_string_append_printf (t->short_rows, "  %dx%d %s: %.1f%% of %d%%\n",
        width, height, bc->name, of_copy, target);
  if (npp_over_ours <= 0.0)
    return;
  t->npp_rows++;
  if (npp_over_ours <= 1.0)
    {
      t->npp_behind++;
      g_string_append_printf (t->npp_rows_behind,
          "  %dx%d %s: NPP/ours %.2fx\n", width, height, bc->name,
          npp_over_ours);
    }
}

static void
targets_print (const Targets *t)
{
  g_autoptr (GString) others = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    if (cases[i].target)
      g_string_append_printf (
          others, ", %s %d%%", cases[i].name, cases[i].target);
  g_print ("\ntarget: %d%% of the frame copy%s: %d of %d rows met\n%s", TARGET,
      others->str, t->met, t->rows, t->short_rows->str);
  if (t->npp_rows)
    g_print ("target: faster than NPP: %d of %d rows met\n%s",
        t->npp_rows - t->npp_behind, t->npp_rows, t->npp_rows_behind->str);
}

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

/* what one timed run does */
typedef struct
{
  const TestCase *tc; /* NULL: the copy, or the floor */
  TestFrame *in, *out;
  void *d_in, *d_out;
  BenchNpp *npp;   /* not NULL: NPP's equivalent of tc instead */
  int floor_shape; /* >= 0: the floor under in's and out's bytes */
} Run;

static int
run_once (const Run *r, cudaStream_t stream)
{
  if (r->floor_shape >= 0)
    return bench_image_floor (
        stream, r->floor_shape, r->d_in, r->in->size, r->d_out, r->out->size);
  if (!r->tc)
    return cudaMemcpyAsync (
        r->d_out, r->d_in, r->in->size, cudaMemcpyDeviceToDevice, stream);
  if (r->npp)
    {
      int status
          = bench_npp_run (r->npp, r->tc, r->in, r->d_in, r->out, r->d_out);
      if (status != 0)
        {
          g_printerr ("NPP: status %d\n", status);
          exit (1);
        }
      return cudaGetLastError ();
    }
  return test_case_run (
      r->tc, TRUE, stream, r->in, r->d_in, r->out, r->d_out, NULL, 0);
}

/* median time of one run in microseconds */
static double
time_runs (Bench *b, const Run *r)
{
  float ms[REPS];

  for (int i = 0; i < warmup; i++)
    check (run_once (r, b->stream), "warm-up");
  for (int i = 0; i < reps; i++)
    {
      check (cudaMemsetAsync (b->flush, i & 0xff, FLUSH_BYTES, b->stream),
          "cudaMemsetAsync");
      check (cudaEventRecord (b->start, b->stream), "cudaEventRecord");
      check (run_once (r, b->stream), "run");
      check (cudaEventRecord (b->stop, b->stream), "cudaEventRecord");
      check (cudaEventSynchronize (b->stop), "cudaEventSynchronize");
      check (cudaEventElapsedTime (&ms[i], b->start, b->stop),
          "cudaEventElapsedTime");
    }
  qsort (ms, reps, sizeof (float), compare_floats);
  return ms[reps / 2] * 1000.0;
}

/* median time of the floor under @r's bytes in microseconds: the faster
 * of bench_image_floor ()'s kernels */
static double
time_floor (Bench *b, Run *r)
{
  double best = 0.0;

  for (int shape = 0; shape < BENCH_IMAGE_FLOOR_SHAPES; shape++)
    {
      double us;

      r->floor_shape = shape;
      us = time_runs (b, r);
      best = shape == 0 || us < best ? us : best;
    }
  r->floor_shape = -1;
  return best;
}

/* each case's input, the same in the benchmark and in an NPP child */
static TestFrame *
case_input (guint ci, guint si)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (20260101 + 1000 * si + ci);
  TestFrame *in = test_frame_new (
      cases[ci].in_format, frame_sizes[si][0], frame_sizes[si][1], 0);

  test_frame_fill_random (in, rand);
  return in;
}

/* NPP's time for case @ci on frame size @si, timed in a child process
 * (this program with --npp), so that a fault in NPP costs its cell of the
 * table, not the run; -1 with a line in @notes where it failed */
static double
npp_time_us (guint ci, guint si, GString *notes)
{
  g_autofree gchar *c = g_strdup_printf ("%u", ci);
  g_autofree gchar *z = g_strdup_printf ("%u", si);
  const gchar *argv[] = { "/proc/self/exe", "--npp", c, z, NULL };
  g_autofree gchar *out = NULL, *err = NULL;
  g_autoptr (GError) error = NULL;
  const gchar *line;
  gchar *end = NULL;
  int status = 0;
  double us;

  if (!g_spawn_sync (NULL, (gchar **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
          &out, &err, &status, &error)
      || !g_spawn_check_wait_status (status, &error))
    {
      /* the child's last words, if any */
      line = err ? g_strstrip (err) : "";
      if (strrchr (line, '\n'))
        line = strrchr (line, '\n') + 1;
      g_string_append_printf (notes, "NPP failed on %s at %dx%d: %s%s%s\n",
          cases[ci].name, frame_sizes[si][0], frame_sizes[si][1],
          error->message, line[0] ? ": " : "", line);
      return -1.0;
    }
  /* the time is the child's last line */
  line = g_strstrip (out);
  if (strrchr (line, '\n'))
    line = strrchr (line, '\n') + 1;
  us = g_ascii_strtod (line, &end);
  if (end == line || us <= 0.0)
    {
      g_string_append_printf (notes, "NPP on %s at %dx%d printed no time: %s\n",
          cases[ci].name, frame_sizes[si][0], frame_sizes[si][1], line);
      return -1.0;
    }
  return us;
}

/* the child: times NPP on case @ci at frame size @si, prints microseconds */
static int
npp_child (Bench *b, guint ci, guint si)
{
  const BenchCase *bc = &cases[ci];
  g_autoptr (TestFrame) in = case_input (ci, si);
  g_autoptr (TestFrame) out = NULL;
  Run run = { &bc->tc, in, NULL, NULL, NULL, NULL, -1 };
  int of, ow, oh;

  test_case_output (
      &bc->tc, bc->in_format, in->width, in->height, &of, &ow, &oh);
  out = test_frame_new (of, ow, oh, 0);
  run.out = out;
  run.npp = bench_npp_new (b->stream);
  if (!run.npp)
    g_error ("built without NPP");
  check (cudaMalloc (&run.d_in, in->size), "cudaMalloc");
  check (cudaMalloc (&run.d_out, out->size), "cudaMalloc");
  check (cudaMemcpy (run.d_in, in->data, in->size, cudaMemcpyHostToDevice),
      "cudaMemcpy");
  g_print ("%.3f\n", time_runs (b, &run));
  bench_npp_free (run.npp);
  cudaFree (run.d_in);
  cudaFree (run.d_out);
  return 0;
}

/* BENCH_IMAGE_ONLY: a comma-separated list of words, a case runs when its
 * name contains one of them (to profile or compare a few kernels) */
static gboolean
case_wanted (const char *name)
{
  const char *only = g_getenv ("BENCH_IMAGE_ONLY");
  g_auto (GStrv) words = NULL;

  if (!only || !*only)
    return TRUE;
  words = g_strsplit (only, ",", -1);
  for (guint i = 0; words[i]; i++)
    if (*words[i] && strstr (name, words[i]))
      return TRUE;
  return FALSE;
}

static void
bench_frame (Bench *b, guint si, GString *notes)
{
  const int width = frame_sizes[si][0], height = frame_sizes[si][1];
  g_autoptr (TestFrame) rgba
      = test_frame_new (ACCEL_IMAGE_RGBA8, width, height, 0);
  g_autoptr (GRand) rand = g_rand_new_with_seed (20260101 + 1000 * si);
  void *d_a = NULL, *d_b = NULL;
  Run copy = { NULL, rgba, rgba, NULL, NULL, NULL, -1 };
  Run floor = { NULL, rgba, rgba, NULL, NULL, NULL, -1 };
  double copy_us, copy_gbs, floor_us;
  size_t most = 0;
  int of, ow, oh;

  /* the largest frame any case reads or writes */
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      test_case_output (
          &cases[i].tc, cases[i].in_format, width, height, &of, &ow, &oh);
      most = MAX (most, accel_image_frame_size (of, ow, oh,
                            (size_t)ow * accel_image_bytes_per_pixel (of)));
    }
  most = MAX (most, rgba->size);
  check (cudaMalloc (&d_a, most), "cudaMalloc");
  check (cudaMalloc (&d_b, most), "cudaMalloc");

  test_frame_fill_random (rgba, rand);
  check (cudaMemcpy (d_a, rgba->data, rgba->size, cudaMemcpyHostToDevice),
      "cudaMemcpy");
  copy.d_in = d_a;
  copy.d_out = d_b;
  copy_us = time_runs (b, &copy);
  copy_gbs = 2.0 * rgba->size / copy_us / 1000.0;
  g_print ("%4dx%-5d %-24s %9.1f %9.1f %8.0f %7.0f%%\n", width, height,
      "copy (RGBA8 frame)", 2.0 * rgba->size / 1e6, copy_us, copy_gbs, 100.0);
  /* the floor's kernels against cudaMemcpyAsync's, on the same bytes */
  floor.d_in = d_a;
  floor.d_out = d_b;
  floor_us = time_floor (b, &floor);
  g_print ("%4dx%-5d %-24s %9.1f %9.1f %8.0f %7.0f%%\n", width, height,
      "floor (RGBA8 frame)", 2.0 * rgba->size / 1e6, floor_us,
      2.0 * rgba->size / floor_us / 1000.0, 100.0 * copy_us / floor_us);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const BenchCase *bc = &cases[i];
      g_autoptr (TestFrame) in = NULL;
      g_autoptr (TestFrame) out = NULL;
      Run run = { &bc->tc, in, NULL, d_a, d_b, NULL, -1 };
      Run under = { NULL, in, NULL, d_a, d_b, NULL, -1 };
      double us, gbs, of_copy, under_us, npp_us;
      size_t bytes;

      if (!case_wanted (bc->name))
        continue;
      in = case_input (i, si);
      run.in = under.in = in;
      test_case_output (&bc->tc, bc->in_format, width, height, &of, &ow, &oh);
      out = test_frame_new (of, ow, oh, 0);
      run.out = under.out = out;
      check (cudaMemcpy (d_a, in->data, in->size, cudaMemcpyHostToDevice),
          "cudaMemcpy");
      bytes = in->size + out->size;
      us = time_runs (b, &run);
      gbs = bytes / us / 1000.0;
      of_copy = 100.0 * gbs / copy_gbs;
      /* the same bytes moved with nothing computed: the most "of copy"
       * could reach with this kernel's reads and writes */
      under_us = time_floor (b, &under);
      g_print ("%4dx%-5d %-24s %9.1f %9.1f %8.0f %7.0f%% %7.0f%% %7.0f%%",
          width, height, bc->name, bytes / 1e6, us, gbs, of_copy,
          100.0 * bytes / under_us / 1000.0 / copy_gbs, 100.0 * under_us / us);
      npp_us = 0.0;
      if (b->with_npp && bench_npp_has (&bc->tc, bc->in_format))
        {
          npp_us = npp_time_us (i, si, notes);
          if (npp_us > 0.0)
            g_print (" %9.1f %7.2fx", npp_us, npp_us / us);
          else
            g_print (" %9s", "failed");
        }
      g_print ("\n");
      targets_add (&b->targets, bc, width, height, of_copy,
          npp_us > 0.0 ? npp_us / us : 0.0);
    }
  cudaFree (d_a);
  cudaFree (d_b);
}

int
main (int argc, char **argv)
{
  g_autoptr (GString) notes = g_string_new (NULL);
  struct cudaDeviceProp prop;
  Bench b = { 0 };
  int status = 0;

  accel_test_require_gpu ();
  if (g_getenv ("BENCH_IMAGE_REPS"))
    {
      reps = CLAMP (atoi (g_getenv ("BENCH_IMAGE_REPS")), 1, REPS);
      warmup = 0;
    }

  check (cudaGetDeviceProperties (&prop, 0), "cudaGetDeviceProperties");
  check (cudaStreamCreateWithFlags (&b.stream, cudaStreamNonBlocking),
      "cudaStreamCreateWithFlags");
  check (cudaEventCreate (&b.start), "cudaEventCreate");
  check (cudaEventCreate (&b.stop), "cudaEventCreate");
  check (cudaMalloc (&b.flush, FLUSH_BYTES), "cudaMalloc");
  b.with_npp = bench_npp_built ();

  if (argc == 4 && g_str_equal (argv[1], "--npp"))
    {
      guint ci = (guint)atoi (argv[2]), si = (guint)atoi (argv[3]);
      if (ci >= G_N_ELEMENTS (cases) || si >= G_N_ELEMENTS (frame_sizes))
        g_error ("--npp: no case %s at size %s", argv[2], argv[3]);
      status = npp_child (&b, ci, si);
    }
  else
    {
      g_print ("image kernels against a device-to-device copy on %s\n"
               "(RGBA8 input unless named; bytes: input read once + output "
               "written once;\n L2 flushed before each run; median of %d "
               "runs after %d warm-up runs)\nof copy: bandwidth against the "
               "frame's copy; floor: the same of the faster of two kernels "
               "moving the same\nbytes and computing nothing; of floor: its "
               "time over ours\n"
               "%s\n\n",
          prop.name, reps, warmup,
          b.with_npp ? "NPP: its closest equivalent on the same frames (timed "
                       "in a child process), and its time over ours"
                     : "NPP: not built in");
      g_print ("%-10s %-24s %9s %9s %8s %8s %8s %8s %9s %8s\n", "frame",
          "kernel", "MB moved", "time us", "GB/s", "of copy", "floor",
          "of floor", "NPP us", "NPP/ours");
      b.targets.short_rows = g_string_new (NULL);
      b.targets.npp_rows_behind = g_string_new (NULL);
      for (guint i = 0; i < G_N_ELEMENTS (frame_sizes); i++)
        bench_frame (&b, i, notes);
      if (notes->len)
        g_print ("\n%s", notes->str);
      targets_print (&b.targets);
      g_string_free (b.targets.short_rows, TRUE);
      g_string_free (b.targets.npp_rows_behind, TRUE);
    }

  cudaFree (b.flush);
  cudaEventDestroy (b.start);
  cudaEventDestroy (b.stop);
  cudaStreamDestroy (b.stream);
  return status;
}
