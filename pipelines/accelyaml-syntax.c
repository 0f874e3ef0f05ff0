/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the YAML loader's checks of the text before a document is built:
 * its shape (how deep it nests, how many nodes its aliases reach), its
 * tags, and libyaml's syntax errors, said with where they are */
#define G_LOG_DOMAIN "accel-yaml"

#include <glib.h>

#include <string.h>

#include "accelyaml-private.h"

/* the byte @chars characters into @text, never past its end */
static const char *
char_at (const char *text, gsize chars)
{
  const char *p = text;

  for (gsize i = 0; i < chars && *p; i++)
    {
      p++;
      while ((*p & 0xc0) == 0x80)
        p++;
    }
  return p;
}

/* what an anchored node stands for: its nodes and its scalars' bytes */
typedef struct
{
  guint64 nodes, bytes;
} Reach;

/* the problem with a node's explicit @tag, or NULL: values are read by
 * the setting they go to, so only YAML's own tags of the node's kind are
 * taken; an !include or a type of its own would be read as the plain text
 * after it */
static gchar *
tag_problem (const yaml_char_t *tag, yaml_event_type_t type)
{
  static const char *const scalar_tags[]
      = { "str", "int", "float", "bool", "null", NULL };
  const char *yaml_tag = "tag:yaml.org,2002:";
  const char *name;

  /* "!" alone is a plain scalar's */
  if (!tag || g_str_equal ((const char *)tag, "!"))
    return NULL;
  if (!g_str_has_prefix ((const char *)tag, yaml_tag))
    return g_strdup_printf (
        "the tag '%s' is not understood: a pipeline file takes YAML's own "
        "tags (!!str, !!int, !!float, !!bool, !!null) and no others, so no "
        "!include or type of its own; write the value itself",
        (const char *)tag);
  name = (const char *)tag + strlen (yaml_tag);
  if (type == YAML_SCALAR_EVENT           ? g_strv_contains (scalar_tags, name)
      : type == YAML_SEQUENCE_START_EVENT ? g_str_equal (name, "seq")
                                          : g_str_equal (name, "map"))
    return NULL;
  return g_strdup_printf ("the tag '!!%s' does not fit a %s here; a pipeline "
                          "file takes !!str, !!int, !!float, !!bool and "
                          "!!null on values, !!seq on lists, !!map on "
                          "mappings",
      name,
      type == YAML_SCALAR_EVENT           ? "value"
      : type == YAML_SEQUENCE_START_EVENT ? "list"
                                          : "mapping");
}

static void
alias_free (gpointer data)
{
  AccelYamlAlias *alias = data;

  g_free (alias->anchor);
  g_free (alias);
}

/* a table of where the first document's aliases stand, for
 * accel_yaml_check_shape () to fill: keyed by ACCEL_YAML_PLACE () (a
 * guint64), each an AccelYamlAlias */
GHashTable *
accel_yaml_aliases_new (void)
{
  return g_hash_table_new_full (
      g_int64_hash, g_int64_equal, g_free, alias_free);
}

static void
aside_clear (gpointer data)
{
  g_free (((AccelYamlAside *)data)->problem);
}

/* the problems accel_yaml_check_shape () finds that leave the rest of the
 * file to be read, for it to fill: each an AccelYamlAside */
GArray *
accel_yaml_asides_new (void)
{
  GArray *asides = g_array_new (FALSE, FALSE, sizeof (AccelYamlAside));

  g_array_set_clear_func (asides, aside_clear);
  return asides;
}

/* a tag that is not understood goes into @asides, with where it is: the
 * node is read as if it had none, so the file's other problems are found
 * too (one tag hid them all) */
static void
check_tag (GArray *asides, const yaml_char_t *tag, yaml_event_t *event)
{
  AccelYamlAside aside = { event->start_mark, NULL };

  if ((aside.problem = tag_problem (tag, event->type)))
    g_array_append_val (asides, aside);
}

/* the document's shape checked on its events, before it is built: nesting
 * deeper than MAX_DEPTH, or more than MAX_NODES nodes or MAX_ALIASED_BYTES
 * of scalar text reached with every alias counted as what it stands for
 * ("billion laughs", or a long scalar named a thousand times). FALSE with
 * the first such problem in @problem and where it is in @mark; a syntax
 * error is left to the loader, and tags that are not understood go into
 * @asides (accel_yaml_asides_new ()). Where the first document's aliases
 * stand goes into @aliases (accel_yaml_aliases_new ()): the document built
 * from the text has the anchored node in their place, and with it the
 * anchor's marks */
