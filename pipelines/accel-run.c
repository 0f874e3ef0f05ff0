/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel-run: run a pipeline declared in YAML, or in one line of
 * gst-launch syntax (-e), with live statistics (accel-run-report.c) */
#define G_LOG_DOMAIN "accel-run"

#include "accel-run-private.h"

#include <accel/accel.h>
#ifdef ACCEL_HAVE_HTTP
#include "accelhttp.h"
#endif
#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* exit statuses */
#define EXIT_DONE 0
#define EXIT_RUNTIME 1
#define EXIT_INVALID ACCEL_EXIT_INVALID
/* done, but frames were skipped or lost (ACCEL_EXIT_INCOMPLETE) */
#define EXIT_INCOMPLETE ACCEL_EXIT_INCOMPLETE
/* done, every frame delivered, some after a retry (ACCEL_EXIT_RETRIED) */
#define EXIT_RETRIED ACCEL_EXIT_RETRIED
/* a second Ctrl-C: stopped at once, as shells report a SIGINT */
#define EXIT_STOPPED ACCEL_EXIT_STOPPED

/* after Ctrl-C or SIGTERM, how long the frames in flight may take before
 * the run stops at once */
#define GRACE_S 5

static gboolean opt_validate, opt_list, opt_quiet, opt_no_supervise;
static gchar *opt_dot, *opt_describe, *opt_device, *opt_backend, *opt_stats;
static gchar *opt_state_dir, *opt_graph, *opt_description;
static gboolean opt_print_yaml;
static gchar **opt_set;
static GPtrArray *overrides; /* --set and --device, NULL-terminated */

/* the signals that end a run: Ctrl-C, SIGTERM as Ctrl-C (a service
 * manager gets finished files too) and SIGHUP (a terminal closed) */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
/* SIGHUP was ignored when the run began (nohup): it stays so */
static gboolean hangup_ignored;
static gint64 opt_frames;
static gboolean opt_frames_given; /* every value of opt_frames is one given */
static gboolean opt_restart_state;
/* G_MININT: not given (parse_number () takes 0 to 65535) */
static gint opt_http = G_MININT;
static gchar *opt_http_address;
static gint opt_ranks = -1, opt_rank = -1, opt_world;
/* the supervisors' restart intensity: restarts allowed within a window
 * (ACCEL_RESTART_INTENSITY=N/MS) */
static guint intensity_restarts = 3;
static gint64 intensity_window_ms = 10000;
static gchar *opt_coordinator;

/* --frames N: a number, any; check_options () wants 1 or more. One past
 * the range of a gint64 was "not a number" */
static gboolean
parse_frames (
    const char *option, const char *value, gpointer data, GError **error)
{
  g_autoptr (GError) why = NULL;

  if (!g_ascii_string_to_signed (
          value, 10, G_MININT64, G_MAXINT64, &opt_frames, &why))
    {
      if (g_error_matches (
              why, G_NUMBER_PARSER_ERROR, G_NUMBER_PARSER_ERROR_OUT_OF_BOUNDS))
        g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
            "--frames must be at most %" G_GINT64_FORMAT ", not %s", G_MAXINT64,
            value);
      else
        g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
            "--frames must be a number, not '%s'", value);
      return FALSE;
    }
  opt_frames_given = TRUE;
  return TRUE;
}

/* the whole-number options, read in decimal only (GOption's own reading
 * takes octal and hex: --http=010 was port 8); a value out of range is
 * refused here, so the defaults mean "not given" and nothing else */
static const struct
{
  const char *name;
  gint *value;
  gint min, max;
} number_options[] = {
  { "--http", &opt_http, 0, G_MAXUINT16 },
  { "--ranks", &opt_ranks, 1, ACCEL_SUPERVISOR_MAX_WORKERS },
  /* past it, the sizes overflowed (--http's last port) or a world far
   * larger than any a supervisor passes interrupts on to was joined */
  { "--world", &opt_world, 1, ACCEL_SUPERVISOR_MAX_WORKERS },
  { "--rank", &opt_rank, 0, ACCEL_SUPERVISOR_MAX_WORKERS - 1 },
};

static gboolean
parse_number (
    const char *option, const char *value, gpointer data, GError **error)
{
  for (guint i = 0; i < G_N_ELEMENTS (number_options); i++)
    {
      gint64 number;

      if (!g_str_equal (option, number_options[i].name))
        continue;
      if (!g_ascii_string_to_signed (value, 10, number_options[i].min,
              number_options[i].max, &number, NULL))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
              "%s must be a whole number from %d to %d, not '%s'", option,
              number_options[i].min, number_options[i].max, value);
          return FALSE;
        }
      *number_options[i].value = (gint)number;
      return TRUE;
    }
  g_return_val_if_reached (FALSE);
}

/* -e: the line as it came, in the locale's character set made UTF-8 where
 * that is not UTF-8 already. Bytes that are not UTF-8 are the loader's to
 * refuse, at their column, where GOption refused the option in a message
 * that named neither */
static gboolean
parse_description (
    const char *option, const char *value, gpointer data, GError **error)
{
  gchar *utf8 = NULL;

  if (!g_get_charset (NULL))
    utf8 = g_locale_to_utf8 (value, -1, NULL, NULL, NULL);
  g_free (opt_description);
  opt_description = utf8 ? utf8 : g_strdup (value);
  return TRUE;
}

static GOptionEntry entries[] = {
  { "description", 'e', G_OPTION_FLAG_FILENAME, G_OPTION_ARG_CALLBACK,
      parse_description,
      "Run the graph of a gst-launch line instead of a file: "
      "'io.pattern-source "
      "! realtime.gaussian-blur sigma=3 ! io.png-sink location=f%05d.png'",
      "DESCRIPTION" },
  { "print-yaml", 0, 0, G_OPTION_ARG_NONE, &opt_print_yaml,
      "Print the pipeline file of the -e line and exit", NULL },
  { "validate", 0, 0, G_OPTION_ARG_NONE, &opt_validate,
      "Check the pipeline and exit", NULL },
  { "dot", 0, 0, G_OPTION_ARG_FILENAME, &opt_dot,
      "Write the graph (.dot, or .svg/.png through graphviz)", "FILE" },
  { "list", 0, 0, G_OPTION_ARG_NONE, &opt_list, "List the stage kinds", NULL },
  { "describe", 0, 0, G_OPTION_ARG_STRING, &opt_describe,
      "Describe a stage kind: ports and parameters", "KIND" },
  { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_set,
      "Set a parameter (repeatable)", "STAGE.PARAM=VALUE" },
  { "frames", 0, 0, G_OPTION_ARG_CALLBACK, parse_frames,
      "Stop the sources after N frames", "N" },
  { "device", 0, 0, G_OPTION_ARG_STRING, &opt_device,
      "Run on this device (host or a GPU number)", "DEVICE" },
  { "backend", 0, 0, G_OPTION_ARG_STRING, &opt_backend,
      "host or cuda (default: cuda when a GPU is usable)", "BACKEND" },
  { "stats", 0, 0, G_OPTION_ARG_FILENAME, &opt_stats,
      "Write a JSON summary at the end", "FILE" },
  { "graph", 0, 0, G_OPTION_ARG_STRING, &opt_graph,
      "CUDA graph mode: auto (default), on or off; overrides the YAML's",
      "MODE" },
  { "state-dir", 0, 0, G_OPTION_ARG_FILENAME, &opt_state_dir,
      "Keep commit logs here; a run started again resumes", "DIR" },
  { "restart-state", 0, 0, G_OPTION_ARG_NONE, &opt_restart_state,
      "Discard what the state directory holds and start over", NULL },
  { "http", 0, 0, G_OPTION_ARG_CALLBACK, parse_number,
      "Serve metrics (/metrics), stats (/stats.json) and a live page (/) "
      "over HTTP; 0 picks a free port",
      "PORT" },
  { "http-address", 0, 0, G_OPTION_ARG_STRING, &opt_http_address,
      "Address the --http server listens on (default 127.0.0.1)", "ADDRESS" },
  { "ranks", 0, 0, G_OPTION_ARG_CALLBACK, parse_number,
      "Run a world of N ranks, one worker process each on this machine "
      "(rank r on GPU r)",
      "N" },
  { "coordinator", 0, 0, G_OPTION_ARG_STRING, &opt_coordinator,
      "The world's coordinator: rank 0 serves its store there, the other "
      "ranks join it (with --rank and --world; or where --ranks serves it)",
      "HOST:PORT" },
  { "rank", 0, 0, G_OPTION_ARG_CALLBACK, parse_number,
      "This process's rank in the world of --coordinator", "R" },
  { "world", 0, 0, G_OPTION_ARG_CALLBACK, parse_number,
      "The number of ranks of the world of --coordinator", "W" },
  { "no-supervise", 0, 0, G_OPTION_ARG_NONE, &opt_no_supervise,
      "Run in this process, without a supervisor", NULL },
  { "quiet", 'q', 0, G_OPTION_ARG_NONE, &opt_quiet, "No progress output",
      NULL },
  { NULL },
};

/* the graph of the file @path, or of -e; a problem in -e is shown under
 * the line */
static AccelGraph *
load_graph (const char *path, GError **error)
{
  const char *const *over = (const char *const *)overrides->pdata;
  g_autoptr (GError) load_error = NULL;
  AccelGraph *graph;
  gboolean shown_raw_breaks = FALSE;
  gint64 col;
  const char *at;

  if (!opt_description)
    return accel_graph_new_from_yaml_file_full (path, over, error);
  graph = accel_graph_new_from_description_full (
      opt_description, "-e", over, &load_error);
  if (graph)
    return graph;
  at = load_error->message;
  /* the line shown as it is: not with a control character, which would
   * break it or move the cursor */
  for (const char *c = opt_description; *c && !shown_raw_breaks; c++)
    shown_raw_breaks = g_ascii_iscntrl (*c);
  if (g_str_has_prefix (at, "-e:1:")
      && (col = g_ascii_strtoll (at + 5, NULL, 10)) > 0 && col < 4096
      && !shown_raw_breaks)
    {
      g_autofree gchar *pad = g_strnfill (col - 1, ' ');
      /* a byte that is not UTF-8 shown as U+FFFD, a character of its own */
      g_autofree gchar *shown = g_utf8_make_valid (opt_description, -1);

      g_set_error (error, load_error->domain, load_error->code,
          "%s\n  %s\n  %s^", load_error->message, shown, pad);
      return NULL;
    }
  g_propagate_error (error, g_steal_pointer (&load_error));
  return NULL;
}

