/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nvrtc plugin: compiling CUDA C++ to a CUBIN through NVRTC, with an
 * on-disk cache keyed by what decides the code */
#define G_LOG_DOMAIN "accel-nvrtc"

#include <accel/accel.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <nvrtc.h>
#include <string.h>

#include "accelnvrtccache.h"

/**
 * accel_nvrtc_cache_get_dir:
 *
 * The cache lives in `$XDG_CACHE_HOME/accel/nvrtc` (g_get_user_cache_dir()),
 * unless the environment variable `ACCEL_NVRTC_CACHE` is `0`. MT safe.
 *
 * Returns: (transfer full) (nullable): the cache directory, or %NULL when
 *   the cache is disabled.
 */
gchar *
accel_nvrtc_cache_get_dir (void)
{
  const char *env = g_getenv ("ACCEL_NVRTC_CACHE");

  if (env && g_strcmp0 (env, "0") == 0)
    return NULL;
  return g_build_filename (g_get_user_cache_dir (), "accel", "nvrtc", NULL);
}

/**
 * accel_nvrtc_cache_key:
 * @source: the CUDA C++ source
 * @options: (nullable): the extra NVRTC options, as given
 * @arch: the target, such as "sm_90"
 *
 * The name of a cache entry: the SHA-256 of @source, @options, @arch,
 * NVRTC's version and the entries' format, each followed by a NUL, so that
 * nothing but these decides the code, a newer NVRTC never reuses an older
 * one's output, and builds that write entries another way never read each
 * other's.
 * MT safe.
 *
 * Returns: (transfer full): 64 hexadecimal digits.
 */
/* what an entry holds: the SHA-256 of its CUBIN, then the CUBIN (see
 * read_entry ()); in the key, so that another format is another name */
#define ENTRY_FORMAT "cubin+sha256/1"

gchar *
accel_nvrtc_cache_key (
    const char *source, const char *options, const char *arch)
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree gchar *version = NULL;
  int major = 0, minor = 0;

  g_return_val_if_fail (source != NULL, NULL);
  g_return_val_if_fail (arch != NULL, NULL);

  nvrtcVersion (&major, &minor);
  version = g_strdup_printf ("%d.%d", major, minor);
  g_checksum_update (sum, (const guchar *)source, strlen (source) + 1);
  g_checksum_update (sum, (const guchar *)(options ? options : ""),
      strlen (options ? options : "") + 1);
  g_checksum_update (sum, (const guchar *)arch, strlen (arch) + 1);
  g_checksum_update (sum, (const guchar *)version, strlen (version) + 1);
  g_checksum_update (sum, (const guchar *)ENTRY_FORMAT, sizeof (ENTRY_FORMAT));
  return g_strdup (g_checksum_get_string (sum));
}

/**
 * accel_nvrtc_quote_log:
 * @log: NVRTC's compile log
 * @name: the program's name, as given to NVRTC
 * @source: the program's source
 *
 * Picks the errors out of @log ("name(LINE): error: what") and quotes the
 * source line of each, as
 * |[
 * kernel.cu:4: error: expected an expression
 *     4 | out[i] = in[i] * ;
 * ]|
 * MT safe.
 *
 * Returns: (transfer full): the errors with their lines, one or more lines
 *   each ending in a newline; empty when @log names no error.
 */
