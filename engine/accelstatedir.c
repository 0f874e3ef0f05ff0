/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: a graph's state directory, what lets a run resume after a crash:
 * the sinks' commit logs (<sink>.commits), the stateful stages'
 * checkpoints (<stage>.checkpoint.<sequence>), the live sources' last
 * sequence (<source>.produced) */
#define G_LOG_DOMAIN "accel-graph"

#include "accelgraph-private.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* @dir itself, locked (flock) while a graph uses it, with its process id
 * in <dir>/lock for the message of a run that finds it locked (a lock on
 * that file held no more once the file was deleted, and a second run
 * mixed its frames with the first's); the caller hands a copy of the
 * descriptor to each commit log, so the lock ends with the last of them.
 * Returns the descriptor, or -1 */
static int
lock_state_dir (const char *dir, GError **error)
{
  g_autofree gchar *path = g_build_filename (dir, "lock", NULL);
  g_autofree gchar *pid = NULL;
  g_autoptr (GError) pid_error = NULL;
  int fd, saved;

  fd = g_open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  if (fd < 0)
    goto failed;
  if (flock (fd, LOCK_EX | LOCK_NB) != 0)
    {
      g_autofree gchar *holder = NULL;
      saved = errno;
      close (fd);
      if (saved != EWOULDBLOCK)
        {
          errno = saved;
          goto failed;
        }
      if (g_file_get_contents (path, &holder, NULL, NULL))
        g_strstrip (holder);
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "the state directory %s is in use by another run (process %s); "
          "two runs writing one state would mix their frames",
          dir, holder && *holder ? holder : "unknown");
      return -1;
    }
  pid = g_strdup_printf ("%ld\n", (long)getpid ());
  if (!g_file_set_contents (path, pid, -1, &pid_error))
    g_debug ("%s", pid_error->message);
  return fd;

  /* ERRORS */
failed:
  {
    saved = errno;
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED, "cannot lock %s: %s",
        dir, g_strerror (saved));
    return -1;
  }
}

/* a live source keeps its last sequence in <stage>.produced: what it had
 * produced from @resume on was never committed, and it cannot produce it
 * again, so it is lost; counted, and said in a note */
static gboolean
open_produced_file (const char *dir, GPtrArray *notes, AccelStage *stage,
    guint64 resume, GError **error)
{
  g_autofree gchar *file
      = g_strdup_printf ("%s.produced", accel_stage_get_name (stage));
  g_autofree gchar *path = g_build_filename (dir, file, NULL);
  g_autofree gchar *text = NULL;
  g_autoptr (GError) read_error = NULL;
  guint64 last = 0, n_lost = 0;
  gboolean known = FALSE; /* a frame number read */
  const char *why = NULL;
  int fd;

  /* a resume has to know what was produced: a file missing or damaged
   * was taken as nothing produced, and frames lost went uncounted with
   * status 0. Before the first commit it may not be there yet */
  if (resume != G_MAXUINT64)
    {
      if (!g_file_get_contents (path, &text, NULL, &read_error))
        why = !g_error_matches (read_error, G_FILE_ERROR, G_FILE_ERROR_NOENT)
                  ? "cannot be read"
              : resume > 0 ? "is gone"
                           : NULL;
      else if (g_str_equal (g_strstrip (text), "none"))
        ;
      else if (g_ascii_string_to_unsigned (
                   text, 10, 0, G_MAXUINT64 - 1, &last, NULL))
        known = TRUE;
      else
        why = "holds no frame number (it is damaged)";
    }
  if (why)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH,
          "stage '%s' (%s) is live, and %s, where it keeps the last frame "
          "it produced, %s: the frames it produced that no sink committed "
          "cannot be counted as lost. Write 'none' in it to resume counting "
          "none, or discard the state to start over",
          accel_stage_get_name (stage), accel_stage_get_kind_name (stage), path,
          why);
      return FALSE;
    }
  if (known && last >= resume)
    {
      n_lost = last - resume + 1;
      g_ptr_array_add (
          notes, g_strdup_printf ("stage '%s' (%s) is live and cannot produce "
                                  "frames again: %" G_GUINT64_FORMAT
                                  " frames (sequences %" G_GUINT64_FORMAT
                                  " to %" G_GUINT64_FORMAT
                                  ") were lost in the restart",
                     accel_stage_get_name (stage),
                     accel_stage_get_kind_name (stage), n_lost, resume, last));
    }
  /* not through a link: one left dangling made its target anywhere */
  fd = g_open (path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED, "cannot open %s: %s",
          path, g_strerror (errno));
      return FALSE;
    }
  accel_stage_set_produced_file (stage, fd, n_lost);
  return TRUE;
}