/* whether @path names the file @file is (@file NULL: not there yet, and
 * then the names are compared) */
static gboolean
is_file (const char *path, const char *name, const struct stat *file)
{
  struct stat st;
  g_autofree gchar *a = NULL, *b = NULL;

  if (file)
    return g_stat (path, &st) == 0 && st.st_dev == file->st_dev
           && st.st_ino == file->st_ino;
  a = g_canonicalize_filename (path, NULL);
  b = g_canonicalize_filename (name, NULL);
  return g_str_equal (a, b);
}

/* the first stage that writes its frames into @file (or, @file NULL, the
 * file named @name), or NULL */
static AccelStage *
stage_writing (AccelGraph *graph, const char *name, const struct stat *file)
{
  GPtrArray *stages = accel_graph_get_stages (graph);

  for (guint i = 0; i < stages->len; i++)
    {
      g_autofree gchar *path = NULL;

      if (!G_TYPE_CHECK_INSTANCE_TYPE (
              stages->pdata[i], ACCEL_TYPE_FILE_OUTPUT))
        continue;
      path = accel_file_output_get_path (stages->pdata[i]);
      /* a file per frame: any of the pattern's */
      if ((path && is_file (path, name, file))
          || accel_file_output_writes (stages->pdata[i], name))
        return stages->pdata[i];
    }
  return NULL;
}

/* whether a location= in the GStreamer description @description names
 * @name (@file as is_file () takes it) */
static gboolean
description_names (
    const char *description, const char *name, const struct stat *file)
{
  g_auto (GStrv) locations = accel_description_locations (description);

  for (guint i = 0; locations[i]; i++)
    if (is_file (locations[i], name, file))
      return TRUE;
  return FALSE;
}

/* whether the GStreamer description @description writes to descriptor
 * @fd (1 or 2), as written: an fdsink on it (fd 1 is its default, and
 * what it keeps when given one that is not open), or an element whose
 * location is @fd's file, @st */
static gboolean
description_writes_fd (const char *description, int fd, const struct stat *st)
{
  g_auto (GStrv) words = NULL;
  gboolean in_fdsink = FALSE, on_fd = FALSE;

  if (description_names (description, NULL, st))
    return TRUE;
  if (!g_shell_parse_argv (description, NULL, &words, NULL))
    return FALSE;
  for (guint i = 0; words[i]; i++)
    {
      const char *w = words[i];

      if (g_str_equal (w, "!"))
        {
          if (in_fdsink && on_fd)
            return TRUE;
          in_fdsink = FALSE;
        }
      else if (g_str_equal (w, "fdsink"))
        {
          in_fdsink = TRUE;
          on_fd = fd == 1;
        }
      else if (in_fdsink && g_str_has_prefix (w, "fd="))
        {
          gint64 n = g_ascii_strtoll (w + 3, NULL, 10);
          gboolean open_fd
              = n >= 0 && n <= G_MAXINT && fcntl ((int)n, F_GETFD) >= 0;

          on_fd = open_fd ? n == fd : fd == 1;
        }
    }
  return in_fdsink && on_fd;
}

/* the first stage that writes its frames where descriptor @fd (1 or 2)
 * goes when that is a pipe, a socket or a file (/dev/stdout piped into
 * another program, the file stderr was sent to; an io.gst-sink's
 * description that does), or NULL: a terminal or /dev/null carries no
 * frames anyone reads */
static AccelStage *
stage_writing_fd (AccelGraph *graph, int fd)
{
  GPtrArray *stages = accel_graph_get_stages (graph);
  struct stat st;

  if (fstat (fd, &st) != 0
      || !(S_ISFIFO (st.st_mode) || S_ISSOCK (st.st_mode)
           || S_ISREG (st.st_mode)))
    return NULL;
  for (guint i = 0; i < stages->len; i++)
    {
      g_autofree gchar *description = NULL;

      if (!g_str_equal (
              accel_stage_get_kind_name (stages->pdata[i]), "io.gst-sink"))
        continue;
      g_object_get (stages->pdata[i], "description", &description, NULL);
      if (description && description_writes_fd (description, fd, &st))
        return stages->pdata[i];
    }
  return stage_writing (graph, NULL, &st);
}

/* the first source that reads @name (its location, or a location= of its
 * GStreamer description), or NULL */
static AccelStage *
stage_reading (AccelGraph *graph, const char *name, const struct stat *file)
{
  GPtrArray *stages = accel_graph_get_stages (graph);

  for (guint i = 0; i < stages->len; i++)
    {
      AccelStage *stage = stages->pdata[i];
      GObjectClass *klass = G_OBJECT_GET_CLASS (stage);
      g_autofree gchar *location = NULL, *description = NULL;

      if (accel_stage_get_n_inputs (stage) > 0)
        continue;
      if (g_object_class_find_property (klass, "location"))
        g_object_get (stage, "location", &location, NULL);
      if (g_object_class_find_property (klass, "description"))
        g_object_get (stage, "description", &description, NULL);
      if ((location && is_file (location, name, file))
          || (description && description_names (description, name, file)))
        return stage;
    }
  return NULL;
}

/* whether the file @name is in the directory @dir, there yet or not (a
 * link to a file there is) */
static gboolean
is_in_dir (const char *name, const char *dir)
{
  g_autofree gchar *target = realpath (name, NULL);
  g_autofree gchar *parent = g_path_get_dirname (target ? target : name);
  g_autofree gchar *a = realpath (parent, NULL);
  g_autofree gchar *b = realpath (dir, NULL);
  g_autofree gchar *ca = NULL, *cb = NULL;

  if (a && b)
    return g_str_equal (a, b);
  ca = g_canonicalize_filename (parent, NULL);
  cb = g_canonicalize_filename (dir, NULL);
  return g_str_equal (ca, cb);
}

/* --stats or --dot (@option) into @name: not into the pipeline file
 * (@path), where a stage writes its frames or a source reads them, nor
 * the state directory @state_dir, whose files it would replace */
static gboolean
check_report_file (AccelGraph *graph, const char *option, const char *name,
    const char *path, const char *state_dir)
{
  struct stat st;
  gboolean there = g_stat (name, &st) == 0;
  AccelStage *writer, *reader;

  /* stdout is checked on its own; a device (/dev/null, a terminal) keeps
   * nothing to lose */
  if (g_str_equal (name, "-") || (there && S_ISCHR (st.st_mode)))
    return TRUE;
  if (path && !g_str_equal (path, "-e")
      && is_file (path, name, there ? &st : NULL))
    {
      g_printerr (
          "accel-run: %s %s is the pipeline file itself\n", option, name);
      return FALSE;
    }
  if (state_dir && is_in_dir (name, state_dir))
    {
      g_printerr ("accel-run: %s %s is in the state directory %s, whose "
                  "files it would replace; give it a file elsewhere\n",
          option, name, state_dir);
      return FALSE;
    }
  reader = stage_reading (graph, name, there ? &st : NULL);
  if (reader)
    {
      g_printerr ("accel-run: %s %s is the file stage '%s' reads its frames "
                  "from; give it another file\n",
          option, name, accel_stage_get_name (reader));
      return FALSE;
    }
  writer = stage_writing (graph, name, there ? &st : NULL);
  if (!writer)
    return TRUE;
  g_printerr ("accel-run: %s %s is where stage '%s' writes its frames; give "
              "it another file\n",
      option, name, accel_stage_get_name (writer));
  return FALSE;
}

/* whether the report file @name is where standard output goes: "-", or
 * a name (/dev/stdout) of the file or pipe it was sent to; a terminal
 * shows both reports, losing neither */
static gboolean
report_to_stdout (const char *name)
{
  return g_str_equal (name, "-")
         || accel_run_output_names_fd (name, STDOUT_FILENO);
}

/* --dot and --stats into one file (or both to standard output, by any
 * name): the one written last replaced the other, or they were mixed */
static gboolean
check_reports_apart (void)
{
  struct stat st;
  gboolean same;

  if (!opt_dot || !opt_stats)
    return TRUE;
  if (report_to_stdout (opt_dot) || report_to_stdout (opt_stats))
    same = report_to_stdout (opt_dot) && report_to_stdout (opt_stats);
  else if (g_stat (opt_stats, &st) == 0)
    /* a device (/dev/null) keeps nothing either could lose */
    same = !S_ISCHR (st.st_mode) && is_file (opt_dot, opt_stats, &st);
  else
    same = is_file (opt_dot, opt_stats, NULL);
  if (same)
    g_printerr ("accel-run: --dot %s and --stats %s are one file: give each "
                "its own\n",
        opt_dot, opt_stats);
  return !same;
}

static gboolean
on_tick (gpointer data)
{
  Run *run = data;
  gint64 now = g_get_monotonic_time ();

  /* a refreshing line on a terminal, a plain line a second otherwise */
  if (!opt_quiet && (run->tty || now - run->last_line >= G_USEC_PER_SEC))
    {
      accel_run_print_progress (run, FALSE);
      run->last_line = now;
    }
  return G_SOURCE_CONTINUE;
}

/* the one run of this process: the signal handlers, installed before
 * anything else, find it here */
static Run the_run;

static void
stop_at_once (Run *run)
{
  run->stopped = TRUE;
  if (run->loop)
    g_main_loop_quit (run->loop);
}

static gboolean
on_grace_expired (gpointer data)
{
  Run *run = data;

  run->grace_expired = TRUE;
  stop_at_once (run);
  return G_SOURCE_REMOVE;
}

