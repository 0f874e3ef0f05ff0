/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the registry of stage kinds and the plugin modules that add them */
#define G_LOG_DOMAIN "accel-registry"

#include "accel-private.h"

#include <dlfcn.h>
#include <errno.h>
#include <gmodule.h>
#include <string.h>

struct _AccelRegistry
{
  GObject parent;

  GMutex lock;
  GHashTable *kinds;   /* kind name -> GType */
  GHashTable *modules; /* file name -> GModule, never unloaded */
  GHashTable *builds;  /* build ID -> the path of the plugin loaded */
  /* plugins found and not loaded yet, whose kinds the cache knows */
  GHashTable *lazy;           /* kind name -> the path of its plugin */
  GHashTable *pending;        /* file name -> its path */
  GHashTable *pending_builds; /* build ID -> its path */
  GHashTable *unloadable;     /* file name -> why it could not be loaded */
  /* one plugin loads at a time: a kind asked for from two threads loads
   * its plugin once. Recursive: a plugin's registration may look up kinds
   * of another */
  GRecMutex load_lock;
};

/* the cache as the registry is made, and whether it gained entries */
typedef struct
{
  GKeyFile *cache;
  gboolean changed;
} Scan;

G_DEFINE_FINAL_TYPE (AccelRegistry, accel_registry, G_TYPE_OBJECT)

/* the kinds the plugin this thread is loading has registered so far
 * (gchar*), or NULL outside accel_registry_load_plugin () */
static GPrivate loading_kinds;

static void
accel_registry_class_init (AccelRegistryClass *klass)
{
}

static void
accel_registry_init (AccelRegistry *self)
{
  g_mutex_init (&self->lock);
  self->kinds = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->modules = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->builds
      = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->lazy = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->pending
      = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->pending_builds
      = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->unloadable
      = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_rec_mutex_init (&self->load_lock);
}

static gint cmp_names (gconstpointer a, gconstpointer b);
static gboolean load_module (AccelRegistry *registry, const char *path,
    GPtrArray **kinds, GError **error);

/* a plugin that could not be loaded: a library this host lacks (cuDNN)
 * leaves its plugin out, as designed; a broken plugin is a message. Both
 * are kept for the error of a kind of it asked for */
static void
say_not_loaded (AccelRegistry *self, const char *path, const GError *error)
{
  /* the path once: most errors of a plugin file name it */
  g_autofree gchar *why = strstr (error->message, path)
                              ? g_strdup (error->message)
                              : g_strdup_printf ("plugin %s not loaded: %s",
                                  path, error->message);

  if (g_error_matches (error, ACCEL_ERROR, ACCEL_ERROR_NOT_SUPPORTED))
    g_debug ("%s", why);
  else
    g_message ("%s", why);
  g_mutex_lock (&self->lock);
  g_hash_table_insert (
      self->unloadable, g_path_get_basename (path), g_steal_pointer (&why));
  g_mutex_unlock (&self->lock);
}

/* @path's kinds taken from the cache, for the plugin to be loaded when
 * one is asked for; a kind another plugin before it has stays that one's */
static void
add_pending (
    AccelRegistry *self, const char *path, const char *build_id, gchar **kinds)
{
  g_mutex_lock (&self->lock);
  for (guint i = 0; kinds[i]; i++)
    if (!g_hash_table_contains (self->kinds, kinds[i])
        && !g_hash_table_contains (self->lazy, kinds[i]))
      g_hash_table_insert (self->lazy, g_strdup (kinds[i]), g_strdup (path));
  g_hash_table_insert (
      self->pending, g_path_get_basename (path), g_strdup (path));
  if (build_id)
    g_hash_table_insert (
        self->pending_builds, g_strdup (build_id), g_strdup (path));
  g_mutex_unlock (&self->lock);
}

/* whether a plugin of file name @name was found already, loaded or not */
static gboolean
has_name (AccelRegistry *self, const char *name)
{
  gboolean found;

  g_mutex_lock (&self->lock);
  found = g_hash_table_contains (self->pending, name)
          || g_hash_table_contains (self->modules, name);
  g_mutex_unlock (&self->lock);
  return found;
}

/* the path of the plugin of build @build_id found already, loaded or not,
 * or NULL */
static gchar *
dup_build (AccelRegistry *self, const char *build_id)
{
  gchar *path;

  g_mutex_lock (&self->lock);
  path = g_strdup (g_hash_table_lookup (self->pending_builds, build_id));
  if (!path)
    path = g_strdup (g_hash_table_lookup (self->builds, build_id));
  g_mutex_unlock (&self->lock);
  return path;
}

