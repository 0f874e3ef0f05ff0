/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel-run: what a run reports of itself: the progress line, the --stats
 * summary, the --dot graph and the stages that skipped or lost frames */
#define G_LOG_DOMAIN "accel-run"

#include "accel-run-private.h"
#include "acceldot.h"

#include <glib/gstdio.h>
#include <errno.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* how long graphviz may take to draw --dot's graph: well under a second
 * is usual */
#define DOT_TIMEOUT_MS 10000

static guint64
frames_done (AccelGraph *graph)
{
  GPtrArray *stages = accel_graph_get_stages (graph);
  guint64 n = 0;

  for (guint i = 0; i < stages->len; i++)
    if (accel_stage_get_stage_kind (stages->pdata[i]) == ACCEL_STAGE_SINK)
      n = MAX (n, accel_stage_get_n_processed (stages->pdata[i]));
  return n;
}

void
accel_run_print_progress (Run *run, gboolean final)
{
  GPtrArray *stages = accel_graph_get_stages (run->graph);
  g_autoptr (GString) line = g_string_new (NULL);
  double secs = (g_get_monotonic_time () - run->t0) / 1e6;
  guint64 frames = frames_done (run->graph);
  AccelDevice *dev = accel_graph_get_device (run->graph);
  guint64 free_b, total_b;
  g_autofree gchar *who = accel_run_rank_prefix ();

  /* the ranks of a world share the terminal */
  g_string_append (line, who);
  g_string_append_printf (line, "%" G_GUINT64_FORMAT " frames, %.1f frames/s",
      frames, secs > 0 ? frames / secs : 0.0);
  for (guint i = 0; i < stages->len; i++)
    {
      gint64 p50, p99;
      accel_stage_get_latency (stages->pdata[i], &p50, &p99);
      if (p50 >= 0)
        g_string_append_printf (line, " | %s %.0f/%.0f us",
            accel_stage_get_name (stages->pdata[i]), p50 / 1e3, p99 / 1e3);
    }
  if (!accel_device_is_host (dev)
      && accel_device_get_memory_info (dev, &free_b, &total_b, NULL))
    g_string_append_printf (
        line, " | GPU %.0f MiB", (total_b - free_b) / 1048576.0);

  if (run->tty && !final)
    {
      /* a wrapped line would not be replaced by the next one */
      struct winsize ws;
      if (ioctl (fileno (run->progress), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1
          && line->len >= ws.ws_col)
        g_string_truncate (line, ws.ws_col - 1);
      fprintf (run->progress, "\r\033[K%s", line->str);
    }
  else
    fprintf (run->progress, "%s%s\n", run->tty ? "\r\033[K" : "", line->str);
  fflush (run->progress);
}

/* the first sequence the sources made in this process: a run that
 * resumed (a worker started again, --state-dir) counts its frames from it */
static guint64
first_frame (AccelGraph *graph)
{
  GPtrArray *stages = accel_graph_get_stages (graph);
  guint64 first = G_MAXUINT64;

  for (guint i = 0; i < stages->len; i++)
    if (accel_stage_get_n_inputs (stages->pdata[i]) == 0)
      first = MIN (first, accel_stage_get_start_sequence (stages->pdata[i]));
  return first == G_MAXUINT64 ? 0 : first;
}

gboolean
accel_run_write_stats (Run *run, const char *path, GError **error)
{
  GPtrArray *stages = accel_graph_get_stages (run->graph);
  g_autoptr (GString) s = g_string_new (NULL);
  double secs = (g_get_monotonic_time () - run->t0) / 1e6;
  guint64 frames = frames_done (run->graph);
  g_autofree gchar *name = accel_json_quote (accel_graph_get_name (run->graph));
  g_autofree gchar *device = accel_json_quote (
      accel_device_get_name (accel_graph_get_device (run->graph)));
  g_autofree gchar *error_text
      = run->error ? accel_json_quote (run->error->message) : g_strdup ("null");
  /* JSON's decimal point, whatever the locale's */
  gchar seconds[G_ASCII_DTOSTR_BUF_SIZE], rate[G_ASCII_DTOSTR_BUF_SIZE];

  g_ascii_formatd (seconds, sizeof (seconds), "%.6f", secs);
  g_ascii_formatd (rate, sizeof (rate), "%.3f", secs > 0 ? frames / secs : 0.0);
  g_string_append_printf (s,
      "{\n  \"pipeline\": %s,\n  \"device\": %s,\n"
      "  \"frames\": %" G_GUINT64_FORMAT ",\n  \"seconds\": %s,\n"
      "  \"frames_per_second\": %s,\n  \"completed\": %s,\n"
      "  \"interrupted\": %s,\n  \"error\": %s,\n"
      "  \"generation\": %u,\n  \"first_frame\": %" G_GUINT64_FORMAT ",\n"
      "  \"stages\": [\n",
      name, device, frames, seconds, rate,
      run->error || run->stopped ? "false" : "true",
      run->interrupted ? "true" : "false", error_text,
      accel_supervisor_get_generation (), first_frame (run->graph));
  for (guint i = 0; i < stages->len; i++)
    {
      AccelStage *st = stages->pdata[i];
      g_autofree gchar *st_name = accel_json_quote (accel_stage_get_name (st));
      g_autofree gchar *st_kind
          = accel_json_quote (accel_stage_get_kind_name (st));
      gint64 p50, p99;
      accel_stage_get_latency (st, &p50, &p99);
      g_string_append_printf (s,
          "    {\"name\": %s, \"kind\": %s, \"processed\": "
          "%" G_GUINT64_FORMAT ", \"latency_p50_ns\": %" G_GINT64_FORMAT
          ", \"latency_p99_ns\": %" G_GINT64_FORMAT
          ", \"dropped\": %" G_GUINT64_FORMAT
          ", \"restarts\": %" G_GUINT64_FORMAT
          ", \"skipped\": %" G_GUINT64_FORMAT
          ", \"retried\": %" G_GUINT64_FORMAT ", \"lost\": %" G_GUINT64_FORMAT
          ", \"graph_replayed\": %" G_GUINT64_FORMAT
          ", \"graph_captured\": %" G_GUINT64_FORMAT "}%s\n",
          st_name, st_kind, accel_stage_get_n_processed (st), p50, p99,
          accel_stage_get_n_dropped (st), accel_stage_get_n_restarts (st),
          accel_stage_get_n_skipped (st), accel_stage_get_n_retried (st),
          accel_stage_get_n_lost (st), accel_stage_get_n_replayed (st),
          accel_stage_get_n_captured (st), i + 1 < stages->len ? "," : "");
    }
  g_string_append (s, "  ]\n}\n");
  return accel_run_write_output (path, s->str, -1, error);
}

/* "rank r: " in a world, whose ranks share the terminal, else "" */
gchar *
accel_run_rank_prefix (void)
{
  AccelWorld *world = accel_world_get_default ();

  return world ? g_strdup_printf ("rank %u: ", accel_world_get_rank (world))
               : g_strdup ("");
}

/* which stages skipped frames after faults (on-fault: resume, restart) or
 * lost them (a live source past a restart, a sink whose output failed
 * with frames on their way), a line each (accel_graph_check_complete ());
 * for a run that reached its end (@ended) the totals too, with its exit
 * status. TRUE when any did */
gboolean
accel_run_say_incomplete (AccelGraph *graph, gboolean ended)
{
  g_autofree gchar *who = accel_run_rank_prefix ();
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) lines = NULL;

  if (accel_graph_check_complete (graph, &error))
    return FALSE;
  lines = g_strsplit (error->message, "\n", -1);
  /* one write a line: the ranks of a world share stderr */
  for (guint i = 0; lines[i + 1]; i++)
    g_printerr ("accel-run: %s%s\n", who, lines[i]);
  if (ended)
    g_printerr ("accel-run: %s%s (exit status %d)\n", who,
        lines[g_strv_length (lines) - 1], ACCEL_EXIT_INCOMPLETE);
  return TRUE;
}

