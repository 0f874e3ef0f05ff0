/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: io.raw-file-sink, every buffer's bytes appended to a
 * file */
#define G_LOG_DOMAIN "accel-raw-file-sink"

#include "accelrawfilesink.h"
#include "accelio-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

struct _AccelRawFileSink
{
  AccelStage parent;

  gchar *location;
  gint64 start_timeout_ms;

  int fd;
  gboolean stream;  /* a pipe or a socket: written in order, no going back */
  gint64 cut_frame; /* the stream's frame given up on part written, or -1 */
  gboolean regular; /* a regular file: frames where their digests say */
  AccelBuffer *staging;    /* GPU: pinned copy of the frame being written */
  AccelCommitLog *digests; /* where its frames' digests go, or NULL */
};

static void accel_raw_file_sink_file_output_init (
    AccelFileOutputInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (AccelRawFileSink, accel_raw_file_sink,
    ACCEL_TYPE_STAGE,
    G_IMPLEMENT_INTERFACE (
        ACCEL_TYPE_FILE_OUTPUT, accel_raw_file_sink_file_output_init))

enum
{
  PROP_0,
  PROP_LOCATION,
  PROP_START_TIMEOUT,
};

static gboolean
accel_raw_file_sink_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelRawFileSink *self = ACCEL_RAW_FILE_SINK (stage);

  if (!self->location || !*self->location)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "stage '%s' (io.raw-file-sink): no location to write to",
          accel_stage_get_name (stage));
      return FALSE;
    }
  return TRUE;
}

/* with a commit log, the file keeps the frames committed in order and the
 * run goes on from there; else it starts empty. A restart by the stage's
 * supervisor goes on after the last frame written: every frame rendered
 * before the fault is complete, and cutting back to the commit log's first
 * gap would drop frames written after a frame skipped earlier. A stream (a
 * pipe, a socket) cannot be cut back: frames are only appended */
static gboolean
open_file (AccelRawFileSink *self, gsize frame_size, GError **error)
{
  AccelCommitLog *log = accel_stage_get_commit_log (ACCEL_STAGE (self));
  gboolean restart = accel_stage_is_restarting (ACCEL_STAGE (self));
  struct stat st;
  goffset keep;
  gboolean std = FALSE;

  if ((self->fd = accel_file_output_dup_std (self->location)) >= 0)
    std = TRUE;
  else if (g_stat (self->location, &st) == 0 && S_ISFIFO (st.st_mode))
    {
      self->fd = accel_file_output_open_fifo (
          ACCEL_STAGE (self), self->location, self->start_timeout_ms, error);
      if (self->fd < 0)
        return FALSE;
    }
  else
    self->fd = g_open (self->location,
        O_WRONLY | O_CREAT | O_CLOEXEC | (log || restart ? 0 : O_TRUNC), 0644);
  if (self->fd < 0)
    goto failed;
  /* /dev/stdout into another program, a FIFO: frames go on at its end,
   * written without blocking (write_stream ()) */
  self->stream = lseek (self->fd, 0, SEEK_CUR) < 0 && errno == ESPIPE;
  if (self->stream)
    fcntl (self->fd, F_SETFL, fcntl (self->fd, F_GETFL) | O_NONBLOCK);
  /* only a regular file's frames are where the digests say: /dev/null
   * seeks, but stays at 0 */
  self->regular = fstat (self->fd, &st) == 0 && S_ISREG (st.st_mode);
  if (self->stream)
    return TRUE;
  /* the file the shell gave (>> file) is not cut back: what it held
   * before the run is not the run's */
  if (restart || !log || std)
    {
      if (lseek (self->fd, 0, SEEK_END) < 0)
        goto failed;
      return TRUE;
    }
  keep = (goffset)(accel_commit_log_first_uncommitted (log) * frame_size);
  if (fstat (self->fd, &st) != 0
      || (st.st_size > keep && ftruncate (self->fd, keep) != 0)
      || lseek (self->fd, 0, SEEK_END) < 0)
    goto failed;
  return TRUE;

  /* ERRORS */
failed:
  {
    int saved = errno;
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED, "cannot open %s: %s",
        self->location, g_strerror (saved));
    return FALSE;
  }
}

