/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* a world of one rank on a GPU, through NCCL: every collective stage runs
 * on its stage's stream behind a slow writer (the source's fill waits
 * 2 ms on the GPU before it writes), so a collective that did not wait for
 * the writer's event would read the frame before it is written. With one
 * rank every collective gives back its input: each output must equal the
 * source's frames, as the host backend's (Gloo) run does where Gloo is
 * built; and again after a real illegal address poisoned the rank and the
 * world was rebuilt. Needs a GPU (exits 77 without one) */
#include "accel-test.h"
#include "world-test.h"
#include "core/pattern.h"

static const char yaml[]
    = "pipeline: one-rank\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {shape: \"256x64\", "
      "num-buffers: 20, spin-ns: 2000000}}\n"
      "  - {name: src-out, kind: io.raw-file-sink, params: {location: "
      "\"src-BACKEND.raw\"}}\n"
      "  - {name: sum, kind: nccl.all-reduce, params: {op: sum}}\n"
      "  - {name: avg, kind: nccl.all-reduce, params: {op: avg}}\n"
      "  - {name: gather, kind: nccl.all-gather}\n"
      "  - {name: scatter, kind: nccl.reduce-scatter, params: {op: max}}\n"
      "  - {name: bcast, kind: nccl.broadcast}\n"
      "  - {name: reduce, kind: nccl.reduce, params: {op: min}}\n"
      "  - {name: sum-out, kind: io.raw-file-sink, params: {location: "
      "\"sum-BACKEND.raw\"}}\n"
      "  - {name: avg-out, kind: io.raw-file-sink, params: {location: "
      "\"avg-BACKEND.raw\"}}\n"
      "  - {name: gather-out, kind: io.raw-file-sink, params: {location: "
      "\"gather-BACKEND.raw\"}}\n"
      "  - {name: scatter-out, kind: io.raw-file-sink, params: {location: "
      "\"scatter-BACKEND.raw\"}}\n"
      "  - {name: bcast-out, kind: io.raw-file-sink, params: {location: "
      "\"bcast-BACKEND.raw\"}}\n"
      "  - {name: reduce-out, kind: io.raw-file-sink, params: {location: "
      "\"reduce-BACKEND.raw\"}}\n"
      "links:\n"
      "  - src -> src-out\n"
      "  - src -> sum -> sum-out\n"
      "  - src -> avg -> avg-out\n"
      "  - src -> gather -> gather-out\n"
      "  - src -> scatter -> scatter-out\n"
      "  - src -> bcast -> bcast-out\n"
      "  - src -> reduce -> reduce-out\n";

static void
run_on_full (const char *dir, const char *backend, const char *const *env,
    const char *state_dir)
{
  g_autoptr (GString) y = g_string_new (yaml);
  g_autofree gchar *file = g_strdup_printf ("one-rank-%s.yaml", backend);
  g_autofree gchar *option = g_strdup_printf ("--backend=%s", backend);
  const char *args[] = { "--ranks", "1", file, NULL, NULL, NULL };
  g_auto (WorldRun) r = { 0 };

  if (state_dir)
    {
      args[3] = "--state-dir";
      args[4] = state_dir;
    }
  g_string_replace (y, "BACKEND", backend, 0);
  world_write (dir, file, y->str, y->len);
  world_backend = option;
  world_run (&r, dir, env, args);
  /* a rebuilt world delivered every frame: status 4, not 0 */
  g_assert_cmpint (r.status, ==, env ? 4 : 0);
  if (env)
    world_assert_says (&r, "rebuilding the world as generation 2");
}

static void
run_on (const char *dir, const char *backend)
{
  run_on_full (dir, backend, NULL, NULL);
}

/* every output of the run on @backend equals core.test-source's frames:
 * the collectives of one rank give back their input */
static void
check_outputs (const char *dir, const char *backend)
{
  static const char *const outputs[]
      = { "src", "sum", "avg", "gather", "scatter", "bcast", "reduce" };
  gsize frame = 256 * 64;
  g_autofree float *ref = g_new (float, 20 * frame);

  for (guint f = 0; f < 20; f++)
    accel_pattern_fill_f32_host (ref + f * frame, frame, f);
  for (guint i = 0; i < G_N_ELEMENTS (outputs); i++)
    {
      g_autofree gchar *name
          = g_strdup_printf ("%s-%s.raw", outputs[i], backend);
      gsize n;
      g_autofree gchar *got = world_read (dir, name, &n);

      g_test_message ("%s", name);
      g_assert_cmpmem (got, n, ref, 20 * frame * sizeof (float));
    }
}

static void
test_one_rank (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-nccl-gpu-XXXXXX", NULL);

  run_on (dir, "cuda");
  check_outputs (dir, "cuda");
#ifdef ACCEL_TEST_HAVE_GLOO
  run_on (dir, "host");
  check_outputs (dir, "host");
#endif
  accel_test_remove_tree (dir);
}

/* a real illegal address in the all-reduce's stream at frame 7 poisons the
 * rank's context: the world is rebuilt a generation later with a new NCCL
 * communicator and resumes; every output equals the run without it */
static void
test_one_rank_rebuilt (void)
{
  const char *env[] = { "ACCEL_FAULT=sum:illegal-address:7", NULL };
  g_autofree gchar *dir = NULL;

  if (accel_test_skip_under_sanitizer (ACCEL_TEST_FAULT_WHY))
    return;
  dir = g_dir_make_tmp ("accel-nccl-gpu-XXXXXX", NULL);
  run_on_full (dir, "cuda", env, "state");
  check_outputs (dir, "cuda");
  accel_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  accel_test_require_gpu ();
  g_test_add_func ("/nccl-gpu/one-rank-world", test_one_rank);
  g_test_add_func ("/nccl-gpu/one-rank-rebuilt", test_one_rank_rebuilt);
  return g_test_run ();
}
