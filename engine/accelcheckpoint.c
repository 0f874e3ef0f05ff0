/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: checkpoints of stateful stages on disk, so a new worker restores
 * the state a killed one had reached instead of replaying from the start.
 * A stage runs ahead of the sinks' commits, so several are kept
 * ("<stage>.checkpoint.<sequence>"): a restart takes the newest one before
 * the first uncommitted frame */
#define G_LOG_DOMAIN "accel-checkpoint"

#include "accel-private.h"

#include <glib/gstdio.h>
#include <string.h>

/* ACCELCK4 carries the identity of its state directory and a check of
 * the state, the stage's name and that identity; ACCELCK3, without the
 * identity, ACCELCK2, a check of the state alone, and ACCELCK1, from
 * before the check, are still read */
#define MAGIC "ACCELCK4"
#define MAGIC_NO_DIR "ACCELCK3"
#define MAGIC_UNNAMED "ACCELCK2"
#define MAGIC_UNCHECKED "ACCELCK1"

/* header: magic, the last sequence number the state includes, its size,
 * then (ACCELCK2 on) the check, and (ACCELCK4) the state directory's
 * identity */
typedef struct
{
  char magic[8];
  guint64 sequence;
  guint64 size;
} Header;

/* a check of @size bytes for damage on disk, not against tampering: a
 * multiply-xorshift over 64-bit words, several GB/s, next to the file
 * write it goes with */
static guint64
state_check (const guint8 *data, gsize size)
{
  guint64 h = 0x9e3779b97f4a7c15ull ^ size;
  gsize i = 0;

  for (; i + 8 <= size; i += 8)
    {
      guint64 w;
      memcpy (&w, data + i, 8);
      h = (h ^ w) * 0xff51afd7ed558ccdull;
      h ^= h >> 32;
    }
  for (; i < size; i++)
    h = (h ^ data[i]) * 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 29);
}

/* the part of the check that is the stage's: the name in
 * "dir/<stage>.checkpoint.<sequence>". Another stage's checkpoint under
 * this one's name (of the same kind and size) was restored, and the
 * stage's frames were the other's */
static guint64
stage_check (const char *path)
{
  g_autofree gchar *name = g_path_get_basename (path);
  const char *end = g_strrstr (name, ".checkpoint.");

  return accel_digest_bytes (
      ACCEL_DIGEST_INIT, name, end ? (gsize)(end - name) : strlen (name));
}

/* written to a temporary file and renamed over the old one: a reader sees
 * the previous checkpoint or this one, never half of one. @state_id: the
 * identity of the state directory (accel_fingerprint_get_identity()) */
gboolean
accel_checkpoint_write (const char *path, guint64 state_id, guint64 sequence,
    GBytes *state, GError **error)
{
  gsize size;
  const guint8 *data = g_bytes_get_data (state, &size);
  gsize at = sizeof (Header) + 2 * sizeof (guint64);
  g_autofree guint8 *buf = g_malloc (at + size);
  Header h = { { 0 }, sequence, size };
  guint64 check = state_check (data, size) ^ stage_check (path) ^ state_id;

  memcpy (h.magic, MAGIC, sizeof (h.magic));
  memcpy (buf, &h, sizeof (h));
  memcpy (buf + sizeof (h), &check, sizeof (check));
  memcpy (buf + sizeof (h) + sizeof (check), &state_id, sizeof (state_id));
  if (size)
    memcpy (buf + at, data, size);
  return g_file_set_contents_full (path, (const gchar *)buf,
      (gssize)(at + size), G_FILE_SET_CONTENTS_CONSISTENT, 0644, error);
}

/* whether @path (a checkpoint, or a stateless marker: @what), which
 * carries the identity @id (or none, without @carried), is of the state
 * directory @state_id: one copied from another directory of the same
 * pipeline is not (@believed says what it would do). One without an
 * identity was written before state directories had one: the directory's
 * own only where it held state then (@gained) */