/* Ctrl-C or SIGTERM while the graph runs: the first ends its stream, the
 * second stops it at once. On the main loop, by way of on_early_signal () */
static void
on_sigint (Run *run)
{
  if (!run->interrupted)
    {
      /* graceful: end of stream through the graph, files finalised, but
       * never longer than the grace */
      run->interrupted = TRUE;
      if (!opt_quiet)
        g_printerr ("%sinterrupted: finishing the frames in flight "
                    "(Ctrl-C again to stop at once)\n",
            run->tty ? "\n" : "");
      accel_graph_send_eos (run->graph);
      g_timeout_add_seconds (GRACE_S, on_grace_expired, run);
      return;
    }
  stop_at_once (run);
}

/* Signals are answered on a thread of their own, as the main loop runs
 * only once the graph does, and loading, joining a world and starting the
 * graph can take up to the world's timeout. Before the graph starts
 * nothing has run that a stop would finish: a signal leaves at once. While
 * its stages start, the first stops the start (a stage's start () that
 * waits, for a FIFO's reader, stops waiting: it waited up to its
 * start-timeout), and a second leaves. Once the main loop runs, each goes
 * to on_sigint () there */
static struct
{
  GMutex lock;
  GMainContext *context;
  GMainLoop *loop;
  GThread *thread;
  AccelGraph *graph; /* while it starts */
  gboolean graph_starting;
  gboolean loop_running;
  gboolean loop_ended;
  gboolean run_over; /* its status said, its outputs written */
  int over_status;
  /* when the main loop was last handed an interrupt it has not taken, or
   * 0: one blocked (a progress line written to a stdout no one reads)
   * took none, the second Ctrl-C either */
  gint64 handed_at;
} early;

/* how long the main loop may leave an interrupt untaken before the next
 * one leaves without it */
#define MAIN_LOOP_ANSWER_US (G_USEC_PER_SEC)

/* on_sigint () once, on the main loop */
static gboolean
on_sigint_once (gpointer data)
{
  g_mutex_lock (&early.lock);
  early.handed_at = 0;
  g_mutex_unlock (&early.lock);
  on_sigint (data);
  return G_SOURCE_REMOVE;
}

/* an interrupt is a signal sent to this process (Ctrl-C, SIGTERM), or one
 * that its supervisor passes on (ACCEL_SUPERVISOR_INTERRUPT), as it does
 * with what is sent to it alone. A terminal's Ctrl-C reaches both, so a
 * worker gets it twice: the interrupts are as many as the more of the two
 * kinds. The supervisor's death (ACCEL_SUPERVISOR_GONE, which may come
 * more than once) is one more before any, and the signals after it count
 * from there (a Ctrl-C then stops at once). On the signals' thread */
static guint signals_sent, signals_passed, interrupts_taken;
static gboolean supervisor_gone;
static guint sent_at_gone, passed_at_gone;

static guint
interrupts (void)
{
  guint n = MAX (signals_sent, signals_passed);

  if (supervisor_gone)
    n = MAX (n,
        1 + MAX (signals_sent - sent_at_gone, signals_passed - passed_at_gone));
  return n;
}