gchar *
accel_nvrtc_quote_log (const char *log, const char *name, const char *source)
{
  g_autoptr (GRegex) re = NULL;
  g_autoptr (GMatchInfo) match = NULL;
  g_auto (GStrv) lines = NULL;
  GString *out = g_string_new (NULL);

  g_return_val_if_fail (log != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (source != NULL, NULL);

  re = g_regex_new ("^(.+)\\(([0-9]+)\\): ((?:catastrophic )?error): (.*)$",
      G_REGEX_MULTILINE, 0, NULL);
  lines = g_strsplit (source, "\n", -1);
  g_regex_match (re, log, 0, &match);
  while (g_match_info_matches (match))
    {
      g_autofree gchar *file = g_match_info_fetch (match, 1);
      g_autofree gchar *number = g_match_info_fetch (match, 2);
      g_autofree gchar *kind = g_match_info_fetch (match, 3);
      g_autofree gchar *what = g_match_info_fetch (match, 4);
      guint64 line = g_ascii_strtoull (number, NULL, 10);

      g_string_append_printf (out, "%s:%s: %s: %s\n", file, number, kind, what);
      /* the line is only at hand for the program itself, not its headers */
      if (g_strcmp0 (file, name) == 0 && line >= 1
          && line <= g_strv_length (lines))
        {
          g_autofree gchar *text = g_strdup (lines[line - 1]);
          g_string_append_printf (
              out, "  %4" G_GUINT64_FORMAT " | %s\n", line, g_strstrip (text));
        }
      g_match_info_next (match, NULL);
    }
  return g_string_free (out, FALSE);
}

/**
 * accel_nvrtc_split_options:
 * @options: (nullable): extra NVRTC options, separated by spaces (quoted as
 *   a shell would)
 * @argv: (out) (optional) (transfer full): the options one by one, an empty
 *   list for none
 * @error: return location for a #GError, or %NULL
 *
 * Splits @options as the compile gives them to NVRTC. MT safe.
 *
 * Returns: %FALSE with %ACCEL_ERROR_INVALID_INPUT naming @options when they
 *   cannot be split (an unclosed quote), or set the architecture
 *   (`-arch`, `--gpu-architecture`), which is the compile's own.
 */
gboolean
accel_nvrtc_split_options (const char *options, gchar ***argv, GError **error)
{
  g_autoptr (GError) shell_error = NULL;
  g_auto (GStrv) split = NULL;

  if (options && !g_shell_parse_argv (options, NULL, &split, &shell_error)
      && !g_error_matches (
          shell_error, G_SHELL_ERROR, G_SHELL_ERROR_EMPTY_STRING))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT,
          "cannot read the NVRTC options \"%s\": %s", options,
          shell_error->message);
      return FALSE;
    }
  /* NVRTC takes the last architecture given: a CUBIN for another GPU
   * than the one that loads it */
  for (guint i = 0; split && split[i]; i++)
    if (g_str_has_prefix (split[i], "-arch")
        || g_str_has_prefix (split[i], "--gpu-architecture"))
      {
        g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT,
            "the NVRTC options \"%s\" set the GPU architecture (%s), "
            "which the compile sets for the device itself: leave it out",
            options, split[i]);
        return FALSE;
      }
  if (argv)
    *argv = split ? g_steal_pointer (&split) : g_new0 (gchar *, 1);
  return TRUE;
}

static gboolean
nvrtc_check_full (nvrtcResult status, const char *call, GError **error)
{
  if (G_LIKELY (status == NVRTC_SUCCESS))
    return TRUE;
  g_debug ("%s failed: %s (%d)", call, nvrtcGetErrorString (status), status);
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_LIBRARY,
      "%s failed: NVRTC status %s (%d)", call, nvrtcGetErrorString (status),
      status);
  return FALSE;
}

/* checks an NVRTC call: a GError naming the call and NVRTC's status */
#define nvrtc_check(call, error) nvrtc_check_full ((call), #call, (error))

/* the options as NVRTC got them, separated by spaces, in UTF-8 */
static gchar *
join_options (GPtrArray *argv)
{
  g_autoptr (GString) cmd = g_string_new (NULL);

  for (guint i = 0; i < argv->len; i++)
    g_string_append_printf (
        cmd, "%s%s", i ? " " : "", (const char *)argv->pdata[i]);
  return g_utf8_make_valid (cmd->str, -1);
}