/* "dir/stage.checkpoint", or NULL for a stage that keeps no state */
static gchar *
checkpoint_base (const char *dir, AccelStage *stage)
{
  g_autofree gchar *file = NULL;

  if (!ACCEL_STAGE_GET_CLASS (stage)->snapshot)
    return NULL;
  file = g_strdup_printf ("%s.checkpoint", accel_stage_get_name (stage));
  return g_build_filename (dir, file, NULL);
}

/* whether @stage's state must be restored for the graph to resume: it
 * saved some, or it did not say that its snapshots hold none (effects
 * without temporal ones do, at their first snapshot). A stage that saved
 * neither (snapshot-interval 0, a run ended before its first checkpoint,
 * a checkpoint lost) holds state it cannot restore: the graph starts over */
static gboolean
holds_state (const char *base)
{
  g_autofree gchar *newest = NULL;
  guint64 seq;

  newest = accel_checkpoint_find (base, G_MAXUINT64, &seq);
  return newest != NULL || !accel_checkpoint_is_stateless (base);
}

/* the stateless markers a resume believes are this directory's
 * (accel_checkpoint_check_stateless()) */
static gboolean
check_stateless_markers (AccelGraph *graph, GError **error)
{
  for (guint i = 0; i < graph->order->len; i++)
    {
      g_autofree gchar *base
          = checkpoint_base (graph->state_dir, graph->order->pdata[i]);

      if (base
          && !accel_checkpoint_check_stateless (
              base, graph->state_id, graph->state_id_gained, error))
        return FALSE;
    }
  return TRUE;
}

/* Every stateful stage must start from its state after one same frame, the
 * one before the sources resume: the newest frame before @resume (the
 * first uncommitted one) at which each of them saved its state, or none,
 * and everything starts over. Frames after it run again and the sinks skip
 * what they committed; their checkpoints go, as they are made again.
 * Returns where the sources resume. */
static guint64
common_checkpoint (AccelGraph *graph, guint64 resume)
{
  const char *dir = graph->state_dir;
  GPtrArray *order = graph->order;
  guint64 r = resume == G_MAXUINT64 ? 0 : resume, before;

  do
    {
      before = r;
      for (guint i = 0; i < order->len && r > 0; i++)
        {
          AccelStage *stage = order->pdata[i];
          g_autofree gchar *base = checkpoint_base (dir, stage);
          g_autofree gchar *from = NULL;
          guint64 seq;

          if (!base || !holds_state (base))
            continue;
          from = accel_checkpoint_find (base, r, &seq);
          r = from ? MIN (r, seq + 1) : 0;
        }
    }
  while (r != before && r > 0);

  for (guint i = 0; i < order->len; i++)
    {
      AccelStage *stage = order->pdata[i];
      g_autofree gchar *base = checkpoint_base (dir, stage);
      g_autofree gchar *from = NULL;
      guint64 seq;

      if (!base)
        continue;
      if (r > 0 && holds_state (base))
        from = accel_checkpoint_find (base, r, &seq);
      accel_checkpoint_drop_from (base, from ? seq + 1 : 0);
      accel_stage_set_checkpoint (
          stage, base, from, graph->state_id, graph->state_id_gained);
    }
  return resume == G_MAXUINT64 ? resume : r;
}

/* whether @name is a file of a state directory (but its lock) */
static gboolean
is_state_file (const char *name)
{
  return g_str_equal (name, "fingerprint") || g_str_has_suffix (name, ".tmp")
         || g_str_has_suffix (name, ".commits")
         || g_str_has_suffix (name, ".commits.digests")
         || g_str_has_suffix (name, ".commits.tail") /* before .digests */
         || g_str_has_suffix (name, ".produced")
         || strstr (name, ".checkpoint.") != NULL;
}

