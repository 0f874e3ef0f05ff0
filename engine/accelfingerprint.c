/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: a graph's fingerprint, kept in its state directory: stage names,
 * kinds, parameters, negotiated output types, what the files sources
 * read hold, and links, one per line, so
 * that a state directory reused for another pipeline is refused, saying
 * what changed, rather than mixing the two runs' frames */
#define G_LOG_DOMAIN "accel-graph"

#include "accelgraph-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FINGERPRINT_HEADER "# accel graph fingerprint 1\n"
/* its last line: a digest of the lines before it, so that a byte changed
 * or a fingerprint cut short is told from another pipeline's (a changed
 * byte in the name of an input line's file took it for one kept before
 * inputs were, and the input went unchecked). One kept before the check
 * has none */
#define CHECK_PREFIX "# check "
/* the state directory's identity, made at random by its first run and
 * kept by the others: its checkpoints carry it, so that one copied from
 * another state directory (of the same pipeline and stage) is refused.
 * No part of what the graph is: a fingerprint kept before it has none,
 * and gains one, marked GAINED: that directory's checkpoints without one
 * are its own, where in any other they are another directory's */
#define IDENTITY_PREFIX "identity\t"
#define GAINED "\tgained"

/* a field of a line: tabs and line breaks escaped */
static void
append_field (GString *s, const char *text, gboolean last)
{
  g_autofree gchar *escaped = g_strescape (text ? text : "", NULL);

  g_string_append (s, escaped);
  g_string_append_c (s, last ? '\n' : '\t');
}

static void
append_line (GString *s, const char *first, ...)
{
  va_list ap;
  const char *field = first;

  va_start (ap, first);
  while (field)
    {
      const char *next = va_arg (ap, const char *);
      append_field (s, field, next == NULL);
      field = next;
    }
  va_end (ap);
}

/* a float or double as GLib writes it ("%f"), the fingerprints of state
 * directories so far, where that reads back as the value; else with the
 * digits that do: "%f" wrote 1e-7 and 4e-7 alike, 0.000000, and a resume
 * mixed frames of both */
static gchar *
real_text (double v, gboolean single)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
  double back;

  g_ascii_formatd (buf, sizeof (buf), "%f", v);
  back = g_ascii_strtod (buf, NULL);
  if (single ? (float)back == (float)v : back == v)
    return g_strdup (buf);
  return accel_real_to_string (v, single);
}

/* a parameter's value as text, or NULL for one that is no plain value
 * (an object, a pointer) and so no part of the fingerprint */
static gchar *
param_text (AccelStage *stage, GParamSpec *pspec)
{
  GType type = G_TYPE_FUNDAMENTAL (pspec->value_type);
  g_auto (GValue) value = G_VALUE_INIT;

  if (type == G_TYPE_OBJECT || type == G_TYPE_POINTER || type == G_TYPE_PARAM
      || type == G_TYPE_VARIANT || type == G_TYPE_INTERFACE
      || (type == G_TYPE_BOXED && pspec->value_type != G_TYPE_STRV))
    return NULL;
  g_value_init (&value, pspec->value_type);
  g_object_get_property (G_OBJECT (stage), pspec->name, &value);
  if (type == G_TYPE_FLOAT || type == G_TYPE_DOUBLE)
    return real_text (type == G_TYPE_FLOAT ? g_value_get_float (&value)
                                           : g_value_get_double (&value),
        type == G_TYPE_FLOAT);
  return g_strdup_value_contents (&value);
}

/* the parameters of the stage's kind: those of AccelStage itself
 * (supervision, device, thread) change how a run goes, not what it makes;
 * a source's num-buffers says how many frames, not what each holds, so a
 * run resumed with more goes on where the last one ended */