static gboolean
check_identity (const char *what, const char *path, gboolean carried,
    guint64 id, guint64 state_id, gboolean gained, const char *believed,
    GError **error)
{
  if (carried ? id == state_id : gained)
    return TRUE;
  if (carried)
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH,
        "%s %s was written in another state directory (its identity is "
        "not this one's): %s; remove it to start the stage's state over",
        what, path, believed);
  else
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH,
        "%s %s carries no state directory identity, and this state "
        "directory has had one since its first run: it was written in "
        "another (before they had one), and %s; remove it to start the "
        "stage's state over",
        what, path, believed);
  return FALSE;
}

/* Returns: the state, with @sequence set, or NULL with @error: the
 * checkpoint was listed, so one that is not there (a dangling link) is
 * lost, and a resume from it would start the state over mid-run; one of
 * another state directory than @state_id's (copied from one of the same
 * pipeline), or one without an identity where the directory did not
 * gain its own (@state_id_gained), would mix that run's state into this
 * one's */
GBytes *
accel_checkpoint_read (const char *path, guint64 state_id,
    gboolean state_id_gained, guint64 *sequence, GError **error)
{
  g_autofree gchar *data = NULL;
  const char *named;
  guint64 name_sequence, check, dir_id = 0;
  gsize len, at = sizeof (Header);
  gboolean checked, named_check, dir_check;
  Header h;

  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "checkpoint %s is not a file (a dangling link?); remove it to "
          "start the stage's state over",
          path);
      return NULL;
    }
  if (!g_file_get_contents (path, &data, &len, error))
    return NULL;
  if (len < sizeof (h))
    goto invalid;
  memcpy (&h, data, sizeof (h));
  dir_check = memcmp (h.magic, MAGIC, sizeof (h.magic)) == 0;
  named_check
      = dir_check || memcmp (h.magic, MAGIC_NO_DIR, sizeof (h.magic)) == 0;
  checked
      = named_check || memcmp (h.magic, MAGIC_UNNAMED, sizeof (h.magic)) == 0;
  if (!checked && memcmp (h.magic, MAGIC_UNCHECKED, sizeof (h.magic)) != 0)
    goto invalid;
  if (checked)
    {
      if (len < at + sizeof (check))
        goto invalid;
      memcpy (&check, data + at, sizeof (check));
      at += sizeof (check);
    }
  if (dir_check)
    {
      if (len < at + sizeof (dir_id))
        goto invalid;
      memcpy (&dir_id, data + at, sizeof (dir_id));
      at += sizeof (dir_id);
    }
  if (h.size != len - at)
    goto invalid;
  /* damage inside the state (its header was all that was read, and a
   * resume restored it: the frames after it differed), or another
   * stage's */
  if (checked
      && (state_check ((const guint8 *)data + at, h.size)
             ^ (named_check ? stage_check (path) : 0) ^ dir_id)
             != check)
    goto invalid;
  /* another state directory's, of the same pipeline and stage: restored,
   * the stage's frames were that run's */
  if (!check_identity ("checkpoint", path, dir_check, dir_id, state_id,
          state_id_gained,
          "restoring it would mix that run's state into this one's", error))
    return NULL;
  /* the sequence its name says (one renamed restored another frame's
   * state, and the frames after it differed) */
  named = strrchr (path, '.');
  if (named && strstr (path, ".checkpoint.")
      && (!g_ascii_string_to_unsigned (
              named + 1, 10, 0, G_MAXUINT64, &name_sequence, NULL)
          || name_sequence != h.sequence))
    goto invalid;
  *sequence = h.sequence;
  return g_bytes_new (data + at, h.size);

  /* ERRORS */
invalid:
  {
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH,
        "checkpoint %s is damaged (or another stage's); remove it to start "
        "the stage's state over",
        path);
    return NULL;
  }
}

/* how many checkpoints of a stage are kept */
#define KEEP 8

static gboolean
parse_name (const char *name, const char *prefix, guint64 *sequence)
{
  gsize n = strlen (prefix);

  /* as the checkpoint names it, and no other way: ".096" was listed as
   * 96, and ".96", not there, read */
  return strncmp (name, prefix, n) == 0 && name[n] == '.'
         && (name[n + 1] != '0' || name[n + 2] == '\0')
         && g_ascii_string_to_unsigned (
             name + n + 1, 10, 0, G_MAXUINT64, sequence, NULL);
}