/* a plugin file found as the registry is made: the first of its name and
 * of its build is taken, from the cache as it was when it last loaded,
 * or loaded now and kept in the cache */
static void
scan_plugin (AccelRegistry *self, const char *path, Scan *scan)
{
  g_autofree gchar *name = g_path_get_basename (path), *build_id = NULL;
  g_autofree gchar *copy_of = NULL;
  g_auto (GStrv) cached = NULL;
  g_autoptr (GPtrArray) kinds = NULL;
  g_autoptr (GError) error = NULL;
  GStatBuf st;

  /* by file name: a build-tree plugin in ACCEL_PLUGIN_PATH shadows the
   * installed one of the same name, which would register the same types */
  if (has_name (self, name))
    return;
  if (g_stat (path, &st) != 0
      || !accel_plugin_file_check (path, &build_id, &error))
    {
      if (!error)
        g_set_error (&error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
            "cannot load plugin %s: %s", path, g_strerror (errno));
      say_not_loaded (self, path, error);
      return;
    }
  /* a copy of a plugin would register its types again */
  if (build_id && (copy_of = dup_build (self, build_id)))
    {
      g_message ("plugin %s is a copy of %s, which is loaded already: "
                 "not loaded again",
          path, copy_of);
      return;
    }
  if (scan->cache
      && (cached
          = accel_registry_cache_lookup (scan->cache, path, &st, build_id)))
    add_pending (self, path, build_id, cached);
  else if (load_module (self, path, &kinds, &error))
    {
      if (scan->cache)
        accel_registry_cache_set (scan->cache, path, &st, build_id, kinds);
      scan->changed = TRUE;
    }
  else
    say_not_loaded (self, path, error);
}

/* @named: a directory the user named (ACCEL_PLUGIN_PATH), said when it
 * cannot be read: a name mistyped there left its stage kinds unknown
 * without a hint. Not an error, as with GST_PLUGIN_PATH. Its plugins in
 * the order of their names, so that the first of two with a kind is the
 * same on every host */
static void
load_plugins_from (
    AccelRegistry *self, const char *dir, gboolean named, Scan *scan)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) entries = g_ptr_array_new_with_free_func (g_free);
  const char *entry;

  if (!d && named)
    g_message ("ACCEL_PLUGIN_PATH names %s, which is no directory this "
               "process can read (%s): no plugins are loaded from it",
        dir, g_strerror (errno));
  if (!d)
    return;
  while ((entry = g_dir_read_name (d)))
    if (g_str_has_prefix (entry, "libaccel")
        && g_str_has_suffix (entry, "." G_MODULE_SUFFIX))
      g_ptr_array_add (entries, g_build_filename (dir, entry, NULL));
  g_ptr_array_sort (entries, cmp_names);
  for (guint i = 0; i < entries->len; i++)
    scan_plugin (self, entries->pdata[i], scan);
}

/* a library in a build tree (build/engine/) finds the plugins built beside
 * it (build/plugins/<name>/), so programs run uninstalled just work */
static void
load_build_tree_plugins (AccelRegistry *self, Scan *scan)
{
  Dl_info info;
  g_autofree gchar *libdir = NULL, *plugins = NULL;
  g_autoptr (GDir) d = NULL;
  const char *entry;

  if (!dladdr ((void *)load_build_tree_plugins, &info) || !info.dli_fname)
    return;
  libdir = g_path_get_dirname (info.dli_fname);
  plugins = g_build_filename (libdir, "..", "plugins", NULL);
  if (!g_str_has_suffix (libdir, G_DIR_SEPARATOR_S "engine")
      || !(d = g_dir_open (plugins, 0, NULL)))
    return;
  while ((entry = g_dir_read_name (d)))
    {
      g_autofree gchar *dir = g_build_filename (plugins, entry, NULL);
      if (g_file_test (dir, G_FILE_TEST_IS_DIR))
        load_plugins_from (self, dir, FALSE, scan);
    }
}

static gpointer
registry_init (gpointer data)
{
  AccelRegistry *self = g_object_new (ACCEL_TYPE_REGISTRY, NULL);
  const char *path = g_getenv ("ACCEL_PLUGIN_PATH");
  g_autofree gchar *cache_path = accel_registry_cache_path ();
  Scan scan = {
    .cache = cache_path ? accel_registry_cache_read (cache_path) : NULL,
  };

  accel_registry_register (self, ACCEL_TYPE_MEMCPY);
  if (path)
    {
      g_auto (GStrv) dirs = g_strsplit (path, G_SEARCHPATH_SEPARATOR_S, -1);
      for (guint i = 0; dirs[i]; i++)
        if (*dirs[i])
          load_plugins_from (self, dirs[i], TRUE, &scan);
    }
  if (!g_getenv ("ACCEL_PLUGIN_PATH_ONLY"))
    {
      load_build_tree_plugins (self, &scan);
      load_plugins_from (self, ACCEL_PLUGIN_DIR, FALSE, &scan);
    }
  if (scan.cache && scan.changed)
    accel_registry_cache_write (scan.cache, cache_path);
  g_clear_pointer (&scan.cache, g_key_file_unref);
  return self;
}