static void
append_params (GString *s, AccelStage *stage)
{
  g_autofree GParamSpec **pspecs = NULL;
  guint n;

  pspecs = g_object_class_list_properties (G_OBJECT_GET_CLASS (stage), &n);
  for (guint i = 0; i < n; i++)
    {
      GParamSpec *p = pspecs[i];
      g_autofree gchar *text = NULL;

      if (p->owner_type == ACCEL_TYPE_STAGE
          || g_str_equal (p->name, "num-buffers")
          || (p->flags & (G_PARAM_READWRITE | G_PARAM_DEPRECATED))
                 != G_PARAM_READWRITE
          || !(text = param_text (stage, p)))
        continue;
      append_line (
          s, "param", accel_stage_get_name (stage), p->name, text, NULL);
    }
}

/* a source's input file, in its line: its length and a digest of all its
 * bytes, "L:digest", then its identity, " dev:ino:mtime:ctime" (the times
 * in ns). A resume finds the file as the earlier run left it where its
 * identity and length are as kept, and reads nothing (the quick check
 * make and rsync use; the ctime, which no one sets back, tells a file
 * changed in place with its mtime set back); any other is read again, and
 * must hold what it held, whatever follows: a file that grew since (a
 * recording still being made) resumes. Only the first 64 KiB were
 * covered, and a change past them mixed two files' frames; lines kept
 * then have no identity */

/* what digest_file () reads at a time: a whole number of blocks */
#define READ_CHUNK (1024 * 1024)
#define LANES 4

/* the digest of whole files: FNV-1a's step on four lanes of 64-bit words
 * at once, folded with a shift, then the lanes, the length and the last
 * bytes through accel_digest_bytes (). Byte by byte, FNV-1a digested
 * 0.35 GB/s on one core, and a first run's read of a 10 GB input took
 * half a minute. @data holds @size bytes, a whole number of blocks unless
 * it is the file's end: returns how many it digested */
static gsize
digest_blocks (guint64 lane[LANES], const guint8 *data, gsize size)
{
  gsize whole = size / (8 * LANES) * (8 * LANES);

  for (gsize at = 0; at < whole; at += 8 * LANES)
    for (guint k = 0; k < LANES; k++)
      {
        guint64 w;

        memcpy (&w, data + at + 8 * k, 8);
        lane[k] = (lane[k] ^ GUINT64_FROM_LE (w))
                  * G_GUINT64_CONSTANT (1099511628211);
        lane[k] ^= lane[k] >> 29;
      }
  return whole;
}

/* the digest of the first @most bytes of @fd (fewer where it is shorter),
 * their count in @n; FALSE where it cannot be read, or once @stop is set
 * (the graph's start was stopped: a 20 GB input held Ctrl-C for a
 * minute). @bytewise: FNV-1a byte by byte, as lines kept without the
 * file's identity were made */
static gboolean
digest_file (int fd, guint64 most, gboolean bytewise, const gint *stop,
    guint64 *n, guint64 *digest)
{
  g_autofree guint8 *buf = g_malloc (READ_CHUNK);
  guint64 lane[LANES] = { 1, 2, 3, 4 };
  gsize filled = 0, done;

  *n = 0;
  *digest = ACCEL_DIGEST_INIT;
  for (;;)
    {
      gssize got = 0;

      if (g_atomic_int_get (stop))
        return FALSE;
      /* fill the buffer, so that only the file's end leaves a part of a
       * block */
      if (*n + filled < most && filled < READ_CHUNK)
        {
          got = read (fd, buf + filled,
              (gsize)MIN (READ_CHUNK - filled, most - *n - filled));
          if (got < 0 && errno == EINTR)
            continue;
          if (got < 0)
            return FALSE;
          filled += (gsize)got;
          if (got > 0 && filled < READ_CHUNK && *n + filled < most)
            continue;
        }
      if (filled == 0)
        break;
      if (bytewise)
        *digest = accel_digest_bytes (*digest, buf, filled);
      else if ((done = digest_blocks (lane, buf, filled)) < filled)
        {
          /* the file's end: what is left of a block */
          *digest = accel_digest_bytes (*digest, buf + done, filled - done);
        }
      *n += filled;
      filled = 0;
    }
  if (!bytewise)
    {
      *digest = accel_digest_bytes (*digest, lane, sizeof (lane));
      *digest = accel_digest_bytes (*digest, n, sizeof (*n));
    }
  return TRUE;
}

