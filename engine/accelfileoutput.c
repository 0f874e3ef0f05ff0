/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: sinks that write files: where they write is checked when the graph
 * is prepared, what they wrote against their commit log when it resumes */
#define G_LOG_DOMAIN "accel-graph"

#include "accel-private.h"
#include "accelgraph-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

G_DEFINE_INTERFACE (AccelFileOutput, accel_file_output, ACCEL_TYPE_STAGE)

static void
accel_file_output_default_init (AccelFileOutputInterface *iface)
{
}

/**
 * accel_file_output_get_path:
 * @output: a stage that writes files
 *
 * Returns: (transfer full) (nullable): the file @output writes first, or
 * %NULL when it writes none. Called from the thread that builds the graph.
 */
gchar *
accel_file_output_get_path (AccelFileOutput *output)
{
  AccelFileOutputInterface *iface;

  g_return_val_if_fail (ACCEL_IS_FILE_OUTPUT (output), NULL);

  iface = ACCEL_FILE_OUTPUT_GET_IFACE (output);
  return iface->get_path ? iface->get_path (output) : NULL;
}

/* @path with its links resolved as far as they lead: realpath () where
 * the file is, else its directory's and its name, a dangling link followed
 * to the name of the file it will make */
gchar *
accel_file_resolved_path (const char *path)
{
  g_autofree gchar *name = g_canonicalize_filename (path, NULL);

  /* as many links as the kernel follows (MAXSYMLINKS) */
  for (guint hops = 0; hops < 40; hops++)
    {
      char *real = realpath (name, NULL);
      g_autofree gchar *target = NULL, *dir = NULL;
      gchar *key;

      if (real)
        {
          key = g_strdup (real);
          free (real);
          return key;
        }
      dir = g_path_get_dirname (name);
      if (!(target = g_file_read_link (name, NULL)))
        {
          g_autofree gchar *base = g_path_get_basename (name);

          real = realpath (dir, NULL);
          key = real ? g_build_filename (real, base, NULL) : g_strdup (name);
          free (real);
          return key;
        }
      g_free (name);
      name = g_canonicalize_filename (target, dir);
    }
  return g_steal_pointer (&name);
}

/* the file @path names, as a key that every name of it shares: a file
 * that is there by its device and inode (its hard links too), one not
 * there yet by accel_file_resolved_path (); NULL for what is no regular
 * file (a FIFO, /dev/null: shared on purpose) */
gchar *
accel_file_identity (const char *path)
{
  GStatBuf st;

  if (!path || !*path)
    return NULL;
  if (g_stat (path, &st) != 0)
    return accel_file_resolved_path (path);
  if (!S_ISREG (st.st_mode))
    return NULL;
  return g_strdup_printf ("inode %" G_GUINT64_FORMAT " on %" G_GUINT64_FORMAT,
      (guint64)st.st_ino, (guint64)st.st_dev);
}

/**
 * accel_file_output_dup_identity:
 * @output: a stage that writes files
 *
 * The file @output writes first as a key that every name of it shares
 * (`./`, symbolic and hard links, a link to a file not there yet): two
 * outputs with equal keys write one file.
 *
 * Returns: (transfer full) (nullable): the key, or %NULL when @output
 * writes no file or writes what is no regular file (a FIFO, /dev/null).
 * Called from the thread that builds the graph.
 */
gchar *
accel_file_output_dup_identity (AccelFileOutput *output)
{
  g_autofree gchar *path = NULL;

  g_return_val_if_fail (ACCEL_IS_FILE_OUTPUT (output), NULL);

  path = accel_file_output_get_path (output);
  return accel_file_identity (path);
}

/**
 * accel_stage_dup_input_file_identity:
 * @stage: a stage
 * @path: (out) (optional) (transfer full): the file's name as given
 *
 * The file a source reads (its "location", or the first location= of its
 * GStreamer "description": a filesrc's) as a key every name of it shares,
 * as accel_file_output_dup_identity() gives a sink's: a sink whose key is
 * equal writes over the source's input.
 *
 * Returns: (transfer full) (nullable): the key, or %NULL when @stage reads
 * no file (it has inputs, or no location) or reads what is no regular
 * file. Called from the thread that builds the graph.
 */
gchar *
accel_stage_dup_input_file_identity (AccelStage *stage, gchar **path)
{
  g_autofree gchar *input = NULL;

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), NULL);
  input = accel_graph_source_input (stage);
  if (path)
    *path = g_strdup (input);
  return input ? accel_file_identity (input) : NULL;
}

