/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the collective stages in worlds of 2 and 4 processes on the host
 * backend (Gloo), or with --backend=cuda through NCCL, a GPU per rank
 * (fewer than two GPUs skip it all; a world of 4 is skipped, saying so,
 * with fewer than 4; the relay's three ranks need two, as each pair's
 * communicator spans two GPUs), each against a reference computed here; a
 * data-parallel pipeline whose ranks each filter their share of the frames
 * and sum their histograms; and a world that loses a rank: rebuilt a generation
 * later with output byte-identical to a run without the fault, or, past
 * the restart intensity, an error naming the rank, the host and the fault */
#include <accel/accel.h>
#include <math.h>

#include "accelhalf.h"
#include "world-test.h"

#define ROWS 4
#define COLS 3
#define N (ROWS * COLS)
#define FRAMES 3

static const char *const dtypes[]
    = { "f32", "f64", "f16", "bf16", "i32", "u8" };

/* rank r's element i of frame s: small whole numbers, so that sums,
 * products and averages of up to 4 ranks are exact in every dtype and in
 * any order; u8 keeps to 0..3 */
static double
value (const char *dtype, guint r, guint s, guint i)
{
  guint k = i * 7 + r * 3 + s * 5;

  return g_str_equal (dtype, "u8") ? (double)(k % 4) : (double)(k % 7) - 3.0;
}

static gsize
dtype_size (const char *dtype)
{
  return accel_dtype_get_size (accel_dtype_from_string (dtype));
}

static void
encode (const char *dtype, double v, guint8 *out)
{
  if (g_str_equal (dtype, "f32"))
    *(float *)out = (float)v;
  else if (g_str_equal (dtype, "f64"))
    *(double *)out = v;
  else if (g_str_equal (dtype, "f16"))
    *(guint16 *)out = accel_f32_to_f16 ((float)v);
  else if (g_str_equal (dtype, "bf16"))
    *(guint16 *)out = accel_f32_to_bf16 ((float)v);
  else if (g_str_equal (dtype, "i32"))
    *(gint32 *)out = (gint32)v;
  else
    *out = (guint8)v;
}

typedef enum
{
  SUM,
  PROD,
  MIN,
  MAX,
  AVG
} Op;

/* the reduction over the ranks of element i of frame s */
static double
reduce (const char *dtype, Op op, guint world, guint s, guint i)
{
  double acc = value (dtype, 0, s, i);
  gboolean integer = g_str_equal (dtype, "i32") || g_str_equal (dtype, "u8");

  for (guint r = 1; r < world; r++)
    {
      double v = value (dtype, r, s, i);
      acc = op == PROD  ? acc * v
            : op == MIN ? MIN (acc, v)
            : op == MAX ? MAX (acc, v)
                        : acc + v;
    }
  if (op == AVG)
    acc = integer ? (double)(gint64)(acc / world) : acc / world;
  return acc;
}

typedef struct
{
  gchar *dir;
  guint world;
  const char *dtype;
} Fixture;

static gboolean on_gpus;

/* whether this machine runs a world that needs @gpus GPUs: always on the
 * host backend; else the case is skipped, saying why */
static gboolean
world_fits (guint gpus)
{
  g_autofree gchar *why = NULL;

  if (!on_gpus || accel_device_get_n_cuda () >= gpus)
    return TRUE;
  why = g_strdup_printf (
      "needs %u GPUs, this machine has %u", gpus, accel_device_get_n_cuda ());
  g_test_skip (why);
  return FALSE;
}

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  f->dir = g_dir_make_tmp ("accel-collectives-XXXXXX", NULL);
  g_assert_nonnull (f->dir);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  accel_test_remove_tree (f->dir);
  g_free (f->dir);
}

/* a sink per collective, each writing name-{rank}.raw */
static gchar *
collectives_yaml (const char *dtype, guint world)
{
  static const char *const stages[][2] = {
    { "sum", "nccl.all-reduce, params: {op: sum}" },
    { "prod", "nccl.all-reduce, params: {op: prod}" },
    { "min", "nccl.all-reduce, params: {op: min}" },
    { "max", "nccl.all-reduce, params: {op: max}" },
    { "avg", "nccl.all-reduce, params: {op: avg}" },
    { "gather", "nccl.all-gather" },
    { "scatter", "nccl.reduce-scatter, params: {op: sum}" },
    { "scatter-max", "nccl.reduce-scatter, params: {op: max}" },
    { "bcast", "nccl.broadcast, params: {root: LAST}" },
    { "reduce", "nccl.reduce, params: {op: min, root: 1}" },
  };
  g_autoptr (GString) y = g_string_new (NULL);
  g_autofree gchar *last = g_strdup_printf ("%u", world - 1);

  g_string_append_printf (y,
      "pipeline: collectives\nstages:\n"
      "  - {name: src, kind: io.raw-file-source, params: {location: "
      "\"in-{rank}.raw\", shape: \"%ux%u\", dtype: %s}}\n",
      ROWS, COLS, dtype);
  for (guint k = 0; k < G_N_ELEMENTS (stages); k++)
    g_string_append_printf (y,
        "  - {name: %s, kind: %s}\n"
        "  - {name: %s-out, kind: io.raw-file-sink, params: {location: "
        "\"%s-{rank}.raw\"}}\n",
        stages[k][0], stages[k][1], stages[k][0], stages[k][0]);
  g_string_append (y, "links:\n");
  for (guint k = 0; k < G_N_ELEMENTS (stages); k++)
    g_string_append_printf (
        y, "  - src -> %s -> %s-out\n", stages[k][0], stages[k][0]);
  g_string_replace (y, "LAST", last, 0);
  return g_string_free (g_steal_pointer (&y), FALSE);
}

/* @expected (FRAMES frames of @n_per_frame elements) against rank @r's
 * file @name-r.raw */
static void
check_file (Fixture *f, const char *name, guint r, GByteArray *expected)
{
  g_autofree gchar *file = g_strdup_printf ("%s-%u.raw", name, r);
  gsize len;
  g_autofree gchar *got = world_read (f->dir, file, &len);

  g_test_message ("%s %s rank %u", f->dtype, name, r);
  g_assert_cmpmem (got, len, expected->data, expected->len);
}

static void
append (GByteArray *a, const char *dtype, double v)
{
  guint8 bytes[8];

  encode (dtype, v, bytes);
  g_byte_array_append (a, bytes, dtype_size (dtype));
}

