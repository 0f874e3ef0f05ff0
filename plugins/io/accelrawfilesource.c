/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: io.raw-file-source, frames of a fixed type read from a
 * file */
#define G_LOG_DOMAIN "accel-raw-file-source"

#include "accelrawfilesource.h"
#include "accelio-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <linux/magic.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

/* frames read ahead of the GPU's copies */
#define STAGING_SLOTS 3

struct _AccelRawFileSource
{
  AccelStage parent;

  gchar *location;
  AccelIoTypeProps type_props;
  gboolean loop;
  gint64 num_buffers;

  int fd;
  gboolean seekable; /* a regular file: frame s is at s times the size */
  guint64 n_frames;  /* whole frames in a regular file */
  gsize frame_size;
  AccelIoRing *ring;    /* GPU: pinned staging for the frames */
  AccelBuffer *partial; /* a stream's frame as it arrives, in host memory
                           allocated as any buffer is: checked against the
                           host's (a g_malloc () of a frame too large for
                           it aborted the process) */
  gsize filled;         /* bytes of it so far */
  /* a stream's frames are numbered in order of arrival: a frame given up
   * for the stage's messages (ACCEL_FLOW_SKIP) takes no number */
  AccelIoNumbers numbers;
};

G_DEFINE_FINAL_TYPE (
    AccelRawFileSource, accel_raw_file_source, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_LOCATION,
  PROP_LOOP,
  PROP_NUM_BUFFERS,
  PROP_TYPE_FIRST,
};

/* a loop needs a regular file of at least one whole frame of @frame_size
 * bytes: said as the graph is prepared, --validate included, where the
 * start refused it (status 1, or 2 for a device) */
static gboolean
check_loop (AccelRawFileSource *self, gsize frame_size, GError **error)
{
  GStatBuf st;

  if (!self->loop || g_stat (self->location, &st) != 0)
    return TRUE;
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "stage '%s' (io.raw-file-source): cannot loop over %s: it is not a "
          "regular file",
          accel_stage_get_name (ACCEL_STAGE (self)), self->location);
      return FALSE;
    }
  if ((gsize)st.st_size < frame_size)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "stage '%s' (io.raw-file-source): cannot loop over %s: it holds no "
          "whole frame of %" G_GSIZE_FORMAT " bytes",
          accel_stage_get_name (ACCEL_STAGE (self)), self->location,
          frame_size);
      return FALSE;
    }
  return TRUE;
}

static gboolean
accel_raw_file_source_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelRawFileSource *self = ACCEL_RAW_FILE_SOURCE (stage);

  if (!self->location || !*self->location)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "stage '%s' (io.raw-file-source): no location to read from",
          accel_stage_get_name (stage));
      return FALSE;
    }
  /* said now, with the pipeline's line, rather than when the run starts */
  if (g_access (self->location, R_OK) != 0)
    {
      int saved = errno;
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "stage '%s' (io.raw-file-source): cannot read %s: %s",
          accel_stage_get_name (stage), self->location, g_strerror (saved));
      return FALSE;
    }
  if (g_file_test (self->location, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "stage '%s' (io.raw-file-source): %s is a directory, not a file of "
          "frames",
          accel_stage_get_name (stage), self->location);
      return FALSE;
    }
  /* a pipe or a device cannot give its frames again after a restart, as a
   * regular file read by position does: it is live, for the state
   * directory's resume */
  accel_stage_set_live (
      stage, !g_file_test (self->location, G_FILE_TEST_IS_REGULAR));
  if (!accel_io_type_props_to_type (
          &self->type_props, stage, &out_types[0], error))
    return FALSE;
  return check_loop (self, accel_type_get_size (&out_types[0]), error);
}

static guint8 *
partial_data (AccelRawFileSource *self)
{
  return accel_buffer_get_data (self->partial);
}

static void
close_location (AccelRawFileSource *self)
{
  g_clear_pointer (&self->partial, accel_buffer_unref);
  if (self->fd >= 0)
    close (self->fd);
  self->fd = -1;
}

/* opens the location and learns what it is: a regular file's whole
 * frames, or a stream read as it comes */
/* a regular file of the kernel's (/proc, /sys), made as it is read: its
 * size says 0 (it gave no frame and the run ended as done), or a page
 * (/sys: 4096 bytes, of which a few are there, and the frames after them
 * "got shorter"); read as a stream is, to its end */