static gboolean
is_state_or_lock (const char *name)
{
  return is_state_file (name) || g_str_equal (name, "lock");
}

/* what @dir holds of a state is files the run can read and write: a FIFO
 * (or a device) named as one held the run at its start for good, reading
 * or writing it (a directory fails at once, naming itself), and a
 * read-only one failed it as it was opened, in GLib's words (status 1
 * from accel-run, where --validate said why) */
static gboolean
check_state_files (const char *dir, GError **error)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d && (name = g_dir_read_name (d)))
    {
      g_autofree gchar *path = NULL;
      GStatBuf st;

      if (!is_state_or_lock (name))
        continue;
      path = g_build_filename (dir, name, NULL);
      if (g_stat (path, &st) != 0)
        continue;
      if (!S_ISREG (st.st_mode) && !S_ISDIR (st.st_mode))
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH,
              "%s is not a regular file: a state directory holds only the "
              "files a run writes there (discard the state to start over)",
              path);
          return FALSE;
        }
      if (S_ISREG (st.st_mode) && access (path, R_OK | W_OK) != 0)
        {
          int saved = errno;
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
              "cannot write %s of the state directory: %s", path,
              g_strerror (saved));
          return FALSE;
        }
    }
  return TRUE;
}

/* whether @dir holds a fingerprint: the state of a run */
static gboolean
holds_run (const char *dir)
{
  g_autofree gchar *path = g_build_filename (dir, "fingerprint", NULL);

  return g_file_test (path, G_FILE_TEST_EXISTS);
}

static gboolean
remove_state_file (const char *dir, const char *name, GError **error)
{
  g_autofree gchar *path = g_build_filename (dir, name, NULL);
  int saved;

  if (g_unlink (path) == 0 || errno == ENOENT)
    return TRUE;
  saved = errno;
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED, "cannot remove %s: %s",
      path, g_strerror (saved));
  return FALSE;
}

/* drops what @dir holds of an earlier run: the graph starts over. The
 * fingerprint goes last: a discard cut short (killed, or a file it could
 * not remove) leaves the old graph's logs under its fingerprint, which
 * the next run of another graph refuses; without it they were taken for
 * a directory from before fingerprints, and resumed from */
static gboolean
discard_state (const char *dir, GPtrArray *notes, GError **error)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, error);
  const char *name;
  guint n = 0;

  if (!d)
    return FALSE;
  while ((name = g_dir_read_name (d)))
    {
      if (!is_state_file (name) || g_str_equal (name, "fingerprint"))
        continue;
      if (!remove_state_file (dir, name, error))
        return FALSE;
      n++;
    }
  if (holds_run (dir))
    {
      if (!remove_state_file (dir, "fingerprint", error))
        return FALSE;
      n++;
    }
  if (n > 0)
    g_ptr_array_add (notes,
        g_strdup_printf ("discarded the state in %s: starting over", dir));
  return TRUE;
}

/* the world size the fingerprint in @dir was kept for, or 0 */
static guint
fingerprint_world_size (const char *dir)
{
  g_autofree gchar *path = g_build_filename (dir, "fingerprint", NULL);
  g_autofree gchar *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return 0;
  return accel_fingerprint_get_world_size (text);
}

/* a rank new to the state directory of a world of another size (a resume
 * of a world of 2 with --ranks 3): refused as its siblings are, before it
 * keeps a state of its own there (it made rank-2 with a fingerprint of a
 * world of 3, while ranks 0 and 1 refused) */
