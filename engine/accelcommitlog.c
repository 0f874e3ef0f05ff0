/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: commit logs. A file of fixed-size records, one per finished
 * sequence number, each with its own check, so a torn tail (a crash in the
 * middle of a write) is cut off and any other damage is reported, never
 * silently taken as "not committed" (which would write output twice).
 * Once the file holds many more records than its runs of sequences need,
 * it is written again with a pair of records a run (renamed over it, so a
 * crash leaves one or the other): it grew 16 bytes a frame for as long as
 * the run went, and accel-run keeps one for every GPU run.
 * A log has no lock: one thread uses it at a time (the graph's while it
 * prepares, then the sink's). G_MESSAGES_DEBUG=accel-commit-log tells what a
 * log held when opened, each commit and each sync */
#define G_LOG_DOMAIN "accel-commit-log"

#include "accel-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEADER "ACCELCL1"
/* the header of a log whose sink keeps digests beside it: a resume then
 * needs them, and a digests file deleted or cut short is not taken for a
 * state kept before digests were */
#define HEADER_DIGESTS "ACCELCL2"
/* that of a log made beside the graph's fingerprint, whose sink keeps no
 * digests (yet): a fingerprint deleted is not taken for a state kept
 * before fingerprints were (ACCELCL1), whose logs any graph resumed. Logs
 * with digests are all this recent */
#define HEADER_FINGERPRINTED "ACCELCL3"
#define HEADER_SIZE 8
#define RECORD_MAGIC 0x434d5431u /* "CMT1" */
/* a run lo .. hi - 1 committed: a record of lo, the next of hi; only in a
 * file written whole (rewrite ()), never appended */
#define RUN_LO_MAGIC 0x434d5232u /* "CMR2" */
#define RUN_HI_MAGIC 0x434d5233u /* "CMR3" */
/* a file of more records than this and four times what its runs need is
 * written again */
#define COMPACT_MIN_RECORDS 16384

typedef struct
{
  guint32 magic;
  guint32 check;
  guint64 sequence;
} Record;

G_STATIC_ASSERT (sizeof (Record) == 16);

struct _AccelCommitLog
{
  gchar *path;
  int fd;
  int lock_fd;       /* holds the state directory's lock while open, or -1 */
  gchar *dir;        /* with it: the directory's absolute name */
  GArray *committed; /* Run, sorted, apart: the sequences committed */
  guint64 n_committed;
  guint64 n_records;  /* the whole records in the file */
  guint64 compact_at; /* n_records at which a rewrite is looked at next */
  guint64 first_uncommitted;
  gint64 sync_interval_us;
  gint64 last_sync;
  gboolean dirty;
  int digests_fd;       /* <path>.digests, once a digest is written, or -1 */
  gboolean has_digests; /* the header says digests are kept */
  gboolean old_header;  /* ACCELCL1: made before fingerprints were kept */
};

/* a digest of what a sink wrote at a place of its output: at 16 place in
 * <path>.digests, little-endian, place + 1 (0: none, a hole) and the
 * digest */
typedef struct
{
  guint64 place_plus_one;
  guint64 digest;
} DigestRecord;

/* committed sequences lo to hi - 1: a run of frames is one element, so
 * a log holds as much as its gaps, where a set of every sequence grew by
 * about 50 bytes a frame for as long as the run went */
typedef struct
{
  guint64 lo, hi;
} Run;

/* the index of the last run of @runs that starts at or before @x, or -1 */
static gint
run_before (GArray *runs, guint64 x)
{
  gint lo = 0, hi = (gint)runs->len - 1, found = -1;

  while (lo <= hi)
    {
      gint mid = lo + (hi - lo) / 2;

      if (g_array_index (runs, Run, mid).lo <= x)
        {
          found = mid;
          lo = mid + 1;
        }
      else
        hi = mid - 1;
    }
  return found;
}

static gboolean
runs_contain (GArray *runs, guint64 x)
{
  gint i = run_before (runs, x);

  return i >= 0 && x < g_array_index (runs, Run, i).hi;
}

/* adds @x (below G_MAXUINT64) to @runs, joining the runs it touches;
 * FALSE when it was there */
static gboolean
runs_add (GArray *runs, guint64 x)
{
  gint i = run_before (runs, x);
  Run *left = i >= 0 ? &g_array_index (runs, Run, i) : NULL;
  Run *right
      = (guint)(i + 1) < runs->len ? &g_array_index (runs, Run, i + 1) : NULL;

  if (left && x < left->hi)
    return FALSE;
  if (left && left->hi == x && right && right->lo == x + 1)
    {
      left->hi = right->hi;
      g_array_remove_index (runs, i + 1);
    }
  else if (left && left->hi == x)
    left->hi = x + 1;
  else if (right && right->lo == x + 1)
    right->lo = x;
  else
    g_array_insert_val (runs, i + 1, ((Run){ x, x + 1 }));
  return TRUE;
}

/* takes @x out of @runs, splitting its run; FALSE when it was not there */
static gboolean
runs_remove (GArray *runs, guint64 x)
{
  gint i = run_before (runs, x);
  Run *r = i >= 0 ? &g_array_index (runs, Run, i) : NULL;

  if (!r || x >= r->hi)
    return FALSE;
  if (r->lo == x && r->hi == x + 1)
    g_array_remove_index (runs, i);
  else if (r->lo == x)
    r->lo++;
  else if (r->hi == x + 1)
    r->hi--;
  else
    {
      Run after = { x + 1, r->hi };

      r->hi = x;
      g_array_insert_val (runs, i + 1, after);
    }
  return TRUE;
}

static guint32
record_check (guint32 magic, guint64 sequence)
{
  guint32 h = 2166136261u; /* FNV-1a over the magic and the sequence */
  guint8 bytes[12];

  memcpy (bytes, &magic, 4);
  memcpy (bytes + 4, &sequence, 8);
  for (guint i = 0; i < sizeof (bytes); i++)
    h = (h ^ bytes[i]) * 16777619u;
  return h;
}

static Record
make_record (guint32 magic, guint64 sequence)
{
  return (Record){ magic, record_check (magic, sequence), sequence };
}

/* whether @r is a whole record of @magic */
static gboolean
record_is (const Record *r, guint32 magic)
{
  return r->magic == magic && r->check == record_check (magic, r->sequence);
}

/* adds lo .. hi - 1 to @runs, joining the runs it meets */
static void
runs_add_range (GArray *runs, guint64 lo, guint64 hi)
{
  gint i = run_before (runs, lo);
  guint first, last;

  /* the runs that meet or touch lo .. hi - 1: first to last - 1 */
  first = i >= 0 && g_array_index (runs, Run, i).hi >= lo ? (guint)i
                                                          : (guint)(i + 1);
  last = first;
  while (last < runs->len && g_array_index (runs, Run, last).lo <= hi)
    last++;
  if (last > first)
    {
      lo = MIN (lo, g_array_index (runs, Run, first).lo);
      hi = MAX (hi, g_array_index (runs, Run, last - 1).hi);
      g_array_remove_range (runs, first, last - first);
    }
  g_array_insert_val (runs, first, ((Run){ lo, hi }));
}

/* the count and the first uncommitted sequence, from the runs */
static void
count_runs (AccelCommitLog *log)
{
  GArray *runs = log->committed;

  log->n_committed = 0;
  for (guint i = 0; i < runs->len; i++)
    log->n_committed
        += g_array_index (runs, Run, i).hi - g_array_index (runs, Run, i).lo;
  log->first_uncommitted = runs->len > 0 && g_array_index (runs, Run, 0).lo == 0
                               ? g_array_index (runs, Run, 0).hi
                               : 0;
}

/* the records @log's runs take written whole: a pair a run of three or
 * more, one a sequence in shorter ones */
static guint64
records_needed (AccelCommitLog *log)
{
  guint64 n = 0;

  for (guint i = 0; i < log->committed->len; i++)
    {
      const Run *r = &g_array_index (log->committed, Run, i);
      n += r->hi - r->lo >= 3 ? 2 : r->hi - r->lo;
    }
  return n;
}

static void
add (AccelCommitLog *log, guint64 sequence)
{
  gint i;

  /* no frame has it, and it has no successor to end a run at */
  if (sequence == G_MAXUINT64 || !runs_add (log->committed, sequence))
    return;
  log->n_committed++;
  /* to the end of the run it is in, if it is */
  i = run_before (log->committed, log->first_uncommitted);
  if (i >= 0
      && log->first_uncommitted < g_array_index (log->committed, Run, i).hi)
    log->first_uncommitted = g_array_index (log->committed, Run, i).hi;
}

static gboolean
io_error (GError **error, const char *what, const char *path)
{
  int saved = errno;

  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED, "%s %s: %s", what, path,
      g_strerror (saved));
  return FALSE;
}

