/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fuzzing the YAML loader: LLVMFuzzerTestOneInput for libFuzzer, and the
 * driver of fuzz-driver.c (corpus replay plus seeded mutations, bounded) so
 * the same harness runs as an ordinary test */
#include <accel/accel.h>

#include "fuzz-driver.h"

/* any input: a graph or an error, never a crash, a leak or a hang */
int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree gchar *text = g_strndup ((const gchar *)data, size);
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) graph = NULL;

  graph = accel_graph_new_from_yaml_string (text, "fuzz", &error);
  g_assert_true ((graph != NULL) != (error != NULL));
  if (error)
    g_assert_true (g_str_has_prefix (error->message, "fuzz:")
                   || g_str_has_prefix (error->message, "--set "));
  return 0;
}

#ifndef ACCEL_FUZZ_LIBFUZZER
int
main (int argc, char **argv)
{
  return fuzz_driver_main (
      argc, argv, "corpus", 20261122, "{}[]:-,>.\"' \n#&*!|");
}
#endif