static gboolean
check_new_rank (AccelGraph *graph, const char *parent, GError **error)
{
  guint size = accel_world_get_size (accel_world_get_default ());
  g_autoptr (GDir) d = NULL;
  const char *name;

  if (graph->discard_state || holds_run (graph->state_dir))
    return TRUE;
  d = g_dir_open (parent, 0, NULL);
  while (d && (name = g_dir_read_name (d)))
    {
      g_autofree gchar *sibling = g_build_filename (parent, name, NULL);
      guint was;

      if (!g_str_has_prefix (name, "rank-")
          || (was = fingerprint_world_size (sibling)) == 0 || was == size)
        continue;
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH,
          "the state directory %s holds the state of a world of %u ranks "
          "(%s), now %u: resuming would mix the two runs' frames (discard "
          "the state to start over)",
          parent, was, name, size);
      return FALSE;
    }
  return TRUE;
}

/* a state is not kept where a run of another shape keeps its own: a
 * world's supervisor gives rank r the directory rank-r inside the one it
 * was given. A process alone in a world's directory (or a world in one
 * process's) started over beside it, and cut the files it had written.
 * Discarding the state does not help (it is this run's it discards), so
 * the directory is refused each time, not only when new */
static gboolean
check_run_shape (AccelGraph *graph, GError **error)
{
  const char *dir = graph->state_dir;
  g_autofree gchar *parent = g_path_get_dirname (dir);
  g_autofree gchar *base = g_path_get_basename (dir);
  g_autoptr (GDir) d = NULL;
  const char *name;

  if (accel_world_get_default ())
    {
      g_autofree gchar *above = NULL;

      if (!g_str_has_prefix (base, "rank-"))
        return TRUE;
      if (!holds_run (parent))
        return check_new_rank (graph, parent, error);
      /* a rank's own directory given to a world: not a run of one process
       * (it was said to be one) */
      above = g_path_get_basename (parent);
      if (g_str_has_prefix (above, "rank-"))
        g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
            "the state directory %s holds the state of rank %s of a world: "
            "resume the world with the directory above it, or give this "
            "world a directory of its own",
            parent, above + strlen ("rank-"));
      else
        g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
            "the state directory %s holds the state of a run of one process: "
            "resume it as one, or give the world a directory of its own",
            parent);
      return FALSE;
    }
  d = g_dir_open (dir, 0, NULL);
  while (d && (name = g_dir_read_name (d)))
    {
      g_autofree gchar *rank = g_build_filename (dir, name, NULL);

      if (g_str_has_prefix (name, "rank-") && holds_run (rank))
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
              "the state directory %s holds the state of a world (%s): "
              "resume it with --ranks as before, or give this run a "
              "directory of its own",
              dir, name);
          return FALSE;
        }
    }
  return TRUE;
}

/* a directory without a fingerprint whose commit logs were made beside
 * one lost it (deleted): its state cannot be told from another graph's,
 * which took it for a state from before fingerprints, and resumed it */
static gboolean
check_fingerprint_kept (const char *dir, GError **error)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d && (name = g_dir_read_name (d)))
    {
      g_autofree gchar *path = g_build_filename (dir, name, NULL);

      if (!g_str_has_suffix (name, ".commits")
          || !accel_commit_log_file_is_fingerprinted (path))
        continue;
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH,
          "the state directory %s holds commit logs (%s) but no "
          "fingerprint: it was deleted, and the state cannot be told from "
          "another pipeline's; discard the state to start over",
          dir, name);
      return FALSE;
    }
  return TRUE;
}

/* whether @dir holds a commit log: a state kept before fingerprints were
 * (one kept beside a fingerprint is refused without it) */
static gboolean
holds_commit_logs (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d && (name = g_dir_read_name (d)))
    if (g_str_has_suffix (name, ".commits"))
      return TRUE;
  return FALSE;
}

/* the graph's fingerprint (@now), checked against the one kept in its
 * state directory (@was, NULL where there is none) */