/* "L:digest" (L, the file's size) and its identity, "L:digest
 * dev:ino:mtime:ctime", of the file @path names; @was itself where the
 * file's size and identity are as it says (the file is not read); NULL
 * where it cannot be read */
static gchar *
input_text (const char *path, const char *was, const gint *stop)
{
  g_autofree gchar *identity = NULL, *size = NULL;
  guint64 n, digest;
  struct stat st;
  const char *kept;
  int fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);

  if (fd < 0)
    return NULL;
  if (fstat (fd, &st) != 0)
    goto failed;
  identity = g_strdup_printf ("%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT
                              ":%" G_GINT64_FORMAT ".%09ld:%" G_GINT64_FORMAT
                              ".%09ld",
      (guint64)st.st_dev, (guint64)st.st_ino, (gint64)st.st_mtim.tv_sec,
      (long)st.st_mtim.tv_nsec, (gint64)st.st_ctim.tv_sec,
      (long)st.st_ctim.tv_nsec);
  size = g_strdup_printf ("%" G_GUINT64_FORMAT ":", (guint64)st.st_size);
  if (was && g_str_has_prefix (was, size) && (kept = strchr (was, ' '))
      && g_str_equal (kept + 1, identity))
    {
      close (fd);
      return g_strdup (was);
    }
  if (!digest_file (fd, (guint64)st.st_size, FALSE, stop, &n, &digest))
    goto failed;
  close (fd);
  return g_strdup_printf ("%" G_GUINT64_FORMAT ":%016" G_GINT64_MODIFIER "x %s",
      n, digest, identity);

  /* ERRORS */
failed:
  {
    close (fd);
    return NULL;
  }
}

/* the value of @was's line for @key (its fields but the last), or NULL */
static gchar *
line_value (const char *was, const char *key)
{
  g_autofree gchar *start = g_strdup_printf ("\n%s\t", key);
  const char *at = was ? strstr (was, start) : NULL;
  g_autofree gchar *field = NULL;
  const char *end;

  if (!at)
    return NULL;
  at += strlen (start);
  if (!(end = strchr (at, '\n')))
    return NULL;
  field = g_strndup (at, (gsize)(end - at));
  return g_strcompress (field);
}

/* a source that reads a regular file (its "location"): what it holds, so
 * that a resume on another file of the same name, or one changed since,
 * is refused; @was, the fingerprint kept, or NULL */
static void
append_input (GString *s, AccelStage *stage, const char *was, const gint *stop)
{
  g_autofree gchar *location = accel_graph_source_input (stage);
  g_autofree gchar *key = NULL, *kept = NULL, *text = NULL;
  GString *k;

  if (!location || !g_file_test (location, G_FILE_TEST_IS_REGULAR))
    return;
  /* the key as append_line () writes it */
  k = g_string_new (NULL);
  append_line (k, "input", accel_stage_get_name (stage), location, NULL);
  g_string_truncate (k, k->len - 1);
  key = g_string_free (k, FALSE);
  kept = line_value (was, key);
  if (!(text = input_text (location, kept, stop)))
    return;
  append_line (s, "input", accel_stage_get_name (stage), location, text, NULL);
}

/* whether @path holds what it did when its line @was ("L:digest", and its
 * identity) was made: the same first L bytes, whatever follows, or, where
 * its source @loops over it, only those. @now is its line now, of all its
 * bytes: a file of the same length is not read again */
static gboolean
input_starts_as (const char *path, const char *was, const char *now,
    gboolean loops, const gint *stop)
{
  char *end;
  guint64 n = g_ascii_strtoull (was, &end, 10), want, got, digest;
  guint64 now_n = g_ascii_strtoull (now, NULL, 10);
  gboolean ok;
  int fd;

  if (*end != ':')
    return FALSE;
  want = g_ascii_strtoull (end + 1, NULL, 16);
  /* a line kept without the identity digested bytewise */
  if (n == now_n && strchr (was, ' '))
    return strncmp (strchr (now, ':') + 1, end + 1, 16) == 0;
  /* a looped source reads frame s at s modulo the frames the file holds:
   * grown, it gave every frame from another place */
  if (n > now_n || (loops && n != now_n)
      || (fd = g_open (path, O_RDONLY | O_CLOEXEC, 0)) < 0)
    return FALSE;
  ok = digest_file (fd, n, strchr (was, ' ') == NULL, stop, &got, &digest);
  close (fd);
  return ok && got == n && digest == want;
}