gboolean
accel_yaml_check_shape (const char *yaml, yaml_mark_t *mark, gchar **problem,
    GHashTable *aliases, GArray *asides)
{
  yaml_parser_t parser;
  yaml_event_t event;
  /* anchor -> Reach under it, for the document being read */
  g_autoptr (GHashTable) sizes
      = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  Reach count[MAX_DEPTH + 1]; /* so far in each open collection */
  gchar *anchor[MAX_DEPTH + 1];
  /* each open collection's node, numbered in the order of the events as
   * yaml_parser_load () numbers them (from 1; an alias makes none), and
   * the places taken in it so far */
  guint64 coll_node[MAX_DEPTH + 1], coll_places[MAX_DEPTH + 1];
  guint64 doc_nodes = 0;
  guint docs = 0;
  guint depth = 0;
  Reach total = { 0, 0 };
  gboolean ok = TRUE, done = FALSE, aliased = FALSE;

  yaml_parser_initialize (&parser);
  yaml_parser_set_input_string (
      &parser, (const unsigned char *)yaml, strlen (yaml));
  while (ok && !done && yaml_parser_parse (&parser, &event))
    {
      Reach add = { 0, 0 };
      const Reach *named;
      const char *name = NULL;
      guint64 at = 0;

      /* the place of a node in its collection: a mapping's keys and
       * values take turns */
      if (depth > 0
          && (event.type == YAML_SCALAR_EVENT || event.type == YAML_ALIAS_EVENT
              || event.type == YAML_SEQUENCE_START_EVENT
              || event.type == YAML_MAPPING_START_EVENT))
        at = coll_places[depth - 1]++;
      switch (event.type)
        {
        case YAML_STREAM_END_EVENT:
          done = TRUE;
          break;
        case YAML_DOCUMENT_START_EVENT:
          g_hash_table_remove_all (sizes);
          docs++;
          doc_nodes = 0;
          break;
        case YAML_SCALAR_EVENT:
          /* "\0" in a quoted scalar: every reader of the value would see
           * it end there */
          if (strlen ((const char *)event.data.scalar.value)
              != event.data.scalar.length)
            {
              *mark = event.start_mark;
              *problem = g_strdup (
                  "a value holds a NUL character (\\0); no setting takes one");
              ok = FALSE;
              break;
            }
          check_tag (asides, event.data.scalar.tag, &event);
          add = (Reach){ 1, event.data.scalar.length };
          name = (const char *)event.data.scalar.anchor;
          doc_nodes++;
          break;
        case YAML_ALIAS_EVENT:
          named = g_hash_table_lookup (
              sizes, (const char *)event.data.alias.anchor);
          add = named ? *named : (Reach){ 1, 0 };
          add.nodes = MAX (add.nodes, 1);
          aliased = TRUE;
          if (aliases && docs == 1 && depth > 0)
            {
              AccelYamlAlias *alias = g_new (AccelYamlAlias, 1);
              guint64 key = ACCEL_YAML_PLACE (coll_node[depth - 1], at);

              alias->mark = event.start_mark;
              alias->anchor = g_strdup ((const char *)event.data.alias.anchor);
              g_hash_table_insert (
                  aliases, g_memdup2 (&key, sizeof (key)), alias);
            }
          break;
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
          if (depth == MAX_DEPTH)
            {
              *mark = event.start_mark;
              *problem = g_strdup_printf (
                  "collections nested more than %d deep; a pipeline needs a "
                  "few levels",
                  MAX_DEPTH);
              ok = FALSE;
              break;
            }
          check_tag (asides,
              event.type == YAML_SEQUENCE_START_EVENT
                  ? event.data.sequence_start.tag
                  : event.data.mapping_start.tag,
              &event);
          name = event.type == YAML_SEQUENCE_START_EVENT
                     ? (const char *)event.data.sequence_start.anchor
                     : (const char *)event.data.mapping_start.anchor;
          count[depth] = (Reach){ 1, 0 };
          anchor[depth] = g_strdup (name);
          coll_node[depth] = ++doc_nodes;
          coll_places[depth] = 0;
          depth++;
          total.nodes++;
          break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
          if (depth == 0)
            break;
          depth--;
          add = count[depth];
          name = anchor[depth];
          /* its own nodes and bytes are in the total already */
          total.nodes -= add.nodes;
          total.bytes -= add.bytes;
          break;
        default:
          break;
        }
      if (add.nodes)
        {
          total.nodes += add.nodes;
          total.bytes += add.bytes;
          if (depth > 0)
            {
              count[depth - 1].nodes += add.nodes;
              count[depth - 1].bytes += add.bytes;
            }
          if (name)
            g_hash_table_insert (
                sizes, g_strdup (name), g_memdup2 (&add, sizeof (add)));
          if (total.nodes > MAX_NODES)
            {
              *mark = event.start_mark;
              /* a document without aliases was said to have them */
              *problem
                  = aliased
                        ? g_strdup_printf ("the aliases reach more than %d "
                                           "nodes; a pipeline is smaller, and "
                                           "alias expansion stops here",
                            MAX_NODES)
                        : g_strdup_printf ("the document has more than %d "
                                           "nodes; a pipeline is smaller",
                            MAX_NODES);
              ok = FALSE;
            }
          else if (total.bytes > MAX_ALIASED_BYTES)
            {
              *mark = event.start_mark;
              *problem = g_strdup_printf (
                  "the %s more than %d MiB of text; a pipeline is smaller%s",
                  aliased ? "aliases reach" : "document holds",
                  MAX_ALIASED_BYTES / (1024 * 1024),
                  aliased ? ", and alias expansion stops here" : "");
              ok = FALSE;
            }
        }
      if (event.type == YAML_SEQUENCE_END_EVENT
          || event.type == YAML_MAPPING_END_EVENT)
        g_free ((gchar *)name);
      yaml_event_delete (&event);
    }
  while (depth > 0)
    g_free (anchor[--depth]);
  yaml_parser_delete (&parser);
  return ok;
}