/**
 * accel_file_output_writes:
 * @output: a stage that writes files, negotiated
 * @path: (nullable): a file's name
 *
 * Whether @output writes the file @path names, by any name of it (as
 * accel_file_output_dup_identity () compares them): its one file, or,
 * for a stage that writes a file per frame, any of them (an io.png-sink's
 * `frame-%05d.png` writes frame-00007.png, which a check of its first
 * file alone missed).
 *
 * Returns: %TRUE when it does. Called from the thread that builds the
 * graph.
 */
gboolean
accel_file_output_writes (AccelFileOutput *output, const char *path)
{
  AccelFileOutputInterface *iface;
  g_autofree gchar *own = NULL, *own_key = NULL, *key = NULL;
  g_autofree gchar *own_dir = NULL, *dir = NULL, *a = NULL, *b = NULL;
  g_autofree gchar *name = NULL;

  g_return_val_if_fail (ACCEL_IS_FILE_OUTPUT (output), FALSE);

  iface = ACCEL_FILE_OUTPUT_GET_IFACE (output);
  own = accel_file_output_get_path (output);
  if (!own || !path || !*path)
    return FALSE;
  own_key = accel_file_identity (own);
  key = accel_file_identity (path);
  if (own_key && key && g_str_equal (own_key, key))
    return TRUE;
  if (!iface->writes_name)
    return FALSE;
  /* the same directory, and a name of the pattern's */
  own_dir = g_path_get_dirname (own);
  dir = g_path_get_dirname (path);
  a = accel_file_resolved_path (own_dir);
  b = accel_file_resolved_path (dir);
  name = g_path_get_basename (path);
  return g_str_equal (a, b) && iface->writes_name (output, name);
}

/**
 * accel_file_output_check_path:
 * @output: a stage that writes files, negotiated
 * @error: return location for a #GError, or %NULL
 *
 * Checks that the file @output writes can be written: it is writable if it
 * exists, else its directory exists and is writable.
 *
 * Returns: %FALSE with %ACCEL_ERROR_INVALID_PIPELINE naming the stage and
 * the file when it cannot. Called from the thread that builds the graph.
 */
gboolean
accel_file_output_check_path (AccelFileOutput *output, GError **error)
{
  g_autofree gchar *path = accel_file_output_get_path (output);

  return !path
         || accel_file_output_check_writable (
             ACCEL_STAGE (output), path, error);
}

/**
 * accel_file_output_check_writable:
 * @stage: the stage that writes @path (its own, or an element's of a
 *   GStreamer description it runs)
 * @path: a file
 * @error: return location for a #GError, or %NULL
 *
 * Checks that @path can be written: it is writable if it exists, else its
 * directory exists and is writable.
 *
 * Returns: %FALSE with %ACCEL_ERROR_INVALID_PIPELINE naming @stage and
 * @path when it cannot. Called from the thread that builds the graph.
 */
gboolean
accel_file_output_check_writable (
    AccelStage *stage, const char *path, GError **error)
{
  g_autofree gchar *dir = NULL;
  const char *problem = NULL;
  int saved = 0;

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    problem = "it is a directory";
  else if (g_file_test (path, G_FILE_TEST_EXISTS))
    {
      if (g_access (path, W_OK) != 0)
        saved = errno;
    }
  else
    {
      GStatBuf st;

      dir = g_path_get_dirname (path);
      /* a name too long, a file where the directory would be: not missing */
      if (g_stat (dir, &st) != 0)
        {
          saved = errno;
          if (saved == ENOENT)
            problem = "its directory does not exist";
        }
      else if (!S_ISDIR (st.st_mode))
        problem = "its directory is a file, not a directory";
      else if (g_access (dir, W_OK) != 0)
        saved = errno;
    }
  if (!problem && saved == 0)
    return TRUE;
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
      "stage '%s' (%s): cannot write %s: %s", accel_stage_get_name (stage),
      accel_stage_get_kind_name (stage), path,
      problem ? problem : g_strerror (saved));
  return FALSE;
}

/**
 * accel_file_output_verify:
 * @output: a stage that writes files, negotiated and not started
 * @log: its commit log, from an earlier run
 * @what: (out) (transfer full) (optional): set to what was found when
 *   anything was taken out of @log, else to %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Checks what @output's files hold against @log, and takes out of @log
 * what they lack, so that it is produced again.
 *
 * Returns: %FALSE when the output cannot be checked or repaired.
 * Called from the thread that starts the graph.
 */
