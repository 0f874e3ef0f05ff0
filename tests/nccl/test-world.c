/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* worlds of processes on the host backend: ranks scope stages and name
 * their files, and every way a world cannot form ends with a clear error
 * within a bound: a rank that never joins, a coordinator that is no
 * address or cannot be reached, ranks of worlds of other sizes, two
 * worlds on one port */
#include <accel/accel.h>

#include "world-test.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* short waits: a world that cannot form fails within seconds */
#define TIMEOUT_ENV "ACCEL_WORLD_TIMEOUT=3000"

/* each rank writes its own file; a stage of rank 0 only */
static const char scoped_yaml[]
    = "pipeline: scoped\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {shape: \"16\", "
      "num-buffers: 5}}\n"
      "  - {name: out, kind: io.raw-file-sink, params: {location: "
      "\"out-{rank}-of-{world}.raw\"}}\n"
      "  - {name: first, kind: io.raw-file-sink, ranks: [0], params: "
      "{location: \"first.raw\"}}\n"
      "links:\n"
      "  - src -> out\n"
      "  - src -> first\n";

/* a collective that waits for every rank, endless unless --frames */
static const char endless_yaml[]
    = "pipeline: endless\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {shape: \"16\"}}\n"
      "  - {name: sum, kind: nccl.all-reduce}\n"
      "  - {name: out, kind: core.null-sink}\n"
      "links:\n"
      "  - src -> sum -> out\n";

typedef struct
{
  gchar *dir;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  f->dir = g_dir_make_tmp ("accel-world-XXXXXX", NULL);
  g_assert_nonnull (f->dir);
  world_write (f->dir, "scoped.yaml", scoped_yaml, strlen (scoped_yaml));
  world_write (f->dir, "endless.yaml", endless_yaml, strlen (endless_yaml));
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  accel_test_remove_tree (f->dir);
  g_free (f->dir);
}

static void
test_ranks_scope_and_name (Fixture *f, gconstpointer data)
{
  const char *args[] = { "--ranks", "2", "scoped.yaml", NULL };
  g_auto (WorldRun) r = { 0 };
  g_autofree gchar *zero = NULL, *one = NULL, *first = NULL;
  g_autofree gchar *p = g_build_filename (f->dir, "out-2-of-2.raw", NULL);
  gsize n0, n1, nf;

  world_run (&r, f->dir, NULL, args);
  g_assert_cmpint (r.status, ==, 0);
  zero = world_read (f->dir, "out-0-of-2.raw", &n0);
  one = world_read (f->dir, "out-1-of-2.raw", &n1);
  first = world_read (f->dir, "first.raw", &nf);
  /* every rank ran the source; only rank 0 the stage scoped to it */
  g_assert_cmpuint (n0, ==, 5 * 16 * sizeof (float));
  g_assert_cmpmem (zero, n0, one, n1);
  g_assert_cmpmem (zero, n0, first, nf);
  g_assert_false (g_file_test (p, G_FILE_TEST_EXISTS));
}

static void
test_rank_out_of_world (Fixture *f, gconstpointer data)
{
  const char yaml[] = "pipeline: far\n"
                      "stages:\n"
                      "  - {name: src, kind: core.test-source, params: "
                      "{num-buffers: 1}}\n"
                      "  - {name: out, kind: core.null-sink, ranks: [0, 5]}\n"
                      "links: [src -> out]\n";
  const char *args[] = { "--ranks", "2", "far.yaml", NULL };
  g_auto (WorldRun) r = { 0 };

  world_write (f->dir, "far.yaml", yaml, strlen (yaml));
  world_run (&r, f->dir, NULL, args);
  g_assert_cmpint (r.status, !=, 0);
  world_assert_says (
      &r, "stage 'out' runs on rank 5, but the world has 2 ranks");
}

/* a rank whose stages' ranks leave it no sink would end at once and leave
 * the others waiting: refused, naming the rank */
static void
test_rank_without_sink (Fixture *f, gconstpointer data)
{
  const char yaml[] = "pipeline: sinkless\n"
                      "stages:\n"
                      "  - {name: src, kind: core.test-source, params: "
                      "{num-buffers: 3}}\n"
                      "  - {name: sum, kind: nccl.all-reduce}\n"
                      "  - {name: out, kind: core.null-sink, ranks: [0]}\n"
                      "links: [src -> sum -> out]\n";
  const char *env[] = { TIMEOUT_ENV, NULL };
  const char *args[] = { "--ranks", "2", "sinkless.yaml", NULL };
  g_auto (WorldRun) r = { 0 };

  world_write (f->dir, "sinkless.yaml", yaml, strlen (yaml));
  world_run (&r, f->dir, env, args);
  g_assert_cmpint (r.status, !=, 0);
  world_assert_says (&r, "rank 1 runs no sink");
  world_assert_says (&r, "rank 1 on ");
  g_assert_cmpfloat (r.seconds, <, 20.0);
}

/* a type a collective cannot take is named with the world's size, and a
 * send to its own rank is refused */
static void
test_collective_types (Fixture *f, gconstpointer data)
{
  const char odd[] = "pipeline: odd\n"
                     "stages:\n"
                     "  - {name: src, kind: core.test-source, params: "
                     "{shape: \"3x4\", num-buffers: 2}}\n"
                     "  - {name: part, kind: nccl.reduce-scatter}\n"
                     "  - {name: out, kind: core.null-sink}\n"
                     "links: [src -> part -> out]\n";
  const char self[] = "pipeline: self\n"
                      "stages:\n"
                      "  - {name: src, kind: core.test-source, params: "
                      "{num-buffers: 2}}\n"
                      "  - {name: tx, kind: nccl.send, params: {peer: 0}, "
                      "ranks: [0]}\n"
                      "  - {name: out, kind: core.null-sink}\n"
                      "links: [src -> tx -> out]\n";
  const char *env[] = { TIMEOUT_ENV, NULL };
  const char *odd_args[] = { "--ranks", "2", "odd.yaml", NULL };
  const char *self_args[] = { "--ranks", "1", "self.yaml", NULL };
  g_auto (WorldRun) a = { 0 }, b = { 0 };

  world_write (f->dir, "odd.yaml", odd, strlen (odd));
  world_write (f->dir, "self.yaml", self, strlen (self));
  world_run (&a, f->dir, env, odd_args);
  g_assert_cmpint (a.status, !=, 0);
  world_assert_says (&a, "stage 'part' (nccl.reduce-scatter) takes "
                         "a tensor whose outermost dimension the "
                         "world's 2 ranks divide, not ");
  world_run (&b, f->dir, env, self_args);
  g_assert_cmpint (b.status, !=, 0);
  world_assert_says (&b, "stage 'tx' (nccl.send): peer 0 is this rank itself");
}

static void
test_collective_needs_world (Fixture *f, gconstpointer data)
{
  /* refused as the file is loaded, at the stage, by --validate too (the
   * run failed as it started, with status 1 and no place in the file) */
  const char *run[] = { "--frames", "2", "endless.yaml", NULL };
  const char *validate[] = { "--validate", "endless.yaml", NULL };
  const char **args[] = { run, validate };

  for (guint i = 0; i < G_N_ELEMENTS (args); i++)
    {
      g_auto (WorldRun) r = { 0 };

      world_run (&r, f->dir, NULL, args[i]);
      g_assert_cmpint (r.status, ==, 2);
      world_assert_says (&r, "endless.yaml:4:12: stage 'sum' (nccl.all-reduce) "
                             "runs in a world of processes");
    }
}

/* a coordinator at an IPv6 address, unbracketed (the last colon starts
 * the port) and bracketed: the ranks reach it (the address was resolved
 * whole, and "::1:PORT" was no host). Skipped where the machine has no
 * IPv6 loopback */
static void
test_coordinator_ipv6 (Fixture *f, gconstpointer data)
{
  g_autoptr (GSocket) probe = g_socket_new (
      G_SOCKET_FAMILY_IPV6, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr (GInetAddress) loopback
      = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV6);
  g_autoptr (GSocketAddress) any = g_inet_socket_address_new (loopback, 0);

  if (!probe || !g_socket_bind (probe, any, TRUE, NULL))
    {
      g_test_skip ("this machine has no IPv6 loopback");
      return;
    }
  for (guint i = 0; i < 2; i++)
    {
      guint port = world_free_ports (1);
      g_autofree gchar *addr = i == 0 ? g_strdup_printf ("::1:%u", port)
                                      : g_strdup_printf ("[::1]:%u", port);
      const char *args[] = { "--coordinator", addr, "--rank", "0", "--world",
        "1", "--frames", "2", "endless.yaml", NULL };
      g_auto (WorldRun) r = { 0 };

      world_run (&r, f->dir, NULL, args);
      g_test_message ("%s: %s", addr, r.err);
      g_assert_cmpint (r.status, ==, 0);
    }
}

/* --validate with --ranks takes the file as each rank does: a stage on a
 * rank past the world, a rank without a sink (the file was "valid", and
 * the run refused it) */
