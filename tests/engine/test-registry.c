/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the registry: kinds by name, suggestions, descriptions, plugin loading */
#include "accel-test.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <sys/resource.h>
#include <unistd.h>

static void
test_lookup_and_list (void)
{
  AccelRegistry *reg = accel_registry_get_default ();
  g_autoptr (GPtrArray) kinds = accel_registry_list_kinds (reg);
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelStage) stage = NULL;
  guint i;

  g_assert_cmpstr (g_type_name (accel_registry_lookup (reg, "core.scale")), ==,
      "AccelScale");
  g_assert_cmpuint (
      accel_registry_lookup (reg, "core.nope"), ==, G_TYPE_INVALID);
  g_assert_true (g_ptr_array_find_with_equal_func (
      kinds, "core.test-source", g_str_equal, &i));
  for (i = 1; i < kinds->len; i++)
    g_assert_cmpint (g_strcmp0 (kinds->pdata[i - 1], kinds->pdata[i]), <, 0);

  /* unnamed: the kind's own name, which links can address, numbered in
   * its graph: a graph built again names its stages as before (a state
   * directory's fingerprint holds them) */
  stage = accel_stage_new ("core.scale", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (accel_stage_get_name (stage), ==, "scale");
  for (guint run = 0; run < 2; run++)
    {
      g_autoptr (AccelGraph) graph = accel_graph_new ("numbered");

      for (guint i = 0; i < 2; i++)
        {
          g_autoptr (AccelStage) s = accel_stage_new ("core.scale", NULL, NULL);
          g_autofree gchar *want = g_strdup_printf ("scale%u", i);

          g_assert_true (accel_graph_add (graph, s, &error));
          g_assert_cmpstr (accel_stage_get_name (s), ==, want);
        }
    }
  g_assert_cmpstr (accel_stage_get_kind_name (stage), ==, "core.scale");
  g_assert_cmpint (
      accel_stage_get_stage_kind (stage), ==, ACCEL_STAGE_TRANSFORM);
}

