/* accel: the YAML loader. Every problem in a file is reported, each with
 * file:line:column and what was expected; the graph is only built when there
 * is none */
#define G_LOG_DOMAIN "accel-yaml"

#include "accel-private.h"

#include <yaml.h>

typedef struct
{
  const char *origin;
  yaml_document_t *doc;
  GPtrArray *errors; /* gchar*, "origin:line:column: message" */
  AccelGraph *graph;
  GHashTable *declared; /* stage names seen, valid or not */
  GArray *links;        /* Link */
  yaml_mark_t links_mark;
  AccelStreamPolicy policy;
  GHashTable *defaults; /* property name -> yaml_node_t* */
  guint n_overrides;    /* --set settings seen, to report them in order */
  yaml_mark_t defaults_mark;
} Loader;

typedef struct
{
  gchar *src, *dst; /* "stage[.port]" */
  yaml_mark_t mark;
} Link;

static const char *const top_keys[]
    = { "pipeline", "device", "defaults", "stages", "links", NULL };
static const char *const stage_keys[]
    = { "name", "kind", "params", "device", NULL };
/* defaults that are stage parameters, and the parameter each one sets */
static const struct
{
  const char *key, *param;
} default_params[] = {
  { "completion", "completion" },
  { "mailbox", "mailbox-size" },
  { "thread", "thread" },
};

static const char *const default_keys[]
    = { "completion", "streams", "mailbox", "thread", NULL };

static void G_GNUC_PRINTF (3, 4)
    report (Loader *l, yaml_mark_t mark, const char *format, ...)
{
  va_list args;
  g_autofree gchar *msg = NULL;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  /* the mark first, for sorting: "line:column\tmessage" */
  g_ptr_array_add (l->errors,
      g_strdup_printf ("%08zu:%08zu\t%s:%zu:%zu: %s", mark.line, mark.column,
          l->origin, mark.line + 1, mark.column + 1, msg));
}

/* " (did you mean 'x'?)" for the nearest of @names, or "" */
static gchar *
did_you_mean (const char *word, const char *const *names, guint n)
{
  const char *best = NULL;
  guint best_d = G_MAXUINT;

  for (guint i = 0; i < n && names[i]; i++)
    {
      guint d = accel_edit_distance (word, names[i]);
      if (d < best_d)
        {
          best_d = d;
          best = names[i];
        }
    }
  if (best && best_d <= MAX (2, strlen (word) / 3))
    return g_strdup_printf (" (did you mean '%s'?)", best);
  return g_strdup ("");
}

