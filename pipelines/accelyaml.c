/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the YAML loader. Every problem in a file is reported, each with
 * file:line:column and what was expected; a graph comes back only when there
 * is none. A library of its own (libaccel-yaml) on the engine's public API;
 * G_MESSAGES_DEBUG=accel-yaml tells what it decides */
#define G_LOG_DOMAIN "accel-yaml"

#include <accel/accel.h>

#include <glib/gstdio.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "accelyaml-private.h"

/* limits that answer any input within seconds and bounded memory: a file's
 * bytes, how many problems are kept, stages and links (accelyaml-private.h
 * has the document's depth and nodes, and the longest name compared for a
 * suggestion) */
#define MAX_FILE_BYTES (16 * 1024 * 1024)
#define MAX_PROBLEMS 1000
#define MAX_STAGES 1024
#define MAX_LINKS 4096

typedef struct
{
  gsize line, column; /* zero-based; G_MAXSIZE for --set settings */
  guint seq;
  gchar *text; /* the whole line, location first */
} Problem;

typedef struct
{
  gchar *name;
  yaml_mark_t mark;  /* of the name */
  AccelStage *stage; /* NULL when it could not be made */
  gboolean link_failed;
  gboolean other_rank;  /* its ranks leave this one out: no stage here */
  guint n_ranks;        /* the ranks that run it */
  gboolean ranked_file; /* its location has {rank} in it */
  /* a parameter of it was refused (reported): what it meets across ranks
   * is not what the file says (a 'peer' of "1x" was taken for 0) */
  gboolean params_refused;
  yaml_mark_t file_mark; /* of its location, or its name */
  /* what other ranks make of it too (accel_yaml_check_meetings ()) */
  const char *kind;    /* NULL when not a scalar */
  yaml_node_t *params; /* NULL when none */
  GArray *ranks;       /* guint: the ranks that run it; NULL: every one */
} Decl;

/* one end of a link: "stage" or "stage.port" */
typedef struct
{
  gchar *stage, *port;
  yaml_mark_t mark;
} End;

typedef struct
{
  End src, dst;
} Link;

typedef struct
{
  const char *key;  /* as the file writes it */
  const char *name; /* the stage parameter it sets */
  GValue value;
} Default;

typedef struct
{
  const char *origin;
  yaml_document_t *doc;
  GArray *problems;    /* Problem */
  gboolean incomplete; /* the graph is not what the file says: no prepare */
  AccelGraph *graph;
  GPtrArray *decls;         /* Decl*, in file order */
  GHashTable *by_name;      /* stage name -> Decl* */
  GArray *links;            /* Link */
  gboolean links_capped;    /* a link past MAX_LINKS was refused */
  GHashTable *linked;       /* "stage.port" of each linked input -> Link* */
  GHashTable *unknown_told; /* "line:column:name" of each unknown stage
                               reported in the links: a chain's middle
                               stage ends two links */
  yaml_node_t *stages;      /* the stages list, for problems of the whole */
  GArray *defaults;         /* Default */
  AccelStreamPolicy policy;
  gboolean no_segments;          /* defaults: segments: off */
  AccelCaptureMode capture_mode; /* defaults: graph */
  guint n_dropped;               /* problems past MAX_PROBLEMS */
  AccelPlacer *placer;           /* placement: for stages on device auto */
  gboolean device_fixed;         /* the pipeline's device is not auto */
  const char *const *overrides;  /* --set, applied after the file */
  GHashTable *aliases;           /* where the aliases stand */
} Loader;

/* how this thread's loads name a place in their messages: "line N", or
 * as a description's caller says (its own column) */
typedef struct
{
  AccelYamlPlaceName name;
  gpointer data;
} PlaceNamer;

static GPrivate place_namer = G_PRIVATE_INIT (g_free);

/**
 * accel_yaml_name_places:
 * @name: (nullable): how the messages of this thread's loads name a place
 *   of the YAML they refer to besides their own, or %NULL for "line N"
 * @data: for @name
 *
 * For a caller whose YAML stands for another text. Called from any thread.
 */
void
accel_yaml_name_places (AccelYamlPlaceName name, gpointer data)
{
  PlaceNamer *namer = NULL;

  if (name)
    {
      namer = g_new (PlaceNamer, 1);
      namer->name = name;
      namer->data = data;
    }
  g_private_replace (&place_namer, namer);
}

/* "line N" of @mark, or the place as this thread's caller names it */
static gchar *
place (yaml_mark_t mark)
{
  PlaceNamer *namer = g_private_get (&place_namer);

  if (namer)
    return namer->name (mark.line + 1, mark.column + 1, namer->data);
  return g_strdup_printf ("line %zu", mark.line + 1);
}

static const char *const top_keys[] = { "pipeline", "device", "placement",
  "defaults", "supervision", "stages", "links", NULL };
static const char *const stage_keys[]
    = { "name", "kind", "params", "device", "supervision", "ranks", NULL };
static const char *const supervision_keys[] = { "on-fault", "max-restarts",
  "within", "deadline", "watchdog", "snapshot-interval", NULL };
static const char *const default_keys[] = { "completion", "streams", "segments",
  "graph", "mailbox", "thread", NULL };

/* settings that are stage parameters; a duration is written 10s, 500ms,
 * 2min or as plain milliseconds */
typedef struct
{
  const char *key, *param;
  gboolean duration;
} ParamSetting;

static const ParamSetting default_params[] = {
  { "completion", "completion" },
  { "mailbox", "mailbox-size" },
  { "thread", "thread" },
};

static const ParamSetting supervision_params[] = {
  { "on-fault", "on-fault" },
  { "max-restarts", "max-restarts" },
  { "within", "restart-window", TRUE },
  { "deadline", "deadline", TRUE },
  { "watchdog", "watchdog", TRUE },
  { "snapshot-interval", "snapshot-interval" },
};

static const yaml_mark_t no_mark = { 0, 0, 0 };

/* @msg (taken) with its control characters written as escapes: a problem
 * is one line, and text from the file (a value, a key) can neither break
 * it nor send the terminal escape sequences */
gchar *
accel_yaml_escape_controls (gchar *msg)
{
  gchar *out = accel_str_escape_controls (msg, FALSE);

  g_free (msg);
  return out;
}

static void G_GNUC_PRINTF (4, 0) report_valist (Loader *l, gboolean blocking,
    yaml_mark_t mark, const char *format, va_list args)
{
  g_autofree gchar *msg = NULL;
  Problem p;

  if (blocking)
    l->incomplete = TRUE;
  if (l->problems->len >= MAX_PROBLEMS)
    {
      l->n_dropped++;
      return;
    }
  msg = accel_yaml_escape_controls (g_strdup_vprintf (format, args));
  p.line = mark.line;
  p.column = mark.column;
  p.seq = l->problems->len;
  p.text = g_strdup_printf (
      "%s:%zu:%zu: %s", l->origin, mark.line + 1, mark.column + 1, msg);
  g_array_append_val (l->problems, p);
}

/* a problem that leaves the graph unlike what the file means */
static void G_GNUC_PRINTF (3, 4)
    report (Loader *l, yaml_mark_t mark, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  report_valist (l, TRUE, mark, format, args);
  va_end (args);
}

/* a problem the graph does not depend on (an unknown top-level key): the
 * graph is still checked, so its own problems are reported too */
static void G_GNUC_PRINTF (3, 4)
    report_aside (Loader *l, yaml_mark_t mark, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  report_valist (l, FALSE, mark, format, args);
  va_end (args);
}

static void
report_override (Loader *l, const char *setting, const char *problem)
{
  Problem p;

  p.line = G_MAXSIZE;
  p.column = 0;
  p.seq = l->problems->len;
  /* a setting from the command line, as a file's text, stays one line */
  p.text = accel_yaml_escape_controls (
      g_strdup_printf ("--set %s: %s", setting, problem));
  g_array_append_val (l->problems, p);
  l->incomplete = TRUE;
}

static gint
compare_problems (gconstpointer a, gconstpointer b)
{
  const Problem *pa = a, *pb = b;

  if (pa->line != pb->line)
    return pa->line < pb->line ? -1 : 1;
  if (pa->column != pb->column)
    return pa->column < pb->column ? -1 : 1;
  return pa->seq < pb->seq ? -1 : pa->seq > pb->seq;
}

static void
problem_clear (gpointer data)
{
  g_free (((Problem *)data)->text);
}

static yaml_node_t *
node (Loader *l, int index)
{
  return yaml_document_get_node (l->doc, index);
}

static const char *
scalar (yaml_node_t *n)
{
  return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value
                                          : NULL;
}

/* an empty value, "~" or "null", written without quotes */
static gboolean
is_null (yaml_node_t *n)
{
  const char *s = scalar (n);

  return s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE
         && (!*s || g_str_equal (s, "~") || g_str_equal (s, "null")
             || g_str_equal (s, "Null") || g_str_equal (s, "NULL"));
}

static const char *
node_kind (yaml_node_t *n)
{
  switch (n ? n->type : YAML_NO_NODE)
    {
    case YAML_SCALAR_NODE:
      return is_null (n) ? "empty" : "a scalar";
    case YAML_SEQUENCE_NODE:
      return "a list";
    case YAML_MAPPING_NODE:
      return "a mapping";
    default:
      return "nothing";
    }
}

static gboolean
expect (Loader *l, yaml_node_t *n, yaml_node_type_t type, const char *what)
{
  if (n && n->type == type)
    return TRUE;
  report (l, n ? n->start_mark : no_mark, "%s must be %s, not %s", what,
      type == YAML_MAPPING_NODE    ? "a mapping"
      : type == YAML_SEQUENCE_NODE ? "a list"
                                   : "a scalar",
      node_kind (n));
  return FALSE;
}

/* the alias that stands at place @at of collection @coll (an item's
 * index; a mapping's key 2n, its value 2n + 1), or NULL: the node there is
 * the anchored one, whose marks are the anchor's */
static const AccelYamlAlias *
alias_at (Loader *l, yaml_node_t *coll, gsize at)
{
  guint64 key = ACCEL_YAML_PLACE (coll - l->doc->nodes.start + 1, at);

  return g_hash_table_lookup (l->aliases, &key);
}

/* where the node at place @at of @coll is written: the alias's place, or
 * the node's own */
static yaml_mark_t
mark_at (Loader *l, yaml_node_t *coll, gsize at)
{
  const AccelYamlAlias *alias = alias_at (l, coll, at);
  yaml_node_t *n;

  if (alias)
    return alias->mark;
  if (coll->type == YAML_SEQUENCE_NODE)
    n = node (l, coll->data.sequence.items.start[at]);
  else
    n = node (l, at % 2 ? coll->data.mapping.pairs.start[at / 2].value
                        : coll->data.mapping.pairs.start[at / 2].key);
  return n->start_mark;
}

/* what a problem reported at @alias adds: the text it repeats is anchored
 * elsewhere, at @anchored; "" for none */
static gchar *
alias_note (const AccelYamlAlias *alias, yaml_node_t *anchored)
{
  g_autofree gchar *at = NULL;

  if (!alias)
    return g_strdup ("");
  at = place (anchored->start_mark);
  return g_strdup_printf (
      "; here the alias *%s repeats it from its anchor at %s", alias->anchor,
      at);
}

/* the mark of byte @offset of a scalar's value, where the text between the
 * marks is the value itself (plain or quoted, one line, no escapes) */