static gboolean
accel_raw_file_sink_start (AccelStage *stage, GError **error)
{
  AccelRawFileSink *self = ACCEL_RAW_FILE_SINK (stage);
  gsize size = accel_type_get_size (accel_stage_get_input_type (stage, 0));
  AccelCommitLog *log = accel_stage_get_commit_log (stage);
  AccelType bytes;

  /* its reader would take the frames after it out of place */
  if (self->cut_frame >= 0 && accel_stage_is_restarting (stage))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "cannot restart: the reader of %s has frame %" G_GINT64_FORMAT
          " cut short, and would read the frames after it out of place",
          self->location, self->cut_frame);
      return FALSE;
    }
  self->cut_frame = -1;
  if (!open_file (self, size, error))
    return FALSE;
  self->digests = !self->stream && self->regular ? log : NULL;
  if (accel_stage_is_host (stage))
    return TRUE;
  accel_type_init_bytes (&bytes, ACCEL_MEMORY_PINNED, (gint64)size);
  self->staging
      = accel_buffer_new (accel_stage_get_device (stage), &bytes, error);
  return self->staging != NULL;
}

/* the stream ended: the file written is still where it is named */
static gboolean
accel_raw_file_sink_eos (AccelStage *stage, GError **error)
{
  AccelRawFileSink *self = ACCEL_RAW_FILE_SINK (stage);

  return accel_file_output_check_kept (stage, self->fd, self->location, error)
         && (!self->regular
             || accel_file_output_check_length (stage, self->fd, self->location,
                 lseek (self->fd, 0, SEEK_CUR), error));
}

static void
accel_raw_file_sink_stop (AccelStage *stage)
{
  AccelRawFileSink *self = ACCEL_RAW_FILE_SINK (stage);

  g_clear_pointer (&self->staging, accel_buffer_unref);
  self->digests = NULL;
  if (self->fd >= 0)
    close (self->fd);
  self->fd = -1;
}

/* the GPU part: copy the frame out; render() writes it once that is done */
static AccelFlow
accel_raw_file_sink_process (
    AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelRawFileSink *self = ACCEL_RAW_FILE_SINK (stage);
  AccelBuffer *in = frame->inputs[0];

  if (!self->staging)
    return ACCEL_FLOW_OK;
  return accel_io_copy_async (frame->stream,
             accel_buffer_get_data (self->staging), accel_buffer_get_data (in),
             accel_buffer_get_size (in), error)
             ? ACCEL_FLOW_OK
             : ACCEL_FLOW_ERROR;
}

/* what the reader has of a frame given up on (as after a crash, it is
 * left cut short: a stream cannot take it back) */
static const char *
cut_short (AccelRawFileSink *self, guint64 sequence, gchar **text, gsize done,
    gsize size)
{
  if (done == 0)
    return "";
  self->cut_frame = (gint64)sequence;
  *text = g_strdup_printf (
      " (its reader has the frame cut short, %" G_GSIZE_FORMAT
      " of its %" G_GSIZE_FORMAT " bytes)",
      done, size);
  return *text;
}

/* a stream's reader is outside the graph: the wait for it to take the
 * bytes is backpressure, in slices of ACCEL_IO_WAIT_SLICE_US, so a stop
 * ends it, and the stage's own watchdog, when set, bounds it. A blocking
 * write to a reader that stopped reading held the stage for good: past a
 * watchdog the graph failed as hung, a stage whose thread cannot be
 * stopped, and a stop waited for the write */
