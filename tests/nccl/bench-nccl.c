/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* all-reduce through the nccl.all-reduce stage against a direct loop of
 * the same library calls, in the same run, in a world of W ranks: NCCL on
 * GPUs where there are W of them, else Gloo on the host backend. Each
 * frame of either is a fill of the pattern core.test-source writes and an
 * all-reduce of it, in place. The stage's time per frame is the difference
 * of two runs of accel-run --ranks W (F1 and F2 frames: start-up and
 * rendezvous cancel out); the direct loop times itself after its
 * communicator is made. Reported: time per all-reduce, bus bandwidth
 * (2 (W-1)/W bytes / time, as nccl-tests count it) and the stage's bus
 * bandwidth as a fraction of the direct loop's, at 256 MB; at 64 KB, the
 * stage's overhead per call in us. Then a data-parallel pipeline (blur,
 * Sobel and a histogram all-reduce, each rank its own frames: noise on the
 * host, a pattern copied on the device on GPUs) on 1 rank and on W: the
 * speed-up per frame.
 *
 * bench-nccl [W]  (ACCEL_RUN names accel-run; started again by
 * accel_world_supervise() as each rank of the direct loop). Without W: a
 * world of 2, then one of every GPU where there are more */
#include <accel/accel.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#include "accelworldcomm.h"
#include "core/pattern.h"
#include "json-test.h"
#include "world-test.h"

#define BIG (256u << 20)
#define SMALL (64u << 10)

static gboolean use_gpu;

static void
sum_f32 (void *out, const void *a, const void *b, size_t n)
{
  float *o = out;
  const float *x = a, *y = b;

  for (size_t i = 0; i < n; i++)
    o[i] = x[i] + y[i];
}

/* the direct loop of one rank: seconds per frame */
static double
direct_rank (AccelWorld *world, gsize bytes, guint iters)
{
  gsize n = bytes / sizeof (float);
  guint rank = accel_world_get_rank (world),
        size = accel_world_get_size (world);
  g_autoptr (GError) error = NULL;
  g_autofree gchar *key = g_strdup_printf ("direct/%zu", bytes);
  gint64 t0 = 0, t1;

  if (use_gpu)
    {
      ncclUniqueId id;
      ncclComm_t comm;
      cudaStream_t stream;
      float *data;

      cudaSetDevice ((int)rank);
      g_assert_true (
          accel_world_comm_nccl_id (world, key, rank == 0, &id, &error));
      g_assert_cmpint (
          ncclCommInitRank (&comm, (int)size, id, (int)rank), ==, ncclSuccess);
      g_assert_cmpint (cudaStreamCreate (&stream), ==, cudaSuccess);
      g_assert_cmpint (cudaMalloc ((void **)&data, bytes), ==, cudaSuccess);
      for (guint i = 0; i < iters + 2; i++)
        {
          if (i == 2)
            {
              cudaStreamSynchronize (stream);
              t0 = g_get_monotonic_time ();
            }
          accel_pattern_fill_f32 (stream, data, n, i, 0);
          ncclAllReduce (data, data, n, ncclFloat32, ncclSum, comm, stream);
        }
      cudaStreamSynchronize (stream);
      /* the loop's own time: tearing the communicator down is not in it */
      t1 = g_get_monotonic_time ();
      ncclCommDestroy (comm);
      cudaFree (data);
      cudaStreamDestroy (stream);
    }
  else
    {
      char *message = NULL;
      AccelGloo *gloo
          = accel_world_comm_gloo (world, key, rank, size, &message);
      g_autofree float *data = g_new (float, n);

      g_assert_null (message);
      for (guint i = 0; i < iters + 2; i++)
        {
          if (i == 2)
            t0 = g_get_monotonic_time ();
          accel_pattern_fill_f32_host (data, n, i);
          g_assert_cmpint (accel_gloo_all_reduce (gloo, NULL, data, n,
                               sizeof (float), sum_f32, i, &message),
              ==, 0);
        }
      t1 = g_get_monotonic_time ();
      accel_gloo_free (gloo);
    }
  return (t1 - t0) / 1e6 / iters;
}

/* a rank of the direct loop's world: writes its times to direct-R.txt */
static int
run_rank (void)
{
  AccelWorld *world = accel_world_get_default ();
  g_autoptr (GError) error = NULL;
  g_autofree gchar *file = NULL, *text = NULL;
  double big, small;

  g_assert_nonnull (world);
  g_assert_true (accel_world_join (world, "bench-nccl", &error));
  big = direct_rank (world, BIG, use_gpu ? 20 : 4);
  small = direct_rank (world, SMALL, use_gpu ? 2000 : 400);
  file = g_strdup_printf ("direct-%u.txt", accel_world_get_rank (world));
  text = g_strdup_printf ("%.9f %.9f\n", big, small);
  g_assert_true (g_file_set_contents (file, text, -1, NULL));
  return 0;
}