static yaml_mark_t
mark_in (yaml_node_t *n, gsize offset)
{
  yaml_mark_t m = n->start_mark;
  gsize quotes;

  switch (n->data.scalar.style)
    {
    case YAML_PLAIN_SCALAR_STYLE:
      quotes = 0;
      break;
    case YAML_SINGLE_QUOTED_SCALAR_STYLE:
    case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
      quotes = 1;
      break;
    default:
      return m;
    }
  if (n->end_mark.line != m.line
      || n->end_mark.index - m.index != n->data.scalar.length + 2 * quotes)
    return m;
  m.column += quotes + offset;
  m.index += quotes + offset;
  return m;
}

/* unknown and repeated keys of a mapping */
static void
check_keys (Loader *l, yaml_node_t *map, const char *const *keys,
    const char *what, gboolean blocking)
{
  /* key -> 1 + its first pair's index: each key looked up once, however
   * many */
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
       p < map->data.mapping.pairs.top; p++)
    {
      gsize i = (gsize)(p - map->data.mapping.pairs.start);
      yaml_node_t *k = node (l, p->key);
      const char *key = scalar (k);
      /* a key an alias repeats is reported where the alias is */
      yaml_mark_t at = mark_at (l, map, 2 * i);
      gsize first;

      if (!key)
        {
          report (l, at, "a key in %s must be a scalar, not %s", what,
              node_kind (k));
          continue;
        }
      if (g_str_equal (key, "<<"))
        {
          report (l, at,
              "merge keys ('<<') are not read in %s: write its keys out (an "
              "alias may stand for a whole value)",
              what);
          continue;
        }
      if (keys && !g_strv_contains (keys, key))
        {
          g_autofree gchar *hint = accel_yaml_did_you_mean (
              key, keys, g_strv_length ((gchar **)keys));
          g_autofree gchar *list = g_strjoinv (", ", (gchar **)keys);
          if (blocking)
            report (l, at, "unknown key '%s' in %s%s; expected one of %s", key,
                what, hint, list);
          else
            report_aside (l, at, "unknown key '%s' in %s%s; expected one of %s",
                key, what, hint, list);
          continue;
        }
      first = GPOINTER_TO_SIZE (g_hash_table_lookup (seen, key));
      if (first)
        {
          g_autofree gchar *was = place (mark_at (l, map, 2 * (first - 1)));
          g_autofree gchar *note = alias_note (alias_at (l, map, 2 * i), k);

          report (l, at, "key '%s' appears twice in %s (first at %s)%s", key,
              what, was, note);
        }
      else
        g_hash_table_insert (seen, (gpointer)key, GSIZE_TO_POINTER (i + 1));
    }
}

/* the value of @key; the first one where a key repeats (reported) */
static yaml_node_t *
lookup (Loader *l, yaml_node_t *map, const char *key)
{
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
       p < map->data.mapping.pairs.top; p++)
    if (g_strcmp0 (scalar (node (l, p->key)), key) == 0)
      return node (l, p->value);
  return NULL;
}

/* the alias that stands for the value of @key, as lookup () finds it, or
 * NULL */
static const AccelYamlAlias *
lookup_alias (Loader *l, yaml_node_t *map, const char *key)
{
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
       p < map->data.mapping.pairs.top; p++)
    if (g_strcmp0 (scalar (node (l, p->key)), key) == 0)
      return alias_at (
          l, map, 2 * (gsize)(p - map->data.mapping.pairs.start) + 1);
  return NULL;
}

/* sets parameter @name of @stage from @text as the rank of @as (NULL: this
 * process's) reads it; returns what is wrong, or NULL, and whether that is
 * the value (else the name) */
static gchar *
set_param (AccelStage *stage, const char *name, const char *text,
    AccelWorld *as, gboolean *at_value)
{
  GObjectClass *klass = G_OBJECT_GET_CLASS (stage);
  GParamSpec *pspec = g_object_class_find_property (klass, name);
  g_autofree gchar *problem = NULL, *own = NULL;
  GValue value = G_VALUE_INIT;

  *at_value = FALSE;
  if (g_str_equal (name, "name") || g_str_equal (name, "device"))
    return g_strdup_printf ("'%s' is a key of the stage itself, beside kind "
                            "and params, not one of its parameters",
        name);
  if (!pspec)
    {
      guint n, m = 0;
      g_autofree GParamSpec **all = g_object_class_list_properties (klass, &n);
      g_autofree const char **names = g_new0 (const char *, n + 1);
      g_autofree gchar *hint = NULL;
      for (guint i = 0; i < n; i++)
        if ((all[i]->flags & G_PARAM_WRITABLE)
            && !g_str_equal (all[i]->name, "name")
            && !g_str_equal (all[i]->name, "device"))
          names[m++] = all[i]->name;
      hint = accel_yaml_did_you_mean (name, names, m);
      return g_strdup_printf ("stage '%s' (%s) has no parameter '%s'%s",
          accel_stage_get_name (stage), accel_stage_get_kind_name (stage), name,
          hint);
    }
  if (!(pspec->flags & G_PARAM_WRITABLE)
      || (pspec->flags & G_PARAM_CONSTRUCT_ONLY))
    return g_strdup_printf ("parameter '%s' of stage '%s' (%s) cannot be set",
        name, accel_stage_get_name (stage), accel_stage_get_kind_name (stage));
  *at_value = TRUE;
  if (!text)
    return g_strdup_printf ("parameter '%s' of stage '%s' (%s) must be a "
                            "scalar",
        name, accel_stage_get_name (stage), accel_stage_get_kind_name (stage));
  /* each rank of a world its own files: {rank} and {world} */
  own = accel_world_substitute (as ? as : accel_world_get_default (), text);
  text = own;
  if (!accel_yaml_convert (text, pspec, &value, &problem))
    return g_strdup_printf ("parameter '%s' of stage '%s' (%s) %s", name,
        accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
        problem);
  g_object_set_property (G_OBJECT (stage), name, &value);
  g_value_unset (&value);
  g_debug ("stage '%s': %s = %s", accel_stage_get_name (stage), name, text);
  return NULL;
}

/* where this thread's loader warnings go: stderr, or a description's
 * collector, which maps the YAML's lines and columns to its own */
static GPrivate warning_collector;

/**
 * accel_yaml_collect_warnings:
 * @into: (nullable): where the warnings of this thread's loads go, a line
 *   each, or %NULL to print them again
 *
 * For a caller whose YAML stands for another text. Called from any thread.
 */
void
accel_yaml_collect_warnings (GString *into)
{
  g_private_set (&warning_collector, into);
}

/* @line (taken), a warning, printed or collected */
static void
warn (gchar *line)
{
  GString *into = g_private_get (&warning_collector);

  if (into)
    g_string_append_printf (into, "%s\n", line);
  else
    g_printerr ("%s\n", line);
  g_free (line);
}

/* what a deprecated parameter's blurb says ("Deprecated: use NEW" gives
 * "use NEW"), with the new name in *@new_name where it names one; NULL
 * for a parameter @stage lacks or one not deprecated */
static const char *
deprecation (AccelStage *stage, const char *name, const char **new_name)
{
  GParamSpec *pspec
      = g_object_class_find_property (G_OBJECT_GET_CLASS (stage), name);
  const char *blurb;

  *new_name = NULL;
  if (!pspec || !(pspec->flags & G_PARAM_DEPRECATED))
    return NULL;
  blurb = g_param_spec_get_blurb (pspec);
  if (g_str_has_prefix (blurb, "Deprecated: "))
    blurb += strlen ("Deprecated: ");
  if (g_str_has_prefix (blurb, "use "))
    *new_name = blurb + strlen ("use ");
  return blurb;
}

/* the problem of @stage given both @old_name and its @new_name: which of
 * the two won was the order they came in */
static gchar *
both_names_problem (
    AccelStage *stage, const char *old_name, const char *new_name)
{
  return g_strdup_printf ("stage '%s' (%s) sets both '%s' and '%s', its old "
                          "name: give '%s' alone",
      accel_stage_get_name (stage), accel_stage_get_kind_name (stage), new_name,
      old_name, new_name);
}

/* an old name kept as an alias still works, with a warning that names the
 * new one; set beside the new name (in @given): refused */
static void
check_deprecated (
    Loader *l, yaml_node_t *key, AccelStage *stage, GHashTable *given)
{
  const char *new_name, *blurb = deprecation (stage, scalar (key), &new_name);

  if (!blurb)
    return;
  if (new_name && g_hash_table_contains (given, new_name))
    {
      g_autofree gchar *problem
          = both_names_problem (stage, scalar (key), new_name);
      report (l, key->start_mark, "%s", problem);
      return;
    }
  warn (g_strdup_printf ("%s:%zu:%zu: warning: parameter '%s' of stage '%s' "
                         "(%s) is deprecated: %s",
      l->origin, key->start_mark.line + 1, key->start_mark.column + 1,
      scalar (key), accel_stage_get_name (stage),
      accel_stage_get_kind_name (stage), blurb));
}

/* "auto" (NULL), "host" or a GPU number; returns what is wrong, or NULL;
 * @host_instead tells a GPU number that the host backend runs on the host */
static gchar *
parse_device (const char *text, AccelDevice **device, gboolean *host_instead)
{
  g_autoptr (GError) error = NULL;
  guint64 index;

  *device = NULL;
  *host_instead = FALSE;
  if (g_str_equal (text, "auto"))
    return NULL;
  if (g_str_equal (text, "host"))
    {
      *device = accel_device_get_host ();
      return NULL;
    }
  if (!g_ascii_string_to_unsigned (text, 10, 0, 63, &index, NULL))
    return g_strdup_printf (
        "device must be auto, host or a GPU number from 0 to 63, not '%s'",
        text);
  if (accel_backend_get_default () == ACCEL_BACKEND_HOST)
    {
      /* the host backend runs everything on the host */
      *host_instead = TRUE;
      *device = accel_device_get_host ();
      return NULL;
    }
  *device = accel_device_get_cuda ((gint)index, &error);
  if (!*device)
    return g_strdup (error->message);
  return NULL;
}

/* a GPU number on the host backend runs on the host, and says so */
static void
warn_host_instead (Loader *l, yaml_node_t *n, const char *setting)
{
  const char *instead
      = "is a GPU, but the host backend runs every stage: on the host instead";

  if (n)
    warn (g_strdup_printf ("%s:%zu:%zu: warning: device %s %s", l->origin,
        n->start_mark.line + 1, n->start_mark.column + 1, scalar (n), instead));
  else
    warn (g_strdup_printf ("warning: %s %s", setting, instead));
}

static gboolean
load_device (Loader *l, yaml_node_t *n, AccelDevice **device)
{
  g_autofree gchar *problem = NULL;
  gboolean host_instead;

  *device = NULL;
  /* empty, ~ or null: absent, as for any key (auto) */
  if (is_null (n))
    return TRUE;
  if (!expect (l, n, YAML_SCALAR_NODE, "device"))
    return FALSE;
  problem = parse_device (scalar (n), device, &host_instead);
  if (host_instead)
    warn_host_instead (l, n, NULL);
  if (problem)
    {
      report (l, n->start_mark, "%s", problem);
      return FALSE;
    }
  return TRUE;
}

/* checks the stage parameters that @table names in @map and appends their
 * values to @into (Default), for every stage; @what names the setting in
 * problems ("default", "supervision") */