gboolean
accel_file_output_verify (
    AccelFileOutput *output, AccelCommitLog *log, gchar **what, GError **error)
{
  AccelFileOutputInterface *iface;
  gchar *found = NULL;

  g_return_val_if_fail (ACCEL_IS_FILE_OUTPUT (output), FALSE);
  g_return_val_if_fail (log != NULL, FALSE);

  iface = ACCEL_FILE_OUTPUT_GET_IFACE (output);
  if (iface->verify && !iface->verify (output, log, &found, error))
    return FALSE;
  if (what)
    *what = found;
  else
    g_free (found);
  return TRUE;
}

/**
 * accel_file_output_keep_in_order:
 * @log: the commit log of a sink whose file holds its frames in order from
 *   0 (appended one after the other)
 * @location: the file, named in @what
 * @n_whole: how many frames the file holds whole, in order from 0
 * @what: (out) (transfer full): set to what was found when anything was
 *   taken out of @log, else left alone
 * @error: return location for a #GError, or %NULL
 *
 * For the verify() of such a sink: takes out of @log every frame from the
 * first one the file lacks, and from the first gap of @log (a frame
 * committed past a gap, one skipped in an earlier run, sits in the file
 * where the gap's frame belongs), so that they are all written again, in
 * order.
 *
 * Returns: %FALSE when @log cannot be rewritten.
 * Called from the thread that starts the graph.
 */
gboolean
accel_file_output_keep_in_order (AccelCommitLog *log, const char *location,
    guint64 n_whole, gchar **what, GError **error)
{
  guint64 first = accel_commit_log_first_uncommitted (log);
  guint64 n_committed = accel_commit_log_get_n_committed (log);

  g_return_val_if_fail (log != NULL, FALSE);
  g_return_val_if_fail (what != NULL, FALSE);

  if (n_whole < first)
    *what = g_strdup_printf (
        "%s holds %" G_GUINT64_FORMAT
        " whole frames in order, its commit log %" G_GUINT64_FORMAT
        "; frames from %" G_GUINT64_FORMAT " on are lost",
        location, n_whole, first, n_whole);
  else if (n_committed > first)
    *what = g_strdup_printf ("frame %" G_GUINT64_FORMAT
                             " is missing from %s and %" G_GUINT64_FORMAT
                             " frames after it were committed out of place",
        first, location, n_committed - first);
  else
    return TRUE;
  return accel_commit_log_forget_from (log, MIN (n_whole, first), error);
}

/**
 * accel_file_output_open_fifo:
 * @stage: the sink that opens it
 * @path: a FIFO
 * @timeout_ms: how long to wait for a reader (the stage's start-timeout)
 * @error: return location for a #GError, or %NULL
 *
 * Opens @path for writing once a process has it open for reading. A FIFO
 * opened for writing waits for a reader, for good: a start that neither
 * the watchdog nor Ctrl-C ended. It is opened without waiting instead,
 * again every 20 ms, until @timeout_ms or until the stage stops.
 *
 * Returns: the descriptor, non-blocking, or -1 with %ACCEL_ERROR_TIMEOUT
 * (no reader came), %ACCEL_ERROR_STOPPED (the stage stopped, or its
 * graph's start was interrupted) or %ACCEL_ERROR_FAILED (it cannot be
 * opened). Called from the stage's thread.
 */
int
accel_file_output_open_fifo (
    AccelStage *stage, const char *path, gint64 timeout_ms, GError **error)
{
  gint64 deadline = accel_deadline_after (timeout_ms * 1000);
  int fd, saved;

  while ((fd = g_open (path, O_WRONLY | O_NONBLOCK | O_CLOEXEC, 0)) < 0
         && errno == ENXIO)
    {
      if (g_get_monotonic_time () >= deadline)
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT,
              "cannot open %s: no process opened it for reading within "
              "%" G_GINT64_FORMAT " ms (start-timeout)",
              path, timeout_ms);
          return -1;
        }
      if (accel_stage_should_stop (stage))
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED,
              "cannot open %s: stopped while no process had it open for "
              "reading",
              path);
          return -1;
        }
      g_usleep (20 * G_TIME_SPAN_MILLISECOND);
    }
  if (fd >= 0)
    return fd;
  saved = errno;
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED, "cannot open %s: %s",
      path, g_strerror (saved));
  return -1;
}