/* the longest of the ranks' pipeline times, from their --stats files:
 * from the graph's start to its end, so without the processes' start-up,
 * which varies from run to run by more than many frames take */
static double
pipeline_seconds (const char *dir, guint world)
{
  double longest = 0;

  for (guint r = 0; r < world; r++)
    {
      g_autofree gchar *name = g_strdup_printf ("stats-%u.json", r);
      g_autofree gchar *path = g_build_filename (dir, name, NULL);
      g_autofree gchar *text = NULL;
      g_autoptr (Json) stats = NULL;

      g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
      stats = json_parse (text);
      longest
          = MAX (longest, json_member (stats, "seconds", JSON_NUMBER)->number);
    }
  return longest;
}

/* seconds the pipeline of accel-run --ranks W takes for @frames frames of
 * @bytes */
static double
stage_run (const char *dir, guint world, gsize bytes, guint frames)
{
  g_autofree gchar *yaml = g_strdup_printf (
      "pipeline: bench-nccl\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {shape: \"%zu\", "
      "num-buffers: %u, pool-size: 3}}\n"
      "  - {name: sum, kind: nccl.all-reduce, params: {pool-size: 3}}\n"
      "  - {name: out, kind: core.null-sink}\n"
      "links: [src -> sum -> out]\n",
      bytes / sizeof (float), frames);
  g_autofree gchar *ranks = g_strdup_printf ("%u", world);
  const char *args[]
      = { "--ranks", ranks, "--stats=stats-{rank}.json", "bench.yaml", NULL };
  g_auto (WorldRun) r = { 0 };

  world_backend = use_gpu ? "--backend=cuda" : "--backend=host";
  world_write (dir, "bench.yaml", yaml, strlen (yaml));
  world_run (&r, dir, NULL, args);
  g_assert_cmpint (r.status, ==, 0);
  return pipeline_seconds (dir, world);
}

/* the pipeline's start (the rendezvous, NCCL's communicators) varies from
 * run to run: each length is run REPEATS times and its fastest run kept,
 * and the difference of two lengths is the frames' own time */
#define REPEATS 3

static double
stage_per_frame (const char *dir, guint world, gsize bytes, guint f1, guint f2)
{
  double t1 = G_MAXDOUBLE, t2 = G_MAXDOUBLE;

  for (guint k = 0; k < REPEATS; k++)
    {
      t1 = MIN (t1, stage_run (dir, world, bytes, f1));
      t2 = MIN (t2, stage_run (dir, world, bytes, f2));
    }
  return (t2 - t1) / (f2 - f1);
}

/* data parallel: each rank blurs, edges and analyses its own frames, the
 * ranks sum their histograms; seconds per frame of the whole world */
static double
data_parallel_per_frame (const char *dir, guint world, guint f1, guint f2)
{
  double t[2] = { G_MAXDOUBLE, G_MAXDOUBLE };
  /* on a GPU a pattern drawn once and copied on the device: noise is made
   * on the host, which would bound the ranks instead of their GPUs */
  const char *pattern = use_gpu ? "smpte" : "noise, seed: \"{rank}\"";
  guint frames[2] = { f1, f2 };
  g_autofree gchar *ranks = g_strdup_printf ("%u", world);
  const char *args[]
      = { "--ranks", ranks, "--stats=stats-{rank}.json", "dp.yaml", NULL };

  for (guint k = 0; k < 2 * REPEATS; k++)
    {
      g_autofree gchar *yaml = g_strdup_printf (
          "pipeline: bench-data-parallel\n"
          "stages:\n"
          "  - {name: src, kind: io.pattern-source, params: {pattern: %s, "
          "width: %u, height: %u, num-buffers: %u}}\n"
          "  - {name: blur, kind: realtime.gaussian-blur, params: {sigma: 2}}\n"
          "  - {name: edges, kind: realtime.sobel}\n"
          "  - {name: stats, kind: realtime.analysis}\n"
          "  - {name: total, kind: nccl.all-reduce}\n"
          "  - {name: out, kind: core.null-sink}\n"
          "links:\n"
          "  - src -> blur -> edges -> stats\n"
          "  - stats.histogram -> total -> out\n",
          pattern, use_gpu ? 1920 : 640, use_gpu ? 1080 : 480, frames[k % 2]);
      g_auto (WorldRun) r = { 0 };

      world_write (dir, "dp.yaml", yaml, strlen (yaml));
      world_run (&r, dir, NULL, args);
      g_assert_cmpint (r.status, ==, 0);
      t[k % 2] = MIN (t[k % 2], pipeline_seconds (dir, world));
    }
  return (t[1] - t[0]) / ((double)(f2 - f1) * world);
}

