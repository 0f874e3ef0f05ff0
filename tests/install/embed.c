/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* a program built against an installed accel (pkg-config accel-1.0): a
 * graph from a YAML string, run to its end, its checksum sink's digest;
 * and the installed spatial index (accel/accelspatial.h) on three points */
#include <accel/accel.h>
#include <accel/accelspatial.h>

/* two points 0.1 apart and one far away: neighbours within 0.2 */
static void
print_neighbours (void)
{
  static const float lo[3] = { -1, -1, -1 }, hi[3] = { 1, 1, 1 };
  static const float x[3] = { 0.0f, 0.1f, 0.9f }, y[3] = { 0, 0, 0 };
  AccelSpatialGrid grid;
  AccelSpatialIndex ix;
  guint32 counts[3];
  g_autofree void *block = NULL;

  accel_spatial_grid_init (&grid, lo, hi, 0.2f);
  block = g_malloc (accel_spatial_index_size (&grid, 3));
  accel_spatial_index_init (&ix, block, &grid, 3);
  accel_spatial_build_host (&grid, x, y, NULL, 3, NULL, &ix);
  accel_spatial_count_indexed_neighbours_host (
      &grid, &ix, x, y, NULL, 3, NULL, 0.2f, counts);
  g_print ("neighbours %u %u %u\n", counts[0], counts[1], counts[2]);
}

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
  print_neighbours ();
  return 0;
}
