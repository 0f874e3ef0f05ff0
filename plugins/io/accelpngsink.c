/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: io.png-sink, one PNG file per image, through libpng */
#define G_LOG_DOMAIN "accel-png-sink"

#include "accelpngsink.h"
#include "accelio-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <png.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

struct _AccelPngSink
{
  AccelStage parent;

  gchar *location;

  /* the location, around its one number */
  GString *prefix;
  GString *suffix;
  gint pad;
  gboolean zero_pad;
  AccelBuffer *staging; /* GPU: pinned copy of the image being written */
};

static void accel_png_sink_file_output_init (AccelFileOutputInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (AccelPngSink, accel_png_sink, ACCEL_TYPE_STAGE,
    G_IMPLEMENT_INTERFACE (
        ACCEL_TYPE_FILE_OUTPUT, accel_png_sink_file_output_init))

enum
{
  PROP_0,
  PROP_LOCATION,
};

/* the widest padding of the location's number */
#define MAX_PAD 32

/* an image is written under ".accel-png-HOST-PID-XXXXXX" in its directory
 * and renamed (write_png ()), its writer holding a lock on it till then:
 * a file of this host that no one holds locked was left behind by a
 * process killed in the middle, and is removed (remove_stale ()). The
 * process's number is for people: one of another PID namespace, sharing
 * the host's name and the directory, may hold the same */
#define TMP_PREFIX ".accel-png-"
/* tries at a temporary name that a starting sink took to remove */
#define TMP_TRIES 8

static const AccelFormat png_formats[] = {
  ACCEL_FORMAT_RGBA8,
  ACCEL_FORMAT_BGRA8,
  ACCEL_FORMAT_GRAY8,
};

/* splits "dir/frame-%05d.png" around its one number; "%%" is a '%' */
static gboolean
parse_location (AccelPngSink *self, GError **error)
{
  const char *p = self->location;
  gboolean have_number = FALSE;
  GString *part;

  if (!p || !*p)
    goto invalid;
  g_string_truncate (self->prefix, 0);
  g_string_truncate (self->suffix, 0);
  self->pad = 0;
  self->zero_pad = FALSE;
  part = self->prefix;
  while (*p)
    {
      if (*p != '%')
        {
          g_string_append_c (part, *p++);
          continue;
        }
      p++;
      if (*p == '%')
        {
          g_string_append_c (part, *p++);
          continue;
        }
      if (have_number)
        goto invalid;
      if (*p == '0')
        {
          self->zero_pad = TRUE;
          p++;
        }
      while (g_ascii_isdigit (*p) && self->pad <= MAX_PAD)
        self->pad = self->pad * 10 + (*p++ - '0');
      if (self->pad > MAX_PAD)
        goto too_wide;
      if (*p != 'd' && *p != 'u')
        goto invalid;
      p++;
      have_number = TRUE;
      part = self->suffix;
    }
  if (!have_number)
    goto invalid;
  return TRUE;

  /* ERRORS */
too_wide:
  {
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
        "stage '%s' (io.png-sink): location '%s' pads its number to more "
        "than %d digits; a sequence number has at most 20",
        accel_stage_get_name (ACCEL_STAGE (self)), self->location, MAX_PAD);
    return FALSE;
  }
invalid:
  {
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
        "stage '%s' (io.png-sink): location '%s' must hold exactly one "
        "number such as %%05d, for the image's sequence number (%%%% for a "
        "'%%')",
        accel_stage_get_name (ACCEL_STAGE (self)),
        self->location ? self->location : "");
    return FALSE;
  }
}

static gchar *
path_for (AccelPngSink *self, guint64 sequence)
{
  if (self->zero_pad)
    return g_strdup_printf ("%s%0*" G_GUINT64_FORMAT "%s", self->prefix->str,
        self->pad, sequence, self->suffix->str);
  return g_strdup_printf ("%s%*" G_GUINT64_FORMAT "%s", self->prefix->str,
      self->pad, sequence, self->suffix->str);
}

/* "TMP_PREFIX HOST-": the start of this host's temporary names, the host
 * named in full (pods of one deployment share long prefixes) with
 * letters, digits, '-', '_' and '.' only */
static gchar *
tmp_host_prefix (void)
{
  GString *s = g_string_new (TMP_PREFIX);

  for (const char *c = g_get_host_name (); *c; c++)
    g_string_append_c (
        s, g_ascii_isalnum (*c) || strchr ("-_.", *c) ? *c : '_');
  g_string_append_c (s, '-');
  return g_string_free (s, FALSE);
}