static void
test_validate_world (Fixture *f, gconstpointer data)
{
  static const char pair[]
      = "pipeline: pair\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, ranks: [0], params: "
        "{shape: '16', num-buffers: 2}}\n"
        "  - {name: tx, kind: nccl.send, ranks: [0], params: {peer: 1}}\n"
        "  - {name: sent, kind: core.null-sink, ranks: [0]}\n"
        "  - {name: rx, kind: nccl.recv, ranks: [RX], params: {peer: 0, "
        "shape: '16'DTYPE}}\n"
        "  - {name: got, kind: core.null-sink, ranks: [SINK]}\n"
        "links: [src -> tx -> sent, rx -> got]\n";
  static const struct
  {
    const char *rx, *sink, *dtype;
    int status;
    const char *says;
  } cases[] = {
    { "1", "1", "", 0, NULL }, /* quiet: says nothing */
    { "3", "3", "", 2, "stage 'rx' runs on rank 3, but the world has 2 ranks" },
    /* rank 0 takes the receiver's sink, and rank 1's receiver has none */
    { "1", "0", "", 2, "input 'got.in' (core.null-sink) is not linked" },
    /* the word named, at its value (it was "not any", at the stage) */
    { "1", "1", ", dtype: f33", 2,
        "pair.yaml:6:83: stage 'rx' (nccl.recv): dtype 'f33' is not f32, f64, "
        "f16, bf16, i32, u32 or u8" },
  };
  const char *args[] = { "--ranks", "2", "--validate", "pair.yaml", NULL };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GString) yaml = g_string_new (pair);
      g_auto (WorldRun) r = { 0 };

      g_string_replace (yaml, "RX", cases[i].rx, 0);
      g_string_replace (yaml, "SINK", cases[i].sink, 0);
      g_string_replace (yaml, "DTYPE", cases[i].dtype, 0);
      world_write (f->dir, "pair.yaml", yaml->str, yaml->len);
      world_run (&r, f->dir, NULL, args);
      g_test_message ("case %u: %s%s", i, r.out, r.err);
      g_assert_cmpint (r.status, ==, cases[i].status);
      if (cases[i].says)
        world_assert_says (&r, cases[i].says);
    }
}

