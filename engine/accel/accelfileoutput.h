/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: a sink whose output is files that outlive the process */
#pragma once

#include <accel/accelcommitlog.h>
#include <accel/accelstage.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_FILE_OUTPUT (accel_file_output_get_type ())
G_DECLARE_INTERFACE (
    AccelFileOutput, accel_file_output, ACCEL, FILE_OUTPUT, AccelStage)

/**
 * AccelFileOutputInterface:
 * @get_path: the file the stage writes first (for a pattern, the one of
 *   sequence 0), or %NULL when it writes none, from its properties alone.
 *   Prepare checks that it can be written. Called from the thread that
 *   builds the graph, before the stage negotiates and after.
 * @writes_name: for a stage that writes a file per frame (a name pattern):
 *   whether @name, a file name without its directory, is one of the files
 *   it writes in the directory of @get_path's. %NULL: it writes the one
 *   file @get_path says. Called from the thread that builds the graph,
 *   before the stage negotiates and after.
 * @verify: compares what the output holds with @log, the commit log of an
 *   earlier run, and takes out of @log (accel_commit_log_forget()) every
 *   sequence whose output is missing, cut short or out of order, so that
 *   it is produced again. Sets @what to a sentence saying what was found
 *   when it took anything out. Returns %FALSE when the output cannot be
 *   checked or repaired that way. Called from the thread that starts the
 *   graph, before the stage starts.
 *
 * Implemented by stages that write files (sinks; a source whose
 * description records what it reads), so that a graph checks their
 * locations when it is prepared and, resuming from a state directory,
 * what the files hold against the commit logs.
 */
struct _AccelFileOutputInterface
{
  GTypeInterface parent_iface;

  gchar *(*get_path) (AccelFileOutput *output);
  gboolean (*writes_name) (AccelFileOutput *output, const char *name);
  gboolean (*verify) (AccelFileOutput *output, AccelCommitLog *log,
      gchar **what, GError **error);
};

gchar *accel_file_output_get_path (AccelFileOutput *output);
gchar *accel_file_output_dup_identity (AccelFileOutput *output);
gchar *accel_stage_dup_input_file_identity (AccelStage *stage, gchar **path);
gboolean accel_file_output_writes (AccelFileOutput *output, const char *path);
gboolean accel_file_output_check_path (AccelFileOutput *output, GError **error);
gboolean accel_file_output_check_writable (
    AccelStage *stage, const char *path, GError **error);
gboolean accel_file_output_verify (
    AccelFileOutput *output, AccelCommitLog *log, gchar **what, GError **error);
gboolean accel_file_output_keep_in_order (AccelCommitLog *log,
    const char *location, guint64 n_whole, gchar **what, GError **error);
int accel_file_output_open_fifo (
    AccelStage *stage, const char *path, gint64 timeout_ms, GError **error);
int accel_file_output_dup_std (const char *location);
gboolean accel_file_output_check_kept (
    AccelStage *stage, int fd, const char *path, GError **error);
gboolean accel_file_output_check_length (AccelStage *stage, int fd,
    const char *path, goffset written, GError **error);

G_END_DECLS