/* reads every record; cuts a torn tail, refuses anything else that is off */
static gboolean
load (AccelCommitLog *log, GError **error)
{
  g_autofree gchar *data = NULL;
  gsize len, n_records, tail;

  if (!g_file_get_contents (log->path, &data, &len, error))
    return FALSE;
  if (len == 0)
    {
      if (write (log->fd, HEADER_FINGERPRINTED, HEADER_SIZE) != HEADER_SIZE)
        return io_error (error, "cannot write", log->path);
      return TRUE;
    }
  log->has_digests
      = len >= HEADER_SIZE && memcmp (data, HEADER_DIGESTS, HEADER_SIZE) == 0;
  log->old_header
      = len >= HEADER_SIZE && memcmp (data, HEADER, HEADER_SIZE) == 0;
  if (len < HEADER_SIZE
      || (!log->old_header && !log->has_digests
          && memcmp (data, HEADER_FINGERPRINTED, HEADER_SIZE) != 0))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH,
          "%s is not a commit log (bad header)", log->path);
      return FALSE;
    }

  n_records = (len - HEADER_SIZE) / sizeof (Record);
  tail = (len - HEADER_SIZE) % sizeof (Record);
  for (gsize i = 0; i < n_records; i++)
    {
      Record r, hi = { 0 };
      memcpy (&r, data + HEADER_SIZE + i * sizeof (Record), sizeof (r));
      if (i + 1 < n_records)
        memcpy (
            &hi, data + HEADER_SIZE + (i + 1) * sizeof (Record), sizeof (hi));
      if (record_is (&r, RECORD_MAGIC))
        {
          add (log, r.sequence);
          continue;
        }
      if (record_is (&r, RUN_LO_MAGIC) && record_is (&hi, RUN_HI_MAGIC)
          && hi.sequence > r.sequence)
        {
          runs_add_range (log->committed, r.sequence, hi.sequence);
          i++;
          continue;
        }
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH,
          "commit log %s is corrupted at byte %" G_GSIZE_FORMAT
          " (record %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT
          "); refusing to guess what was committed",
          log->path, HEADER_SIZE + i * sizeof (Record), i, n_records);
      return FALSE;
    }
  /* once, for the runs as well as the single records */
  count_runs (log);
  log->n_records = n_records;
  if (tail > 0)
    {
      /* a write cut short: that record was never committed */
      g_debug ("%s: cutting a torn record of %" G_GSIZE_FORMAT " bytes",
          log->path, tail);
      if (ftruncate (log->fd, (off_t)(len - tail)) != 0)
        return io_error (error, "cannot truncate", log->path);
    }
  return TRUE;
}