static gboolean
take_interrupt (Run *run, int kind)
{
  gboolean leave = FALSE;

  if (kind == ACCEL_SUPERVISOR_INTERRUPT)
    signals_passed++;
  else if (kind == ACCEL_SUPERVISOR_GONE && !supervisor_gone)
    {
      supervisor_gone = TRUE;
      sent_at_gone = signals_sent;
      passed_at_gone = signals_passed;
    }
  else if (kind != ACCEL_SUPERVISOR_GONE)
    signals_sent++;
  if (interrupts () == interrupts_taken)
    return G_SOURCE_CONTINUE;
  interrupts_taken++;
  g_mutex_lock (&early.lock);
  if (early.loop_running && early.handed_at
      && g_get_monotonic_time () - early.handed_at > MAIN_LOOP_ANSWER_US)
    {
      g_printerr ("accel-run: interrupted again, and the run took no "
                  "interrupt for %.1f s (its output blocked?): leaving at "
                  "once; the frames in flight are lost\n",
          (g_get_monotonic_time () - early.handed_at) / (double)G_USEC_PER_SEC);
      _exit (EXIT_STOPPED);
    }
  if (early.loop_running)
    {
      if (!early.handed_at)
        early.handed_at = g_get_monotonic_time ();
      g_main_context_invoke_full (
          NULL, G_PRIORITY_HIGH, on_sigint_once, run, NULL);
    }
  else if (early.run_over)
    {
      /* nothing is left to lose: the run keeps its status */
      g_printerr ("accel-run: a signal came once the run was over: leaving "
                  "with its status, %d\n",
          early.over_status);
      _exit (early.over_status);
    }
  else if (early.loop_ended || !early.graph_starting || run->early_signal)
    leave = TRUE;
  else
    {
      run->early_signal = TRUE;
      g_printerr ("accel-run: interrupted while the graph starts: stopping "
                  "the start (Ctrl-C again to leave now)\n");
      /* returns at once: the start fails on its own thread */
      accel_graph_interrupt_start (early.graph);
    }
  g_mutex_unlock (&early.lock);
  if (leave)
    {
      g_printerr ("accel-run: interrupted %s: leaving\n",
          early.loop_ended       ? "as the run ended"
          : early.graph_starting ? "again while the graph starts"
                                 : "before the graph started");
      _exit (EXIT_STOPPED);
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
on_early_signal (gpointer data)
{
  return take_interrupt (data, SIGINT);
}

static gboolean
on_passed_signal (gpointer data)
{
  return take_interrupt (data, ACCEL_SUPERVISOR_INTERRUPT);
}

static gboolean
on_supervisor_gone (gpointer data)
{
  return take_interrupt (data, ACCEL_SUPERVISOR_GONE);
}

static gboolean
quit_early_loop (gpointer data)
{
  g_main_loop_quit (early.loop);
  return G_SOURCE_REMOVE;
}

static gpointer
early_signals_thread (gpointer data)
{
  g_main_context_push_thread_default (early.context);
  g_main_loop_run (early.loop);
  g_main_context_pop_thread_default (early.context);
  return NULL;
}

/* whether accel-run takes @sig of stop_signals: not SIGHUP under nohup */
static gboolean
handles_signal (int sig)
{
  return sig != SIGHUP || !hangup_ignored;
}

static void
early_signals_start (Run *run)
{
  g_autoptr (GError) error = NULL;

  early.context = g_main_context_new ();
  early.loop = g_main_loop_new (early.context, FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (stop_signals); i++)
    if (handles_signal (stop_signals[i]))
      {
        g_autoptr (GSource) source = g_unix_signal_source_new (stop_signals[i]);

        g_source_set_callback (source, on_early_signal, run, NULL);
        g_source_attach (source, early.context);
      }
  if (accel_supervisor_is_worker ())
    {
      g_autoptr (GSource) source
          = g_unix_signal_source_new (ACCEL_SUPERVISOR_INTERRUPT);

      g_source_set_callback (source, on_passed_signal, run, NULL);
      g_source_attach (source, early.context);
      g_clear_pointer (&source, g_source_unref);
      source = g_unix_signal_source_new (ACCEL_SUPERVISOR_GONE);
      g_source_set_callback (source, on_supervisor_gone, run, NULL);
      g_source_attach (source, early.context);
      accel_supervisor_take_interrupts ();
    }
  early.thread = accel_thread_try_new (
      "accel-run-signals", early_signals_thread, NULL, &error);
  /* g_thread_new () aborted the process (SIGTRAP, a core dump) */
  if (!early.thread)
    {
      g_printerr ("accel-run: %s\n", error->message);
      exit (EXIT_RUNTIME);
    }
}

/* the graph's stages start now */
static void
early_signals_graph_starting (AccelGraph *graph)
{
  g_mutex_lock (&early.lock);
  early.graph = graph;
  early.graph_starting = TRUE;
  g_mutex_unlock (&early.lock);
}

/* the main loop is about to run: TRUE when a signal came while the graph
 * started, which on_sigint () then takes */
static gboolean
early_signals_loop_running (Run *run)
{
  gboolean pending;

  g_mutex_lock (&early.lock);
  early.loop_running = TRUE;
  pending = run->early_signal;
  g_mutex_unlock (&early.lock);
  return pending;
}

/* the main loop has ended: what is left (stopping the graph, writing the
 * stats) has no loop to take a signal, so one leaves at once (it went to
 * the loop that had ended, and a --stats FIFO no one read held accel-run
 * for good) */
static void
early_signals_loop_ended (void)
{
  g_mutex_lock (&early.lock);
  early.loop_running = FALSE;
  early.loop_ended = TRUE;
  g_mutex_unlock (&early.lock);
}

/* the signals take their default course again (a supervisor's: its worker
 * gets them too) */
static void
early_signals_stop (void)
{
  GSource *source;

  /* quit from inside the loop: a quit before the thread reached
   * g_main_loop_run () (a supervisor stops it soon after it started)
   * would be lost, and the join would wait for good */
  source = g_idle_source_new ();
  g_source_set_callback (source, quit_early_loop, NULL, NULL);
  g_source_attach (source, early.context);
  g_source_unref (source);
  g_thread_join (g_steal_pointer (&early.thread));
  while ((source
          = g_main_context_find_source_by_user_data (early.context, &the_run)))
    g_source_destroy (source);
  g_clear_pointer (&early.loop, g_main_loop_unref);
  g_clear_pointer (&early.context, g_main_context_unref);
}

static gboolean
on_graph_done (gpointer data)
{
  Run *run = data;

  run->done = TRUE;
  g_main_loop_quit (run->loop);
  return G_SOURCE_REMOVE;
}

/* stopping waits for every stage's thread; one stuck in its work would
 * hold it, so a run stopped at once gives it the grace and no more */
static GMutex stop_lock;
static GCond stop_cond;
static gboolean stop_done;

static gpointer
stop_graph (gpointer data)
{
  accel_graph_stop (data);
  g_mutex_lock (&stop_lock);
  stop_done = TRUE;
  g_cond_signal (&stop_cond);
  g_mutex_unlock (&stop_lock);
  return NULL;
}

/* only a supervisor knows what the poisoned, hung and peer-ended statuses
 * mean: a run of no supervisor's fails as any other */
static int
status_outside_worker (int status)
{
  if ((status == ACCEL_EXIT_POISONED || status == ACCEL_EXIT_HUNG
          || status == ACCEL_EXIT_PEER_ENDED)
      && !accel_supervisor_is_worker ())
    return EXIT_RUNTIME;
  return status;
}

/* the run is over, with @status: its outputs are written and what it came
 * to is said. A signal from here leaves with that status (it left as
 * interrupted, status 130, where nothing was lost) */
static void
early_signals_run_over (int status)
{
  g_mutex_lock (&early.lock);
  early.run_over = TRUE;
  early.over_status = status_outside_worker (status);
  g_mutex_unlock (&early.lock);
  g_debug ("the run is over, with status %d", early.over_status);
}

/* stops @graph on a thread of its own and waits for the stop: for the
 * grace when @stuck (a stage may never return), else for as long as it
 * takes (a sink finishing its files), unless the watchdog finds a stage
 * hung meanwhile, which starts the grace. Returns whether it ended */
static gboolean
stop_graph_bounded (AccelGraph *graph, gboolean stuck)
{
  gint64 end = g_get_monotonic_time () + GRACE_S * G_USEC_PER_SEC;
  g_autoptr (GError) error = NULL;
  GThread *stopper
      = accel_thread_try_new ("accel-run-stop", stop_graph, graph, &error);
  gboolean done;

  /* no thread to bound it: a stage that may never return is left, any
   * other stop is waited for here */
  if (!stopper)
    {
      g_printerr ("accel-run: %s\n", error->message);
      if (stuck)
        return FALSE;
      stop_graph (graph);
      return TRUE;
    }

  g_mutex_lock (&stop_lock);
  while (!stop_done && (!stuck || g_get_monotonic_time () < end))
    {
      g_cond_wait_until (&stop_cond, &stop_lock,
          g_get_monotonic_time () + G_USEC_PER_SEC / 10);
      if (!stuck && accel_graph_is_hung (graph))
        {
          stuck = TRUE;
          end = g_get_monotonic_time () + GRACE_S * G_USEC_PER_SEC;
        }
    }
  done = stop_done;
  g_mutex_unlock (&stop_lock);
  if (done)
    g_thread_join (stopper);
  else
    g_thread_unref (stopper);
  return done;
}

/* a blocking wait on a thread of its own: a stage's fault, whatever its
 * code, cannot be taken for a wait's timeout, and accel_graph_stop() ends
 * the wait when the run stops at once */
static gpointer
wait_graph (gpointer data)
{
  Run *run = data;

  accel_graph_wait (run->graph, -1, &run->wait_error);
  /* ahead of the HTTP server's requests on the main loop: a few busy
   * scrapers kept it from ever running, and a finished run went on */
  g_idle_add_full (G_PRIORITY_HIGH, on_graph_done, run, NULL);
  return NULL;
}

/* @text on stdout, all that --list, --describe, --print-yaml and
 * --validate do: EXIT_RUNTIME where it could not be written, saying so (a
 * full disk or a reader gone left an empty or cut file, with status 0) */
static int
print_all (const char *text)
{
  g_autoptr (GError) error = NULL;

  if (accel_run_write_output ("-", text, -1, &error))
    return EXIT_DONE;
  g_printerr ("accel-run: %s\n", error->message);
  return EXIT_RUNTIME;
}

static int
list_kinds (void)
{
  AccelRegistry *reg = accel_registry_get_default ();
  g_autoptr (GPtrArray) kinds = accel_registry_list_kinds (reg);
  g_autoptr (GString) text = g_string_new (NULL);

  for (guint i = 0; i < kinds->len; i++)
    {
      GType t = accel_registry_lookup (reg, kinds->pdata[i]);
      AccelStageClass *klass = g_type_class_ref (t);
      g_string_append_printf (text, "%-24s %s\n", (char *)kinds->pdata[i],
          accel_stage_class_get_description (klass));
      g_type_class_unref (klass);
    }
  return print_all (text->str);
}

/* starts @graph and says what its state directory made of the run (where
 * it resumes, what a live source lost): the notes starting adds */
static gboolean
start_saying_resume (AccelGraph *graph, GError **error)
{
  g_autoptr (GHashTable) before
      = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GPtrArray *notes = accel_graph_get_notes (graph);

  for (guint i = 0; i < notes->len; i++)
    g_hash_table_add (before, g_strdup (notes->pdata[i]));
  if (!accel_graph_start (graph, error))
    return FALSE;
  notes = accel_graph_get_notes (graph);
  for (guint i = 0; i < notes->len && !opt_quiet; i++)
    if (!g_hash_table_contains (before, notes->pdata[i]))
      g_printerr ("accel-run: %s\n", (char *)notes->pdata[i]);
  return TRUE;
}

/* --graph, checked in main() */
static AccelCaptureMode
capture_mode_from_option (void)
{
  GEnumClass *modes = g_type_class_ref (ACCEL_TYPE_CAPTURE_MODE);
  GEnumValue *mode = g_enum_get_value_by_nick (modes, opt_graph);
  AccelCaptureMode value = mode ? mode->value : ACCEL_CAPTURE_AUTO;

  g_type_class_unref (modes);
  return value;
}

/* a state directory that does not fit the pipeline: says how to start
 * over */
static gboolean
hint_restart_state (const GError *error)
{
  if (!g_error_matches (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH))
    return FALSE;
  g_printerr ("accel-run: --restart-state discards the state and starts "
              "over\n");
  return TRUE;
}

/* a state directory that does not fit the pipeline is a mistake of the
 * command line, as an invalid pipeline is */
static int
start_failed_status (const GError *error)
{
  if (hint_restart_state (error))
    return EXIT_INVALID;
  /* a Ctrl-C while it started */
  if (g_error_matches (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED))
    return EXIT_STOPPED;
  if (g_error_matches (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE))
    return EXIT_INVALID;
  return accel_supervisor_exit_status (error);
}

/* --http: serves the running graph on this thread's main loop, and tells
 * where on stderr (tests wait for the line) */
static gboolean
serve_http (AccelGraph *graph, gpointer *http, GError **error)
{
#ifdef ACCEL_HAVE_HTTP
  AccelWorld *world = accel_world_get_default ();
  /* the ranks of a world may share a machine: rank r serves PORT + r */
  guint rank = world ? accel_world_get_rank (world) : 0;
  AccelHttpServer *server = accel_graph_serve_http (graph, opt_http_address,
      opt_http > 0 ? (guint)opt_http + rank : 0, error);
  g_autofree gchar *host = NULL;
  g_autofree gchar *who = NULL;

  if (!server)
    return FALSE;
  host = g_strdup (opt_http_address ? opt_http_address : "127.0.0.1");
  who = world ? g_strdup_printf ("rank %u ", rank) : g_strdup ("");
  g_printerr ("accel-run: %sserving http://%s%s%s:%u/\n", who,
      strchr (host, ':') ? "[" : "", host, strchr (host, ':') ? "]" : "",
      accel_http_server_get_port (server));
  *http = server;
  return TRUE;
#else
  g_set_error_literal (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
      "this accel-run was built without HTTP (-Dhttp, libsoup-3.0)");
  return FALSE;
#endif
}

static void
free_http (gpointer http)
{
#ifdef ACCEL_HAVE_HTTP
  accel_http_server_free (http);
#endif
}

static gboolean
has_sink (AccelGraph *graph)
{
  GPtrArray *stages = accel_graph_get_stages (graph);

  for (guint i = 0; i < stages->len; i++)
    if (accel_stage_get_stage_kind (stages->pdata[i]) == ACCEL_STAGE_SINK)
      return TRUE;
  return FALSE;
}

/* @path with this rank's {rank} and {world} */
static void
substitute_rank (gchar **path, AccelWorld *world)
{
  gchar *mine;

  if (!*path)
    return;
  mine = accel_world_substitute (world, *path);
  g_free (*path);
  *path = mine;
}

/* a stage the running program must feed or drain: accel-run does
 * neither, so its graph would wait for good */
static gboolean
refuse_application_stages (AccelGraph *graph)
{
  GPtrArray *stages = accel_graph_get_stages (graph);

  for (guint i = 0; i < stages->len; i++)
    {
      AccelStage *st = stages->pdata[i];
      gboolean source = accel_stage_get_n_inputs (st) == 0;
      const char *place = accel_yaml_stage_get_place (st);

      if (!accel_stage_needs_application (st))
        continue;
      g_printerr ("%s: stage '%s' (%s) %s the program that runs the "
                  "graph, and accel-run %s none: %s\n",
          place ? place : "accel-run", accel_stage_get_name (st),
          accel_stage_get_kind_name (st),
          source ? "takes its frames from" : "gives its frames to",
          source ? "pushes" : "pulls",
          source ? "read them with io.raw-file-source or io.gst-source"
                 : "write them with io.raw-file-sink or io.gst-sink, or "
                   "drop them with core.null-sink");
      return FALSE;
    }
  return TRUE;
}

/* the run in this process: a worker's, or an unsupervised one */
static int
run_pipeline (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) graph = NULL;
  g_autoptr (GMainLoop) loop = NULL;
  AccelWorld *world = accel_world_get_default ();
  /* a world's supervisor gives each rank a directory of its own */
  const char *state_dir
      = opt_state_dir && !world ? opt_state_dir : g_getenv ("ACCEL_STATE_DIR");
  Run *run = &the_run;
  AccelStage *writer;
  guint tick;
  int status = EXIT_DONE;
  gpointer http = NULL;

  /* each rank its own files: {rank} and {world} in their names */
  substitute_rank (&opt_stats, world);
  substitute_rank (&opt_dot, world);

  /* the ranks of --ranks N were all started with this command line: the
   * loader checks their stages against each other (--validate's ranks are
   * checked once, as rank 0 loads) */
  if (world && opt_ranks > 0 && !opt_validate)
    accel_world_set_same_pipeline (world, TRUE);
  graph = load_graph (path, &error);
  if (!graph)
    {
      g_printerr ("%s\n", error->message);
      return EXIT_INVALID;
    }
  if (opt_graph)
    accel_graph_set_capture_mode (graph, capture_mode_from_option ());
  if ((opt_dot && !check_report_file (graph, "--dot", opt_dot, path, state_dir))
      || (opt_stats
          && !check_report_file (graph, "--stats", opt_stats, path, state_dir))
      || !check_reports_apart ())
    return EXIT_INVALID;
  if (opt_dot && !accel_run_write_dot (graph, opt_dot, &error))
    {
      g_printerr ("accel-run: %s\n", error->message);
      return EXIT_RUNTIME; /* as a report that cannot be written */
    }
  for (guint i = 0; i < accel_graph_get_notes (graph)->len; i++)
    if (!opt_quiet)
      g_printerr (
          "note: %s\n", (char *)accel_graph_get_notes (graph)->pdata[i]);
  if (!refuse_application_stages (graph))
    return EXIT_INVALID;
  if (world && !has_sink (graph))
    {
      g_printerr ("accel-run: rank %u runs no sink (the ranks of its stages "
                  "leave every sink to other ranks): its graph would end at "
                  "once while the other ranks wait for it in their "
                  "collectives; give it one, such as a core.null-sink with "
                  "ranks: [%u]\n",
          accel_world_get_rank (world), accel_world_get_rank (world));
      return EXIT_INVALID;
    }
  if (opt_validate)
    {
      g_autofree gchar *valid = NULL;
      /* a rank's, as its supervisor would give it */
      g_autofree gchar *rank_dir
          = world && opt_state_dir ? g_strdup_printf (
                "%s/rank-%u", opt_state_dir, accel_world_get_rank (world))
                                   : NULL;

      /* what the run would refuse of it, the directory left as it is */
      if (rank_dir)
        state_dir = rank_dir;
      if (state_dir)
        {
          accel_graph_set_state_dir (graph, state_dir, 100 * 1000);
          accel_graph_set_discard_state (graph, opt_restart_state);
          if (!accel_graph_check_state_dir (graph, &error))
            {
              g_printerr ("accel-run: %s\n", error->message);
              hint_restart_state (error);
              return EXIT_INVALID;
            }
        }
      if (opt_quiet)
        return EXIT_DONE;
      valid = world ? g_strdup_printf ("%s: valid as rank %u of %u\n", path,
                  accel_world_get_rank (world), accel_world_get_size (world))
                    : g_strdup_printf ("%s: valid\n", path);
      /* not into the graph --dot wrote to standard output */
      if (opt_dot && report_to_stdout (opt_dot))
        {
          g_printerr ("%s", valid);
          return EXIT_DONE;
        }
      return print_all (valid);
    }

  if (world && !accel_world_join (world, accel_graph_get_name (graph), &error))
    {
      g_printerr ("accel-run: %s\n", error->message);
      return EXIT_RUNTIME;
    }
  if (opt_frames_given)
    accel_graph_set_frame_limit (graph, opt_frames);
  if (state_dir)
    accel_graph_set_state_dir (graph, state_dir, 100 * 1000);
  /* a worker started again after a crash resumes: only the first discards */
  if (opt_restart_state && accel_supervisor_get_generation () == 1)
    accel_graph_set_discard_state (graph, TRUE);
  /* what --validate refuses of it is refused as --validate does (status 2),
   * before any file is made: a read-only directory failed the start with
   * GLib's words, status 1 */
  if (state_dir && !accel_graph_check_state_dir (graph, &error))
    {
      g_printerr ("accel-run: %s\n", error->message);
      hint_restart_state (error);
      return EXIT_INVALID;
    }

  /* frames on stdout are not to be mixed with the progress or the stats */
  writer = stage_writing_fd (graph, STDOUT_FILENO);
  if (writer && opt_stats && g_str_equal (opt_stats, "-"))
    {
      g_printerr ("accel-run: --stats - would write into the frames that "
                  "stage '%s' writes to stdout; give --stats a file\n",
          accel_stage_get_name (writer));
      return EXIT_INVALID;
    }
  /* nor the reports that go there: a JSON or dot reader took the progress
   * lines before them for part of the document */
  run->progress = writer || (opt_stats && report_to_stdout (opt_stats))
                          || (opt_dot && report_to_stdout (opt_dot))
                      ? stderr
                      : stdout;
  /* nor frames on stderr with its messages: they went in among the bytes */
  if ((writer = stage_writing_fd (graph, STDERR_FILENO)))
    {
      g_printerr ("accel-run: stage '%s' writes its frames to stderr, where "
                  "the run's messages go; give it another file\n",
          accel_stage_get_name (writer));
      return EXIT_INVALID;
    }

  /* bound before the graph starts, which may write files: an address that
   * cannot be served fails the run before any frame (a graph that cannot
   * be prepared fails in the start below, as without --http) */
  if (opt_http >= 0 && accel_graph_prepare (graph, NULL)
      && !serve_http (graph, &http, &error))
    {
      g_autofree gchar *who = accel_run_rank_prefix ();

      g_printerr ("accel-run: %s--http: %s\n", who, error->message);
      return EXIT_INVALID;
    }
  loop = g_main_loop_new (NULL, FALSE);
  run->tty = isatty (fileno (run->progress));
  run->t0 = run->last_line = g_get_monotonic_time ();
  early_signals_graph_starting (graph);
  if (!start_saying_resume (graph, &run->error))
    {
      g_clear_pointer (&http, free_http);
      g_printerr ("accel-run: %s\n", run->error->message);
      status = start_failed_status (run->error);
      run->graph = graph;
      if (opt_stats && !accel_run_write_stats (run, opt_stats, &error))
        g_printerr ("accel-run: %s\n", error->message);
      run->graph = NULL;
      g_clear_error (&run->error);
      return status;
    }
  run->graph = graph;
  run->loop = loop;
  /* the sign that the run is under way (tests wait for it) */
  if (!opt_quiet)
    g_printerr ("accel-run: running '%s' (Ctrl-C or SIGTERM to stop)\n",
        accel_graph_get_name (graph));
  run->waiter
      = accel_thread_try_new ("accel-run-wait", wait_graph, run, &error);
  if (!run->waiter)
    {
      g_printerr ("accel-run: %s; stopping\n", error->message);
      accel_graph_stop (graph);
      g_clear_pointer (&http, free_http);
      run->graph = NULL;
      return EXIT_RUNTIME;
    }
  tick = g_timeout_add (250, on_tick, run);
  if (early_signals_loop_running (run))
    on_sigint (run);
  g_main_loop_run (loop);
  early_signals_loop_ended ();
  /* the stages' pools go with accel_graph_stop(): no request after it */
  g_clear_pointer (&http, free_http);
  if (run->grace_expired)
    g_printerr ("accel-run: the frames in flight did not finish within %d s\n",
        GRACE_S);
  if (run->stopped && !stop_graph_bounded (graph, TRUE))
    {
      /* a stage's thread is stuck in its work: only leaving ends it */
      g_printerr ("accel-run: a stage did not return within %d s of being "
                  "stopped; exiting without it, outputs may be incomplete\n",
          GRACE_S);
      /* the stats say the run was stopped (they were not written) */
      if (opt_stats && !accel_run_write_stats (run, opt_stats, &error))
        g_printerr ("accel-run: %s\n", error->message);
      fflush (stdout);
      _exit (EXIT_STOPPED);
    }
  /* a failed graph may have a stage that does not return: hung (the
   * watchdog says so, before or after another stage's failure), or, in a
   * worker, waiting on GPU work of a lost context that never ends (a
   * collective whose peer is gone). Its stop would wait for good: the run
   * leaves without it. Any other failure's stop takes what it takes */
  if (run->done && run->wait_error
      && !stop_graph_bounded (
          graph, accel_graph_is_hung (graph)
                     || (accel_supervisor_is_worker ()
                         && g_error_matches (run->wait_error, ACCEL_ERROR,
                             ACCEL_ERROR_CONTEXT_POISONED))))
    {
      g_printerr ("accel-run: %s\n", run->wait_error->message);
      g_printerr ("accel-run: a stage did not return within %d s of its "
                  "graph failing; leaving without it, outputs hold the "
                  "frames committed\n",
          GRACE_S);
      /* the stats say why the run did not complete */
      if (!run->stopped)
        run->error = g_error_copy (run->wait_error);
      if (opt_stats && !accel_run_write_stats (run, opt_stats, &error))
        g_printerr ("accel-run: %s\n", error->message);
      fflush (stdout);
      _exit (status_outside_worker (
          accel_supervisor_exit_status (run->wait_error)));
    }
  /* wakes the waiter when the run stopped at once */
  accel_graph_stop (graph);
  g_thread_join (g_steal_pointer (&run->waiter));
  g_source_remove (tick);
  run->loop = NULL;
  if (!run->stopped)
    run->error = g_steal_pointer (&run->wait_error);
  g_clear_error (&run->wait_error);

  /* what the run came to is said first: once it is, and the stats are
   * written, the run is over (the last progress line loses nothing) */
  if (run->stopped)
    {
      /* what was left out before the stop is said too */
      accel_run_say_incomplete (graph, FALSE);
      g_printerr ("accel-run: stopped at once; the frames in flight were "
                  "dropped and outputs may be incomplete\n");
      status = EXIT_STOPPED;
    }
  else if (run->error)
    {
      /* and before the error */
      accel_run_say_incomplete (graph, FALSE);
      g_printerr ("accel-run: %s\n", run->error->message);
      status = accel_supervisor_exit_status (run->error);
    }
  else
    {
      /* an interrupt ends the sources where each is */
      if (!run->interrupted)
        accel_run_say_dropped (graph);
      if (accel_run_say_incomplete (graph, TRUE) && status == EXIT_DONE)
        status = EXIT_INCOMPLETE;
    }
  /* the supervisor tells an interrupt of its own from one of this worker
   * alone, whose run ended short */
  if (run->interrupted && status == EXIT_DONE && accel_supervisor_is_worker ())
    status = ACCEL_EXIT_INTERRUPTED;
  /* every frame delivered, some only after a retry: said, and told apart */
  if (accel_run_say_retried (
          graph, status == EXIT_DONE && !accel_supervisor_is_worker ())
      && status == EXIT_DONE)
    status = EXIT_RETRIED;
  if (!opt_stats)
    early_signals_run_over (status);
  if (!opt_quiet)
    accel_run_print_progress (run, TRUE);
  if (opt_stats)
    {
      if (!accel_run_write_stats (run, opt_stats, &error))
        {
          g_printerr ("accel-run: %s\n", error->message);
          /* a stopped or failed run keeps its own status */
          if (!run->stopped && !run->error)
            status = EXIT_RUNTIME;
        }
      early_signals_run_over (status);
    }
  /* a rank started again later waits for this one in vain: it is told why */
  if (world
      && (status == EXIT_DONE || status == EXIT_INCOMPLETE
          || status == EXIT_RETRIED))
    accel_world_finish (world);
  g_clear_error (&run->error);
  run->graph = NULL;
  return status;
}

/* a state directory for a supervised run without --state-dir, removed
 * when it ends (NULL with --state-dir) */
static gchar *
make_tmp_state (GError **error)
{
  if (opt_state_dir)
    return NULL;
  return g_dir_make_tmp ("accel-run-XXXXXX", error);
}

static void
remove_tree (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *f;

  while (d && (f = g_dir_read_name (d)))
    {
      g_autofree gchar *p = g_build_filename (dir, f, NULL);
      if (g_file_test (p, G_FILE_TEST_IS_DIR))
        remove_tree (p);
      else
        g_unlink (p);
    }
  g_rmdir (dir);
}

/* how a supervised run ends: a worker stopped by a second Ctrl-C as an
 * unsupervised run stops */
static int
supervised_status (gboolean ok, const GError *error)
{
  if (ok)
    return EXIT_DONE;
  /* the worker said which frames */
  if (g_error_matches (error, ACCEL_ERROR, ACCEL_ERROR_INCOMPLETE))
    return EXIT_INCOMPLETE;
  g_printerr ("accel-run: %s\n", error->message);
  if (g_error_matches (error, ACCEL_ERROR, ACCEL_ERROR_RETRIED))
    return EXIT_RETRIED;
  if (g_error_matches (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED))
    return EXIT_STOPPED;
  /* the worker said why: its pipeline or options were refused */
  if (g_error_matches (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE))
    return EXIT_INVALID;
  return EXIT_RUNTIME;
}

/* with a GPU the pipeline runs in supervised worker processes, so a poisoned
 * context costs a restart, not the run */
static volatile sig_atomic_t signalled_around_workers;

static void
note_signal_around_workers (int sig)
{
  signalled_around_workers = sig;
}

/* before the supervisor's workers start and after they end, a signal is
 * noted: its default killed the supervisor with its temporary state left
 * behind (SIGTERM as a world finished, status 143). One before the
 * workers start ends the run there */
static void
note_signals_around_workers (void)
{
  struct sigaction note = { 0 };

  note.sa_handler = note_signal_around_workers;
  sigemptyset (&note.sa_mask);
  for (guint i = 0; i < G_N_ELEMENTS (stop_signals); i++)
    if (handles_signal (stop_signals[i]))
      sigaction (stop_signals[i], &note, NULL);
}

/* a signal came before any worker started: no run, no state left. From
 * here the signals wait, blocked, for the supervisor's own handlers
 * (accel_supervisor_begin () unblocks them): one in between is not lost */
static gboolean
signalled_before_workers (gchar *tmp_state)
{
  sigset_t taken;

  sigemptyset (&taken);
  for (guint i = 0; i < G_N_ELEMENTS (stop_signals); i++)
    sigaddset (&taken, stop_signals[i]);
  sigprocmask (SIG_BLOCK, &taken, NULL);
  if (!signalled_around_workers)
    return FALSE;
  g_printerr ("accel-run: interrupted before the graph started: leaving\n");
  if (tmp_state)
    remove_tree (tmp_state);
  return TRUE;
}

static int
supervise (int argc, char **argv, const char *state_dir)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *tmp_state = make_tmp_state (&error);
  gboolean ok;

  if (!opt_state_dir && !tmp_state)
    {
      g_printerr ("accel-run: %s\n", error->message);
      return EXIT_RUNTIME;
    }
  if (signalled_before_workers (tmp_state))
    return EXIT_STOPPED;
  /* the worker keeps its state there, and the supervisor watches its
   * commits (restarts that commit nothing end the run) */
  g_setenv ("ACCEL_STATE_DIR", tmp_state ? tmp_state : state_dir, TRUE);
  ok = accel_supervisor_run ((const char *const *)argv, intensity_restarts,
      intensity_window_ms, &error);
  /* failed or not, the run's own state goes with it */
  if (tmp_state)
    remove_tree (tmp_state);
  return supervised_status (ok, error);
}