/**
 * accel_graph_fingerprint:
 * @graph: a prepared graph
 * @was: (nullable): the fingerprint kept in the state directory: an input
 *   file it finds unchanged (its size and identity) is not read again
 * @gained: whether the directory held state before it had an identity
 *
 * Returns: (transfer full): the graph's fingerprint: the state
 * directory's identity (@was's, or a new one), and a line per stage (name
 * and kind), parameter, input file, negotiated output type and link.
 * Called from the thread that starts the graph.
 */
gchar *
accel_graph_fingerprint (AccelGraph *graph, const char *was, gboolean gained)
{
  GString *s = g_string_new (FINGERPRINT_HEADER);
  AccelWorld *world = accel_world_get_default ();
  guint64 identity = was ? accel_fingerprint_get_identity (was) : 0;

  while (identity == 0)
    identity = ((guint64)g_random_int () << 32) | g_random_int ();
  g_string_append_printf (s, IDENTITY_PREFIX "%016" G_GINT64_MODIFIER "x%s\n",
      identity, gained ? GAINED : "");

  /* collectives over another number of ranks make other frames. Only
   * worlds have the line: state directories of lone processes made
   * before it still resume */
  if (world)
    {
      g_autofree gchar *size
          = g_strdup_printf ("%u", accel_world_get_size (world));
      append_line (s, "world", size, NULL);
    }
  for (guint i = 0; i < graph->order->len; i++)
    {
      AccelStage *stage = graph->order->pdata[i];
      const char *name = accel_stage_get_name (stage);

      append_line (s, "kind", name, accel_stage_get_kind_name (stage), NULL);
      append_params (s, stage);
      append_input (s, stage, was, &graph->start_stopped);
      for (guint o = 0; o < accel_stage_get_n_outputs (stage); o++)
        {
          g_autofree gchar *type
              = accel_type_to_string (accel_stage_get_output_type (stage, o));
          append_line (s, "output", name,
              accel_graph_port_name (stage, ACCEL_PORT_OUTPUT, o), type, NULL);
        }
    }
  for (guint l = 0; l < graph->links->len; l++)
    {
      GraphLink *link = &g_array_index (graph->links, GraphLink, l);
      g_autofree gchar *src = g_strdup_printf ("%s.%s",
          accel_stage_get_name (link->src),
          accel_graph_port_name (link->src, ACCEL_PORT_OUTPUT, link->src_port));
      g_autofree gchar *dst = g_strdup_printf ("%s.%s",
          accel_stage_get_name (link->dst),
          accel_graph_port_name (link->dst, ACCEL_PORT_INPUT, link->dst_port));
      append_line (s, "link", src, dst, "linked", NULL);
    }
  g_string_append_printf (s, CHECK_PREFIX "%016" G_GINT64_MODIFIER "x\n",
      accel_digest_bytes (ACCEL_DIGEST_INIT, s->str, s->len));
  return g_string_free (s, FALSE);
}

/* @text without its check line, into @body; FALSE where it has one that
 * does not match the lines before it, or its last line is cut short or
 * no check, though it begins as one */
static gboolean
strip_check (const char *text, gchar **body)
{
  gsize len = strlen (text);
  const char *line = g_strrstr (text, "\n" CHECK_PREFIX);
  const char *last = len > 1 ? g_strrstr_len (text, len - 1, "\n") : NULL;
  guint64 want;
  char *end;
  gsize n;

  if (!line)
    {
      *body = g_strdup (text);
      return len == 0 || (text[len - 1] == '\n' && (!last || last[1] != '#'));
    }
  n = (gsize)(line + 1 - text);
  *body = g_strndup (text, n);
  want = g_ascii_strtoull (text + n + strlen (CHECK_PREFIX), &end, 16);
  return end == text + n + strlen (CHECK_PREFIX) + 16 && *end == '\n'
         && (gsize)(end + 1 - text) == len
         && accel_digest_bytes (ACCEL_DIGEST_INIT, *body, n) == want;
}