static gboolean
write_stream (AccelRawFileSink *self, guint64 sequence, const guint8 *data,
    gsize size, GError **error)
{
  AccelStage *stage = ACCEL_STAGE (self);
  gint64 began = g_get_monotonic_time ();
  gsize done = 0;

  while (done < size)
    {
      struct pollfd pfd = { self->fd, POLLOUT, 0 };
      g_autofree gchar *cut = NULL;
      gint64 watchdog_ms = 0, waited;
      gssize n = write (self->fd, data + done, size - done);

      if (n > 0)
        {
          done += (gsize)n;
          began = g_get_monotonic_time ();
          continue;
        }
      if (n < 0 && errno != EAGAIN && errno != EINTR)
        {
          int saved = errno;
          g_set_error (
              error, ACCEL_ERROR, ACCEL_ERROR_FAILED, "%s", g_strerror (saved));
          return FALSE;
        }
      if (poll (&pfd, 1, ACCEL_IO_WAIT_SLICE_US / 1000) < 0 && errno != EINTR)
        {
          int saved = errno;
          g_set_error (
              error, ACCEL_ERROR, ACCEL_ERROR_FAILED, "%s", g_strerror (saved));
          return FALSE;
        }
      if (accel_stage_should_stop (stage))
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED,
              "stopped while its reader took no data%s",
              cut_short (self, sequence, &cut, done, size));
          return FALSE;
        }
      /* it may change as the graph runs */
      g_object_get (self, "watchdog", &watchdog_ms, NULL);
      waited = g_get_monotonic_time () - began;
      if (watchdog_ms > 0 && waited > watchdog_ms * 1000)
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT,
              "its reader took no data for %" G_GINT64_FORMAT
              " ms, past the stage's %" G_GINT64_FORMAT " ms watchdog%s",
              waited / 1000, watchdog_ms,
              cut_short (self, sequence, &cut, done, size));
          return FALSE;
        }
    }
  return TRUE;
}

static AccelFlow
accel_raw_file_sink_render (
    AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelRawFileSink *self = ACCEL_RAW_FILE_SINK (stage);
  AccelBuffer *in = frame->inputs[0];
  AccelBuffer *data = self->staging ? self->staging : in;
  off_t start = self->stream ? -1 : lseek (self->fd, 0, SEEK_CUR);

  gboolean written;

  /* a file another program emptied would get a hole where it was cut */
  if (self->regular
      && !accel_file_output_check_length (
          stage, self->fd, self->location, start, error))
    return ACCEL_FLOW_ERROR;
  if (self->stream)
    {
      accel_stage_wait_begin (stage);
      written = write_stream (self, frame->sequence,
          accel_buffer_get_data (data), accel_buffer_get_size (in), error);
      accel_stage_wait_end (stage);
    }
  else
    written = accel_io_write_all (self->fd, accel_buffer_get_data (data),
        accel_buffer_get_size (in), error);
  if (!written
      || (self->digests && accel_buffer_get_size (in) > 0
          && !accel_io_frame_digests_write (self->digests, frame->sequence,
              (guint64)lseek (self->fd, 0, SEEK_CUR),
              accel_buffer_get_data (data), accel_buffer_get_size (in), error)))
    {
      /* no part of the frame stays, nor a frame whose digest is not
       * kept: a restart or a rerun writes it whole, once */
      if (start >= 0 && lseek (self->fd, 0, SEEK_CUR) > start
          && (ftruncate (self->fd, start) != 0
              || lseek (self->fd, start, SEEK_SET) < 0))
        g_warning (
            "cannot cut %s back to its last whole frame", self->location);
      g_prefix_error (error,
          "cannot write frame %" G_GUINT64_FORMAT " to %s: ", frame->sequence,
          self->location);
      return ACCEL_FLOW_ERROR;
    }
  return ACCEL_FLOW_OK;
}

static gchar *
accel_raw_file_sink_get_path (AccelFileOutput *output)
{
  return g_strdup (ACCEL_RAW_FILE_SINK (output)->location);
}

