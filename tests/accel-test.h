/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* shared helpers of the test programs */
#pragma once

#include <accel/accel.h>
#include <glib/gstdio.h>
/* a core.checksum-sink's results */
#include "accelcore.h"

/* exit status that meson reports as SKIP */
#define ACCEL_TEST_SKIP 77

/* gpu-suite programs call this first: SKIP unless a CUDA device is usable */
static inline void
accel_test_require_gpu (void)
{
  if (accel_backend_get_default () != ACCEL_BACKEND_CUDA)
    {
      g_print ("no usable CUDA device: skipping\n");
      exit (ACCEL_TEST_SKIP);
    }
}

/* a stage of @kind named @name, or abort the test */
static inline AccelStage *
accel_test_stage (AccelGraph *graph, const char *kind, const char *name)
{
  g_autoptr (GError) error = NULL;
  AccelStage *stage = accel_stage_new (kind, name, &error);

  g_assert_no_error (error);
  g_assert_true (accel_graph_add (graph, stage, &error));
  g_assert_no_error (error);
  g_object_unref (stage);
  return stage;
}

/* waits until @stage has processed @n frames; fails the test after a
 * minute */
static inline void
accel_test_wait_processed (AccelStage *stage, guint64 n)
{
  gint64 end = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  while (accel_stage_get_n_processed (stage) < n)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, end);
      g_usleep (200);
    }
}

/* removes @dir and everything in it (what a test run and the libraries it
 * loaded wrote there) */
static inline void
accel_test_remove_tree (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d && (name = g_dir_read_name (d)))
    {
      g_autofree gchar *path = g_build_filename (dir, name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_DIR)
          && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
        accel_test_remove_tree (path);
      else
        g_assert_cmpint (g_remove (path), ==, 0);
    }
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}