static gboolean
sizes_as_it_is_read (int fd, const struct stat *st)
{
  struct statfs fs;
  char byte;

  if (fstatfs (fd, &fs) == 0
      && (fs.f_type == SYSFS_MAGIC || fs.f_type == PROC_SUPER_MAGIC))
    return TRUE;
  return st->st_size == 0 && pread (fd, &byte, 1, 0) == 1;
}

static gboolean
open_location (AccelRawFileSource *self, GError **error)
{
  struct stat st;

  /* without waiting: a FIFO with no writer yet would block open () itself,
   * and a stream's reads wait in slices (read_stream_frame ()) */
  self->fd = g_open (self->location, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
  if (self->fd < 0 || fstat (self->fd, &st) != 0)
    {
      int saved = errno;
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED, "cannot open %s: %s",
          self->location, g_strerror (saved));
      return FALSE;
    }
  self->seekable = S_ISREG (st.st_mode) && !sizes_as_it_is_read (self->fd, &st);
  self->filled = 0;
  accel_io_numbers_reset (&self->numbers);
  if (!self->seekable)
    {
      AccelType bytes;

      accel_type_init_bytes (&bytes, ACCEL_MEMORY_HOST, self->frame_size);
      if (!(self->partial
              = accel_buffer_new (accel_device_get_host (), &bytes, error)))
        {
          g_prefix_error (error, "a frame of %s: ", self->location);
          return FALSE;
        }
    }
  self->n_frames = self->seekable ? (guint64)st.st_size / self->frame_size : 0;
  if (self->loop && !self->seekable)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "cannot loop over %s: it is not a regular file", self->location);
      return FALSE;
    }
  if (self->loop && self->n_frames == 0)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT,
          "cannot loop over %s: it holds no whole frame of %" G_GSIZE_FORMAT
          " bytes",
          self->location, self->frame_size);
      return FALSE;
    }
  if (self->seekable && self->n_frames == 0)
    g_message ("%s holds no whole frame of %" G_GSIZE_FORMAT " bytes: the "
               "source has none to give",
        self->location, self->frame_size);
  else if (self->seekable && (guint64)st.st_size % self->frame_size != 0)
    g_message ("%s: the last %" G_GUINT64_FORMAT " bytes are no whole frame "
               "and are left out",
        self->location, (guint64)st.st_size % self->frame_size);
  return TRUE;
}

static void accel_raw_file_source_stop (AccelStage *stage);

static gboolean
accel_raw_file_source_start (AccelStage *stage, GError **error)
{
  AccelRawFileSource *self = ACCEL_RAW_FILE_SOURCE (stage);

  self->frame_size
      = accel_type_get_size (accel_stage_get_output_type (stage, 0));
  /* a restart keeps a stream open (accel_raw_file_source_stop ()); one
   * left open by a restart that failed is not the next run's */
  if (!accel_stage_is_restarting (stage))
    close_location (self);
  if (self->fd < 0 && !open_location (self, error))
    goto failed;
  if (accel_stage_is_host (stage))
    return TRUE;
  self->ring = accel_io_ring_new (
      accel_stage_get_device (stage), STAGING_SLOTS, self->frame_size, error);
  if (self->ring)
    return TRUE;

  /* ERRORS */
failed:
  /* the engine calls stop () only after a start () that succeeded */
  accel_raw_file_source_stop (stage);
  return FALSE;
}

static void
accel_raw_file_source_stop (AccelStage *stage)
{
  AccelRawFileSource *self = ACCEL_RAW_FILE_SOURCE (stage);

  g_clear_pointer (&self->ring, accel_io_ring_free);
  /* a restart goes on with the file it had: reopened, a pipe would lose
   * what it held and what was read of a frame, and its writer would be
   * killed by SIGPIPE while no one reads; a regular file replaced or moved
   * meanwhile would give another file's frames from the same position */
  if (!accel_stage_is_restarting (stage))
    close_location (self);
}

static gboolean
pread_all (int fd, gpointer data, gsize size, goffset offset, GError **error)
{
  guint8 *p = data;

  while (size > 0)
    {
      gssize n = pread (fd, p, size, offset);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int saved = errno;
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED, "%s",
              n == 0 ? "the file got shorter" : g_strerror (saved));
          return FALSE;
        }
      p += n;
      size -= (gsize)n;
      offset += n;
    }
  return TRUE;
}

typedef enum
{
  READ_FRAME,
  READ_END,   /* or an error, in @error */
  READ_YIELD, /* the stage is wanted elsewhere: the frame so far is kept */
} ReadResult;

/* a stream's next frame into self->partial: waits for data in slices of
 * ACCEL_IO_WAIT_SLICE_US, so a stop or an end of stream is taken at once
 * while a pipe's writer is idle or absent */
