/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* particles and fluid driven by the application a frame at a time: a
 * stepped graph (accel_graph_set_stepped, accel_graph_step) whose stir and
 * attractor the program swings between two steps, shown through GStreamer.
 *
 *   simulation [N_FRAMES [GST_DESCRIPTION]]
 *
 * N_FRAMES defaults to 300 (10 s at 30 frames/s), the description to
 * "videoconvert ! autovideosink"; "videoconvert ! fakesink" or a filesink
 * runs it without a display. It prints the frames and the digest of what
 * it showed: the same arguments give the same digest, since every change
 * lands on the frame the program set it before. docs/embedding.md walks
 * through it. */
#include <accel/accel.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the fluid's dye with the particles added on top, to GStreamer and to a
 * checksum sink */
static const char pipeline_yaml[]
    = "pipeline: simulation\n"
      "stages:\n"
      "  - {name: fluid, kind: realtime.fluid,\n"
      "     params: {grid-size: 256, pressure-iterations: 20,\n"
      "              force-y: -2, num-buffers: %d}}\n"
      "  - {name: particles, kind: realtime.particles,\n"
      "     params: {capacity: 8192, emit-rate: 60, attractor-strength: 4,\n"
      "              seed: 7, num-buffers: %d}}\n"
      "  - {name: splat, kind: realtime.splat,\n"
      "     params: {width: 256, height: 256, scale: 128}}\n"
      "  - {name: mix, kind: realtime.blend, params: {mode: add}}\n"
      "  - {name: show, kind: io.gst-sink, params: {description: '%s'}}\n"
      "  - {name: digest, kind: core.checksum-sink}\n"
      "links:\n"
      "  - fluid -> mix.a\n"
      "  - particles -> splat\n"
      "  - splat -> mix.b\n"
      "  - mix -> show\n"
      "  - mix -> digest\n";

/* posted to the stage's mailbox: applies from the next step on */
static void
set_float (AccelGraph *graph, const char *stage, const char *name, float v)
{
  GValue value = G_VALUE_INIT;

  g_value_init (&value, G_TYPE_FLOAT);
  g_value_set_float (&value, v);
  accel_stage_set_param_async (
      accel_graph_get_stage (graph, stage), name, &value);
  g_value_unset (&value);
}

int
main (int argc, char **argv)
{
  int n_frames = argc > 1 ? atoi (argv[1]) : 300;
  const char *description = argc > 2 ? argv[2] : "videoconvert ! autovideosink";
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) graph = NULL;
  g_autofree gchar *yaml = NULL;
  g_autofree gchar *digest = NULL;

  if (n_frames < 1 || strchr (description, '\''))
    {
      g_printerr (
          "usage: %s [N_FRAMES [GST_DESCRIPTION]] (no ' in it)\n", argv[0]);
      return 2;
    }
  yaml = g_strdup_printf (pipeline_yaml, n_frames, n_frames, description);
  graph = accel_graph_new_from_yaml_string (yaml, "simulation", &error);
  if (!graph)
    goto failed;

  /* the sources make a frame only when stepped */
  accel_graph_set_stepped (graph, TRUE);
  if (!accel_graph_start (graph, &error))
    goto failed;
  for (int i = 0; i < n_frames; i++)
    {
      /* the jet swings left and right, the attractor follows it */
      float swing = sinf ((float)i * 0.1f);

      set_float (graph, "fluid", "force-x", 3.0f * swing);
      set_float (graph, "particles", "attractor-x", 0.6f * swing);
      if (!accel_graph_step (graph, 30 * G_USEC_PER_SEC, &error))
        goto failed;
    }
  /* one step past the sources' last frame ends the graph */
  if (accel_graph_step (graph, 30 * G_USEC_PER_SEC, &error)
      || !g_error_matches (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED))
    {
      if (!error)
        g_set_error (&error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
            "the graph went on past its last frame");
      goto failed;
    }
  g_clear_error (&error);
  if (!accel_graph_wait (graph, 30 * G_USEC_PER_SEC, &error))
    goto failed;
  accel_graph_stop (graph);

  g_object_get (
      accel_graph_get_stage (graph, "digest"), "digest", &digest, NULL);
  g_print ("frames %" G_GUINT64_FORMAT " digest %s\n",
      accel_stage_get_n_processed (accel_graph_get_stage (graph, "digest")),
      digest);
  return 0;

  /* ERRORS */
failed:
  {
    g_printerr ("simulation: %s\n", error->message);
    if (graph)
      accel_graph_stop (graph);
    return 1;
  }
}
