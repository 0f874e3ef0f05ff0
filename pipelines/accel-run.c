/* accel-run: run a pipeline declared in YAML, with live statistics */
#define G_LOG_DOMAIN "accel-run"

#include <accel/accel.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <unistd.h>

/* exit statuses */
#define EXIT_DONE 0
#define EXIT_RUNTIME 1
#define EXIT_INVALID 2

static gboolean opt_validate, opt_list, opt_quiet, opt_no_supervise;
static gchar *opt_dot, *opt_describe, *opt_device, *opt_backend, *opt_stats;
static gchar *opt_state_dir;
static gchar **opt_set;
static GPtrArray *overrides; /* --set and --device, NULL-terminated */
static gint64 opt_frames = -1;

static GOptionEntry entries[] = {
  { "validate", 0, 0, G_OPTION_ARG_NONE, &opt_validate,
      "Check the pipeline and exit", NULL },
  { "dot", 0, 0, G_OPTION_ARG_FILENAME, &opt_dot,
      "Write the graph (.dot, or .svg/.png through graphviz)", "FILE" },
  { "list", 0, 0, G_OPTION_ARG_NONE, &opt_list, "List the stage kinds", NULL },
  { "describe", 0, 0, G_OPTION_ARG_STRING, &opt_describe,
      "Describe a stage kind: ports and parameters", "KIND" },
  { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_set,
      "Set a parameter (repeatable)", "STAGE.PARAM=VALUE" },
  { "frames", 0, 0, G_OPTION_ARG_INT64, &opt_frames,
      "Stop the sources after N frames", "N" },
  { "device", 0, 0, G_OPTION_ARG_STRING, &opt_device,
      "Run on this device (host or a GPU number)", "DEVICE" },
  { "backend", 0, 0, G_OPTION_ARG_STRING, &opt_backend,
      "host or cuda (default: cuda when a GPU is usable)", "BACKEND" },
  { "stats", 0, 0, G_OPTION_ARG_FILENAME, &opt_stats,
      "Write a JSON summary at the end", "FILE" },
  { "state-dir", 0, 0, G_OPTION_ARG_FILENAME, &opt_state_dir,
      "Keep commit logs here; a run started again resumes", "DIR" },
  { "no-supervise", 0, 0, G_OPTION_ARG_NONE, &opt_no_supervise,
      "Run in this process, without a supervisor", NULL },
  { "quiet", 'q', 0, G_OPTION_ARG_NONE, &opt_quiet, "No progress output",
      NULL },
  { NULL },
};

typedef struct
{
  AccelGraph *graph;
  GMainLoop *loop;
  GError *error;
  gboolean done;
  gboolean interrupted;
  gint64 t0;
  gint64 last_line;
  gboolean tty;
} Run;

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

static void
print_progress (Run *run, gboolean final)
{
  GPtrArray *stages = accel_graph_get_stages (run->graph);
  g_autoptr (GString) line = g_string_new (NULL);
  double secs = (g_get_monotonic_time () - run->t0) / 1e6;
  guint64 frames = frames_done (run->graph);
  AccelDevice *dev = accel_graph_get_device (run->graph);
  guint64 free_b, total_b;

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
    g_print ("\r\033[K%s", line->str);
  else
    g_print ("%s%s\n", run->tty ? "\r\033[K" : "", line->str);
}

