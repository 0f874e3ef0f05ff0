/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* device: auto by policy: the choice for counts and free memory as four
 * GPUs would report them, and a pipeline's placement key on the host
 * backend (every stage on the host, a policy it does not know refused) */
#include "accel-test.h"

static void
test_round_robin (void)
{
  guint on[4] = { 0 };
  guint64 free_b[4] = { 0 };

  for (guint k = 0; k < 9; k++)
    g_assert_cmpuint (
        accel_placement_pick (ACCEL_PLACEMENT_ROUND_ROBIN, 4, k, on, free_b),
        ==, k % 4);
  g_assert_cmpuint (
      accel_placement_pick (ACCEL_PLACEMENT_FIRST, 4, 7, on, free_b), ==, 0);
}

static void
test_least_loaded (void)
{
  guint on[4] = { 2, 1, 1, 3 };
  guint64 free_b[4] = { 0 };
  guint picks[4];

  /* the emptiest first, the lowest index on a tie, as stages land */
  for (guint k = 0; k < 4; k++)
    {
      picks[k] = accel_placement_pick (
          ACCEL_PLACEMENT_LEAST_LOADED, 4, k, on, free_b);
      on[picks[k]]++;
    }
  g_assert_cmpuint (picks[0], ==, 1);
  g_assert_cmpuint (picks[1], ==, 2);
  g_assert_cmpuint (picks[2], ==, 0);
  g_assert_cmpuint (picks[3], ==, 1);
}

static void
test_memory_fit (void)
{
  guint on[3] = { 0, 5, 0 };
  guint64 free_b[3] = { 10u << 20, 40u << 20, 40u << 20 };

  /* the most free memory; of two alike, the one with fewer stages */
  g_assert_cmpuint (
      accel_placement_pick (ACCEL_PLACEMENT_MEMORY_FIT, 3, 0, on, free_b), ==,
      2);
  free_b[2] = 5u << 20;
  g_assert_cmpuint (
      accel_placement_pick (ACCEL_PLACEMENT_MEMORY_FIT, 3, 0, on, free_b), ==,
      1);
}

static void
test_yaml_on_host (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new_from_yaml_string (
      "placement: round-robin\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source}\n"
      "  - {name: out, kind: core.null-sink, device: auto}\n"
      "links: [src -> out]\n",
      "placed", &error);
  g_autoptr (AccelGraph) bad = NULL;

  g_assert_no_error (error);
  g_assert_true (accel_device_is_host (
      accel_stage_get_device (accel_graph_get_stage (g, "src"))));
  g_assert_true (accel_device_is_host (
      accel_stage_get_device (accel_graph_get_stage (g, "out"))));
  bad = accel_graph_new_from_yaml_string ("placement: busiest\n"
                                          "stages:\n"
                                          "  - {name: src, kind: "
                                          "core.test-source}\n"
                                          "  - {name: out, kind: "
                                          "core.null-sink}\n"
                                          "links: [src -> out]\n",
      "placed", &error);
  g_assert_null (bad);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (error->message, ==,
      "placed:1:12: placement must be first, round-robin, least-loaded or "
      "memory-fit, not 'busiest'");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  accel_backend_set_default (ACCEL_BACKEND_HOST, NULL);
  g_test_add_func ("/placement/round-robin", test_round_robin);
  g_test_add_func ("/placement/least-loaded", test_least_loaded);
  g_test_add_func ("/placement/memory-fit", test_memory_fit);
  g_test_add_func ("/placement/yaml-on-host", test_yaml_on_host);
  return g_test_run ();
}