static void
load_param_settings (Loader *l, yaml_node_t *map, const ParamSetting *table,
    guint n, const char *what, GArray *into)
{
  GObjectClass *stage_class = g_type_class_ref (ACCEL_TYPE_STAGE);

  for (guint i = 0; i < n; i++)
    {
      yaml_node_t *v = lookup (l, map, table[i].key);
      GParamSpec *pspec
          = g_object_class_find_property (stage_class, table[i].param);
      g_autofree gchar *problem = NULL, *ms = NULL;
      Default d = { table[i].key, table[i].param, G_VALUE_INIT };
      const char *text;

      /* empty, ~ or null: absent, as for any key */
      if (!v || is_null (v))
        continue;
      if (!(text = scalar (v)))
        {
          report (l, v->start_mark, "%s '%s' must be a scalar, not %s", what,
              d.key, node_kind (v));
          continue;
        }
      if (table[i].duration
          && !(text = ms = accel_yaml_duration_to_ms (scalar (v))))
        {
          report (l, v->start_mark,
              "%s '%s' must be a duration such as 10s, 500ms or 2min, not "
              "'%s'",
              what, d.key, scalar (v));
          continue;
        }
      if (!accel_yaml_convert (text, pspec, &d.value, &problem))
        {
          /* a duration's range said in its unit, and the value as given */
          if (table[i].duration && G_IS_PARAM_SPEC_INT64 (pspec))
            report (l, v->start_mark,
                "%s '%s' is out of range: %s is not in %" G_GINT64_FORMAT
                "ms .. %" G_GINT64_FORMAT "ms",
                what, d.key, scalar (v), G_PARAM_SPEC_INT64 (pspec)->minimum,
                G_PARAM_SPEC_INT64 (pspec)->maximum);
          else
            report (l, v->start_mark, "%s '%s' %s", what, d.key, problem);
          continue;
        }
      if (into == l->defaults)
        {
          g_autofree gchar *shown = accel_yaml_value_text (&d.value);
          g_debug ("%s %s = %s, for every stage", what, d.name, shown);
        }
      g_array_append_val (into, d);
    }
  g_type_class_unref (stage_class);
}

/* supervision: {on-fault, max-restarts, within, deadline, watchdog,
 * snapshot-interval}, for the whole pipeline or one stage */
static void
load_supervision (Loader *l, yaml_node_t *map, GArray *into)
{
  if (is_null (map) || !expect (l, map, YAML_MAPPING_NODE, "supervision"))
    return;
  check_keys (l, map, supervision_keys, "supervision", TRUE);
  load_param_settings (l, map, supervision_params,
      G_N_ELEMENTS (supervision_params), "supervision", into);
}

static void
load_defaults (Loader *l, yaml_node_t *map)
{
  yaml_node_t *streams, *segments, *graph;

  if (is_null (map) || !expect (l, map, YAML_MAPPING_NODE, "defaults"))
    return;
  check_keys (l, map, default_keys, "defaults", TRUE);
  segments = lookup (l, map, "segments");
  if (segments && expect (l, segments, YAML_SCALAR_NODE, "defaults: segments"))
    {
      const char *s = scalar (segments);
      if (g_str_equal (s, "on") || g_str_equal (s, "off"))
        {
          l->no_segments = g_str_equal (s, "off");
          g_debug ("segments: %s", s);
        }
      else
        report (l, segments->start_mark,
            "default 'segments' must be on or off, not '%s'", s);
    }
  graph = lookup (l, map, "graph");
  if (graph && expect (l, graph, YAML_SCALAR_NODE, "defaults: graph"))
    {
      GEnumClass *modes = g_type_class_ref (ACCEL_TYPE_CAPTURE_MODE);
      GEnumValue *mode = g_enum_get_value_by_nick (modes, scalar (graph));

      if (mode)
        l->capture_mode = mode->value;
      else
        report (l, graph->start_mark,
            "default 'graph' must be auto, on or off, not '%s'",
            scalar (graph));
      g_type_class_unref (modes);
    }
  streams = lookup (l, map, "streams");
  if (streams && expect (l, streams, YAML_SCALAR_NODE, "defaults: streams"))
    {
      const char *s = scalar (streams);
      if (g_str_equal (s, "per-stage"))
        l->policy = ACCEL_STREAM_POLICY_PER_STAGE;
      else if (g_str_equal (s, "single"))
        l->policy = ACCEL_STREAM_POLICY_SINGLE;
      else if (g_str_equal (s, "pooled"))
        l->policy = ACCEL_STREAM_POLICY_POOLED;
      else
        s = NULL;
      if (s)
        g_debug ("streams: %s, for every stage", s);
      else
        report (l, streams->start_mark,
            "default 'streams' must be one of per-stage, single, pooled, not "
            "'%s'",
            scalar (streams));
    }

  /* the others are stage parameters: checked once here, set on every stage
   * before its own params */
  load_param_settings (l, map, default_params, G_N_ELEMENTS (default_params),
      "default", l->defaults);
}

static void
default_clear (gpointer data)
{
  g_value_unset (&((Default *)data)->value);
}

/* @log: whether to log each (the pipeline's defaults were, once) */
static void
apply_settings (AccelStage *stage, GArray *settings, gboolean log)
{
  for (guint i = 0; i < settings->len; i++)
    {
      Default *d = &g_array_index (settings, Default, i);

      g_object_set_property (G_OBJECT (stage), d->name, &d->value);
      if (log)
        {
          g_autofree gchar *shown = accel_yaml_value_text (&d->value);
          g_debug ("stage '%s': %s = %s", accel_stage_get_name (stage), d->name,
              shown);
        }
    }
}

/* a stage's name is written into links as "stage.port" and into the state
 * dir's file names: letters, digits, '_', '-' and '"' (the DOT drawing and
 * the statistics' JSON escape it) only, so never '.', "->", '/', a space or
 * a control character. The pipeline's name is only ever shown, escaped: it
 * may hold anything but control characters */
static gboolean
valid_name (const char *name, gboolean stage)
{
  for (const char *c = name; *c; c++)
    if (stage ? !g_ascii_isalnum (*c) && *c != '_' && *c != '-' && *c != '"'
              : g_ascii_iscntrl (*c))
      return FALSE;
  return *name != '\0';
}

/* reports the stage's or the pipeline's name @n unless it is valid */
static gboolean
check_name (Loader *l, yaml_node_t *n, gboolean stage)
{
  const char *name = scalar (n);
  const char *what = stage ? "stage" : "pipeline";

  if (strlen (name) > MAX_NAME_BYTES)
    {
      report (l, n->start_mark, "%s name '%.32s...' is longer than %d bytes",
          what, name, MAX_NAME_BYTES);
      return FALSE;
    }
  if (valid_name (name, stage))
    return TRUE;
  if (!*name)
    {
      report (l, n->start_mark, "the %s name is empty", what);
      return FALSE;
    }
  /* report () escapes its control characters as it does a value's */
  if (stage)
    report (l, n->start_mark,
        "stage name '%s' may hold only ASCII letters, digits, '_', '-' and "
        "'\"', "
        "as links and state files are named after it",
        name);
  else
    report (l, n->start_mark,
        "pipeline name '%s' may not hold control characters", name);
  return FALSE;
}

static AccelStage *
make_stage (Loader *l, const char *kind, const char *name, yaml_mark_t mark)
{
  AccelRegistry *reg = accel_registry_get_default ();
  g_autoptr (GError) error = NULL;
  AccelStage *stage;

  if (!accel_registry_lookup (reg, kind))
    {
      /* "core.scale" for "scale" too; none for a name longer than any */
      g_autoptr (GPtrArray) near = accel_registry_suggest (reg, kind);
      g_autoptr (GPtrArray) all = accel_registry_list_kinds (reg);
      g_autofree gchar *why = accel_registry_dup_load_error (reg, kind);
      const char *dot = strchr (kind, '.');
      gboolean prefix_known = FALSE;

      for (guint i = 0; i < all->len && dot; i++)
        if (strncmp (all->pdata[i], kind, (gsize)(dot - kind) + 1) == 0)
          prefix_known = TRUE;
      /* its plugin is here and cannot be loaded: a library it needs */
      if (why)
        report (l, mark, "unknown stage kind '%s': %s", kind, why);
      else if (near->len > 0)
        {
          g_autofree gchar *list = NULL;
          g_ptr_array_add (near, NULL);
          list = g_strjoinv ("', '", (gchar **)near->pdata);
          report (l, mark, "unknown stage kind '%s' (did you mean '%s'?)", kind,
              list);
        }
      else if (dot && !prefix_known)
        report (l, mark,
            "unknown stage kind '%s': no plugin here provides '%.*s.' kinds",
            kind, (int)(dot - kind), kind);
      else
        report (l, mark, "unknown stage kind '%s'", kind);
      return NULL;
    }
  stage = accel_stage_new (kind, name, &error);
  if (!stage)
    report (l, mark, "%s", error->message);
  else
    g_debug ("stage '%s': %s", name, kind);
  return stage;
}

static GQuark
place_quark (void)
{
  return g_quark_from_static_string ("accel-yaml-place");
}

/**
 * accel_yaml_stage_get_place:
 * @stage: a stage of a graph that a YAML file, string or description
 *   declared
 *
 * Where @stage's kind is declared, as the loader's messages name a place:
 * `origin:line:column` of the YAML (a description's `origin:1:column`),
 * for a caller's own message about the stage, such as a kind it does not
 * run. Called from any thread.
 *
 * Returns: (nullable): the place, or %NULL for a stage that no load
 *   declared
 */
const char *
accel_yaml_stage_get_place (AccelStage *stage)
{
  g_return_val_if_fail (ACCEL_IS_STAGE (stage), NULL);

  return g_object_get_qdata (G_OBJECT (stage), place_quark ());
}

/* the description's column in place of the YAML's line and column */
void
accel_yaml_set_stage_place (AccelStage *stage, gchar *place)
{
  g_object_set_qdata_full (G_OBJECT (stage), place_quark (), place, g_free);
}

/* whether a stage's `ranks: [0, 2]` (absent: every rank) holds this
 * process's rank in its world; a process that runs alone is rank 0 of 1 */
static gboolean
in_ranks (Loader *l, yaml_node_t *n, const char *name, gboolean *other_rank,
    guint *n_ranks, GArray **ranks)
{
  AccelWorld *world = accel_world_get_default ();
  guint rank = world ? accel_world_get_rank (world) : 0;
  guint size = world ? accel_world_get_size (world) : 1;
  gboolean found = FALSE, ok = TRUE;
  g_autoptr (GHashTable) listed = g_hash_table_new (NULL, NULL);

  *other_rank = FALSE;
  *n_ranks = size;
  if (!n || is_null (n))
    return TRUE;
  if (!expect (l, n, YAML_SEQUENCE_NODE, "a list of ranks"))
    return FALSE;
  if (n->data.sequence.items.start == n->data.sequence.items.top)
    {
      report (l, n->start_mark,
          "stage '%s': 'ranks: []' would run it on no rank; list the ranks "
          "that run it, or leave 'ranks' out for every rank",
          name);
      return FALSE;
    }
  for (yaml_node_item_t *i = n->data.sequence.items.start;
       i < n->data.sequence.items.top; i++)
    {
      yaml_node_t *item = node (l, *i);
      guint64 r;

      if (!scalar (item)
          || !g_ascii_string_to_unsigned (
              scalar (item), 10, 0, 65535, &r, NULL))
        {
          report (l, item->start_mark,
              "stage '%s': a rank is a number from 0, not '%s'", name,
              scalar (item) ? scalar (item) : node_kind (item));
          ok = FALSE;
          continue;
        }
      if (r >= size)
        {
          report (l, item->start_mark,
              "stage '%s' runs on rank %" G_GUINT64_FORMAT
              ", but the world has %u ranks (0 to %u)%s",
              name, r, size, size - 1,
              world ? ""
                    : ": a process alone is rank 0 of 1 (run the "
                      "world with --ranks or --world)");
          ok = FALSE;
          continue;
        }
      found |= r == rank;
      if (g_hash_table_add (listed, GUINT_TO_POINTER ((guint)r)))
        {
          guint as_uint = (guint)r;

          if (!*ranks)
            *ranks = g_array_new (FALSE, FALSE, sizeof (guint));
          g_array_append_val (*ranks, as_uint);
        }
    }
  /* [0, 0] is one rank */
  *n_ranks = g_hash_table_size (listed);
  *other_rank = ok && !found;
  if (*other_rank)
    g_debug ("stage '%s': not on rank %u", name, rank);
  return ok;
}