static gint
cmp_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;

  return (x > y) - (x < y);
}

/* whether @name is "<prefix>.<sequence>.XXXXXX": the temporary file of a
 * checkpoint write that was cut short (killed), the size of the state */
static gboolean
is_leftover (const char *name, const char *prefix)
{
  gsize n = strlen (prefix);
  const char *digits, *dot;

  if (strncmp (name, prefix, n) != 0 || name[n] != '.')
    return FALSE;
  digits = name + n + 1;
  if (!(dot = strchr (digits, '.')) || dot == digits || strlen (dot + 1) != 6)
    return FALSE;
  for (const char *c = digits; c < dot; c++)
    if (!g_ascii_isdigit (*c))
      return FALSE;
  return TRUE;
}

/* the sequence numbers of @base's checkpoints ("dir/stage.checkpoint"), in
 * increasing order; with @leftovers, the paths of what its writes cut
 * short left there too */
static GArray *
list (const char *base, GPtrArray *leftovers)
{
  g_autofree gchar *dir = g_path_get_dirname (base);
  g_autofree gchar *prefix = g_path_get_basename (base);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  GArray *seqs = g_array_new (FALSE, FALSE, sizeof (guint64));
  const char *name;
  guint64 seq;

  while (d && (name = g_dir_read_name (d)))
    if (parse_name (name, prefix, &seq))
      g_array_append_val (seqs, seq);
    else if (leftovers && is_leftover (name, prefix))
      g_ptr_array_add (leftovers, g_build_filename (dir, name, NULL));
  g_array_sort (seqs, cmp_u64);
  return seqs;
}

/* writes the checkpoint of @sequence and drops all but the newest few */
gboolean
accel_checkpoint_save (const char *base, guint64 state_id, guint64 sequence,
    GBytes *state, GError **error)
{
  g_autofree gchar *path
      = g_strdup_printf ("%s.%" G_GUINT64_FORMAT, base, sequence);
  g_autoptr (GArray) seqs = NULL;
  g_autoptr (GPtrArray) leftovers = g_ptr_array_new_with_free_func (g_free);

  if (!accel_checkpoint_write (path, state_id, sequence, state, error))
    return FALSE;
  g_debug ("%s: state up to frame %" G_GUINT64_FORMAT ", %" G_GSIZE_FORMAT
           " bytes",
      path, sequence, g_bytes_get_size (state));
  seqs = list (base, leftovers);
  for (guint i = 0; i + KEEP < seqs->len; i++)
    {
      g_autofree gchar *old = g_strdup_printf (
          "%s.%" G_GUINT64_FORMAT, base, g_array_index (seqs, guint64, i));
      g_debug ("%s removed: %d newer ones are kept", old, KEEP);
      g_unlink (old);
    }
  /* the stage is their only writer, and none of its writes is under way */
  for (guint i = 0; i < leftovers->len; i++)
    {
      g_debug ("%s removed: a write cut short left it",
          (const char *)leftovers->pdata[i]);
      g_unlink (leftovers->pdata[i]);
    }
  return TRUE;
}

/* the newest checkpoint of @base before @before, or NULL (start over) */
gchar *
accel_checkpoint_find (const char *base, guint64 before, guint64 *sequence)
{
  g_autoptr (GArray) seqs = list (base, NULL);

  for (guint i = seqs->len; i > 0; i--)
    {
      guint64 seq = g_array_index (seqs, guint64, i - 1);
      if (seq < before)
        {
          *sequence = seq;
          g_debug ("%s: resuming from the checkpoint of frame "
                   "%" G_GUINT64_FORMAT,
              base, seq);
          return g_strdup_printf ("%s.%" G_GUINT64_FORMAT, base, seq);
        }
    }
  g_debug ("%s: no checkpoint before frame %" G_GUINT64_FORMAT
           " (%u in all): the state starts over",
      base, before, seqs->len);
  return NULL;
}

/* removes @base's checkpoints of frames from @first on: a resume makes
 * them again, and they are of another history (a run that skipped a
 * frame, or saved at another interval): a later resume took one of them,
 * and its frames differed from the frames before it */