static gboolean
on_tick (gpointer data)
{
  Run *run = data;
  gint64 now = g_get_monotonic_time ();

  /* a refreshing line on a terminal, a plain line a second otherwise */
  if (!opt_quiet && (run->tty || now - run->last_line >= G_USEC_PER_SEC))
    {
      print_progress (run, FALSE);
      run->last_line = now;
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
on_sigint (gpointer data)
{
  Run *run = data;

  if (!run->interrupted)
    {
      /* graceful: end of stream through the graph, files finalised */
      run->interrupted = TRUE;
      if (!opt_quiet)
        g_printerr ("\ninterrupted: finishing the frames in flight "
                    "(Ctrl-C again to stop at once)\n");
      accel_graph_send_eos (run->graph);
      return G_SOURCE_CONTINUE;
    }
  accel_graph_stop (run->graph);
  run->done = TRUE;
  g_main_loop_quit (run->loop);
  return G_SOURCE_REMOVE;
}

static gboolean
on_done (gpointer data)
{
  Run *run = data;

  run->done = TRUE;
  g_main_loop_quit (run->loop);
  return G_SOURCE_REMOVE;
}

static gpointer
wait_thread (gpointer data)
{
  Run *run = data;

  accel_graph_wait (run->graph, -1, &run->error);
  g_idle_add (on_done, run);
  return NULL;
}

static gboolean
write_stats (Run *run, const char *path, GError **error)
{
  GPtrArray *stages = accel_graph_get_stages (run->graph);
  g_autoptr (GString) s = g_string_new (NULL);
  double secs = (g_get_monotonic_time () - run->t0) / 1e6;
  guint64 frames = frames_done (run->graph);
  g_autofree gchar *name
      = g_strescape (accel_graph_get_name (run->graph), NULL);

  g_string_append_printf (s,
      "{\n  \"pipeline\": \"%s\",\n  \"device\": \"%s\",\n"
      "  \"frames\": %" G_GUINT64_FORMAT ",\n  \"seconds\": %.6f,\n"
      "  \"frames_per_second\": %.3f,\n  \"completed\": %s,\n"
      "  \"stages\": [\n",
      name, accel_device_get_name (accel_graph_get_device (run->graph)), frames,
      secs, secs > 0 ? frames / secs : 0.0, run->error ? "false" : "true");
  for (guint i = 0; i < stages->len; i++)
    {
      AccelStage *st = stages->pdata[i];
      gint64 p50, p99;
      accel_stage_get_latency (st, &p50, &p99);
      g_string_append_printf (s,
          "    {\"name\": \"%s\", \"kind\": \"%s\", \"processed\": "
          "%" G_GUINT64_FORMAT ", \"latency_p50_ns\": %" G_GINT64_FORMAT
          ", \"latency_p99_ns\": %" G_GINT64_FORMAT
          ", \"dropped\": %" G_GUINT64_FORMAT
          ", \"restarts\": %" G_GUINT64_FORMAT
          ", \"skipped\": %" G_GUINT64_FORMAT "}%s\n",
          accel_stage_get_name (st), accel_stage_get_kind_name (st),
          accel_stage_get_n_processed (st), p50, p99,
          accel_stage_get_n_dropped (st), accel_stage_get_n_restarts (st),
          accel_stage_get_n_skipped (st), i + 1 < stages->len ? "," : "");
    }
  g_string_append (s, "  ]\n}\n");
  return g_file_set_contents (path, s->str, (gssize)s->len, error);
}

static gboolean
write_dot (AccelGraph *graph, const char *path, GError **error)
{
  g_autofree gchar *dot = accel_graph_to_dot (graph);
  g_autofree gchar *dot_exe = NULL;
  g_autofree gchar *tmp = NULL;
  const char *fmt = g_str_has_suffix (path, ".svg")   ? "-Tsvg"
                    : g_str_has_suffix (path, ".png") ? "-Tpng"
                                                      : NULL;
  gint status;
  gboolean ok;

  if (!fmt)
    return g_file_set_contents (path, dot, -1, error);
  dot_exe = g_find_program_in_path ("dot");
  if (!dot_exe)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_NOT_SUPPORTED,
          "rendering %s needs graphviz's 'dot', which is not installed; "
          "write a .dot file instead",
          path);
      return FALSE;
    }
  tmp = g_strdup_printf ("%s.dot", path);
  if (!g_file_set_contents (tmp, dot, -1, error))
    return FALSE;
  {
    const char *argv[] = { dot_exe, fmt, "-o", path, tmp, NULL };
    ok = g_spawn_sync (NULL, (gchar **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
             NULL, NULL, &status, error)
         && g_spawn_check_wait_status (status, error);
  }
  g_unlink (tmp);
  return ok;
}

static int
list_kinds (void)
{
  AccelRegistry *reg = accel_registry_get_default ();
  g_autoptr (GPtrArray) kinds = accel_registry_list_kinds (reg);

  for (guint i = 0; i < kinds->len; i++)
    {
      GType t = accel_registry_lookup (reg, kinds->pdata[i]);
      AccelStageClass *klass = g_type_class_ref (t);
      g_print ("%-24s %s\n", (char *)kinds->pdata[i],
          accel_stage_class_get_description (klass));
      g_type_class_unref (klass);
    }
  return EXIT_DONE;
}

/* the run in this process: a worker's, or an unsupervised one */
static int
run_pipeline (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) graph = NULL;
  g_autoptr (GMainLoop) loop = NULL;
  const char *state_dir
      = opt_state_dir ? opt_state_dir : g_getenv ("ACCEL_STATE_DIR");
  Run run = { 0 };
  GThread *waiter;
  guint tick, sig;

  graph = accel_graph_new_from_yaml_file (
      path, (const char *const *)overrides->pdata, &error);
  if (!graph)
    {
      g_printerr ("%s\n", error->message);
      return EXIT_INVALID;
    }
  if (opt_dot && !write_dot (graph, opt_dot, &error))
    {
      g_printerr ("accel-run: %s\n", error->message);
      return EXIT_INVALID;
    }
  for (guint i = 0; i < accel_graph_get_notes (graph)->len; i++)
    if (!opt_quiet)
      g_printerr (
          "note: %s\n", (char *)accel_graph_get_notes (graph)->pdata[i]);
  if (opt_validate)
    {
      if (!opt_quiet)
        g_print ("%s: valid\n", path);
      return EXIT_DONE;
    }

  accel_graph_set_frame_limit (graph, opt_frames);
  if (state_dir)
    accel_graph_set_state_dir (graph, state_dir, 100 * 1000);

  loop = g_main_loop_new (NULL, FALSE);
  run.graph = graph;
  run.loop = loop;
  run.tty = isatty (STDOUT_FILENO);
  run.t0 = run.last_line = g_get_monotonic_time ();
  if (!accel_graph_start (graph, &error))
    {
      g_printerr ("accel-run: %s\n", error->message);
      return accel_supervisor_exit_status (error);
    }
  sig = g_unix_signal_add (SIGINT, on_sigint, &run);
  tick = g_timeout_add (250, on_tick, &run);
  waiter = g_thread_new ("accel-run-wait", wait_thread, &run);
  g_main_loop_run (loop);
  accel_graph_stop (graph);
  g_thread_join (waiter);
  g_source_remove (tick);
  /* a second Ctrl-C removed it already */
  if (g_main_context_find_source_by_id (NULL, sig))
    g_source_remove (sig);

  if (!opt_quiet)
    print_progress (&run, TRUE);
  if (opt_stats && !write_stats (&run, opt_stats, &error))
    g_printerr ("accel-run: %s\n", error->message);
  if (run.error)
    {
      g_printerr ("accel-run: %s\n", run.error->message);
      {
        int status = accel_supervisor_exit_status (run.error);
        g_clear_error (&run.error);
        return status;
      }
    }
  return EXIT_DONE;
}

