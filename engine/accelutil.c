/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: small utilities shared by the engine and its front ends */
#define G_LOG_DOMAIN "accel-util"

#include "accel-private.h"

#include <glib/gstdio.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* how long a FIFO or pipe may give nothing before its read is given up */
#define READ_WAIT_MS 10000

/**
 * accel_str_edit_distance:
 * @a: a string
 * @b: another string
 *
 * The Levenshtein distance of @a and @b, in bytes: how many insertions,
 * deletions and substitutions turn one into the other. The "did you mean"
 * suggestions for unknown kinds, keys and parameters pick the nearest name
 * by it. MT safe.
 *
 * Returns: the edit distance.
 */
guint
accel_str_edit_distance (const char *a, const char *b)
{
  gsize la, lb;
  g_autofree guint *row = NULL;

  g_return_val_if_fail (a != NULL, 0);
  g_return_val_if_fail (b != NULL, 0);

  la = strlen (a);
  lb = strlen (b);
  row = g_new (guint, lb + 1);
  for (gsize j = 0; j <= lb; j++)
    row[j] = (guint)j;
  for (gsize i = 1; i <= la; i++)
    {
      guint diag = row[0];
      row[0] = (guint)i;
      for (gsize j = 1; j <= lb; j++)
        {
          guint up = row[j];
          row[j] = MIN (
              MIN (row[j] + 1, row[j - 1] + 1), diag + (a[i - 1] != b[j - 1]));
          diag = up;
        }
    }
  return row[lb];
}

/**
 * accel_digest_bytes:
 * @digest: the digest so far (%ACCEL_DIGEST_INIT to start)
 * @data: (array length=size) (element-type guint8): bytes that follow
 * @size: how many
 *
 * A 64-bit FNV-1a digest: fast, and no defence against a change made to
 * keep it; it tells a file from another, or one changed in place, such as
 * a state directory's checks need.
 *
 * Returns: the digest of what came before and @data. MT safe.
 */
guint64
accel_digest_bytes (guint64 digest, gconstpointer data, gsize size)
{
  const guint8 *p = data;

  g_return_val_if_fail (data != NULL || size == 0, digest);
  for (gsize i = 0; i < size; i++)
    digest = (digest ^ p[i]) * G_GUINT64_CONSTANT (1099511628211);
  return digest;
}

/**
 * accel_deadline_after:
 * @timeout_us: a wait in microseconds, or a negative value for no end
 *
 * Returns: the monotonic time (g_get_monotonic_time ()) @timeout_us from
 * now; %G_MAXINT64 where that overflows (a wait at the top of its range
 * came out in the past, and timed out at once); -1, no deadline, for a
 * negative @timeout_us. MT safe.
 */
gint64
accel_deadline_after (gint64 timeout_us)
{
  return accel_deadline_from (g_get_monotonic_time (), timeout_us);
}

/**
 * accel_thread_try_new: (skip)
 * @name: the thread's name
 * @func: what it runs
 * @data: @func's argument
 * @error: return location for a #GError, or %NULL
 *
 * g_thread_try_new () with an error that names the thread and the likely
 * cause: a thread that cannot be made (a limit on processes or threads,
 * a container's on tasks) fails what needs it, where g_thread_new ()
 * aborted the process.
 *
 * Returns: (transfer full) (nullable): the thread, or %NULL with @error
 * (%ACCEL_ERROR_FAILED). MT safe.
 */
GThread *
accel_thread_try_new (
    const char *name, GThreadFunc func, gpointer data, GError **error)
{
  g_autoptr (GError) local = NULL;
  GThread *thread = g_thread_try_new (name, func, data, &local);

  if (!thread)
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
        "cannot make the thread '%s': %s (a limit on processes or threads, "
        "ulimit -u, or on memory for its stack, ulimit -v?)",
        name, local->message);
  return thread;
}

/**
 * accel_description_locations: (skip)
 * @description: a GStreamer description (gst-launch syntax)
 *
 * The files its elements name, as written: each `location=` value
 * (filesrc's, filesink's). The engine checks these as it checks a source's
 * or a sink's own location (one run writing over its own input), without
 * building the description.
 *
 * Returns: (transfer full): the locations in order, possibly none; none
 * for a description that does not parse. MT safe.
 */
gchar **
accel_description_locations (const char *description)
{
  g_auto (GStrv) words = NULL;
  g_autoptr (GStrvBuilder) found = g_strv_builder_new ();

  if (description && g_shell_parse_argv (description, NULL, &words, NULL))
    for (guint i = 0; words[i]; i++)
      if (g_str_has_prefix (words[i], "location=") && words[i][9])
        g_strv_builder_add (found, words[i] + strlen ("location="));
  return g_strv_builder_end (found);
}