/* @fd is the file @path names now: not one removed, or removed and
 * made again under its name, since it was opened */
static gboolean
is_named (int fd, const char *path)
{
  GStatBuf named;
  struct stat opened;

  return fstat (fd, &opened) == 0 && g_lstat (path, &named) == 0
         && opened.st_dev == named.st_dev && opened.st_ino == named.st_ino;
}

/* removes the temporary files in @dir that a process of this host left
 * when it was killed writing them: one that no writer holds locked (the
 * lock goes with the process). It is removed with the lock held, so no
 * writer takes it meanwhile (create_locked ()). Those of other hosts are
 * left to them: a lock may not reach across a network file system */
static void
remove_stale (AccelStage *stage, const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autofree gchar *prefix = tmp_host_prefix ();
  const char *name;

  while (d && (name = g_dir_read_name (d)))
    {
      const char *pid_at;
      gsize digits;
      g_autofree gchar *path = NULL;
      int fd;

      /* the prefix first: past a shorter name is whatever follows it */
      if (!g_str_has_prefix (name, prefix))
        continue;
      pid_at = name + strlen (prefix);
      digits = strspn (pid_at, "0123456789");
      if (digits == 0 || pid_at[digits] != '-'
          || strlen (pid_at + digits + 1) != 6)
        continue;
      path = g_build_filename (dir, name, NULL);
      /* not blocking on a FIFO of that name */
      fd = g_open (path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0);
      if (fd < 0)
        continue;
      if (flock (fd, LOCK_EX | LOCK_NB) == 0 && is_named (fd, path)
          && g_unlink (path) == 0)
        g_debug ("stage '%s': removed %s, which a process left as it ended "
                 "writing it",
            accel_stage_get_name (stage), path);
      close (fd);
    }
}

/* creates a temporary file from the template @tmp (its name left there)
 * and locks it, for remove_stale () to tell it from one left behind: -1
 * and errno where it cannot. A sink that starts meanwhile may lock it
 * first, to remove it: then another name is taken. Where the file system
 * takes no lock, the file goes unlocked, and no sink can lock it to
 * remove it either */
static int
create_locked (gchar *tmp)
{
  gsize len = strlen (tmp);

  for (guint i = 0; i < TMP_TRIES; i++)
    {
      /* 0666 under the umask, as a file opened by name would be */
      int fd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, 0666);

      if (fd < 0)
        return -1;
      if (flock (fd, LOCK_EX | LOCK_NB) == 0 ? is_named (fd, tmp)
                                             : errno != EWOULDBLOCK)
        return fd;
      close (fd);
      memcpy (tmp + len - 6, "XXXXXX", 6);
    }
  errno = EBUSY;
  return -1;
}

static gboolean
accel_png_sink_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelPngSink *self = ACCEL_PNG_SINK (stage);

  return accel_io_check_format (stage, &in_types[0], png_formats,
             G_N_ELEMENTS (png_formats), error)
         && parse_location (self, error);
}

static gboolean
accel_png_sink_start (AccelStage *stage, GError **error)
{
  AccelPngSink *self = ACCEL_PNG_SINK (stage);
  g_autofree gchar *first = path_for (self, 0);
  g_autofree gchar *dir = g_path_get_dirname (first);
  AccelType pinned;

  /* what a run killed while writing an image left there */
  remove_stale (stage, dir);
  if (accel_stage_is_host (stage))
    return TRUE;
  pinned = *accel_stage_get_input_type (stage, 0);
  pinned.memory = ACCEL_MEMORY_PINNED;
  self->staging
      = accel_buffer_new (accel_stage_get_device (stage), &pinned, error);
  return self->staging != NULL;
}

static void
accel_png_sink_stop (AccelStage *stage)
{
  AccelPngSink *self = ACCEL_PNG_SINK (stage);

  g_clear_pointer (&self->staging, accel_buffer_unref);
}

/* the GPU part: copy the image out; render() writes it once that is done */
static AccelFlow
accel_png_sink_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelPngSink *self = ACCEL_PNG_SINK (stage);
  AccelBuffer *in = frame->inputs[0];

  if (!self->staging)
    return ACCEL_FLOW_OK;
  return accel_io_copy_async (frame->stream,
             accel_buffer_get_data (self->staging), accel_buffer_get_data (in),
             accel_buffer_get_size (in), error)
             ? ACCEL_FLOW_OK
             : ACCEL_FLOW_ERROR;
}