/* loads the plugin found at @path as the registry was made, unless it is
 * loaded already; one that cannot be loaded now is said as it was then */
static void
load_pending (AccelRegistry *self, const char *path)
{
  g_autoptr (GError) error = NULL;

  if (!load_module (self, path, NULL, &error))
    say_not_loaded (self, path, error);
}

/* the file name of the plugin named after @kind_name's namespace
 * (libaccelio.so for io.*), or NULL for a name of no namespace */
static gchar *
namespace_plugin (const char *kind_name)
{
  const char *dot = strchr (kind_name, '.');
  g_autofree gchar *ns = NULL;

  if (!dot || dot == kind_name)
    return NULL;
  ns = g_strndup (kind_name, dot - kind_name);
  return g_strconcat ("libaccel", ns, "." G_MODULE_SUFFIX, NULL);
}

/* the plugin that has @kind_name and is not loaded yet: the one the cache
 * says, else the one named after the kind's namespace, which may have
 * kinds its cached entry lacks (those it registers only where their
 * library works, such as GStreamer's) */
static gchar *
dup_pending_plugin (AccelRegistry *self, const char *kind_name)
{
  const char *path = g_hash_table_lookup (self->lazy, kind_name);
  g_autofree gchar *file = NULL;

  if (!path && (file = namespace_plugin (kind_name)))
    path = g_hash_table_lookup (self->pending, file);
  return g_strdup (path);
}

/* @kind_name's type, or G_TYPE_INVALID and in @plugin the plugin not
 * loaded yet that would have it (or NULL) */
static GType
find_kind (AccelRegistry *self, const char *kind_name, gchar **plugin)
{
  GType type;

  g_mutex_lock (&self->lock);
  type = GPOINTER_TO_SIZE (g_hash_table_lookup (self->kinds, kind_name));
  *plugin = type ? NULL : dup_pending_plugin (self, kind_name);
  g_mutex_unlock (&self->lock);
  return type;
}

/**
 * accel_registry_get_default:
 *
 * The registry holds the built-in stage kind (core.memcpy, which the graph
 * inserts) and those of the plugin modules in the directories of
 * `ACCEL_PLUGIN_PATH` (separated by ':'), then (unless
 * `ACCEL_PLUGIN_PATH_ONLY` is set) those built beside an uninstalled library
 * and those of the installed plugin directory. A plugin is loaded when the
 * registry is first used, or, when a cache (`ACCEL_REGISTRY`) knows its
 * file as it is, when one of its kinds is first asked for.
 *
 * Returns: (transfer none): the process's registry. MT safe.
 */
AccelRegistry *
accel_registry_get_default (void)
{
  static GOnce once = G_ONCE_INIT;

  return g_once (&once, registry_init, NULL);
}

/**
 * accel_registry_register:
 * @registry: a registry
 * @stage_type: a non-abstract #AccelStage subclass with a kind name
 *
 * Makes @stage_type creatable by its kind name. A kind name another type
 * has is refused with a warning, and so is one that a description could
 * not name (anything but letters, digits, '.', '-' and '_'): it replaced
 * the first for the whole process, a plugin's built-in kinds included.
 * MT safe.
 */
void
accel_registry_register (AccelRegistry *registry, GType stage_type)
{
  AccelStageClass *klass;
  const char *name;
  GType had;

  g_return_if_fail (ACCEL_IS_REGISTRY (registry));
  g_return_if_fail (g_type_is_a (stage_type, ACCEL_TYPE_STAGE));

  klass = g_type_class_ref (stage_type);
  name = accel_stage_class_get_kind_name (klass);
  g_return_if_fail (name != NULL);
  if (!*name
      || name[strspn (name,
          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
          "0123456789.-_")])
    {
      g_warning ("stage kind '%s' (%s) is not registered: a kind name is "
                 "letters, digits, '.', '-' and '_'",
          name, g_type_name (stage_type));
      return;
    }
  /* the plugin found first with the name has it, as if loaded already */
  (void)accel_registry_lookup (registry, name);
  g_mutex_lock (&registry->lock);
  had = GPOINTER_TO_SIZE (g_hash_table_lookup (registry->kinds, name));
  if (!had)
    g_hash_table_insert (
        registry->kinds, g_strdup (name), GSIZE_TO_POINTER (stage_type));
  g_mutex_unlock (&registry->lock);
  if (had && had != stage_type)
    {
      g_warning ("stage kind '%s' is %s already: %s is not registered", name,
          g_type_name (had), g_type_name (stage_type));
      return;
    }
  if (g_private_get (&loading_kinds))
    g_ptr_array_add (g_private_get (&loading_kinds), g_strdup (name));
  g_debug ("registered %s", name);
  /* the class stays referenced: kinds are never unregistered */
}