static ReadResult
wait_stream_frame (AccelRawFileSource *self, GError **error)
{
  /* nothing of this frame is taken yet: a crash meanwhile loses none */
  if (self->filled == 0)
    accel_stage_note_input_taken (ACCEL_STAGE (self), FALSE);
  while (self->filled < self->frame_size)
    {
      struct pollfd pfd = { self->fd, POLLIN, 0 };
      gssize n;
      int ready = poll (&pfd, 1, ACCEL_IO_WAIT_SLICE_US / 1000);

      if (ready < 0 && errno != EINTR)
        goto failed;
      if (ready <= 0)
        {
          if (accel_stage_should_yield (ACCEL_STAGE (self)))
            return READ_YIELD;
          continue;
        }
      n = read (self->fd, partial_data (self) + self->filled,
          self->frame_size - self->filled);
      if (n < 0 && (errno == EAGAIN || errno == EINTR))
        continue;
      if (n < 0)
        goto failed;
      if (n == 0)
        {
          if (self->filled > 0)
            g_message ("%s: the last %" G_GSIZE_FORMAT " bytes are no whole "
                       "frame and are left out",
                self->location, self->filled);
          self->filled = 0;
          return READ_END;
        }
      if (self->filled == 0)
        accel_stage_note_input_taken (ACCEL_STAGE (self), TRUE);
      self->filled += (gsize)n;
    }
  self->filled = 0;
  return READ_FRAME;

  /* ERRORS */
failed:
  {
    int saved = errno;
    g_set_error (
        error, ACCEL_ERROR, ACCEL_ERROR_FAILED, "%s", g_strerror (saved));
    return READ_END;
  }
}

/* a stream's writer is outside the graph: the wait for its frame is
 * neither the frame's work nor its deadline's */
static ReadResult
read_stream_frame (AccelRawFileSource *self, GError **error)
{
  ReadResult result;

  accel_stage_wait_begin (ACCEL_STAGE (self));
  result = wait_stream_frame (self, error);
  accel_stage_wait_end (ACCEL_STAGE (self));
  return result;
}

/* frame @seq into @dst */
static ReadResult
read_frame (AccelRawFileSource *self, guint64 seq, gpointer dst, GError **error)
{
  ReadResult r;

  if (self->seekable)
    {
      guint64 index = self->loop ? seq % self->n_frames : seq;
      if (index >= self->n_frames)
        return READ_END;
      /* by position, so a restarted source reads frame s again */
      return pread_all (self->fd, dst, self->frame_size,
                 (goffset)(index * self->frame_size), error)
                 ? READ_FRAME
                 : READ_END;
    }
  r = read_stream_frame (self, error);
  if (r == READ_FRAME)
    memcpy (dst, partial_data (self), self->frame_size);
  return r;
}

/* a stream's frames by their own numbers: a yield took a sequence */
static guint64
frame_number (AccelRawFileSource *self, guint64 sequence)
{
  return self->seekable ? sequence
                        : accel_io_numbers_peek (&self->numbers, sequence);
}

/* num-buffers ends the stream before the frame past it takes a buffer */
static gboolean
accel_raw_file_source_has_frame (AccelStage *stage, guint64 sequence)
{
  AccelRawFileSource *self = ACCEL_RAW_FILE_SOURCE (stage);

  return self->num_buffers < 0
         || frame_number (self, sequence) < (guint64)self->num_buffers;
}

static AccelFlow
accel_raw_file_source_process (
    AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelRawFileSource *self = ACCEL_RAW_FILE_SOURCE (stage);
  AccelBuffer *out = frame->outputs[0];
  GError *read_error = NULL;
  ReadResult result;
  gpointer staging;
  guint64 number;

  number = frame_number (self, frame->sequence);
  if (!self->seekable)
    accel_buffer_set_sequence (out, number);
  if (accel_stage_is_host (stage))
    {
      result = read_frame (
          self, frame->sequence, accel_buffer_get_data (out), &read_error);
      if (result == READ_FRAME)
        goto done;
      goto end;
    }
  /* a stream's frame whole first: a staging slot is taken only for one */
  if (!self->seekable
      && (result = read_stream_frame (self, &read_error)) != READ_FRAME)
    goto end;
  if (!accel_io_ring_acquire (self->ring, &staging, error))
    return ACCEL_FLOW_ERROR;
  if (!self->seekable)
    memcpy (staging, partial_data (self), self->frame_size);
  else if ((result = read_frame (self, frame->sequence, staging, &read_error))
           != READ_FRAME)
    goto end;
  if (!accel_io_copy_async (frame->stream, accel_buffer_get_data (out), staging,
          self->frame_size, error)
      || !accel_io_ring_commit (self->ring, frame->stream, NULL, error))
    return ACCEL_FLOW_ERROR;

done:
  if (!self->seekable)
    accel_io_numbers_take (&self->numbers, frame->sequence);
  return ACCEL_FLOW_OK;

end:
  if (result == READ_YIELD)
    return ACCEL_FLOW_SKIP;
  if (!read_error)
    return ACCEL_FLOW_EOS;
  g_propagate_prefixed_error (error, read_error,
      "cannot read frame %" G_GUINT64_FORMAT " of %s: ", frame->sequence,
      self->location);
  return ACCEL_FLOW_ERROR;
}