/* written to a temporary name in its directory and renamed: a file of the
 * pattern is always a whole image. The name is short and unique, so a
 * name near the longest a directory takes still has one. The lock on it
 * (create_locked ()) is held till it is renamed or removed */
static gboolean
write_png (
    const char *path, const AccelType *type, gconstpointer data, GError **error)
{
  g_autofree gchar *dir = g_path_get_dirname (path);
  g_autofree gchar *prefix = tmp_host_prefix ();
  g_autofree gchar *base
      = g_strdup_printf ("%s%d-XXXXXX", prefix, (int)getpid ());
  g_autofree gchar *tmp = g_build_filename (dir, base, NULL);
  png_image image = { 0 };
  FILE *file = NULL;
  gboolean ok;
  int fd, fd_locked;

  image.version = PNG_IMAGE_VERSION;
  image.height = (png_uint_32)type->dims[0];
  image.width = (png_uint_32)type->dims[1];
  image.format = type->format == ACCEL_FORMAT_GRAY8   ? PNG_FORMAT_GRAY
                 : type->format == ACCEL_FORMAT_BGRA8 ? PNG_FORMAT_BGRA
                                                      : PNG_FORMAT_RGBA;
  /* the stdio stream closes its own descriptor before the rename: the
   * lock stays with the other (and with no program this one runs) */
  fd_locked = create_locked (tmp);
  fd = fd_locked >= 0 ? fcntl (fd_locked, F_DUPFD_CLOEXEC, 0) : -1;
  if (fd < 0 || !(file = fdopen (fd, "wb")))
    {
      int saved = errno;
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "cannot write an image into %s: %s", dir, g_strerror (saved));
      if (fd >= 0)
        close (fd);
      if (fd_locked >= 0)
        {
          g_unlink (tmp);
          close (fd_locked);
        }
      return FALSE;
    }
  errno = 0;
  ok = png_image_write_to_stdio (&image, file, 0, data, 0, NULL) != 0;
  /* a write that failed (a full disk) names its errno, not libpng's
   * "Write Error" */
  if (!ok && ferror (file) && errno != 0)
    {
      int saved = errno;
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "cannot write %s: %s", path, g_strerror (saved));
    }
  else if (!ok)
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
        "libpng cannot write %s: %s", path, image.message);
  png_image_free (&image);
  if (fclose (file) != 0 && ok)
    {
      int saved = errno;
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "cannot write %s: %s", path, g_strerror (saved));
      ok = FALSE;
    }
  if (ok && g_rename (tmp, path) != 0)
    {
      int saved = errno;
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "cannot rename %s to %s: %s", tmp, path, g_strerror (saved));
      ok = FALSE;
    }
  if (!ok)
    g_unlink (tmp);
  close (fd_locked);
  return ok;
}