static void
test_unknown_kind_suggests (void)
{
  g_autoptr (GError) error = NULL;

  g_assert_null (accel_stage_new ("core.scal", "x", &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (error->message, ==,
      "unknown stage kind 'core.scal' (did you mean 'core.scale'?)");
  g_clear_error (&error);

  g_assert_null (accel_stage_new ("zzzzzzzzzzzzzzzzzzzzzz", "x", &error));
  g_assert_cmpstr (
      error->message, ==, "unknown stage kind 'zzzzzzzzzzzzzzzzzzzzzz'");
}

static void
test_describe (void)
{
  AccelRegistry *reg = accel_registry_get_default ();
  g_autoptr (GError) error = NULL;
  g_autofree gchar *text = accel_registry_describe (reg, "core.scale", &error);

  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (text, "core.scale: Scale and offset"));
  g_assert_nonnull (strstr (text, "inputs:\n  in         any<?>[...]@device"));
  g_assert_nonnull (strstr (text, "  scale          float, default 1, range "));
  g_assert_nonnull (strstr (text, "  completion     enum, default poll, range "
                                  "poll | hostfn | sync"));

  /* the kind's own parameters before those of every stage */
  g_assert_cmpint (strstr (text, "  scale ") - text, <,
      strstr (text, "parameters of every stage:\n") - text);
  g_assert_cmpint (strstr (text, "parameters of every stage:\n") - text, <,
      strstr (text, "  completion ") - text);

  g_assert_null (accel_registry_describe (reg, "core.nope", &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_clear_error (&error);
  /* a typo gets the nearest kind */
  g_assert_null (accel_registry_describe (reg, "core.scael", &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_nonnull (strstr (error->message, "(did you mean 'core.scale'"));
  g_clear_error (&error);
  /* a kind without its plugin, as the YAML loader suggests it */
  g_assert_null (accel_registry_describe (reg, "scale", &error));
  g_assert_nonnull (strstr (error->message, "(did you mean 'core.scale'"));
  g_clear_error (&error);
  {
    /* far longer than any kind: no edit distances (minutes at 100 KB) */
    g_autofree gchar *huge = g_strnfill (100000, 'A');
    g_autoptr (GPtrArray) near = accel_registry_suggest (reg, huge);

    g_assert_cmpuint (near->len, ==, 0);
  }
}

static void
test_load_bad_plugin (void)
{
  AccelRegistry *reg = accel_registry_get_default ();
  g_autoptr (GError) error = NULL;

  g_assert_false (
      accel_registry_load_plugin (reg, "/nonexistent/libx.so", &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_NOT_SUPPORTED);
  g_assert_true (g_str_has_prefix (
      error->message, "cannot load plugin /nonexistent/libx.so: "));
}

/* a plugin that cannot be opened for want of descriptors is a failure,
 * said, not a library this host lacks: every kind was "unknown", the
 * cause a debug line */
static void
test_load_plugin_no_descriptors (void)
{
  g_autofree gchar *path = g_test_build_filename (
      G_TEST_BUILT, "libacceltestplugin." G_MODULE_SUFFIX, NULL);

  if (g_test_subprocess ())
    {
      AccelRegistry *reg = accel_registry_get_default ();
      g_autoptr (GError) error = NULL;
      g_autofree gchar *dir = g_dir_make_tmp ("accel-plugins-XXXXXX", NULL);
      g_autofree gchar *copy = g_build_filename (dir, "libaccelnofd.so", NULL);
      g_autofree gchar *contents = NULL;
      struct rlimit limit;
      gsize length;
      int lowest;

      g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
      g_assert_true (g_file_set_contents (copy, contents, length, NULL));
      /* no descriptor past those open */
      lowest = dup (0);
      g_assert_cmpint (lowest, >=, 0);
      close (lowest);
      g_assert_cmpint (getrlimit (RLIMIT_NOFILE, &limit), ==, 0);
      limit.rlim_cur = (rlim_t)lowest;
      g_assert_cmpint (setrlimit (RLIMIT_NOFILE, &limit), ==, 0);
      g_assert_false (accel_registry_load_plugin (reg, copy, &error));
      g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED);
      g_assert_nonnull (strstr (error->message, g_strerror (EMFILE)));
      g_assert_cmpint (g_remove (copy), ==, 0);
      g_assert_cmpint (g_rmdir (dir), ==, 0);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

static void
test_plugin_from_path (void)
{
  AccelRegistry *reg = accel_registry_get_default ();
  g_autoptr (GError) error = NULL;
  g_autofree gchar *path = g_test_build_filename (
      G_TEST_BUILT, "libacceltestplugin." G_MODULE_SUFFIX, NULL);
  /* a shared object that is no plugin: the engine library itself */
  g_autofree gchar *not_a_plugin = g_test_build_filename (G_TEST_BUILT, "..",
      "..", "engine", "libaccel-1.0." G_MODULE_SUFFIX, NULL);
  g_autoptr (AccelStage) echo = NULL;

  /* found through ACCEL_PLUGIN_PATH when the registry was made */
  g_assert_cmpuint (
      accel_registry_lookup (reg, "testplugin.echo"), !=, G_TYPE_INVALID);
  echo = accel_stage_new ("testplugin.echo", "e", &error);
  g_assert_no_error (error);
  g_assert_cmpint (accel_stage_get_stage_kind (echo), ==, ACCEL_STAGE_SINK);

  /* loading it again is harmless */
  g_assert_true (accel_registry_load_plugin (reg, path, &error));
  g_assert_no_error (error);

  /* a module without accel_plugin_register is refused */
  g_assert_false (accel_registry_load_plugin (reg, not_a_plugin, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "is not an accel plugin"));
}

/* a plugin whose registration fails after it registered a kind: the kind
 * is not kept (a stage of it ran the code of a module closed since:
 * SIGSEGV), and the module stays loaded for the type left in GLib's */
static void
test_plugin_fails (void)
{
  AccelRegistry *reg = accel_registry_get_default ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) kinds = accel_registry_list_kinds (reg);
  g_autofree gchar *path = g_test_build_filename (
      G_TEST_BUILT, "libacceltestfailing." G_MODULE_SUFFIX, NULL);
  g_autoptr (AccelStage) echo = NULL;

  /* tried when the registry was made, from ACCEL_PLUGIN_PATH */
  g_assert_cmpuint (
      accel_registry_lookup (reg, "testfailing.echo"), ==, G_TYPE_INVALID);
  for (guint i = 0; i < kinds->len; i++)
    g_assert_cmpstr (kinds->pdata[i], !=, "testfailing.echo");
  echo = accel_stage_new ("testfailing.echo", "e", &error);
  g_assert_null (echo);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  /* the kind's error says why its plugin is not loaded: it said only
   * "unknown stage kind" */
  g_assert_true (g_str_has_prefix (
      error->message, "unknown stage kind 'testfailing.echo': plugin "));
  g_assert_true (g_str_has_suffix (error->message,
      "libacceltestfailing.so not loaded: the library it needs is missing"));
  g_clear_error (&error);
  g_assert_false (accel_registry_load_plugin (reg, path, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED);
  g_assert_cmpstr (error->message, ==, "the library it needs is missing");
}

/* a plugin file cut short (a copy that did not finish) or no shared object
 * at all is refused before it is opened: the first died of SIGBUS inside
 * dlopen (). A copy of a plugin loaded already, under another name, is
 * not loaded again: its types were registered again, a GLib critical each */
static void
test_plugin_files_checked (void)
{
  AccelRegistry *reg = accel_registry_get_default ();
  g_autoptr (GError) error = NULL;
  g_autofree gchar *path = g_test_build_filename (
      G_TEST_BUILT, "libacceltestplugin." G_MODULE_SUFFIX, NULL);
  g_autofree gchar *dir = g_dir_make_tmp ("accel-plugins-XXXXXX", NULL);
  g_autofree gchar *cut = g_build_filename (dir, "libaccelcut.so", NULL);
  g_autofree gchar *text = g_build_filename (dir, "libacceltext.so", NULL);
  g_autofree gchar *copy = g_build_filename (dir, "libaccelcopy.so", NULL);
  g_autofree gchar *contents = NULL;
  g_autoptr (GPtrArray) before = accel_registry_list_kinds (reg);
  g_autoptr (GPtrArray) after = NULL;
  gsize length;

  g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
  g_assert_cmpuint (length, >, 4096);
  g_assert_true (g_file_set_contents (cut, contents, 1024, NULL));
  g_assert_true (g_file_set_contents (text, "not a plugin\n", -1, NULL));
  g_assert_true (g_file_set_contents (copy, contents, length, NULL));

  g_assert_false (accel_registry_load_plugin (reg, cut, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "is cut short: a segment ends"));
  g_clear_error (&error);
  g_assert_false (accel_registry_load_plugin (reg, text, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "is not a shared object"));
  g_clear_error (&error);

  g_test_expect_message ("accel-registry", G_LOG_LEVEL_MESSAGE,
      "plugin *libaccelcopy.so is a copy of *libacceltestplugin.so, which "
      "is loaded already: not loaded again");
  g_assert_true (accel_registry_load_plugin (reg, copy, &error));
  g_assert_no_error (error);
  g_test_assert_expected_messages ();
  after = accel_registry_list_kinds (reg);
  g_assert_cmpuint (after->len, ==, before->len);

  accel_test_remove_tree (dir);
}

/* a stage type that takes another's kind name, and one whose ports are
 * misnamed */
G_DECLARE_FINAL_TYPE (TestImpostor, test_impostor, TEST, IMPOSTOR, AccelStage)

struct _TestImpostor
{
  AccelStage parent;
};
G_DEFINE_FINAL_TYPE (TestImpostor, test_impostor, ACCEL_TYPE_STAGE)

static void
test_impostor_class_init (TestImpostorClass *klass)
{
  accel_stage_class_set_metadata (
      ACCEL_STAGE_CLASS (klass), "core.scale", "not the scale");
}

static void
test_impostor_init (TestImpostor *self)
{
}

G_DECLARE_FINAL_TYPE (TestBadPorts, test_bad_ports, TEST, BAD_PORTS, AccelStage)

struct _TestBadPorts
{
  AccelStage parent;
};
G_DEFINE_FINAL_TYPE (TestBadPorts, test_bad_ports, ACCEL_TYPE_STAGE)

static void
test_bad_ports_class_init (TestBadPortsClass *bad_class)
{
  AccelStageClass *klass = ACCEL_STAGE_CLASS (bad_class);
  AccelType any;

  accel_type_init_any (&any);
  accel_stage_class_set_metadata (klass, "test bad ports", "ports misnamed");
  accel_stage_class_add_port (klass, ACCEL_PORT_INPUT, "in", &any, NULL);
  /* each refused, with a critical: links could not name them */
  accel_stage_class_add_port (klass, ACCEL_PORT_INPUT, "in", &any, NULL);
  accel_stage_class_add_port (klass, ACCEL_PORT_INPUT, NULL, &any, NULL);
  accel_stage_class_add_port (klass, ACCEL_PORT_INPUT, "a.b", &any, NULL);
}

static void
test_bad_ports_init (TestBadPorts *self)
{
}

/* a kind name another type has is refused, and a name a description
 * could not name: the second replaced core.scale for the whole process,
 * and a port of no name crashed the first link that looked for a port */
static void
test_names_refused (void)
{
  AccelRegistry *reg = accel_registry_get_default ();
  g_autoptr (AccelStage) stage = NULL;
  g_autoptr (GError) error = NULL;

  g_test_expect_message ("accel-registry", G_LOG_LEVEL_WARNING,
      "stage kind 'core.scale' is AccelScale already: TestImpostor is not "
      "registered");
  accel_registry_register (reg, test_impostor_get_type ());
  g_test_assert_expected_messages ();
  g_assert_cmpstr (g_type_name (accel_registry_lookup (reg, "core.scale")), ==,
      "AccelScale");

  g_test_expect_message ("accel-stage", G_LOG_LEVEL_CRITICAL, "*!g_str_equal*");
  g_test_expect_message ("accel-stage", G_LOG_LEVEL_CRITICAL, "*name != NULL*");
  g_test_expect_message ("accel-stage", G_LOG_LEVEL_CRITICAL, "*strspn*");
  g_test_expect_message ("accel-registry", G_LOG_LEVEL_WARNING,
      "stage kind 'test bad ports' (TestBadPorts) is not registered: a kind "
      "name is letters, digits, '.', '-' and '_'");
  accel_registry_register (reg, test_bad_ports_get_type ());
  g_test_assert_expected_messages ();
  g_assert_cmpuint (
      accel_registry_lookup (reg, "test bad ports"), ==, G_TYPE_INVALID);
  stage = g_object_new (test_bad_ports_get_type (), NULL);
  g_assert_cmpuint (accel_stage_get_n_inputs (stage), ==, 1);
}

static gpointer
look_up_kind (gpointer kind)
{
  return GSIZE_TO_POINTER (
      accel_registry_lookup (accel_registry_get_default (), kind));
}

/* plugins the cache knows are loaded as their kinds are asked for, from
 * several threads at once: each plugin once, and every kind found. In a
 * process of its own, whose registry reads the cache this one wrote */
static void
test_lookups_race_to_load (void)
{
  const char *kinds[] = { "core.scale", "core.test-source", "io.raw-file-sink",
    "realtime.gaussian-blur", "rand.uniform", "testplugin.echo", "core.nope",
    "core.null-sink" };

  if (g_test_subprocess ())
    {
      GThread *threads[G_N_ELEMENTS (kinds)];
      g_autoptr (GPtrArray) listed = NULL;

      for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
        threads[i] = g_thread_new ("lookup", look_up_kind, (gpointer)kinds[i]);
      for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
        {
          GType type = GPOINTER_TO_SIZE (g_thread_join (threads[i]));

          g_assert_true (
              (type == G_TYPE_INVALID) == g_str_equal (kinds[i], "core.nope"));
          g_assert_cmpuint (type, ==,
              accel_registry_lookup (accel_registry_get_default (), kinds[i]));
        }
      listed = accel_registry_list_kinds (accel_registry_get_default ());
      g_assert_true (g_ptr_array_find_with_equal_func (
          listed, "blas.gemm", g_str_equal, NULL));
      return;
    }
  /* this process's registry writes the cache, if it had to */
  (void)accel_registry_get_default ();
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

int
main (int argc, char **argv)
{
  g_autofree gchar *plugin_dir = NULL, *plugin_path = NULL;

  g_test_init (&argc, &argv, NULL);
  /* the test plugin's directory, after those of the plugins (core.*) */
  plugin_dir = g_test_build_filename (G_TEST_BUILT, ".", NULL);
  plugin_path = g_strjoin (G_SEARCHPATH_SEPARATOR_S,
      g_getenv ("ACCEL_PLUGIN_PATH") ? g_getenv ("ACCEL_PLUGIN_PATH") : "",
      plugin_dir, NULL);
  g_setenv ("ACCEL_PLUGIN_PATH", plugin_path, TRUE);
  g_test_add_func ("/registry/lookup-and-list", test_lookup_and_list);
  g_test_add_func (
      "/registry/unknown-kind-suggests", test_unknown_kind_suggests);
  g_test_add_func ("/registry/describe", test_describe);
  g_test_add_func ("/registry/load-bad-plugin", test_load_bad_plugin);
  g_test_add_func (
      "/registry/load-plugin-no-descriptors", test_load_plugin_no_descriptors);
  g_test_add_func ("/registry/plugin-from-path", test_plugin_from_path);
  g_test_add_func ("/registry/plugin-fails", test_plugin_fails);
  g_test_add_func ("/registry/plugin-files-checked", test_plugin_files_checked);
  g_test_add_func ("/registry/names-refused", test_names_refused);
  g_test_add_func ("/registry/lookups-race-to-load", test_lookups_race_to_load);
  return g_test_run ();
}
