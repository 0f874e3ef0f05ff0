/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: a file sink's tail mark, <log>.tail beside its commit
 * log: where each of the last two frames written ends in the file and a
 * digest of its last bytes. A resume compares it with the file, so that a
 * file changed since (another run wrote over it) is not taken for the one
 * the log speaks of; it costs a digest of a few KiB and one small write per
 * frame */
#define G_LOG_DOMAIN "accel-io"

#include "accelio-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

/* the bytes of a frame's end that the digest covers */
#define TAIL_BYTES 4096
/* "sequence end digest\n", fixed width, so a write replaces the whole */
#define LINE_LEN (20 + 1 + 20 + 1 + 16 + 1)

struct _AccelIoTailMark
{
  int fd;
  gchar lines[2 * LINE_LEN + 1]; /* the newest first */
};

static guint64
digest (const guint8 *data, gsize size)
{
  guint64 h = 14695981039346656037u; /* FNV-1a */

  for (gsize i = 0; i < size; i++)
    h = (h ^ data[i]) * 1099511628211u;
  return h;
}

static gchar *
mark_path (AccelCommitLog *log)
{
  return g_strconcat (accel_commit_log_get_path (log), ".tail", NULL);
}

/**
 * accel_io_tail_mark_open:
 * @log: the sink's commit log
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full): the tail mark of the sink of @log, or %NULL.
 * Called from the sink's thread.
 */
AccelIoTailMark *
accel_io_tail_mark_open (AccelCommitLog *log, GError **error)
{
  g_autofree gchar *path = mark_path (log);
  AccelIoTailMark *mark;
  int fd = g_open (path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED, "cannot open %s: %s",
          path, g_strerror (saved));
      return NULL;
    }
  mark = g_new0 (AccelIoTailMark, 1);
  mark->fd = fd;
  memset (mark->lines, ' ', 2 * LINE_LEN);
  mark->lines[LINE_LEN - 1] = mark->lines[2 * LINE_LEN - 1] = '\n';
  return mark;
}

/**
 * accel_io_tail_mark_write:
 * @mark: a tail mark
 * @sequence: the frame just written
 * @end: where it ends in the file
 * @frame: (array length=size): its bytes
 * @size: how many
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %FALSE when the mark cannot be written.
 * Called from the sink's thread, after the frame is written.
 */
gboolean
accel_io_tail_mark_write (AccelIoTailMark *mark, guint64 sequence, guint64 end,
    gconstpointer frame, gsize size, GError **error)
{
  gsize n = MIN (size, TAIL_BYTES);
  gchar line[LINE_LEN + 1];

  g_snprintf (line, sizeof (line),
      "%020" G_GUINT64_FORMAT " %020" G_GUINT64_FORMAT " %016" G_GINT64_MODIFIER
      "x\n",
      sequence, end, digest ((const guint8 *)frame + size - n, n));
  memmove (mark->lines + LINE_LEN, mark->lines, LINE_LEN);
  memcpy (mark->lines, line, LINE_LEN);
  if (pwrite (mark->fd, mark->lines, 2 * LINE_LEN, 0) != 2 * LINE_LEN)
    {
      int saved = errno;
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "cannot write the tail mark of frame %" G_GUINT64_FORMAT ": %s",
          sequence, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

void
accel_io_tail_mark_close (AccelIoTailMark *mark)
{
  if (!mark)
    return;
  close (mark->fd);
  g_free (mark);
}

/* whether the @frame_size bytes ending at @end in @fd end as @want does */
static gboolean
tail_matches (int fd, guint64 end, gsize frame_size, guint64 want)
{
  gsize n = MIN (frame_size, TAIL_BYTES);
  guint8 buf[TAIL_BYTES];

  return pread (fd, buf, n, (off_t)(end - n)) == (gssize)n
         && digest (buf, n) == want;
}

/**
 * accel_io_tail_mark_check:
 * @log: the sink's commit log, from an earlier run
 * @location: the file the sink appends its frames to
 * @frame_size: the size of a frame
 * @n_whole: how many frames @location holds whole
 * @error: return location for a #GError, or %NULL
 *
 * Compares the end of the newest frame the mark speaks of, if it is
 * committed, sits where it belongs and is whole in the file, with its
 * digest.
 *
 * Returns: %FALSE with %ACCEL_ERROR_STATE_MISMATCH when the file was
 * changed since that frame was written. Called from the thread that starts
 * the graph.
 */
gboolean
accel_io_tail_mark_check (AccelCommitLog *log, const char *location,
    gsize frame_size, guint64 n_whole, GError **error)
{
  g_autofree gchar *path = mark_path (log);
  g_autofree gchar *text = NULL;
  g_auto (GStrv) lines = NULL;
  int fd;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return TRUE;
  lines = g_strsplit (text, "\n", 3);
  for (guint i = 0; lines[i] && i < 2; i++)
    {
      guint64 seq, end, want;
      gboolean same;

      if (sscanf (lines[i],
              "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GINT64_MODIFIER
              "x",
              &seq, &end, &want)
              != 3
          || !accel_commit_log_contains (log, seq) || seq >= n_whole
          || end != (seq + 1) * frame_size)
        continue;
      if ((fd = g_open (location, O_RDONLY | O_CLOEXEC, 0)) < 0)
        return TRUE;
      same = tail_matches (fd, end, frame_size, want);
      close (fd);
      if (same)
        return TRUE;
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH,
          "%s was changed since frame %" G_GUINT64_FORMAT
          " was committed: its last bytes differ from those written; it is "
          "not the file the commit log speaks of (discard the state to "
          "start over)",
          location, seq);
      return FALSE;
    }
  return TRUE;
}