static AccelFlow
accel_png_sink_render (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelPngSink *self = ACCEL_PNG_SINK (stage);
  AccelBuffer *in = frame->inputs[0];
  AccelBuffer *data = self->staging ? self->staging : in;
  g_autofree gchar *path = path_for (self, frame->sequence);

  if (!write_png (path, accel_buffer_peek_type (in),
          accel_buffer_get_data (data), error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static gchar *
accel_png_sink_get_path (AccelFileOutput *output)
{
  AccelPngSink *self = ACCEL_PNG_SINK (output);

  /* from the location as it is now: asked before the stage is prepared
   * (a rank's probe), the pattern was not read yet, and every rank's
   * path was "0" */
  if (!parse_location (self, NULL))
    return g_strdup (self->location);
  return path_for (self, 0);
}

/* whether @name (no directory) is the file of some frame: the pattern's
 * name around a number, which names that frame's file as the pattern
 * would */
static gboolean
accel_png_sink_writes_name (AccelFileOutput *output, const char *name)
{
  AccelPngSink *self = ACCEL_PNG_SINK (output);
  const char *slash, *base_prefix, *digits;
  g_autofree gchar *number = NULL, *path = NULL, *base = NULL;
  gsize name_len = strlen (name), prefix_len, suffix_len;
  guint64 sequence;

  if (!parse_location (self, NULL) || strchr (self->suffix->str, '/'))
    return FALSE;
  slash = strrchr (self->prefix->str, '/');
  base_prefix = slash ? slash + 1 : self->prefix->str;
  prefix_len = strlen (base_prefix);
  suffix_len = self->suffix->len;
  if (name_len <= prefix_len + suffix_len
      || strncmp (name, base_prefix, prefix_len) != 0
      || !g_str_has_suffix (name, self->suffix->str))
    return FALSE;
  digits = name + prefix_len;
  while (*digits == ' ' && digits < name + name_len - suffix_len)
    digits++;
  number = g_strndup (digits, name + name_len - suffix_len - digits);
  if (!g_ascii_isdigit (*number)
      || !g_ascii_string_to_unsigned (
          number, 10, 0, G_MAXUINT64, &sequence, NULL))
    return FALSE;
  path = path_for (self, sequence);
  base = g_path_get_basename (path);
  return g_str_equal (base, name);
}

/* a file per committed frame, each written whole then renamed: one that is
 * gone or empty was deleted or cut since, and is written again */
static gboolean
accel_png_sink_verify (
    AccelFileOutput *output, AccelCommitLog *log, gchar **what, GError **error)
{
  AccelPngSink *self = ACCEL_PNG_SINK (output);
  g_autoptr (GArray) committed = accel_commit_log_dup_sequences (log);
  g_autoptr (GArray) gone = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autofree gchar *first_gone = NULL;

  for (guint i = 0; i < committed->len; i++)
    {
      guint64 seq = g_array_index (committed, guint64, i);
      g_autofree gchar *path = path_for (self, seq);
      GStatBuf st;

      if (g_stat (path, &st) == 0 && S_ISREG (st.st_mode) && st.st_size > 0)
        continue;
      if (!first_gone)
        first_gone = g_steal_pointer (&path);
      g_array_append_val (gone, seq);
    }
  if (gone->len == 0)
    return TRUE;
  *what = g_strdup_printf ("%u of its %u committed files are missing or "
                           "empty, %s the first",
      gone->len, committed->len, first_gone);
  return accel_commit_log_forget (
      log, (const guint64 *)gone->data, gone->len, error);
}

static void
accel_png_sink_file_output_init (AccelFileOutputInterface *iface)
{
  iface->get_path = accel_png_sink_get_path;
  iface->writes_name = accel_png_sink_writes_name;
  iface->verify = accel_png_sink_verify;
}

static void
accel_png_sink_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelPngSink *self = ACCEL_PNG_SINK (object);

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;
  switch (prop_id)
    {
    case PROP_LOCATION:
      g_free (self->location);
      self->location = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_png_sink_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelPngSink *self = ACCEL_PNG_SINK (object);

  switch (prop_id)
    {
    case PROP_LOCATION:
      g_value_set_string (value, self->location);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_png_sink_finalize (GObject *object)
{
  AccelPngSink *self = ACCEL_PNG_SINK (object);

  g_free (self->location);
  g_string_free (self->prefix, TRUE);
  g_string_free (self->suffix, TRUE);
  G_OBJECT_CLASS (accel_png_sink_parent_class)->finalize (object);
}

static void
accel_png_sink_class_init (AccelPngSinkClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  AccelType in;

  gobject_class->set_property = accel_png_sink_set_property;
  gobject_class->get_property = accel_png_sink_get_property;
  gobject_class->finalize = accel_png_sink_finalize;
  stage_class->negotiate = accel_png_sink_negotiate;
  stage_class->start = accel_png_sink_start;
  stage_class->stop = accel_png_sink_stop;
  stage_class->process = accel_png_sink_process;
  stage_class->render = accel_png_sink_render;

  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "Location",
          "File name pattern with one number (such as %05d) that becomes "
          "the image's sequence number",
          "frame-%05d.png",
          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS
              | ACCEL_PARAM_FIXED));

  accel_stage_class_set_metadata (
      stage_class, "io.png-sink", "Write every image to a PNG file of its own");
  accel_type_init_image (
      &in, ACCEL_FORMAT_ANY, ACCEL_MEMORY_ANY, ACCEL_DIM_ANY, ACCEL_DIM_ANY);
  accel_stage_class_add_port (
      stage_class, ACCEL_PORT_INPUT, "in", &in, "RGBA8, BGRA8 or GRAY8 images");
}

static void
accel_png_sink_init (AccelPngSink *self)
{
  self->prefix = g_string_new (NULL);
  self->suffix = g_string_new (NULL);
}
