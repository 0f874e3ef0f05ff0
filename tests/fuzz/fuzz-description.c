/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fuzzing the one-line descriptions (gst-launch syntax, accel-run -e):
 * LLVMFuzzerTestOneInput for libFuzzer, and the driver of fuzz-driver.c so
 * the same harness runs as an ordinary test */
#include <accel/accel.h>

#include "fuzz-driver.h"

/* any input: a graph or an error at a column of the line, never a crash, a
 * leak or a hang; a line that builds a graph writes a YAML that builds one
 * of as many stages */
int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree gchar *text = g_strndup ((const gchar *)data, size);
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) yaml_error = NULL;
  g_autoptr (AccelGraph) graph = NULL;
  g_autoptr (AccelGraph) again = NULL;
  g_autofree gchar *yaml = NULL;

  graph = accel_graph_new_from_description_full (text, "fuzz", NULL, &error);
  g_assert_true ((graph != NULL) != (error != NULL));
  if (error && !g_str_has_prefix (error->message, "fuzz:1:"))
    g_error ("no column for the line '%s': %s", text, error->message);
  yaml = accel_description_to_yaml (text, "fuzz", &yaml_error);
  g_assert_true ((yaml != NULL) != (yaml_error != NULL));
  if (!graph)
    return 0;
  /* the line's YAML is the same graph */
  g_assert_nonnull (yaml);
  again = accel_graph_new_from_yaml_string (yaml, "fuzz", NULL);
  g_assert_nonnull (again);
  g_assert_cmpuint (accel_graph_get_stages (again)->len, ==,
      accel_graph_get_stages (graph)->len);
  return 0;
}

#ifndef ACCEL_FUZZ_LIBFUZZER
int
main (int argc, char **argv)
{
  return fuzz_driver_main (argc, argv, "corpus-description", 20261128,
      "!.=\"'\\ -_0123456789abcmnsx");
}
#endif