/* where the location a stage that writes files is given was (or its
 * GStreamer description, whose filesink's it holds), and whether it names
 * each rank's file ({rank}) */
static void
note_file (Decl *decl, const char *param, const char *text, yaml_mark_t mark)
{
  if (!g_str_equal (param, "location") && !g_str_equal (param, "description"))
    return;
  decl->ranked_file = strstr (text, "{rank}") != NULL;
  decl->file_mark = mark;
}

/* ranks writing one file (a location without {rank}, or the stage's
 * default) interleave their frames in it, as they would --stats and
 * --dot's */
static void
check_stage_files_per_rank (Loader *l)
{
  for (guint i = 0; i < l->decls->len; i++)
    {
      Decl *decl = l->decls->pdata[i];
      g_autofree gchar *path = NULL;

      if (!decl->stage || decl->n_ranks < 2 || decl->ranked_file
          || !G_TYPE_CHECK_INSTANCE_TYPE (decl->stage, ACCEL_TYPE_FILE_OUTPUT))
        continue;
      /* the parameter: the stage's path is known once it is prepared (a
       * description's, io.gst-sink's, from its words) */
      if (g_object_class_find_property (
              G_OBJECT_GET_CLASS (decl->stage), "location"))
        g_object_get (decl->stage, "location", &path, NULL);
      else
        path = accel_file_output_get_path (ACCEL_FILE_OUTPUT (decl->stage));
      if (!path || !*path || g_str_equal (path, "/dev/null"))
        continue;
      report (l, decl->file_mark,
          "stage '%s' (%s): each of the %u ranks that run it would write "
          "%s; put {rank} in the file's name, or run it on one rank "
          "(ranks: [0])",
          decl->name, accel_stage_get_kind_name (decl->stage), decl->n_ranks,
          path);
    }
}

/* a stage named @name at @mark, its stage not made yet */
static Decl *
declare (Loader *l, const char *name, yaml_mark_t mark)
{
  Decl *decl = g_new0 (Decl, 1);

  decl->name = g_strdup (name);
  decl->mark = mark;
  decl->file_mark = mark;
  g_ptr_array_add (l->decls, decl);
  g_hash_table_insert (l->by_name, decl->name, decl);
  return decl;
}

/* a stage; @alias: the alias the stages list has in its place, or NULL */
static void
load_stage (Loader *l, yaml_node_t *map, const AccelYamlAlias *alias)
{
  yaml_node_t *name_n, *kind_n, *params, *dev_n, *sup_n;
  const char *name;
  Decl *decl, *first;
  g_autoptr (GError) error = NULL;
  const AccelYamlAlias *name_alias;
  yaml_mark_t name_mark;

  if (!expect (l, map, YAML_MAPPING_NODE, "a stage"))
    return;
  /* a stage an alias repeats had its keys checked at its anchor */
  if (!alias)
    check_keys (l, map, stage_keys, "a stage", TRUE);
  name_n = lookup (l, map, "name");
  kind_n = lookup (l, map, "kind");
  if (!name_n || is_null (name_n))
    {
      report (l,
          alias    ? alias->mark
          : name_n ? name_n->start_mark
                   : map->start_mark,
          "a stage needs a name (name: ...)");
      return;
    }
  if (!expect (l, name_n, YAML_SCALAR_NODE, "a stage's name"))
    return;
  name = scalar (name_n);
  /* its name is where the user wrote it: an alias of the stage, or of
   * its name */
  name_alias = alias ? alias : lookup_alias (l, map, "name");
  name_mark = name_alias ? name_alias->mark : name_n->start_mark;
  first = g_hash_table_lookup (l->by_name, name);
  if (!check_name (l, name_n, TRUE))
    {
      /* declared, without a stage: a link to it was reported again, as
       * to an unknown stage */
      if (!first)
        declare (l, name, name_mark);
      return;
    }
  if (first)
    {
      g_autofree gchar *at = place (first->mark);
      g_autofree gchar *note = alias_note (name_alias, alias ? map : name_n);

      report (l, name_mark, "a stage named '%s' is already declared at %s%s",
          name, at, note);
      return;
    }
  decl = declare (l, name, name_mark);

  if (!kind_n || is_null (kind_n))
    {
      report (l, kind_n ? kind_n->start_mark : name_n->start_mark,
          "stage '%s' needs a kind (kind: ...)", name);
      return;
    }
  if (!expect (l, kind_n, YAML_SCALAR_NODE, "a stage's kind"))
    return;
  decl->kind = scalar (kind_n);
  decl->params = lookup (l, map, "params");
  if (!in_ranks (l, lookup (l, map, "ranks"), name, &decl->other_rank,
          &decl->n_ranks, &decl->ranks)
      || decl->other_rank)
    return;
  decl->stage = make_stage (l, scalar (kind_n), name, kind_n->start_mark);
  if (!decl->stage)
    return;
  g_object_set_qdata_full (G_OBJECT (decl->stage), place_quark (),
      g_strdup_printf ("%s:%zu:%zu", l->origin, kind_n->start_mark.line + 1,
          kind_n->start_mark.column + 1),
      g_free);

  dev_n = lookup (l, map, "device");
  {
    AccelDevice *dev = NULL;
    if (dev_n && load_device (l, dev_n, &dev))
      g_debug ("stage '%s': device %s", name,
          dev ? accel_device_get_name (dev) : "auto");
    /* device auto: where the placement policy says */
    if (!dev
        && (!dev_n || is_null (dev_n)
            || g_strcmp0 (scalar (dev_n), "auto") == 0)
        && l->placer && !l->device_fixed)
      dev = accel_placer_place (l->placer, 0);
    if (dev)
      g_object_set (decl->stage, "device", dev, NULL);
  }

  /* the pipeline's defaults, then the stage's supervision, then params */
  apply_settings (decl->stage, l->defaults, FALSE);
  sup_n = lookup (l, map, "supervision");
  if (sup_n)
    {
      g_autoptr (GArray) own = g_array_new (FALSE, FALSE, sizeof (Default));
      g_array_set_clear_func (own, default_clear);
      load_supervision (l, sup_n, own);
      apply_settings (decl->stage, own, TRUE);
    }

  params = lookup (l, map, "params");
  if (params && !is_null (params)
      && expect (l, params, YAML_MAPPING_NODE, "params"))
    {
      g_autoptr (GHashTable) set = g_hash_table_new (g_str_hash, g_str_equal);
      /* the keys set, each to its node */
      g_autoptr (GHashTable) given = g_hash_table_new (g_str_hash, g_str_equal);

      /* params written as an alias (params: *common): what is wrong for
       * this stage is said where the alias is, not at the anchor, where
       * the same text may be right for the stage there */
      const AccelYamlAlias *params_alias = lookup_alias (l, map, "params");

      check_keys (l, params, NULL, "params", TRUE);
      for (yaml_node_pair_t *p = params->data.mapping.pairs.start;
           p < params->data.mapping.pairs.top; p++)
        {
          yaml_node_t *k = node (l, p->key), *v = node (l, p->value);
          gsize i = (gsize)(p - params->data.mapping.pairs.start);
          g_autofree gchar *problem = NULL, *note = NULL;
          gboolean at_value;

          /* a repeated key and a merge key are reported by check_keys() */
          if (!scalar (k) || g_str_equal (scalar (k), "<<")
              || !g_hash_table_add (set, (gpointer)scalar (k)))
            continue;
          /* a parameter it has, empty, ~ or null: absent, as any key */
          if (is_null (v)
              && g_object_class_find_property (
                  G_OBJECT_GET_CLASS (decl->stage), scalar (k)))
            continue;
          problem = set_param (
              decl->stage, scalar (k), scalar (v), NULL, &at_value);
          decl->params_refused |= problem != NULL;
          if (problem && params_alias)
            {
              note = alias_note (params_alias, params);
              report (l, params_alias->mark, "%s%s", problem, note);
            }
          else if (problem)
            {
              note = alias_note (
                  alias_at (l, params, 2 * i + at_value), at_value ? v : k);
              report (l, mark_at (l, params, 2 * i + at_value), "%s%s", problem,
                  note);
            }
          else
            note_file (decl, scalar (k), scalar (v), v->start_mark);
          if (!problem)
            g_hash_table_insert (given, (gpointer)scalar (k), k);
        }
      /* once every key is known: an old name may come before the new */
      for (yaml_node_pair_t *p = params->data.mapping.pairs.start;
           p < params->data.mapping.pairs.top; p++)
        {
          yaml_node_t *k = node (l, p->key);

          if (scalar (k) && g_hash_table_lookup (given, scalar (k)) == k)
            check_deprecated (l, k, decl->stage, given);
        }
    }

  if (!accel_graph_add (l->graph, decl->stage, &error))
    report (l, name_n->start_mark, "%s", error->message);
}

static void
decl_free (gpointer data)
{
  Decl *decl = data;

  g_free (decl->name);
  g_clear_object (&decl->stage);
  g_clear_pointer (&decl->ranks, g_array_unref);
  g_free (decl);
}

static void
end_clear (End *e)
{
  g_free (e->stage);
  g_free (e->port);
}

static void
link_clear (gpointer data)
{
  Link *link = data;

  end_clear (&link->src);
  end_clear (&link->dst);
}

/* "a -> b", "a.out -> b.in", or a chain "a -> b -> c"; @alias: the alias
 * the links list has in its place, where its problems are, or NULL */