/* --ranks N: a world of N local workers, supervised together */
static int
supervise_world (char **argv, const char *pipeline)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *tmp_state = make_tmp_state (&error);
  gboolean ok;

  if (!opt_state_dir && !tmp_state)
    {
      g_printerr ("accel-run: %s\n", error->message);
      return EXIT_RUNTIME;
    }
  if (signalled_before_workers (tmp_state))
    return EXIT_STOPPED;
  ok = accel_world_supervise ((const char *const *)argv, (guint)opt_ranks,
      pipeline, opt_coordinator, opt_state_dir ? opt_state_dir : tmp_state,
      intensity_restarts, intensity_window_ms, &error);
  if (tmp_state)
    remove_tree (tmp_state);
  return supervised_status (ok, error);
}

/* how long rank 0's store outlives its refusal */
#define REFUSAL_SERVED_MS 2000

/* under --coordinator, the other ranks are told that this one refused its
 * pipeline, @why, so that they end at once naming it instead of waiting
 * out the world's timeout (accel_world_refuse ()) */
static void
tell_world_refused (const char *why)
{
  g_autoptr (AccelWorld) world = NULL;
  guint timeout_ms;

  if (!opt_coordinator || opt_world <= 0)
    return;
  world = accel_world_new (opt_coordinator, (guint)opt_rank, (guint)opt_world);
  if (accel_world_timeout_from_env (&timeout_ms, NULL))
    accel_world_set_timeout_ms (world, timeout_ms);
  accel_world_refuse (world, why);
}

