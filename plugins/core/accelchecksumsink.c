/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel core plugin: core.checksum-sink, a SHA-256 of every buffer that
 * arrives; programs read the results as properties (accelcore.h). An
 * endless run keeps a running digest and the last records only: the file
 * at location holds them all */
#define G_LOG_DOMAIN "accel-checksum-sink"

#include "accelchecksumsink.h"

#include <cuda_runtime_api.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the sequences and checksums properties give the last this many (their
 * blurbs say so) */
#define MAX_RECORDS 4096

typedef struct
{
  guint64 sequence;
  gchar sum[65]; /* SHA-256 in hex */
} Record;

struct _AccelChecksumSink
{
  AccelStage parent;

  AccelBuffer *staging; /* pinned copy of a device buffer */
  gchar *location;
  gint64 start_timeout_ms;
  int fd;
  goffset end; /* how long its lines made the file */
  /* the file's lines so far, and their digest, kept beside the commit
   * log line by line: a resume tells the file from another one */
  guint64 n_lines;
  guint64 lines_digest;

  /* the results of the current run (or the last), read from any thread */
  GMutex lock;
  guint64 n_received;
  GChecksum *digest; /* over every line "sequence sha256\n" so far */
  GArray *records;   /* Record: a ring, the last MAX_RECORDS */
  guint oldest;      /* the ring's first record once it is full */
};

static void accel_checksum_sink_file_output_init (
    AccelFileOutputInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (AccelChecksumSink, accel_checksum_sink,
    ACCEL_TYPE_STAGE,
    G_IMPLEMENT_INTERFACE (
        ACCEL_TYPE_FILE_OUTPUT, accel_checksum_sink_file_output_init))

enum
{
  PROP_0,
  PROP_LOCATION,
  PROP_START_TIMEOUT,
  PROP_N_RECEIVED,
  PROP_SEQUENCES,
  PROP_CHECKSUMS,
  PROP_DIGEST,
};

/* whether @line is "<sequence> <sha256>" for @sequence */
static gboolean
is_line_of (const char *line, guint64 sequence)
{
  g_autofree gchar *prefix
      = g_strdup_printf ("%" G_GUINT64_FORMAT " ", sequence);
  const char *sum = line + strlen (prefix);

  if (!g_str_has_prefix (line, prefix) || strlen (sum) != 64)
    return FALSE;
  for (const char *c = sum; *c; c++)
    if (!g_ascii_isxdigit (*c))
      return FALSE;
  return TRUE;
}

/* whether @path is there but no regular file (a FIFO, a device such as
 * /dev/stdout): written on, never read back or cut (a read waited for a
 * writer for good) */
static gboolean
is_special (const char *path)
{
  GStatBuf st;

  return g_stat (path, &st) == 0 && !S_ISREG (st.st_mode);
}

/* keeps the lines of committed sequence numbers only, in order: what a run
 * cut short wrote past its last commit is written again, once. A line
 * that is not whole, or not after the one before (something else wrote
 * there), ends what is kept (appended to @kept). Cut in place, so that a
 * link's file is cut, not replaced by a file of its own */
static gboolean
keep_committed_lines (
    const char *path, AccelCommitLog *log, GString *kept, GError **error)
{
  g_autofree gchar *data = NULL;
  g_auto (GStrv) lines = NULL;
  gboolean any = FALSE;
  guint64 last = 0;
  int fd, saved;

  if (!g_file_test (path, G_FILE_TEST_EXISTS) || is_special (path))
    return TRUE;
  if (!g_file_get_contents (path, &data, NULL, error))
    return FALSE;
  lines = g_strsplit (data, "\n", -1);
  for (guint i = 0; lines[i] && *lines[i]; i++)
    {
      guint64 seq = g_ascii_strtoull (lines[i], NULL, 10);

      if (!is_line_of (lines[i], seq) || (any && seq <= last))
        break;
      any = TRUE;
      last = seq;
      if (accel_commit_log_contains (log, seq))
        g_string_append_printf (kept, "%s\n", lines[i]);
    }
  fd = g_open (path, O_WRONLY | O_CLOEXEC, 0);
  if (fd >= 0 && pwrite (fd, kept->str, kept->len, 0) == (gssize)kept->len
      && ftruncate (fd, (off_t)kept->len) == 0 && close (fd) == 0)
    return TRUE;
  saved = errno;
  if (fd >= 0)
    close (fd);
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
      "cannot cut %s back to its committed lines: %s", path,
      g_strerror (saved));
  return FALSE;
}