static void
load_link (Loader *l, yaml_node_t *n, const AccelYamlAlias *alias)
{
  const char *text = scalar (n);
  g_autoptr (GArray) ends = NULL;
  const char *p;

  if (!expect (l, n, YAML_SCALAR_NODE, "a link"))
    return;
  /* said once */
  if (l->links_capped)
    return;
  ends = g_array_new (FALSE, TRUE, sizeof (End));
  for (p = text;;)
    {
      const char *arrow = strchr (p, '-');
      const char *a, *b, *dot;
      End e = { NULL, NULL, no_mark };

      /* not strstr (), which AddressSanitizer's check makes measure the
       * rest of the line at each arrow, 13 s for the first 4096 of a million */
      while (arrow && arrow[1] != '>')
        arrow = strchr (arrow + 1, '-');
      a = p;
      b = arrow ? arrow : p + strlen (p);

      while (a < b && g_ascii_isspace (*a))
        a++;
      while (b > a && g_ascii_isspace (b[-1]))
        b--;
      if (a == b)
        goto malformed;
      for (const char *c = a; c < b; c++)
        if (g_ascii_isspace (*c))
          goto malformed; /* "src sink" */
      dot = memchr (a, '.', (gsize)(b - a));
      e.stage = g_strndup (a, (gsize)((dot ? dot : b) - a));
      e.port = dot ? g_strndup (dot + 1, (gsize)(b - dot - 1)) : NULL;
      e.mark = alias ? alias->mark : mark_in (n, (gsize)(a - text));
      g_array_append_val (ends, e);
      if (!*e.stage || (e.port && (!*e.port || strchr (e.port, '.'))))
        goto malformed;
      if (!arrow)
        break;
      /* a chain counts a link an arrow, against the cap on links */
      if (l->links->len + ends->len > MAX_LINKS)
        {
          report (l, alias ? alias->mark : n->start_mark,
              "a pipeline has at most %d links, and this chain takes it "
              "past them",
              MAX_LINKS);
          l->links_capped = TRUE;
          goto done;
        }
      p = arrow + 2;
    }
  if (ends->len < 2)
    goto malformed;
  for (guint i = 1; i + 1 < ends->len; i++)
    if (g_array_index (ends, End, i).port)
      {
        End *e = &g_array_index (ends, End, i);
        report (l, e->mark,
            "'%s.%s' is in the middle of a chain, which takes the stage's "
            "only input and output; name ports in links of their own",
            e->stage, e->port);
        goto done;
      }

  for (guint i = 0; i + 1 < ends->len; i++)
    {
      End *s = &g_array_index (ends, End, i);
      End *d = &g_array_index (ends, End, i + 1);
      Link link = { { g_strdup (s->stage), g_strdup (s->port), s->mark },
        { g_strdup (d->stage), g_strdup (d->port), d->mark } };
      g_array_append_val (l->links, link);
    }
  goto done;

malformed:
  report (l, alias ? alias->mark : n->start_mark,
      "a link must read 'stage -> stage' or 'stage.port -> stage.port', "
      "not '%s'",
      text);
done:
  for (guint i = 0; i < ends->len; i++)
    end_clear (&g_array_index (ends, End, i));
}