/**
 * accel_registry_lookup:
 * @registry: a registry
 * @kind_name: a kind name such as "core.scale"
 *
 * Returns: the stage type, or %G_TYPE_INVALID. MT safe.
 */
GType
accel_registry_lookup (AccelRegistry *registry, const char *kind_name)
{
  GType type;
  g_autofree gchar *plugin = NULL;

  g_return_val_if_fail (ACCEL_IS_REGISTRY (registry), G_TYPE_INVALID);
  g_return_val_if_fail (kind_name != NULL, G_TYPE_INVALID);
  type = find_kind (registry, kind_name, &plugin);
  /* a plugin another thread loads has taken its kinds out of the pending
   * ones before it registered them all (one found unknown then): a miss
   * waits for the load under way, and looks again */
  if (!type && !plugin)
    {
      g_rec_mutex_lock (&registry->load_lock);
      type = find_kind (registry, kind_name, &plugin);
      g_rec_mutex_unlock (&registry->load_lock);
    }
  if (!plugin)
    return type;
  load_pending (registry, plugin);
  g_mutex_lock (&registry->lock);
  type = GPOINTER_TO_SIZE (g_hash_table_lookup (registry->kinds, kind_name));
  g_mutex_unlock (&registry->lock);
  return type;
}

static gint
cmp_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char *const *)a, *(const char *const *)b);
}

/**
 * accel_registry_list_kinds:
 * @registry: a registry
 *
 * Returns: (transfer container) (element-type utf8): the kind names,
 *   sorted; the array frees them.
 * MT safe.
 */
GPtrArray *
accel_registry_list_kinds (AccelRegistry *registry)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  GHashTableIter it;
  gpointer key;

  g_return_val_if_fail (ACCEL_IS_REGISTRY (registry), names);
  g_mutex_lock (&registry->lock);
  g_hash_table_iter_init (&it, registry->kinds);
  while (g_hash_table_iter_next (&it, &key, NULL))
    g_ptr_array_add (names, g_strdup (key));
  /* those of plugins not loaded yet, as the cache has them */
  g_hash_table_iter_init (&it, registry->lazy);
  while (g_hash_table_iter_next (&it, &key, NULL))
    if (!g_hash_table_contains (registry->kinds, key))
      g_ptr_array_add (names, g_strdup (key));
  g_mutex_unlock (&registry->lock);
  g_ptr_array_sort (names, cmp_names);
  return names;
}

/**
 * accel_registry_suggest:
 * @registry: a registry
 * @kind_name: a kind name that was not found
 *
 * Returns: (transfer container) (element-type utf8): up to three registered
 * names nearest to @kind_name (by edit distance, or sharing its part after the
 * dot), nearest first. MT safe.
 */
GPtrArray *
accel_registry_suggest (AccelRegistry *registry, const char *kind_name)
{
  g_autoptr (GPtrArray) all = NULL;
  g_autofree guint *dists = NULL;
  GPtrArray *best;
  const char *tail;
  gsize len, longest = 0;
  guint limit;

  g_return_val_if_fail (ACCEL_IS_REGISTRY (registry), NULL);
  g_return_val_if_fail (kind_name != NULL, NULL);

  all = accel_registry_list_kinds (registry);
  best = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < all->len; i++)
    longest = MAX (longest, strlen (all->pdata[i]));
  /* a name far longer than any kind is no misspelling of one: its edit
   * distances cost its length times theirs (100 000 bytes took minutes) */
  len = strlen (kind_name);
  if (len > longest + 8)
    return best;
  tail = strchr (kind_name, '.');
  limit = MAX (2, (guint)len / 3);
  dists = g_new (guint, all->len);
  for (guint i = 0; i < all->len; i++)
    {
      const char *name = all->pdata[i];
      const char *ntail = strchr (name, '.');

      dists[i] = accel_str_edit_distance (kind_name, name);
      /* the same kind in another plugin, or without its plugin ("scale") */
      if (ntail
          && (tail ? g_str_equal (tail, ntail)
                   : g_str_equal (kind_name, ntail + 1)))
        dists[i] = MIN (dists[i], 1);
    }
  for (guint d = 0; d <= limit && best->len < 3; d++)
    for (guint i = 0; i < all->len && best->len < 3; i++)
      if (dists[i] == d)
        g_ptr_array_add (best, g_strdup (all->pdata[i]));
  return best;
}