/* --coordinator --rank --world: this machine's rank, supervised here; rank
 * 0's supervisor serves the world's store, so it outlives its workers, and
 * refuses ranks that join running another pipeline than @pipeline */
static int
supervise_rank (int argc, char **argv, const char *pipeline)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelStoreServer) server = NULL;
  g_autofree gchar *rank = g_strdup_printf ("%d", opt_rank);
  g_autofree gchar *size = g_strdup_printf ("%d", opt_world);
  g_autofree gchar *dir = NULL;
  int status;

  if (opt_rank == 0
      && !(server = accel_store_server_new (
               opt_coordinator, (guint)opt_world, pipeline, &error)))
    {
      g_printerr ("accel-run: %s\n", error->message);
      return EXIT_RUNTIME;
    }
  g_setenv ("ACCEL_COORDINATOR", opt_coordinator, TRUE);
  g_setenv ("ACCEL_RANK", rank, TRUE);
  g_setenv ("ACCEL_WORLD_SIZE", size, TRUE);
  for (const char *const *d = accel_world_get_worker_defaults (); *d; d += 2)
    g_setenv (d[0], d[1], FALSE);
  if (opt_state_dir)
    dir = g_strdup_printf ("%s/rank-%d", opt_state_dir, opt_rank);
  status = supervise (argc, argv, dir);
  /* rank 0's store is still served: the ranks waiting in it are told */
  if (status == EXIT_INVALID)
    tell_world_refused ("its worker refused it as it started, with status "
                        "2 (that rank's output says why)");
  /* and those still connecting (every 100 ms) have a moment to: a rank 0
   * that refused within a few ms left them to wait out the world's
   * timeout, unable to reach its coordinator */
  if (status == EXIT_INVALID && server)
    g_usleep (REFUSAL_SERVED_MS * G_TIME_SPAN_MILLISECOND);
  return status;
}

/* whether a file @path given to @option can be written at the end of the
 * run: its directory exists. Checked first, so a run is not spent before
 * its summary has nowhere to go */
static gboolean
check_output_path (const char *option, const char *path, GError **error)
{
  g_autofree gchar *mine
      = accel_world_substitute (accel_world_get_default (), path);
  g_autofree gchar *dir = g_path_get_dirname (mine);
  GStatBuf st = { 0 };

  if (g_str_equal (path, "-"))
    return TRUE;
  /* found only after the run otherwise, as the rename to "" failed */
  if (!*mine)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
          "%s: give a file's name, or - for standard output", option);
      return FALSE;
    }
  /* a file where the directory would be, a name too long: not missing */
  if (g_stat (dir, &st) != 0 || !S_ISDIR (st.st_mode))
    {
      int saved = st.st_mode != 0 ? ENOTDIR : errno; /* found, or not */

      if (S_ISREG (st.st_mode))
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR,
            "%s %s: %s is a file, not a directory", option, mine, dir);
      else if (saved == ENOENT)
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
            "%s %s: the directory %s does not exist", option, mine, dir);
      else
        g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
            "%s %s: cannot write in %s: %s", option, mine, dir,
            g_strerror (saved));
      return FALSE;
    }
  /* found only after the run otherwise */
  if (g_file_test (mine, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR,
          "%s %s: that is a directory; give a file's name", option, mine);
      return FALSE;
    }
  /* as the report writes it: a file (new or not) is replaced through a
   * file beside it, which is made here and removed (access () passed
   * directories such as /sys that take no new files), its own name
   * checked against the file system's limit; anything else is written in
   * place */
  if (accel_run_output_replaces (mine))
    {
      g_autofree gchar *probe = accel_run_output_temp (mine);
      int fd;

      if (!accel_run_output_name_fits (mine, error))
        {
          g_prefix_error (error, "%s ", option);
          return FALSE;
        }
      fd = g_mkstemp_full (probe, O_RDWR, 0600);
      if (fd >= 0)
        {
          close (fd);
          g_unlink (probe);
          return TRUE;
        }
    }
  else if (access (mine, W_OK) == 0)
    return TRUE;
  {
    int saved = errno;
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
        "%s %s: cannot be written: %s", option, mine, g_strerror (saved));
  }
  return FALSE;
}