/* a fingerprint's lines: all fields but the last -> the last, and the
 * keys in the order of the text */
typedef struct
{
  GHashTable *values;
  GPtrArray *keys;
} Lines;

static void
lines_parse (Lines *lines, const char *text)
{
  g_auto (GStrv) split = g_strsplit (text, "\n", -1);

  lines->values
      = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  lines->keys = g_ptr_array_new ();
  for (guint i = 0; split[i]; i++)
    {
      char *tab = strrchr (split[i], '\t');
      gchar *key;

      if (!tab || split[i][0] == '#')
        continue;
      key = g_strndup (split[i], (gsize)(tab - split[i]));
      if (g_hash_table_insert (lines->values, key, g_strcompress (tab + 1)))
        g_ptr_array_add (lines->keys, key);
    }
}

static void
lines_clear (Lines *lines)
{
  g_ptr_array_unref (lines->keys);
  g_hash_table_unref (lines->values);
}

/* "stage 'src' parameter 'width'" for a key "param\tsrc\twidth"; sets
 * @kind_key to the key of the stage's kind line (none for a link) */
static gchar *
describe_key (const char *key, gchar **kind_key)
{
  g_auto (GStrv) f = g_strsplit (key, "\t", -1);
  guint n = g_strv_length (f);

  *kind_key = n >= 2 && !g_str_equal (f[0], "link")
                  ? g_strconcat ("kind\t", f[1], NULL)
                  : NULL;
  for (guint i = 0; i < n; i++)
    {
      gchar *plain = g_strcompress (f[i]);
      g_free (f[i]);
      f[i] = plain;
    }
  if (n == 2 && g_str_equal (f[0], "kind"))
    return g_strdup_printf ("stage '%s'", f[1]);
  if (n == 3 && g_str_equal (f[0], "param"))
    return g_strdup_printf ("stage '%s' parameter '%s'", f[1], f[2]);
  if (n == 3 && g_str_equal (f[0], "output"))
    return g_strdup_printf ("stage '%s' output '%s' type", f[1], f[2]);
  if (n == 3 && g_str_equal (f[0], "link"))
    return g_strdup_printf ("link %s -> %s", f[1], f[2]);
  if (n == 3 && g_str_equal (f[0], "input"))
    return g_strdup_printf ("stage '%s' input %s", f[1], f[2]);
  if (n == 1 && g_str_equal (f[0], "world"))
    return g_strdup ("the world's number of ranks");
  return g_strdup (key);
}

/* whether the stage of @kind_key has one kind in both */
static gboolean
same_kind (Lines *was, Lines *now, const char *kind_key)
{
  return kind_key
         && g_strcmp0 (g_hash_table_lookup (was->values, kind_key),
                g_hash_table_lookup (now->values, kind_key))
                == 0;
}

/* what differs from @was to @now, a phrase each, into @changes: a stage
 * added, removed or of another kind is said once, without its
 * parameters. Returns: how many input lines differ as text only */