/* which stages ran frames again after faults (out of memory, or a
 * restart that made the frame again), a line each, whatever --quiet says;
 * with @delivered (a run that delivered every frame, and no supervised
 * worker's, whose supervisor says it) the total too, with its exit status:
 * 4 (ACCEL_EXIT_RETRIED), which tells it from a run that needed no retry.
 * TRUE when any did */
gboolean
accel_run_say_retried (AccelGraph *graph, gboolean delivered)
{
  GPtrArray *stages = accel_graph_get_stages (graph);
  g_autofree gchar *who = accel_run_rank_prefix ();
  gboolean any = FALSE;

  for (guint i = 0; i < stages->len; i++)
    {
      AccelStage *st = stages->pdata[i];
      guint64 n = accel_stage_get_n_retried (st);
      guint64 restarts = accel_stage_get_n_restarts (st);
      g_autofree gchar *fault = NULL;

      if (n == 0)
        continue;
      /* an out-of-memory retry is no restart */
      fault = accel_stage_dup_first_fault (st);
      g_printerr ("accel-run: %sstage '%s' (%s) ran %" G_GUINT64_FORMAT
                  " frame%s again after %s (%" G_GUINT64_FORMAT
                  " restart%s)%s%s\n",
          who, accel_stage_get_name (st), accel_stage_get_kind_name (st), n,
          n == 1 ? "" : "s", n == 1 ? "a fault" : "faults", restarts,
          restarts == 1 ? "" : "s", fault ? "; the first: " : "",
          fault ? fault : "");
      any = TRUE;
    }
  if (any && delivered)
    g_printerr ("accel-run: %severy frame was delivered, some only after a "
                "retry (exit status %d)\n",
        who, ACCEL_EXIT_RETRIED);
  return any;
}