/* --state-dir @dir can be made, as accel_state_dir_open () makes it, with
 * its parents: the nearest of them that is there is a directory this
 * process may write. Checked first, so a bad name is a usage error */
static gboolean
check_state_dir (const char *dir, GError **error)
{
  g_autofree gchar *whole = NULL, *at = NULL;

  /* an empty name was the working directory to this check */
  if (!*dir)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
          "--state-dir: give a directory's name");
      return FALSE;
    }
  whole = g_canonicalize_filename (dir, NULL);
  at = g_strdup (whole);
  while (!g_file_test (at, G_FILE_TEST_EXISTS))
    {
      gchar *parent = g_path_get_dirname (at);

      g_free (at);
      at = parent;
    }
  if (!g_file_test (at, G_FILE_TEST_IS_DIR))
    {
      if (g_str_equal (at, whole))
        g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
            "--state-dir %s is a file, not a directory", dir);
      else
        g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
            "--state-dir %s: %s is a file, not a directory", dir, at);
      return FALSE;
    }
  /* access ()'s errno, which g_file_test () overwrote */
  if (g_str_equal (at, whole))
    return TRUE;
  if (access (at, W_OK | X_OK) != 0)
    {
      int saved = errno;
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
          "--state-dir %s: cannot be made in %s: %s", dir, at,
          g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

/* the ranks of --ranks N share this machine's files: --stats and --dot
 * need {rank} in their names, or one rank's would replace the others'
 * (and on stdout their text would interleave) */
static gchar *
check_rank_path (const char *option, const char *path)
{
  if (!path || opt_ranks <= 1 || strstr (path, "{rank}"))
    return NULL;
  return g_strdup_printf (
      "%s %s: each of the %d ranks would write it; put {rank} in the file's "
      "name, such as %s-{rank}.%s",
      option, path, opt_ranks,
      g_str_equal (option, "--stats") ? "stats" : "graph",
      g_str_equal (option, "--stats") ? "json" : "dot");
}

/* ACCEL_RESTART_INTENSITY=N/MS, when set: N restarts within MS ms */
static gboolean
read_restart_intensity (GError **error)
{
  const char *text = g_getenv ("ACCEL_RESTART_INTENSITY");
  g_auto (GStrv) parts = NULL;
  guint64 n, ms;

  if (!text)
    return TRUE;
  parts = g_strsplit (text, "/", 3);
  if (g_strv_length (parts) != 2
      || !g_ascii_string_to_unsigned (parts[0], 10, 1, 1000, &n, NULL)
      || !g_ascii_string_to_unsigned (parts[1], 10, 1, G_MAXINT32, &ms, NULL))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "ACCEL_RESTART_INTENSITY must be N/MS (N restarts from 1 to 1000 "
          "within MS milliseconds), not '%s'",
          text);
      return FALSE;
    }
  intensity_restarts = (guint)n;
  intensity_window_ms = (gint64)ms;
  return TRUE;
}

/* --ranks, --coordinator, --rank and --world, checked together; returns
 * what is wrong, or NULL */
static gchar *
check_world_options (void)
{
  gchar *problem;
  g_autofree gchar *host = NULL;
  g_autoptr (GError) error = NULL;
  guint16 port;
  guint timeout_ms;

  /* parse_number () kept each in its range: -1 and 0 are "not given" */
  if (opt_ranks > 0 && (opt_rank >= 0 || opt_world > 0))
    return g_strdup ("--ranks starts every rank here: it takes no --rank "
                     "or --world");
  if ((problem = check_rank_path ("--stats", opt_stats))
      || (problem = check_rank_path ("--dot", opt_dot)))
    return problem;
  if (opt_http_address && opt_http == G_MININT)
    return g_strdup ("--http-address is the address of --http PORT's "
                     "server: it takes --http");
  /* it was ignored without a word: each rank ran under its supervisor */
  if (opt_no_supervise && (opt_ranks > 0 || opt_coordinator))
    return g_strdup ("--no-supervise runs one process alone: the ranks of a "
                     "world always run under their supervisor, which "
                     "rebuilds the world when one fails");
  if (opt_http > 0 && MAX (opt_ranks, opt_world) > 1
      && opt_http + MAX (opt_ranks, opt_world) - 1 > G_MAXUINT16)
    return g_strdup_printf ("--http %d: rank r serves port %d + r, which "
                            "for the last rank is past 65535",
        opt_http, opt_http);
  if ((opt_rank >= 0 || opt_world > 0) && !opt_coordinator)
    return g_strdup ("--rank and --world join the world of --coordinator "
                     "HOST:PORT");
  if (opt_coordinator && opt_ranks < 0 && (opt_rank < 0 || opt_world <= 0))
    return g_strdup ("--coordinator needs --rank R and --world W (or "
                     "--ranks N to start every rank here)");
  if (opt_coordinator && opt_world > 0 && opt_rank >= opt_world)
    return g_strdup_printf (
        "--rank must be below --world (%d), not %d", opt_world, opt_rank);
  if (opt_coordinator
      && !accel_store_parse_address (opt_coordinator, &host, &port, &error))
    return g_strdup_printf ("--coordinator: %s", error->message);
  /* every rank would warn, and wait the default instead */
  if ((opt_ranks > 0 || opt_coordinator)
      && !accel_world_timeout_from_env (&timeout_ms, &error))
    return g_strdup (error->message);
  return NULL;
}

/* the first option given that only a pipeline's load or run takes, or
 * NULL: --list, --describe and --print-yaml ignored them without a word
 * (--print-yaml printed the line's file without its --set) */
static const char *
pipeline_option_given (void)
{
  const struct
  {
    const char *name;
    gboolean given;
  } options[] = {
    { "--set", opt_set != NULL },
    { "--device", opt_device != NULL },
    { "--frames", opt_frames_given },
    { "--validate", opt_validate },
    { "--dot", opt_dot != NULL },
    { "--stats", opt_stats != NULL },
    { "--graph", opt_graph != NULL },
    { "--state-dir", opt_state_dir != NULL },
    { "--restart-state", opt_restart_state },
    { "--http", opt_http != G_MININT },
    { "--http-address", opt_http_address != NULL },
    { "--no-supervise", opt_no_supervise },
    { "--ranks", opt_ranks >= 0 },
    { "--coordinator", opt_coordinator != NULL },
    { "--rank", opt_rank >= 0 },
    { "--world", opt_world > 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (options); i++)
    if (options[i].given)
      return options[i].name;
  return NULL;
}

/* --validate with --ranks or --world: the file as each rank takes it
 * (its stages' ranks, {rank}, a sink on every rank), where it was taken
 * as a process alone's and found valid, to fail when run */
static int
validate_world (const char *path, guint size)
{
  g_autofree gchar *dot = g_strdup (opt_dot);

  for (guint r = 0; r < size; r++)
    {
      g_autoptr (AccelWorld) world = accel_world_new ("127.0.0.1:1", r, size);
      int status;

      /* every rank's stages checked against each other once */
      accel_world_set_same_pipeline (world, r == 0);
      /* each rank's own --dot */
      g_free (opt_dot);
      opt_dot = g_strdup (dot);
      accel_world_set_default (world);
      status = run_pipeline (path);
      accel_world_set_default (NULL);
      if (status != EXIT_DONE)
        return status;
    }
  return EXIT_DONE;
}

/* --backend: the default backend for this run and its workers */
static gboolean
apply_backend (GError **error)
{
  AccelBackend b;

  if (!opt_backend)
    return TRUE;
  if (g_str_equal (opt_backend, "host"))
    b = ACCEL_BACKEND_HOST;
  else if (g_str_equal (opt_backend, "cuda"))
    b = ACCEL_BACKEND_CUDA;
  else
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
          "--backend must be host or cuda, not '%s'", opt_backend);
      return FALSE;
    }
  /* workers inherit the choice; and the devices, made next, read it, not
   * the ACCEL_BACKEND it replaces (a warning about that, overridden) */
  g_setenv ("ACCEL_BACKEND", opt_backend, TRUE);
  return accel_backend_set_default (b, error);
}

/* the options' values, checked before anything runs: FALSE with the first
 * that is wrong */
static gboolean
check_options (GError **error)
{
  if (opt_frames_given && opt_frames < 1)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
          "--frames must be 1 or more, not %" G_GINT64_FORMAT, opt_frames);
      return FALSE;
    }
  if (opt_device && !g_str_equal (opt_device, "auto")
      && !g_str_equal (opt_device, "host")
      && !g_ascii_string_to_unsigned (opt_device, 10, 0, 63, NULL, NULL))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
          "--device must be auto, host or a GPU number from 0 to 63, not '%s'",
          opt_device);
      return FALSE;
    }
  if (opt_state_dir && !check_state_dir (opt_state_dir, error))
    return FALSE;
  /* they were ignored without a word */
  if (opt_validate && (opt_stats || opt_http != G_MININT))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
          "--validate runs nothing, so %s has nothing to report",
          opt_stats ? "--stats" : "--http");
      return FALSE;
    }
#ifdef ACCEL_HAVE_HTTP
  if (opt_http_address)
    {
      g_autoptr (GInetAddress) address
          = accel_http_parse_address (opt_http_address, error);
      if (!address)
        {
          g_prefix_error (error, "--http-address: ");
          return FALSE;
        }
    }