static guint64
count_lines (const char *text)
{
  guint64 n = 0;

  for (const char *c = text; *c; c++)
    n += *c == '\n';
  return n;
}

/* whether the first @n @lines of @location are those the sink wrote, by
 * the digest of the lines kept beside @log (lines in order, from 0, can be
 * another run's as well). Where the digest of line @n - 1 is missing
 * though the log says digests were kept (their file deleted or cut short,
 * or behind the log after a crash), only the lines up to the newest one
 * that has a digest are kept (@n_kept, and @what says why): the log
 * forgets the others, and they are written again. A state kept before
 * digests were keeps every line, unchecked */
static gboolean
lines_as_written (AccelCommitLog *log, const char *location, GStrv lines,
    guint64 n, guint64 *n_kept, gchar **what, GError **error)
{
  guint64 place = 0, want = 0, digest = ACCEL_DIGEST_INIT;
  gboolean found = accel_commit_log_find_digest (log, n, &place, &want);
  guint64 vouched = found ? place + 1 : 0;

  *n_kept = n;
  if (n == 0 || (!found && !accel_commit_log_has_digests (log)))
    return TRUE;
  for (guint64 i = 0; i < vouched; i++)
    {
      digest = accel_digest_bytes (digest, lines[i], strlen (lines[i]));
      digest = accel_digest_bytes (digest, "\n", 1);
    }
  if (found && digest != want)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH,
          "%s was changed since frame %" G_GUINT64_FORMAT
          " was committed: its lines differ from those written (or the "
          "digests beside its commit log were damaged); it is not the file "
          "the commit log speaks of (discard the state to start over)",
          location, place);
      return FALSE;
    }
  if (vouched == n)
    return TRUE;
  *n_kept = vouched;
  return accel_commit_log_forget_undigested (
      log, vouched, n, "lines", what, error);
}

static gchar *
accel_checksum_sink_get_path (AccelFileOutput *output)
{
  return g_strdup (ACCEL_CHECKSUM_SINK (output)->location);
}

/* the file holds a line per committed frame, in order from 0: it lacks
 * what comes after its last such line, and a frame committed past a gap
 * (one skipped in an earlier run) has its line where the gap's belongs */