/* as accel_deadline_after (), @timeout_us from @start (monotonic, ≥ 0) */
gint64
accel_deadline_from (gint64 start, gint64 timeout_us)
{
  if (timeout_us < 0)
    return -1;
  return timeout_us > G_MAXINT64 - start ? G_MAXINT64 : start + timeout_us;
}

/**
 * accel_file_read_capped: (skip)
 * @path: a file, FIFO, pipe or device
 * @max_bytes: the most it may hold
 * @what: what the file is, for the message past @max_bytes ("a pipeline")
 * @contents: (out) (transfer full): its bytes, NUL-terminated
 * @length: (out) (optional): how many, without the NUL
 * @error: return location for a #GError, or %NULL
 *
 * g_file_get_contents () for a file a user names, which may be anything:
 * a pipe or a device has no size to stat, so the cap is on what is read
 * (/dev/zero is refused after @max_bytes, where reading it whole took all
 * the memory there was), and a FIFO is opened without waiting for a
 * writer and given up when it gives nothing for 10 s. A terminal is
 * someone typing, and is waited for.
 *
 * Returns: %TRUE with @contents set; %FALSE with @error in
 * %G_FILE_ERROR: %G_FILE_ERROR_FAILED past @max_bytes ("the file is
 * larger than N bytes, the most @what may be") and for the FIFO given up
 * ("nothing to read for 10 s ..."), the open's or read's own ("cannot
 * open it: ...", "cannot read it: ..."). MT safe.
 */
gboolean
accel_file_read_capped (const char *path, gsize max_bytes, const char *what,
    gchar **contents, gsize *length, GError **error)
{
  g_autoptr (GByteArray) buf = g_byte_array_new ();
  int fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
  struct stat st;
  int wait_ms, saved;

  if (fd < 0)
    {
      saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
          "cannot open it: %s", g_strerror (saved));
      return FALSE;
    }
  wait_ms = fstat (fd, &st) == 0 && S_ISFIFO (st.st_mode) ? READ_WAIT_MS : -1;
  for (;;)
    {
      guint8 chunk[65536];
      struct pollfd pfd = { fd, POLLIN, 0 };
      int ready = poll (&pfd, 1, wait_ms);
      gssize n;

      /* a FIFO reads as ended before its writer comes: it is waited for */
      if (ready < 0 && errno == EINTR)
        continue;
      if (ready < 0)
        goto read_failed;
      if (ready == 0)
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
              "nothing to read for %d s (a FIFO with no writer, or a pipe "
              "whose writer writes nothing)",
              READ_WAIT_MS / 1000);
          goto failed;
        }
      n = read (fd, chunk, sizeof chunk);
      if (n < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
      if (n < 0)
        goto read_failed;
      if (n == 0)
        break;
      if (buf->len + (gsize)n > max_bytes)
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
              "the file is larger than %" G_GSIZE_FORMAT
              " bytes, the most %s may be",
              max_bytes, what);
          goto failed;
        }
      g_byte_array_append (buf, chunk, (guint)n);
    }
  g_close (fd, NULL);
  if (length)
    *length = buf->len;
  g_byte_array_append (buf, (const guint8 *)"", 1);
  *contents = (gchar *)g_byte_array_free (g_steal_pointer (&buf), FALSE);
  return TRUE;

  /* ERRORS */
read_failed:
  {
    saved = errno;
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
        "cannot read it: %s", g_strerror (saved));
  }
failed:
  {
    g_close (fd, NULL);
    return FALSE;
  }
}

/**
 * accel_str_escape_controls:
 * @text: a message, UTF-8 or not
 * @keep_lines: whether its line breaks and tabs stay as they are
 *
 * @text with its control characters written as escapes: the C0 ones as
 * `\x1b` (`\n` and `\t` where @keep_lines is %FALSE), the C1 ones of
 * UTF-8 text (U+0080 to U+009F, which a terminal may take as controls
 * too) as `\u009b`. Text from a file, a value or a name, put in a message,
 * can then neither break its line nor send the terminal an escape
 * sequence.
 *
 * Returns: (transfer full): the escaped text. MT safe.
 */
gchar *
accel_str_escape_controls (const char *text, gboolean keep_lines)
{
  GString *out = g_string_sized_new (strlen (text));

  g_return_val_if_fail (text != NULL, NULL);
  for (const guchar *c = (const guchar *)text; *c; c++)
    if (keep_lines && (*c == '\n' || *c == '\t'))
      g_string_append_c (out, (gchar)*c);
    else if (*c == '\n')
      g_string_append (out, "\\n");
    else if (*c == '\t')
      g_string_append (out, "\\t");
    else if (*c < 0x20 || *c == 0x7f)
      g_string_append_printf (out, "\\x%02x", (guint)*c);
    else if (*c == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f)
      g_string_append_printf (out, "\\u%04x", (guint) * ++c);
    else
      g_string_append_c (out, (gchar)*c);
  return g_string_free (out, FALSE);
}