/* the file holds the committed frames in order, from 0: it lacks what lies
 * past its last whole frame, and a frame committed past a gap (one skipped
 * in an earlier run) sits where the gap's frame belongs */
static gboolean
accel_raw_file_sink_verify (
    AccelFileOutput *output, AccelCommitLog *log, gchar **what, GError **error)
{
  AccelRawFileSink *self = ACCEL_RAW_FILE_SINK (output);
  gsize frame_size = accel_type_get_size (
      accel_stage_get_input_type (ACCEL_STAGE (self), 0));
  guint64 whole = 0;
  struct stat st;

  if (g_stat (self->location, &st) == 0)
    {
      /* a device or a pipe keeps nothing to compare */
      if (!S_ISREG (st.st_mode) || frame_size == 0)
        return TRUE;
      whole = (guint64)st.st_size / frame_size;
    }
  else if (errno != ENOENT)
    {
      int saved = errno;
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "cannot check %s: %s", self->location, g_strerror (saved));
      return FALSE;
    }
  return accel_io_frame_digests_check (
             log, self->location, frame_size, whole, &whole, what, error)
         && accel_file_output_keep_in_order (
             log, self->location, whole, what, error);
}

static void
accel_raw_file_sink_file_output_init (AccelFileOutputInterface *iface)
{
  iface->get_path = accel_raw_file_sink_get_path;
  iface->verify = accel_raw_file_sink_verify;
}

static void
accel_raw_file_sink_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelRawFileSink *self = ACCEL_RAW_FILE_SINK (object);

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;

  switch (prop_id)
    {
    case PROP_LOCATION:
      g_free (self->location);
      self->location = g_value_dup_string (value);
      break;
    case PROP_START_TIMEOUT:
      self->start_timeout_ms = g_value_get_int64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_raw_file_sink_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelRawFileSink *self = ACCEL_RAW_FILE_SINK (object);

  switch (prop_id)
    {
    case PROP_LOCATION:
      g_value_set_string (value, self->location);
      break;
    case PROP_START_TIMEOUT:
      g_value_set_int64 (value, self->start_timeout_ms);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_raw_file_sink_finalize (GObject *object)
{
  AccelRawFileSink *self = ACCEL_RAW_FILE_SINK (object);

  g_free (self->location);
  G_OBJECT_CLASS (accel_raw_file_sink_parent_class)->finalize (object);
}

static void
accel_raw_file_sink_class_init (AccelRawFileSinkClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  AccelType in;

  gobject_class->set_property = accel_raw_file_sink_set_property;
  gobject_class->get_property = accel_raw_file_sink_get_property;
  gobject_class->finalize = accel_raw_file_sink_finalize;
  stage_class->negotiate = accel_raw_file_sink_negotiate;
  stage_class->start = accel_raw_file_sink_start;
  stage_class->stop = accel_raw_file_sink_stop;
  stage_class->eos = accel_raw_file_sink_eos;
  stage_class->process = accel_raw_file_sink_process;
  stage_class->render = accel_raw_file_sink_render;

  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "Location",
          "File that gets every buffer's bytes, in order (emptied at start, "
          "or cut back to the committed frames when the graph keeps state; "
          "a restart of the stage goes on with it)",
          NULL,
          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS
              | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_START_TIMEOUT,
      g_param_spec_int64 ("start-timeout", "Start timeout",
          "Milliseconds a FIFO may go without a reader as the stage starts", 1,
          G_MAXINT64 / 1000, 10000,
          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS));

  accel_stage_class_set_metadata (stage_class, "io.raw-file-sink",
      "Append the bytes of every buffer to a file");
  accel_type_init_any (&in);
  accel_stage_class_add_port (
      stage_class, ACCEL_PORT_INPUT, "in", &in, "any data");
}

static void
accel_raw_file_sink_init (AccelRawFileSink *self)
{
  self->fd = -1;
  self->cut_frame = -1;
}