static guint
diff (Lines *was, Lines *now, GPtrArray *changes, const gint *stop)
{
  guint n_inputs_alike = 0;

  for (guint i = 0; i < now->keys->len; i++)
    {
      const char *key = now->keys->pdata[i];
      const char *old = g_hash_table_lookup (was->values, key);
      const char *new = g_hash_table_lookup (now->values, key);
      g_autofree gchar *kind_key = NULL;
      g_autofree gchar *what = describe_key (key, &kind_key);
      gboolean is_kind = g_str_has_prefix (key, "kind\t");

      if (old && g_str_equal (old, new))
        continue;
      /* an input that grew since is the same input; one not in the kept
       * fingerprint (kept before inputs were, or its location changed,
       * which its parameter's line says) is not compared */
      if (g_str_has_prefix (key, "input\t"))
        {
          g_auto (GStrv) f = g_strsplit (key, "\t", -1);
          g_autofree gchar *path = g_strcompress (f[2]);
          g_autofree gchar *loop_key
              = g_strdup_printf ("param\t%s\tloop", f[1]);
          gboolean loops
              = g_strcmp0 (g_hash_table_lookup (now->values, loop_key), "TRUE")
                == 0;

          if (!old || input_starts_as (path, old, new, loops, stop))
            n_inputs_alike++;
          else if (loops)
            g_ptr_array_add (changes,
                g_strdup_printf ("%s is not as it was (the stage loops over "
                                 "it, so a file grown since gives every "
                                 "frame from another place)",
                    what));
          else
            g_ptr_array_add (changes,
                g_strdup_printf ("%s does not start as it did (another file "
                                 "of that name, or one changed in place)",
                    what));
          continue;
        }
      if (is_kind && !old)
        g_ptr_array_add (
            changes, g_strdup_printf ("%s (%s) was added", what, new));
      else if (is_kind)
        g_ptr_array_add (changes,
            g_strdup_printf ("%s was of kind %s, now %s", what, old, new));
      else if (!kind_key && !old)
        g_ptr_array_add (changes, g_strdup_printf ("%s was added", what));
      else if (!kind_key || same_kind (was, now, kind_key))
        g_ptr_array_add (changes, g_strdup_printf ("%s was %s, now %s", what,
                                      old ? old : "not there", new));
    }
  for (guint i = 0; i < was->keys->len; i++)
    {
      const char *key = was->keys->pdata[i];
      const char *old = g_hash_table_lookup (was->values, key);
      g_autofree gchar *kind_key = NULL;
      g_autofree gchar *what = NULL;

      if (g_hash_table_contains (now->values, key)
          || g_str_has_prefix (key, "input\t"))
        continue;
      what = describe_key (key, &kind_key);
      if (!kind_key || g_str_has_prefix (key, "kind\t"))
        g_ptr_array_add (changes, g_strdup_printf ("%s was removed", what));
      else if (same_kind (was, now, kind_key))
        g_ptr_array_add (
            changes, g_strdup_printf ("%s was %s, now not there", what, old));
    }
  return n_inputs_alike;
}

/* @text without its lines that begin with @prefix */
static gchar *
without_lines (const char *text, const char *prefix)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  GString *rest = g_string_new (NULL);

  /* the empty string after the last line break is no line */
  for (guint i = 0; lines[i] && (lines[i + 1] || *lines[i]); i++)
    if (!g_str_has_prefix (lines[i], prefix))
      g_string_append_printf (rest, "%s\n", lines[i]);
  return g_string_free (rest, FALSE);
}

/**
 * accel_fingerprint_get_identity:
 * @fingerprint: a fingerprint (accel_graph_fingerprint())
 *
 * Returns: the identity of the state directory it is kept in, or 0 for a
 * fingerprint kept before state directories had one. MT safe.
 */
guint64
accel_fingerprint_get_identity (const char *fingerprint)
{
  const char *line = strstr (fingerprint, "\n" IDENTITY_PREFIX);
  const char *digits;
  char *end;
  guint64 identity;

  if (!line)
    return 0;
  digits = line + 1 + strlen (IDENTITY_PREFIX);
  identity = g_ascii_strtoull (digits, &end, 16);
  return end == digits + 16
                 && (*end == '\n' || g_str_has_prefix (end, GAINED "\n"))
             ? identity
             : 0;
}

/**
 * accel_fingerprint_get_world_size:
 * @fingerprint: a fingerprint (accel_graph_fingerprint())
 *
 * Returns: the number of ranks of the world it was kept for, or 0 for a
 * fingerprint of a run of one process, or kept before the size was in it.
 * MT safe.
 */