/* the plugin found as the registry was made that is @path's build: @path
 * is a copy of it, and it is loaded first, so that the copy is not */
static void
load_pending_original (
    AccelRegistry *registry, const char *path, const char *build_id)
{
  g_autofree gchar *original = NULL;

  g_mutex_lock (&registry->lock);
  original
      = g_strdup (g_hash_table_lookup (registry->pending_builds, build_id));
  g_mutex_unlock (&registry->lock);
  if (original && !g_str_equal (original, path))
    load_pending (registry, original);
}

/* the plugin of file name @base, of build @build_id, is loading: the
 * kinds the cache gave the one found of that name are its own to register
 * (a name is loaded once), and nothing looking one up loads it again */
static void
take_from_pending (
    AccelRegistry *registry, const char *base, const char *build_id)
{
  const char *found;
  GHashTableIter it;
  gpointer value;

  g_mutex_lock (&registry->lock);
  found = g_hash_table_lookup (registry->pending, base);
  g_hash_table_iter_init (&it, registry->lazy);
  while (found && g_hash_table_iter_next (&it, NULL, &value))
    if (g_str_equal (value, found))
      g_hash_table_iter_remove (&it);
  if (build_id)
    g_hash_table_remove (registry->pending_builds, build_id);
  g_hash_table_remove (registry->pending, base);
  g_mutex_unlock (&registry->lock);
}

static gboolean
open_module (AccelRegistry *registry, const char *path, GPtrArray **kinds,
    GError **error)
{
  g_autofree gchar *base = NULL, *build_id = NULL;
  const char *loaded_as;
  GModule *module;
  AccelPluginRegisterFunc reg;
  gpointer outer;

  /* by file name: a build-tree plugin in ACCEL_PLUGIN_PATH shadows the
   * installed one of the same name, which would register the same types */
  base = g_path_get_basename (path);
  g_mutex_lock (&registry->lock);
  module = g_hash_table_lookup (registry->modules, base);
  g_mutex_unlock (&registry->lock);
  if (module)
    return TRUE;

  if (!accel_plugin_file_check (path, &build_id, error))
    return FALSE;
  /* a copy of a plugin loaded already would register its types again */
  if (build_id)
    load_pending_original (registry, path, build_id);
  g_mutex_lock (&registry->lock);
  loaded_as
      = build_id ? g_hash_table_lookup (registry->builds, build_id) : NULL;
  if (loaded_as)
    g_message ("plugin %s is a copy of %s, which is loaded already: "
               "not loaded again",
        path, loaded_as);
  g_mutex_unlock (&registry->lock);
  if (loaded_as)
    return TRUE;

  module = g_module_open (path, G_MODULE_BIND_LOCAL);
  if (!module)
    {
      const char *why = g_module_error ();

      /* a library it needs that is not there (cuDNN), or a host that
       * cannot load it now: out of descriptors or memory, a plugin
       * broken */
      g_set_error (error, ACCEL_ERROR,
          strstr (why, g_strerror (ENOENT)) ? ACCEL_ERROR_NOT_SUPPORTED
                                            : ACCEL_ERROR_FAILED,
          "cannot load plugin %s: %s", path, why);
      return FALSE;
    }
  if (!g_module_symbol (module, "accel_plugin_register", (gpointer *)&reg))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "%s is not an accel plugin: it has no accel_plugin_register", path);
      g_module_close (module);
      return FALSE;
    }
  take_from_pending (registry, base, build_id);
  /* a plugin whose registration loads another comes back to its own */
  outer = g_private_get (&loading_kinds);
  g_private_set (&loading_kinds, g_ptr_array_new_with_free_func (g_free));
  if (!reg (registry, error))
    {
      g_autoptr (GPtrArray) kinds = g_private_get (&loading_kinds);

      g_private_set (&loading_kinds, outer);
      /* the kinds it registered before it failed are not kept, but their
       * types stay in GLib's type system, their code in the module: it
       * stays loaded (closed, a kind's stage ran code no longer there) */
      g_mutex_lock (&registry->lock);
      for (guint i = 0; i < kinds->len; i++)
        g_hash_table_remove (registry->kinds, kinds->pdata[i]);
      g_mutex_unlock (&registry->lock);
      if (kinds->len > 0)
        g_module_make_resident (module);
      g_module_close (module);
      return FALSE;
    }
  if (kinds)
    *kinds = g_private_get (&loading_kinds);
  else
    g_ptr_array_unref (g_private_get (&loading_kinds));
  g_private_set (&loading_kinds, outer);
  g_module_make_resident (module);
  g_debug ("loaded plugin %s", path);
  g_mutex_lock (&registry->lock);
  g_hash_table_remove (registry->unloadable, base);
  g_hash_table_insert (registry->modules, g_steal_pointer (&base), module);
  if (build_id)
    g_hash_table_insert (
        registry->builds, g_steal_pointer (&build_id), g_strdup (path));
  g_mutex_unlock (&registry->lock);
  return TRUE;
}

