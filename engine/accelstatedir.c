/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: a graph's state directory, what lets a run resume after a crash:
 * the sinks' commit logs (<sink>.commits), the stateful stages'
 * checkpoints (<stage>.checkpoint.<sequence>), the live sources' last
 * sequence (<source>.produced) */
#define G_LOG_DOMAIN "accel-graph"

#include "accel-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* <dir>/lock, locked (flock) while a graph uses @dir and holding its
 * process id; the caller hands a copy of the descriptor to each commit
 * log, so the lock ends with the last of them. Returns the descriptor, or
 * -1 */
static int
lock_state_dir (const char *dir, GError **error)
{
  g_autofree gchar *path = g_build_filename (dir, "lock", NULL);
  g_autofree gchar *pid = NULL;
  int fd, saved;

  fd = g_open (path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    goto failed;
  if (flock (fd, LOCK_EX | LOCK_NB) != 0)
    {
      g_autofree gchar *holder = NULL;
      saved = errno;
      close (fd);
      if (saved != EWOULDBLOCK)
        {
          errno = saved;
          goto failed;
        }
      if (g_file_get_contents (path, &holder, NULL, NULL))
        g_strstrip (holder);
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "the state directory %s is in use by another run (process %s); "
          "two runs writing one state would mix their frames",
          dir, holder && *holder ? holder : "unknown");
      return -1;
    }
  pid = g_strdup_printf ("%ld\n", (long)getpid ());
  if (ftruncate (fd, 0) != 0
      || pwrite (fd, pid, strlen (pid), 0) != (ssize_t)strlen (pid))
    {
      saved = errno;
      close (fd);
      errno = saved;
      goto failed;
    }
  return fd;

  /* ERRORS */
failed:
  {
    saved = errno;
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED, "cannot lock %s: %s",
        path, g_strerror (saved));
    return -1;
  }
}

/* a live source keeps its last sequence in <stage>.produced: what it had
 * produced from @resume on was never committed, and it cannot produce it
 * again, so it is lost; counted, and said in a note */
static gboolean
open_produced_file (const char *dir, GPtrArray *notes, AccelStage *stage,
    guint64 resume, GError **error)
{
  g_autofree gchar *file
      = g_strdup_printf ("%s.produced", accel_stage_get_name (stage));
  g_autofree gchar *path = g_build_filename (dir, file, NULL);
  g_autofree gchar *text = NULL;
  guint64 last, n_lost = 0;
  int fd;

  if (resume != G_MAXUINT64 && g_file_get_contents (path, &text, NULL, NULL)
      && g_ascii_string_to_unsigned (
          g_strstrip (text), 10, 0, G_MAXUINT64 - 1, &last, NULL)
      && last >= resume)
    {
      n_lost = last - resume + 1;
      g_ptr_array_add (
          notes, g_strdup_printf ("stage '%s' (%s) is live and cannot produce "
                                  "frames again: %" G_GUINT64_FORMAT
                                  " frames (sequences %" G_GUINT64_FORMAT
                                  " to %" G_GUINT64_FORMAT
                                  ") were lost in the restart",
                     accel_stage_get_name (stage),
                     accel_stage_get_kind_name (stage), n_lost, resume, last));
    }
  fd = g_open (path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED, "cannot open %s: %s",
          path, g_strerror (errno));
      return FALSE;
    }
  accel_stage_set_produced_file (stage, fd, n_lost);
  return TRUE;
}

/* "dir/stage.checkpoint", or NULL for a stage that keeps no state */
static gchar *
checkpoint_base (const char *dir, AccelStage *stage)
{
  g_autofree gchar *file = NULL;

  if (!ACCEL_STAGE_GET_CLASS (stage)->snapshot)
    return NULL;
  file = g_strdup_printf ("%s.checkpoint", accel_stage_get_name (stage));
  return g_build_filename (dir, file, NULL);
}

/* whether @stage's state must be restored for the graph to resume: it
 * saved some, or it never saves any (snapshot-interval 0). A stage that
 * saved none though its first snapshot came at frame 0, before anything
 * could be committed, holds no state (effects without temporal ones) */
static gboolean
holds_state (AccelStage *stage, const char *base)
{
  g_autofree gchar *newest = NULL;
  guint64 seq;
  guint interval = 0;

  g_object_get (stage, "snapshot-interval", &interval, NULL);
  newest = accel_checkpoint_find (base, G_MAXUINT64, &seq);
  return newest != NULL || interval == 0;
}