/* a stage of several inputs takes a frame once each input has it: what
 * one input had that another never did (it ended sooner, or skipped the
 * frame), and what came once the stage's stream had ended, it dropped.
 * No fault, but frames made for nothing: said, whatever --quiet says */
void
accel_run_say_dropped (AccelGraph *graph)
{
  GPtrArray *stages = accel_graph_get_stages (graph);
  g_autofree gchar *who = accel_run_rank_prefix ();

  for (guint i = 0; i < stages->len; i++)
    {
      AccelStage *st = stages->pdata[i];
      guint64 n = accel_stage_get_n_dropped (st);

      if (n == 0)
        continue;
      g_printerr ("accel-run: %sstage '%s' (%s) dropped %" G_GUINT64_FORMAT
                  " input buffer%s that %scame once its stream had ended\n",
          who, accel_stage_get_name (st), accel_stage_get_kind_name (st), n,
          n == 1 ? "" : "s",
          accel_stage_get_n_inputs (st) > 1
              ? "had no partner on its other inputs or "
              : "");
    }
}

/* the graph as .dot, or drawn as .svg or .png (any case: g.SVG too) by
 * graphviz, given DOT_TIMEOUT_MS */
gboolean
accel_run_write_dot (AccelGraph *graph, const char *path, GError **error)
{
  g_autofree gchar *dot = accel_graph_to_dot (graph);
  g_autofree gchar *lower = g_ascii_strdown (path, -1);
  const char *format = g_str_has_suffix (lower, ".svg")   ? "svg"
                       : g_str_has_suffix (lower, ".png") ? "png"
                                                          : NULL;
  g_autoptr (GBytes) drawn = NULL;
  g_autoptr (GError) local = NULL;
  gsize n;
  gconstpointer data;

  if (!format)
    return accel_run_write_output (path, dot, -1, error);
  if (!(drawn = accel_dot_render (dot, format, DOT_TIMEOUT_MS, &local)))
    {
      /* as it said before dot ran through a pipe */
      if (g_error_matches (local, ACCEL_ERROR, ACCEL_ERROR_NOT_SUPPORTED))
        g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_NOT_SUPPORTED,
            "rendering %s needs graphviz's 'dot', which is not installed; "
            "write a .dot file instead",
            path);
      else
        g_propagate_prefixed_error (
            error, g_steal_pointer (&local), "cannot draw %s: ", path);
      return FALSE;
    }
  data = g_bytes_get_data (drawn, &n);
  return accel_run_write_output (path, data, (gssize)n, error);
}