/* loads @path (see accel_registry_load_plugin ()); @kinds: (out)
 * (optional): those it registered */
static gboolean
load_module (AccelRegistry *registry, const char *path, GPtrArray **kinds,
    GError **error)
{
  gboolean ok;

  g_rec_mutex_lock (&registry->load_lock);
  ok = open_module (registry, path, kinds, error);
  g_rec_mutex_unlock (&registry->load_lock);
  return ok;
}

/**
 * accel_registry_load_plugin:
 * @registry: a registry
 * @path: a plugin module's file
 * @error: return location for a #GError, or %NULL
 *
 * Loads a module and calls its `accel_plugin_register`. A module file name
 * is loaded once; loading it again, or another file of the same name, does
 * nothing. The module's `accel_plugin_register` runs on the calling thread.
 *
 * Returns: %TRUE on success; %FALSE with %ACCEL_ERROR_NOT_SUPPORTED when
 * the module cannot be opened because a file it needs is missing here (a
 * library such as cuDNN), else with %ACCEL_ERROR_FAILED (opened neither:
 * out of descriptors or memory, a broken module) or its
 * `accel_plugin_register`'s error. MT safe.
 */
gboolean
accel_registry_load_plugin (
    AccelRegistry *registry, const char *path, GError **error)
{
  g_return_val_if_fail (ACCEL_IS_REGISTRY (registry), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  return load_module (registry, path, NULL, error);
}

static gchar *
value_to_string (const GValue *v)
{
  if (G_VALUE_HOLDS_STRING (v))
    return g_strdup_printf (
        "\"%s\"", g_value_get_string (v) ? g_value_get_string (v) : "");
  if (G_VALUE_HOLDS_ENUM (v))
    {
      GEnumValue *ev = g_enum_get_value (
          G_ENUM_CLASS (g_type_class_peek (G_VALUE_TYPE (v))),
          g_value_get_enum (v));
      return g_strdup (ev ? ev->value_nick : "?");
    }
  if (G_VALUE_HOLDS_OBJECT (v))
    return g_strdup ("(default)");
  if (G_VALUE_HOLDS_FLOAT (v))
    return g_strdup_printf ("%g", g_value_get_float (v));
  if (G_VALUE_HOLDS_DOUBLE (v))
    return g_strdup_printf ("%g", g_value_get_double (v));
  return g_strdup_value_contents (v);
}

/* the names a YAML author knows, not GLib's */
static const char *
pspec_type_name (GParamSpec *p)
{
  switch (G_TYPE_FUNDAMENTAL (p->value_type))
    {
    case G_TYPE_STRING:
      return "string";
    case G_TYPE_BOOLEAN:
      return "bool";
    case G_TYPE_INT:
    case G_TYPE_INT64:
    case G_TYPE_LONG:
      return "int";
    case G_TYPE_UINT:
    case G_TYPE_UINT64:
    case G_TYPE_ULONG:
      return "uint";
    case G_TYPE_FLOAT:
    case G_TYPE_DOUBLE:
      return "float";
    case G_TYPE_ENUM:
      return "enum";
    default:
      return g_type_name (p->value_type);
    }
}

/* @v with the fewest digits that read back as it (as a float where
 * @single): "%g" rounded a bound such as 32 / 3 to 10.6667, which the
 * range then refused, and "%f" wrote 1e-7 and 4e-7 alike */
gchar *
accel_real_to_string (double v, gboolean single)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

  for (int digits = 6; digits <= 17; digits++)
    {
      gchar fmt[8];
      double back;

      g_snprintf (fmt, sizeof (fmt), "%%.%dg", digits);
      g_ascii_formatd (buf, sizeof (buf), fmt, v);
      back = g_ascii_strtod (buf, NULL);
      if (single ? (float)back == (float)v : back == v)
        break;
    }
  return g_strdup (buf);
}