guint
accel_fingerprint_get_world_size (const char *fingerprint)
{
  g_autofree gchar *value = line_value (fingerprint, "world");
  guint64 size;

  if (!value
      || !g_ascii_string_to_unsigned (value, 10, 1, G_MAXUINT, &size, NULL))
    return 0;
  return (guint)size;
}

/**
 * accel_fingerprint_identity_is_gained:
 * @fingerprint: a fingerprint (accel_graph_fingerprint())
 *
 * Returns: whether its state directory held state before it had an
 * identity (its checkpoints without one are its own), or %TRUE for a
 * fingerprint without one yet. MT safe.
 */
gboolean
accel_fingerprint_identity_is_gained (const char *fingerprint)
{
  const char *line = strstr (fingerprint, "\n" IDENTITY_PREFIX);

  return accel_fingerprint_get_identity (fingerprint) == 0
         || g_str_has_prefix (
             line + 1 + strlen (IDENTITY_PREFIX) + 16, GAINED "\n");
}

/**
 * accel_fingerprint_compare:
 * @was: the fingerprint kept in the state directory
 * @now: the graph's
 * @dir: the state directory, named in the error
 * @stop: set when the graph's start is stopped: an input is not read on
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %FALSE with %ACCEL_ERROR_STATE_MISMATCH saying every change
 * when the fingerprints differ. Called from the thread that starts the
 * graph.
 */
gboolean
accel_fingerprint_compare (const char *was, const char *now, const char *dir,
    const gint *stop, GError **error)
{
  g_autoptr (GPtrArray) changes = g_ptr_array_new_with_free_func (g_free);
  g_autofree gchar *list = NULL;
  g_autofree gchar *without_world = NULL;
  g_autofree gchar *was_lines = NULL, *now_lines = NULL;
  g_autofree gchar *was_graph = NULL, *now_graph = NULL;
  const char *world, *damage = NULL;
  guint n_inputs_alike;
  Lines a, b;

  if (!strip_check (was, &was_lines))
    damage = strstr (was, "\n" CHECK_PREFIX)
                 ? "its text does not match its check"
                 : "it is cut short: its check line is gone";
  /* cut to nothing or written over: no pipeline's at all (it was said to
   * be another pipeline's, its every stage added) */
  else if (!g_str_has_prefix (was_lines, FINGERPRINT_HEADER))
    damage = "it does not begin as a fingerprint does";
  if (damage)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH,
          "the state directory %s holds a damaged fingerprint (%s); discard "
          "the state to start over",
          dir, damage);
      return FALSE;
    }
  strip_check (now, &now_lines);
  /* the state directory's identity is no part of the graph */
  was = was_graph = without_lines (was_lines, IDENTITY_PREFIX);
  now = now_graph = without_lines (now_lines, IDENTITY_PREFIX);
  /* a world's state kept before its size was in the fingerprint: the rest
   * is compared */
  if (!strstr (was, "\nworld\t") && (world = strstr (now, "\nworld\t")))
    {
      without_world = g_strdup_printf (
          "%.*s%s", (int)(world + 1 - now), now, strchr (world + 1, '\n') + 1);
      now = without_world;
    }
  if (g_str_equal (was, now))
    return TRUE;
  lines_parse (&a, was);
  lines_parse (&b, now);
  n_inputs_alike = diff (&a, &b, changes, stop);
  lines_clear (&a);
  lines_clear (&b);
  /* the inputs alike, and nothing else differs, not even where diff ()
   * does not look */
  if (changes->len == 0 && n_inputs_alike > 0)
    {
      g_autofree gchar *a_rest = without_lines (was, "input\t");
      g_autofree gchar *b_rest = without_lines (now, "input\t");
      if (g_str_equal (a_rest, b_rest))
        return TRUE;
    }
  if (changes->len == 0)
    g_ptr_array_add (changes, g_strdup ("its fingerprint differs"));
  g_ptr_array_add (changes, NULL);
  list = g_strjoinv ("; ", (gchar **)changes->pdata);
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH,
      "the state directory %s holds the state of another pipeline: %s; "
      "resuming would mix the two runs' frames (discard the state to start "
      "over)",
      dir, list);
  return FALSE;
}