static void
test_collectives (Fixture *f, gconstpointer data)
{
  const guint *world_p = data;
  g_autofree gchar *ranks = g_strdup_printf ("%u", *world_p);
  const char *args[] = { "--ranks", ranks, "collectives.yaml", NULL };
  static const struct
  {
    const char *name;
    Op op;
  } reductions[] = { { "sum", SUM }, { "prod", PROD }, { "min", MIN },
    { "max", MAX }, { "avg", AVG } };

  f->world = *world_p;
  if (!world_fits (f->world))
    return;
  for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
    {
      const char *dtype = f->dtype = dtypes[d];
      g_autofree gchar *yaml = collectives_yaml (dtype, f->world);
      g_auto (WorldRun) run = { 0 };
      guint part = N / f->world;

      world_write (f->dir, "collectives.yaml", yaml, strlen (yaml));
      for (guint r = 0; r < f->world; r++)
        {
          g_autoptr (GByteArray) in = g_byte_array_new ();
          g_autofree gchar *file = g_strdup_printf ("in-%u.raw", r);
          for (guint s = 0; s < FRAMES; s++)
            for (guint i = 0; i < N; i++)
              append (in, dtype, value (dtype, r, s, i));
          world_write (f->dir, file, in->data, in->len);
        }
      world_run (&run, f->dir, NULL, args);
      g_assert_cmpint (run.status, ==, 0);

      for (guint r = 0; r < f->world; r++)
        {
          g_autoptr (GByteArray) gather = g_byte_array_new ();
          g_autoptr (GByteArray) scatter = g_byte_array_new ();
          g_autoptr (GByteArray) scatter_max = g_byte_array_new ();
          g_autoptr (GByteArray) bcast = g_byte_array_new ();
          g_autoptr (GByteArray) red = g_byte_array_new ();

          for (guint k = 0; k < G_N_ELEMENTS (reductions); k++)
            {
              g_autoptr (GByteArray) e = g_byte_array_new ();
              for (guint s = 0; s < FRAMES; s++)
                for (guint i = 0; i < N; i++)
                  append (e, dtype,
                      reduce (dtype, reductions[k].op, f->world, s, i));
              check_file (f, reductions[k].name, r, e);
            }
          for (guint s = 0; s < FRAMES; s++)
            {
              for (guint q = 0; q < f->world; q++)
                for (guint i = 0; i < N; i++)
                  append (gather, dtype, value (dtype, q, s, i));
              for (guint i = r * part; i < (r + 1) * part; i++)
                {
                  append (scatter, dtype, reduce (dtype, SUM, f->world, s, i));
                  append (
                      scatter_max, dtype, reduce (dtype, MAX, f->world, s, i));
                }
              for (guint i = 0; i < N; i++)
                {
                  append (bcast, dtype, value (dtype, f->world - 1, s, i));
                  /* the root gets the reduction, the others keep theirs */
                  append (red, dtype,
                      r == 1 ? reduce (dtype, MIN, f->world, s, i)
                             : value (dtype, r, s, i));
                }
            }
          check_file (f, "gather", r, gather);
          check_file (f, "scatter", r, scatter);
          check_file (f, "scatter-max", r, scatter_max);
          check_file (f, "bcast", r, bcast);
          check_file (f, "reduce", r, red);
        }
    }
}

/* an average of values near a float type's largest, which their sum
 * exceeds: each is scaled by 1 / the world's size before the sum, as NCCL
 * does, where the host summed first and so gave infinity. Exact numbers:
 * the host and NCCL give the same bytes */
static void
test_avg_near_max (Fixture *f, gconstpointer data)
{
  static const char yaml_f[]
      = "pipeline: avg-near-max\n"
        "stages:\n"
        "  - {name: src, kind: io.raw-file-source, params: {location: "
        "'in-{rank}.raw', shape: '2', dtype: %s}}\n"
        "  - {name: avg, kind: nccl.all-reduce, params: {op: avg}}\n"
        "  - {name: avg-out, kind: io.raw-file-sink, params: {location: "
        "'avg-{rank}.raw'}}\n"
        "  - {name: reduce, kind: nccl.reduce, params: {op: avg, root: 1}}\n"
        "  - {name: reduce-out, kind: io.raw-file-sink, params: {location: "
        "'reduce-{rank}.raw'}}\n"
        "  - {name: scatter, kind: nccl.reduce-scatter, params: {op: avg}}\n"
        "  - {name: scatter-out, kind: io.raw-file-sink, params: {location: "
        "'scatter-{rank}.raw'}}\n"
        "links: [src -> avg -> avg-out, src -> reduce -> reduce-out, "
        "src -> scatter -> scatter-out]\n";
  /* rank 0's two elements, rank 1's, their average */
  static const struct
  {
    const char *dtype;
    double in[2][2], avg[2];
  } cases[] = {
    { "f16", { { 60000, 1 }, { 36000, 2 } }, { 48000, 1.5 } },
    { "f32", { { 0x1p127, 1 }, { 0x1.8p127, 2 } }, { 0x1.4p127, 1.5 } },
    { "bf16", { { 0x1p127, 1 }, { 0x1.8p127, 2 } }, { 0x1.4p127, 1.5 } },
  };
  const char *args[] = { "--ranks", "2", "avg.yaml", NULL };

  if (!world_fits (2))
    return;
  f->world = 2;
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree gchar *yaml = g_strdup_printf (yaml_f, cases[c].dtype);
      g_auto (WorldRun) run = { 0 };

      f->dtype = cases[c].dtype;
      world_write (f->dir, "avg.yaml", yaml, strlen (yaml));
      for (guint r = 0; r < 2; r++)
        {
          g_autoptr (GByteArray) in = g_byte_array_new ();
          g_autofree gchar *file = g_strdup_printf ("in-%u.raw", r);

          for (guint i = 0; i < 2; i++)
            append (in, f->dtype, cases[c].in[r][i]);
          world_write (f->dir, file, in->data, in->len);
        }
      world_run (&run, f->dir, NULL, args);
      g_assert_cmpint (run.status, ==, 0);
      for (guint r = 0; r < 2; r++)
        {
          g_autoptr (GByteArray) avg = g_byte_array_new ();
          g_autoptr (GByteArray) reduce = g_byte_array_new ();
          g_autoptr (GByteArray) scatter = g_byte_array_new ();

          for (guint i = 0; i < 2; i++)
            {
              append (avg, f->dtype, cases[c].avg[i]);
              /* the root gets the average, the other keeps its own */
              append (reduce, f->dtype,
                  r == 1 ? cases[c].avg[i] : cases[c].in[r][i]);
            }
          append (scatter, f->dtype, cases[c].avg[r]);
          check_file (f, "avg", r, avg);
          check_file (f, "reduce", r, reduce);
          check_file (f, "scatter", r, scatter);
        }
    }
}

/* a pipeline split over three ranks: rank 0 reads the frames and sends
 * them to rank 1, which scales them and sends them to rank 2, which writes
 * them; each receiver ends where its sender's stream ends */
#define RELAY_FRAMES 40

static void
test_send_recv (Fixture *f, gconstpointer data)
{
  const char yaml[]
      = "pipeline: relay\n"
        "stages:\n"
        "  - {name: src, kind: io.raw-file-source, ranks: [0], params: "
        "{location: in.raw, shape: \"4x3\", dtype: f32}}\n"
        "  - {name: to-1, kind: nccl.send, ranks: [0], params: {peer: 1}}\n"
        "  - {name: sent, kind: core.null-sink, ranks: [0]}\n"
        "  - {name: from-0, kind: nccl.recv, ranks: [1], params: {peer: 0, "
        "shape: \"4x3\", dtype: f32}}\n"
        "  - {name: twice, kind: core.scale, ranks: [1], params: {scale: "
        "2}}\n"
        "  - {name: to-2, kind: nccl.send, ranks: [1], params: {peer: 2}}\n"
        "  - {name: passed, kind: core.null-sink, ranks: [1]}\n"
        "  - {name: from-1, kind: nccl.recv, ranks: [2], params: {peer: 1, "
        "shape: \"4x3\", dtype: f32}}\n"
        "  - {name: out, kind: io.raw-file-sink, ranks: [2], params: "
        "{location: out.raw}}\n"
        "links:\n"
        "  - src -> to-1 -> sent\n"
        "  - from-0 -> twice -> to-2 -> passed\n"
        "  - from-1 -> out\n";
  gboolean kill = GPOINTER_TO_INT (data);
  /* the middle rank killed at frame 20: the relay rebuilt and resumed */
  const char *env[]
      = { "ACCEL_FAULT_RANK=1", "ACCEL_FAULT=twice:crash:20", NULL };
  const char *args[]
      = { "--ranks", "3", "--state-dir", "state", "relay.yaml", NULL };
  float in[RELAY_FRAMES * N], expected[RELAY_FRAMES * N];
  g_auto (WorldRun) run = { 0 };
  g_autofree gchar *got = NULL;
  gsize len;

  for (guint i = 0; i < RELAY_FRAMES * N; i++)
    {
      in[i] = (float)value ("f32", 0, i / N, i % N) + 0.25f * (float)(i % 64);
      expected[i] = 2.0f * in[i];
    }
  world_write (f->dir, "in.raw", in, sizeof in);
  world_write (f->dir, "relay.yaml", yaml, strlen (yaml));
  world_run (&run, f->dir, kill ? env : NULL, args);
  /* a rebuilt world delivered every frame once: said, status 4 */
  g_assert_cmpint (run.status, ==, kill ? 4 : 0);
  if (kill)
    world_assert_says (&run, "rebuilding the world as generation 2");
  got = world_read (f->dir, "out.raw", &len);
  g_assert_cmpmem (got, len, expected, sizeof expected);
}

