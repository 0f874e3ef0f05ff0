/* the YAML loader: golden error messages for every class of mistake, and
 * what a good file builds */
#include "accel-test.h"

static gchar *
load_error (const char *name)
{
  g_autofree gchar *path
      = g_test_build_filename (G_TEST_DIST, "bad", name, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g
      = accel_graph_new_from_yaml_file (path, NULL, &error);
  const char *dist = g_test_get_dir (G_TEST_DIST);

  g_assert_null (g);
  g_assert_nonnull (error);
  /* messages relative to the test folder, so they read the same anywhere */
  if (g_str_has_prefix (error->message, dist))
    {
      g_autoptr (GString) s = g_string_new (error->message);
      g_autofree gchar *prefix = g_strdup_printf ("%s/", dist);
      g_string_replace (s, prefix, "", 0);
      return g_string_free (g_steal_pointer (&s), FALSE);
    }
  return g_strdup (error->message);
}

static void
test_unknown_key (void)
{
  g_autofree gchar *msg = load_error ("unknown-key.yaml");

  g_assert_cmpstr (msg, ==,
      "bad/unknown-key.yaml:1:1: the pipeline needs stages (stages: ...)\n"
      "bad/unknown-key.yaml:2:1: unknown key 'stagse' in the pipeline (did "
      "you mean 'stages'?); expected one of pipeline, device, defaults, "
      "stages, links");
}

static void
test_unknown_kind (void)
{
  g_autofree gchar *msg = load_error ("unknown-kind.yaml");

  g_assert_cmpstr (msg, ==,
      "bad/unknown-kind.yaml:3:23: unknown stage kind 'core.test-sourc' (did "
      "you mean 'core.test-source'?)");
}

/* all the problems of a file, in its order */
static void
test_bad_params (void)
{
  g_autofree gchar *msg = load_error ("bad-param.yaml");

  g_assert_cmpstr (msg, ==,
      "bad/bad-param.yaml:6:20: parameter 'num-buffers' of stage 'src' "
      "(core.test-source) must be an integer\n"
      "bad/bad-param.yaml:7:14: parameter 'width' of stage 'src' "
      "(core.test-source) is out of range: 0 is not in 1 .. 32767\n"
      "bad/bad-param.yaml:8:13: stage 'src' (core.test-source) has no "
      "parameter 'shpe' (did you mean 'shape'?)\n"
      "bad/bad-param.yaml:9:61: parameter 'completion' of stage 'sink' "
      "(core.null-sink) must be one of poll, hostfn, sync");
}

static void
test_bad_links (void)
{
  g_autofree gchar *msg = load_error ("bad-links.yaml");

  g_assert_cmpstr (msg, ==,
      "bad/bad-links.yaml:4:12: a stage named 'src' is already declared\n"
      "bad/bad-links.yaml:7:5: link to unknown stage 'snik' (did you mean "
      "'sink'?)\n"
      "bad/bad-links.yaml:8:5: stage 'src' (core.test-source) has no output "
      "port 'bogus'\n"
      "bad/bad-links.yaml:9:5: a link must read 'stage -> stage' or "
      "'stage.port -> stage.port', not 'src sink'");
}

static void
test_type_mismatch (void)
{
  g_autofree gchar *path
      = g_test_build_filename (G_TEST_DIST, "bad", "mismatch.yaml", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g
      = accel_graph_new_from_yaml_file (path, NULL, &error);
  g_autofree gchar *msg = load_error ("mismatch.yaml");

  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH);
  g_assert_cmpstr (msg, ==,
      "bad/mismatch.yaml:7:5: cannot link 'numbers.out' (core.test-source) "
      "to 'blur.in' (realtime.gaussian-blur): output type "
      "tensor<f32>[64]@device does not fit input type image<?>[?x?]@device: "
      "kind tensor is not image");
}

static void
test_cycle (void)
{
  g_autofree gchar *msg = load_error ("cycle.yaml");

  g_assert_cmpstr (
      msg, ==, "bad/cycle.yaml:7:5: graph 't' has a cycle through 'a', 'b'");
}

static void
test_malformed (void)
{
  g_autofree gchar *msg = load_error ("malformed.yaml");

  g_assert_cmpstr (msg, ==,
      "bad/malformed.yaml:4:6: did not find expected ',' or '}' while "
      "parsing a flow mapping");
}

static void
test_string_and_overrides (void)
{
  const char *yaml = "pipeline: mem\n"
                     "defaults: {mailbox: 2, streams: single}\n"
                     "stages:\n"
                     "  - {name: src, kind: core.test-source,\n"
                     "     params: {shape: 8x8, num-buffers: 3}}\n"
                     "  - {name: k, kind: core.scale, params: {scale: 2}}\n"
                     "  - {name: sink, kind: core.checksum-sink}\n"
                     "links: [src -> k, k.out -> sink.in]\n";
  const char *overrides[] = { "k.scale=0.5", "k.offset=-1", NULL };
  const char *bad[] = { "k.scael=1", "nope.scale=1", "k=1", NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = NULL;
  g_autoptr (AccelGraph) none = NULL;
  gfloat scale, offset;
  guint mailbox;

  g = accel_graph_new_from_yaml_string (yaml, "inline", overrides, &error);
  g_assert_no_error (error);
  g_object_get (accel_graph_get_stage (g, "k"), "scale", &scale, "offset",
      &offset, "mailbox-size", &mailbox, NULL);
  g_assert_cmpfloat (scale, ==, 0.5f);
  g_assert_cmpfloat (offset, ==, -1.0f);
  g_assert_cmpuint (mailbox, ==, 2);
  g_assert_true (accel_graph_run (g, &error));
  g_assert_cmpuint (accel_checksum_sink_get_n_received (ACCEL_CHECKSUM_SINK (
                        accel_graph_get_stage (g, "sink"))),
      ==, 3);

  none = accel_graph_new_from_yaml_string (yaml, "inline", bad, &error);
  g_assert_null (none);
  g_assert_cmpstr (error->message, ==,
      "--set k.scael=1: stage 'k' (core.scale) has no parameter 'scael' (did "
      "you mean 'scale'?)\n"
      "--set nope.scale=1: no stage named 'nope'\n"
      "--set k=1: expected stage.param=value");
}

static void
test_examples_load (void)
{
  g_autofree gchar *dir = g_test_build_filename (
      G_TEST_DIST, "..", "..", "pipelines", "examples", NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)))
    {
      g_autofree gchar *path = g_build_filename (dir, name, NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (AccelGraph) g = NULL;
      if (!g_str_has_suffix (name, ".yaml"))
        continue;
      g = accel_graph_new_from_yaml_file (path, NULL, &error);
      g_assert_no_error (error);
      n++;
    }
  g_assert_cmpuint (n, >, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/yaml/unknown-key", test_unknown_key);
  g_test_add_func ("/yaml/unknown-kind", test_unknown_kind);
  g_test_add_func ("/yaml/bad-params-all-reported", test_bad_params);
  g_test_add_func ("/yaml/bad-links", test_bad_links);
  g_test_add_func ("/yaml/type-mismatch", test_type_mismatch);
  g_test_add_func ("/yaml/cycle", test_cycle);
  g_test_add_func ("/yaml/malformed", test_malformed);
  g_test_add_func ("/yaml/string-and-overrides", test_string_and_overrides);
  g_test_add_func ("/yaml/examples-load", test_examples_load);
  return g_test_run ();
}