static GBytes *
compile (const char *source, const char *name, const char *options,
    const char *arch, gchar **log, GError **error)
{
  g_auto (GStrv) user = NULL;
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autofree gchar *text = NULL;
  nvrtcProgram prog = NULL;
  nvrtcResult status;
  gsize size = 0;
  gpointer cubin = NULL;

  g_ptr_array_add (argv, g_strdup_printf ("--gpu-architecture=%s", arch));
  if (!accel_nvrtc_split_options (options, &user, error))
    return NULL;
  for (guint i = 0; user[i]; i++)
    g_ptr_array_add (argv, g_strdup (user[i]));

  status = nvrtcCreateProgram (&prog, source, name, 0, NULL, NULL);
  if (status != NVRTC_SUCCESS)
    {
      nvrtc_check_full (status, "nvrtcCreateProgram", error);
      return NULL;
    }
  status = nvrtcCompileProgram (
      prog, (int)argv->len, (const char *const *)argv->pdata);
  if (nvrtcGetProgramLogSize (prog, &size) == NVRTC_SUCCESS && size > 1)
    {
      text = g_malloc0 (size);
      if (nvrtcGetProgramLog (prog, text) != NVRTC_SUCCESS)
        g_clear_pointer (&text, g_free);
    }
  if (status != NVRTC_SUCCESS)
    goto compile_failed;
  if (!nvrtc_check (nvrtcGetCUBINSize (prog, &size), error))
    goto failed;
  cubin = g_malloc (size);
  if (!nvrtc_check (nvrtcGetCUBIN (prog, cubin), error))
    goto failed;
  nvrtcDestroyProgram (&prog);
  if (log)
    *log = g_steal_pointer (&text);
  return g_bytes_new_take (cubin, size);

  /* ERRORS */
compile_failed:
  {
    /* the source and its name are bytes that need not be UTF-8 (a comment
     * in Latin-1), which NVRTC quotes as they are: made valid, for the
     * error's message and for GRegex, which matches nothing in invalid
     * UTF-8 */
    g_autofree gchar *valid_log = g_utf8_make_valid (text ? text : "", -1);
    g_autofree gchar *valid_name = g_utf8_make_valid (name, -1);
    g_autofree gchar *valid_source = g_utf8_make_valid (source, -1);
    g_autofree gchar *quoted
        = accel_nvrtc_quote_log (valid_log, valid_name, valid_source);
    g_autofree gchar *cmd = join_options (argv);

    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_LIBRARY,
        "NVRTC could not compile %s for %s (%s, options: %s):\n%s"
        "NVRTC's log:\n%s",
        valid_name, arch, nvrtcGetErrorString (status), cmd, quoted,
        text ? valid_log : "(empty)\n");
    goto failed;
  }
failed:
  g_free (cubin);
  nvrtcDestroyProgram (&prog);
  if (log)
    *log = g_steal_pointer (&text);
  return NULL;
}

/* an entry is the SHA-256 of its CUBIN, then the CUBIN: a file cut short
 * or damaged is told from a CUBIN and compiled again */
#define DIGEST_SIZE 32

static void
digest_of (gconstpointer data, gsize size, guint8 digest[DIGEST_SIZE])
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  gsize n = DIGEST_SIZE;

  g_checksum_update (sum, data, size);
  g_checksum_get_digest (sum, digest, &n);
}

/* the CUBIN in the entry at @path, or %NULL when there is none or it is
 * damaged (then removed, and said so) */
static GBytes *
read_entry (const char *path)
{
  gchar *contents = NULL;
  gsize length = 0;
  guint8 digest[DIGEST_SIZE];

  if (!g_file_get_contents (path, &contents, &length, NULL))
    return NULL;
  if (length > DIGEST_SIZE)
    {
      digest_of (contents + DIGEST_SIZE, length - DIGEST_SIZE, digest);
      if (memcmp (digest, contents, DIGEST_SIZE) == 0)
        {
          GBytes *all = g_bytes_new_take (contents, length);
          GBytes *cubin
              = g_bytes_new_from_bytes (all, DIGEST_SIZE, length - DIGEST_SIZE);

          g_bytes_unref (all);
          return cubin;
        }
    }
  g_free (contents);
  g_message ("the NVRTC cache entry %s is damaged (%" G_GSIZE_FORMAT
             " bytes that do not match their checksum): compiling again",
      path, length);
  g_unlink (path);
  return NULL;
}

static gboolean
write_entry (const char *path, GBytes *cubin, GError **error)
{
  gsize size = 0;
  const guint8 *data = g_bytes_get_data (cubin, &size);
  g_autofree guint8 *entry = g_malloc (DIGEST_SIZE + size);

  digest_of (data, size, entry);
  memcpy (entry + DIGEST_SIZE, data, size);
  return g_file_set_contents (
      path, (const gchar *)entry, DIGEST_SIZE + size, error);
}

/* whether the code may depend on files that the key does not cover: an
 * #include of anything but a <header> (a quoted name, or a macro that may
 * name any file), or an include path or header among the options as NVRTC
 * gets them, quotes taken off. Options that cannot be read are refused by
 * the compile, which no cache entry came from */
static gboolean
reads_user_headers (const char *source, const char *options)
{
  static const char *const reads[]
      = { "-I", "--include-path", "-include", "--pre-include" };
  /* raw: a source need not be UTF-8 (a comment in Latin-1), and GRegex
   * matches nothing in one that is not */
  g_autoptr (GRegex) include
      = g_regex_new ("^[ \t]*#[ \t]*include[ \t]*[^< \t]",
          G_REGEX_MULTILINE | G_REGEX_RAW, 0, NULL);
  g_auto (GStrv) argv = NULL;

  if (g_regex_match (include, source, 0, NULL))
    return TRUE;
  if (!accel_nvrtc_split_options (options, &argv, NULL))
    return FALSE;
  for (guint i = 0; argv[i]; i++)
    for (guint r = 0; r < G_N_ELEMENTS (reads); r++)
      if (g_str_has_prefix (argv[i], reads[r]))
        return TRUE;
  return FALSE;
}

