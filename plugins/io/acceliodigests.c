/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: a file sink's frame digests, kept beside its commit log
 * (accel_commit_log_write_digest ()): for each place in the file a frame
 * was written to, a digest of that frame's last bytes. A resume compares
 * the last frame it keeps with its digest, so that a file changed since
 * (another run wrote over it, longer or shorter) is not taken for the one
 * the log speaks of; it costs a digest of a few KiB and one 16-byte write
 * per frame */
#define G_LOG_DOMAIN "accel-io"

#include "accelio-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <unistd.h>

/* the bytes of a frame's end that the digest covers */
#define TAIL_BYTES 4096

/**
 * accel_io_frame_digests_write:
 * @log: the sink's commit log
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
accel_io_frame_digests_write (AccelCommitLog *log, guint64 sequence,
    guint64 end, gconstpointer frame, gsize size, GError **error)
{
  gsize n = MIN (size, TAIL_BYTES);

  if (size == 0 || end < size)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "frame %" G_GUINT64_FORMAT " of %" G_GSIZE_FORMAT
          " bytes ends at byte %" G_GUINT64_FORMAT " of its file",
          sequence, size, end);
      return FALSE;
    }
  return accel_commit_log_write_digest (log, end / size - 1,
      accel_digest_bytes (
          ACCEL_DIGEST_INIT, (const guint8 *)frame + size - n, n),
      error);
}

/* whether the @frame_size bytes of the frame at @place of @location end
 * as @want does, in @same; FALSE where @location cannot be read (a file
 * the sink may only write): taken as unchanged, it resumed after a change
 * with status 0 */
static gboolean
tail_matches (const char *location, guint64 place, gsize frame_size,
    guint64 want, gboolean *same, GError **error)
{
  gsize n = MIN (frame_size, TAIL_BYTES);
  guint8 buf[TAIL_BYTES];
  int fd = g_open (location, O_RDONLY | O_CLOEXEC, 0);

  if (fd < 0)
    {
      int saved = errno;

      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH,
          "cannot read %s to check the frames it holds are those committed "
          "(%s): make it readable, or discard the state to start over",
          location, g_strerror (saved));
      return FALSE;
    }
  *same = pread (fd, buf, n, (off_t)((place + 1) * frame_size - n)) == (gssize)n
          && accel_digest_bytes (ACCEL_DIGEST_INIT, buf, n) == want;
  close (fd);
  return TRUE;
}

/**
 * accel_io_frame_digests_check:
 * @log: the sink's commit log, from an earlier run
 * @location: the file the sink appends its frames to, in order from 0
 * @frame_size: the size of a frame, more than 0
 * @n_whole: how many frames @location holds whole
 * @n_kept: (out): how many of them a resume may keep
 * @what: (out) (transfer full): set to what was found when fewer than the
 *   log's frames can be kept for want of digests, else left alone
 * @error: return location for a #GError, or %NULL
 *
 * Compares the end of the last frame a resume keeps of @location (the
 * last one it holds whole, or the newest committed before it, whichever
 * comes first: accel_file_output_keep_in_order()) with its digest. Where
 * that frame's digest is missing though the log says digests were kept
 * (their file deleted or cut short, or behind the log after a crash),
 * the frames are kept only up to the newest one that has a digest, which
 * is compared, and the log forgets the others: they are written again.
 * A state kept before digests were keeps every frame, unchecked.
 *
 * Returns: %FALSE with %ACCEL_ERROR_STATE_MISMATCH when the file was
 * changed since the frame compared was written, cannot be read to compare
 * it, or when the log cannot be rewritten. Called from the thread that
 * starts the graph.
 */
gboolean
accel_io_frame_digests_check (AccelCommitLog *log, const char *location,
    gsize frame_size, guint64 n_whole, guint64 *n_kept, gchar **what,
    GError **error)
{
  guint64 kept = MIN (n_whole, accel_commit_log_first_uncommitted (log));
  guint64 place = 0, want = 0;
  gboolean found = accel_commit_log_find_digest (log, kept, &place, &want);
  guint64 vouched = found ? place + 1 : 0;
  gboolean same = TRUE;

  *n_kept = n_whole;
  if (kept == 0 || (!found && !accel_commit_log_has_digests (log)))
    return TRUE;
  if (found && !tail_matches (location, place, frame_size, want, &same, error))
    return FALSE;
  if (!same)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH,
          "%s was changed since frame %" G_GUINT64_FORMAT
          " was committed: its last bytes differ from those written (or the "
          "digests beside its commit log were damaged); it is not the file "
          "the commit log speaks of (discard the state to start over)",
          location, place);
      return FALSE;
    }
  if (vouched == kept)
    return TRUE;
  *n_kept = vouched;
  return accel_commit_log_forget_undigested (
      log, vouched, kept, "frames", what, error);
}
