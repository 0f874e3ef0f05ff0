/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel-run's internals: a run's state, what it reports of it
 * (accel-run-report.c) and the files it writes (accel-run-output.c) */
#pragma once

#include <accel/accel.h>
#include <stdio.h>

G_BEGIN_DECLS

/* a run of one pipeline in this process */
typedef struct
{
  AccelGraph *graph;
  GMainLoop *loop;
  GError *error;
  GThread *waiter; /* blocks in accel_graph_wait() */
  GError *wait_error;
  gboolean done; /* the graph ended on its own */
  gboolean interrupted;
  gboolean stopped; /* at once, by a second signal or past the grace */
  gboolean grace_expired;
  gboolean early_signal; /* came before the graph ran */
  gint64 t0;
  gint64 last_line;
  gboolean tty;   /* the progress goes to a terminal */
  FILE *progress; /* stdout, or stderr where a sink writes to stdout */
} Run;

void accel_run_print_progress (Run *run, gboolean final);
gboolean accel_run_write_stats (Run *run, const char *path, GError **error);
gboolean accel_run_output_replaces (const char *path);
gboolean accel_run_output_names_fd (const char *path, int fd);
gchar *accel_run_output_temp (const char *path);
gboolean accel_run_output_name_fits (const char *path, GError **error);
gboolean accel_run_write_output (
    const char *path, gconstpointer data, gssize length, GError **error);
gboolean accel_run_write_dot (
    AccelGraph *graph, const char *path, GError **error);
gchar *accel_run_rank_prefix (void);
gboolean accel_run_say_incomplete (AccelGraph *graph, gboolean ended);
void accel_run_say_dropped (AccelGraph *graph);
gboolean accel_run_say_retried (AccelGraph *graph, gboolean delivered);

G_END_DECLS
