/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* a program built against an installed accel (pkg-config accel-1.0): a
 * graph from a YAML string, run to its end, its checksum sink's digest */
#include <accel/accel.h>

int
main (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) graph = accel_graph_new_from_yaml_string (
      "pipeline: installed\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {num-buffers: 3}}\n"
      "  - {name: sum, kind: core.checksum-sink}\n"
      "links:\n"
      "  - src -> sum\n",
      "embed", &error);
  g_autofree gchar *digest = NULL;

  if (!graph || !accel_graph_run (graph, &error))
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  g_object_get (accel_graph_get_stage (graph, "sum"), "digest", &digest, NULL);
  g_print ("frames %" G_GUINT64_FORMAT " digest %s\n",
      accel_stage_get_n_processed (accel_graph_get_stage (graph, "sum")),
      digest);
  return 0;
}