/**
 * accel_param_spec_dup_range:
 * @pspec: a stage parameter's spec
 *
 * Returns: (transfer full) (nullable): the values @pspec takes, as text:
 *   "min .. max" for a number, with as many digits as read back as the
 *   bound itself, or "a | b | c" for an enumeration; %NULL for another
 *   type. MT safe.
 */
gchar *
accel_param_spec_dup_range (GParamSpec *pspec)
{
  GString *s;

  g_return_val_if_fail (G_IS_PARAM_SPEC (pspec), NULL);
#define RANGE(T, fmt)                                                          \
  if (G_IS_PARAM_SPEC_##T (pspec))                                             \
    return g_strdup_printf (fmt " .. " fmt, G_PARAM_SPEC_##T (pspec)->minimum, \
        G_PARAM_SPEC_##T (pspec)->maximum);
  RANGE (INT, "%d");
  RANGE (UINT, "%u");
  RANGE (LONG, "%ld");
  RANGE (ULONG, "%lu");
  RANGE (INT64, "%" G_GINT64_FORMAT);
  RANGE (UINT64, "%" G_GUINT64_FORMAT);
#undef RANGE
  if (!G_IS_PARAM_SPEC_DOUBLE (pspec) && !G_IS_PARAM_SPEC_FLOAT (pspec)
      && !G_IS_PARAM_SPEC_ENUM (pspec))
    return NULL;
  s = g_string_new (NULL);
  if (G_IS_PARAM_SPEC_DOUBLE (pspec) || G_IS_PARAM_SPEC_FLOAT (pspec))
    {
      gboolean single = G_IS_PARAM_SPEC_FLOAT (pspec);
      g_autofree gchar *lo
          = accel_real_to_string (single ? G_PARAM_SPEC_FLOAT (pspec)->minimum
                                         : G_PARAM_SPEC_DOUBLE (pspec)->minimum,
              single);
      g_autofree gchar *hi
          = accel_real_to_string (single ? G_PARAM_SPEC_FLOAT (pspec)->maximum
                                         : G_PARAM_SPEC_DOUBLE (pspec)->maximum,
              single);

      g_string_append_printf (s, "%s .. %s", lo, hi);
    }
  else
    {
      GEnumClass *ec = G_PARAM_SPEC_ENUM (pspec)->enum_class;

      for (guint i = 0; i < ec->n_values; i++)
        g_string_append_printf (
            s, "%s%s", i ? " | " : "", ec->values[i].value_nick);
    }
  return g_string_free (s, FALSE);
}

/**
 * accel_registry_dup_load_error:
 * @registry: a registry
 * @kind_name: a kind name that was not found
 *
 * Why the plugin named after @kind_name's namespace (`libacceldnn.so` for
 * `dnn.*`) was found and could not be loaded, such as a library it needs
 * that this host lacks, which is said only at debug level as it happens.
 *
 * Returns: (transfer full) (nullable): the reason, or %NULL when no such
 *   plugin failed to load. MT safe.
 */
gchar *
accel_registry_dup_load_error (AccelRegistry *registry, const char *kind_name)
{
  g_autofree gchar *file = NULL;
  gchar *why;

  g_return_val_if_fail (ACCEL_IS_REGISTRY (registry), NULL);
  g_return_val_if_fail (kind_name != NULL, NULL);

  if (!(file = namespace_plugin (kind_name)))
    return NULL;
  g_mutex_lock (&registry->lock);
  why = g_strdup (g_hash_table_lookup (registry->unloadable, file));
  g_mutex_unlock (&registry->lock);
  return why;
}

/* the error for a kind that is not registered: why its plugin could not
 * be loaded, or the nearest kinds */
static void
set_unknown_kind (
    AccelRegistry *registry, const char *kind_name, GError **error)
{
  g_autofree gchar *why = accel_registry_dup_load_error (registry, kind_name);
  g_autoptr (GPtrArray) near = NULL;
  g_autofree gchar *list = NULL;

  if (why)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "unknown stage kind '%s': %s", kind_name, why);
      return;
    }
  near = accel_registry_suggest (registry, kind_name);
  g_ptr_array_add (near, NULL);
  list = g_strjoinv ("', '", (gchar **)near->pdata);
  if (near->len > 1)
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
        "unknown stage kind '%s' (did you mean '%s'?)", kind_name, list);
  else
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
        "unknown stage kind '%s'", kind_name);
}