static void
accel_raw_file_source_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelRawFileSource *self = ACCEL_RAW_FILE_SOURCE (object);

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;

  switch (prop_id)
    {
    case PROP_LOCATION:
      g_free (self->location);
      self->location = g_value_dup_string (value);
      break;
    case PROP_LOOP:
      self->loop = g_value_get_boolean (value);
      break;
    case PROP_NUM_BUFFERS:
      self->num_buffers = g_value_get_int64 (value);
      break;
    default:
      if (prop_id < PROP_TYPE_FIRST
          || !accel_io_type_props_set (
              &self->type_props, prop_id - PROP_TYPE_FIRST, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_raw_file_source_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelRawFileSource *self = ACCEL_RAW_FILE_SOURCE (object);

  switch (prop_id)
    {
    case PROP_LOCATION:
      g_value_set_string (value, self->location);
      break;
    case PROP_LOOP:
      g_value_set_boolean (value, self->loop);
      break;
    case PROP_NUM_BUFFERS:
      g_value_set_int64 (value, self->num_buffers);
      break;
    default:
      if (prop_id < PROP_TYPE_FIRST
          || !accel_io_type_props_get (
              &self->type_props, prop_id - PROP_TYPE_FIRST, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_raw_file_source_finalize (GObject *object)
{
  AccelRawFileSource *self = ACCEL_RAW_FILE_SOURCE (object);

  close_location (self);
  g_free (self->location);
  accel_io_type_props_clear (&self->type_props);
  G_OBJECT_CLASS (accel_raw_file_source_parent_class)->finalize (object);
}

static void
accel_raw_file_source_constructed (GObject *object)
{
  G_OBJECT_CLASS (accel_raw_file_source_parent_class)->constructed (object);
  accel_io_type_props_constructed (&ACCEL_RAW_FILE_SOURCE (object)->type_props);
}

static void
accel_raw_file_source_class_init (AccelRawFileSourceClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;
  AccelType out;

  gobject_class->constructed = accel_raw_file_source_constructed;
  gobject_class->set_property = accel_raw_file_source_set_property;
  gobject_class->get_property = accel_raw_file_source_get_property;
  gobject_class->finalize = accel_raw_file_source_finalize;
  stage_class->negotiate = accel_raw_file_source_negotiate;
  stage_class->start = accel_raw_file_source_start;
  stage_class->stop = accel_raw_file_source_stop;
  stage_class->process = accel_raw_file_source_process;
  stage_class->has_frame = accel_raw_file_source_has_frame;

  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "Location",
          "File of frames, each the size of the type, back to back", NULL,
          flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_LOOP,
      g_param_spec_boolean ("loop", "Loop",
          "Start over at the end of the file instead of ending the stream",
          FALSE, flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_NUM_BUFFERS,
      g_param_spec_int64 ("num-buffers", "Number of buffers",
          "Frames to produce before end of stream (-1: to the end of the "
          "file, or forever with loop)",
          -1, G_MAXINT64, -1, flags));
  accel_io_type_props_install (gobject_class, PROP_TYPE_FIRST);

  accel_stage_class_set_metadata (stage_class, "io.raw-file-source",
      "Read frames of a fixed type (shape and dtype, or format, width and "
      "height) from a file");
  accel_type_init_any (&out);
  out.memory = ACCEL_MEMORY_DEVICE;
  accel_stage_class_add_port (
      stage_class, ACCEL_PORT_OUTPUT, "out", &out, "the frames");
  /* reads a file on its thread */
  accel_stage_class_set_blocking (stage_class, TRUE);
}

static void
accel_raw_file_source_init (AccelRawFileSource *self)
{
  self->fd = -1;
}