static gchar *
port_list (AccelStage *stage, AccelPortDirection dir)
{
  guint n = dir == ACCEL_PORT_INPUT ? accel_stage_get_n_inputs (stage)
                                    : accel_stage_get_n_outputs (stage);
  g_autoptr (GString) s = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    g_string_append_printf (
        s, "%s%s", i ? ", " : "", accel_stage_get_port (stage, dir, i)->name);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* the stage and port a link's end names; reports what is wrong */
static Decl *
resolve (Loader *l, End *e, AccelPortDirection dir, guint *port)
{
  Decl *decl = g_hash_table_lookup (l->by_name, e->stage);
  const char *what = dir == ACCEL_PORT_INPUT ? "input" : "output";
  guint n;
  gint idx;

  if (!decl)
    {
      g_autofree const char **names = g_new0 (const char *, l->decls->len + 1);
      g_autofree gchar *hint = NULL;
      gchar *told = g_strdup_printf (
          "%zu:%zu:%s", e->mark.line, e->mark.column, e->stage);

      if (!g_hash_table_add (l->unknown_told, told))
        return NULL;
      for (guint i = 0; i < l->decls->len; i++)
        names[i] = ((Decl *)l->decls->pdata[i])->name;
      hint = accel_yaml_did_you_mean (e->stage, names, l->decls->len);
      report (l, e->mark, "link to unknown stage '%s'%s", e->stage, hint);
      return NULL;
    }
  if (!decl->stage)
    return NULL; /* reported where it is declared */

  n = dir == ACCEL_PORT_INPUT ? accel_stage_get_n_inputs (decl->stage)
                              : accel_stage_get_n_outputs (decl->stage);
  if (n == 0)
    {
      report (l, e->mark, "stage '%s' (%s) has no %s ports", e->stage,
          accel_stage_get_kind_name (decl->stage), what);
      goto failed;
    }
  idx = accel_stage_find_port (decl->stage, dir, e->port);
  if (idx < 0 && !e->port)
    {
      g_autofree gchar *list = port_list (decl->stage, dir);
      report (l, e->mark,
          "stage '%s' (%s) has %u %s ports (%s): name one, as '%s.%s'",
          e->stage, accel_stage_get_kind_name (decl->stage), n, what, list,
          e->stage, accel_stage_get_port (decl->stage, dir, 0)->name);
      goto failed;
    }
  if (idx < 0)
    {
      g_autofree gchar *list = port_list (decl->stage, dir);
      g_auto (GStrv) names = g_strsplit (list, ", ", -1);
      g_autofree gchar *hint = accel_yaml_did_you_mean (
          e->port, (const char *const *)names, g_strv_length (names));
      report (l, e->mark, "stage '%s' (%s) has no %s port '%s'%s; its %s %s %s",
          e->stage, accel_stage_get_kind_name (decl->stage), what, e->port,
          hint, what, n == 1 ? "port is" : "ports are", list);
      goto failed;
    }
  *port = (guint)idx;
  return decl;

  /* ERRORS */
failed:
  {
    decl->link_failed = TRUE;
    return NULL;
  }
}

static void
wire_links (Loader *l)
{
  for (guint i = 0; i < l->links->len; i++)
    {
      Link *link = &g_array_index (l->links, Link, i);
      g_autoptr (GError) error = NULL;
      g_autofree gchar *key = NULL;
      guint sp = 0, dp = 0;
      Decl *s, *d;
      Link *before;

      /* a link to a stage of other ranks is theirs */
      s = g_hash_table_lookup (l->by_name, link->src.stage);
      d = g_hash_table_lookup (l->by_name, link->dst.stage);
      if ((s && s->other_rank) || (d && d->other_rank))
        {
          g_debug ("link %s -> %s: not on this rank", link->src.stage,
              link->dst.stage);
          continue;
        }
      s = resolve (l, &link->src, ACCEL_PORT_OUTPUT, &sp);
      d = resolve (l, &link->dst, ACCEL_PORT_INPUT, &dp);
      if (!s || !d)
        {
          /* the stages' other problems follow from this one */
          Decl *sd = g_hash_table_lookup (l->by_name, link->src.stage);
          Decl *dd = g_hash_table_lookup (l->by_name, link->dst.stage);
          if (sd)
            sd->link_failed = TRUE;
          if (dd)
            dd->link_failed = TRUE;
          l->incomplete = TRUE;
          continue;
        }
      key = g_strdup_printf ("%s.%s", d->name,
          accel_stage_get_port (d->stage, ACCEL_PORT_INPUT, dp)->name);
      before = g_hash_table_lookup (l->linked, key);
      if (before)
        {
          g_autofree gchar *at = place (before->src.mark);

          report (l, link->dst.mark,
              "input '%s' is already linked, from '%s' at %s; an input takes "
              "one link",
              key, before->src.stage, at);
          d->link_failed = TRUE;
          continue;
        }
      if (!accel_graph_link_ports (l->graph, s->stage, link->src.port, d->stage,
              link->dst.port, &error))
        {
          report (l, link->src.mark, "%s", error->message);
          d->link_failed = TRUE;
          continue;
        }
      g_debug ("link %s.%s -> %s", s->name,
          accel_stage_get_port (s->stage, ACCEL_PORT_OUTPUT, sp)->name, key);
      g_hash_table_insert (l->linked, g_steal_pointer (&key), link);
    }
}

/* why @decl's input @port has no link on this rank where the file links
 * it from a stage of other ranks ("; on rank 1 its link from 'src' is
 * not wired: 'src' runs on ranks 0 and 2"), or "" (the input looked
 * unlinked in a file that links it) */
static gchar *
other_rank_link (Loader *l, Decl *decl, const char *port)
{
  AccelWorld *world = accel_world_get_default ();

  for (guint i = 0; world && i < l->links->len; i++)
    {
      Link *link = &g_array_index (l->links, Link, i);
      Decl *s = g_hash_table_lookup (l->by_name, link->src.stage);
      g_autoptr (GString) ranks = g_string_new (NULL);

      if (!s || !s->other_rank || !g_str_equal (link->dst.stage, decl->name)
          || (link->dst.port && !g_str_equal (link->dst.port, port)))
        continue;
      for (guint r = 0; s->ranks && r < s->ranks->len; r++)
        g_string_append_printf (ranks, "%s%u",
            r == 0                  ? ""
            : r + 1 < s->ranks->len ? ", "
                                    : " and ",
            g_array_index (s->ranks, guint, r));
      return g_strdup_printf ("; on rank %u its link from '%s' is not wired: "
                              "'%s' runs on rank%s %s",
          accel_world_get_rank (world), s->name, s->name,
          s->ranks && s->ranks->len > 1 ? "s" : "", ranks->str);
    }
  return g_strdup ("");
}

/* every input needs a link: all of them reported, not only prepare()'s first
 */
static void
check_inputs (Loader *l)
{
  for (guint i = 0; i < l->decls->len; i++)
    {
      Decl *decl = l->decls->pdata[i];
      guint n;

      if (!decl->stage || decl->link_failed)
        continue;
      n = accel_stage_get_n_inputs (decl->stage);
      for (guint p = 0; p < n; p++)
        {
          const char *port
              = accel_stage_get_port (decl->stage, ACCEL_PORT_INPUT, p)->name;
          g_autofree gchar *key = g_strdup_printf ("%s.%s", decl->name, port);
          g_autofree gchar *why = NULL;

          if (g_hash_table_contains (l->linked, key))
            continue;
          why = other_rank_link (l, decl, port);
          report (l, decl->mark, "input '%s' (%s) is not linked%s", key,
              accel_stage_get_kind_name (decl->stage), why);
        }
    }
}

/* where @message first quotes stage @name, as 'name' or 'name.port'
 * (not the graph's 'name'), or -1 */
static gssize
stage_mention (const char *message, const char *name)
{
  g_autofree gchar *whole = g_strdup_printf ("'%s'", name);
  g_autofree gchar *port = g_strdup_printf ("'%s.", name);
  gssize first = -1;

  for (const char *at = message; *at; at++)
    if ((g_str_has_prefix (at, whole) || g_str_has_prefix (at, port))
        && !(at - message >= 6 && g_str_has_prefix (at - 6, "graph ")))
      {
        first = at - message;
        break;
      }
  return first;
}

static gboolean
names_stage (const char *message, const char *name)
{
  return stage_mention (message, name) >= 0;
}

/* "param=value" of a --set @setting for @decl ("stage.param=value"), or
 * NULL when it sets another stage */
static const char *
override_for (Decl *decl, const char *setting)
{
  gsize name_len = strlen (decl->name);

  return strncmp (setting, decl->name, name_len) == 0
                 && setting[name_len] == '.' && strchr (setting, '=')
             ? setting + name_len + 1
             : NULL;
}

/* where @word is in @text from @from on, as a word of its own (a
 * parameter's name: after a space, a quote or a bracket, before one or a
 * ':', ',' or ';'), or -1 */
static gssize
word_in (const char *text, gsize from, const char *word)
{
  gsize len = strlen (word);

  for (const char *at = strstr (text + from, word); at;
       at = strstr (at + 1, word))
    if ((at == text || strchr (" '(", at[-1]))
        && (!at[len] || strchr (" ':,;)", at[len])))
      return at - text;
  return -1;
}

/* where a problem preparing the graph found with stage @decl is: the
 * value of the first of its parameters that @message names after @from
 * (a shape, a format, a size that does not fit), else its name. A
 * parameter --set gives has no place in the file */
static yaml_mark_t
problem_mark (Loader *l, Decl *decl, const char *message, gsize from)
{
  yaml_node_t *params = decl->params;
  gssize first = -1;
  yaml_mark_t mark = decl->mark;

  if (!params || params->type != YAML_MAPPING_NODE)
    return mark;
  for (yaml_node_pair_t *p = params->data.mapping.pairs.start;
       p < params->data.mapping.pairs.top; p++)
    {
      const char *key = scalar (node (l, p->key));
      gboolean overridden = FALSE;
      gssize at;

      if (!key || !*key)
        continue;
      for (guint i = 0; l->overrides && l->overrides[i] && !overridden; i++)
        {
          const char *setting = override_for (decl, l->overrides[i]);

          overridden = setting && g_str_has_prefix (setting, key)
                       && setting[strlen (key)] == '=';
        }
      at = overridden ? -1 : word_in (message, from, key);
      if (at >= 0 && (first < 0 || at < first))
        {
          first = at;
          mark = mark_at (
              l, params, 2 * (gsize)(p - params->data.mapping.pairs.start) + 1);
        }
    }
  return mark;
}

/* an error of prepare() at the value of a parameter it names of the first
 * stage it names (a shape, a format, a size that does not fit), else at
 * the link between two stages it names (a type the one refused from the
 * other; the link check's "cannot link" always), else at that first
 * stage, wherever it is declared (it was the first declared of those it
 * names) */
static void
report_prepare (Loader *l, const GError *error)
{
  Decl *about = NULL;
  gssize first = -1;

  for (guint i = 0; i < l->decls->len; i++)
    {
      Decl *decl = l->decls->pdata[i];
      gssize at = stage_mention (error->message, decl->name);

      if (at >= 0 && (first < 0 || at < first))
        {
          about = decl;
          first = at;
        }
    }
  /* a parameter --set gave, named in the message: the setting's problem,
   * not the file's (it was put at the stage's name in the file) */
  for (guint i = 0; about && l->overrides && l->overrides[i]; i++)
    {
      const char *setting = override_for (about, l->overrides[i]);
      g_autofree gchar *param
          = setting ? g_strndup (setting, strcspn (setting, "=")) : NULL;

      if (param
          && word_in (
                 error->message, (gsize)first + strlen (about->name) + 2, param)
                 >= 0)
        {
          report_override (l, l->overrides[i], error->message);
          return;
        }
    }
  /* the graph's own check of a link's types is about the link */
  if (about && !g_str_has_prefix (error->message, "cannot link "))
    {
      yaml_mark_t mark = problem_mark (
          l, about, error->message, (gsize)first + strlen (about->name) + 2);

      if (mark.index != about->mark.index)
        {
          report (l, mark, "%s", error->message);
          return;
        }
    }
  for (guint i = 0; i < l->links->len; i++)
    {
      Link *link = &g_array_index (l->links, Link, i);
      if (names_stage (error->message, link->src.stage)
          && names_stage (error->message, link->dst.stage))
        {
          report (l, link->src.mark, "%s", error->message);
          return;
        }
    }
  report (l,
      about       ? about->mark
      : l->stages ? l->stages->start_mark
                  : no_mark,
      "%s", error->message);
}

/* a --set of an old name, as check_deprecated () for the file: a warning,
 * or the problem of a --set of the new name for the same stage too (the
 * last of them won) */
static gchar *
check_override_deprecated (
    Loader *l, Decl *decl, const char *setting, const char *param)
{
  const char *new_name, *blurb = deprecation (decl->stage, param, &new_name);

  if (!blurb)
    return NULL;
  for (guint i = 0; new_name && l->overrides[i]; i++)
    {
      const char *other = override_for (decl, l->overrides[i]);

      if (other && g_str_has_prefix (other, new_name)
          && other[strlen (new_name)] == '=')
        return both_names_problem (decl->stage, param, new_name);
    }
  warn (accel_yaml_escape_controls (g_strdup_printf (
      "--set %s: warning: parameter '%s' of stage '%s' (%s) is deprecated: %s",
      setting, param, decl->name, accel_stage_get_kind_name (decl->stage),
      blurb)));
  return NULL;
}

static void
apply_override (Loader *l, const char *setting)
{
  const char *eq = strchr (setting, '=');
  g_autofree gchar *lhs
      = eq ? g_strndup (setting, (gsize)(eq - setting)) : NULL;
  g_autofree gchar *problem = NULL;
  const char *value = eq ? eq + 1 : NULL;
  char *dot = lhs ? strchr (lhs, '.') : NULL;
  AccelDevice *dev;
  Decl *decl;
  gboolean host_instead = FALSE;

  if (lhs && g_str_equal (lhs, "device"))
    {
      /* the pipeline's own device key */
      problem = parse_device (value, &dev, &host_instead);
      if (host_instead)
        warn_host_instead (l, NULL, setting);
      if (problem)
        report_override (l, setting, problem);
      else
        g_debug (
            "pipeline device %s", dev ? accel_device_get_name (dev) : "auto");
      if (dev)
        accel_graph_set_device (l->graph, dev);
      return;
    }
  if (!dot || dot == lhs || !dot[1])
    {
      report_override (l, setting, "expected stage.param=value");
      return;
    }
  *dot = '\0';
  decl = g_hash_table_lookup (l->by_name, lhs);
  if (!decl)
    {
      g_autofree const char **names = g_new0 (const char *, l->decls->len + 1);
      g_autofree gchar *hint = NULL;
      for (guint i = 0; i < l->decls->len; i++)
        names[i] = ((Decl *)l->decls->pdata[i])->name;
      hint = accel_yaml_did_you_mean (lhs, names, l->decls->len);
      problem = g_strdup_printf ("no stage named '%s'%s", lhs, hint);
      report_override (l, setting, problem);
      return;
    }
  if (!decl->stage)
    return; /* reported where it is declared */
  if (g_str_equal (dot + 1, "device"))
    {
      problem = parse_device (value, &dev, &host_instead);
      if (host_instead)
        warn_host_instead (l, NULL, setting);
      if (!problem)
        g_debug ("stage '%s': device %s", decl->name,
            dev ? accel_device_get_name (dev) : "auto");
      if (dev)
        g_object_set (decl->stage, "device", dev, NULL);
    }
  else
    {
      gboolean at_value;
      problem = set_param (decl->stage, dot + 1, value, NULL, &at_value);
      if (!problem)
        note_file (decl, dot + 1, value, decl->mark);
      if (!problem)
        problem = check_override_deprecated (l, decl, setting, dot + 1);
    }
  if (problem)
    report_override (l, setting, problem);
  decl->params_refused |= problem != NULL;
}

/* @decl's stage as rank @as makes it: its parameters, then those --set
 * gives it, each read as that rank reads it; NULL when it cannot be made.
 * Only its meetings are asked of it, and its problems are reported where
 * @decl is made */
static AccelStage *
make_probe (Loader *l, Decl *decl, AccelWorld *as)
{
  AccelStage *probe = accel_stage_new (decl->kind, decl->name, NULL);
  gboolean at_value, refused = FALSE;
  guint rank = accel_world_get_rank (as);

  if (!probe)
    return NULL;
  if (decl->params && decl->params->type == YAML_MAPPING_NODE)
    for (yaml_node_pair_t *p = decl->params->data.mapping.pairs.start;
         p < decl->params->data.mapping.pairs.top; p++)
      {
        yaml_node_t *k = node (l, p->key), *v = node (l, p->value);
        gsize at = 2 * (gsize)(p - decl->params->data.mapping.pairs.start);
        g_autofree gchar *problem = NULL;

        if (scalar (k) && !is_null (v))
          problem = set_param (probe, scalar (k), scalar (v), as, &at_value);
        /* said once: as this rank's stage says it, or here for a stage
         * of other ranks alone, which its worker alone said */
        if (problem && !decl->params_refused && !refused)
          report (l, mark_at (l, decl->params, at + at_value), "on rank %u, %s",
              rank, problem);
        refused |= problem != NULL;
      }
  for (guint i = 0; l->overrides && l->overrides[i]; i++)
    {
      const char *setting = override_for (decl, l->overrides[i]);
      const char *eq = setting ? strchr (setting, '=') : NULL;
      g_autofree gchar *param = NULL, *problem = NULL;

      if (!setting)
        continue;
      param = g_strndup (setting, (gsize)(eq - setting));
      problem = set_param (probe, param, eq + 1, as, &at_value);
      if (problem && !decl->params_refused && !refused)
        report_override (l, l->overrides[i], problem);
      refused |= problem != NULL;
    }
  /* a parameter it refuses is no setting of it */
  decl->params_refused |= refused;
  if (refused)
    g_clear_object (&probe);
  return probe;
}

/* whether @decl's parameters, or those --set gives it, read the rank
 * ({rank}, {world}): then each rank makes a stage of its own */
static gboolean
reads_rank (Loader *l, Decl *decl)
{
  if (decl->params && decl->params->type == YAML_MAPPING_NODE)
    for (yaml_node_pair_t *p = decl->params->data.mapping.pairs.start;
         p < decl->params->data.mapping.pairs.top; p++)
      {
        const char *text = scalar (node (l, p->value));

        if (text && (strstr (text, "{rank}") || strstr (text, "{world}")))
          return TRUE;
      }
  for (guint i = 0; l->overrides && l->overrides[i]; i++)
    {
      const char *setting = override_for (decl, l->overrides[i]);

      if (setting
          && (strstr (setting, "{rank}") || strstr (setting, "{world}")))
        return TRUE;
    }
  return FALSE;
}

static void
report_meeting (guint decl, const char *problem, gpointer data)
{
  Loader *l = data;

  report (l, ((Decl *)l->decls->pdata[decl])->mark, "%s", problem);
}

/* in a world, the stages that meet stages on other ranks (collectives, a
 * send and its receive). Where every rank loads this file
 * (accel_world_set_same_pipeline ()), as every rank makes them: a member
 * missing, doubled or running it otherwise is found here, where the ranks
 * waited for each other until the world's timeout. Elsewhere this rank's
 * own */
static void
check_meetings (Loader *l)
{
  AccelWorld *world = accel_world_get_default ();
  AccelRegistry *reg = accel_registry_get_default ();
  g_autoptr (GArray) members = NULL;
  g_autoptr (GPtrArray) probes = NULL;
  guint size, me;
  gboolean across;

  if (!world)
    return;
  size = accel_world_get_size (world);
  me = accel_world_get_rank (world);
  /* ranks that load files of their own: this rank's stages alone (a peer
   * that is itself or outside the world, two stages on one meeting) */
  across = accel_world_get_same_pipeline (world);
  members = g_array_new (FALSE, FALSE, sizeof (AccelYamlMember));
  probes = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < l->decls->len; i++)
    {
      Decl *decl = l->decls->pdata[i];
      GType type = decl->kind ? accel_registry_lookup (reg, decl->kind) : 0;
      g_autoptr (GTypeClass) klass = NULL;
      guint n = decl->ranks ? decl->ranks->len : size;
      /* one stage serves every rank unless its parameters read the rank:
       * a world of thousands makes no stage for each */
      AccelStage *alike = NULL;
      gboolean per_rank;

      /* a stage of this rank that could not be made was reported */
      if (!type || (!decl->other_rank && !decl->stage)
          || (!across && !decl->stage))
        continue;
      klass = g_type_class_ref (type);
      if (!accel_stage_class_has_meet_func (ACCEL_STAGE_CLASS (klass)))
        continue;
      per_rank = reads_rank (l, decl);
      alike = per_rank ? NULL : decl->stage;
      for (guint j = 0; j < n; j++)
        {
          guint rank = decl->ranks ? g_array_index (decl->ranks, guint, j) : j;
          AccelYamlMember member = { decl->stage, rank, i };

          if (!across && rank != me)
            continue;

          if (alike)
            member.stage = alike;
          else if (rank != me || !decl->stage)
            {
              g_autoptr (AccelWorld) as
                  = accel_world_new ("127.0.0.1:1", rank, size);

              if (!(member.stage = make_probe (l, decl, as)))
                break;
              g_ptr_array_add (probes, member.stage);
              if (!per_rank)
                alike = member.stage;
            }
          g_array_append_val (members, member);
        }
    }
  /* a stage with a parameter refused (reported) meets what the file does
   * not say: a 'peer' of "1x" was taken for 0, and its pair's other end
   * was said to meet no one */
  for (guint i = 0; i < l->decls->len; i++)
    if (((Decl *)l->decls->pdata[i])->params_refused)
      return;
  accel_yaml_check_meetings (members, size, across, report_meeting, l);
}