/**
 * accel_nvrtc_compile_full:
 * @source: the CUDA C++ source
 * @name: the program's name: what NVRTC's messages call the source
 * @options: (nullable): extra NVRTC options, separated by spaces (quoted as
 *   a shell would)
 * @arch: the real architecture to compile for, such as "sm_90"
 * @cache_dir: (nullable): the cache directory, or %NULL for no cache
 * @cache_hit: (out) (optional): whether the CUBIN came from the cache
 * @log: (out) (optional) (transfer full) (nullable): NVRTC's log (warnings,
 *   or the errors), %NULL when empty or on a cache hit
 * @error: return location for a #GError, or %NULL
 *
 * Compiles @source with NVRTC to a CUBIN for @arch, or takes it from
 * @cache_dir, where the CUBIN of each (source, options, arch, NVRTC version)
 * is kept under accel_nvrtc_cache_key() with its SHA-256. A cache hit does
 * not touch NVRTC; an entry that does not match its checksum is removed and
 * compiled again; a new CUBIN is written atomically, and a cache that
 * cannot be written is only logged. A source with an `#include` of
 * anything but a `<header>` (a quoted name, a macro), or options with an
 * include path or header (`-I`, `--include-path`, `-include`,
 * `--pre-include`, quoted or not), is never cached: the key cannot cover
 * the headers it reads. No GPU is needed. MT safe.
 *
 * Returns: (transfer full): the CUBIN, or %NULL with %ACCEL_ERROR_LIBRARY
 *   holding NVRTC's log, each error's source line quoted, on a compile
 *   error (%ACCEL_ERROR_INVALID_INPUT for unreadable @options).
 */
GBytes *
accel_nvrtc_compile_full (const char *source, const char *name,
    const char *options, const char *arch, const char *cache_dir,
    gboolean *cache_hit, gchar **log, GError **error)
{
  g_autofree gchar *key = NULL;
  g_autofree gchar *path = NULL;
  g_autoptr (GError) io_error = NULL;
  GBytes *cubin;

  g_return_val_if_fail (source != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (arch != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (cache_hit)
    *cache_hit = FALSE;
  if (log)
    *log = NULL;
  if (cache_dir && reads_user_headers (source, options))
    {
      g_debug ("%s reads headers of its own: not cached", name);
      cache_dir = NULL;
    }
  if (cache_dir)
    {
      key = accel_nvrtc_cache_key (source, options, arch);
      path = g_build_filename (cache_dir, key, NULL);
      cubin = read_entry (path);
      if (cubin)
        {
          g_debug ("%s for %s: cache hit %s", name, arch, path);
          if (cache_hit)
            *cache_hit = TRUE;
          return cubin;
        }
    }

  cubin = compile (source, name, options, arch, log, error);
  if (!cubin || !cache_dir)
    return cubin;
  if (g_mkdir_with_parents (cache_dir, 0700) != 0
      || !write_entry (path, cubin, &io_error))
    g_message ("cannot keep the CUBIN of %s in the cache %s: %s", name,
        cache_dir, io_error ? io_error->message : g_strerror (errno));
  else
    g_debug ("%s for %s: cached as %s", name, arch, path);
  return cubin;
}

/**
 * accel_nvrtc_compile:
 * @source: the CUDA C++ source
 * @name: the program's name: what NVRTC's messages call the source
 * @options: (nullable): extra NVRTC options, separated by spaces
 * @arch: the real architecture to compile for, such as "sm_90"
 * @log: (out) (optional) (transfer full) (nullable): NVRTC's log
 * @error: return location for a #GError, or %NULL
 *
 * accel_nvrtc_compile_full() with the cache of accel_nvrtc_cache_get_dir().
 * MT safe.
 *
 * Returns: (transfer full): the CUBIN, or %NULL with @error set.
 */
GBytes *
accel_nvrtc_compile (const char *source, const char *name, const char *options,
    const char *arch, gchar **log, GError **error)
{
  g_autofree gchar *dir = accel_nvrtc_cache_get_dir ();

  return accel_nvrtc_compile_full (
      source, name, options, arch, dir, NULL, log, error);
}