#endif
  if (!read_restart_intensity (error)
      || (opt_stats && !check_output_path ("--stats", opt_stats, error))
      || (opt_dot && !check_output_path ("--dot", opt_dot, error)))
    return FALSE;
  if (opt_graph && !g_str_equal (opt_graph, "auto")
      && !g_str_equal (opt_graph, "on") && !g_str_equal (opt_graph, "off"))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
          "--graph must be auto, on or off, not '%s'", opt_graph);
      return FALSE;
    }
  return TRUE;
}

/* whether @line fits a YAML comment as it is: printable, no line break of
 * YAML's own (the rest of the comment was read as YAML) and no control
 * character (the file was refused) */
static gboolean
fits_comment (const char *line)
{
  for (const char *c = line; *c; c = g_utf8_next_char (c))
    {
      gunichar u = g_utf8_get_char (c);

      if (!g_unichar_isprint (u) || u == 0x2028 || u == 0x2029 || u == 0xfeff)
        return FALSE;
    }
  return TRUE;
}

/* --print-yaml: the file -e stands for */
static int
print_yaml (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *yaml = NULL;

  if (!opt_description)
    {
      g_printerr ("accel-run: --print-yaml needs -e DESCRIPTION\n");
      return EXIT_INVALID;
    }
  if (!(yaml = accel_description_to_yaml (opt_description, "-e", &error)))
    {
      g_printerr ("%s\n", error->message);
      return EXIT_INVALID;
    }
  /* quoted for a shell, so that the line can be pasted back: a description
   * may quote its own values */
  if (fits_comment (opt_description))
    {
      g_autofree gchar *quoted = g_shell_quote (opt_description);
      g_autofree gchar *with
          = g_strdup_printf ("# accel-run -e %s\n%s", quoted, yaml);
      return print_all (with);
    }
  return print_all (yaml);
}

/* what accel-run says, its control characters as escapes but its line
 * breaks: a file's name, an option's value or a stage kind, echoed, sent
 * the terminal their escape sequences (its progress line, which rewrites
 * itself, is written apart) */
static void
printerr_escaped (const gchar *text)
{
  g_autofree gchar *shown = accel_str_escape_controls (text, TRUE);

  fputs (shown, stderr);
}

int
main (int argc, char **argv)
{
  g_autoptr (GOptionContext) ctx = g_option_context_new (
      "FILE.yaml | -e DESCRIPTION - run an accel pipeline");
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) args = g_strdupv (argv);
  gint n_args = argc;

  /* the user's language and character set (--help, messages) */
  setlocale (LC_ALL, "");
  /* stdout may carry --stats: every log message goes to stderr (to be
   * set before any thread starts) */
  g_log_writer_default_set_use_stderr (TRUE);
  g_set_printerr_handler (printerr_escaped);
  /* GLib makes its C locale for g_ascii_strtoll () and the like on first
   * use, under a lock: made now, before the signal thread starts, so that
   * thread cannot leave errno set inside a parse, which would then refuse
   * a number ("--frames must be a number, not '5'") */
  g_ascii_strtoll ("0", NULL, 10);
  /* then signals go to their thread (see on_early_signal ()): one before
   * the graph starts leaves at once, one while it starts is taken once it
   * runs. SIGTERM as Ctrl-C: a service manager gets finished files too */
  {
    struct sigaction hup;
    hangup_ignored
        = sigaction (SIGHUP, NULL, &hup) == 0 && hup.sa_handler == SIG_IGN;
  }
  early_signals_start (&the_run);
  /* a reader of stdout that goes away (`accel-run ... | head`) must not
   * end the run unseen: writes there fail instead, the progress lines
   * harmlessly, --stats=- and a sink writing to it as errors. Workers
   * inherit it */
  signal (SIGPIPE, SIG_IGN);
  /* past a file size limit (ulimit -f) a write fails with "File too large"
   * and the sink says which frame, where the signal killed the run with a
   * frame cut short */
  signal (SIGXFSZ, SIG_IGN);

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx,
      "Exit status: 0 done, 1 runtime error, 2 invalid pipeline or usage,\n"
      "3 done with frames skipped or lost, 4 done with every frame but\n"
      "some only after a retry, 130 stopped at once.\n"
      "With a GPU the pipeline runs in a supervised worker process.\n"
      "With --state-dir a run started again resumes where the last one's\n"
      "outputs end; a state directory of another pipeline (other stages,\n"
      "parameters, links or types) is refused with status 2, as is one\n"
      "whose outputs lack what it committed and cannot be written again;\n"
      "--restart-state discards it and starts over.\n");
  /* the strv form frees what it takes out of args (the other leaked it) */
  if (!g_option_context_parse_strv (ctx, &args, &error))
    {
      g_printerr ("accel-run: %s\n", error->message);
      return EXIT_INVALID;
    }
  /* GLib keeps the "--" before a name that starts with '-' (-x.yaml) */
  if (args[0] && args[1] && g_str_equal (args[1], "--"))
    {
      g_free (args[1]);
      memmove (&args[1], &args[2],
          g_strv_length (&args[2]) * sizeof (gchar *) + sizeof (gchar *));
    }
  n_args = (gint)g_strv_length (args);

  if (!apply_backend (&error) || !check_options (&error))
    {
      g_printerr ("accel-run: %s\n", error->message);
      return EXIT_INVALID;
    }
  /* --device is the file's device key, overridden */
  overrides = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; opt_set && opt_set[i]; i++)
    g_ptr_array_add (overrides, g_strdup (opt_set[i]));
  if (opt_device)
    g_ptr_array_add (overrides, g_strdup_printf ("device=%s", opt_device));
  g_ptr_array_add (overrides, NULL);

  /* they were ignored without a word: --list printed alone, and a
   * --print-yaml after --describe */
  if (opt_list + !!opt_describe + opt_print_yaml > 1)
    {
      g_printerr ("accel-run: %s and %s each print one thing; give one\n",
          opt_list ? "--list" : "--describe",
          opt_print_yaml ? "--print-yaml" : "--describe");
      return EXIT_INVALID;
    }
  if ((opt_list || opt_describe) && (n_args > 1 || opt_description))
    {
      g_printerr ("accel-run: %s takes no pipeline\n",
          opt_list ? "--list" : "--describe");
      return EXIT_INVALID;
    }
  if ((opt_list || opt_describe || opt_print_yaml) && pipeline_option_given ())
    {
      g_printerr ("accel-run: %s runs no pipeline, so %s would be ignored\n",
          opt_list       ? "--list"
          : opt_describe ? "--describe"
                         : "--print-yaml",
          pipeline_option_given ());
      return EXIT_INVALID;
    }
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
      return print_all (text);
    }
  if (opt_restart_state && !opt_state_dir && !g_getenv ("ACCEL_STATE_DIR"))
    {
      g_printerr ("accel-run: --restart-state needs --state-dir\n");
      return EXIT_INVALID;
    }
  if (n_args != (opt_description ? 1 : 2))
    {
      g_printerr ("usage: accel-run [OPTION...] FILE.yaml, or accel-run "
                  "[OPTION...] -e DESCRIPTION (see --help)\n");
      return EXIT_INVALID;
    }
  if (opt_print_yaml)
    return print_yaml ();
  if (!accel_supervisor_is_worker ())
    {
      g_autofree gchar *problem = check_world_options ();
      if (problem)
        {
          g_printerr ("accel-run: %s\n", problem);
          return EXIT_INVALID;
        }
    }
  /* rank r of a world on GPU r, unless --device says otherwise */
  if (accel_world_get_default () && !opt_device
      && accel_backend_get_default () == ACCEL_BACKEND_CUDA
      && accel_device_get_n_cuda () > 0)
    {
      g_ptr_array_remove_index (overrides, overrides->len - 1);
      g_ptr_array_add (
          overrides, g_strdup_printf ("device=%u",
                         accel_world_get_rank (accel_world_get_default ())
                             % accel_device_get_n_cuda ()));
      g_ptr_array_add (overrides, NULL);
    }

  /* a world is always supervised, a run on a GPU unless told not to */
  if (!opt_validate && !accel_supervisor_is_worker ()
      && (opt_ranks > 0 || opt_coordinator
          || (!opt_no_supervise
              && accel_backend_get_default () == ACCEL_BACKEND_CUDA)))
    {
      /* check the file here, so a bad one is reported once, with status 2;
       * in a world as its first rank here takes it (its stages' ranks) */
      g_autoptr (AccelWorld) as_rank = NULL;
      g_autoptr (AccelGraph) check = NULL;

      if (opt_ranks > 0 || opt_world > 0)
        {
          as_rank
              = accel_world_new ("127.0.0.1:1", opt_ranks > 0 ? 0 : opt_rank,
                  opt_ranks > 0 ? opt_ranks : opt_world);
          /* the ranks of --ranks N load this file: theirs are checked
           * against each other here, once, before any starts */
          accel_world_set_same_pipeline (as_rank, opt_ranks > 0);
          accel_world_set_default (as_rank);
        }
      check = load_graph (opt_description ? "-e" : args[1], &error);
      if (as_rank)
        accel_world_set_default (NULL);
      if (!check)
        {
          g_printerr ("%s\n", error->message);
          /* rank 0 serves no store yet: the others cannot be told */
          if (opt_rank > 0)
            tell_world_refused (error->message);
          return EXIT_INVALID;
        }
      /* the supervisor passes no main loop; while its workers run it
       * handles the signals itself (accel_supervisor_run ()) */
      early_signals_stop ();
      note_signals_around_workers ();
      if (opt_ranks > 0)
        return supervise_world (argv, accel_graph_get_name (check));
      if (opt_coordinator)
        return supervise_rank (argc, argv, accel_graph_get_name (check));
      return supervise (argc, argv, opt_state_dir);
    }
  if (opt_validate && MAX (opt_ranks, opt_world) > 0)
    return validate_world (
        opt_description ? "-e" : args[1], (guint)MAX (opt_ranks, opt_world));
  return status_outside_worker (
      run_pipeline (opt_description ? "-e" : args[1]));
}