/* data parallel: each rank blurs and edges its own frames, the ranks sum
 * their histograms, rank 0 writes the sums; the other ranks drop theirs
 * (a rank with no sink would end at once) */
#define WIDTH 64
#define HEIGHT 48
#define DP_FRAMES 12

static const char dp_yaml_format[]
    = "pipeline: histograms\n"
      "stages:\n"
      "  - {name: src, kind: io.raw-file-source, params: {location: "
      "\"frames-{rank}.raw\", format: RGBA8, width: 64, height: 48}}\n"
      "  - {name: blur, kind: realtime.gaussian-blur, params: {sigma: 1.5}}\n"
      "  - {name: edges, kind: realtime.sobel}\n"
      "  - {name: stats, kind: realtime.analysis}\n"
      "  - {name: total, kind: nccl.all-reduce, params: {op: sum}}\n"
      "  - {name: out, kind: io.raw-file-sink, ranks: [0], params: "
      "{location: \"histograms.raw\"}}\n"
      "  - {name: drop, kind: core.null-sink, ranks: [%s]}\n"
      "links:\n"
      "  - src -> blur -> edges -> stats\n"
      "  - stats.histogram -> total -> out\n"
      "  - total -> drop\n";

/* the same filters for one rank's frames, alone */
static const char alone_yaml[]
    = "pipeline: alone\n"
      "stages:\n"
      "  - {name: src, kind: io.raw-file-source, params: {format: RGBA8, "
      "width: 64, height: 48}}\n"
      "  - {name: blur, kind: realtime.gaussian-blur, params: {sigma: 1.5}}\n"
      "  - {name: edges, kind: realtime.sobel}\n"
      "  - {name: stats, kind: realtime.analysis}\n"
      "  - {name: out, kind: io.raw-file-sink}\n"
      "links:\n"
      "  - src -> blur -> edges -> stats\n"
      "  - stats.histogram -> out\n";

/* frames of noise, a share of them per rank; returns the histograms'
 * sums, from each rank's frames run alone */
static GByteArray *
data_parallel_setup (Fixture *f)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (15);
  GByteArray *sums = NULL;
  gsize frame = WIDTH * HEIGHT * 4;

  g_autoptr (GString) others = g_string_new (NULL);
  g_autofree gchar *dp_yaml = NULL;

  for (guint r = 1; r < f->world; r++)
    g_string_append_printf (others, "%s%u", r > 1 ? ", " : "", r);
  dp_yaml = g_strdup_printf (dp_yaml_format, others->str);
  world_write (f->dir, "histograms.yaml", dp_yaml, strlen (dp_yaml));
  world_write (f->dir, "alone.yaml", alone_yaml, strlen (alone_yaml));
  for (guint r = 0; r < f->world; r++)
    {
      g_autofree guint8 *frames = g_malloc (frame * DP_FRAMES);
      g_autofree gchar *name = g_strdup_printf ("frames-%u.raw", r);
      g_autofree gchar *src = g_strdup_printf ("src.location=%s", name);
      g_autofree gchar *hist = g_strdup_printf ("hist-%u.raw", r);
      g_autofree gchar *out = g_strdup_printf ("out.location=%s", hist);
      const char *args[] = { "--set", src, "--set", out, "alone.yaml", NULL };
      g_auto (WorldRun) run = { 0 };
      g_autofree guint32 *h = NULL;
      gsize len;

      for (gsize i = 0; i < frame * DP_FRAMES; i++)
        frames[i] = (guint8)g_rand_int_range (rand, 0, 256);
      world_write (f->dir, name, frames, frame * DP_FRAMES);
      world_run (&run, f->dir, NULL, args);
      g_assert_cmpint (run.status, ==, 0);
      h = (guint32 *)world_read (f->dir, hist, &len);
      g_assert_cmpuint (len, ==, DP_FRAMES * 5 * 256 * sizeof (guint32));
      if (!sums)
        sums = g_byte_array_append (g_byte_array_new (), (guint8 *)h, len);
      else
        for (gsize i = 0; i < len / 4; i++)
          ((guint32 *)sums->data)[i] += h[i];
    }
  return sums;
}

static void
test_data_parallel (Fixture *f, gconstpointer data)
{
  g_autofree gchar *ranks = NULL;
  g_autoptr (GByteArray) sums = NULL;
  g_auto (WorldRun) run = { 0 };
  g_autofree gchar *got = NULL;
  gsize len;

  f->world = *(const guint *)data;
  if (!world_fits (f->world))
    return;
  ranks = g_strdup_printf ("%u", f->world);
  sums = data_parallel_setup (f);
  {
    const char *args[] = { "--ranks", ranks, "histograms.yaml", NULL };
    world_run (&run, f->dir, NULL, args);
  }
  g_assert_cmpint (run.status, ==, 0);
  got = world_read (f->dir, "histograms.raw", &len);
  g_assert_cmpmem (got, len, sums->data, sums->len);
}

/* the data-parallel world of two ranks with the fault @env names, with a
 * state directory: it must end well, rebuilt (status 4: every frame, some
 * only after a retry), and write the sums of a run without the fault;
 * @run gets what it printed */
static void
run_faulted_world (Fixture *f, const char *const *env, WorldRun *run)
{
  const char *args[]
      = { "--ranks", "2", "--state-dir", "state", "histograms.yaml", NULL };
  g_autoptr (GByteArray) sums = NULL;
  g_autofree gchar *got = NULL;
  gsize len;

  f->world = 2;
  sums = data_parallel_setup (f);
  world_run (run, f->dir, env, args);
  g_assert_cmpint (run->status, ==, 4);
  world_assert_says (run, "every frame was delivered, some only after a "
                          "retry");
  got = world_read (f->dir, "histograms.raw", &len);
  g_assert_cmpmem (got, len, sums->data, sums->len);
}

/* rank 1 dies at frame 5: the world is rebuilt and resumes where rank 0's
 * sink committed; the sums equal a run without the fault */
static void
test_rank_killed (Fixture *f, gconstpointer data)
{
  const char *env[]
      = { "ACCEL_FAULT_RANK=1", "ACCEL_FAULT=blur:crash:5", NULL };
  g_auto (WorldRun) run = { 0 };

  run_faulted_world (f, env, &run);
  world_assert_says (&run, "rank 1 on ");
  world_assert_says (&run, "was killed by signal 9");
  world_assert_says (&run, "rebuilding the world as generation 2");
}

/* rank 0's all-reduce poisons its context at frame 4 (simulated on the
 * host: the status a GPU's illegal address gives): the world is rebuilt
 * with new communicators and the output equals a run without it */