static gboolean
accel_checksum_sink_verify (
    AccelFileOutput *output, AccelCommitLog *log, gchar **what, GError **error)
{
  AccelChecksumSink *self = ACCEL_CHECKSUM_SINK (output);
  guint64 first = accel_commit_log_first_uncommitted (log);
  g_autofree gchar *data = NULL;
  g_autoptr (GError) local = NULL;
  g_auto (GStrv) lines = NULL;
  guint64 whole = 0;

  if (!self->location || is_special (self->location))
    return TRUE;
  if (!g_file_get_contents (self->location, &data, NULL, &local)
      && !g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  lines = g_strsplit (data ? data : "", "\n", -1);
  while (whole < first && lines[whole] && is_line_of (lines[whole], whole))
    whole++;
  if (!lines_as_written (
          log, self->location, lines, whole, &whole, what, error))
    return FALSE;
  return accel_file_output_keep_in_order (
      log, self->location, whole, what, error);
}

static void
accel_checksum_sink_file_output_init (AccelFileOutputInterface *iface)
{
  iface->get_path = accel_checksum_sink_get_path;
  iface->verify = accel_checksum_sink_verify;
}

/* a graph's start begins the results anew */
static void
reset_results (AccelChecksumSink *self)
{
  g_mutex_lock (&self->lock);
  self->n_received = 0;
  g_checksum_reset (self->digest);
  g_array_set_size (self->records, 0);
  self->oldest = 0;
  g_mutex_unlock (&self->lock);
}

/* a FIFO waits for its reader up to start-timeout (its open waited for
 * good, and a single Ctrl-C did not end it); a file is appended to when
 * it @goes_on, else emptied */
static gboolean
open_location (AccelChecksumSink *self, gboolean goes_on, GError **error)
{
  GStatBuf st;

  if ((self->fd = accel_file_output_dup_std (self->location)) >= 0)
    return TRUE;
  if (g_stat (self->location, &st) == 0 && S_ISFIFO (st.st_mode))
    {
      self->fd = accel_file_output_open_fifo (
          ACCEL_STAGE (self), self->location, self->start_timeout_ms, error);
      /* lines are written whole, each in one write () */
      if (self->fd >= 0)
        fcntl (self->fd, F_SETFL, fcntl (self->fd, F_GETFL) & ~O_NONBLOCK);
      return self->fd >= 0;
    }
  self->fd = g_open (self->location,
      O_WRONLY | O_CREAT | O_CLOEXEC | O_APPEND | (goes_on ? 0 : O_TRUNC),
      0644);
  if (self->fd < 0)
    {
      int saved = errno;
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED, "cannot open %s: %s",
          self->location, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

static gboolean
accel_checksum_sink_start (AccelStage *stage, GError **error)
{
  AccelChecksumSink *self = ACCEL_CHECKSUM_SINK (stage);
  const AccelType *in = accel_stage_get_input_type (stage, 0);
  AccelCommitLog *log = accel_stage_get_commit_log (stage);
  /* a restart by the stage's supervisor goes on with the lines written so
   * far, and the results: each line was written whole before its frame
   * was done */
  gboolean restart = accel_stage_is_restarting (stage);
  g_autoptr (GString) kept = g_string_new (NULL);
  AccelType bytes;

  if (!restart)
    reset_results (self);
  if (self->location)
    {
      if (log && !restart
          && !keep_committed_lines (self->location, log, kept, error))
        return FALSE;
      if (!open_location (self, log || restart, error))
        return FALSE;
      self->end = lseek (self->fd, 0, SEEK_END);
      /* a resumed run's digest is the whole stream's, as its file is */
      g_mutex_lock (&self->lock);
      g_checksum_update (self->digest, (const guchar *)kept->str, kept->len);
      g_mutex_unlock (&self->lock);
      if (!restart)
        {
          self->n_lines = count_lines (kept->str);
          self->lines_digest
              = accel_digest_bytes (ACCEL_DIGEST_INIT, kept->str, kept->len);
        }
    }
  if (accel_stage_is_host (stage))
    return TRUE;
  accel_type_init_bytes (
      &bytes, ACCEL_MEMORY_PINNED, (gint64)accel_type_get_size (in));
  self->staging
      = accel_buffer_new (accel_stage_get_device (stage), &bytes, error);
  return self->staging != NULL;
}

/* the stream ended: the file written is still where it is named */
static gboolean
accel_checksum_sink_eos (AccelStage *stage, GError **error)
{
  AccelChecksumSink *self = ACCEL_CHECKSUM_SINK (stage);

  return accel_file_output_check_kept (stage, self->fd, self->location, error)
         && accel_file_output_check_length (
             stage, self->fd, self->location, self->end, error);
}

static void
accel_checksum_sink_stop (AccelStage *stage)
{
  AccelChecksumSink *self = ACCEL_CHECKSUM_SINK (stage);

  g_clear_pointer (&self->staging, accel_buffer_unref);
  if (self->fd >= 0)
    close (self->fd);
  self->fd = -1;
}

/* the GPU part: copy the data out; render() runs once the copy is done */
static AccelFlow
accel_checksum_sink_process (
    AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelChecksumSink *self = ACCEL_CHECKSUM_SINK (stage);
  AccelBuffer *in = frame->inputs[0];

  if (!self->staging)
    return ACCEL_FLOW_OK;
  if (!accel_cuda_check (
          cudaMemcpyAsync (accel_buffer_get_data (self->staging),
              accel_buffer_get_data (in), accel_buffer_get_size (in),
              cudaMemcpyDefault,
              (cudaStream_t)accel_stream_get_handle (frame->stream)),
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

/* unbuffered, before the engine commits the sequence number. A write cut
 * short (a full disk) is cut back to the line's start, so that a restart
 * or a rerun writes the line once, whole; errno is the failed call's own */
static gboolean
write_line (
    AccelChecksumSink *self, guint64 sequence, const char *line, GError **error)
{
  gsize len = strlen (line), done = 0;
  off_t start = lseek (self->fd, 0, SEEK_END);
  int saved;

  /* a file another program emptied would lose the lines before */
  if (!accel_file_output_check_length (
          ACCEL_STAGE (self), self->fd, self->location, self->end, error))
    return FALSE;
  while (done < len)
    {
      gssize n = write (self->fd, line + done, len - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        goto failed;
      done += (gsize)n;
    }
  if (start >= 0)
    self->end = start + (off_t)len;
  return TRUE;

  /* ERRORS */
failed:
  {
    saved = errno;
    if (start >= 0 && done > 0 && ftruncate (self->fd, start) != 0)
      g_warning ("cannot cut %s back to its last whole line", self->location);
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
        "cannot write frame %" G_GUINT64_FORMAT " to %s: %s", sequence,
        self->location, g_strerror (saved));
    return FALSE;
  }
}

/* the results: a record in the ring, the line in the digest */
static void
add_result (AccelChecksumSink *self, guint64 sequence, const char *sum,
    const char *line)
{
  Record record = { .sequence = sequence };

  g_strlcpy (record.sum, sum, sizeof (record.sum));
  g_mutex_lock (&self->lock);
  self->n_received++;
  g_checksum_update (self->digest, (const guchar *)line, -1);
  if (self->records->len < MAX_RECORDS)
    {
      g_array_append_val (self->records, record);
    }
  else
    {
      g_array_index (self->records, Record, self->oldest) = record;
      self->oldest = (self->oldest + 1) % MAX_RECORDS;
    }
  g_mutex_unlock (&self->lock);
}

static AccelFlow
accel_checksum_sink_render (
    AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelChecksumSink *self = ACCEL_CHECKSUM_SINK (stage);
  AccelBuffer *in = frame->inputs[0];
  AccelBuffer *data = self->staging ? self->staging : in;
  g_autofree gchar *sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256,
      accel_buffer_get_data (data), accel_buffer_get_size (in));
  g_autofree gchar *line
      = g_strdup_printf ("%" G_GUINT64_FORMAT " %s\n", frame->sequence, sum);

  AccelCommitLog *log = accel_stage_get_commit_log (stage);

  if (self->fd >= 0 && !write_line (self, frame->sequence, line, error))
    return ACCEL_FLOW_ERROR;
  if (self->fd >= 0)
    {
      self->lines_digest
          = accel_digest_bytes (self->lines_digest, line, strlen (line));
      if (log
          && !accel_commit_log_write_digest (
              log, self->n_lines, self->lines_digest, error))
        return ACCEL_FLOW_ERROR;
      self->n_lines++;
    }
  add_result (self, frame->sequence, sum, line);
  return ACCEL_FLOW_OK;
}

/* the @i-th record kept, oldest first; called with the lock held */
static const Record *
record_at_unlocked (AccelChecksumSink *self, guint i)
{
  guint len = self->records->len;

  return &g_array_index (self->records, Record, (self->oldest + i) % len);
}

/* a GVariant of type "at", which bindings read as a list */
static GVariant *
dup_sequences (AccelChecksumSink *self)
{
  g_autoptr (GArray) copy = NULL;
  GVariant *sequences;

  g_mutex_lock (&self->lock);
  copy = g_array_sized_new (FALSE, FALSE, sizeof (guint64), self->records->len);
  for (guint i = 0; i < self->records->len; i++)
    g_array_append_val (copy, record_at_unlocked (self, i)->sequence);
  g_mutex_unlock (&self->lock);
  sequences = g_variant_new_fixed_array (
      G_VARIANT_TYPE_UINT64, copy->data, copy->len, sizeof (guint64));
  return g_variant_ref_sink (sequences);
}

static GStrv
dup_checksums (AccelChecksumSink *self)
{
  GStrv sums;

  g_mutex_lock (&self->lock);
  sums = g_new0 (gchar *, self->records->len + 1);
  for (guint i = 0; i < self->records->len; i++)
    sums[i] = g_strdup (record_at_unlocked (self, i)->sum);
  g_mutex_unlock (&self->lock);
  return sums;
}

/* one SHA-256 over every buffer's sequence number and checksum, in arrival
 * order: equal digests mean equal runs. Read from a copy: reading a
 * GChecksum's string ends it */
static gchar *
dup_digest (AccelChecksumSink *self)
{
  g_autoptr (GChecksum) copy = NULL;

  g_mutex_lock (&self->lock);
  copy = g_checksum_copy (self->digest);
  g_mutex_unlock (&self->lock);
  return g_strdup (g_checksum_get_string (copy));
}

static void
accel_checksum_sink_finalize (GObject *object)
{
  AccelChecksumSink *self = ACCEL_CHECKSUM_SINK (object);

  g_checksum_free (self->digest);
  g_array_unref (self->records);
  g_free (self->location);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (accel_checksum_sink_parent_class)->finalize (object);
}

static void
accel_checksum_sink_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelChecksumSink *self = ACCEL_CHECKSUM_SINK (object);

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;
  switch (prop_id)
    {
    case PROP_LOCATION:
      g_free (self->location);
      self->location = g_value_dup_string (value);
      if (self->location && !*self->location)
        g_clear_pointer (&self->location, g_free);
      break;
    case PROP_START_TIMEOUT:
      self->start_timeout_ms = g_value_get_int64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_checksum_sink_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelChecksumSink *self = ACCEL_CHECKSUM_SINK (object);

  switch (prop_id)
    {
    case PROP_LOCATION:
      g_value_set_string (value, self->location);
      break;
    case PROP_START_TIMEOUT:
      g_value_set_int64 (value, self->start_timeout_ms);
      break;
    case PROP_N_RECEIVED:
      g_mutex_lock (&self->lock);
      g_value_set_uint64 (value, self->n_received);
      g_mutex_unlock (&self->lock);
      break;
    case PROP_SEQUENCES:
      g_value_take_variant (value, dup_sequences (self));
      break;
    case PROP_CHECKSUMS:
      g_value_take_boxed (value, dup_checksums (self));
      break;
    case PROP_DIGEST:
      g_value_take_string (value, dup_digest (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_checksum_sink_class_init (AccelChecksumSinkClass *klass)
{
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  AccelType in;

  G_OBJECT_CLASS (klass)->finalize = accel_checksum_sink_finalize;
  G_OBJECT_CLASS (klass)->set_property = accel_checksum_sink_set_property;
  G_OBJECT_CLASS (klass)->get_property = accel_checksum_sink_get_property;
  g_object_class_install_property (G_OBJECT_CLASS (klass), PROP_LOCATION,
      g_param_spec_string ("location", "Location",
          "File that gets a line \"sequence sha256\" per buffer (empty: "
          "none)",
          NULL,
          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS
              | ACCEL_PARAM_FIXED));
  g_object_class_install_property (G_OBJECT_CLASS (klass), PROP_START_TIMEOUT,
      g_param_spec_int64 ("start-timeout", "Start timeout",
          "Milliseconds a FIFO may go without a reader as the stage starts", 1,
          G_MAXINT64 / 1000, 10000,
          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS));
  /* the results of the graph's run (each start begins them anew), read
   * from any thread while it runs and after */
  g_object_class_install_property (G_OBJECT_CLASS (klass), PROP_N_RECEIVED,
      g_param_spec_uint64 ("n-received", "Received",
          "Buffers checksummed so far in this run", 0, G_MAXUINT64, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (G_OBJECT_CLASS (klass), PROP_SEQUENCES,
      g_param_spec_variant ("sequences", "Sequences",
          "The sequence numbers of the last 4096 buffers, in arrival order",
          G_VARIANT_TYPE ("at"), NULL,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (G_OBJECT_CLASS (klass), PROP_CHECKSUMS,
      g_param_spec_boxed ("checksums", "Checksums",
          "The SHA-256 of each of the last 4096 buffers, in arrival order",
          G_TYPE_STRV, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (G_OBJECT_CLASS (klass), PROP_DIGEST,
      g_param_spec_string ("digest", "Digest",
          "One SHA-256 over each buffer's line \"sequence sha256\", in "
          "arrival order (what location holds): equal digests mean equal "
          "runs. A run resumed from a state directory starts from the lines "
          "its location kept",
          NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  stage_class->start = accel_checksum_sink_start;
  stage_class->stop = accel_checksum_sink_stop;
  stage_class->eos = accel_checksum_sink_eos;
  stage_class->process = accel_checksum_sink_process;
  stage_class->render = accel_checksum_sink_render;

  accel_stage_class_set_metadata (stage_class, "core.checksum-sink",
      "Record a SHA-256 of every buffer, for tests and run comparisons");
  accel_type_init_any (&in);
  accel_stage_class_add_port (
      stage_class, ACCEL_PORT_INPUT, "in", &in, "any data");
}

static void
accel_checksum_sink_init (AccelChecksumSink *self)
{
  g_mutex_init (&self->lock);
  self->digest = g_checksum_new (G_CHECKSUM_SHA256);
  self->records = g_array_new (FALSE, FALSE, sizeof (Record));
  self->fd = -1;
}