/**
 * accel_file_output_dup_std:
 * @location: a sink's location
 *
 * A sink that writes to standard output or error by name (/dev/stdout,
 * /dev/fd/1, /proc/self/fd/1; the same with 2) where that is a regular
 * file writes to the descriptor the process has: opened again by name, a
 * file the shell opened to append (`>>`) was emptied (O_TRUNC) and the
 * frames replaced what it held. A pipe or a terminal is opened by name as
 * any stream is: its descriptor is shared with the shell, whose terminal
 * would keep the O_NONBLOCK of the stream's writes.
 *
 * Returns: a duplicate of descriptor 1 or 2 (close-on-exec), or -1 when
 * @location names neither or it is no regular file. MT safe.
 */
int
accel_file_output_dup_std (const char *location)
{
  static const char *const names[][3] = {
    { "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1" },
    { "/dev/stderr", "/dev/fd/2", "/proc/self/fd/2" },
  };
  struct stat st;

  for (int fd = 1; location && fd <= 2; fd++)
    for (guint i = 0; i < G_N_ELEMENTS (names[0]); i++)
      if (g_str_equal (location, names[fd - 1][i]))
        return fstat (fd, &st) == 0 && S_ISREG (st.st_mode)
                   ? fcntl (fd, F_DUPFD_CLOEXEC, 3)
                   : -1;
  return -1;
}

/**
 * accel_file_output_check_kept:
 * @stage: the sink that writes it
 * @fd: the descriptor it writes through
 * @path: the file's name
 * @error: return location for a #GError, or %NULL
 *
 * At the end of the stream, whether the regular file the sink wrote
 * through @fd is still @path: one removed while the run wrote it (its
 * directory with it) took every frame with it, and the run ended 0 as if
 * they were written; one moved (renamed, or its directory) holds them
 * under a name the run was not given; one replaced by another file of that
 * name holds none of them. Anything else (a FIFO, a terminal) passes.
 *
 * Returns: %FALSE with %ACCEL_ERROR_FAILED naming the stage and the file.
 * MT safe.
 */
gboolean
accel_file_output_check_kept (
    AccelStage *stage, int fd, const char *path, GError **error)
{
  struct stat written, named;
  const char *what;

  if (fd < 0 || fstat (fd, &written) != 0 || !S_ISREG (written.st_mode))
    return TRUE;
  if (g_stat (path, &named) == 0)
    {
      if (named.st_ino == written.st_ino && named.st_dev == written.st_dev)
        return TRUE;
      what = written.st_nlink == 0
                 ? "was replaced by another file while the run wrote it: "
                   "the frames written went with the file it was"
                 : "was replaced by another file while the run wrote it: "
                   "the frames written are under another name";
    }
  else if (written.st_nlink == 0)
    what = "was removed while the run wrote it: the frames written went "
           "with it";
  /* a name too long to look up, a directory made unreadable: not known to
   * be gone */
  else if (errno == ENOENT || errno == ENOTDIR)
    what = "was moved (itself or a directory above it) while the run "
           "wrote it: the frames written are under another name";
  else
    return TRUE;
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED, "stage '%s' (%s): %s %s",
      accel_stage_get_name (stage), accel_stage_get_kind_name (stage), path,
      what);
  return FALSE;
}

/**
 * accel_file_output_check_length:
 * @stage: the sink that writes it
 * @fd: the descriptor it writes through
 * @path: the file's name
 * @written: how long the sink made the file
 * @error: return location for a #GError, or %NULL
 *
 * Whether the regular file the sink writes through @fd is still as long as
 * it made it: one emptied or cut by another program while the run wrote it
 * lost the frames past its new end, and the sink's next writes would leave
 * a hole of zeros, or lines missing, in a file of the whole run's length.
 * A sink calls it before each frame it writes and at the end of the
 * stream. Anything but a regular file passes.
 *
 * Returns: %FALSE with %ACCEL_ERROR_FAILED naming the stage, the file and
 *   both lengths. MT safe.
 */
gboolean
accel_file_output_check_length (AccelStage *stage, int fd, const char *path,
    goffset written, GError **error)
{
  struct stat st;

  if (fd < 0 || fstat (fd, &st) != 0 || !S_ISREG (st.st_mode)
      || st.st_size >= written)
    return TRUE;
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
      "stage '%s' (%s): %s was cut to %" G_GOFFSET_FORMAT
      " bytes while the run wrote it, %" G_GOFFSET_FORMAT
      " bytes in: another program emptied or truncated it, and the frames "
      "past its new end are lost",
      accel_stage_get_name (stage), accel_stage_get_kind_name (stage), path,
      (goffset)st.st_size, written);
  return FALSE;
}