/**
 * accel_commit_log_open: (skip)
 * @path: the log file; created when missing
 * @error: return location for a #GError, or %NULL
 *
 * Opens a commit log and reads what it holds. A record cut short by a crash
 * is dropped (it was never committed); any other damage is an error. Not
 * for bindings: the log is a plain structure that only
 * accel_commit_log_close() frees.
 *
 * Returns: (transfer full): the log, or %NULL. Close with
 * accel_commit_log_close().
 * MT safe; the log it returns is for one thread at a time.
 */
AccelCommitLog *
accel_commit_log_open (const char *path, GError **error)
{
  AccelCommitLog *log = g_new0 (AccelCommitLog, 1);

  log->lock_fd = -1;
  log->digests_fd = -1;
  log->compact_at = COMPACT_MIN_RECORDS;

  log->path = g_strdup (path);
  log->committed = g_array_new (FALSE, FALSE, sizeof (Run));
  log->fd = g_open (path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log->fd < 0)
    {
      io_error (error, "cannot open commit log", path);
      goto failed;
    }
  if (!load (log, error))
    goto failed;
  log->last_sync = g_get_monotonic_time ();
  g_debug ("%s: %u sequences committed; the first not committed is "
           "%" G_GUINT64_FORMAT,
      path, (guint)log->n_committed, log->first_uncommitted);
  return log;

  /* ERRORS */
failed:
  {
    accel_commit_log_close (log);
    return NULL;
  }
}