static void
test_rank_poisoned (Fixture *f, gconstpointer data)
{
  const char *env[]
      = { "ACCEL_FAULT_RANK=0", "ACCEL_FAULT=total:illegal-address:4", NULL };
  g_auto (WorldRun) run = { 0 };

  run_faulted_world (f, env, &run);
  /* rank 1's all-reduce breaks when rank 0's communicator goes: both end
   * poisoned, and the supervisor names the one it sees end first */
  g_assert_true (
      strstr (run.err, "rank 0 on ") || strstr (run.err, "rank 1 on "));
  world_assert_says (&run, "was poisoned; rebuilding the world as "
                           "generation 2");
}

/* rank 1's all-reduce fails at frame 3 with a library error, which a stage
 * of its own would restart after: a collective cannot, its peers hold the
 * communicator, so the world is rebuilt, and the output equals a run
 * without the fault (a restart alone read its first start's store keys) */
static void
test_collective_not_restarted_alone (Fixture *f, gconstpointer data)
{
  const char *env[]
      = { "ACCEL_FAULT_RANK=1", "ACCEL_FAULT=total:library:3", NULL };
  g_auto (WorldRun) run = { 0 };

  run_faulted_world (f, env, &run);
  world_assert_says (&run, "a collective cannot restart alone");
  world_assert_says (&run, "rebuilding the world as generation 2");
}

/* ranks joined through --coordinator, each supervised on its own: rank 1
 * dies at frame 5 and is started again, rank 0's collective fails and it
 * is started again too, and the new generation resumes where rank 0's
 * sink committed */
static void
test_coordinator_rank_killed (Fixture *f, gconstpointer data)
{
  g_autofree gchar *addr
      = g_strdup_printf ("127.0.0.1:%u", world_free_ports (1));
  const char *env0[] = { "ACCEL_WORLD_TIMEOUT=20000", NULL };
  const char *env1[]
      = { "ACCEL_WORLD_TIMEOUT=20000", "ACCEL_FAULT=blur:crash:5", NULL };
  const char *args0[] = { "--coordinator", addr, "--rank", "0", "--world", "2",
    "--state-dir", "state", "histograms.yaml", NULL };
  const char *args1[] = { "--coordinator", addr, "--rank", "1", "--world", "2",
    "--state-dir", "state", "histograms.yaml", NULL };
  g_autoptr (GByteArray) sums = NULL;
  g_autoptr (GSubprocess) p0 = NULL;
  g_auto (WorldRun) r0 = { 0 }, r1 = { 0 };
  g_autofree gchar *got = NULL;
  gint64 t0;
  gsize len;

  f->world = 2;
  sums = data_parallel_setup (f);
  t0 = g_get_monotonic_time ();
  p0 = world_spawn (f->dir, env0, args0);
  world_run (&r1, f->dir, env1, args1);
  world_wait (p0, &r0, t0);
  /* each machine's supervisor started its worker again */
  g_assert_cmpint (r0.status, ==, 4);
  g_assert_cmpint (r1.status, ==, 4);
  world_assert_says (&r1, "killed by signal 9");
  world_assert_says (&r0, "the communicator is lost");
  got = world_read (f->dir, "histograms.raw", &len);
  g_assert_cmpmem (got, len, sums->data, sums->len);
}

/* ranks joined through --coordinator: rank 1 finishes, and its supervisor
 * leaves with it; rank 0 then dies after its last collective, and its
 * worker started again waits for a rank 1 that will never join. Its join
 * fails saying that rank 1 finished and left, where it said only that
 * rank 1 did not join in time */