/* the writable parameters that @common says: the engine's own (declared by
 * AccelStage), or the kind's */
static void
describe_params (GString *s, GParamSpec **pspecs, guint n, gboolean common)
{
  for (guint i = 0; i < n; i++)
    {
      GParamSpec *p = pspecs[i];
      g_autofree gchar *def = NULL;
      g_autofree gchar *range = NULL;

      if (!(p->flags & G_PARAM_WRITABLE)
          || (p->owner_type == ACCEL_TYPE_STAGE) != common)
        continue;
      def = value_to_string (g_param_spec_get_default_value (p));
      range = accel_param_spec_dup_range (p);
      g_string_append_printf (s, "  %-14s %s, default %s%s%s%s\n      %s\n",
          p->name, pspec_type_name (p), def, range ? ", range " : "",
          range ? range : "",
          (p->flags & ACCEL_PARAM_FIXED) ? ", fixed once prepared" : "",
          g_param_spec_get_blurb (p));
    }
}

/**
 * accel_registry_describe:
 * @registry: a registry
 * @kind_name: a registered kind
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full) (nullable): a text listing the kind's ports with
 * their types and its parameters with type, default, range and blurb (the
 * kind's own first, then those every stage has), or %NULL with
 * %ACCEL_ERROR_INVALID_PIPELINE naming the nearest kinds when @kind_name is
 * not registered. MT safe.
 */
gchar *
accel_registry_describe (
    AccelRegistry *registry, const char *kind_name, GError **error)
{
  GType type;
  AccelStageClass *klass;
  GString *s;
  g_autofree GParamSpec **pspecs = NULL;
  guint n_pspecs;

  g_return_val_if_fail (ACCEL_IS_REGISTRY (registry), NULL);
  g_return_val_if_fail (kind_name != NULL, NULL);

  type = accel_registry_lookup (registry, kind_name);
  if (!type)
    {
      set_unknown_kind (registry, kind_name, error);
      return NULL;
    }
  klass = g_type_class_ref (type);
  s = g_string_new (NULL);
  g_string_append_printf (
      s, "%s: %s\n", kind_name, accel_stage_class_get_description (klass));
  for (int d = 0; d < 2; d++)
    {
      g_autoptr (GPtrArray) ports = accel_stage_class_get_ports (klass, d);
      g_string_append_printf (s, "\n%s:\n", d == 0 ? "inputs" : "outputs");
      if (ports->len == 0)
        g_string_append (s, "  (none)\n");
      for (guint i = 0; i < ports->len; i++)
        {
          AccelPortTemplate *p = ports->pdata[i];
          g_autofree gchar *t = accel_type_to_string (&p->type);
          g_string_append_printf (s, "  %-10s %s%s%s\n", p->name, t,
              p->description ? "  " : "", p->description ? p->description : "");
        }
    }
  /* the kind's own parameters first: the engine's are the same for all */
  pspecs = g_object_class_list_properties (G_OBJECT_CLASS (klass), &n_pspecs);
  g_string_append (s, "\nparameters:\n");
  describe_params (s, pspecs, n_pspecs, FALSE);
  g_string_append (s, "\nparameters of every stage:\n");
  describe_params (s, pspecs, n_pspecs, TRUE);
  g_type_class_unref (klass);
  return g_string_free (s, FALSE);
}

/**
 * accel_stage_new:
 * @kind_name: a registered kind, such as "core.scale"
 * @name: (nullable): the stage's name; %NULL: the kind's name after its
 *   namespace ("scale"), numbered in the graph it is added to ("scale0",
 *   "scale1", ...), which links can address
 * @error: return location for a #GError, or %NULL
 *
 * Creates a stage of a kind in the default registry.
 *
 * Returns: (transfer full) (nullable): a new stage, or %NULL with
 * %ACCEL_ERROR_INVALID_PIPELINE naming the nearest kinds. MT safe.
 */
AccelStage *
accel_stage_new (const char *kind_name, const char *name, GError **error)
{
  AccelRegistry *registry;
  GType type;

  g_return_val_if_fail (kind_name != NULL, NULL);

  registry = accel_registry_get_default ();
  type = accel_registry_lookup (registry, kind_name);
  if (!type)
    {
      set_unknown_kind (registry, kind_name, error);
      return NULL;
    }
  if (!name)
    {
      const char *dot = strrchr (kind_name, '.');
      AccelStage *stage
          = g_object_new (type, "name", dot ? dot + 1 : kind_name, NULL);

      accel_stage_set_numbered (stage);
      return stage;
    }
  return g_object_new (type, "name", name, NULL);
}