/* ... and a rank left without a sink: refused, as the run refuses it */
static void
test_validate_world_no_sink (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: no-sink\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, params: {shape: '16', "
        "num-buffers: 2}}\n"
        "  - {name: sum, kind: nccl.all-reduce}\n"
        "  - {name: out, kind: core.null-sink, ranks: [0]}\n"
        "links: [src -> sum -> out]\n";
  const char *args[] = { "--ranks", "2", "--validate", "sink.yaml", NULL };
  g_auto (WorldRun) r = { 0 };

  world_write (f->dir, "sink.yaml", yaml, strlen (yaml));
  world_run (&r, f->dir, NULL, args);
  g_assert_cmpint (r.status, ==, 2);
  world_assert_says (&r, "rank 1 runs no sink");
}

/* ... and a file that every rank would write: their frames interleaved in
 * it, exit 0; refused unless {rank} is in its name or one rank runs it */
/* a state directory is resumed by a run of its own shape: a process alone
 * in a world's directory started over beside the ranks' states and cut
 * rank 0's files (a world in one process's the same) */
static void
test_state_dir_shape (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: shape\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, params: {shape: '16', "
        "num-buffers: 4}}\n"
        "  - {name: out, kind: io.raw-file-sink, params: {location: "
        "'out-{rank}.raw'}}\n"
        "links: [src -> out]\n";
  const char *world[]
      = { "--ranks", "2", "--state-dir", "world-state", "shape.yaml", NULL };
  const char *alone[] = { "--state-dir", "world-state", "shape.yaml", NULL };
  const char *alone_over[]
      = { "--state-dir", "world-state", "--restart-state", "shape.yaml", NULL };
  const char *alone2[] = { "--state-dir", "alone-state", "shape.yaml", NULL };
  const char *world2[]
      = { "--ranks", "2", "--state-dir", "alone-state", "shape.yaml", NULL };
  g_auto (WorldRun) r1 = { 0 }, r2 = { 0 }, r3 = { 0 }, r4 = { 0 };
  g_auto (WorldRun) r5 = { 0 }, r6 = { 0 };
  const char *world_in_rank[] = { "--ranks", "2", "--state-dir",
    "world-state/rank-0", "shape.yaml", NULL };
  g_autofree gchar *out = NULL;
  gsize len = 0;

  world_write (f->dir, "shape.yaml", yaml, strlen (yaml));
  world_run (&r1, f->dir, NULL, world);
  g_assert_cmpint (r1.status, ==, 0);
  world_run (&r2, f->dir, NULL, alone);
  g_assert_cmpint (r2.status, ==, 2);
  world_assert_says (&r2, "the state directory world-state holds the state "
                          "of a world (rank-");
  out = world_read (f->dir, "out-0.raw", &len);
  g_assert_cmpuint (len, ==, 4 * 16 * sizeof (float));
  /* it discards its own state, not the world's: refused again */
  world_run (&r5, f->dir, NULL, alone_over);
  g_assert_cmpint (r5.status, ==, 2);
  world_assert_says (&r5, "holds the state of a world");

  world_run (&r3, f->dir, NULL, alone2);
  g_assert_cmpint (r3.status, ==, 0);
  world_run (&r4, f->dir, NULL, world2);
  g_assert_cmpint (r4.status, ==, 2);
  world_assert_says (&r4, "the state directory alone-state holds the state "
                          "of a run of one process");

  /* a rank's directory given to a world: said to be a rank's, where it
   * was said to be a run of one process's */
  world_run (&r6, f->dir, NULL, world_in_rank);
  g_assert_cmpint (r6.status, ==, 2);
  world_assert_says (&r6, "the state directory world-state/rank-0 holds the "
                          "state of rank 0 of a world: resume the world with "
                          "the directory above it");
}

/* a group the world's store cannot hold in its keys is refused at load,
 * naming the parameter: one with a space failed at start with the store's
 * key, after --validate had passed it */
static void
test_validate_group (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: group\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, params: {shape: '16', "
        "num-buffers: 2}}\n"
        "  - {name: sum, kind: nccl.all-reduce, params: {group: 'a b'}}\n"
        "  - {name: out, kind: core.null-sink}\n"
        "links: [src -> sum -> out]\n";
  const char *args[] = { "--ranks", "2", "--validate", "group.yaml", NULL };
  g_auto (WorldRun) r = { 0 };

  world_write (f->dir, "group.yaml", yaml, strlen (yaml));
  world_run (&r, f->dir, NULL, args);
  g_assert_cmpint (r.status, ==, 2);
  world_assert_says (&r, "stage 'sum' (nccl.all-reduce): parameter 'group' "
                         "must be a word of at most 128 bytes, with no '/', "
                         "space or control character");
}

static void
test_validate_world_shared_file (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: shared\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, params: {shape: '16', "
        "num-buffers: 2}}\n"
        "  - {name: sum, kind: nccl.all-reduce}\n"
        "  - {name: out, kind: io.raw-file-sink, params: {location: "
        "same.bin}}\n"
        "  - {name: one, kind: io.raw-file-sink, ranks: [0], params: "
        "{location: one.bin}}\n"
        "  - {name: twice, kind: io.raw-file-sink, ranks: [0, 0], params: "
        "{location: twice.bin}}\n"
        "  - {name: none, kind: core.checksum-sink, params: {location: "
        "''}}\n"
        "  - {name: pat, kind: io.pattern-source, params: {num-buffers: 2}}\n"
        "  - {name: pngs, kind: io.png-sink}\n"
        "links: [src -> sum -> out, sum -> one, sum -> twice, sum -> none, "
        "pat -> pngs]\n";
  const char *args[] = { "--ranks", "2", "--validate", "shared.yaml", NULL };
  const char *ranked[]
      = { "--ranks", "2", "--validate", "--set", "out.location=out-{rank}.bin",
          "--set", "pngs.location=f-{rank}-%05d.png", "shared.yaml", NULL };
  g_auto (WorldRun) r = { 0 };
  g_auto (WorldRun) ok = { 0 };

  world_write (f->dir, "shared.yaml", yaml, strlen (yaml));
  world_run (&r, f->dir, NULL, args);
  g_assert_cmpint (r.status, ==, 2);
  world_assert_says (&r, "shared.yaml:5:60: stage 'out' (io.raw-file-sink): "
                         "each of the 2 ranks that run it would write "
                         "same.bin; put {rank} in the file's name, or run it "
                         "on one rank (ranks: [0])");
  /* the stage's default location is one file for every rank too */
  world_assert_says (&r, "stage 'pngs' (io.png-sink): each of the 2 ranks "
                         "that run it would write frame-%05d.png");
  /* one rank (listed twice), and no file at all, are fine */
  world_assert_silent_on (&r, "stage 'one'");
  world_assert_silent_on (&r, "stage 'twice'");
  world_assert_silent_on (&r, "stage 'none'");
  world_run (&ok, f->dir, NULL, ranked);
  g_assert_cmpint (ok.status, ==, 0);
}

/* one stage's {rank} names that reach one file (a link to a directory, a
 * hard link): the ranks' frames mixed in it, with status 0, and
 * --validate said valid */
static void
test_ranked_names_one_file (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: ln\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, params: {shape: '16', "
        "num-buffers: 50}}\n"
        "  - {name: out, kind: io.raw-file-sink, params: {location: "
        "'d{rank}/o.raw'}}\n"
        "links: [src -> out]\n";
  const char *run[] = { "--ranks", "2", "ln.yaml", NULL };
  const char *validate[] = { "--ranks", "2", "--validate", "ln.yaml", NULL };
  const char *hard[] = { "--ranks", "2", "--set", "out.location=h{rank}.raw",
    "ln.yaml", NULL };
  g_autofree gchar *d0 = g_build_filename (f->dir, "d0", NULL);
  g_autofree gchar *d1 = g_build_filename (f->dir, "d1", NULL);
  g_autofree gchar *h0 = g_build_filename (f->dir, "h0.raw", NULL);
  g_autofree gchar *h1 = g_build_filename (f->dir, "h1.raw", NULL);
  g_autofree gchar *out = g_build_filename (d0, "o.raw", NULL);
  g_auto (WorldRun) r = { 0 };
  g_auto (WorldRun) v = { 0 };
  g_auto (WorldRun) h = { 0 };

  world_write (f->dir, "ln.yaml", yaml, strlen (yaml));
  g_assert_cmpint (g_mkdir (d0, 0755), ==, 0);
  g_assert_cmpint (symlink ("d0", d1), ==, 0);
  world_run (&r, f->dir, NULL, run);
  g_assert_cmpint (r.status, ==, 2);
  world_assert_says (&r, "ln.yaml:4:60: stage 'out' (io.raw-file-sink) "
                         "writes d0/o.raw on rank 0 and d1/o.raw on rank 1, "
                         "which are one file: their frames would mix in it");
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  world_run (&v, f->dir, NULL, validate);
  g_assert_cmpint (v.status, ==, 2);
  world_assert_says (&v, "which are one file");
  g_assert_true (g_file_set_contents (h0, "", 0, NULL));
  g_assert_cmpint (link (h0, h1), ==, 0);
  world_run (&h, f->dir, NULL, hard);
  g_assert_cmpint (h.status, ==, 2);
  world_assert_says (&h, "writes h0.raw on rank 0 and h1.raw on rank 1, "
                         "which are one file");
}

static void
test_rank_never_joins (Fixture *f, gconstpointer data)
{
  g_autofree gchar *addr
      = g_strdup_printf ("127.0.0.1:%u", world_free_ports (1));
  const char *env[] = { TIMEOUT_ENV, NULL };
  const char *args[] = { "--coordinator", addr, "--rank", "0", "--world", "3",
    "endless.yaml", NULL };
  g_auto (WorldRun) r = { 0 };

  world_run (&r, f->dir, env, args);
  g_assert_cmpint (r.status, !=, 0);
  world_assert_says (&r, "ranks 1, 2 of 3 did not join in time");
  g_assert_cmpfloat (r.seconds, <, 20.0);
}

static void
test_bad_coordinator (Fixture *f, gconstpointer data)
{
  const char *env[] = { TIMEOUT_ENV, NULL };
  const char *no_port[] = { "--coordinator", "localhost", "--rank", "1",
    "--world", "2", "endless.yaml", NULL };
  const char *big_port[] = { "--coordinator", "127.0.0.1:70000", "--rank", "1",
    "--world", "2", "endless.yaml", NULL };
  const char *rank_past[] = { "--coordinator", "127.0.0.1:4000", "--rank", "2",
    "--world", "2", "endless.yaml", NULL };
  const char *no_world[]
      = { "--coordinator", "127.0.0.1:4000", "endless.yaml", NULL };
  g_autofree gchar *addr
      = g_strdup_printf ("127.0.0.1:%u", world_free_ports (1));
  const char *nobody[] = { "--coordinator", addr, "--rank", "1", "--world", "2",
    "endless.yaml", NULL };
  g_auto (WorldRun) a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 }, e = { 0 };

  world_run (&a, f->dir, env, no_port);
  g_assert_cmpint (a.status, ==, 2);
  world_assert_says (&a, "must be HOST:PORT");
  world_run (&b, f->dir, env, big_port);
  g_assert_cmpint (b.status, ==, 2);
  world_assert_says (&b, "not '127.0.0.1:70000'");
  world_run (&c, f->dir, env, rank_past);
  g_assert_cmpint (c.status, ==, 2);
  world_assert_says (&c, "--rank must be below --world (2)");
  world_run (&d, f->dir, env, no_world);
  g_assert_cmpint (d.status, ==, 2);
  world_assert_says (&d, "--coordinator needs --rank R and --world");
  /* a coordinator nobody serves: refused until the world's timeout */
  world_run (&e, f->dir, env, nobody);
  g_test_message (
      "%s: exit %d after %.1f s: %s", addr, e.status, e.seconds, e.err);
  g_assert_cmpint (e.status, !=, 0);
  world_assert_says (&e, "cannot reach the world's coordinator at");
  g_assert_cmpfloat (e.seconds, <, 20.0);
}

/* a world's timeout that is no number of milliseconds is refused before
 * any rank starts, as ACCEL_RESTART_INTENSITY is; before, every rank and
 * the supervisor warned (ten times for two ranks) and waited the default
 * 60 s instead */
static void
test_bad_timeout (Fixture *f, gconstpointer data)
{
  const char *env[] = { "ACCEL_WORLD_TIMEOUT=5s", NULL };
  const char *args[]
      = { "--ranks", "2", "--frames", "2", "endless.yaml", NULL };
  const char *says = "ACCEL_WORLD_TIMEOUT must be milliseconds from 1 to "
                     "2147483647, not '5s'";
  g_auto (WorldRun) r = { 0 };

  world_run (&r, f->dir, env, args);
  g_assert_cmpint (r.status, ==, 2);
  world_assert_says (&r, says);
  g_assert_null (strstr (strstr (r.err, says) + 1, says));
}

static void
test_world_sizes_differ (Fixture *f, gconstpointer data)
{
  g_autofree gchar *addr
      = g_strdup_printf ("127.0.0.1:%u", world_free_ports (1));
  const char *env[] = { TIMEOUT_ENV, NULL };
  const char *zero[] = { "--coordinator", addr, "--rank", "0", "--world", "2",
    "endless.yaml", NULL };
  const char *one[] = { "--coordinator", addr, "--rank", "1", "--world", "3",
    "endless.yaml", NULL };
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (GSubprocess) p0 = world_spawn (f->dir, env, zero);
  g_auto (WorldRun) r0 = { 0 }, r1 = { 0 };

  world_run (&r1, f->dir, env, one);
  world_wait (p0, &r0, t0);
  g_assert_cmpint (r1.status, !=, 0);
  world_assert_says (&r1, "rank 1 was started for a world of 3 "
                          "ranks, the coordinator's world has 2");
  /* rank 0 waited for a rank 1 of its own size, in vain */
  g_assert_cmpint (r0.status, !=, 0);
  world_assert_says (&r0, "rank 1 of 2 did not join in time");
}

/* rank 1 of a world of two given a file that does not load (its own
 * machine's copy, say), or one its worker refuses as it starts (a rank
 * left without a sink), while rank 0 waits with a good one: rank 0 ends
 * at once, naming rank 1 and why, where it waited out the world's timeout
 * (here 60 s) and said that rank 1 did not join in time; the same with
 * rank 0's worker refusing and rank 1 waiting in its store */
static void
test_rank_refused (Fixture *f, gconstpointer data)
{
  const char *bad = data;
  gboolean zero_refuses = g_str_equal (bad, "no-sink-0.yaml");
  g_autofree gchar *addr
      = g_strdup_printf ("127.0.0.1:%u", world_free_ports (1));
  const char *env[] = { "ACCEL_WORLD_TIMEOUT=60000", NULL };
  const char *zero[] = { "--coordinator", addr, "--rank", "0", "--world", "2",
    zero_refuses ? bad : "endless.yaml", NULL };
  const char *one[] = { "--coordinator", addr, "--rank", "1", "--world", "2",
    zero_refuses ? "endless.yaml" : bad, NULL };
  const char *head = "pipeline: endless\n"
                     "stages:\n"
                     "  - {name: sum, kind: nccl.all-reduce}\n"
                     "  - {name: src, kind: core.test-source, params: ";
  g_autofree gchar *typo = g_strconcat (head,
      "{shape: \"16\", num-bufers: 3}}\n"
      "  - {name: out, kind: core.null-sink}\n"
      "links: [src -> sum -> out]\n",
      NULL);
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (GSubprocess) waiting = NULL;
  g_auto (WorldRun) told = { 0 }, refused = { 0 };

  world_write (f->dir, "typo.yaml", typo, strlen (typo));
  for (guint r = 0; r < 2; r++)
    {
      g_autofree gchar *name = g_strdup_printf ("no-sink-%u.yaml", r);
      g_autofree gchar *yaml = g_strdup_printf ("%s{shape: \"16\"}}\n"
                                                "  - {name: out, kind: "
                                                "core.null-sink, ranks: [%u]}\n"
                                                "links: [src -> sum -> out]\n",
          head, 1 - r);

      world_write (f->dir, name, yaml, strlen (yaml));
    }

  waiting = world_spawn (f->dir, env, zero_refuses ? one : zero);
  /* the waiting rank is in the store first (rank 1 retries until rank 0
   * serves it) */
  g_usleep (G_USEC_PER_SEC / 2);
  world_run (&refused, f->dir, env, zero_refuses ? zero : one);
  world_wait (waiting, &told, t0);
  g_test_message ("refused: exit %d: %s\ntold after %.1f s: exit %d: %s",
      refused.status, refused.err, told.seconds, told.status, told.err);
  g_assert_cmpint (refused.status, ==, 2);
  g_assert_cmpint (told.status, ==, 1);
  world_assert_says (&told, zero_refuses ? "rank 1 cannot join the world at "
                                         : "rank 0 cannot join the world at ");
  world_assert_says (&told, zero_refuses ? ": rank 0 on " : ": rank 1 on ");
  world_assert_says (&told, g_str_equal (bad, "typo.yaml")
                                ? " refused its pipeline: typo.yaml:4:"
                                : " refused its pipeline: its worker refused "
                                  "it as it started, with status 2");
  world_assert_silent_on (&told, "did not join in time");
  g_assert_cmpfloat (told.seconds, <, 30.0);
}

/* an endless collective, whose ranks write what they sum */
static const char flowing_yaml[]
    = "pipeline: flowing\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {shape: \"16\"}}\n"
      "  - {name: sum, kind: nccl.all-reduce}\n"
      "  - {name: out, kind: core.checksum-sink, params: {location: "
      "\"sums-{rank}.txt\"}}\n"
      "links: [src -> sum -> out]\n";

/* waits, up to 60 s from @t0, until rank 1 of flowing_yaml writes: its
 * world runs */
static void
wait_world_flows (Fixture *f, gint64 t0)
{
  g_autofree gchar *sums1 = g_build_filename (f->dir, "sums-1.txt", NULL);
  GStatBuf st = { 0 };

  while (!(g_stat (sums1, &st) == 0 && st.st_size > 0)
         && g_get_monotonic_time () - t0 < 60 * G_USEC_PER_SEC)
    g_usleep (10000);
  g_assert_cmpint (st.st_size, >, 0);
}

/* ACCEL_FAULT_RANK keeps ACCEL_FAULT to one rank under --coordinator too
 * (both ranks took it: only the supervisor of --ranks kept it to one),
 * and a value that names no rank is said (it fired nothing, silently) */
static void
test_fault_rank (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: fr\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, params: {shape: '16', "
        "num-buffers: 10}}\n"
        "  - {name: sum, kind: nccl.all-reduce}\n"
        "  - {name: out, kind: io.raw-file-sink, params: {location: "
        "'fr-{rank}.raw'}}\n"
        "links: [src -> sum -> out]\n";
  g_autofree gchar *addr
      = g_strdup_printf ("127.0.0.1:%u", world_free_ports (1));
  const char *env[]
      = { "ACCEL_FAULT=out:invalid-input:5", "ACCEL_FAULT_RANK=1", NULL };
  const char *bad_env[]
      = { "ACCEL_FAULT=out:invalid-input:5", "ACCEL_FAULT_RANK=abc", NULL };
  const char *rank0[] = { "--coordinator", addr, "--rank", "0", "--world", "2",
    "fr.yaml", NULL };
  const char *rank1[] = { "--coordinator", addr, "--rank", "1", "--world", "2",
    "fr.yaml", NULL };
  const char *ranks[] = { "--ranks", "2", "fr.yaml", NULL };
  gint64 t0 = g_get_monotonic_time ();
  GSubprocess *p0, *p1;
  g_auto (WorldRun) r0 = { 0 }, r1 = { 0 }, bad = { 0 };

  world_write (f->dir, "fr.yaml", yaml, strlen (yaml));
  p0 = world_spawn (f->dir, env, rank0);
  p1 = world_spawn (f->dir, env, rank1);
  world_wait (p0, &r0, t0);
  world_wait (p1, &r1, t0);
  g_assert_cmpint (r0.status, ==, 0);
  world_assert_silent_on (&r0, "injected");
  g_assert_cmpint (r1.status, ==, 3);
  world_assert_says (&r1, "frame 5 failed (injected invalid input)");

  world_run (&bad, f->dir, bad_env, ranks);
  g_assert_cmpint (bad.status, ==, 0);
  world_assert_says (&bad, "ACCEL_FAULT_RANK=abc is no rank of this world "
                           "of 2: ACCEL_FAULT fires nowhere");
}

/* @twice, a process given a rank another process holds, was refused at
 * once, naming both */
static void
assert_rank_taken (const WorldRun *twice)
{
  g_assert_cmpint (twice->status, ==, 1);
  world_assert_says (twice, "cannot join the world at");
  world_assert_says (twice, ": rank 1 is taken by process ");
  world_assert_says (twice, "was given rank 1 too: each process of a world "
                            "needs a --rank of its own");
  world_assert_silent_on (twice, "did not join in time");
  /* refused, not timed out (60 s) */
  g_assert_cmpfloat (twice->seconds, <, 30.0);
}

/* the world of @p0 and @p1, interrupted, ends in its first generation */
static void
end_world (GSubprocess *p0, GSubprocess *p1, gint64 t0)
{
  g_auto (WorldRun) r0 = { 0 }, r1 = { 0 };

  kill (atoi (g_subprocess_get_identifier (p0)), SIGTERM);
  kill (atoi (g_subprocess_get_identifier (p1)), SIGTERM);
  world_wait (p0, &r0, t0);
  world_wait (p1, &r1, t0);
  g_assert_true (r0.status == 0 || r0.status == 130);
  g_assert_true (r1.status == 0 || r1.status == 130);
  world_assert_silent_on (&r0, "generation");
  world_assert_silent_on (&r1, "generation");
}

/* two processes given --rank 1 (a launch script's slip), started before
 * rank 0 serves the store: the one that joins second is refused at once,
 * naming the rank and both processes (while the first's join waits for
 * rank 0, or once their world formed), and the world of the first runs.
 * Before, both waited as one rank started again, both joined, and the
 * second hung in its communicator for most of a minute, was taken for
 * poisoned, started again and began a generation that nobody joined,
 * ending after the world's timeout saying that rank 0 did not join */
static void
test_rank_given_twice (Fixture *f, gconstpointer data)
{
  g_autofree gchar *addr
      = g_strdup_printf ("127.0.0.1:%u", world_free_ports (1));
  const char *env[] = { "ACCEL_WORLD_TIMEOUT=60000", NULL };
  const char *zero[] = { "--coordinator", addr, "--rank", "0", "--world", "2",
    "flowing.yaml", NULL };
  const char *one[] = { "--coordinator", addr, "--rank", "1", "--world", "2",
    "flowing.yaml", NULL };
  g_autoptr (GSubprocess) p0 = NULL, a = NULL, b = NULL;
  g_auto (WorldRun) twice = { 0 };
  GSubprocess *refused = NULL;
  gint64 t0;

  world_write (f->dir, "flowing.yaml", flowing_yaml, strlen (flowing_yaml));
  t0 = g_get_monotonic_time ();
  a = world_spawn (f->dir, env, one);
  b = world_spawn (f->dir, env, one);
  g_usleep (G_USEC_PER_SEC);
  p0 = world_spawn (f->dir, env, zero);
  /* a process that ended has no identifier */
  while (!refused && g_get_monotonic_time () - t0 < 60 * G_USEC_PER_SEC)
    {
      refused = !g_subprocess_get_identifier (a)   ? a
                : !g_subprocess_get_identifier (b) ? b
                                                   : NULL;
      g_usleep (10000);
    }
  g_assert_nonnull (refused);
  world_wait (refused, &twice, t0);
  assert_rank_taken (&twice);

  wait_world_flows (f, t0);
  end_world (p0, refused == a ? b : a, t0);
}

/* two processes given --rank 1, the second started once the world of the
 * first formed and runs: it is refused at once, naming both, and the
 * world runs on in its first generation. Before, it was taken for rank 1
 * started again and began a second generation (which on GPUs has the
 * running ranks leave theirs), waited for it until the world's timeout
 * and ended saying that rank 0 did not join in time */
static void
test_rank_given_twice_running (Fixture *f, gconstpointer data)
{
  g_autofree gchar *addr
      = g_strdup_printf ("127.0.0.1:%u", world_free_ports (1));
  const char *env[] = { "ACCEL_WORLD_TIMEOUT=60000", NULL };
  const char *zero[] = { "--coordinator", addr, "--rank", "0", "--world", "2",
    "flowing.yaml", NULL };
  const char *one[] = { "--coordinator", addr, "--rank", "1", "--world", "2",
    "flowing.yaml", NULL };
  g_autoptr (GSubprocess) p0 = NULL, p1 = NULL;
  g_auto (WorldRun) twice = { 0 };
  gint64 t0;

  world_write (f->dir, "flowing.yaml", flowing_yaml, strlen (flowing_yaml));
  t0 = g_get_monotonic_time ();
  p0 = world_spawn (f->dir, env, zero);
  p1 = world_spawn (f->dir, env, one);
  wait_world_flows (f, t0);

  world_run (&twice, f->dir, env, one);
  assert_rank_taken (&twice);
  world_assert_says (&twice, "which joined generation 1 of the world and "
                             "still runs; process ");
  /* the world ran on */
  end_world (p0, p1, t0);
}

/* two processes given --rank 0: the second cannot serve the store, and
 * says that a rank 0 of this world may hold the port (it asked only
 * whether another world's did); a rank 0 on a machine that does not have
 * the coordinator's address is told that rank 0 runs there */
static void
test_rank_0_given_twice (Fixture *f, gconstpointer data)
{
  g_autofree gchar *addr
      = g_strdup_printf ("127.0.0.1:%u", world_free_ports (1));
  g_autofree gchar *nonlocal = NULL;
  const char *env[] = { "ACCEL_WORLD_TIMEOUT=6000", NULL };
  const char *zero[] = { "--coordinator", addr, "--rank", "0", "--world", "2",
    "endless.yaml", NULL };
  /* TEST-NET-1: no machine's own */
  const char *elsewhere[] = { "--coordinator", "192.0.2.1:29500", "--rank", "0",
    "--world", "2", "endless.yaml", NULL };
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (GSubprocess) p = world_spawn (f->dir, env, zero);
  g_auto (WorldRun) first = { 0 }, twice = { 0 }, away = { 0 };

  /* the first rank 0 serves the store by then */
  g_usleep (1500 * 1000);
  world_run (&twice, f->dir, env, zero);
  g_assert_cmpint (twice.status, !=, 0);
  world_assert_says (&twice, "cannot serve the world's store on");
  world_assert_says (&twice, "or another process of this world given "
                             "--rank 0?");
  g_assert_cmpfloat (twice.seconds, <, 5.0);
  world_wait (p, &first, t0);
  g_assert_cmpint (first.status, !=, 0);
  world_assert_says (&first, "rank 1 of 2 did not join in time");

  /* a machine may be set to bind addresses it does not have */
  g_file_get_contents (
      "/proc/sys/net/ipv4/ip_nonlocal_bind", &nonlocal, NULL, NULL);
  if (nonlocal && nonlocal[0] != '0')
    return;
  world_run (&away, f->dir, env, elsewhere);
  g_assert_cmpint (away.status, !=, 0);
  world_assert_says (&away, "that address is not one of this machine's: rank "
                            "0 serves the world's store, so it runs on the "
                            "coordinator's machine");
}

/* ranks that each load a file of their own (--coordinator, --rank,
 * --world), a sender's and a receiver's, run: the loader checks the
 * meetings across ranks only for --ranks N, whose ranks all load one file
 * (this world was refused at load, each file taken as every rank's) */
static void
test_ranks_own_files (Fixture *f, gconstpointer data)
{
  static const char sender[]
      = "pipeline: pair\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, params: {shape: '16', "
        "num-buffers: 3}}\n"
        "  - {name: tx, kind: nccl.send, params: {peer: 1}}\n"
        "  - {name: out, kind: core.null-sink}\n"
        "links: [src -> tx -> out]\n";
  static const char receiver[]
      = "pipeline: pair\n"
        "stages:\n"
        "  - {name: rx, kind: nccl.recv, params: {peer: 0, shape: '16'}}\n"
        "  - {name: out, kind: core.checksum-sink, params: {location: "
        "'got-{rank}.txt'}}\n"
        "links: [rx -> out]\n";
  g_autofree gchar *addr
      = g_strdup_printf ("127.0.0.1:%u", world_free_ports (1));
  const char *env[] = { TIMEOUT_ENV, NULL };
  const char *zero[] = { "--coordinator", addr, "--rank", "0", "--world", "2",
    "sender.yaml", NULL };
  const char *one[] = { "--coordinator", addr, "--rank", "1", "--world", "2",
    "receiver.yaml", NULL };
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (GSubprocess) p0 = NULL;
  g_auto (WorldRun) r0 = { 0 }, r1 = { 0 };
  g_autofree gchar *got = NULL;
  gsize n;

  world_write (f->dir, "sender.yaml", sender, strlen (sender));
  world_write (f->dir, "receiver.yaml", receiver, strlen (receiver));
  p0 = world_spawn (f->dir, env, zero);
  world_run (&r1, f->dir, env, one);
  world_wait (p0, &r0, t0);
  g_assert_cmpint (r0.status, ==, 0);
  g_assert_cmpint (r1.status, ==, 0);
  got = world_read (f->dir, "got-1.txt", &n);
  g_assert_cmpuint (n, >, 0);
}

/* whether something listens on 127.0.0.1:@port (a connection that says
 * nothing: the store drops it) */
static gboolean
world_listens (guint16 port)
{
  g_autoptr (GSocketClient) client = g_socket_client_new ();
  g_autoptr (GSocketConnection) c = NULL;

  g_socket_client_set_timeout (client, 1);
  c = g_socket_client_connect_to_host (client, "127.0.0.1", port, NULL, NULL);
  return c != NULL;
}

/* the first world holds the port: a second one cannot serve there, and a
 * rank of another pipeline cannot join the first. The first world's rank 0
 * waits for its rank 1 as long as a loaded machine needs (with a 6 s
 * timeout it could give up and free the port before the second world
 * tried it), and is then interrupted, as a user would */
static void
test_two_worlds_one_port (Fixture *f, gconstpointer data)
{
  guint16 port = world_free_ports (1);
  g_autofree gchar *addr = g_strdup_printf ("127.0.0.1:%u", port);
  g_autofree gchar *tmp = world_make_tmp (f->dir);
  const char *env[] = { TIMEOUT_ENV, NULL };
  const char *slow[] = { "ACCEL_WORLD_TIMEOUT=120000", NULL };
  const char *first[] = { "--coordinator", addr, "--rank", "0", "--world", "2",
    "endless.yaml", NULL };
  const char *second[]
      = { "--ranks", "2", "--coordinator", addr, "scoped.yaml", NULL };
  const char *stranger[] = { "--coordinator", addr, "--rank", "1", "--world",
    "2", "scoped.yaml", NULL };
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (GSubprocess) p = world_spawn_in (f->dir, tmp, TRUE, slow, first);
  g_auto (WorldRun) r = { 0 }, s = { 0 }, w = { 0 };

  /* its rank 0's supervisor serves the store */
  while (!world_listens (port)
         && g_get_monotonic_time () - t0 < 30 * G_USEC_PER_SEC)
    g_usleep (50 * 1000);
  g_assert_true (world_listens (port));
  world_run (&r, f->dir, env, second);
  g_assert_cmpint (r.status, !=, 0);
  world_assert_says (&r, "cannot serve the world's store on");
  world_assert_says (&r, "another world's coordinator");
  world_run (&s, f->dir, env, stranger);
  g_assert_cmpint (s.status, !=, 0);
  world_assert_says (&s, "rank 1 runs pipeline 'scoped', the "
                         "coordinator's world runs 'endless'");
  g_assert_cmpint (
      kill (-atoi (g_subprocess_get_identifier (p)), SIGINT), ==, 0);
  world_wait (p, &w, t0);
  g_assert_cmpint (w.status, ==, 130);
  world_assert_says (&w, "interrupt");
}

/* whether the @n ranks run by the supervisor whose TMPDIR is @tmp have
 * started their sinks: each keeps its commit log in its state directory */
static gboolean
world_ranks_running (const char *tmp, int n)
{
  g_autoptr (GDir) d = g_dir_open (tmp, 0, NULL);
  const char *state = NULL;

  while (d && (state = g_dir_read_name (d))
         && !g_str_has_prefix (state, "accel-run-"))
    ;
  for (int r = 0; state && r < n; r++)
    {
      g_autofree gchar *rank = g_strdup_printf ("rank-%d", r);
      g_autofree gchar *log
          = g_build_filename (tmp, state, rank, "out.commits", NULL);
      if (!g_file_test (log, G_FILE_TEST_EXISTS))
        return FALSE;
    }
  return state != NULL;
}

/* waits, up to 20 s from @t0, until world_ranks_running (): the world runs
 * (and its supervisor listens for Ctrl-C) */
static void
world_wait_ranks_running (const char *tmp, int n, gint64 t0)
{
  while (!(world_ranks_running (tmp, n)
           || g_get_monotonic_time () - t0 > 20 * G_USEC_PER_SEC))
    g_usleep (10000);
  g_assert_true (world_ranks_running (tmp, n));
}

/* Ctrl-C at a terminal reaches the whole job: the ranks finish their
 * frames in flight (or stop), the supervisor waits for them, does not
 * rebuild the world and removes its temporary state. An interrupt sent to
 * the supervisor alone is passed on to the ranks (it used to be noted and
 * the world left running); with the terminal's, a rank gets it twice and
 * takes it as one: it finishes its frames rather than stop or leave at
 * once */
static void
test_interrupt (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: interrupted\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, params: {shape: \"16\"}}\n"
        "  - {name: sum, kind: nccl.all-reduce}\n"
        "  - {name: out, kind: core.null-sink}\n"
        "  - {name: more, kind: core.test-source, ranks: [0], params: "
        "{shape: \"16\"}}\n"
        "  - {name: tx, kind: nccl.send, ranks: [0], params: {peer: 1}}\n"
        "  - {name: sent, kind: core.null-sink, ranks: [0]}\n"
        "  - {name: rx, kind: nccl.recv, ranks: [1], params: {peer: 0, "
        "shape: \"16\"}}\n"
        "  - {name: got, kind: core.null-sink, ranks: [1]}\n"
        "links: [src -> sum -> out, more -> tx -> sent, rx -> got]\n";
  gboolean alone = GPOINTER_TO_INT (data);
  const char *args[] = { "--ranks", "2", "interrupted.yaml", NULL };
  g_autofree gchar *tmp = world_make_tmp (f->dir);
  g_autoptr (GSubprocess) p = NULL;
  gint64 t0 = g_get_monotonic_time ();
  int pid;
  g_auto (WorldRun) r = { 0 };

  world_write (f->dir, "interrupted.yaml", yaml, strlen (yaml));
  p = world_spawn_in (f->dir, tmp, TRUE, NULL, args);
  pid = atoi (g_subprocess_get_identifier (p));

  world_wait_ranks_running (tmp, 2, t0);
  g_assert_cmpint (kill (alone ? pid : -pid, SIGINT), ==, 0);
  world_wait (p, &r, t0);
  /* each rank ends its streams where it is: a collective or a sender
   * may be left waiting for a rank that ended first (here as the graph
   * starts), and wait out the grace (130) */
  g_assert_true (r.status == 0 || r.status == 130);
  world_assert_says (&r, "interrupted");
  /* not as by a second interrupt: stopped at once only when the grace ran
   * out (a collective left waiting for a rank that ended first) */
  if (strstr (r.err, "stopped at once"))
    world_assert_says (&r, "did not finish within");
  world_assert_silent_on (&r, ": leaving");
  /* each rank's streams end where it is: no rank takes that for ranks
   * given different frames */
  world_assert_silent_on (&r, "every rank must give it the same frames");
  world_assert_silent_on (&r, "rebuilding the world");
  g_assert_cmpfloat (r.seconds, <, 20.0);
  world_assert_tmp_clean (tmp);
}

/* the lines of @name in @dir */
static guint
world_count_lines (const char *dir, const char *name)
{
  gsize len;
  g_autofree gchar *text = world_read (dir, name, &len);
  guint n = 0;

  for (gsize i = 0; i < len; i++)
    n += text[i] == '\n';
  return n;
}

/* an interrupt while frames flow: Ctrl-C or a service manager's SIGTERM
 * to the whole job, or SIGTERM to the supervisor alone. The ranks end
 * their streams where each is, a collective whose peer ended before its
 * frame ends there too, and the run ends with 0, every rank having
 * written the same frames. Before, that collective lost its communicator
 * (130); a SIGTERM killed the supervisor, its ranks stopped at once and
 * its temporary state stayed */
static void
test_interrupt_mid_stream (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: flowing\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, params: {shape: \"256\"}}\n"
        "  - {name: sum, kind: nccl.all-reduce}\n"
        "  - {name: out, kind: core.checksum-sink, params: {location: "
        "\"sums-{rank}.txt\"}}\n"
        "links: [src -> sum -> out]\n";
  int how = GPOINTER_TO_INT (data);
  const char *args[] = { "--ranks", "2", "flowing.yaml", NULL };
  g_autofree gchar *tmp = world_make_tmp (f->dir);
  g_autoptr (GSubprocess) p = NULL;
  gint64 t0 = g_get_monotonic_time ();
  g_auto (WorldRun) r = { 0 };
  int pid;

  world_write (f->dir, "flowing.yaml", yaml, strlen (yaml));
  p = world_spawn_in (f->dir, tmp, TRUE, NULL, args);
  pid = atoi (g_subprocess_get_identifier (p));
  world_wait_ranks_running (tmp, 2, t0);
  /* frames flow */
  g_usleep (G_USEC_PER_SEC);
  g_assert_cmpint (
      kill (how == 2 ? pid : -pid, how == 0 ? SIGINT : SIGTERM), ==, 0);
  world_wait (p, &r, t0);
  g_test_message ("status %d; stderr:\n%s", r.status, r.err);
  g_assert_cmpint (r.status, ==, 0);
  world_assert_silent_on (&r, "stopped at once");
  world_assert_silent_on (&r, "the communicator is lost");
  g_assert_cmpuint (world_count_lines (f->dir, "sums-0.txt"), >, 0);
  g_assert_cmpuint (world_count_lines (f->dir, "sums-0.txt"), ==,
      world_count_lines (f->dir, "sums-1.txt"));
  world_assert_tmp_clean (tmp);
}

/* the pid of @p's first child (a supervisor's first worker), waiting up
 * to 20 s for it */
static int
world_first_child (GSubprocess *p)
{
  g_autofree gchar *children_file
      = g_strdup_printf ("/proc/%s/task/%s/children",
          g_subprocess_get_identifier (p), g_subprocess_get_identifier (p));
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  int child = 0;

  while (child <= 0 && g_get_monotonic_time () < deadline)
    {
      g_autofree gchar *children = NULL;

      if (g_file_get_contents (children_file, &children, NULL, NULL))
        child = atoi (children);
      if (child <= 0)
        g_usleep (10000);
    }
  g_assert_cmpint (child, >, 0);
  return child;
}

/* whether @pid has ended (gone, or a zombie its new parent has not reaped
 * yet) */
static gboolean
process_ended (int pid)
{
  g_autofree gchar *path = g_strdup_printf ("/proc/%d/stat", pid);
  g_autofree gchar *stat = NULL;
  const char *paren;

  if (!g_file_get_contents (path, &stat, NULL, NULL))
    return TRUE;
  paren = strrchr (stat, ')');
  return paren && paren[1] == ' ' && paren[2] == 'Z';
}

/* a supervisor killed outright (SIGKILL, as the OOM killer sends it): its
 * worker finishes its frames as after one Ctrl-C, and a Ctrl-C after that
 * stops it at once (it was taken as the same interrupt, so the worker
 * waited out the grace for its frames, one of them hung here; stopping
 * waits for that stage too, up to 5 s, so the difference is what it says) */
static void
test_supervisor_gone_then_interrupt (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: hung\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, params: {shape: \"16\"}}\n"
        /* an injected hang lasts twice the deadline: 10 s */
        "  - {name: k, kind: core.scale, supervision: {deadline: 5000}}\n"
        "  - {name: out, kind: core.null-sink}\n"
        "links: [src -> k -> out]\n";
  g_autofree gchar *addr
      = g_strdup_printf ("127.0.0.1:%u", world_free_ports (1));
  const char *env[] = { "ACCEL_FAULT=k:hang:20", NULL };
  const char *args[] = { "--coordinator", addr, "--rank", "0", "--world", "1",
    "hung.yaml", NULL };
  g_autofree gchar *tmp = world_make_tmp (f->dir);
  g_autoptr (GSubprocess) p = NULL;
  g_autofree gchar *out = NULL, *err = NULL;
  gint64 t0;
  int worker;

  world_write (f->dir, "hung.yaml", yaml, strlen (yaml));
  p = world_spawn_in (f->dir, tmp, TRUE, env, args);
  worker = world_first_child (p);
  /* the worker runs, and hangs at frame 20 */
  g_usleep (1500 * G_TIME_SPAN_MILLISECOND);
  kill (atoi (g_subprocess_get_identifier (p)), SIGKILL);
  /* the worker told; finishing */
  g_usleep (500 * G_TIME_SPAN_MILLISECOND);
  g_assert_false (process_ended (worker));
  t0 = g_get_monotonic_time ();
  g_assert_cmpint (kill (worker, SIGINT), ==, 0);
  while (!process_ended (worker)
         && g_get_monotonic_time () - t0 < 10 * G_USEC_PER_SEC)
    g_usleep (10000);
  g_assert_true (process_ended (worker));
  /* what the worker said, on the pipe it shares with its supervisor */
  g_assert_true (
      g_subprocess_communicate_utf8 (p, NULL, NULL, &out, &err, NULL));
  g_test_message ("%s", err);
  g_assert_null (strstr (err, "the frames in flight did not finish within"));
}

/* an interrupt that reaches one rank alone (a signal to its pid): that
 * rank ends its stream, and the supervisor passes the interrupt on to the
 * other (whose collective, left waiting, may have failed already, saying
 * that rank alone was interrupted), with no rebuild (it was a lost
 * communicator, and the world was rebuilt). The run is named as stopped by
 * that rank's interrupt (130), not failed (1) */
static void
test_interrupt_one_rank (Fixture *f, gconstpointer data)
{
  const char *args[] = { "--ranks", "2", "endless.yaml", NULL };
  g_autofree gchar *tmp = world_make_tmp (f->dir);
  g_autoptr (GSubprocess) p = world_spawn_in (f->dir, tmp, TRUE, NULL, args);
  gint64 t0 = g_get_monotonic_time ();
  g_auto (WorldRun) r = { 0 };

  world_wait_ranks_running (tmp, 2, t0);
  g_assert_cmpint (kill (world_first_child (p), SIGINT), ==, 0);
  world_wait (p, &r, t0);
  g_assert_cmpint (r.status, ==, 130);
  world_assert_says (&r, "rank 0 on ");
  world_assert_says (&r, " was interrupted by a signal sent to its worker "
                         "alone: the other ranks were interrupted too");
  world_assert_silent_on (&r, "rebuilding the world");
  g_assert_cmpfloat (r.seconds, <, 20.0);
}

/* two stages that wait for their peers as they start, put on one thread:
 * they would start one after the other and could wait for each other's
 * peers until the timeout; refused as the file is loaded, at the first's
 * thread, --validate too (it said valid, and the run refused it as it
 * started, with no place in the file) */
static void
test_start_waits_share_thread (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: shared-thread\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, params: {shape: \"16\", "
        "num-buffers: 2}}\n"
        "  - {name: a, kind: nccl.all-reduce, params: {thread: comm}}\n"
        "  - {name: b, kind: nccl.all-reduce, params: {thread: comm}}\n"
        "  - {name: out, kind: core.null-sink}\n"
        "links: [src -> a -> b -> out]\n";
  const char *args[] = { "--ranks", "2", "shared.yaml", NULL };
  const char *validate[]
      = { "--ranks", "2", "--validate", "shared.yaml", NULL };
  g_auto (WorldRun) r = { 0 };
  g_auto (WorldRun) v = { 0 };

  world_write (f->dir, "shared.yaml", yaml, strlen (yaml));
  world_run (&r, f->dir, NULL, args);
  g_assert_cmpint (r.status, ==, 2);
  world_assert_says (&r, "shared.yaml:4:55: stages 'a' and 'b' both wait for "
                         "other processes as they start, and would share "
                         "thread 'comm'");
  world_run (&v, f->dir, NULL, validate);
  g_assert_cmpint (v.status, ==, 2);
  world_assert_says (&v, "shared.yaml:4:55: stages 'a' and 'b' both wait");
}

/* rank 0 starts a send to rank 1, whose graph (loaded from a file of its
 * own, under the coordinator) has no receiver and ends: Ctrl-C as rank 0
 * waits for it stops the start at once. It waited out the world's
 * timeout, then said that rank 1 did not reach the stage within it */
static void
test_interrupt_waiting_for_rank (Fixture *f, gconstpointer data)
{
  static const char sender[]
      = "pipeline: lone\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, params: {shape: \"16\"}}\n"
        "  - {name: tx, kind: nccl.send, params: {peer: 1}}\n"
        "  - {name: sent, kind: core.null-sink}\n"
        "links: [src -> tx -> sent]\n";
  static const char idle[]
      = "pipeline: lone\n"
        "stages:\n"
        "  - {name: idle, kind: core.test-source, params: {shape: \"16\", "
        "num-buffers: 1}}\n"
        "  - {name: gone, kind: core.null-sink}\n"
        "links: [idle -> gone]\n";
  g_autofree gchar *addr
      = g_strdup_printf ("127.0.0.1:%u", world_free_ports (1));
  const char *env[] = { "ACCEL_WORLD_TIMEOUT=60000", NULL };
  const char *zero[] = { "--coordinator", addr, "--rank", "0", "--world", "2",
    "sender.yaml", NULL };
  const char *one[] = { "--coordinator", addr, "--rank", "1", "--world", "2",
    "idle.yaml", NULL };
  g_autoptr (GSubprocess) p0 = NULL;
  g_auto (WorldRun) r0 = { 0 };
  g_auto (WorldRun) r1 = { 0 };
  gint64 t0, interrupted;

  world_write (f->dir, "sender.yaml", sender, strlen (sender));
  world_write (f->dir, "idle.yaml", idle, strlen (idle));
  t0 = g_get_monotonic_time ();
  p0 = world_spawn (f->dir, env, zero);
  world_run (&r1, f->dir, env, one);
  g_assert_cmpint (r1.status, ==, 0);
  /* rank 0 waits in its sender's start () by now */
  g_usleep (G_USEC_PER_SEC);
  interrupted = g_get_monotonic_time ();
  g_assert_cmpint (
      kill (atoi (g_subprocess_get_identifier (p0)), SIGINT), ==, 0);
  world_wait (p0, &r0, t0);
  g_assert_cmpint (r0.status, ==, 130);
  world_assert_says (&r0, "interrupted while the graph starts");
  world_assert_says (&r0, "stage 'tx' (nccl.send), waiting for rank 1: "
                          "interrupted while waiting for the world's "
                          "coordinator");
  world_assert_silent_on (&r0, "did not reach it");
  g_assert_cmpint (
      g_get_monotonic_time () - interrupted, <, 10 * G_USEC_PER_SEC);
}

/* --stats and --dot of a world: each rank's own file through {rank}; a
 * name all the ranks of --ranks would share is refused before any starts
 * (they used to replace each other's, leaving one rank's stats) */
static void
test_stats_per_rank (Fixture *f, gconstpointer data)
{
  const char *shared[]
      = { "--ranks", "2", "--stats=s.json", "endless.yaml", NULL };
  const char *mine[]
      = { "--ranks", "2", "--frames=5", "--stats=s-{rank}-of-{world}.json",
          "--dot=g-{rank}.dot", "endless.yaml", NULL };
  g_auto (WorldRun) r = { 0 };

  world_run (&r, f->dir, NULL, shared);
  g_assert_cmpint (r.status, ==, 2);
  world_assert_says (&r, "--stats s.json: each of the 2 ranks "
                         "would write it; put {rank} in the file's "
                         "name");
  world_run_clear (&r);

  world_run (&r, f->dir, NULL, mine);
  g_assert_cmpint (r.status, ==, 0);
  for (guint rank = 0; rank < 2; rank++)
    {
      g_autofree gchar *stats = g_strdup_printf ("s-%u-of-2.json", rank);
      g_autofree gchar *dot = g_strdup_printf ("g-%u.dot", rank);
      g_autofree gchar *text = world_read (f->dir, stats, NULL);
      g_autofree gchar *graph = world_read (f->dir, dot, NULL);

      g_assert_nonnull (strstr (text, "\"frames\": 5,"));
      g_assert_nonnull (strstr (graph, "digraph"));
    }
}

/* --http PORT in a world: rank r serves PORT + r (both ranks used to bind
 * PORT, and the second's failure ended the world) */
static void
test_http_per_rank (Fixture *f, gconstpointer data)
{
  guint16 port = world_free_ports (2);
  g_autofree gchar *http = NULL, *zero = NULL, *one = NULL;
  const char *args[]
      = { "--ranks", "2", "--frames=20", NULL, "endless.yaml", NULL };
  g_auto (WorldRun) r = { 0 };

  http = g_strdup_printf ("--http=%u", port);
  args[3] = http;
  world_run (&r, f->dir, NULL, args);
  if (strstr (r.err, "built without HTTP"))
    {
      g_test_skip ("accel-run was built without HTTP");
      return;
    }
  g_assert_cmpint (r.status, ==, 0);
  zero = g_strdup_printf ("rank 0 serving http://127.0.0.1:%u/", port);
  one = g_strdup_printf ("rank 1 serving http://127.0.0.1:%u/", port + 1);
  world_assert_says (&r, zero);
  world_assert_says (&r, one);
}

/* a world of 2 running @yaml (as @name) fails saying @message, without
 * rebuilding the world */
static void
assert_refused (
    Fixture *f, const char *name, const char *yaml, const char *message)
{
  const char *env[] = { TIMEOUT_ENV, NULL };
  const char *args[] = { "--ranks", "2", name, NULL };
  g_auto (WorldRun) r = { 0 };

  world_write (f->dir, name, yaml, strlen (yaml));
  world_run (&r, f->dir, env, args);
  g_assert_cmpint (r.status, !=, 0);
  world_assert_says (&r, message);
  world_assert_silent_on (&r, "rebuilding the world");
}

/* ranks that give a collective different types are told so before any
 * communicator is made, naming both ranks' types: no rebuild, no abort
 * inside Gloo (which it used to be, three times over) */
static void
test_collective_mismatch (Fixture *f, gconstpointer data)
{
  assert_refused (f, "sizes.yaml",
      "pipeline: sizes\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: "
      "{shape: \"1{rank}\", num-buffers: 2}}\n"
      "  - {name: sum, kind: nccl.all-reduce}\n"
      "  - {name: out, kind: core.null-sink}\n"
      "links: [src -> sum -> out]\n",
      "stage 'sum' (nccl.all-reduce): rank 0 gives it tensor<f32>[10]@device, "
      "rank 1 gives it tensor<f32>[11]@device: every rank must give a "
      "collective the same element type and size");
  assert_refused (f, "pair.yaml",
      "pipeline: pair\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, ranks: [0], "
      "params: {shape: \"16\", num-buffers: 2}}\n"
      "  - {name: tx, kind: nccl.send, ranks: [0], params: "
      "{peer: 1}}\n"
      "  - {name: rx, kind: nccl.recv, ranks: [1], params: "
      "{peer: 0, shape: \"8\", dtype: f32}}\n"
      "  - {name: out, kind: core.null-sink}\n"
      "links: [src -> tx -> out, rx -> out]\n",
      "stage 'rx' (nccl.recv): rank 0 gives it tensor<f32>[16]@device, rank 1 "
      "gives it tensor<f32>[8]@device");
  /* run differently: a sum on one rank and a max on the other wrote half
   * summed, half the max, with exit 0; roots that differ waited out the
   * timeout in every generation */
  assert_refused (f, "ops.yaml",
      "pipeline: ops\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: "
      "{shape: \"16\", num-buffers: 2}}\n"
      "  - {name: sum, kind: nccl.all-reduce, ranks: [0], params: {op: sum, "
      "group: g}}\n"
      "  - {name: max, kind: nccl.all-reduce, ranks: [1], params: {op: max, "
      "group: g}}\n"
      "  - {name: out, kind: core.null-sink}\n"
      "links: [src -> sum -> out, src -> max -> out]\n",
      "rank 0 runs it as nccl.all-reduce op sum, rank 1 as nccl.all-reduce "
      "op max: every rank must run a collective alike");
  assert_refused (f, "roots.yaml",
      "pipeline: roots\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: "
      "{shape: \"16\", num-buffers: 2}}\n"
      "  - {name: bc, kind: nccl.broadcast, params: {root: \"{rank}\"}}\n"
      "  - {name: out, kind: core.null-sink}\n"
      "links: [src -> bc -> out]\n",
      "stage 'bc' (nccl.broadcast): rank 0 runs it as nccl.broadcast root 0, "
      "rank 1 as nccl.broadcast root 1");
}

/* a root outside the world is refused at prepare, naming the world's ranks,
 * rather than fail every frame and have the world rebuilt */
static void
test_root_out_of_world (Fixture *f, gconstpointer data)
{
  assert_refused (f, "root.yaml",
      "pipeline: root\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: "
      "{shape: \"16\", num-buffers: 2}}\n"
      "  - {name: bc, kind: nccl.broadcast, params: {root: 5}}\n"
      "  - {name: out, kind: core.null-sink}\n"
      "links: [src -> bc -> out]\n",
      "stage 'bc' (nccl.broadcast): root 5 is not a rank of the world (0 to "
      "1)");
}

/* two pairs between the same two ranks, without groups of their own, are
 * refused: they would meet each other's peers and their streams cross */
static void
test_pairs_share_connection (Fixture *f, gconstpointer data)
{
  assert_refused (f, "pairs.yaml",
      "pipeline: pairs\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, ranks: [0], params: "
      "{shape: \"16\", num-buffers: 2}}\n"
      "  - {name: tx-a, kind: nccl.send, ranks: [0], params: {peer: 1}}\n"
      "  - {name: tx-b, kind: nccl.send, ranks: [0], params: {peer: 1}}\n"
      "  - {name: rx-b, kind: nccl.recv, ranks: [1], params: "
      "{peer: 0, shape: \"16\", dtype: f32}}\n"
      "  - {name: rx-a, kind: nccl.recv, ranks: [1], params: "
      "{peer: 0, shape: \"16\", dtype: f32}}\n"
      "  - {name: out-a, kind: core.null-sink}\n"
      "  - {name: out-b, kind: core.null-sink}\n"
      "links: [src -> tx-a -> out-a, src -> tx-b -> out-b, rx-a -> out-a, "
      "rx-b -> out-b]\n",
      "their frames would cross; give one of them a 'group' of its own");
}

/* an image gathered from every rank: the output holds each rank's bytes
 * (it was sized by pixels, a quarter of an RGBA8 image's bytes, and the
 * gather wrote past it) */
static void
test_all_gather_image (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: gather\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, params: "
        "{format: RGBA8, width: 64, height: 48, num-buffers: 3}}\n"
        "  - {name: all, kind: nccl.all-gather}\n"
        "  - {name: out, kind: io.raw-file-sink, params: "
        "{location: \"gathered-{rank}.raw\"}}\n"
        "  - {name: mine, kind: io.raw-file-sink, params: "
        "{location: \"mine-{rank}.raw\"}}\n"
        "links: [src -> all -> out, src -> mine]\n";
  const char *args[] = { "--ranks", "2", "gather.yaml", NULL };
  g_auto (WorldRun) r = { 0 };
  g_autofree gchar *gathered = NULL, *mine = NULL;
  gsize n, n_mine;
  const gsize image = 64 * 48 * 4;

  world_write (f->dir, "gather.yaml", yaml, strlen (yaml));
  world_run (&r, f->dir, NULL, args);
  g_assert_cmpint (r.status, ==, 0);
  gathered = world_read (f->dir, "gathered-1.raw", &n);
  mine = world_read (f->dir, "mine-1.raw", &n_mine);
  g_assert_cmpuint (n_mine, ==, 3 * image);
  g_assert_cmpuint (n, ==, 3 * 2 * image);
  /* every rank's test pattern is the same: both halves are its own */
  for (guint frame = 0; frame < 3; frame++)
    for (guint rank = 0; rank < 2; rank++)
      g_assert_cmpmem (gathered + (2 * frame + rank) * image, image,
          mine + frame * image, image);
}

/* a collective that some rank's graph leaves out is an error naming that
 * rank, once, as the file is loaded: it used to time out, count as a lost
 * communicator and have the world rebuilt for ever, a generation each
 * timeout; then it failed after the world's timeout */
static void
test_collective_left_out (Fixture *f, gconstpointer data)
{
  assert_refused (f, "partial.yaml",
      "pipeline: partial\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: "
      "{shape: \"16\", num-buffers: 2}}\n"
      "  - {name: sum, kind: nccl.all-reduce, ranks: [0]}\n"
      "  - {name: out, kind: core.null-sink, ranks: [0]}\n"
      "  - {name: other, kind: core.null-sink, ranks: [1]}\n"
      "links: [src -> sum -> out, src -> other]\n",
      "partial.yaml:4:12: stage 'sum' (nccl.all-reduce) on rank 0 meets rank "
      "1 in 'comm/sum' (nccl.all-reduce op sum), but no stage of rank 1 "
      "does");
}

/* a send and a receive that do not pair up (groups that differ, two
 * sends to each other, a peer outside the world) are refused as the file
 * is loaded, on every rank, naming both ends: the ranks waited for each
 * other until the world's timeout (60 s by default) */
static void
test_pairs_checked_at_load (Fixture *f, gconstpointer data)
{
  static const char head[] = "pipeline: pairs\n"
                             "stages:\n"
                             "  - {name: src, kind: core.test-source, params: "
                             "{shape: \"16\", num-buffers: 2}}\n";
  static const char tail[] = "  - {name: out, kind: core.null-sink}\n"
                             "links: [src -> tx -> out, rx -> out]\n";
  struct
  {
    const char *stages, *says, *silent;
  } cases[] = {
    { "  - {name: tx, kind: nccl.send, ranks: [0], params: {peer: 1, "
      "group: a}}\n"
      "  - {name: rx, kind: nccl.recv, ranks: [1], params: {peer: 0, "
      "shape: '16', group: b}}\n",
        "pairs.yaml:5:12: stage 'rx' (nccl.recv) on rank 1 meets rank 0 in "
        "'p2p/b/0-1' (frames from rank 0 to rank 1), but no stage of rank 0 "
        "does" },
    /* a peer read as each rank reads it: 2 is past the world */
    { "  - {name: tx, kind: nccl.send, params: {peer: \"{world}\"}}\n"
      "  - {name: rx, kind: nccl.recv, ranks: [1], params: {peer: 0, "
      "shape: '16', group: other}}\n",
        "on rank 0, stage 'tx' (nccl.send): peer 2 is not a rank of the "
        "world" },
    /* two sends to each other: no end receives */
    { "  - {name: tx, kind: nccl.send, ranks: [0], params: {peer: 1}}\n"
      "  - {name: rx, kind: nccl.send, ranks: [1], params: {peer: 0}}\n",
        "stage 'rx' (nccl.send): rank 0 runs it as frames from rank 0 to "
        "rank 1, rank 1 as frames from rank 1 to rank 0" },
    /* a peer that is no number: that alone, where it was read as 0 (a send
     * to itself, a receiver that met no one) */
    { "  - {name: tx, kind: nccl.send, ranks: [0], params: {peer: '1x'}}\n"
      "  - {name: rx, kind: nccl.recv, ranks: [1], params: {peer: 0, "
      "shape: '16'}}\n",
        "pairs.yaml:4:60: parameter 'peer' of stage 'tx' (nccl.send) must be "
        "an integer, not '1x'",
        "meets" },
    /* on a rank of its own: said here, where its worker alone said it */
    { "  - {name: tx, kind: nccl.send, ranks: [0], params: {peer: 1}}\n"
      "  - {name: rx, kind: nccl.recv, ranks: [1], params: {peer: one, "
      "shape: '16'}}\n",
        "pairs.yaml:5:60: on rank 1, parameter 'peer' of stage 'rx' "
        "(nccl.recv) must be an integer, not 'one'",
        "meets" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree gchar *yaml = g_strconcat (head, cases[i].stages, tail, NULL);
      const char *args[] = { "--ranks", "2", "--validate", "pairs.yaml", NULL };
      g_auto (WorldRun) r = { 0 };

      world_write (f->dir, "pairs.yaml", yaml, strlen (yaml));
      world_run (&r, f->dir, NULL, args);
      g_assert_cmpint (r.status, ==, 2);
      world_assert_says (&r, cases[i].says);
      if (cases[i].silent)
        world_assert_silent_on (&r, cases[i].silent);
    }
}

/* an input linked in the file from a stage its rank does not run: the
 * error says so, with the ranks (it said the input was not linked, of a
 * file that links it) */
static void
test_link_of_other_ranks (Fixture *f, gconstpointer data)
{
  static const char yaml[]
      = "pipeline: x3\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, ranks: [0, 2], params: "
        "{shape: '16', num-buffers: 3}}\n"
        "  - {name: sc, kind: core.scale, params: {scale: 2}}\n"
        "  - {name: out, kind: core.null-sink}\n"
        "links: [src -> sc -> out]\n";
  const char *args[] = { "--ranks", "3", "--validate", "x3.yaml", NULL };
  g_auto (WorldRun) r = { 0 };

  world_write (f->dir, "x3.yaml", yaml, strlen (yaml));
  world_run (&r, f->dir, NULL, args);
  g_assert_cmpint (r.status, ==, 2);
  world_assert_says (&r, "x3.yaml:4:12: input 'sc.in' (core.scale) is not "
                         "linked; on rank 1 its link from 'src' is not "
                         "wired: 'src' runs on ranks 0 and 2");
}

/* a world that fails in every generation before committing a frame, too
 * slowly for the restart intensity (here 3 within 1 ms), is given up on
 * once 4 generations in a row committed nothing; before, it was rebuilt for
 * ever (here until the faults ran out and the seventh generation finished) */
static void
test_gives_up_without_progress (Fixture *f, gconstpointer data)
{
  const char *env[] = { TIMEOUT_ENV, "ACCEL_RESTART_INTENSITY=3/1",
    "ACCEL_FAULT=sum:crash:0:1,sum:crash:0:2,sum:crash:0:3,sum:crash:0:4,"
    "sum:crash:0:5,sum:crash:0:6",
    NULL };
  const char *args[] = { "--ranks", "2", "--frames=5", "endless.yaml", NULL };
  g_auto (WorldRun) r = { 0 };

  world_run (&r, f->dir, env, args);
  g_assert_cmpint (r.status, ==, 1);
  world_assert_says (&r, "the last 4 generations ended before "
                         "committing a frame, giving up");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(path, fn)                                                          \
  g_test_add (path, Fixture, NULL, fixture_set_up, fn, fixture_tear_down)
  ADD ("/world/ranks-scope-and-name", test_ranks_scope_and_name);
  ADD ("/world/rank-out-of-world", test_rank_out_of_world);
  ADD ("/world/collective-needs-world", test_collective_needs_world);
  ADD ("/world/collective-types", test_collective_types);
  ADD ("/world/collective-mismatch", test_collective_mismatch);
  ADD ("/world/collective-left-out", test_collective_left_out);
  ADD ("/world/pairs-checked-at-load", test_pairs_checked_at_load);
  ADD ("/world/link-of-other-ranks", test_link_of_other_ranks);
  ADD ("/world/root-out-of-world", test_root_out_of_world);
  ADD ("/world/all-gather-image", test_all_gather_image);
  ADD ("/world/pairs-share-connection", test_pairs_share_connection);
  ADD ("/world/gives-up-without-progress", test_gives_up_without_progress);
  ADD ("/world/rank-without-sink", test_rank_without_sink);
  ADD ("/world/rank-never-joins", test_rank_never_joins);
  ADD ("/world/bad-coordinator", test_bad_coordinator);
  ADD ("/world/coordinator-ipv6", test_coordinator_ipv6);
  ADD ("/world/bad-timeout", test_bad_timeout);
  ADD ("/world/validate", test_validate_world);
  ADD ("/world/validate-no-sink", test_validate_world_no_sink);
  ADD ("/world/validate-shared-file", test_validate_world_shared_file);
  ADD ("/world/ranked-names-one-file", test_ranked_names_one_file);
  ADD ("/world/fault-rank", test_fault_rank);
  ADD ("/world/validate-group", test_validate_group);
  ADD ("/world/state-dir-shape", test_state_dir_shape);
  ADD ("/world/world-sizes-differ", test_world_sizes_differ);
  g_test_add ("/world/rank-refused/file", Fixture, "typo.yaml", fixture_set_up,
      test_rank_refused, fixture_tear_down);
  g_test_add ("/world/rank-refused/as-it-starts", Fixture, "no-sink-1.yaml",
      fixture_set_up, test_rank_refused, fixture_tear_down);
  g_test_add ("/world/rank-refused/rank-0", Fixture, "no-sink-0.yaml",
      fixture_set_up, test_rank_refused, fixture_tear_down);
  ADD ("/world/two-worlds-one-port", test_two_worlds_one_port);
  ADD ("/world/ranks-own-files", test_ranks_own_files);
  ADD ("/world/rank-given-twice", test_rank_given_twice);
  ADD ("/world/rank-given-twice-running", test_rank_given_twice_running);
  ADD ("/world/rank-0-given-twice", test_rank_0_given_twice);
  g_test_add ("/world/interrupt", Fixture, GINT_TO_POINTER (FALSE),
      fixture_set_up, test_interrupt, fixture_tear_down);
  ADD ("/world/interrupt-one-rank", test_interrupt_one_rank);
  ADD ("/world/supervisor-gone-then-interrupt",
      test_supervisor_gone_then_interrupt);
  g_test_add ("/world/interrupt-mid-stream/sigint", Fixture,
      GINT_TO_POINTER (0), fixture_set_up, test_interrupt_mid_stream,
      fixture_tear_down);
  g_test_add ("/world/interrupt-mid-stream/sigterm", Fixture,
      GINT_TO_POINTER (1), fixture_set_up, test_interrupt_mid_stream,
      fixture_tear_down);
  g_test_add ("/world/interrupt-mid-stream/sigterm-supervisor-alone", Fixture,
      GINT_TO_POINTER (2), fixture_set_up, test_interrupt_mid_stream,
      fixture_tear_down);
  ADD ("/world/start-waits-share-thread", test_start_waits_share_thread);
  ADD ("/world/interrupt-waiting-for-rank", test_interrupt_waiting_for_rank);
  g_test_add ("/world/interrupt-supervisor-alone", Fixture,
      GINT_TO_POINTER (TRUE), fixture_set_up, test_interrupt,
      fixture_tear_down);
  ADD ("/world/stats-per-rank", test_stats_per_rank);
  ADD ("/world/http-per-rank", test_http_per_rank);
  return g_test_run ();
}