static double
bus_gbps (guint world, gsize bytes, double seconds)
{
  return 2.0 * (world - 1) / world * bytes / seconds / 1e9;
}

/* the figures of a world of @world ranks; @self is this program */
static void
bench_world (const char *self, guint world)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *dir = NULL;
  double direct_big = 0, direct_small = 0, stage_big, stage_small;

  dir = g_dir_make_tmp ("accel-bench-nccl-XXXXXX", &error);
  g_assert_no_error (error);
  g_print ("# all-reduce of f32 in a world of %u ranks through %s\n", world,
      use_gpu ? "NCCL on GPUs" : "Gloo on the host backend");
  /* the direct loop: every rank writes direct-R.txt in dir */
  {
    const char *const args[] = { self, NULL };
    g_autofree gchar *here = g_get_current_dir ();
    g_assert_cmpint (g_chdir (dir), ==, 0);
    g_assert_true (accel_world_supervise (
        args, world, NULL, NULL, NULL, 0, 10000, &error));
    g_assert_no_error (error);
    g_assert_cmpint (g_chdir (here), ==, 0);
    for (guint r = 0; r < world; r++)
      {
        g_autofree gchar *name = g_strdup_printf ("direct-%u.txt", r);
        g_autofree gchar *text = world_read (dir, name, NULL);
        double big, small;
        g_assert_cmpint (sscanf (text, "%lf %lf", &big, &small), ==, 2);
        direct_big = MAX (direct_big, big);
        direct_small = MAX (direct_small, small);
      }
  }
  stage_big = use_gpu ? stage_per_frame (dir, world, BIG, 20, 1020)
                      : stage_per_frame (dir, world, BIG, 2, 6);
  /* on GPUs a 64 KB frame takes some 10 us: 200 000 of them make seconds */
  stage_small = use_gpu ? stage_per_frame (dir, world, SMALL, 500, 200500)
                        : stage_per_frame (dir, world, SMALL, 100, 900);

  g_print ("256 MB: direct %.2f ms (bus %.2f GB/s), stage %.2f ms (bus "
           "%.2f GB/s): stage/direct bus bandwidth %.3f\n",
      direct_big * 1e3, bus_gbps (world, BIG, direct_big), stage_big * 1e3,
      bus_gbps (world, BIG, stage_big), direct_big / stage_big);
  g_print ("64 KB: direct %.1f us, stage %.1f us: overhead %.1f us per call\n",
      direct_small * 1e6, stage_small * 1e6,
      (stage_small - direct_small) * 1e6);
  {
    /* on GPUs a frame takes some 0.2 ms: 20 000 of them make seconds,
     * beyond the start-up's spread */
    double one = use_gpu ? data_parallel_per_frame (dir, 1, 200, 20200)
                         : data_parallel_per_frame (dir, 1, 10, 40);
    double many = use_gpu ? data_parallel_per_frame (dir, world, 200, 20200)
                          : data_parallel_per_frame (dir, world, 10, 40);
    g_print ("data parallel (blur + Sobel + histograms, summed): 1 rank "
             "%.2f ms per frame, %u ranks %.2f ms: %.2fx\n",
        one * 1e3, world, many * 1e3, one / many);
  }
  accel_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_autofree gchar *self = NULL;
  guint world = argc > 1 ? (guint)g_ascii_strtoull (argv[1], NULL, 10) : 0;
  guint n_gpus;

  use_gpu = accel_backend_get_default () == ACCEL_BACKEND_CUDA
            && accel_device_get_n_cuda () >= MAX (world, 2);
  if (accel_supervisor_is_worker ())
    return run_rank ();
  self = g_canonicalize_filename (argv[0], NULL);
  n_gpus = use_gpu ? accel_device_get_n_cuda () : 2;
  /* a world of W, or of 2 and of every GPU there is */
  if (world >= 2)
    bench_world (self, world);
  else
    {
      bench_world (self, 2);
      if (n_gpus > 2)
        bench_world (self, n_gpus);
    }
  return 0;
}