static gboolean
compare_fingerprint (
    AccelGraph *graph, gchar **was, gchar **now, GError **error)
{
  g_autofree gchar *path
      = g_build_filename (graph->state_dir, "fingerprint", NULL);
  g_autoptr (GError) local = NULL;

  if (g_file_get_contents (path, was, NULL, &local))
    {
      gboolean same;

      *now = accel_graph_fingerprint (
          graph, *was, accel_fingerprint_identity_is_gained (*was));
      same = accel_fingerprint_compare (
          *was, *now, graph->state_dir, &graph->start_stopped, &local);

      /* a stop cut its inputs' lines short: said as the stop, not as an
       * input that differs, and nothing is kept */
      if (accel_graph_start_was_stopped (graph, error))
        return FALSE;
      if (!same)
        g_propagate_error (error, g_steal_pointer (&local));
      return same;
    }
  if (!g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  if (!check_fingerprint_kept (graph->state_dir, error))
    return FALSE;
  *now = accel_graph_fingerprint (
      graph, NULL, holds_commit_logs (graph->state_dir));
  return !accel_graph_start_was_stopped (graph, error);
}

/* <dir>/fingerprint: written by the first run, compared by the others;
 * on disk before any commit log speaks of it (a machine that went down
 * lost it, and the logs, synced, were refused for want of it) */
static gboolean
check_fingerprint (AccelGraph *graph, GError **error)
{
  g_autofree gchar *path
      = g_build_filename (graph->state_dir, "fingerprint", NULL);
  g_autofree gchar *now = NULL;
  g_autofree gchar *was = NULL;
  g_autoptr (GError) local = NULL;

  /* a fingerprint accepted as it differs (an input that grew, a line of
   * a later format) is kept as it is now: the next resume compares with
   * what this run reads */
  if (!compare_fingerprint (graph, &was, &now, error))
    return FALSE;
  /* the checkpoints of this run carry the identity it holds: on disk
   * before them, or a resume after the machine went down would refuse
   * them as another directory's. A directory that had one from its start
   * refuses those without one: they are another directory's */
  graph->state_id = accel_fingerprint_get_identity (now);
  graph->state_id_gained = accel_fingerprint_identity_is_gained (now);
  if ((was && g_str_equal (was, now))
      || g_file_set_contents_full (path, now, -1,
          G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE, 0644,
          &local))
    return TRUE;
  /* as the check before the start says it, naming the directory */
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
      "cannot write in the state directory %s: %s", graph->state_dir,
      local->message);
  return FALSE;
}

/* the first live stage of @order, or NULL */
static AccelStage *
find_live (GPtrArray *order)
{
  for (guint i = 0; i < order->len; i++)
    if (accel_stage_is_live (order->pdata[i]))
      return order->pdata[i];
  return NULL;
}

/* what a sink that writes files holds, checked against its commit log:
 * what it lacks is taken out of the log, so that the sources produce it
 * again; with a live source they cannot, and the resume is refused */
static gboolean
verify_output (AccelStage *stage, AccelCommitLog *log, AccelStage *live,
    GPtrArray *notes, GError **error)
{
  const char *name = accel_stage_get_name (stage);
  const char *kind = accel_stage_get_kind_name (stage);
  g_autofree gchar *what = NULL;

  if (!ACCEL_IS_FILE_OUTPUT (stage)
      || accel_commit_log_get_n_committed (log) == 0)
    return TRUE;
  if (!accel_file_output_verify (ACCEL_FILE_OUTPUT (stage), log, &what, error))
    {
      g_prefix_error (error, "stage '%s' (%s): ", name, kind);
      return FALSE;
    }
  if (!what)
    return TRUE;
  if (live)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH,
          "stage '%s' (%s): %s; the frames it lacks cannot be produced "
          "again, stage '%s' (%s) is live",
          name, kind, what, accel_stage_get_name (live),
          accel_stage_get_kind_name (live));
      return FALSE;
    }
  g_ptr_array_add (notes, g_strdup_printf ("stage '%s' (%s): %s; writing "
                                           "them again",
                              name, kind, what));
  return TRUE;
}

/* the sinks' commit logs, each holding the directory's lock, and the
 * live sources' files, closed again where the directory could not be
 * opened: the next start finds the lock free */
static void
close_state_files (GPtrArray *order)
{
  for (guint i = 0; i < order->len; i++)
    {
      AccelStage *stage = order->pdata[i];

      if (accel_stage_get_stage_kind (stage) == ACCEL_STAGE_SINK)
        accel_stage_set_commit_log (stage, NULL);
      if (accel_stage_is_live (stage))
        accel_stage_set_produced_file (stage, -1, 0);
    }
}