static gchar *
join_keys (const char *const *keys)
{
  return g_strjoinv (", ", (gchar **)keys);
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

static const char *
node_kind (yaml_node_t *n)
{
  switch (n->type)
    {
    case YAML_SCALAR_NODE:
      return "a scalar";
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
  report (l, n->start_mark, "%s must be %s, not %s", what,
      type == YAML_MAPPING_NODE    ? "a mapping"
      : type == YAML_SEQUENCE_NODE ? "a list"
                                   : "a scalar",
      node_kind (n));
  return FALSE;
}

/* a scalar into a GValue of @pspec's type, checked against its range */
static gboolean
convert (const char *text, GParamSpec *pspec, GValue *value, gchar **problem)
{
  GType t = G_PARAM_SPEC_VALUE_TYPE (pspec);
  GType fundamental = G_TYPE_FUNDAMENTAL (t);
  g_autoptr (GError) error = NULL;
  gboolean ok = TRUE;

  g_value_init (value, t);
  switch (fundamental)
    {
    case G_TYPE_STRING:
      g_value_set_string (value, text);
      break;
    case G_TYPE_BOOLEAN:
      if (g_ascii_strcasecmp (text, "true") == 0
          || g_ascii_strcasecmp (text, "yes") == 0
          || g_ascii_strcasecmp (text, "on") == 0)
        g_value_set_boolean (value, TRUE);
      else if (g_ascii_strcasecmp (text, "false") == 0
               || g_ascii_strcasecmp (text, "no") == 0
               || g_ascii_strcasecmp (text, "off") == 0)
        g_value_set_boolean (value, FALSE);
      else
        {
          *problem = g_strdup ("must be true or false");
          ok = FALSE;
        }
      break;
    case G_TYPE_INT:
    case G_TYPE_INT64:
    case G_TYPE_LONG:
      {
        gint64 v;
        if (!g_ascii_string_to_signed (
                text, 10, G_MININT64, G_MAXINT64, &v, &error))
          {
            *problem = g_strdup ("must be an integer");
            ok = FALSE;
          }
        else if (fundamental == G_TYPE_INT)
          g_value_set_int (value, (gint)CLAMP (v, G_MININT, G_MAXINT));
        else if (fundamental == G_TYPE_LONG)
          g_value_set_long (value, (glong)v);
        else
          g_value_set_int64 (value, v);
        break;
      }
    case G_TYPE_UINT:
    case G_TYPE_UINT64:
    case G_TYPE_ULONG:
      {
        guint64 v;
        if (!g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, &v, &error))
          {
            *problem = g_strdup ("must be a non-negative integer");
            ok = FALSE;
          }
        else if (fundamental == G_TYPE_UINT)
          g_value_set_uint (value, (guint)MIN (v, G_MAXUINT));
        else if (fundamental == G_TYPE_ULONG)
          g_value_set_ulong (value, (gulong)v);
        else
          g_value_set_uint64 (value, v);
        break;
      }
    case G_TYPE_FLOAT:
    case G_TYPE_DOUBLE:
      {
        gchar *end = NULL;
        gdouble v = g_ascii_strtod (text, &end);
        if (!*text || *end)
          {
            *problem = g_strdup ("must be a number");
            ok = FALSE;
          }
        else if (fundamental == G_TYPE_FLOAT)
          g_value_set_float (value, (gfloat)v);
        else
          g_value_set_double (value, v);
        break;
      }
    case G_TYPE_ENUM:
      {
        GEnumClass *ec = G_PARAM_SPEC_ENUM (pspec)->enum_class;
        GEnumValue *ev = g_enum_get_value_by_nick (ec, text);
        if (!ev)
          {
            g_autoptr (GStrvBuilder) b = g_strv_builder_new ();
            g_auto (GStrv) nicks = NULL;
            g_autofree gchar *list = NULL;
            for (guint i = 0; i < ec->n_values; i++)
              g_strv_builder_add (b, ec->values[i].value_nick);
            nicks = g_strv_builder_end (b);
            list = g_strjoinv (", ", nicks);
            *problem = g_strdup_printf ("must be one of %s", list);
            ok = FALSE;
          }
        else
          g_value_set_enum (value, ev->value);
        break;
      }
    default:
      *problem
          = g_strdup_printf ("cannot be set from YAML (a %s)", g_type_name (t));
      ok = FALSE;
    }

  /* out of range: validation would change the value */
  if (ok && g_param_value_validate (pspec, value))
    {
      GValue def = G_VALUE_INIT;
      g_autofree gchar *range = NULL;
      if (G_IS_PARAM_SPEC_INT (pspec))
        range = g_strdup_printf ("%d .. %d", G_PARAM_SPEC_INT (pspec)->minimum,
            G_PARAM_SPEC_INT (pspec)->maximum);
      else if (G_IS_PARAM_SPEC_UINT (pspec))
        range = g_strdup_printf ("%u .. %u", G_PARAM_SPEC_UINT (pspec)->minimum,
            G_PARAM_SPEC_UINT (pspec)->maximum);
      else if (G_IS_PARAM_SPEC_INT64 (pspec))
        range = g_strdup_printf ("%" G_GINT64_FORMAT " .. %" G_GINT64_FORMAT,
            G_PARAM_SPEC_INT64 (pspec)->minimum,
            G_PARAM_SPEC_INT64 (pspec)->maximum);
      else if (G_IS_PARAM_SPEC_UINT64 (pspec))
        range = g_strdup_printf ("%" G_GUINT64_FORMAT " .. %" G_GUINT64_FORMAT,
            G_PARAM_SPEC_UINT64 (pspec)->minimum,
            G_PARAM_SPEC_UINT64 (pspec)->maximum);
      else if (G_IS_PARAM_SPEC_FLOAT (pspec))
        range
            = g_strdup_printf ("%g .. %g", G_PARAM_SPEC_FLOAT (pspec)->minimum,
                G_PARAM_SPEC_FLOAT (pspec)->maximum);
      else if (G_IS_PARAM_SPEC_DOUBLE (pspec))
        range
            = g_strdup_printf ("%g .. %g", G_PARAM_SPEC_DOUBLE (pspec)->minimum,
                G_PARAM_SPEC_DOUBLE (pspec)->maximum);
      *problem = g_strdup_printf (
          "is out of range: %s is not in %s", text, range ? range : "range");
      ok = FALSE;
      (void)def;
    }
  if (!ok)
    g_value_unset (value);
  return ok;
}

static void
set_param (Loader *l, AccelStage *stage, const char *name, const char *text,
    yaml_mark_t mark, const char *where)
{
  GObjectClass *klass = G_OBJECT_GET_CLASS (stage);
  GParamSpec *pspec = g_object_class_find_property (klass, name);
  g_autofree gchar *problem = NULL;
  GValue value = G_VALUE_INIT;

  if (!pspec || !(pspec->flags & G_PARAM_WRITABLE) || g_str_equal (name, "name")
      || g_str_equal (name, "device"))
    {
      guint n;
      g_autofree GParamSpec **all = g_object_class_list_properties (klass, &n);
      g_autofree const char **names = g_new0 (const char *, n + 1);
      g_autofree gchar *hint = NULL;
      for (guint i = 0; i < n; i++)
        names[i] = all[i]->name;
      hint = did_you_mean (name, names, n);
      report (l, mark, "%sstage '%s' (%s) has no parameter '%s'%s", where,
          accel_stage_get_name (stage), accel_stage_get_kind_name (stage), name,
          hint);
      return;
    }
  if (!text)
    {
      report (l, mark, "%sparameter '%s' of stage '%s' must be a scalar", where,
          name, accel_stage_get_name (stage));
      return;
    }
  if (!convert (text, pspec, &value, &problem))
    {
      report (l, mark, "%sparameter '%s' of stage '%s' (%s) %s", where, name,
          accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
          problem);
      return;
    }
  g_object_set_property (G_OBJECT (stage), name, &value);
  g_value_unset (&value);
}

static gboolean
parse_device (Loader *l, yaml_node_t *n, AccelDevice **device)
{
  const char *text = scalar (n);
  guint64 index;
  g_autoptr (GError) error = NULL;

  *device = NULL;
  if (!expect (l, n, YAML_SCALAR_NODE, "device"))
    return FALSE;
  if (g_str_equal (text, "auto"))
    return TRUE;
  if (g_str_equal (text, "host"))
    {
      *device = accel_device_get_host ();
      return TRUE;
    }
  if (!g_ascii_string_to_unsigned (text, 10, 0, 63, &index, NULL))
    {
      report (l, n->start_mark,
          "device must be auto, host or a GPU number, not '%s'", text);
      return FALSE;
    }
  if (accel_backend_get_default () == ACCEL_BACKEND_HOST)
    {
      /* the host backend runs everything on the host */
      *device = accel_device_get_host ();
      return TRUE;
    }
  *device = accel_device_get_cuda ((gint)index, &error);
  if (!*device)
    {
      report (l, n->start_mark, "%s", error->message);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_keys (
    Loader *l, yaml_node_t *map, const char *const *keys, const char *what)
{
  gboolean ok = TRUE;

  for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
       p < map->data.mapping.pairs.top; p++)
    {
      yaml_node_t *k = node (l, p->key);
      const char *key = scalar (k);
      if (!key || !g_strv_contains (keys, key))
        {
          g_autofree gchar *hint = did_you_mean (
              key ? key : "", keys, g_strv_length ((gchar **)keys));
          g_autofree gchar *list = join_keys (keys);
          report (l, k->start_mark,
              "unknown key '%s' in %s%s; expected one of %s", key ? key : "?",
              what, hint, list);
          ok = FALSE;
        }
    }
  return ok;
}

static yaml_node_t *
lookup (Loader *l, yaml_node_t *map, const char *key)
{
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
       p < map->data.mapping.pairs.top; p++)
    if (g_strcmp0 (scalar (node (l, p->key)), key) == 0)
      return node (l, p->value);
  return NULL;
}

static void
load_defaults (Loader *l, yaml_node_t *map)
{
  yaml_node_t *streams;

  if (!expect (l, map, YAML_MAPPING_NODE, "defaults"))
    return;
  check_keys (l, map, default_keys, "defaults");
  l->defaults_mark = map->start_mark;
  streams = lookup (l, map, "streams");
  if (streams && expect (l, streams, YAML_SCALAR_NODE, "streams"))
    {
      const char *s = scalar (streams);
      if (g_str_equal (s, "per-stage"))
        l->policy = ACCEL_STREAM_POLICY_PER_STAGE;
      else if (g_str_equal (s, "single"))
        l->policy = ACCEL_STREAM_POLICY_SINGLE;
      else if (g_str_equal (s, "pooled"))
        l->policy = ACCEL_STREAM_POLICY_POOLED;
      else
        report (l, streams->start_mark,
            "streams must be one of per-stage, single, pooled, not '%s'", s);
    }
  /* the others are stage parameters every stage gets unless it sets them */
  for (guint i = 0; i < G_N_ELEMENTS (default_params); i++)
    {
      yaml_node_t *v = lookup (l, map, default_params[i].key);
      if (v)
        g_hash_table_insert (l->defaults, (gpointer)default_params[i].param, v);
    }
}

static void
load_stage (Loader *l, yaml_node_t *map)
{
  yaml_node_t *name_n, *kind_n, *params, *dev_n;
  const char *name, *kind;
  g_autoptr (AccelStage) stage = NULL;
  g_autoptr (GError) error = NULL;
  GHashTableIter it;
  gpointer key, value;

  if (!expect (l, map, YAML_MAPPING_NODE, "a stage"))
    return;
  check_keys (l, map, stage_keys, "a stage");
  name_n = lookup (l, map, "name");
  kind_n = lookup (l, map, "kind");
  if (!name_n || !scalar (name_n))
    {
      report (l, map->start_mark, "a stage needs a name (name: ...)");
      return;
    }
  name = scalar (name_n);
  if (g_hash_table_contains (l->declared, name))
    {
      report (l, name_n->start_mark, "a stage named '%s' is already declared",
          name);
      return;
    }
  g_hash_table_add (l->declared, g_strdup (name));
  if (!kind_n || !scalar (kind_n))
    {
      report (l, map->start_mark, "stage '%s' needs a kind (kind: ...)", name);
      return;
    }
  kind = scalar (kind_n);
  stage = accel_stage_new (kind, name, &error);
  if (!stage)
    {
      report (l, kind_n->start_mark, "%s", error->message);
      return;
    }

  dev_n = lookup (l, map, "device");
  if (dev_n)
    {
      AccelDevice *dev;
      if (parse_device (l, dev_n, &dev) && dev)
        g_object_set (stage, "device", dev, NULL);
    }

  g_hash_table_iter_init (&it, l->defaults);
  while (g_hash_table_iter_next (&it, &key, &value))
    set_param (l, stage, key, scalar (value),
        ((yaml_node_t *)value)->start_mark, "defaults: ");

  params = lookup (l, map, "params");
  if (params && expect (l, params, YAML_MAPPING_NODE, "params"))
    for (yaml_node_pair_t *p = params->data.mapping.pairs.start;
         p < params->data.mapping.pairs.top; p++)
      {
        yaml_node_t *k = node (l, p->key), *v = node (l, p->value);
        set_param (l, stage, scalar (k) ? scalar (k) : "?", scalar (v),
            scalar (v) ? v->start_mark : k->start_mark, "");
      }

  if (!accel_graph_add (l->graph, stage, &error))
    report (l, name_n->start_mark, "%s", error->message);
}

/* "a -> b", "a.out -> b.in" */
static void
load_link (Loader *l, yaml_node_t *n)
{
  const char *text = scalar (n);
  g_auto (GStrv) ends = NULL;
  Link link;

  if (!expect (l, n, YAML_SCALAR_NODE, "a link"))
    return;
  ends = g_strsplit (text, "->", -1);
  if (g_strv_length (ends) != 2 || !*g_strstrip (ends[0])
      || !*g_strstrip (ends[1]))
    {
      report (l, n->start_mark,
          "a link must read 'stage -> stage' or 'stage.port -> stage.port', "
          "not '%s'",
          text);
      return;
    }
  link.src = g_strdup (ends[0]);
  link.dst = g_strdup (ends[1]);
  link.mark = n->start_mark;
  g_array_append_val (l->links, link);
}

static gboolean
stage_part_declared (Loader *l, const char *spec, yaml_mark_t mark)
{
  g_auto (GStrv) parts = g_strsplit (spec, ".", 2);
  guint n;
  g_autofree gpointer *names = NULL;
  g_autofree gchar *hint = NULL;

  if (g_hash_table_contains (l->declared, parts[0]))
    return TRUE;
  names = g_hash_table_get_keys_as_array (l->declared, &n);
  hint = did_you_mean (parts[0], (const char *const *)names, n);
  report (l, mark, "link to unknown stage '%s'%s", parts[0], hint);
  return FALSE;
}

static void
wire_links (Loader *l)
{
  for (guint i = 0; i < l->links->len; i++)
    {
      Link *link = &g_array_index (l->links, Link, i);
      g_autoptr (GError) error = NULL;
      g_auto (GStrv) s = g_strsplit (link->src, ".", 2);
      g_auto (GStrv) d = g_strsplit (link->dst, ".", 2);

      if (!stage_part_declared (l, link->src, link->mark)
          | !stage_part_declared (l, link->dst, link->mark))
        continue;
      /* a stage that failed to load has been reported already */
      if (!accel_graph_get_stage (l->graph, s[0])
          || !accel_graph_get_stage (l->graph, d[0]))
        continue;
      if (!accel_graph_link (l->graph, link->src, link->dst, &error))
        report (l, link->mark, "%s", error->message);
    }
}

/* an error from prepare() at the link or stage it names */
static void
report_prepare (Loader *l, const GError *error)
{
  for (guint i = 0; i < l->links->len; i++)
    {
      Link *link = &g_array_index (l->links, Link, i);
      g_auto (GStrv) s = g_strsplit (link->src, ".", 2);
      g_auto (GStrv) d = g_strsplit (link->dst, ".", 2);
      g_autofree gchar *qs = g_strdup_printf ("'%s", s[0]);
      g_autofree gchar *qd = g_strdup_printf ("'%s", d[0]);
      if (strstr (error->message, qs) && strstr (error->message, qd))
        {
          report (l, link->mark, "%s", error->message);
          return;
        }
    }
  report (l, l->links_mark, "%s", error->message);
}

static void
link_clear (gpointer data)
{
  Link *link = data;

  g_free (link->src);
  g_free (link->dst);
}

static void
apply_override (Loader *l, const char *text)
{
  const char *eq = strchr (text, '=');
  g_autofree gchar *lhs = eq ? g_strndup (text, eq - text) : NULL;
  g_auto (GStrv) parts = lhs ? g_strsplit (lhs, ".", 2) : NULL;
  g_autofree gchar *where = g_strdup_printf ("--set %s: ", text);
  yaml_mark_t none = { 0, 0, 0 };
  AccelStage *stage;

  if (eq && parts[0] && !parts[1] && g_str_equal (parts[0], "device"))
    {
      /* the pipeline's own device key */
      AccelDevice *dev = NULL;
      yaml_node_t fake = { 0 };
      fake.type = YAML_SCALAR_NODE;
      fake.data.scalar.value = (yaml_char_t *)(eq + 1);
      if (parse_device (l, &fake, &dev))
        accel_graph_set_device (l->graph, dev);
      return;
    }
  if (!eq || !parts[0] || !parts[1])
    {
      g_ptr_array_add (l->errors,
          g_strdup_printf ("~%08u\t--set %s: expected stage.param=value",
              l->n_overrides, text));
      return;
    }
  stage = accel_graph_get_stage (l->graph, parts[0]);
  if (!stage)
    {
      g_ptr_array_add (
          l->errors, g_strdup_printf ("~%08u\t--set %s: no stage named '%s'",
                         l->n_overrides, text, parts[0]));
      return;
    }
  /* marks mean nothing here: report through a bare prefix */
  {
    guint before = l->errors->len;
    set_param (l, stage, parts[1], eq + 1, none, where);
    if (l->errors->len > before)
      {
        gchar *msg = l->errors->pdata[before];
        const char *tail = strstr (msg, "--set ");
        l->errors->pdata[before] = g_strdup_printf ("~\t%s", tail ? tail : msg);
        g_free (msg);
      }
  }
}

static gint
compare_errors (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char *const *)a, *(const char *const *)b);
}

