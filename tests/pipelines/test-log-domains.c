/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* each module tells its story: accel-run on the demo pipeline with
 * G_MESSAGES_DEBUG set to one log domain writes that module's messages,
 * and no other module's. GLib writes debug messages to stdout unless a
 * program asks for stderr (g_log_writer_default_set_use_stderr()), so both
 * are read.
 *
 *   test-log-domains DOMAIN BACKEND WORDS
 *
 * BACKEND is host or cuda (cuda skips without a GPU); some message of
 * DOMAIN must hold WORDS */
#include <gio/gio.h>
#include <string.h>

#include "accel-test.h"

typedef struct
{
  const char *domain;
  const char *backend;
  const char *words;
  const char *example; /* a file of pipelines/examples */
} Check;

static gchar *
demo_path (const Check *check)
{
  return g_test_build_filename (
      G_TEST_DIST, "..", "..", "pipelines", "examples", check->example, NULL);
}

/* runs the example with only @check's domain asked for, in a directory of
 * its own for what it writes; Returns: its stdout and stderr, together */
static gchar *
run_demo (const Check *check)
{
  g_autoptr (GSubprocessLauncher) launcher = g_subprocess_launcher_new (
      G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_MERGE);
  g_autoptr (GSubprocess) p = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree gchar *demo = demo_path (check);
  g_autofree gchar *dir = g_dir_make_tmp ("accel-log-XXXXXX", &error);
  g_autofree gchar *backend = g_strdup_printf ("--backend=%s", check->backend);
  gchar *out = NULL;

  g_assert_no_error (error);
  g_subprocess_launcher_set_cwd (launcher, dir);
  g_subprocess_launcher_setenv (
      launcher, "G_MESSAGES_DEBUG", check->domain, TRUE);
  p = g_subprocess_launcher_spawn (
      launcher, &error, g_getenv ("ACCEL_RUN"), backend, "--quiet", demo, NULL);
  g_assert_no_error (error);
  g_assert_true (
      g_subprocess_communicate_utf8 (p, NULL, NULL, &out, NULL, &error));
  g_assert_no_error (error);
  if (!g_subprocess_get_if_exited (p) || g_subprocess_get_exit_status (p) != 0)
    g_test_message ("accel-run's output:\n%s", out);
  g_assert_true (g_subprocess_get_if_exited (p));
  g_assert_cmpint (g_subprocess_get_exit_status (p), ==, 0);
  accel_test_remove_tree (dir);
  return out;
}

static void
test_domain_tells_its_story (gconstpointer data)
{
  const Check *check = data;
  g_autofree gchar *tag = g_strdup_printf ("%s-DEBUG: ", check->domain);
  g_autofree gchar *out = NULL;
  g_auto (GStrv) lines = NULL;
  guint n_ours = 0, n_with_words = 0;

  if (g_str_equal (check->backend, "cuda"))
    accel_test_require_gpu ();

  out = run_demo (check);
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      if (strstr (lines[i], tag))
        {
          n_ours++;
          n_with_words += strstr (lines[i], check->words) != NULL;
        }
      else
        {
          /* only the domain asked for tells anything */
          g_assert_null (strstr (lines[i], "-DEBUG: "));
        }
    }
  g_test_message ("%u %s messages, %u with \"%s\"", n_ours, check->domain,
      n_with_words, check->words);
  g_assert_cmpuint (n_ours, >, 0);
  g_assert_cmpuint (n_with_words, >, 0);
}

int
main (int argc, char **argv)
{
  Check check;
  g_autofree gchar *path = NULL;

  g_test_init (&argc, &argv, NULL);
  if (argc != 4 && argc != 5)
    {
      g_printerr ("usage: %s DOMAIN BACKEND WORDS [EXAMPLE]\n", argv[0]);
      return 1;
    }
  check.domain = argv[1];
  check.backend = argv[2];
  check.words = argv[3];
  check.example = argc == 5 ? argv[4] : "demo.yaml";
  path = g_strdup_printf ("/log-domains/%s/%s", check.domain, check.backend);
  g_test_add_data_func (path, &check, test_domain_tells_its_story);
  return g_test_run ();
}