/* the file @stage writes first, as a key that every name of it shares
 * (accel_file_output_dup_identity (): it compared names, so two ranks
 * wrote one file through a link, or a pattern written two ways), and in
 * @path as named; NULL for none, and for what is no regular file (a FIFO,
 * /dev/null: shared on purpose) */
static gchar *
written_file (AccelStage *stage, gchar **path)
{
  *path = accel_file_output_get_path (ACCEL_FILE_OUTPUT (stage));
  return accel_file_output_dup_identity (ACCEL_FILE_OUTPUT (stage));
}

/* where @decl's location is given, or its name where it is not */
static yaml_mark_t
location_mark (Loader *l, Decl *decl)
{
  if (decl->params && decl->params->type == YAML_MAPPING_NODE)
    for (yaml_node_pair_t *p = decl->params->data.mapping.pairs.start;
         p < decl->params->data.mapping.pairs.top; p++)
      if (g_strcmp0 (scalar (node (l, p->key)), "location") == 0)
        return node (l, p->value)->start_mark;
  return decl->mark;
}

/* who writes or reads a file in a world: the first stage and rank found */
typedef struct
{
  guint decl, rank;
  gboolean writes;
  gchar *path; /* as named */
} FileUser;

static void
file_user_free (FileUser *user)
{
  g_free (user->path);
  g_free (user);
}

/* the file @stage writes (*@writes set) or, a source, reads, as the key
 * every name of it shares, and in @path as named; NULL for none */
static gchar *
used_file (AccelStage *stage, gboolean *writes, gchar **path)
{
  *writes = ACCEL_IS_FILE_OUTPUT (stage);
  return *writes ? written_file (stage, path)
                 : accel_stage_dup_input_file_identity (stage, path);
}

/* whether stages of @type may read a file: they have a "location" or a
 * "description" (a GStreamer source's filesrc) */
static gboolean
names_a_file (GType type)
{
  g_autoptr (GTypeClass) klass = g_type_class_ref (type);

  return g_object_class_find_property (G_OBJECT_CLASS (klass), "location")
         || g_object_class_find_property (
             G_OBJECT_CLASS (klass), "description");
}

/* in a world whose ranks all load this file on one machine (--ranks N),
 * two stages on different ranks that write one file interleave their
 * frames in it, as a stage on several ranks would, and a stage that
 * writes the file a source of another rank reads writes over the run's
 * own input (it emptied it, where one process refuses that): each stage's
 * file is made as each of its ranks makes it. Once, where the file is
 * checked before any rank starts: each rank's worker would make a stage
 * for each rank again, and a world of thousands takes seconds of each */
static void
check_files_across_ranks (Loader *l)
{
  AccelWorld *world = accel_world_get_default ();
  AccelRegistry *reg = accel_registry_get_default ();
  g_autoptr (GHashTable) users = NULL;
  guint size, me;

  if (!world || !accel_world_get_same_pipeline (world)
      || accel_supervisor_is_worker ())
    return;
  size = accel_world_get_size (world);
  me = accel_world_get_rank (world);
  users = g_hash_table_new_full (
      g_str_hash, g_str_equal, g_free, (GDestroyNotify)file_user_free);
  for (guint i = 0; i < l->decls->len; i++)
    {
      Decl *decl = l->decls->pdata[i];
      GType type = decl->kind ? accel_registry_lookup (reg, decl->kind) : 0;
      guint n = decl->ranks ? decl->ranks->len : size;
      gboolean per_rank = reads_rank (l, decl);
      gboolean writer = type && g_type_is_a (type, ACCEL_TYPE_FILE_OUTPUT);
      g_autofree gchar *alike = NULL;

      /* a stage of this rank that could not be made was reported, and one
       * on several ranks writing one file too; a source on several ranks
       * reading one file is checked once */
      if (!type || (!decl->other_rank && !decl->stage))
        continue;
      if (writer && n > 1 && !per_rank)
        continue;
      /* a stage that names no file is not made for each rank to see */
      if (!writer && !names_a_file (type))
        continue;
      for (guint j = 0; j < n; j++)
        {
          guint rank = decl->ranks ? g_array_index (decl->ranks, guint, j) : j;
          g_autofree gchar *key = NULL, *path = NULL;
          gboolean writes;
          FileUser *first;

          if (alike)
            break; /* a source's one file, seen */
          else if (rank == me && decl->stage)
            key = used_file (decl->stage, &writes, &path);
          else
            {
              g_autoptr (AccelWorld) as
                  = accel_world_new ("127.0.0.1:1", rank, size);
              g_autoptr (AccelStage) probe = make_probe (l, decl, as);

              if (!probe)
                break;
              key = used_file (probe, &writes, &path);
            }
          if (!per_rank)
            alike = g_strdup (key ? key : "");
          if (!key)
            continue;
          if (!(first = g_hash_table_lookup (users, key)))
            {
              first = g_new (FileUser, 1);
              *first = (FileUser){ i, rank, writes, g_strdup (path) };
              g_hash_table_insert (users, g_steal_pointer (&key), first);
              continue;
            }
          /* one stage's ranks, their file named with {rank} and one all
           * the same (a link to a directory, a hard link, "..") */
          if (first->decl == i && per_rank && writes)
            {
              report (l, location_mark (l, decl),
                  "stage '%s' (%s) writes %s on rank %u and %s on rank %u, "
                  "which are one file: their frames would mix in it; give "
                  "each rank a file of its own",
                  decl->name, decl->kind, first->path, first->rank, path, rank);
              break;
            }
          /* one stage's ranks: check_stage_files_per_rank (); two
           * sources may read one file */
          if (first->decl == i || (!writes && !first->writes))
            continue;
          report (l, location_mark (l, decl),
              "stage '%s' (%s) on rank %u %s %s, which stage '%s' on rank %u "
              "%s: %s",
              decl->name, decl->kind, rank, writes ? "writes" : "reads", path,
              ((Decl *)l->decls->pdata[first->decl])->name, first->rank,
              !first->writes ? "reads"
              : writes       ? "writes too"
                             : "writes",
              writes && first->writes
                  ? "their frames would mix in one file; give each a file "
                    "of its own"
                  : "the run would write over its own input");
          break;
        }
    }
}

static void
load_root (Loader *l, yaml_node_t *root, const char *const *overrides)
{
  yaml_node_t *n;

  if (!expect (l, root, YAML_MAPPING_NODE, "the pipeline"))
    return;
  check_keys (l, root, top_keys, "the pipeline", FALSE);

  n = lookup (l, root, "pipeline");
  if (n && !scalar (n))
    report_aside (l, n->start_mark,
        "pipeline (the name) must be a scalar, not "
        "%s",
        node_kind (n));
  else if (n && !is_null (n) && !check_name (l, n, FALSE))
    n = NULL;
  l->graph = accel_graph_new (
      n && scalar (n) && !is_null (n) ? scalar (n) : l->origin);
  n = lookup (l, root, "device");
  if (n)
    {
      AccelDevice *dev;
      if (load_device (l, n, &dev))
        g_debug (
            "pipeline device %s", dev ? accel_device_get_name (dev) : "auto");
      if (dev)
        accel_graph_set_device (l->graph, dev);
      l->device_fixed = dev != NULL;
    }
  n = lookup (l, root, "placement");
  if (n && !is_null (n) && expect (l, n, YAML_SCALAR_NODE, "placement"))
    {
      GEnumClass *policies = g_type_class_ref (ACCEL_TYPE_PLACEMENT);
      GEnumValue *policy = g_enum_get_value_by_nick (policies, scalar (n));

      if (!policy)
        report (l, n->start_mark,
            "placement must be first, round-robin, least-loaded or "
            "memory-fit, not '%s'",
            scalar (n));
      else
        l->placer = accel_placer_new (policy->value);
      g_type_class_unref (policies);
    }
  n = lookup (l, root, "defaults");
  if (n)
    load_defaults (l, n);
  /* the pipeline's supervision is a default of every stage */
  n = lookup (l, root, "supervision");
  if (n)
    load_supervision (l, n, l->defaults);
  accel_graph_set_stream_policy (l->graph, l->policy, 4);
  accel_graph_set_segments (l->graph, !l->no_segments);
  accel_graph_set_capture_mode (l->graph, l->capture_mode);

  n = lookup (l, root, "stages");
  l->stages = n;
  if (!n || is_null (n))
    report (l, n ? n->start_mark : root->start_mark,
        "the pipeline needs stages (stages: - {name: ..., kind: ...})");
  else if (expect (l, n, YAML_SEQUENCE_NODE, "stages"))
    {
      gsize count
          = (gsize)(n->data.sequence.items.top - n->data.sequence.items.start);

      /* the graph's checks are not all linear in its stages */
      if (count > MAX_STAGES)
        {
          report (l, n->start_mark, "a pipeline has at most %d stages, not %zu",
              MAX_STAGES, count);
          return;
        }
      if (count == 0)
        report (l, n->start_mark,
            "the pipeline needs stages, and this list is empty");
      for (yaml_node_item_t *i = n->data.sequence.items.start;
           i < n->data.sequence.items.top; i++)
        load_stage (l, node (l, *i),
            alias_at (l, n, (gsize)(i - n->data.sequence.items.start)));
    }

  n = lookup (l, root, "links");
  if (n && !is_null (n) && expect (l, n, YAML_SEQUENCE_NODE, "links")
      && n->data.sequence.items.top - n->data.sequence.items.start > MAX_LINKS)
    {
      report (l, n->start_mark, "a pipeline has at most %d links, not %zu",
          MAX_LINKS,
          (gsize)(n->data.sequence.items.top - n->data.sequence.items.start));
      return;
    }
  if (n && !is_null (n) && n->type == YAML_SEQUENCE_NODE)
    for (yaml_node_item_t *i = n->data.sequence.items.start;
         i < n->data.sequence.items.top; i++)
      load_link (l, node (l, *i),
          alias_at (l, n, (gsize)(i - n->data.sequence.items.start)));
  wire_links (l);

  l->overrides = overrides;
  for (guint i = 0; overrides && overrides[i]; i++)
    {
      g_debug ("--set %s", overrides[i]);
      apply_override (l, overrides[i]);
    }
  check_meetings (l);
  check_stage_files_per_rank (l);
  check_files_across_ranks (l);
  check_inputs (l);
}