/**
 * accel_graph_new_from_yaml_string:
 * @yaml: the pipeline
 * @origin: (nullable): a name for messages, such as the file name
 * @overrides: (nullable) (array zero-terminated=1): "stage.param=value"
 *   settings applied after the file's own
 * @error: return location for a #GError, or %NULL
 *
 * Builds and prepares the graph @yaml declares (see docs/yaml.md). Every
 * problem in the text is reported, one per line, each starting with
 * `origin:line:column:`.
 *
 * Returns: (transfer full): the prepared graph, or %NULL with
 * %ACCEL_ERROR_INVALID_PIPELINE (or %ACCEL_ERROR_TYPE_MISMATCH).
 */
AccelGraph *
accel_graph_new_from_yaml_string (const char *yaml, const char *origin,
    const char *const *overrides, GError **error)
{
  yaml_parser_t parser;
  yaml_document_t doc;
  g_autoptr (GError) prep_error = NULL;
  Loader l = { 0 };
  yaml_node_t *root, *n;
  AccelGraph *result = NULL;
  gint code = ACCEL_ERROR_INVALID_PIPELINE;

  g_return_val_if_fail (yaml != NULL, NULL);

  l.origin = origin ? origin : "<string>";
  l.errors = g_ptr_array_new_with_free_func (g_free);
  l.declared = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  l.links = g_array_new (FALSE, FALSE, sizeof (Link));
  g_array_set_clear_func (l.links, link_clear);
  l.defaults = g_hash_table_new (g_str_hash, g_str_equal);
  l.doc = &doc;

  yaml_parser_initialize (&parser);
  yaml_parser_set_input_string (
      &parser, (const unsigned char *)yaml, strlen (yaml));
  if (!yaml_parser_load (&parser, &doc))
    {
      report (&l, parser.problem_mark, "%s%s%s", parser.problem,
          parser.context ? " " : "", parser.context ? parser.context : "");
      yaml_parser_delete (&parser);
      goto done;
    }
  yaml_parser_delete (&parser);

  root = yaml_document_get_root_node (&doc);
  if (!root)
    {
      yaml_mark_t start = { 0, 0, 0 };
      report (&l, start,
          "the file is empty; expected a mapping with "
          "pipeline, stages and links");
      goto free_doc;
    }
  if (!expect (&l, root, YAML_MAPPING_NODE, "the pipeline"))
    goto free_doc;
  check_keys (&l, root, top_keys, "the pipeline");

  n = lookup (&l, root, "pipeline");
  l.graph = accel_graph_new (n && scalar (n) ? scalar (n) : l.origin);
  n = lookup (&l, root, "device");
  if (n)
    {
      AccelDevice *dev;
      if (parse_device (&l, n, &dev) && dev)
        accel_graph_set_device (l.graph, dev);
    }
  n = lookup (&l, root, "defaults");
  if (n)
    load_defaults (&l, n);
  accel_graph_set_stream_policy (l.graph, l.policy, 4);

  n = lookup (&l, root, "stages");
  if (!n)
    report (&l, root->start_mark, "the pipeline needs stages (stages: ...)");
  else if (expect (&l, n, YAML_SEQUENCE_NODE, "stages"))
    for (yaml_node_item_t *i = n->data.sequence.items.start;
         i < n->data.sequence.items.top; i++)
      load_stage (&l, node (&l, *i));

  n = lookup (&l, root, "links");
  if (n && expect (&l, n, YAML_SEQUENCE_NODE, "links"))
    {
      l.links_mark = n->start_mark;
      for (yaml_node_item_t *i = n->data.sequence.items.start;
           i < n->data.sequence.items.top; i++)
        load_link (&l, node (&l, *i));
    }
  wire_links (&l);

  for (guint i = 0; overrides && overrides[i]; i++, l.n_overrides++)
    apply_override (&l, overrides[i]);

  if (l.errors->len == 0 && !accel_graph_prepare (l.graph, &prep_error))
    {
      code = prep_error->code;
      report_prepare (&l, prep_error);
    }

free_doc:
  yaml_document_delete (&doc);
done:
  if (l.errors->len == 0)
    result = g_steal_pointer (&l.graph);
  else
    {
      /* in the order of the file, then drop the sort keys */
      g_autoptr (GString) all = g_string_new (NULL);
      g_ptr_array_sort (l.errors, compare_errors);
      for (guint i = 0; i < l.errors->len; i++)
        {
          const char *e = l.errors->pdata[i];
          const char *tab = strchr (e, '\t');
          g_string_append_printf (
              all, "%s%s", i ? "\n" : "", tab ? tab + 1 : e);
        }
      g_set_error_literal (error, ACCEL_ERROR, code, all->str);
    }
  g_clear_object (&l.graph);
  g_ptr_array_unref (l.errors);
  g_hash_table_unref (l.declared);
  g_array_unref (l.links);
  g_hash_table_unref (l.defaults);
  return result;
}

/**
 * accel_graph_new_from_yaml_file:
 * @path: a YAML pipeline file
 * @overrides: (nullable) (array zero-terminated=1): "stage.param=value"
 * @error: return location for a #GError, or %NULL
 *
 * accel_graph_new_from_yaml_string() on the file's contents; messages start
 * with @path.
 *
 * Returns: (transfer full): the prepared graph, or %NULL.
 */
AccelGraph *
accel_graph_new_from_yaml_file (
    const char *path, const char *const *overrides, GError **error)
{
  g_autofree gchar *text = NULL;
  g_autoptr (GError) read_error = NULL;

  if (!g_file_get_contents (path, &text, NULL, &read_error))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE, "%s",
          read_error->message);
      return NULL;
    }
  return accel_graph_new_from_yaml_string (text, path, overrides, error);
}