/* @stage's num-buffers, or -1 for none or no end */
static gint64
num_buffers (AccelStage *stage)
{
  GParamSpec *pspec = g_object_class_find_property (
      G_OBJECT_GET_CLASS (stage), "num-buffers");
  g_auto (GValue) value = G_VALUE_INIT;
  g_auto (GValue) n = G_VALUE_INIT;

  if (!pspec)
    return -1;
  g_value_init (&value, pspec->value_type);
  g_value_init (&n, G_TYPE_INT64);
  g_object_get_property (G_OBJECT (stage), "num-buffers", &value);
  if (!g_value_transform (&value, &n))
    return -1;
  return g_value_get_int64 (&n);
}

/* a sink's output that holds more frames than this run makes, kept as it
 * is: past a frame limit, or a source's num-buffers lowered since (it is
 * not in the fingerprint). Said for each such sink: they may hold
 * different counts, and the least of them is where the run resumes */
static void
note_outputs_past_end (GPtrArray *order, gint64 frame_limit, GPtrArray *notes)
{
  for (guint i = 0; i < order->len; i++)
    {
      AccelStage *sink = order->pdata[i];
      AccelCommitLog *log = accel_stage_get_commit_log (sink);
      guint64 held;

      if (accel_stage_get_stage_kind (sink) != ACCEL_STAGE_SINK || !log)
        continue;
      held = accel_commit_log_first_uncommitted (log);
      if (frame_limit >= 0 && held > (guint64)frame_limit)
        g_ptr_array_add (notes,
            g_strdup_printf ("stage '%s' (%s) holds %" G_GUINT64_FORMAT
                             " frames already, more than the frame limit of "
                             "%" G_GINT64_FORMAT ": they are kept (discard "
                             "the state to write %" G_GINT64_FORMAT ")",
                accel_stage_get_name (sink), accel_stage_get_kind_name (sink),
                held, frame_limit, frame_limit));
      for (guint s = 0; s < order->len; s++)
        {
          AccelStage *source = order->pdata[s];
          gint64 n;

          if (accel_stage_get_stage_kind (source) != ACCEL_STAGE_SOURCE
              || (n = num_buffers (source)) < 0 || held <= (guint64)n)
            continue;
          g_ptr_array_add (notes,
              g_strdup_printf (
                  "stage '%s' (%s) holds %" G_GUINT64_FORMAT
                  " frames already, more than stage '%s' (%s) makes "
                  "(num-buffers %" G_GINT64_FORMAT "): they are kept "
                  "(discard the state to write %" G_GINT64_FORMAT ")",
                  accel_stage_get_name (sink), accel_stage_get_kind_name (sink),
                  held, accel_stage_get_name (source),
                  accel_stage_get_kind_name (source), n, n));
        }
    }
}

/**
 * accel_state_dir_open:
 * @graph: a prepared graph with a state directory
 * @error: return location for a #GError, or %NULL
 *
 * Locks the state directory, discards it when asked, checks the graph's
 * fingerprint against the one kept there (or keeps it, the first time),
 * opens the sinks' commit logs and checks the sinks' files against them,
 * finds the frame every stateful stage can restart from, and tells the
 * sources where to resume and the live ones where to keep what they
 * produced. What was decided goes into the graph's notes. Called from the
 * thread that starts the graph, before any stage starts.
 *
 * Returns: %FALSE when a file of the directory cannot be opened or made,
 * or with %ACCEL_ERROR_STATE_MISMATCH when the state is another graph's or
 * an output lacks what its log says and cannot be repaired.
 */