/* libyaml's problem in @parser, with where it is */
static void
report_syntax (Loader *l, yaml_parser_t *parser, const char *yaml)
{
  yaml_mark_t mark;
  g_autofree gchar *problem = accel_yaml_syntax_problem (parser, yaml, &mark);

  report (l, mark, "%s", problem);
}

/* a stage that writes its frames into the pipeline file @file itself (a
 * location mistyped: p.yaml for p.raw) wrote over it, and the run went
 * on as if nothing were wrong: reported at its location. Returns whether
 * it reported one */
static gboolean
report_writes_itself (Loader *l, const struct stat *file)
{
  guint before = l->problems->len + l->n_dropped;

  for (guint i = 0; i < l->decls->len; i++)
    {
      Decl *decl = l->decls->pdata[i];
      g_autofree gchar *path = NULL, *about = NULL, *problem = NULL;
      struct stat st;

      if (!decl->stage
          || !G_TYPE_CHECK_INSTANCE_TYPE (decl->stage, ACCEL_TYPE_FILE_OUTPUT))
        continue;
      path = accel_file_output_get_path (ACCEL_FILE_OUTPUT (decl->stage));
      if (!path || g_stat (path, &st) != 0 || st.st_dev != file->st_dev
          || st.st_ino != file->st_ino)
        continue;
      about = g_strdup_printf ("stage '%s' (%s): ", decl->name,
          accel_stage_get_kind_name (decl->stage));
      problem = g_strdup_printf ("%slocation %s is the pipeline file "
                                 "itself: the run would write over it",
          about, path);
      report (
          l, problem_mark (l, decl, problem, strlen (about)), "%s", problem);
    }
  return l->problems->len + l->n_dropped > before;
}

/* the graph of @yaml, read from the file @file where it is one */
static AccelGraph *
load_yaml (const char *yaml, const char *origin, const struct stat *file,
    const char *const *overrides, GError **error)
{
  yaml_parser_t parser;
  yaml_document_t doc, extra;
  g_autoptr (GError) prep_error = NULL;
  g_autofree gchar *shape_problem = NULL;
  /* a file's name may hold a newline or an escape sequence too */
  g_autofree gchar *origin_escaped
      = accel_yaml_escape_controls (g_strdup (origin ? origin : "<string>"));
  g_autoptr (GArray) asides = accel_yaml_asides_new ();
  gboolean shape_ok;
  yaml_mark_t shape_mark;
  Loader l = { 0 };
  yaml_node_t *root;
  AccelGraph *result = NULL;

  g_return_val_if_fail (yaml != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  l.origin = origin_escaped;
  l.problems = g_array_new (FALSE, FALSE, sizeof (Problem));
  g_array_set_clear_func (l.problems, problem_clear);
  l.decls = g_ptr_array_new_with_free_func (decl_free);
  l.by_name = g_hash_table_new (g_str_hash, g_str_equal);
  l.links = g_array_new (FALSE, FALSE, sizeof (Link));
  g_array_set_clear_func (l.links, link_clear);
  l.linked = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  l.unknown_told
      = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  l.defaults = g_array_new (FALSE, FALSE, sizeof (Default));
  g_array_set_clear_func (l.defaults, default_clear);
  l.doc = &doc;
  l.aliases = accel_yaml_aliases_new ();
  accel_yaml_suggestions_reset ();

  shape_ok = accel_yaml_check_shape (
      yaml, &shape_mark, &shape_problem, l.aliases, asides);
  for (guint i = 0; i < asides->len; i++)
    {
      AccelYamlAside *aside = &g_array_index (asides, AccelYamlAside, i);
      report (&l, aside->mark, "%s", aside->problem);
    }
  if (!shape_ok)
    {
      report (&l, shape_mark, "%s", shape_problem);
      goto done;
    }
  yaml_parser_initialize (&parser);
  yaml_parser_set_input_string (
      &parser, (const unsigned char *)yaml, strlen (yaml));
  if (!yaml_parser_load (&parser, &doc))
    {
      report_syntax (&l, &parser, yaml);
      yaml_parser_delete (&parser);
      goto done;
    }

  root = yaml_document_get_root_node (&doc);
  if (!root)
    {
      report (&l, no_mark,
          "the file is empty; expected a mapping with pipeline, stages and "
          "links");
      yaml_parser_delete (&parser);
      goto free_doc;
    }
  /* one pipeline per file: a second document would be ignored */
  if (!yaml_parser_load (&parser, &extra))
    report_syntax (&l, &parser, yaml);
  else
    {
      if (yaml_document_get_root_node (&extra))
        report (&l, extra.start_mark,
            "a second document; a file declares one pipeline");
      yaml_document_delete (&extra);
    }
  yaml_parser_delete (&parser);

  load_root (&l, root, overrides);
  /* before preparing: a source's description that records what it reads
   * opens its file as it prerolls */
  if (l.graph && !l.incomplete && file && report_writes_itself (&l, file))
    goto free_doc;
  if (l.graph && !l.incomplete && !accel_graph_prepare (l.graph, &prep_error))
    report_prepare (&l, prep_error);
  else if (l.graph && !l.incomplete)
    {
      /* what preparing decided on the file's behalf: inserted copies */
      GPtrArray *notes = accel_graph_get_notes (l.graph);
      for (guint i = 0; i < notes->len; i++)
        g_debug ("%s: %s", l.origin, (const char *)notes->pdata[i]);
    }

free_doc:
  yaml_document_delete (&doc);
done:
  if (l.problems->len == 0)
    {
      g_debug ("%s: graph '%s' prepared, %u stages, %u links", l.origin,
          accel_graph_get_name (l.graph), l.decls->len, l.links->len);
      result = g_steal_pointer (&l.graph);
    }
  else
    {
      g_autoptr (GString) all = g_string_new (NULL);
      g_array_sort (l.problems, compare_problems);
      for (guint i = 0; i < l.problems->len; i++)
        g_string_append_printf (all, "%s%s", i ? "\n" : "",
            g_array_index (l.problems, Problem, i).text);
      if (l.n_dropped)
        g_string_append_printf (
            all, "\n%s: %u more problems not shown", l.origin, l.n_dropped);
      g_debug (
          "%s: %u problems, no graph", l.origin, l.problems->len + l.n_dropped);
      g_set_error_literal (
          error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE, all->str);
    }
  g_clear_object (&l.graph);
  g_array_unref (l.problems);
  g_hash_table_unref (l.by_name);
  g_ptr_array_unref (l.decls);
  g_array_unref (l.links);
  g_hash_table_unref (l.linked);
  g_hash_table_unref (l.unknown_told);
  g_array_unref (l.defaults);
  g_hash_table_unref (l.aliases);
  g_clear_pointer (&l.placer, accel_placer_free);
  return result;
}

/**
 * accel_graph_new_from_yaml_string_full:
 * @yaml: the pipeline, UTF-8
 * @origin: (nullable): a name for messages, such as the file name
 * @overrides: (nullable) (array zero-terminated=1): settings applied after
 *   the file's own, each `stage.param=value`, `stage.device=DEVICE` or
 *   `device=DEVICE`
 * @error: return location for a #GError, or %NULL
 *
 * Builds and prepares the graph @yaml declares (the format is in
 * docs/yaml.md). Every problem is reported, not only the first: the error's
 * message has one line per problem, in the order of the text, each starting
 * with `origin:line:column:` (problems of @overrides come last, each
 * starting with `--set SETTING:`). Called from any thread.
 *
 * Returns: (transfer full): the prepared graph, or %NULL with
 * %ACCEL_ERROR_INVALID_PIPELINE.
 */
AccelGraph *
accel_graph_new_from_yaml_string_full (const char *yaml, const char *origin,
    const char *const *overrides, GError **error)
{
  return load_yaml (yaml, origin, NULL, overrides, error);
}

/**
 * accel_graph_new_from_yaml_string:
 * @yaml: the pipeline, UTF-8
 * @origin: (nullable): a name for messages, such as the file name
 * @error: return location for a #GError, or %NULL
 *
 * accel_graph_new_from_yaml_string_full() without overrides. Called from any
 * thread.
 *
 * Returns: (transfer full): the prepared graph, or %NULL with
 * %ACCEL_ERROR_INVALID_PIPELINE.
 */
AccelGraph *
accel_graph_new_from_yaml_string (
    const char *yaml, const char *origin, GError **error)
{
  return accel_graph_new_from_yaml_string_full (yaml, origin, NULL, error);
}

/* the file's bytes, NUL-terminated, refusing more than MAX_FILE_BYTES
 * (accel_file_read_capped ()), its errors at the file's 0:0 */
static gboolean
read_capped (const char *path, gchar **text, gsize *length, GError **error)
{
  GError *local = NULL;

  g_autofree gchar *name = NULL;

  if (accel_file_read_capped (
          path, MAX_FILE_BYTES, "a pipeline", text, length, &local))
    return TRUE;
  /* the name as the file's own problems give it: escaped */
  name = accel_yaml_escape_controls (g_strdup (path));
  g_propagate_prefixed_error (error, local, "%s:0:0: ", name);
  return FALSE;
}

/**
 * accel_graph_new_from_yaml_file_full:
 * @path: a YAML pipeline file
 * @overrides: (nullable) (array zero-terminated=1): settings applied after
 *   the file's own, as for accel_graph_new_from_yaml_string_full()
 * @error: return location for a #GError, or %NULL
 *
 * accel_graph_new_from_yaml_string_full() on the file's contents; messages
 * start with @path. A stage that would write its frames into @path itself
 * is a problem, reported at its location. Called from any thread.
 *
 * Returns: (transfer full): the prepared graph, or %NULL with
 * %ACCEL_ERROR_INVALID_PIPELINE.
 */
AccelGraph *
accel_graph_new_from_yaml_file_full (
    const char *path, const char *const *overrides, GError **error)
{
  g_autofree gchar *text = NULL;
  g_autoptr (GError) read_error = NULL;
  gsize length;
  struct stat st;

  g_return_val_if_fail (path != NULL, NULL);

  if (!read_capped (path, &text, &length, &read_error))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE, "%s",
          read_error->message);
      return NULL;
    }
  if (strlen (text) != length)
    {
      gsize line = 1;
      const char *bol = text;
      for (const char *c = text; *c; c++)
        if (*c == '\n')
          {
            line++;
            bol = c + 1;
          }
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "%s:%zu:%zu: a NUL byte; a pipeline is UTF-8 text", path, line,
          strlen (bol) + 1);
      return NULL;
    }
  g_debug ("read %s: %" G_GSIZE_FORMAT " bytes", path, length);
  /* a pipe's or a device's contents are not what a stage writes there */
  return load_yaml (text, path,
      g_stat (path, &st) == 0 && S_ISREG (st.st_mode) ? &st : NULL, overrides,
      error);
}

/**
 * accel_graph_new_from_yaml_file:
 * @path: a YAML pipeline file
 * @error: return location for a #GError, or %NULL
 *
 * accel_graph_new_from_yaml_file_full() without overrides. Called from any
 * thread.
 *
 * Returns: (transfer full): the prepared graph, or %NULL with
 * %ACCEL_ERROR_INVALID_PIPELINE.
 */
AccelGraph *
accel_graph_new_from_yaml_file (const char *path, GError **error)
{
  return accel_graph_new_from_yaml_file_full (path, NULL, error);
}
