/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the file descriptors a graph needs, counted before it runs: each
 * stage's thread has a main context (a wakeup descriptor), a source or a
 * sink may hold a file, a sink of a graph with a state directory its commit
 * log, a file beside it and a hold on the directory's lock. A process out
 * of descriptors dies on a trap in GLib, so the soft limit is raised toward
 * the hard one where it is too low, and a graph that cannot fit is
 * refused */
#define G_LOG_DOMAIN "accel-graph"

#include "accelgraph-private.h"

#include <errno.h>
#include <sys/resource.h>

/* what the process and the libraries under it (the CUDA driver opens a
 * few device files) may open besides the graph */
#define RESERVE 32

/* what the process keeps for other uses (accel_graph_reserve_descriptors ()) */
static gint reserved_elsewhere;

static guint
count_open (void)
{
  g_autoptr (GDir) d = g_dir_open ("/proc/self/fd", 0, NULL);
  guint n = 0;

  if (!d)
    return 3;
  while (g_dir_read_name (d))
    n++;
  return n > 0 ? n - 1 : 0; /* less the directory's own */
}

/* an upper bound of what @graph's stages open */
static guint64
count_needed (AccelGraph *graph)
{
  guint64 n = 0;

  for (guint i = 0; i < graph->order->len; i++)
    {
      AccelStage *stage = graph->order->pdata[i];
      AccelStageKind kind = accel_stage_get_stage_kind (stage);

      n += 1; /* the wakeup of its thread's main context */
      if (kind == ACCEL_STAGE_SOURCE || kind == ACCEL_STAGE_SINK)
        n += 1; /* a file it reads or writes */
      if (graph->state_dir && kind == ACCEL_STAGE_SINK)
        n += 3; /* its commit log, its hold on the lock, a file beside */
      if (graph->state_dir && accel_stage_is_live (stage))
        n += 1; /* what it produced */
    }
  return n;
}

/**
 * accel_graph_reserve_descriptors:
 * @n: descriptors to keep (negative: to give back)
 *
 * Keeps @n file descriptors of this process for something besides its
 * graphs, a server's connections say: every graph's count of what it needs
 * (as it is prepared and as it starts) leaves them free, and the soft
 * RLIMIT_NOFILE is raised by @n now, toward the hard one, for graphs that
 * run already. Before, 64 idle connections to accel-run's --http server
 * took the descriptors a sink opened files with, failing the run. MT safe.
 */
void
accel_graph_reserve_descriptors (gint n)
{
  struct rlimit lim;

  g_atomic_int_add (&reserved_elsewhere, n);
  if (n <= 0 || getrlimit (RLIMIT_NOFILE, &lim) != 0
      || lim.rlim_cur == RLIM_INFINITY)
    return;
  lim.rlim_cur = lim.rlim_max == RLIM_INFINITY
                     ? lim.rlim_cur + n
                     : MIN (lim.rlim_max, lim.rlim_cur + n);
  if (setrlimit (RLIMIT_NOFILE, &lim) != 0)
    g_debug ("cannot raise the limit of open files to %" G_GUINT64_FORMAT,
        (guint64)lim.rlim_cur);
}

/**
 * accel_graph_check_descriptors:
 * @graph: a graph whose stages are ordered
 * @error: return location for a #GError, or %NULL
 *
 * Counts the descriptors @graph needs on top of those open now, and raises
 * the soft RLIMIT_NOFILE toward the hard one if it is too low.
 *
 * Returns: %FALSE with %ACCEL_ERROR_INVALID_PIPELINE naming the count and
 * the limit when the hard limit is too low. Called from the thread that
 * builds the graph.
 */
gboolean
accel_graph_check_descriptors (AccelGraph *graph, GError **error)
{
  guint64 graph_needs = count_needed (graph);
  guint64 need = graph_needs + count_open () + RESERVE
                 + MAX (0, g_atomic_int_get (&reserved_elsewhere));
  struct rlimit lim;
  rlim_t was;

  if (getrlimit (RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY
      || need <= lim.rlim_cur)
    return TRUE;
  if (lim.rlim_max != RLIM_INFINITY && need > lim.rlim_max)
    goto too_many;
  was = lim.rlim_cur;
  lim.rlim_cur = lim.rlim_max == RLIM_INFINITY
                     ? need * 2
                     : MIN (lim.rlim_max, MAX (need * 2, was));
  if (setrlimit (RLIMIT_NOFILE, &lim) != 0)
    {
      lim.rlim_max = was;
      goto too_many;
    }
  g_ptr_array_add (graph->notes,
      g_strdup_printf ("raised the limit of open files from %" G_GUINT64_FORMAT
                       " to %" G_GUINT64_FORMAT
                       ": graph '%s' may need %" G_GUINT64_FORMAT,
          (guint64)was, (guint64)lim.rlim_cur, graph->name, need));
  return TRUE;

  /* ERRORS */
too_many:
  {
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
        "graph '%s' needs up to %" G_GUINT64_FORMAT
        " file descriptors (%" G_GUINT64_FORMAT
        " for its %u stages, the rest open already or kept for libraries "
        "and servers), "
        "more than this process may open: the limit is %" G_GUINT64_FORMAT
        " (ulimit -n); raise it or use fewer stages",
        graph->name, need, graph_needs, graph->order->len,
        (guint64)lim.rlim_max);
    return FALSE;
  }
}
