/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: a file sink's frame digests, <log>.digests beside its
 * commit log: for each place in the file a frame was written to, a digest
 * of that frame's last bytes. A resume compares the last frame it keeps
 * with its digest, so that a file changed since (another run wrote over
 * it, longer or shorter) is not taken for the one the log speaks of; it
 * costs a digest of a few KiB and one 16-byte write per frame */
#define G_LOG_DOMAIN "accel-io"

#include "accelio-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

/* the bytes of a frame's end that the digest covers */
#define TAIL_BYTES 4096

/* the record of the frame at place i of the file, at 16 i in the digests
 * file, little-endian: i + 1 (0: no record, a hole), then the digest */
typedef struct
{
  guint64 place_plus_one;
  guint64 digest;
} Record;

struct _AccelIoFrameDigests
{
  int fd;
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
digests_path (AccelCommitLog *log)
{
  return g_strconcat (accel_commit_log_get_path (log), ".digests", NULL);
}

/**
 * accel_io_frame_digests_open:
 * @log: the sink's commit log
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full): the frame digests of the sink of @log, or
 * %NULL. Called from the sink's thread.
 */
AccelIoFrameDigests *
accel_io_frame_digests_open (AccelCommitLog *log, GError **error)
{
  g_autofree gchar *path = digests_path (log);
  AccelIoFrameDigests *digests;
  int fd = g_open (path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED, "cannot open %s: %s",
          path, g_strerror (saved));
      return NULL;
    }
  digests = g_new0 (AccelIoFrameDigests, 1);
  digests->fd = fd;
  return digests;
}

/**
 * accel_io_frame_digests_write:
 * @digests: frame digests
 * @sequence: the frame just written, for the error
 * @end: where it ends in the file, a whole number of its size
 * @frame: (array length=size): its bytes
 * @size: how many, more than 0
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %FALSE when the digest cannot be written.
 * Called from the sink's thread, after the frame is written.
 */
gboolean
accel_io_frame_digests_write (AccelIoFrameDigests *digests, guint64 sequence,
    guint64 end, gconstpointer frame, gsize size, GError **error)
{
  gsize n = MIN (size, TAIL_BYTES);
  guint64 place;
  Record record;

  if (size == 0 || end < size)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "frame %" G_GUINT64_FORMAT " of %" G_GSIZE_FORMAT
          " bytes ends at byte %" G_GUINT64_FORMAT " of its file",
          sequence, size, end);
      return FALSE;
    }
  place = end / size - 1;
  record.place_plus_one = GUINT64_TO_LE (place + 1);
  record.digest = GUINT64_TO_LE (digest ((const guint8 *)frame + size - n, n));
  if (pwrite (digests->fd, &record, sizeof (record),
          (off_t)(place * sizeof (record)))
      != sizeof (record))
    {
      int saved = errno;
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "cannot write the digest of frame %" G_GUINT64_FORMAT ": %s",
          sequence, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

void
accel_io_frame_digests_close (AccelIoFrameDigests *digests)
{
  if (!digests)
    return;
  close (digests->fd);
  g_free (digests);
}

/* the digest of the frame at @place, or FALSE where none was written */
static gboolean
read_record (const char *path, guint64 place, guint64 *want)
{
  Record record;
  int fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);
  gssize n;

  if (fd < 0)
    return FALSE;
  n = pread (fd, &record, sizeof (record), (off_t)(place * sizeof (record)));
  close (fd);
  if (n != sizeof (record)
      || GUINT64_FROM_LE (record.place_plus_one) != place + 1)
    return FALSE;
  *want = GUINT64_FROM_LE (record.digest);
  return TRUE;
}

/* whether the @frame_size bytes of the frame at @place of @location end
 * as @want does; TRUE where @location cannot be read (verify() said so) */
static gboolean
tail_matches (
    const char *location, guint64 place, gsize frame_size, guint64 want)
{
  gsize n = MIN (frame_size, TAIL_BYTES);
  guint8 buf[TAIL_BYTES];
  int fd = g_open (location, O_RDONLY | O_CLOEXEC, 0);
  gboolean same;

  if (fd < 0)
    return TRUE;
  same = pread (fd, buf, n, (off_t)((place + 1) * frame_size - n)) == (gssize)n
         && digest (buf, n) == want;
  close (fd);
  return same;
}

/**
 * accel_io_frame_digests_check:
 * @log: the sink's commit log, from an earlier run
 * @location: the file the sink appends its frames to, in order from 0
 * @frame_size: the size of a frame, more than 0
 * @n_whole: how many frames @location holds whole
 * @error: return location for a #GError, or %NULL
 *
 * Compares the end of the last frame a resume keeps of @location (the
 * last one it holds whole, or the newest committed before it, whichever
 * comes first: accel_file_output_keep_in_order()) with its digest, where
 * one was written.
 *
 * Returns: %FALSE with %ACCEL_ERROR_STATE_MISMATCH when the file was
 * changed since that frame was written. Called from the thread that starts
 * the graph.
 */
gboolean
accel_io_frame_digests_check (AccelCommitLog *log, const char *location,
    gsize frame_size, guint64 n_whole, GError **error)
{
  g_autofree gchar *path = digests_path (log);
  guint64 kept = MIN (n_whole, accel_commit_log_first_uncommitted (log));
  guint64 want;

  if (kept == 0 || !read_record (path, kept - 1, &want)
      || tail_matches (location, kept - 1, frame_size, want))
    return TRUE;
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH,
      "%s was changed since frame %" G_GUINT64_FORMAT
      " was committed: its last bytes differ from those written; it is "
      "not the file the commit log speaks of (discard the state to "
      "start over)",
      location, kept - 1);
  return FALSE;
}
