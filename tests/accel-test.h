/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* shared helpers of the test programs */
#pragma once

#include <accel/accel.h>
#include <glib/gstdio.h>
#include <gobject/gvaluecollector.h>
#include <string.h>
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

/* under a compute-sanitizer test setup (`meson test --setup memcheck`):
 * a test that faults on purpose, or that needs kernels to race, reports
 * SKIP and why. The sanitizer reports a deliberate fault as an error of
 * its own (and turns it into a launch failure), and it runs one kernel at
 * a time, so that a missing wait need not race */
#define ACCEL_TEST_RACE_WHY "the sanitizer runs one kernel at a time"
#define ACCEL_TEST_FAULT_WHY "it faults on purpose"

static inline gboolean
accel_test_skip_under_sanitizer (const char *why)
{
  const char *tool = g_getenv ("ACCEL_TEST_SANITIZER");
  g_autofree gchar *message = NULL;

  if (!tool || !*tool)
    return FALSE;
  message = g_strdup_printf ("under compute-sanitizer's %s: %s", tool, why);
  g_test_skip (message);
  return TRUE;
}

/* runs a test's pipeline as @run describes it; returns its sink's digest */
typedef gchar *(*AccelTestDigestFunc) (gconstpointer run);

/* @digest of @run gives @host's result, and a different one with the
 * engine's @skip waits switched off: the waits are what makes it exact.
 * Under compute-sanitizer only the first half runs */
static inline void
accel_test_assert_waits_matter (AccelTestDigestFunc digest, gconstpointer run,
    const char *host, AccelDebugFlags skip)
{
  g_autofree gchar *synced = digest (run);
  g_autofree gchar *raced = NULL;

  g_assert_cmpstr (synced, ==, host);
  if (accel_test_skip_under_sanitizer ("the raced run: " ACCEL_TEST_RACE_WHY))
    return;
  accel_debug_set_flags (skip);
  raced = digest (run);
  accel_debug_set_flags (ACCEL_DEBUG_NONE);
  g_test_message ("raced %s", raced);
  g_assert_cmpstr (raced, !=, host);
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

/* accel_stage_set_param_async () of parameter @name to the value after it,
 * of the parameter's own type (a gboolean, a guint, ...), which the stage
 * must take */
static inline void
accel_test_set_param_async (AccelStage *stage, const char *name, ...)
{
  GParamSpec *pspec
      = g_object_class_find_property (G_OBJECT_GET_CLASS (stage), name);
  g_auto (GValue) value = G_VALUE_INIT;
  g_autofree gchar *problem = NULL;
  va_list ap;

  g_assert_nonnull (pspec);
  va_start (ap, name);
  G_VALUE_COLLECT_INIT (&value, pspec->value_type, ap, 0, &problem);
  va_end (ap);
  g_assert_null (problem);
  g_assert_true (accel_stage_set_param_async (stage, name, &value));
}

/* the process's resident bytes, from /proc/self/status (VmRSS: this
 * machine's MemAvailable does not see pages as they are touched) */
static inline gint64
accel_test_resident_bytes (void)
{
  g_autofree gchar *status = NULL;
  const char *line;

  g_assert_true (
      g_file_get_contents ("/proc/self/status", &status, NULL, NULL));
  line = strstr (status, "\nVmRSS:");
  g_assert_nonnull (line);
  return (gint64)g_ascii_strtoull (line + strlen ("\nVmRSS:"), NULL, 10) * 1024;
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
