/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel-run: a graph drawn by graphviz's dot, for --dot FILE.svg and the
 * live page: through pipes (no file beside the output to collide with),
 * and bounded in time (a stuck dot holds neither the run nor its end) */
#define G_LOG_DOMAIN "accel-run"

#include "acceldot.h"

#include <accel/accel.h>
#include <gio/gio.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

typedef struct
{
  GSubprocess *proc;
  gboolean done;
  gboolean timed_out;
  GBytes *out, *err;
  GError *error;
} DotRun;

static void
dot_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  DotRun *run = user_data;

  g_subprocess_communicate_finish (
      G_SUBPROCESS (source), result, &run->out, &run->err, &run->error);
  run->done = TRUE;
}

/* in dot, before it runs: a group of its own, killed whole at the
 * timeout, and killed with the process that drew (a run that Ctrl-C ended
 * while dot drew left it running) */
static void
dot_child_setup (gpointer parent)
{
  setpgid (0, 0);
  prctl (PR_SET_PDEATHSIG, SIGKILL);
  if (getppid () != GPOINTER_TO_INT (parent))
    _exit (1);
}

static gboolean
dot_timed_out (gpointer user_data)
{
  DotRun *run = user_data;
  const char *pid = g_subprocess_get_identifier (run->proc);

  run->timed_out = TRUE;
  /* dot and whatever it started */
  if (pid)
    kill (-(pid_t)g_ascii_strtoll (pid, NULL, 10), SIGKILL);
  g_subprocess_force_exit (run->proc);
  return G_SOURCE_REMOVE;
}

/* the first line dot said on stderr, or its exit */
static gchar *
dot_complaint (DotRun *run)
{
  gsize n = 0;
  const char *err = run->err ? g_bytes_get_data (run->err, &n) : NULL;
  const char *end = err ? memchr (err, '\n', n) : NULL;

  if (err && n > 0)
    return g_strndup (err, end ? (gsize)(end - err) : n);
  if (g_subprocess_get_if_exited (run->proc))
    return g_strdup_printf (
        "it exited with %d", g_subprocess_get_exit_status (run->proc));
  return g_strdup_printf (
      "it was killed by signal %d", g_subprocess_get_term_sig (run->proc));
}

/**
 * accel_dot_render:
 * @dot: a graph in graphviz's language
 * @format: what dot makes of it: "svg" or "png"
 * @timeout_ms: how long dot may take before it is killed
 * @error: return location for a #GError, or %NULL
 *
 * Runs `dot -T@format` on @dot, on a main context of its own, so nothing
 * else runs on the caller's meanwhile.
 *
 * Returns: (transfer full): what dot wrote, or %NULL with @error:
 * %ACCEL_ERROR_NOT_SUPPORTED without dot, %ACCEL_ERROR_TIMEOUT when it took
 * longer than @timeout_ms, %ACCEL_ERROR_FAILED when it failed (with the
 * first line it said). MT safe.
 */
GBytes *
accel_dot_render (
    const char *dot, const char *format, guint timeout_ms, GError **error)
{
  g_autoptr (GMainContext) context = g_main_context_new ();
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GSubprocess) proc = NULL;
  g_autoptr (GSource) timeout = NULL;
  g_autoptr (GBytes) input = g_bytes_new (dot, strlen (dot));
  g_autofree gchar *exe = g_find_program_in_path ("dot");
  g_autofree gchar *flag = g_strconcat ("-T", format, NULL);
  DotRun run = { 0 };
  GBytes *out = NULL;

  if (!exe)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_NOT_SUPPORTED,
          "drawing the graph as %s needs graphviz's 'dot', which is not "
          "installed",
          format);
      return NULL;
    }
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE
                                        | G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                        | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_set_child_setup (
      launcher, dot_child_setup, GINT_TO_POINTER (getpid ()), NULL);
  proc = g_subprocess_launcher_spawn (launcher, error, exe, flag, NULL);
  if (!proc)
    return NULL;
  g_main_context_push_thread_default (context);
  timeout = g_timeout_source_new (timeout_ms);
  run.proc = proc;
  g_source_set_callback (timeout, dot_timed_out, &run, NULL);
  g_source_attach (timeout, context);
  g_subprocess_communicate_async (proc, input, NULL, dot_done, &run);
  while (!run.done)
    g_main_context_iteration (context, TRUE);
  g_source_destroy (timeout);
  /* the pipes closed before the exit is seen: wait for it, as the one
   * way out of communicate () is dot's end or its kill */
  g_subprocess_wait (proc, NULL, NULL);
  g_main_context_pop_thread_default (context);

  if (run.timed_out)
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT,
        "dot %s took more than %u ms and was killed", flag, timeout_ms);
  else if (run.error)
    g_propagate_prefixed_error (
        error, g_steal_pointer (&run.error), "dot %s: ", flag);
  else if (!g_subprocess_get_successful (proc))
    {
      g_autofree gchar *why = dot_complaint (&run);
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED, "dot %s failed: %s",
          flag, why);
    }
  else
    out = g_steal_pointer (&run.out);
  g_clear_pointer (&run.out, g_bytes_unref);
  g_clear_pointer (&run.err, g_bytes_unref);
  g_clear_error (&run.error);
  return out;
}