/**
 * accel_commit_log_close: (skip)
 * @log: (transfer full): a log
 *
 * Syncs what is not on disk yet and closes the log. %NULL is ignored.
 *
 * Called from the thread that uses @log (the sink stage's, while running).
 */
void
accel_commit_log_close (AccelCommitLog *log)
{
  if (!log)
    return;
  if (log->fd >= 0)
    {
      /* the digests first: a commit on disk speaks of them */
      if (log->dirty && log->digests_fd >= 0)
        fsync (log->digests_fd);
      if (log->dirty)
        fsync (log->fd);
      close (log->fd);
    }
  if (log->lock_fd >= 0)
    close (log->lock_fd);
  if (log->digests_fd >= 0)
    close (log->digests_fd);
  g_array_unref (log->committed);
  g_free (log->dir);
  g_free (log->path);
  g_free (log);
}

/**
 * accel_commit_log_contains:
 * @log: a log
 * @sequence: a sequence number
 *
 * Returns: whether @sequence was committed.
 * Called from the thread that uses @log (the sink stage's, while running).
 */
gboolean
accel_commit_log_contains (AccelCommitLog *log, guint64 sequence)
{
  g_return_val_if_fail (log != NULL, FALSE);

  return runs_contain (log->committed, sequence);
}

/**
 * accel_commit_log_first_uncommitted:
 * @log: a log
 *
 * Returns: the smallest sequence number not committed: where a source
 * resumes.
 * Called from the thread that uses @log (the graph's, before it starts).
 */
guint64
accel_commit_log_first_uncommitted (AccelCommitLog *log)
{
  g_return_val_if_fail (log != NULL, 0);

  return log->first_uncommitted;
}

/**
 * accel_commit_log_get_path:
 * @log: a log
 *
 * Returns: the log's file; a sink may keep files of its own beside it.
 * MT safe.
 */
const char *
accel_commit_log_get_path (AccelCommitLog *log)
{
  g_return_val_if_fail (log != NULL, NULL);

  return log->path;
}

/**
 * accel_commit_log_get_n_committed:
 * @log: a log
 *
 * Returns: how many distinct sequence numbers were committed.
 * Called from the thread that uses @log.
 */
guint
accel_commit_log_get_n_committed (AccelCommitLog *log)
{
  g_return_val_if_fail (log != NULL, 0);

  return (guint)log->n_committed;
}

/**
 * accel_commit_log_set_sync_interval:
 * @log: a log
 * @interval_us: fsync at most this often (0: after every commit)
 *
 * Called from the thread that uses @log (the graph's, before it starts).
 */
void
accel_commit_log_set_sync_interval (AccelCommitLog *log, gint64 interval_us)
{
  g_return_if_fail (log != NULL);

  log->sync_interval_us = interval_us;
}

/* whether the state directory whose lock @log holds is still the one at
 * its name: removed (and made again by another run, whose lock on the new
 * one was granted while this run wrote), two runs wrote the same outputs,
 * each with status 0 */
static gboolean
check_state_dir_kept (AccelCommitLog *log, GError **error)
{
  const char *dir = log->dir;
  struct stat held, now;

  if (log->lock_fd < 0 || fstat (log->lock_fd, &held) != 0)
    return TRUE;
  if (g_stat (dir, &now) == 0)
    {
      if (now.st_dev == held.st_dev && now.st_ino == held.st_ino)
        return TRUE;
    }
  /* a name too long to look up (past PATH_MAX) is not known to be gone */
  else if (errno != ENOENT && errno != ENOTDIR)
    return TRUE;
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH,
      "the state directory %s was removed%s while this run used it: its "
      "commit logs are gone, and another run may write the same outputs; "
      "this run stops",
      dir, g_file_test (dir, G_FILE_TEST_IS_DIR) ? " and made again" : "");
  return FALSE;
}

/**
 * accel_commit_log_sync:
 * @log: a log
 * @error: return location for a #GError, or %NULL
 *
 * Puts every commit so far on disk (fsync), whatever the sync interval.
 * With the state directory's lock held (accel_commit_log_hold_lock ()),
 * first checks that the directory is still the one locked.
 *
 * Returns: %TRUE on success; %FALSE with %ACCEL_ERROR_STATE_MISMATCH when
 *   the state directory was removed since the lock was taken.
 * Called from the thread that uses @log (the sink stage's, while running).
 */
