/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* what the io plugin's tests share: scratch directories, graphs, PNG files */
#pragma once

#include "accel-test.h"

#include <glib/gstdio.h>
#ifdef ACCEL_IO_HAVE_PNG
#include <png.h>
#endif

/* a new empty directory; remove it with test_dir_remove() */
static inline gchar *
test_dir_new (void)
{
  g_autoptr (GError) error = NULL;
  gchar *dir = g_dir_make_tmp ("accel-io-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

/* removes @dir and the files in it */
static inline void
test_dir_remove (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d && (name = g_dir_read_name (d)))
    {
      g_autofree gchar *path = g_build_filename (dir, name, NULL);
      g_assert_cmpint (g_unlink (path), ==, 0);
    }
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

static inline guint
test_dir_count (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  while (d && g_dir_read_name (d))
    n++;
  return n;
}

static inline void
test_link (AccelGraph *g, const char *a, const char *b)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (accel_graph_link (g, a, b, &error));
  g_assert_no_error (error);
}

static inline void
test_run (AccelGraph *g)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (accel_graph_run (g, &error));
  g_assert_no_error (error);
}

static inline gchar *
test_digest (AccelStage *checksum_sink)
{
  return accel_checksum_sink_dup_digest (checksum_sink);
}

#ifdef ACCEL_IO_HAVE_PNG
/* a PNG file's pixels in its own format (PNG_FORMAT_RGBA, _GRAY...) */
static inline guint8 *
test_png_read (const char *path, guint *width, guint *height, guint *format)
{
  png_image image = { 0 };
  guint8 *pixels;

  image.version = PNG_IMAGE_VERSION;
  g_assert_true (png_image_begin_read_from_file (&image, path));
  pixels = g_malloc (PNG_IMAGE_SIZE (image));
  g_assert_true (png_image_finish_read (&image, NULL, pixels, 0, NULL));
  *width = image.width;
  *height = image.height;
  *format = image.format;
  png_image_free (&image);
  return pixels;
}
#endif