static void
test_coordinator_rank_finished (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: tail\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, params: {shape: '16', "
        "num-buffers: 20}}\n"
        "  - {name: sum, kind: nccl.all-reduce}\n"
        "  - {name: after, kind: core.scale, params: {scale: 1}}\n"
        "  - {name: out, kind: core.checksum-sink, params: {location: "
        "\"sums-{rank}.txt\"}}\n"
        "links: [src -> sum -> after -> out]\n";
  g_autofree gchar *addr
      = g_strdup_printf ("127.0.0.1:%u", world_free_ports (1));
  const char *env0[] = { "ACCEL_WORLD_TIMEOUT=3000",
    "ACCEL_FAULT=after:hang:18,after:crash:19", NULL };
  const char *env1[] = { "ACCEL_WORLD_TIMEOUT=3000", NULL };
  const char *args0[] = { "--coordinator", addr, "--rank", "0", "--world", "2",
    "--state-dir", "state", "tail.yaml", NULL };
  const char *args1[] = { "--coordinator", addr, "--rank", "1", "--world", "2",
    "--state-dir", "state", "tail.yaml", NULL };
  g_autoptr (GSubprocess) p0 = NULL;
  g_auto (WorldRun) r0 = { 0 }, r1 = { 0 };
  gint64 t0;

  if (!world_fits (2))
    return;
  world_write (f->dir, "tail.yaml", yaml, strlen (yaml));
  t0 = g_get_monotonic_time ();
  p0 = world_spawn (f->dir, env0, args0);
  world_run (&r1, f->dir, env1, args1);
  world_wait (p0, &r0, t0);
  g_assert_cmpint (r1.status, ==, 0);
  g_assert_cmpint (r0.status, ==, 1);
  world_assert_says (&r0, "killed by signal 9");
  world_assert_says (&r0, "rank 1 of 2 did not join in time: rank 1 "
                          "finished its run in generation 1");
  world_assert_says (&r0, "run every rank again with its --state-dir");
  g_assert_cmpfloat (r0.seconds, <, 30.0);
}

/* rank 1 dies in every generation: past 3 rebuilds within the restart
 * window the run fails, naming the rank, this host and the fault. The
 * window is ten minutes, not the default 10 s: four generations of a
 * loaded machine may take longer than 10 s, and the window would then
 * forget the first rebuild and allow a fifth generation */
static void
test_rank_stays_gone (Fixture *f, gconstpointer data)
{
  const char *env[] = { "ACCEL_FAULT_RANK=1",
    "ACCEL_FAULT=blur:crash:2:1,blur:crash:2:2,blur:crash:2:3,"
    "blur:crash:2:4",
    "ACCEL_RESTART_INTENSITY=3/600000", NULL };
  const char *args[]
      = { "--ranks", "2", "--state-dir", "state", "histograms.yaml", NULL };
  g_autoptr (GByteArray) sums = NULL;
  g_autofree gchar *expected = g_strdup_printf (
      "rank 1 on %s was killed by signal 9 (Killed) in generation 4; the "
      "world was already rebuilt 3 times within 600000 ms, giving up",
      g_get_host_name ());
  g_auto (WorldRun) run = { 0 };

  f->world = 2;
  sums = data_parallel_setup (f);
  world_run (&run, f->dir, env, args);
  g_assert_cmpint (run.status, ==, 1);
  world_assert_says (&run, expected);
  g_assert_cmpfloat (run.seconds, <, 60.0);
}

/* a rank that skips a frame after a fault says so, naming itself, and the
 * world ends with status 3 once every rank has finished; not rebuilt */
static void
test_rank_skips_a_frame (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: skips\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, params: {shape: '16', "
        "num-buffers: 8}}\n"
        "  - {name: twice, kind: core.scale, params: {scale: 2}}\n"
        "  - {name: sink, kind: core.null-sink}\n"
        "links: [src -> twice -> sink]\n";
  const char *env[]
      = { "ACCEL_FAULT_RANK=1", "ACCEL_FAULT=twice:invalid-input:3", NULL };
  const char *args[] = { "--ranks", "2", "skips.yaml", NULL };
  g_auto (WorldRun) run = { 0 };

  world_write (f->dir, "skips.yaml", yaml, strlen (yaml));
  world_run (&run, f->dir, env, args);
  g_assert_cmpint (run.status, ==, 3);
  world_assert_says (
      &run, "rank 1: stage 'twice' (core.scale) skipped 1 frame after faults");
  world_assert_says (&run, "rank 1: the run ended without every "
                           "frame: 1 skipped, 0 lost");
  world_assert_silent_on (&run, "rank 0: stage");
  world_assert_silent_on (&run, "rebuilding the world");
}

/* a stateful stage on rank 1 only, and rank 1 killed before its first
 * checkpoint: rank 1 must start over from frame 0 while rank 0's sink had
 * committed frames, and each rank resumed where its own checkpoints said,
 * apart, in every generation until the run gave up. The ranks agree on
 * the frame their checkpoints allow, and the output is a clean run's */
static void
test_checkpoint_on_one_rank (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: asym\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, params: {format: RGBA8, "
        "width: 32, height: 16, num-buffers: 40}}\n"
        "  - {name: fx, kind: realtime.effects, ranks: [1], params: "
        "{effects: echo}}\n"
        "  - {name: pass, kind: core.scale, ranks: [0], params: {scale: 1}}\n"
        "  - {name: sum, kind: nccl.all-reduce, params: {op: max}}\n"
        "  - {name: out, kind: core.checksum-sink, params: {location: "
        "\"sums-{rank}.txt\"}}\n"
        "links: [src -> fx, src -> pass, fx -> sum, pass -> sum, sum -> "
        "out]\n";
  const char *env[]
      = { "ACCEL_FAULT_RANK=1", "ACCEL_FAULT=fx:crash:20:1", NULL };
  const char *args[] = { "--ranks", "2", "asym.yaml", NULL };
  const char *clean_args[] = { "--ranks", "2", "--set",
    "out.location=clean-{rank}.txt", "asym.yaml", NULL };
  g_auto (WorldRun) run = { 0 };
  g_auto (WorldRun) clean = { 0 };

  if (!world_fits (2))
    return;
  world_write (f->dir, "asym.yaml", yaml, strlen (yaml));
  world_run (&run, f->dir, env, args);
  g_assert_cmpint (run.status, ==, 4); /* rebuilt: every frame, after a retry */
  world_assert_says (&run, "rebuilding the world as generation 2");
  world_run (&clean, f->dir, NULL, clean_args);
  g_assert_cmpint (clean.status, ==, 0);
  for (guint r = 0; r < 2; r++)
    {
      g_autofree gchar *name = g_strdup_printf ("sums-%u.txt", r);
      g_autofree gchar *clean_name = g_strdup_printf ("clean-%u.txt", r);
      gsize len, clean_len;
      g_autofree gchar *got = world_read (f->dir, name, &len);
      g_autofree gchar *want = world_read (f->dir, clean_name, &clean_len);

      g_assert_cmpmem (got, len, want, clean_len);
    }
}

/* a state directory resumed by another number of ranks: the sums over 2
 * and 3 ranks were mixed in one file, exit 0; the world's size is in the
 * fingerprint, and the resume is refused */
static void
test_resume_other_world_size (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: sizes\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, params: {shape: '16', "
        "num-buffers: 4}}\n"
        "  - {name: sum, kind: nccl.all-reduce}\n"
        "  - {name: out, kind: core.checksum-sink, params: {location: "
        "\"sums-{rank}.txt\"}}\n"
        "links: [src -> sum -> out]\n";
  const char *two[]
      = { "--ranks", "2", "--state-dir", "state", "sizes.yaml", NULL };
  const char *three[]
      = { "--ranks", "3", "--state-dir", "state", "sizes.yaml", NULL };
  g_auto (WorldRun) first = { 0 };
  g_auto (WorldRun) second = { 0 };
  g_auto (WorldRun) again = { 0 };
  g_autofree gchar *rank2_print
      = g_build_filename (f->dir, "state", "rank-2", "fingerprint", NULL);

  if (!world_fits (3))
    return;
  world_write (f->dir, "sizes.yaml", yaml, strlen (yaml));
  world_run (&first, f->dir, NULL, two);
  g_assert_cmpint (first.status, ==, 0);
  world_run (&second, f->dir, NULL, three);
  g_assert_cmpint (second.status, ==, 2);
  world_assert_says (&second, "holds the state of another pipeline: the "
                              "world's number of ranks was 2, now 3");
  /* and the new rank is refused as they are, keeping no state of its own
   * beside theirs (it wrote a fingerprint of a world of 3) */
  world_assert_says (&second, "the state directory state holds the state "
                              "of a world of 2 ranks (rank-");
  g_assert_false (g_file_test (rank2_print, G_FILE_TEST_EXISTS));

  /* a state kept before the size was in the fingerprint resumes (kept
   * before its check line too) */
  for (guint r = 0; r < 2; r++)
    {
      g_autofree gchar *name = g_strdup_printf ("state/rank-%u/fingerprint", r);
      gsize len;
      g_autofree gchar *print = world_read (f->dir, name, &len);
      g_auto (GStrv) lines = g_strsplit (print, "\n", -1);
      g_autoptr (GString) old = g_string_new (NULL);

      for (guint i = 0; lines[i] && *lines[i]; i++)
        if (!g_str_has_prefix (lines[i], "world\t")
            && !g_str_has_prefix (lines[i], "# check "))
          g_string_append_printf (old, "%s\n", lines[i]);
      g_assert_cmpuint (old->len, <, len);
      world_write (f->dir, name, old->str, old->len);
    }
  world_run (&again, f->dir, NULL, two);
  g_assert_cmpint (again.status, ==, 0);
}

/* a rank that skips a frame before a collective: NCCL would pair the other
 * ranks' frame with its next one. The gap (frame 3) or the first frame that
 * differs (frame 0) fails as a lost communicator at once, and the rebuilt
 * world gives every frame, each reduced over the same frame of both ranks */
#define SKIP_FRAMES 8

static void
test_skip_before_collective (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: skip-before\n"
        "stages:\n"
        "  - {name: src, kind: io.raw-file-source, params: {location: "
        "\"in-{rank}.raw\", shape: \"4x3\", dtype: f32}}\n"
        "  - {name: twice, kind: core.scale, params: {scale: 2}}\n"
        "  - {name: sum, kind: nccl.all-reduce}\n"
        "  - {name: out, kind: io.raw-file-sink, params: {location: "
        "\"sum-{rank}.raw\"}}\n"
        "links: [src -> twice -> sum -> out]\n";
  guint skipped = GPOINTER_TO_UINT (data);
  g_autofree gchar *fault
      = g_strdup_printf ("ACCEL_FAULT=twice:invalid-input:%u", skipped);
  const char *env[]
      = { "ACCEL_FAULT_RANK=1", fault, "ACCEL_WORLD_TIMEOUT=40000", NULL };
  const char *args[] = { "--ranks", "2", "skip.yaml", NULL };
  float expected[SKIP_FRAMES * N];
  g_auto (WorldRun) run = { 0 };

  if (!world_fits (2))
    return;
  world_write (f->dir, "skip.yaml", yaml, strlen (yaml));
  for (guint r = 0; r < 2; r++)
    {
      float in[SKIP_FRAMES * N];
      g_autofree gchar *file = g_strdup_printf ("in-%u.raw", r);

      for (guint i = 0; i < SKIP_FRAMES * N; i++)
        in[i] = (float)value ("f32", r, i / N, i % N);
      world_write (f->dir, file, in, sizeof in);
    }
  for (guint i = 0; i < SKIP_FRAMES * N; i++)
    expected[i] = 2.0f * (float)reduce ("f32", SUM, 2, i / N, i % N);
  world_run (&run, f->dir, env, args);
  g_assert_cmpint (run.status, ==, 4); /* rebuilt: every frame, after a retry */
  if (skipped == 0)
    world_assert_says (&run, "stage 'sum' (nccl.all-reduce): its first "
                             "frame is 1 on rank 1 of the world, and from 0 "
                             "to 1 over the ranks");
  else
    world_assert_says (&run, "stage 'sum' (nccl.all-reduce): frame 3 did "
                             "not reach it on rank 1 of the world");
  world_assert_says (&run, "rebuilding the world as generation 2");
  /* at once, not after the world's timeout */
  g_assert_cmpfloat (run.seconds, <, 30.0);
  for (guint r = 0; r < 2; r++)
    {
      g_autofree gchar *file = g_strdup_printf ("sum-%u.raw", r);
      gsize len;
      g_autofree gchar *got = world_read (f->dir, file, &len);

      g_assert_cmpmem (got, len, expected, sizeof expected);
    }
}

/* a sender's rank skips frame 3: the receiver's frames keep the sender's
 * numbers (a gap, named on stderr), where they were shifted by one from
 * frame 3 on */
static void
test_send_skips_a_frame (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: send-skips\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, ranks: [0], params: "
        "{shape: '16', num-buffers: 8}}\n"
        "  - {name: twice, kind: core.scale, ranks: [0], params: {scale: "
        "2}}\n"
        "  - {name: tx, kind: nccl.send, ranks: [0], params: {peer: 1}}\n"
        "  - {name: sent, kind: core.checksum-sink, ranks: [0], params: "
        "{location: sent.txt}}\n"
        "  - {name: rx, kind: nccl.recv, ranks: [1], params: {peer: 0, "
        "shape: '16'}}\n"
        "  - {name: got, kind: core.checksum-sink, ranks: [1], params: "
        "{location: got.txt}}\n"
        "links: [src -> twice -> tx -> sent, rx -> got]\n";
  const char *env[]
      = { "ACCEL_FAULT_RANK=0", "ACCEL_FAULT=twice:invalid-input:3", NULL };
  const char *args[] = { "--ranks", "2", "send-skips.yaml", NULL };
  g_auto (WorldRun) run = { 0 };
  g_autofree gchar *sent = NULL, *got = NULL;
  gsize sent_len, got_len;

  if (!world_fits (2))
    return;
  world_write (f->dir, "send-skips.yaml", yaml, strlen (yaml));
  world_run (&run, f->dir, env, args);
  g_assert_cmpint (run.status, ==, 3);
  world_assert_says (&run, "rank 0: stage 'twice' (core.scale) skipped 1 "
                           "frame after faults");
  world_assert_says (&run, "stage 'rx' (nccl.recv): rank 0 skipped or "
                           "dropped frame 3 before sending; frame 4 "
                           "keeps its number");
  sent = world_read (f->dir, "sent.txt", &sent_len);
  got = world_read (f->dir, "got.txt", &got_len);
  g_assert_null (strstr (sent, "\n3 "));
  g_assert_nonnull (strstr (sent, "\n4 "));
  g_assert_cmpstr (got, ==, sent);
}

/* min and max leave a NaN out wherever it lies in the frame: rank 0 gives
 * NaN, rank 1 ones, and every element is 1 (by the order of its operands,
 * which the ring's chunks change, half the frame was NaN) */
#define NAN_N (1 << 20)
static void
test_min_max_nan (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: nan\n"
        "stages:\n"
        "  - {name: src, kind: io.raw-file-source, params: {location: "
        "\"in-{rank}.raw\", shape: \"1048576\", dtype: f32}}\n"
        "  - {name: least, kind: nccl.all-reduce, params: {op: min}}\n"
        "  - {name: most, kind: nccl.all-reduce, params: {op: max}}\n"
        "  - {name: mins, kind: io.raw-file-sink, params: {location: "
        "\"min-{rank}.raw\"}}\n"
        "  - {name: maxs, kind: io.raw-file-sink, params: {location: "
        "\"max-{rank}.raw\"}}\n"
        "links: [src -> least -> mins, src -> most -> maxs]\n";
  const char *args[] = { "--ranks", "2", "nan.yaml", NULL };
  g_autofree float *nan = g_new (float, NAN_N), *one = g_new (float, NAN_N);
  g_auto (WorldRun) run = { 0 };

  if (!world_fits (2))
    return;
  for (guint i = 0; i < NAN_N; i++)
    {
      nan[i] = NAN;
      one[i] = 1.0f;
    }
  world_write (f->dir, "nan.yaml", yaml, strlen (yaml));
  world_write (f->dir, "in-0.raw", nan, NAN_N * sizeof (float));
  world_write (f->dir, "in-1.raw", one, NAN_N * sizeof (float));
  world_run (&run, f->dir, NULL, args);
  g_assert_cmpint (run.status, ==, 0);
  for (guint r = 0; r < 2; r++)
    for (guint m = 0; m < 2; m++)
      {
        g_autofree gchar *name
            = g_strdup_printf ("%s-%u.raw", m ? "max" : "min", r);
        gsize len;
        g_autofree float *got = (float *)world_read (f->dir, name, &len);

        g_assert_cmpuint (len, ==, NAN_N * sizeof (float));
        for (guint i = 0; i < NAN_N; i++)
          if (got[i] != 1.0f)
            g_error ("%s: element %u is %g", name, i, got[i]);
      }
}

/* a fault escalated on one rank fails the world naming that rank, however
 * the ranks' ends are reaped: the other rank's communicator, broken by it,
 * was named when reaped first, the world rebuilt and the fault gone, with
 * status 0 (four runs of six) */
static void
test_escalated_named (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: escalated\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, params: {shape: '16', "
        "num-buffers: 10}}\n"
        "  - {name: sum, kind: nccl.all-reduce, params: {on-fault: "
        "escalate}}\n"
        "  - {name: out, kind: core.null-sink}\n"
        "links: [src -> sum -> out]\n";
  const char *env[]
      = { "ACCEL_FAULT_RANK=1", "ACCEL_FAULT=sum:invalid-input:3", NULL };
  const char *args[] = { "--ranks", "2", "escalated.yaml", NULL };

  if (!world_fits (2))
    return;
  world_write (f->dir, "escalated.yaml", yaml, strlen (yaml));
  for (guint i = 0; i < 4; i++)
    {
      g_auto (WorldRun) run = { 0 };

      world_run (&run, f->dir, env, args);
      g_assert_cmpint (run.status, ==, 1);
      world_assert_says (&run, "rank 1 on ");
      world_assert_silent_on (&run, "rebuilding the world");
    }
}

/* rank 1 ends its stream short (its 'pre' stops at frame 2), then fails of
 * its own a second later (a frame past its deadline, escalated), and takes
 * another second to stop (a frame of 'late' sleeps 2 s); rank 0 fails as
 * the consequence, as soon as rank 1 leaves the all-reduce. Both failures
 * were status 1: rank 0, reaped first, was named, and rank 1 ended by the
 * supervisor before it said why. Rank 0 now says that its failure is the
 * consequence of another rank's end, and rank 1 is named */
static void
test_own_failure_named (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: own-failure\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, params: {shape: '16', "
        "num-buffers: 10}}\n"
        "  - {name: pre, kind: core.scale, params: {on-fault: stop}}\n"
        "  - {name: sum, kind: nccl.all-reduce}\n"
        "  - {name: out, kind: core.null-sink}\n"
        "  - {name: slow, kind: core.scale, ranks: [1], params: {on-fault: "
        "escalate, deadline: 500}}\n"
        "  - {name: late, kind: core.scale, ranks: [1], params: {deadline: "
        "1000}}\n"
        "  - {name: slow-out, kind: core.null-sink, ranks: [1]}\n"
        "  - {name: late-out, kind: core.null-sink, ranks: [1]}\n"
        "links: [src -> pre -> sum -> out, src -> slow -> slow-out, "
        "src -> late -> late-out]\n";
  const char *env[] = { "ACCEL_FAULT_RANK=1",
    "ACCEL_FAULT=pre:invalid-input:2,slow:hang:0,late:hang:0", NULL };
  const char *args[] = { "--ranks", "2", "own-failure.yaml", NULL };

  if (!world_fits (2))
    return;
  world_write (f->dir, "own-failure.yaml", yaml, strlen (yaml));
  for (guint i = 0; i < 2; i++)
    {
      g_auto (WorldRun) run = { 0 };

      world_run (&run, f->dir, env, args);
      g_assert_cmpint (run.status, ==, 1);
      world_assert_says (&run, "rank 1 ended its stream at stage 'sum'");
      world_assert_says (&run, "stage 'slow' (core.scale): frame 0 took");
      world_assert_says (&run, "rank 1 on ");
      world_assert_silent_on (&run, "rank 0 on ");
      world_assert_silent_on (&run, "rebuilding the world");
    }
}

/* a sender with nothing linked after it sends every frame: it ended after
 * its first, its peer's stream with it, and the run exited 0 with one
 * frame of five */
static void
test_send_leaf (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: send-leaf\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, ranks: [0], params: "
        "{shape: '16', num-buffers: 5}}\n"
        "  - {name: tx, kind: nccl.send, ranks: [0], params: {peer: 1}}\n"
        "  - {name: sent, kind: core.checksum-sink, ranks: [0], params: "
        "{location: sent.txt}}\n"
        "  - {name: rx, kind: nccl.recv, ranks: [1], params: {peer: 0, "
        "shape: '16'}}\n"
        "  - {name: got, kind: core.checksum-sink, ranks: [1], params: "
        "{location: got.txt}}\n"
        "links: [src -> tx, src -> sent, rx -> got]\n";
  const char *args[] = { "--ranks", "2", "send-leaf.yaml", NULL };
  g_auto (WorldRun) run = { 0 };
  g_autofree gchar *sent = NULL, *got = NULL;
  gsize sent_len, got_len;

  if (!world_fits (2))
    return;
  world_write (f->dir, "send-leaf.yaml", yaml, strlen (yaml));
  world_run (&run, f->dir, NULL, args);
  g_assert_cmpint (run.status, ==, 0);
  world_assert_silent_on (&run, "dropped");
  sent = world_read (f->dir, "sent.txt", &sent_len);
  got = world_read (f->dir, "got.txt", &got_len);
  g_assert_nonnull (strstr (sent, "\n4 "));
  g_assert_cmpstr (got, ==, sent);
}

/* rank 0's stream ends two frames before rank 1's: rank 1's collective on
 * frame 6 fails saying so, with no rebuild (which would end the same way),
 * where it was a lost communicator rebuilt until the restart intensity */
static void
test_ranks_end_apart (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: ends-apart\n"
        "stages:\n"
        "  - {name: src, kind: io.raw-file-source, params: {location: "
        "\"in-{rank}.raw\", shape: \"4x3\", dtype: f32}}\n"
        "  - {name: sum, kind: nccl.all-reduce}\n"
        "  - {name: out, kind: core.null-sink}\n"
        "links: [src -> sum -> out]\n";
  const char *env[] = { "ACCEL_WORLD_TIMEOUT=40000", NULL };
  const char *args[] = { "--ranks", "2", "ends.yaml", NULL };
  float in[8 * N] = { 0 };
  g_auto (WorldRun) run = { 0 };

  if (!world_fits (2))
    return;
  world_write (f->dir, "ends.yaml", yaml, strlen (yaml));
  world_write (f->dir, "in-0.raw", in, 6 * N * sizeof (float));
  world_write (f->dir, "in-1.raw", in, sizeof in);
  world_run (&run, f->dir, env, args);
  g_assert_cmpint (run.status, ==, 1);
  world_assert_says (&run, "stage 'sum' (nccl.all-reduce): rank 0 ended its "
                           "stream at stage 'sum' before frame 6, which "
                           "this rank gave it");
  world_assert_silent_on (&run, "rebuilding the world");
  g_assert_cmpfloat (run.seconds, <, 30.0);
}

/* a receiver that takes 5 of the sender's 8 frames (its num-buffers): the
 * sender fails on frame 5 saying why, with no rebuild, and the receiver
 * wrote the frames it took */
static void
test_recv_takes_fewer (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: takes-fewer\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, ranks: [0], params: "
        "{shape: '16', num-buffers: 8}}\n"
        "  - {name: tx, kind: nccl.send, ranks: [0], params: {peer: 1}}\n"
        "  - {name: sent, kind: core.null-sink, ranks: [0]}\n"
        "  - {name: rx, kind: nccl.recv, ranks: [1], params: {peer: 0, "
        "shape: '16', num-buffers: 5}}\n"
        "  - {name: got, kind: core.checksum-sink, ranks: [1], params: "
        "{location: got.txt}}\n"
        "links: [src -> tx -> sent, rx -> got]\n";
  const char *env[] = { "ACCEL_WORLD_TIMEOUT=40000", NULL };
  const char *args[] = { "--ranks", "2", "fewer.yaml", NULL };
  g_auto (WorldRun) run = { 0 };
  g_autofree gchar *got = NULL;
  g_auto (GStrv) lines = NULL;
  gsize len;

  if (!world_fits (2))
    return;
  world_write (f->dir, "fewer.yaml", yaml, strlen (yaml));
  world_run (&run, f->dir, env, args);
  g_assert_cmpint (run.status, ==, 1);
  world_assert_says (&run, "stage 'tx' (nccl.send): rank 1 ended its stream "
                           "at stage 'rx' before frame 5, which this rank "
                           "gave it");
  world_assert_silent_on (&run, "rebuilding the world");
  g_assert_cmpfloat (run.seconds, <, 30.0);
  got = world_read (f->dir, "got.txt", &len);
  lines = g_strsplit (got, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 6);
  g_assert_true (g_str_has_prefix (lines[4], "4 "));
}

/* a sender with no frame at all: its receiver ends at once, and neither
 * takes the other's end for frames lost */
static void
test_send_nothing (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: send-nothing\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, ranks: [0], params: "
        "{shape: '16', num-buffers: 0}}\n"
        "  - {name: tx, kind: nccl.send, ranks: [0], params: {peer: 1}}\n"
        "  - {name: sent, kind: core.null-sink, ranks: [0]}\n"
        "  - {name: rx, kind: nccl.recv, ranks: [1], params: {peer: 0, "
        "shape: '16'}}\n"
        "  - {name: got, kind: core.null-sink, ranks: [1]}\n"
        "links: [src -> tx -> sent, rx -> got]\n";
  const char *args[] = { "--ranks", "2", "nothing.yaml", NULL };
  g_auto (WorldRun) run = { 0 };

  if (!world_fits (2))
    return;
  world_write (f->dir, "nothing.yaml", yaml, strlen (yaml));
  world_run (&run, f->dir, NULL, args);
  g_assert_cmpint (run.status, ==, 0);
  world_assert_silent_on (&run, "ended its stream");
}

/* --frames stops the sources that make frames: the receiver ends where
 * its sender's stream ends. Stopped at the limit itself, it closed before
 * the sender's end came, which failed the sender, every time */
static void
test_frame_limit_send_recv (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: frame-limit\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, ranks: [0], params: "
        "{shape: '16'}}\n"
        "  - {name: tx, kind: nccl.send, ranks: [0], params: {peer: 1}}\n"
        "  - {name: sent, kind: core.null-sink, ranks: [0]}\n"
        "  - {name: rx, kind: nccl.recv, ranks: [1], params: {peer: 0, "
        "shape: '16'}}\n"
        "  - {name: got, kind: io.raw-file-sink, ranks: [1], params: "
        "{location: got.raw}}\n"
        "links: [src -> tx -> sent, rx -> got]\n";
  const char *args[] = { "--ranks", "2", "--frames", "3", "limit.yaml", NULL };
  g_auto (WorldRun) run = { 0 };
  g_autofree gchar *got = NULL;
  gsize len = 0;

  if (!world_fits (2))
    return;
  world_write (f->dir, "limit.yaml", yaml, strlen (yaml));
  world_run (&run, f->dir, NULL, args);
  g_assert_cmpint (run.status, ==, 0);
  got = world_read (f->dir, "got.raw", &len);
  g_assert_cmpuint (len, ==, 3 * 16 * sizeof (float));
}

/* a round trip: rank 0 sends to rank 1, which doubles each frame and sends
 * it back, beside an all-reduce. Each rank's graph starts its pairs and its
 * collective in its own order, and each start waits for the peer: they
 * start at once, where they waited for each other until the world's
 * timeout and failed */
static void
test_round_trip (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: round-trip\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, ranks: [0], params: "
        "{shape: '16', num-buffers: 6}}\n"
        "  - {name: there, kind: nccl.send, ranks: [0], params: {peer: 1, "
        "group: there}}\n"
        "  - {name: sent, kind: core.checksum-sink, ranks: [0], params: "
        "{location: sent.txt}}\n"
        "  - {name: back, kind: nccl.recv, ranks: [0], params: {peer: 1, "
        "group: back, shape: '16'}}\n"
        "  - {name: came-back, kind: core.checksum-sink, ranks: [0], "
        "params: {location: back.txt}}\n"
        "  - {name: in, kind: nccl.recv, ranks: [1], params: {peer: 0, "
        "group: there, shape: '16'}}\n"
        "  - {name: twice, kind: core.scale, ranks: [1], params: {scale: "
        "2}}\n"
        "  - {name: out, kind: nccl.send, ranks: [1], params: {peer: 0, "
        "group: back}}\n"
        "  - {name: returned, kind: core.checksum-sink, ranks: [1], params: "
        "{location: returned.txt}}\n"
        "  - {name: ticks, kind: core.test-source, params: {shape: '4', "
        "num-buffers: 6}}\n"
        "  - {name: sum, kind: nccl.all-reduce}\n"
        "  - {name: summed, kind: core.null-sink}\n"
        "links: [src -> there -> sent, back -> came-back, in -> twice -> out "
        "-> returned, ticks -> sum -> summed]\n";
  const char *env[] = { "ACCEL_WORLD_TIMEOUT=40000", NULL };
  const char *args[] = { "--ranks", "2", "round-trip.yaml", NULL };
  g_auto (WorldRun) run = { 0 };
  g_autofree gchar *returned = NULL, *back = NULL;
  gsize len;

  if (!world_fits (2))
    return;
  world_write (f->dir, "round-trip.yaml", yaml, strlen (yaml));
  world_run (&run, f->dir, env, args);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpfloat (run.seconds, <, 30.0);
  returned = world_read (f->dir, "returned.txt", &len);
  back = world_read (f->dir, "back.txt", &len);
  g_assert_true (g_str_has_prefix (back, "0 "));
  g_assert_cmpstr (back, ==, returned);
}

int
main (int argc, char **argv)
{
  static const guint two = 2, four = 4;

  /* --backend=cuda: the same worlds through NCCL, a GPU per rank */
  for (int i = 1; i < argc; i++)
    if (g_str_equal (argv[i], "--backend=cuda"))
      {
        on_gpus = TRUE;
        world_backend = argv[i];
        memmove (argv + i, argv + i + 1, (argc - i) * sizeof *argv);
        argc--;
        break;
      }
  g_test_init (&argc, &argv, NULL);
  if (on_gpus
      && (accel_backend_get_default () != ACCEL_BACKEND_CUDA
          || accel_device_get_n_cuda () < 2))
    {
      g_print ("fewer than two GPUs: skipping\n");
      return 77;
    }
  /* a collective that cannot complete is found within this, and the
   * world rebuilt (see the watchdog in the nccl plugin) */
  if (on_gpus)
    g_setenv ("ACCEL_WORLD_TIMEOUT", "20000", FALSE);
#define ADD(path, data, fn)                                                    \
  g_test_add (path, Fixture, data, fixture_set_up, fn, fixture_tear_down)
  ADD ("/collectives/world-2", &two, test_collectives);
  ADD ("/collectives/world-4", &four, test_collectives);
  ADD ("/collectives/avg-near-max", NULL, test_avg_near_max);
  ADD ("/collectives/send-recv", GINT_TO_POINTER (FALSE), test_send_recv);
  ADD ("/collectives/send-recv-rank-killed", GINT_TO_POINTER (TRUE),
      test_send_recv);
  ADD ("/collectives/data-parallel-2", &two, test_data_parallel);
  ADD ("/collectives/data-parallel-4", &four, test_data_parallel);
  ADD ("/collectives/rank-killed", NULL, test_rank_killed);
  ADD ("/collectives/rank-poisoned", NULL, test_rank_poisoned);
  ADD ("/collectives/not-restarted-alone", NULL,
      test_collective_not_restarted_alone);
  ADD ("/collectives/coordinator-rank-killed", NULL,
      test_coordinator_rank_killed);
  ADD ("/collectives/coordinator-rank-finished", NULL,
      test_coordinator_rank_finished);
  ADD ("/collectives/rank-stays-gone", NULL, test_rank_stays_gone);
  ADD ("/collectives/rank-skips-a-frame", NULL, test_rank_skips_a_frame);
  ADD (
      "/collectives/checkpoint-on-one-rank", NULL, test_checkpoint_on_one_rank);
  ADD ("/collectives/resume-other-world-size", NULL,
      test_resume_other_world_size);
  ADD ("/collectives/skip-before-collective/first", GUINT_TO_POINTER (0),
      test_skip_before_collective);
  ADD ("/collectives/skip-before-collective/middle", GUINT_TO_POINTER (3),
      test_skip_before_collective);
  ADD ("/collectives/send-skips-a-frame", NULL, test_send_skips_a_frame);
  ADD ("/collectives/send-leaf", NULL, test_send_leaf);
  ADD ("/collectives/min-max-nan", NULL, test_min_max_nan);
  ADD ("/collectives/escalated-named", NULL, test_escalated_named);
  ADD ("/collectives/own-failure-named", NULL, test_own_failure_named);
  ADD ("/collectives/ranks-end-apart", NULL, test_ranks_end_apart);
  ADD ("/collectives/recv-takes-fewer", NULL, test_recv_takes_fewer);
  ADD ("/collectives/send-nothing", NULL, test_send_nothing);
  ADD ("/collectives/frame-limit-send-recv", NULL, test_frame_limit_send_recv);
  ADD ("/collectives/round-trip", NULL, test_round_trip);
  return g_test_run ();
}
