/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: what the element tests share: the backend they run on */
#pragma once

#include <cuda_runtime_api.h>
#include <gst/gst.h>

#define ELEMENTS_TEST_SKIP 77

/* initialises GLib's tests and GStreamer; returns whether the elements run
 * on a GPU: without ACCEL_BACKEND=host one is required, and a run without
 * one exits as skipped */
static inline gboolean
elements_test_init (int *argc, char ***argv)
{
  gboolean want_gpu = g_strcmp0 (g_getenv ("ACCEL_BACKEND"), "host") != 0;
  int n = 0;

  g_test_init (argc, argv, NULL);
  gst_init (argc, argv);
  if (!want_gpu)
    return FALSE;
  if (cudaGetDeviceCount (&n) != cudaSuccess || n == 0)
    {
      g_printerr ("no GPU: skipped\n");
      exit (ELEMENTS_TEST_SKIP);
    }
  return TRUE;
}

/* whether GStreamer has the element @factory; without it the test is
 * skipped, saying so, but under CI, which installs it (.ci/run), where its
 * absence fails the test */
static inline gboolean
elements_test_have (const char *factory)
{
  GstElementFactory *f = gst_element_factory_find (factory);

  if (f)
    {
      gst_object_unref (f);
      return TRUE;
    }
  g_assert_null (g_getenv ("CI"));
  g_test_skip_printf ("GStreamer has no element '%s' here", factory);
  return FALSE;
}