/* the length of the line break at @at, as YAML breaks lines (CR LF, CR,
 * LF, NEL, LS, PS); 0 for none */
static gsize
line_break_at (const char *at)
{
  const guchar *u = (const guchar *)at;

  if (u[0] == '\r')
    return u[1] == '\n' ? 2 : 1;
  if (u[0] == '\n')
    return 1;
  if (u[0] == 0xc2 && u[1] == 0x85)
    return 2;
  if (u[0] == 0xe2 && u[1] == 0x80 && (u[2] == 0xa8 || u[2] == 0xa9))
    return 3;
  return 0;
}

/* libyaml's own problem in @parser, with where the construct it was in
 * starts; where it is in @mark */
gchar *
accel_yaml_syntax_problem (
    yaml_parser_t *parser, const char *yaml, yaml_mark_t *mark)
{
  GString *msg = g_string_new (parser->problem);

  *mark = parser->problem_mark;

  if (parser->error == YAML_READER_ERROR)
    {
      /* the reader has no mark, only a byte offset: start of the character
       * that is wrong, counted as the marks count, in characters */
      gsize offset = MIN (parser->problem_offset, strlen (yaml));
      guchar byte;

      if (g_str_has_prefix (parser->problem, "invalid trailing")
          || g_str_has_prefix (parser->problem, "incomplete"))
        for (gsize back = 1; back <= 3 && back <= offset; back++)
          if ((guchar)yaml[offset - back] >= 0xc0)
            {
              offset -= back;
              break;
            }
      *mark = (yaml_mark_t){ 0, 0, 0 };
      for (gsize i = 0, n; i < offset; i += MAX (n, 1))
        if ((n = line_break_at (yaml + i)) > 0 && i + n <= offset)
          {
            mark->line++;
            mark->column = 0;
          }
        else if (((guchar)yaml[i] & 0xc0) != 0x80)
          mark->column++;
      byte = (guchar)yaml[offset];
      g_string_truncate (msg, 0);
      if (strstr (parser->problem, "UTF-8") && byte)
        g_string_append_printf (msg,
            "not UTF-8 text (byte 0x%02x); a pipeline is UTF-8 text", byte);
      else if (byte)
        g_string_append_printf (msg, "%s (byte 0x%02x)", parser->problem, byte);
      else
        g_string_append (msg, parser->problem);
    }
  else if (parser->context)
    g_string_append_printf (msg, " (%s that starts at %zu:%zu)",
        parser->context, parser->context_mark.line + 1,
        parser->context_mark.column + 1);
  if (parser->error != YAML_READER_ERROR
      && *char_at (yaml, parser->problem_mark.index) == '\t')
    g_string_append (msg, "; YAML indents with spaces, never tabs");
  return g_string_free (msg, FALSE);
}