gboolean
accel_state_dir_open (AccelGraph *graph, GError **error)
{
  const char *dir = graph->state_dir;
  GPtrArray *order = graph->order, *notes = graph->notes;
  AccelStage *live = find_live (order);
  AccelWorld *world = accel_world_get_default ();
  guint64 resume = G_MAXUINT64;
  int lock_fd;

  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      int saved = errno;
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "cannot create the state directory %s: %s", dir, g_strerror (saved));
      return FALSE;
    }
  /* its commit logs are more to open than prepare counted */
  if (!accel_graph_check_state_files (graph, dir, is_state_or_lock, error)
      || !accel_graph_check_descriptors (graph, error)
      || (lock_fd = lock_state_dir (dir, error)) < 0)
    return FALSE;
  /* a discard removes what is no file as well */
  if ((!graph->discard_state && !check_state_files (dir, error))
      || !check_run_shape (graph, error)
      || (graph->discard_state && !discard_state (dir, notes, error))
      || !check_fingerprint (graph, error))
    goto failed;
  for (guint i = 0; i < order->len; i++)
    {
      AccelStage *stage = order->pdata[i];
      g_autofree gchar *file = NULL, *path = NULL;
      AccelCommitLog *log;

      if (accel_stage_get_stage_kind (stage) != ACCEL_STAGE_SINK)
        continue;
      file = g_strdup_printf ("%s.commits", accel_stage_get_name (stage));
      path = g_build_filename (dir, file, NULL);
      if (!(log = accel_commit_log_open (path, error)))
        goto failed;
      if (!verify_output (stage, log, live, notes, error))
        {
          accel_commit_log_close (log);
          goto failed;
        }
      accel_commit_log_hold_lock (log, fcntl (lock_fd, F_DUPFD_CLOEXEC, 0));
      accel_commit_log_set_sync_interval (log, graph->commit_interval_us);
      resume = MIN (resume, accel_commit_log_first_uncommitted (log));
      accel_stage_set_commit_log (stage, log);
    }
  close (lock_fd);
  note_outputs_past_end (order, graph->frame_limit, notes);
  /* the ranks of a world resume at one frame, the first some rank's sink
   * lacks: collectives pair the ranks' frames by their order */
  if (world && accel_world_get_generation (world) > 0
      && !accel_world_agree_min (world, "resume", &resume, error))
    goto failed_open;
  /* a start from frame 0 believes none (and its stages write their own) */
  if (resume > 0 && resume != G_MAXUINT64
      && !check_stateless_markers (graph, error))
    goto failed_open;
  /* ... and start their stateful stages from their state after one frame:
   * a rank whose checkpoint there is missing (it died as it wrote it)
   * takes the world back to an earlier one, until every rank lowers the
   * agreed frame no further */
  for (guint round = 1;; round++)
    {
      g_autofree gchar *name = g_strdup_printf ("resume/%u", round);
      guint64 lowered = common_checkpoint (graph, resume);
      guint64 agreed = lowered;

      if (!world || accel_world_get_generation (world) == 0)
        {
          resume = lowered;
          break;
        }
      if (!accel_world_agree_min (world, name, &agreed, error))
        goto failed_open;
      if (agreed == resume)
        break;
      resume = agreed;
    }
  for (guint i = 0; i < order->len; i++)
    {
      AccelStage *stage = order->pdata[i];
      if (accel_stage_get_n_inputs (stage) == 0)
        accel_stage_set_start_sequence (
            stage, resume == G_MAXUINT64 ? 0 : resume);
      if (accel_stage_is_live (stage)
          && !open_produced_file (dir, notes, stage, resume, error))
        goto failed_open;
    }
  if (resume > 0 && resume != G_MAXUINT64)
    g_ptr_array_add (
        notes, g_strdup_printf ("resuming at frame %" G_GUINT64_FORMAT
                                " from the commit logs in %s",
                   resume, dir));
  return TRUE;

  /* ERRORS */
failed:
  {
    close (lock_fd);
    close_state_files (order);
    return FALSE;
  }
failed_open:
  {
    close_state_files (order);
    return FALSE;
  }
}

/* whether a file can be made in @dir, errno set where not: for root,
 * access () grants everything, /sys and /proc too, where the start then
 * failed. The file made to see is removed at once */
static gboolean
can_create_in (const char *dir)
{
  g_autofree gchar *probe = NULL;
  int fd;

  if (geteuid () != 0)
    return TRUE;
  probe = g_build_filename (dir, ".accel-probe-XXXXXX", NULL);
  if ((fd = g_mkstemp (probe)) < 0)
    return FALSE;
  close (fd);
  g_unlink (probe);
  return TRUE;
}