gboolean
accel_commit_log_sync (AccelCommitLog *log, GError **error)
{
  g_return_val_if_fail (log != NULL, FALSE);

  if (log->dirty && !check_state_dir_kept (log, error))
    return FALSE;
  /* the digests first: a commit on disk speaks of them */
  if (log->dirty && log->digests_fd >= 0 && fsync (log->digests_fd) != 0)
    return io_error (error, "cannot sync the digests of", log->path);
  if (log->dirty && fsync (log->fd) != 0)
    return io_error (error, "cannot sync", log->path);
  if (log->dirty)
    ACCEL_TRACE (
        "%s: synced, %u committed", log->path, (guint)log->n_committed);
  log->dirty = FALSE;
  log->last_sync = g_get_monotonic_time ();
  return TRUE;
}

static gboolean rewrite (AccelCommitLog *log, GError **error);

/* appends @r; a short write (a full disk, a file size limit) leaves part
 * of a record, which is cut off again so that later records stay whole and
 * in place */
static gboolean
append_record (AccelCommitLog *log, const Record *r, GError **error)
{
  ssize_t n = write (log->fd, r, sizeof (*r)), rest = 0;
  struct stat st;
  int saved;

  if (n == (ssize_t)sizeof (*r))
    return TRUE;
  /* the rest, whose write says why the first stopped short */
  if (n > 0)
    rest = write (log->fd, (const char *)r + n, sizeof (*r) - (size_t)n);
  if (n > 0 && rest == (ssize_t)sizeof (*r) - n)
    return TRUE;
  saved = n < 0 || rest < 0 ? errno : ENOSPC;
  if (rest > 0)
    n += rest;
  if (n > 0 && fstat (log->fd, &st) == 0 && st.st_size >= HEADER_SIZE
      && ftruncate (log->fd,
             st.st_size - (st.st_size - HEADER_SIZE) % (off_t)sizeof (*r))
             != 0)
    g_warning (
        "%s: cannot cut a part record off: %s", log->path, g_strerror (errno));
  errno = saved;
  return io_error (error, "cannot append to", log->path);
}

/**
 * accel_commit_log_commit:
 * @log: a log
 * @sequence: a sequence number whose output is complete
 * @error: return location for a #GError, or %NULL
 *
 * Appends @sequence; it reaches the disk at the next sync (at most the sync
 * interval later). Committing twice is harmless.
 *
 * Returns: %TRUE on success.
 * Called from the thread that uses @log (the sink stage's, while running).
 */
gboolean
accel_commit_log_commit (AccelCommitLog *log, guint64 sequence, GError **error)
{
  Record r = make_record (RECORD_MAGIC, sequence);

  g_return_val_if_fail (log != NULL, FALSE);
  if (accel_commit_log_contains (log, sequence))
    return TRUE;
  if (!append_record (log, &r, error))
    return FALSE;
  log->dirty = TRUE;
  log->n_records++;
  add (log, sequence);
  ACCEL_TRACE ("%s: committed %" G_GUINT64_FORMAT, log->path, sequence);
  /* looked at after the file doubled, so that a log of many gaps (what
   * its runs need, about its records) costs no walk of them each commit;
   * written whole, it is synced too */
  if (log->n_records >= log->compact_at)
    {
      gboolean compact = log->n_records >= 4 * records_needed (log);

      if (compact && !rewrite (log, error))
        return FALSE;
      log->compact_at = MAX (COMPACT_MIN_RECORDS, 2 * log->n_records);
      if (compact)
        return TRUE;
    }
  if (g_get_monotonic_time () - log->last_sync >= log->sync_interval_us)
    return accel_commit_log_sync (log, error);
  return TRUE;
}

/* the sequences of @log in increasing order */
static GArray *
sorted_sequences (AccelCommitLog *log)
{
  GArray *seqs
      = g_array_sized_new (FALSE, FALSE, sizeof (guint64), log->n_committed);

  for (guint i = 0; i < log->committed->len; i++)
    for (guint64 seq = g_array_index (log->committed, Run, i).lo;
         seq < g_array_index (log->committed, Run, i).hi; seq++)
      g_array_append_val (seqs, seq);
  return seqs;
}