/* with a GPU the pipeline runs in supervised worker processes, so a poisoned
 * context costs a restart, not the run */
static int
supervise (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *tmp_state = NULL;

  if (!opt_state_dir)
    {
      tmp_state = g_dir_make_tmp ("accel-run-XXXXXX", &error);
      if (!tmp_state)
        {
          g_printerr ("accel-run: %s\n", error->message);
          return EXIT_RUNTIME;
        }
      g_setenv ("ACCEL_STATE_DIR", tmp_state, TRUE);
    }
  if (!accel_supervisor_run ((const char *const *)argv, 3, 10000, &error))
    {
      g_printerr ("accel-run: %s\n", error->message);
      return EXIT_RUNTIME;
    }
  if (tmp_state)
    {
      g_autoptr (GDir) d = g_dir_open (tmp_state, 0, NULL);
      const char *f;
      while (d && (f = g_dir_read_name (d)))
        {
          g_autofree gchar *p = g_build_filename (tmp_state, f, NULL);
          g_unlink (p);
        }
      g_rmdir (tmp_state);
    }
  return EXIT_DONE;
}

int
main (int argc, char **argv)
{
  g_autoptr (GOptionContext) ctx
      = g_option_context_new ("FILE.yaml - run an accel pipeline");
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) args = g_strdupv (argv);
  gint n_args = argc;
  int status;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx,
      "Exit status: 0 done, 1 runtime error, 2 invalid pipeline or usage.\n"
      "With a GPU the pipeline runs in a supervised worker process.\n");
  if (!g_option_context_parse (ctx, &n_args, &args, &error))
    {
      g_printerr ("accel-run: %s\n", error->message);
      return EXIT_INVALID;
    }

  if (opt_backend)
    {
      AccelBackend b;
      if (g_str_equal (opt_backend, "host"))
        b = ACCEL_BACKEND_HOST;
      else if (g_str_equal (opt_backend, "cuda"))
        b = ACCEL_BACKEND_CUDA;
      else
        {
          g_printerr ("accel-run: --backend must be host or cuda\n");
          return EXIT_INVALID;
        }
      if (!accel_backend_set_default (b, &error))
        {
          g_printerr ("accel-run: %s\n", error->message);
          return EXIT_INVALID;
        }
      /* workers inherit the choice */
      g_setenv ("ACCEL_BACKEND", opt_backend, TRUE);
    }
  /* --device is the file's device key, overridden */
  overrides = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; opt_set && opt_set[i]; i++)
    g_ptr_array_add (overrides, g_strdup (opt_set[i]));
  if (opt_device)
    g_ptr_array_add (overrides, g_strdup_printf ("device=%s", opt_device));
  g_ptr_array_add (overrides, NULL);

  if (opt_list)
    return list_kinds ();
  if (opt_describe)
    {
      g_autofree gchar *text = accel_registry_describe (
          accel_registry_get_default (), opt_describe, &error);
      if (!text)
        {
          g_printerr ("accel-run: %s\n", error->message);
          return EXIT_INVALID;
        }
      g_print ("%s", text);
      return EXIT_DONE;
    }
  if (n_args != 2)
    {
      g_printerr ("usage: accel-run [OPTION...] FILE.yaml (see --help)\n");
      return EXIT_INVALID;
    }

  if (!opt_validate && !opt_no_supervise && !accel_supervisor_is_worker ()
      && accel_backend_get_default () == ACCEL_BACKEND_CUDA)
    {
      /* check the file here, so a bad one is reported once, with status 2 */
      g_autoptr (AccelGraph) check = accel_graph_new_from_yaml_file (
          args[1], (const char *const *)overrides->pdata, &error);
      if (!check)
        {
          g_printerr ("%s\n", error->message);
          return EXIT_INVALID;
        }
      return supervise (argc, argv);
    }
  status = run_pipeline (args[1]);
  /* only a supervisor knows what the poisoned status means */
  if (status == ACCEL_EXIT_POISONED && !accel_supervisor_is_worker ())
    status = EXIT_RUNTIME;
  return status;
}
