/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel-run: the files it writes of its own (--stats, --dot, what --list
 * and --validate print): a file replaced whole through a file beside it,
 * anything else (a link, a device, a FIFO, stdout) written in place */
#define G_LOG_DOMAIN "accel-run"

#include "accel-run-private.h"

#include <glib/gstdio.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

/* how long a FIFO may go without a reader before its write is given up */
#define FIFO_WAIT_MS 10000

/* whether accel_run_write_output () replaces @path (a regular file, or none
 * yet) through its directory, rather than write it in place */
gboolean
accel_run_output_replaces (const char *path)
{
  return !g_str_equal (path, "-") && !g_file_test (path, G_FILE_TEST_IS_SYMLINK)
         && (!g_file_test (path, G_FILE_TEST_EXISTS)
             || g_file_test (path, G_FILE_TEST_IS_REGULAR));
}

/* a new file beside @path, for g_mkstemp_full (): a short name of its own,
 * so that a name as long as the file system takes can be replaced too
 * (@path with six more characters could not be made) */
gchar *
accel_run_output_temp (const char *path)
{
  g_autofree gchar *dir = g_path_get_dirname (path);

  return g_build_filename (dir, ".accel-run-XXXXXX", NULL);
}

/* whether @path's own name fits its directory's file system */
gboolean
accel_run_output_name_fits (const char *path, GError **error)
{
  g_autofree gchar *dir = g_path_get_dirname (path);
  g_autofree gchar *base = g_path_get_basename (path);
  long max = pathconf (dir, _PC_NAME_MAX);

  if (max <= 0 || strlen (base) <= (gsize)max)
    return TRUE;
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NAMETOOLONG,
      "%s: cannot be written: %s", path, g_strerror (ENAMETOOLONG));
  return FALSE;
}

/* writes @data whole to @fd; the first failure's reason */
static int
write_all (int fd, const guint8 *data, gsize length)
{
  while (length > 0)
    {
      gssize n = write (fd, data, length);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return errno;
      data += n;
      length -= (gsize)n;
    }
  return 0;
}

/* @path replaced by a file holding @data: written beside it, then renamed
 * over it, so a reader sees the old file or the new one */
static gboolean
replace_file (
    const char *path, const guint8 *data, gsize length, GError **error)
{
  g_autofree gchar *tmp = accel_run_output_temp (path);
  /* as any new file: 0666 less the umask */
  int fd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, 0666);
  int saved;

  if (fd < 0)
    {
      saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
          "cannot write %s: %s", path, g_strerror (saved));
      return FALSE;
    }
  saved = write_all (fd, data, length);
  if (!saved && fsync (fd) != 0)
    saved = errno;
  if (close (fd) != 0 && !saved)
    saved = errno;
  if (!saved && g_rename (tmp, path) != 0)
    saved = errno;
  if (!saved)
    return TRUE;
  g_unlink (tmp);
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
      "cannot write %s: %s", path, g_strerror (saved));
  return FALSE;
}

/* @path opened to write in place; a FIFO is waited for until a reader
 * opens it, up to FIFO_WAIT_MS (open () waited for good) */
static int
open_in_place (const char *path, GError **error)
{
  gint64 end = g_get_monotonic_time () + FIFO_WAIT_MS * 1000;
  int fd, saved;

  for (;;)
    {
      fd = g_open (path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_TRUNC, 0);
      if (fd >= 0 || errno != ENXIO || g_get_monotonic_time () > end)
        break;
      g_usleep (50 * 1000);
    }
  if (fd < 0)
    {
      saved = errno;
      if (saved == ENXIO)
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NXIO,
            "cannot write %s: no reader opened it within %d s", path,
            FIFO_WAIT_MS / 1000);
      else
        g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
            "cannot open %s: %s", path, g_strerror (saved));
      return -1;
    }
  /* the writes wait for a slow reader, as any writer's */
  fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

/**
 * accel_run_output_names_fd:
 * @path: a report file's name
 * @fd: STDOUT_FILENO or STDERR_FILENO
 *
 * Returns: whether @path names what @fd was opened on (/dev/stdout, or
 * the file the shell sent it to), not a terminal, which shows whatever
 * is written to it, losing nothing
 */
gboolean
accel_run_output_names_fd (const char *path, int fd)
{
  struct stat out, st;

  return fstat (fd, &out) == 0 && !S_ISCHR (out.st_mode)
         && g_stat (path, &st) == 0 && st.st_dev == out.st_dev
         && st.st_ino == out.st_ino;
}

/**
 * accel_run_write_output:
 * @path: a file, or "-" for stdout
 * @data: what to write
 * @length: its bytes, or -1 where @data is a string
 * @error: return location for a #GError, or %NULL
 *
 * A regular file (new or not) is replaced atomically; a link, a device or
 * a FIFO is written in place (replacing it with a file would be wrong).
 *
 * Returns: whether @data was written whole; else @error, with the first
 * failure's reason (a full disk, a reader gone, no reader at all).
 */
gboolean
accel_run_write_output (
    const char *path, gconstpointer data, gssize length, GError **error)
{
  /* through the descriptor: reopened, /dev/stdout (>> log) was emptied,
   * with what the run had written there */
  int std = g_str_equal (path, "-") || accel_run_output_names_fd (path, 1) ? 1
            : accel_run_output_names_fd (path, 2)                          ? 2
                                                                           : 0;
  gboolean to_std = std != 0;
  gsize n = length < 0 ? strlen (data) : (gsize)length;
  int fd, saved;

  if (!to_std && accel_run_output_replaces (path))
    return replace_file (path, data, n, error);
  if (to_std)
    {
      fflush (std == 1 ? stdout : stderr);
      fd = std;
    }
  else if ((fd = open_in_place (path, error)) < 0)
    return FALSE;
  saved = write_all (fd, data, n);
  if (!to_std && close (fd) != 0 && !saved)
    saved = errno;
  if (saved)
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
        "cannot write %s: %s",
        std == 1 ? "stdout"
        : std    ? "stderr"
                 : path,
        g_strerror (saved));
  return !saved;
}