/* whether the directory @dir, not there yet, can be made, errno set where
 * not: each name it lacks fits the file system, and the nearest directory
 * above it that is there takes new entries (as root made and removed to
 * see: /sys/kernel/newdir passed, and the start failed) */
static gboolean
can_make_dir (const char *dir)
{
  g_autofree gchar *parent = g_path_get_dirname (dir);
  g_autofree gchar *base = g_path_get_basename (dir);
  long max = NAME_MAX;

  if (g_file_test (parent, G_FILE_TEST_IS_DIR))
    max = pathconf (parent, _PC_NAME_MAX);
  if (max > 0 && strlen (base) > (gsize)max)
    {
      errno = ENAMETOOLONG;
      return FALSE;
    }
  if (g_file_test (parent, G_FILE_TEST_IS_DIR))
    return access (parent, W_OK | X_OK) == 0 && can_create_in (parent);
  if (g_file_test (parent, G_FILE_TEST_EXISTS))
    {
      errno = ENOTDIR;
      return FALSE;
    }
  return g_str_equal (parent, dir) || can_make_dir (parent);
}

/**
 * accel_graph_check_state_dir:
 * @graph: a prepared graph
 * @error: return location for a #GError, or %NULL
 *
 * Checks what accel_graph_start() would refuse of the graph's state
 * directory (accel_graph_set_state_dir()) before any frame: one that is
 * not a directory or cannot be written, or holds files of a state that
 * cannot (read-only), a stage that writes its files,
 * files there that are not regular, a state of another shape of run, and
 * (unless it is to be discarded) a damaged fingerprint or another
 * pipeline's. Creates, locks and writes nothing (but as root, where
 * access () grants everything, a file made and removed at once to see); a
 * directory that is not there yet passes where it can be made. What only
 * the start finds (a lock
 * held by another run, the sinks' outputs against their commit logs, the
 * checkpoints) is not checked.
 *
 * Returns: %FALSE with @error as accel_graph_start() would fail. Called
 * from the thread that builds the graph.
 */
gboolean
accel_graph_check_state_dir (AccelGraph *graph, GError **error)
{
  const char *dir;
  g_autofree gchar *was = NULL, *now = NULL;

  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), FALSE);
  dir = graph->state_dir;
  /* a rank's directory is refused inside one process's before it is made */
  if (!dir || !check_run_shape (graph, error))
    return dir == NULL;
  if (!g_file_test (dir, G_FILE_TEST_EXISTS) && !can_make_dir (dir))
    {
      int saved = errno;
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "cannot create the state directory %s: %s", dir, g_strerror (saved));
      return FALSE;
    }
  if (!g_file_test (dir, G_FILE_TEST_EXISTS))
    return TRUE;
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "the state directory %s is not a directory", dir);
      return FALSE;
    }
  if (access (dir, R_OK | W_OK | X_OK) != 0 || !can_create_in (dir))
    {
      int saved = errno;
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "cannot write in the state directory %s: %s", dir,
          g_strerror (saved));
      return FALSE;
    }
  if (!accel_graph_check_state_files (graph, dir, is_state_or_lock, error)
      || (!graph->discard_state && !check_state_files (dir, error)))
    return FALSE;
  return graph->discard_state || compare_fingerprint (graph, &was, &now, error);
}

/**
 * accel_graph_set_discard_state:
 * @graph: a graph that is not running
 * @discard: whether to discard what the state directory holds
 *
 * With @discard, the graph's next start drops what its state directory
 * (accel_graph_set_state_dir()) holds of earlier runs (commit logs,
 * checkpoints, fingerprint) and starts over, as with a new directory; for
 * a state directory that holds another pipeline's state, or one whose
 * outputs were changed since.
 *
 * Called from the thread that builds the graph, before accel_graph_start().
 */
void
accel_graph_set_discard_state (AccelGraph *graph, gboolean discard)
{
  g_return_if_fail (ACCEL_IS_GRAPH (graph));
  g_return_if_fail (graph->state != GRAPH_RUNNING);
  graph->discard_state = discard;
}
