/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the stage kinds each plugin file registers, kept between
 * processes. Loading every plugin made each process map every CUDA
 * library (cuDNN, cuBLAS, cuFFT, NCCL, ...) whatever stages it ran:
 * about 1 s and 320 MB before the first frame. A plugin whose file is as
 * the cache saw it (its size, time and build ID) is loaded only when a
 * kind of it is asked for. A plugin that failed to load is not kept: it
 * is tried again by the next process, whose host may have its library */
#define G_LOG_DOMAIN "accel-registry"

#include "accel-private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

/* a group of another version is read as no entry */
#define CACHE_VERSION 1
#define META_GROUP "accel registry cache"

/**
 * accel_registry_cache_path:
 *
 * `ACCEL_REGISTRY` names the cache file; set empty, no cache is used and
 * every plugin is loaded. Unset, the file is `accel-1.0/registry.cache`
 * in the user's cache directory (`$XDG_CACHE_HOME`, `~/.cache`).
 *
 * Returns: (transfer full) (nullable): the cache's file, or %NULL.
 */
gchar *
accel_registry_cache_path (void)
{
  const char *named = g_getenv ("ACCEL_REGISTRY");

  if (named)
    return *named ? g_strdup (named) : NULL;
  return g_build_filename (
      g_get_user_cache_dir (), "accel-1.0", "registry.cache", NULL);
}

/**
 * accel_registry_cache_read:
 * @path: (nullable): the cache's file
 *
 * Returns: (transfer full): its entries; none for a file that is missing,
 *   unreadable, of another version or not a cache at all (said at debug
 *   level: it is written again).
 */
GKeyFile *
accel_registry_cache_read (const char *path)
{
  GKeyFile *cache = g_key_file_new ();
  g_autoptr (GError) error = NULL;

  if (!path)
    return cache;
  if (!g_key_file_load_from_file (cache, path, G_KEY_FILE_NONE, &error)
      || g_key_file_get_integer (cache, META_GROUP, "version", NULL)
             != CACHE_VERSION)
    {
      g_debug ("registry cache %s not used: %s", path,
          error ? error->message : "not of this version");
      g_key_file_unref (cache);
      cache = g_key_file_new ();
    }
  return cache;
}

/* @plugin's entry: its file's real name, the same from every program
 * (build/tests/../plugins/core and build/plugins/core are one file). A
 * key file's group name cannot hold brackets or control characters, and
 * its text is UTF-8: a plugin of another name is not kept (%NULL) */
static gchar *
entry_name (const char *plugin)
{
  g_autofree gchar *real = realpath (plugin, NULL);

  if (!real || !g_utf8_validate (real, -1, NULL) || strpbrk (real, "[]"))
    return NULL;
  for (const char *c = real; *c; c++)
    if (g_ascii_iscntrl (*c))
      return NULL;
  return g_steal_pointer (&real);
}

static gint64
mtime_ns (const GStatBuf *st)
{
  return (gint64)st->st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000)
         + st->st_mtim.tv_nsec;
}

/**
 * accel_registry_cache_lookup:
 * @cache: the cache's entries
 * @plugin: a plugin's file
 * @st: its status now
 * @build_id: (nullable): its build ID now
 *
 * Returns: (transfer full) (nullable): the kinds @plugin registered when
 *   its file was as it is now, or %NULL when the cache has no such entry.
 */
gchar **
accel_registry_cache_lookup (GKeyFile *cache, const char *plugin,
    const GStatBuf *st, const char *build_id)
{
  g_autofree gchar *entry = entry_name (plugin), *id = NULL;

  if (!entry || !g_key_file_has_group (cache, entry))
    return NULL;
  id = g_key_file_get_string (cache, entry, "build-id", NULL);
  if (g_key_file_get_int64 (cache, entry, "size", NULL) != st->st_size
      || g_key_file_get_int64 (cache, entry, "mtime-ns", NULL) != mtime_ns (st)
      || g_strcmp0 (id, build_id ? build_id : "") != 0)
    return NULL;
  return g_key_file_get_string_list (cache, entry, "kinds", NULL, NULL);
}

/**
 * accel_registry_cache_set:
 * @cache: the cache's entries
 * @plugin: a plugin's file, loaded
 * @st: its status when it was loaded
 * @build_id: (nullable): its build ID
 * @kinds: (element-type utf8): the kinds it registered
 *
 * Keeps what @plugin registered for the next process.
 */
void
accel_registry_cache_set (GKeyFile *cache, const char *plugin,
    const GStatBuf *st, const char *build_id, GPtrArray *kinds)
{
  g_autofree gchar *entry = entry_name (plugin);

  if (!entry)
    return;
  g_key_file_remove_group (cache, entry, NULL);
  g_key_file_set_int64 (cache, entry, "size", st->st_size);
  g_key_file_set_int64 (cache, entry, "mtime-ns", mtime_ns (st));
  g_key_file_set_string (cache, entry, "build-id", build_id ? build_id : "");
  g_key_file_set_string_list (
      cache, entry, "kinds", (const gchar *const *)kinds->pdata, kinds->len);
}

/**
 * accel_registry_cache_write:
 * @cache: the cache's entries
 * @path: the cache's file
 *
 * Writes @cache whole, in place of @path at once (processes that start
 * together each write a whole file), without the entries of plugins no
 * longer there. A cache that cannot be written is said at debug level:
 * the next process loads every plugin again, as without one.
 */
void
accel_registry_cache_write (GKeyFile *cache, const char *path)
{
  g_auto (GStrv) groups = g_key_file_get_groups (cache, NULL);
  g_autofree gchar *dir = g_path_get_dirname (path);
  g_autoptr (GError) error = NULL;

  for (guint i = 0; groups[i]; i++)
    if (!g_str_equal (groups[i], META_GROUP)
        && !g_file_test (groups[i], G_FILE_TEST_IS_REGULAR))
      g_key_file_remove_group (cache, groups[i], NULL);
  g_key_file_set_comment (cache, NULL, NULL,
      " the stage kinds of accel's plugins, by file: remove it at will", NULL);
  g_key_file_set_integer (cache, META_GROUP, "version", CACHE_VERSION);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    g_debug ("registry cache %s not written: %s", path, g_strerror (errno));
  else if (!g_key_file_save_to_file (cache, path, &error))
    g_debug ("registry cache %s not written: %s", path, error->message);
}