/* Every stateful stage must start from its state after one same frame, the
 * one before the sources resume: the newest frame before @resume (the
 * first uncommitted one) at which each of them saved its state, or none,
 * and everything starts over. Frames after it run again and the sinks skip
 * what they committed. Returns where the sources resume. */
static guint64
common_checkpoint (const char *dir, GPtrArray *order, guint64 resume)
{
  guint64 r = resume == G_MAXUINT64 ? 0 : resume, before;

  do
    {
      before = r;
      for (guint i = 0; i < order->len && r > 0; i++)
        {
          AccelStage *stage = order->pdata[i];
          g_autofree gchar *base = checkpoint_base (dir, stage);
          g_autofree gchar *from = NULL;
          guint64 seq;

          if (!base || !holds_state (stage, base))
            continue;
          from = accel_checkpoint_find (base, r, &seq);
          r = from ? MIN (r, seq + 1) : 0;
        }
    }
  while (r != before && r > 0);

  for (guint i = 0; i < order->len; i++)
    {
      AccelStage *stage = order->pdata[i];
      g_autofree gchar *base = checkpoint_base (dir, stage);
      g_autofree gchar *from = NULL;
      guint64 seq;

      if (!base)
        continue;
      if (r > 0 && holds_state (stage, base))
        from = accel_checkpoint_find (base, r, &seq);
      accel_stage_set_checkpoint (stage, base, from);
    }
  return resume == G_MAXUINT64 ? resume : r;
}

/**
 * accel_state_dir_open:
 * @dir: the state directory
 * @commit_interval_us: how often commit logs reach the disk
 * @order: (element-type AccelStage): the graph's stages, in topological
 *   order
 * @notes: (element-type utf8): where to say what was decided
 * @error: return location for a #GError, or %NULL
 *
 * Opens the sinks' commit logs, finds the frame every stateful stage can
 * restart from, and tells the sources where to resume and the live ones
 * where to keep what they produced. Called from the thread that starts the
 * graph, before any stage starts.
 *
 * Returns: %FALSE when a file of @dir cannot be opened or made.
 */
gboolean
accel_state_dir_open (const char *dir, gint64 commit_interval_us,
    GPtrArray *order, GPtrArray *notes, GError **error)
{
  guint64 resume = G_MAXUINT64;
  int lock_fd;

  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      int saved = errno;
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "cannot create the state directory %s: %s", dir, g_strerror (saved));
      return FALSE;
    }
  if ((lock_fd = lock_state_dir (dir, error)) < 0)
    return FALSE;
  for (guint i = 0; i < order->len; i++)
    {
      AccelStage *stage = order->pdata[i];
      g_autofree gchar *file = NULL, *path = NULL;
      AccelCommitLog *log;

      if (accel_stage_get_stage_kind (stage) != ACCEL_STAGE_SINK)
        continue;
      file = g_strdup_printf ("%s.commits", accel_stage_get_name (stage));
      path = g_build_filename (dir, file, NULL);
      if (!(log = accel_commit_log_open (path, error)))
        {
          close (lock_fd);
          return FALSE;
        }
      accel_commit_log_hold_lock (log, fcntl (lock_fd, F_DUPFD_CLOEXEC, 0));
      accel_commit_log_set_sync_interval (log, commit_interval_us);
      resume = MIN (resume, accel_commit_log_first_uncommitted (log));
      accel_stage_set_commit_log (stage, log);
    }
  close (lock_fd);
  resume = common_checkpoint (dir, order, resume);
  for (guint i = 0; i < order->len; i++)
    {
      AccelStage *stage = order->pdata[i];
      if (accel_stage_get_n_inputs (stage) == 0)
        accel_stage_set_start_sequence (
            stage, resume == G_MAXUINT64 ? 0 : resume);
      if (accel_stage_is_live (stage)
          && !open_produced_file (dir, notes, stage, resume, error))
        return FALSE;
    }
  if (resume > 0 && resume != G_MAXUINT64)
    g_ptr_array_add (
        notes, g_strdup_printf ("resuming at frame %" G_GUINT64_FORMAT
                                " from the commit logs in %s",
                   resume, dir));
  return TRUE;
}