/**
 * accel_commit_log_dup_sequences:
 * @log: a log
 *
 * Returns: (transfer full) (element-type guint64): every committed sequence
 * number, in increasing order.
 * Called from the thread that uses @log.
 */
GArray *
accel_commit_log_dup_sequences (AccelCommitLog *log)
{
  g_return_val_if_fail (log != NULL, NULL);

  return sorted_sequences (log);
}

/* writes what @log holds now to a new file that replaces the old one
 * (renamed over it, so a crash leaves one or the other, whole): a run of
 * three or more sequences as a pair of records */
static gboolean
rewrite (AccelCommitLog *log, GError **error)
{
  g_autoptr (GByteArray) data = g_byte_array_new ();
  g_autofree gchar *tmp = g_strconcat (log->path, ".tmp", NULL);
  int fd;

  g_byte_array_append (data,
      (const guint8 *)(log->has_digests  ? HEADER_DIGESTS
                       : log->old_header ? HEADER
                                         : HEADER_FINGERPRINTED),
      HEADER_SIZE);
  for (guint i = 0; i < log->committed->len; i++)
    {
      const Run *run = &g_array_index (log->committed, Run, i);
      Record r[2] = { make_record (RUN_LO_MAGIC, run->lo),
        make_record (RUN_HI_MAGIC, run->hi) };

      if (run->hi - run->lo >= 3)
        g_byte_array_append (data, (const guint8 *)r, sizeof (r));
      else
        for (guint64 seq = run->lo; seq < run->hi; seq++)
          {
            r[0] = make_record (RECORD_MAGIC, seq);
            g_byte_array_append (data, (const guint8 *)r, sizeof (r[0]));
          }
    }
  if (!g_file_set_contents_full (tmp, (const char *)data->data, data->len,
          G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE, 0644,
          error))
    return FALSE;
  if (g_rename (tmp, log->path) != 0)
    {
      io_error (error, "cannot replace", log->path);
      g_unlink (tmp);
      return FALSE;
    }
  fd = g_open (log->path, O_RDWR | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    return io_error (error, "cannot open commit log", log->path);
  close (log->fd);
  log->fd = fd;
  log->dirty = FALSE;
  log->n_records = (data->len - HEADER_SIZE) / sizeof (Record);
  log->last_sync = g_get_monotonic_time ();
  return TRUE;
}

/* drops @sequence from what @log holds in memory */
static void
drop (AccelCommitLog *log, guint64 sequence)
{
  if (!runs_remove (log->committed, sequence))
    return;
  log->n_committed--;
  log->first_uncommitted = MIN (log->first_uncommitted, sequence);
}

/**
 * accel_commit_log_forget:
 * @log: a log
 * @sequences: (array length=n_sequences): sequence numbers
 * @n_sequences: how many
 * @error: return location for a #GError, or %NULL
 *
 * Takes @sequences out of the log, on disk too: their output is missing,
 * so they are to be produced again. Sequence numbers the log does not hold
 * are ignored.
 *
 * Returns: %TRUE on success.
 * Called from the thread that uses @log (the graph's, before it starts).
 */
gboolean
accel_commit_log_forget (AccelCommitLog *log, const guint64 *sequences,
    guint n_sequences, GError **error)
{
  guint before;

  g_return_val_if_fail (log != NULL, FALSE);
  g_return_val_if_fail (sequences != NULL || n_sequences == 0, FALSE);

  before = (guint)log->n_committed;
  for (guint i = 0; i < n_sequences; i++)
    drop (log, sequences[i]);
  if ((guint)log->n_committed == before)
    return TRUE;
  g_debug (
      "%s: forgot %u sequences", log->path, before - (guint)log->n_committed);
  return rewrite (log, error);
}

/**
 * accel_commit_log_forget_from:
 * @log: a log
 * @first: a sequence number
 * @error: return location for a #GError, or %NULL
 *
 * Takes every sequence number from @first on out of the log, on disk too:
 * for an output that holds its frames in order, such as a file they are
 * appended to, and holds none from @first on.
 *
 * Returns: %TRUE on success.
 * Called from the thread that uses @log (the graph's, before it starts).
 */
gboolean
accel_commit_log_forget_from (
    AccelCommitLog *log, guint64 first, GError **error)
{
  GArray *runs;
  guint64 before;
  gint i;

  g_return_val_if_fail (log != NULL, FALSE);

  runs = log->committed;
  before = log->n_committed;
  /* the runs from the one that holds @first on end before it */
  i = run_before (runs, first);
  if (i >= 0 && g_array_index (runs, Run, i).hi > first)
    g_array_index (runs, Run, i).hi = first;
  if (i >= 0 && g_array_index (runs, Run, i).lo == first)
    i--;
  g_array_set_size (runs, i + 1);
  count_runs (log);
  if (log->n_committed == before)
    return TRUE;
  g_debug (
      "%s: forgot every sequence from %" G_GUINT64_FORMAT, log->path, first);
  return rewrite (log, error);
}

/**
 * accel_commit_log_file_is_fingerprinted: (skip)
 * @path: a commit log's file
 *
 * Returns: whether @path is a commit log made beside a graph's
 * fingerprint (one from before fingerprints were kept begins otherwise)
 * that holds a commit: its directory's fingerprint is to be there. MT
 * safe.
 */
gboolean
accel_commit_log_file_is_fingerprinted (const char *path)
{
  char header[HEADER_SIZE];
  GStatBuf st;
  gboolean is = FALSE;
  int fd;

  g_return_val_if_fail (path != NULL, FALSE);

  if (g_stat (path, &st) != 0 || !S_ISREG (st.st_mode)
      || st.st_size < HEADER_SIZE + (goffset)sizeof (Record)
      || (fd = g_open (path, O_RDONLY | O_CLOEXEC, 0)) < 0)
    return FALSE;
  if (read (fd, header, HEADER_SIZE) == HEADER_SIZE)
    is = memcmp (header, HEADER_DIGESTS, HEADER_SIZE) == 0
         || memcmp (header, HEADER_FINGERPRINTED, HEADER_SIZE) == 0;
  close (fd);
  return is;
}

/**
 * accel_commit_log_hold_lock:
 * @log: a log
 * @lock_fd: a descriptor of a file locked with flock(); @log owns it from
 *   now on
 *
 * Keeps @lock_fd open as long as @log is, so that the lock lasts as long as
 * the last log of the state directory. Called from the thread that starts
 * the graph.
 */
void
accel_commit_log_hold_lock (AccelCommitLog *log, int lock_fd)
{
  g_return_if_fail (log != NULL);

  if (log->lock_fd >= 0)
    close (log->lock_fd);
  log->lock_fd = lock_fd;
  /* as named now: a change of the working directory does not move it */
  if (!log->dir)
    {
      g_autofree gchar *dir = g_path_get_dirname (log->path);
      log->dir = g_canonicalize_filename (dir, NULL);
    }
}

static gchar *
digests_path (AccelCommitLog *log)
{
  return g_strconcat (log->path, ".digests", NULL);
}

/* the header says digests are kept, once the first is: through a second
 * descriptor, as the log's appends wherever it writes. It reaches the disk
 * with the commits (the log's sync) */
static gboolean
mark_digests_kept (AccelCommitLog *log, GError **error)
{
  int fd = g_open (log->path, O_WRONLY | O_CLOEXEC, 0);
  gboolean ok;

  if (fd < 0)
    return io_error (error, "cannot open commit log", log->path);
  ok = pwrite (fd, HEADER_DIGESTS, HEADER_SIZE, 0) == HEADER_SIZE;
  if (!ok)
    io_error (error, "cannot write", log->path);
  close (fd);
  log->has_digests = ok;
  return ok;
}

/**
 * accel_commit_log_write_digest: (skip)
 * @log: the sink's commit log
 * @place: a place of the sink's output (a frame of a raw file, a line)
 * @digest: what the sink wrote there, digested (accel_digest_bytes())
 * @error: return location for a #GError, or %NULL
 *
 * Keeps @digest beside the log, so that a resume can tell the output the
 * log speaks of from another file of its name (the sink's verify()). A
 * place written again takes the new digest.
 *
 * Returns: %FALSE when it cannot be written.
 * Called from the thread that uses @log, after the output is written and
 * before the frame is committed.
 */
gboolean
accel_commit_log_write_digest (
    AccelCommitLog *log, guint64 place, guint64 digest, GError **error)
{
  DigestRecord record = { GUINT64_TO_LE (place + 1), GUINT64_TO_LE (digest) };

  g_return_val_if_fail (log != NULL, FALSE);
  if (log->digests_fd < 0)
    {
      g_autofree gchar *path = digests_path (log);
      log->digests_fd = g_open (path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
      if (log->digests_fd < 0)
        return io_error (error, "cannot open", path);
    }
  if (pwrite (log->digests_fd, &record, sizeof (record),
          (off_t)(place * sizeof (record)))
      != sizeof (record))
    {
      g_autofree gchar *path = digests_path (log);
      return io_error (error, "cannot write a digest to", path);
    }
  return log->has_digests || mark_digests_kept (log, error);
}

/**
 * accel_commit_log_find_digest: (skip)
 * @log: the sink's commit log, from an earlier run
 * @n: a number of places of the sink's output, from 0
 * @place: (out): the newest place before @n whose digest was written
 *   (accel_commit_log_write_digest())
 * @digest: (out): its digest
 *
 * The digests come one a place, in order: the newest before @n is that of
 * @n - 1, or an earlier one when the digests file was cut short, deleted,
 * or behind the log after a crash (their syncs are not one write; its
 * last records may be zeroes then).
 *
 * Returns: whether one was found. Called from the thread that uses @log.
 */
gboolean
accel_commit_log_find_digest (
    AccelCommitLog *log, guint64 n, guint64 *place, guint64 *digest)
{
  g_autofree gchar *path = NULL;
  DigestRecord chunk[256];
  struct stat st;
  guint64 end;
  gboolean found = FALSE;
  int fd;

  g_return_val_if_fail (log != NULL, FALSE);
  path = digests_path (log);
  if ((fd = g_open (path, O_RDONLY | O_CLOEXEC, 0)) < 0)
    return FALSE;
  /* from the newest down: a crash may leave zeroed records at the end */
  end = fstat (fd, &st) == 0 ? MIN (n, (guint64)st.st_size / sizeof (*chunk))
                             : 0;
  while (end > 0 && !found)
    {
      guint64 start
          = end > G_N_ELEMENTS (chunk) ? end - G_N_ELEMENTS (chunk) : 0;
      gsize len = (gsize)(end - start) * sizeof (*chunk);

      if (pread (fd, chunk, len, (off_t)(start * sizeof (*chunk)))
          != (gssize)len)
        break;
      for (guint64 at = end; at-- > start && !found;)
        if (GUINT64_FROM_LE (chunk[at - start].place_plus_one) == at + 1)
          {
            *place = at;
            *digest = GUINT64_FROM_LE (chunk[at - start].digest);
            found = TRUE;
          }
      end = start;
    }
  close (fd);
  return found;
}

/**
 * accel_commit_log_forget_undigested: (skip)
 * @log: a sink's commit log whose digests of places @from to @to - 1 are
 *   missing though it says they are kept (accel_commit_log_has_digests())
 * @from: the first place with no digest
 * @to: the place after the last one the sink would keep
 * @places: what the sink calls its places ("frames", "lines")
 * @what: (out) (transfer full): set to what was found
 * @error: return location for a #GError, or %NULL
 *
 * For the verify() of a sink that keeps digests: the places no digest
 * vouches for cannot be checked, so @log forgets them from @from on, and
 * they are written again.
 *
 * Returns: %FALSE when @log cannot be rewritten. Called from the thread
 * that starts the graph.
 */
gboolean
accel_commit_log_forget_undigested (AccelCommitLog *log, guint64 from,
    guint64 to, const char *places, gchar **what, GError **error)
{
  g_return_val_if_fail (log != NULL, FALSE);

  *what = g_strdup_printf (
      "the digests beside its commit log lack those of %s %" G_GUINT64_FORMAT
      " to %" G_GUINT64_FORMAT " (their file deleted or cut short, or not on "
      "disk before a crash), so %s from %" G_GUINT64_FORMAT
      " on cannot be checked",
      places, from, to - 1, places, from);
  return accel_commit_log_forget_from (log, from, error);
}

/**
 * accel_commit_log_has_digests: (skip)
 * @log: a commit log
 *
 * Returns: whether its sink wrote digests beside it: then every place it
 * committed has one, and one that lacks it is not to be trusted. Called
 * from the thread that uses @log.
 */
gboolean
accel_commit_log_has_digests (AccelCommitLog *log)
{
  g_return_val_if_fail (log != NULL, FALSE);

  return log->has_digests;
}