void
accel_checkpoint_drop_from (const char *base, guint64 first)
{
  g_autoptr (GArray) seqs = list (base, NULL);

  for (guint i = 0; i < seqs->len; i++)
    {
      guint64 seq = g_array_index (seqs, guint64, i);
      g_autofree gchar *path = NULL;

      if (seq < first)
        continue;
      path = g_strdup_printf ("%s.%" G_GUINT64_FORMAT, base, seq);
      g_debug ("%s removed: its frame is made again", path);
      g_unlink (path);
    }
}

/* "<base>.stateless": left by a stage whose snapshot held no state, so
 * that a resume tells it from one whose checkpoints were never written.
 * It holds the identity of its state directory and the stage's file name
 * ("%016x <name>\n"; "%016x\n" before it named the stage, empty before
 * state directories had an identity): another stage's marker under this
 * one's name made a stage that holds state resume with it started over */
static gchar *
stateless_path (const char *base)
{
  return g_strconcat (base, ".stateless", NULL);
}

/* the stage of @base ("dir/stage.checkpoint") */
static gchar *
stage_of (const char *base)
{
  gchar *name = g_path_get_basename (base);

  if (g_str_has_suffix (name, ".checkpoint"))
    name[strlen (name) - strlen (".checkpoint")] = '\0';
  return name;
}

static gchar *
stateless_text (const char *base, guint64 state_id)
{
  g_autofree gchar *stage = stage_of (base);

  return g_strdup_printf ("%016" G_GINT64_MODIFIER "x %s\n", state_id, stage);
}

/* marks @base's stage as one whose snapshots hold no state, in the state
 * directory of identity @state_id */
gboolean
accel_checkpoint_mark_stateless (
    const char *base, guint64 state_id, GError **error)
{
  g_autofree gchar *path = stateless_path (base);
  g_autofree gchar *text = stateless_text (base, state_id);
  g_autofree gchar *was = NULL;

  if (g_file_get_contents (path, &was, NULL, NULL) && g_str_equal (was, text))
    return TRUE;
  g_debug ("%s: the stage's snapshots hold no state", base);
  return g_file_set_contents_full (
      path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644, error);
}

/* whether @base's stateless marker, if there is one, is of the state
 * directory @state_id (or without an identity where it gained one:
 * accel_checkpoint_read()); believed, a stage that holds state would
 * resume with its state started over mid-run */
gboolean
accel_checkpoint_check_stateless (const char *base, guint64 state_id,
    gboolean state_id_gained, GError **error)
{
  g_autofree gchar *path = stateless_path (base);
  g_autofree gchar *stage = stage_of (base);
  g_autofree gchar *text = NULL, *named = NULL;
  gsize len;
  guint64 id = 0;
  char *end = NULL;

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return TRUE;
  if (!g_file_get_contents (path, &text, &len, error))
    return FALSE;
  if (len > 0)
    id = g_ascii_strtoull (text, &end, 16);
  if (len > 0
      && (len < 17 || end != text + 16 || text[len - 1] != '\n'
          || (*end != '\n' && *end != ' ') || memchr (text, 0, len)))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH,
          "%s is damaged; remove it to start the stage's state over", path);
      return FALSE;
    }
  if (!check_identity ("stateless marker", path, len > 0, id, state_id,
          state_id_gained,
          "believing it, the stage would resume with its state started over "
          "mid-run",
          error))
    return FALSE;
  if (len > 17 && *end == ' '
      && !g_str_equal ((named = g_strndup (end + 1, len - 18)), stage))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH,
          "stateless marker %s was written by stage '%s', not '%s': "
          "believing it, the stage would resume with its state started "
          "over mid-run; remove it to start the stage's state over",
          path, named, stage);
      return FALSE;
    }
  return TRUE;
}

/* whether @base's stage said its snapshots hold no state */
gboolean
accel_checkpoint_is_stateless (const char *base)
{
  g_autofree gchar *path = stateless_path (base);

  return g_file_test (path, G_FILE_TEST_EXISTS);
}
