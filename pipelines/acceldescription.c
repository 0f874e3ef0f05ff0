/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: one-line graph descriptions in gst-launch syntax, turned into the
 * YAML the loader reads, so a line and its YAML build the same graph */
#define G_LOG_DOMAIN "accel-yaml"

#include <accel/accel.h>

#include <string.h>

#include "accelyaml-private.h"

/* the loader's own limits on what a description may declare */
#define MAX_ITEMS 1024

typedef struct
{
  gchar *key;
  gchar *value;
  gint key_col;
  gint value_col;
  gboolean verbatim; /* written as it came: columns inside carry over */
} Prop;

/* a stage kind with its properties, or a reference "name." / "name.port" */
typedef struct
{
  gchar *kind; /* NULL for a reference */
  gchar *name; /* the stage's name; a reference: the stage it names */
  gchar *port; /* a reference's port, or NULL */
  gint col;
  gint name_col; /* of name=, or col */
  gchar *device;
  gint device_col;
  GArray *props;     /* Prop */
  GHashTable *given; /* each Prop's key, to its key_col */
} Item;

typedef struct
{
  guint src, dst;  /* items */
  gint col;        /* of the '!' */
  gchar *dst_port; /* the input port picked for a bare destination */
} Link;

/* where text of the YAML came from in the description */
typedef struct
{
  gint line, col; /* in the YAML */
  gint desc_col;
  gboolean verbatim;
} Anchor;

typedef struct
{
  const char *text;
  const char *origin;
  GPtrArray *items; /* Item */
  GArray *links;    /* Link */
  GString *problems;
  guint n_problems; /* past MAX_PROBLEMS only counted */
  GString *yaml;
  gint yaml_line;
  GArray *anchors; /* Anchor */
  /* the last column asked for, counted on from there: columns are asked
   * in order, and counting each from the start took quadratic time */
  const char *col_at;
  gint col;
  /* the same for the YAML written so far: the bytes of it counted, and the
   * columns of its last line up to there (anchors are asked as it grows:
   * counted from its last line's start, a line of 32000 parameters took
   * 30 s) */
  gsize yaml_counted;
  gint yaml_col;
} Parser;

/* problems listed, as for a file; the rest are counted */
#define MAX_PROBLEMS 1000

static void
prop_clear (gpointer p)
{
  Prop *prop = p;

  g_free (prop->key);
  g_free (prop->value);
}

static void
item_free (gpointer p)
{
  Item *item = p;

  g_free (item->kind);
  g_free (item->name);
  g_free (item->port);
  g_free (item->device);
  g_array_unref (item->props);
  g_hash_table_unref (item->given);
  g_free (item);
}

static void G_GNUC_PRINTF (3, 4)
    problem (Parser *p, gint col, const char *format, ...)
{
  g_autofree gchar *msg = NULL;
  va_list args;

  if (++p->n_problems > MAX_PROBLEMS)
    return;
  va_start (args, format);
  /* a name or value of the line stays on the problem's line, and sends the
   * terminal no escape sequence */
  msg = accel_yaml_escape_controls (g_strdup_vprintf (format, args));
  va_end (args);
  g_string_append_printf (p->problems, "%s:1:%d: %s\n", p->origin, col, msg);
}

/* the 1-based column of @at */
static gint
column_of (Parser *p, const char *at)
{
  if (!p->col_at || at < p->col_at)
    {
      p->col_at = p->text;
      p->col = 1;
    }
  p->col += (gint)g_utf8_strlen (p->col_at, at - p->col_at);
  p->col_at = at;
  return p->col;
}

/* reads a value at @at, bare or quoted ("..." with \-escapes, '...'), up to
 * white space or '!'; NULL (reported) for an unterminated quote */
static gchar *
read_value (Parser *p, const char **at, gboolean *verbatim)
{
  GString *value = g_string_new (NULL);
  const char *c = *at;

  *verbatim = TRUE;
  while (*c && !g_ascii_isspace (*c) && *c != '!')
    {
      char quote = *c;
      const char *open = c;

      if (quote != '"' && quote != '\'')
        {
          g_string_append_c (value, *c++);
          continue;
        }
      *verbatim = FALSE;
      for (c++; *c && *c != quote; c++)
        {
          if (quote == '"' && *c == '\\' && c[1])
            c++;
          g_string_append_c (value, *c);
        }
      if (!*c)
        {
          problem (p, column_of (p, open),
              "this quote is never closed; close it with %c", quote);
          *at = c;
          g_string_free (value, TRUE);
          return NULL;
        }
      c++;
    }
  *at = c;
  return g_string_free (value, FALSE);
}

static Item *
item_new (void)
{
  Item *item = g_new0 (Item, 1);

  item->props = g_array_new (FALSE, FALSE, sizeof (Prop));
  g_array_set_clear_func (item->props, prop_clear);
  /* the keys are the props' */
  item->given = g_hash_table_new (g_str_hash, g_str_equal);
  return item;
}

/* a property of the last item: name= names the stage, device= places it,
 * anything else is a parameter */
static void
add_property (
    Parser *p, Item *item, const char *word, const char *eq, const char **at)
{
  g_autofree gchar *key = g_strndup (word, eq - word);
  gint key_col = column_of (p, word);
  const char *value_at = eq + 1;
  gint value_col = column_of (p, value_at);
  gboolean verbatim;
  gchar *value;

  if (!(value = read_value (p, &value_at, &verbatim)))
    {
      *at = value_at;
      return;
    }
  *at = value_at;
  if (!item)
    {
      problem (p, key_col, "'%s=' comes before any stage kind", key);
      g_free (value);
      return;
    }
  if (!*key)
    {
      problem (p, key_col, "a property needs a name before '='");
      g_free (value);
      return;
    }
  if (g_str_equal (key, "name") || g_str_equal (key, "device"))
    {
      gboolean is_name = g_str_equal (key, "name");

      if (is_name ? item->name != NULL : item->device != NULL)
        {
          problem (p, key_col, "'%s=' is given twice for this stage", key);
          g_free (value);
          return;
        }
      if (is_name)
        {
          item->name = value;
          item->name_col = value_col;
        }
      else
        {
          item->device = value;
          item->device_col = value_col;
        }
      return;
    }
  /* as name= and device=: the file --print-yaml wrote of it held the key
   * twice, which no load takes */
  if (g_hash_table_contains (item->given, key))
    {
      problem (p, key_col,
          "'%s=' is given twice for this stage (first at column %d)", key,
          GPOINTER_TO_INT (g_hash_table_lookup (item->given, key)));
      g_free (value);
      return;
    }
  g_hash_table_insert (item->given, key, GINT_TO_POINTER (key_col));
  g_array_append_vals (item->props,
      &(Prop){ .key = g_steal_pointer (&key),
          .value = value,
          .key_col = key_col,
          .value_col = value_col,
          .verbatim = verbatim },
      1);
}

/* splits the description into items and '!' marks: @bangs holds the
 * column of the '!' before each item (0: none) */
static void
tokenize (Parser *p, GArray *bangs)
{
  const char *at = p->text;
  Item *last = NULL;
  gint bang = 0;

  for (;;)
    {
      const char *word;
      const char *eq;

      while (g_ascii_isspace (*at))
        at++;
      if (!*at)
        break;
      if (*at == '!')
        {
          if (bang)
            problem (p, column_of (p, at),
                "'!' follows another '!'; a stage kind or a reference "
                "(name. or name.port) goes between them");
          else if (p->items->len == 0)
            problem (p, column_of (p, at),
                "'!' links a stage to the next one, but comes first");
          bang = column_of (p, at);
          at++;
          continue;
        }
      word = at;
      while (*at && !g_ascii_isspace (*at) && *at != '!' && *at != '='
             && *at != '"' && *at != '\'')
        at++;
      eq = at;
      if (*eq == '=')
        {
          add_property (p, last, word, eq, &at);
          continue;
        }
      if (*at == '"' || *at == '\'')
        {
          problem (p, column_of (p, at),
              "a quote belongs in a value: property=\"value\"");
          while (*at && !g_ascii_isspace (*at))
            at++;
          continue;
        }
      if (p->items->len == MAX_ITEMS)
        {
          problem (p, column_of (p, word), "more than %d stages and references",
              MAX_ITEMS);
          /* the '!' before it leads somewhere: it is not at the end */
          bang = 0;
          break;
        }
      last = item_new ();
      last->kind = g_strndup (word, at - word); /* sorted out in resolve() */
      last->col = last->name_col = column_of (p, word);
      g_ptr_array_add (p->items, last);
      g_array_append_val (bangs, bang);
      bang = 0;
    }
  if (bang)
    problem (p, bang, "'!' at the end links to nothing");
}

static Item *
find_named (Parser *p, const char *name)
{
  for (guint i = 0; i < p->items->len; i++)
    {
      Item *item = p->items->pdata[i];
      if (item->kind && item->name && g_str_equal (item->name, name))
        return item;
    }
  return NULL;
}

/* whether a stage other than @self is named @name, earlier or later: an
 * automatic name must not take one given with name= further on */
static gboolean
named_elsewhere (Parser *p, const char *name, const Item *self)
{
  for (guint i = 0; i < p->items->len; i++)
    {
      Item *item = p->items->pdata[i];
      if (item != self && item->kind && item->name
          && g_str_equal (item->name, name))
        return TRUE;
    }
  return FALSE;
}

/* letters, digits, '_' and '-': what a name or port may be in a link */
static gboolean
valid_name (const char *name)
{
  for (const char *c = name; *c; c++)
    if (!g_ascii_isalnum (*c) && *c != '_' && *c != '-')
      return FALSE;
  return *name != '\0';
}

/* a word with no '=' is a stage kind ("plugin.kind") or a reference to a
 * named stage ("name." or "name.port"); once names are known, says which */
static void
resolve_word (Parser *p, Item *item)
{
  const char *dot = strchr (item->kind, '.');
  g_autofree gchar *head = NULL;
  const char *tail;

  if (!dot || dot == item->kind)
    {
      problem (p, item->col,
          "'%s' is neither a stage kind (plugin.kind, such as core.scale) "
          "nor a reference to a named stage (name. or name.port)",
          item->kind);
      return;
    }
  head = g_strndup (item->kind, dot - item->kind);
  tail = dot + 1;
  if (!find_named (p, head))
    {
      if (!*tail)
        problem (p, item->col, "no stage is named '%s' (name=%s)", head, head);
      return;
    }
  if (*tail
      && accel_registry_lookup (accel_registry_get_default (), item->kind)
             != G_TYPE_INVALID)
    problem (p, item->col,
        "'%s' is a stage kind and port '%s' of the stage named '%s'; "
        "rename the stage",
        item->kind, tail, head);
  else if (*tail && !valid_name (tail))
    problem (p, item->col + (gint)(tail - item->kind),
        "port '%s' may hold only ASCII letters, digits, '_' and '-'", tail);
  if (item->props->len || item->device)
    problem (p,
        item->props->len ? g_array_index (item->props, Prop, 0).key_col
                         : item->device_col,
        "a reference to stage '%s' takes no properties; set them where the "
        "stage is declared",
        head);
  item->port = *tail ? g_strdup (tail) : NULL;
  item->name = g_steal_pointer (&head);
  g_clear_pointer (&item->kind, g_free);
}

/* names the stages that have no name=, after their kind as gst-launch
 * does: gaussian-blur0, gaussian-blur1, ...; a character of the kind that
 * no name may hold as '-' ("core.sc@le" is sc-le0): the kind is the
 * problem to report, and the name, written bare into the links, made
 * YAML of its own ("core.[x" said "did not find expected ','", at a line
 * of YAML the user never saw) */
static void
name_stages (Parser *p)
{
  g_autoptr (GHashTable) counters
      = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < p->items->len; i++)
    {
      Item *item = p->items->pdata[i];
      const char *base;
      g_autofree gchar *safe = NULL;
      guint n;

      if (!item->kind || item->name)
        continue;
      base = strrchr (item->kind, '.');
      safe = g_strdup (base && base[1] ? base + 1 : "stage");
      g_strcanon (safe, G_CSET_A_2_Z G_CSET_a_2_z G_CSET_DIGITS "_-", '-');
      n = GPOINTER_TO_UINT (g_hash_table_lookup (counters, safe));
      do
        {
          g_free (item->name);
          item->name = g_strdup_printf ("%s%u", safe, n++);
        }
      while (named_elsewhere (p, item->name, item));
      g_hash_table_insert (counters, g_strdup (safe), GUINT_TO_POINTER (n));
    }
}

/* whether @word reads as a reference ("name." or "name.port" of a named
 * stage) rather than a stage kind */
static gboolean
names_reference (Parser *p, const char *word)
{
  const char *dot = strchr (word, '.');
  g_autofree gchar *head = NULL;

  if (!dot || dot == word)
    return FALSE;
  head = g_strndup (word, dot - word);
  return find_named (p, head)
         && (!dot[1]
             || accel_registry_lookup (accel_registry_get_default (), word)
                    == G_TYPE_INVALID);
}

static void
resolve (Parser *p, GArray *bangs)
{
  gint prev = -1;

  /* name= declares a stage, and a name once */
  for (guint i = 0; i < p->items->len; i++)
    {
      Item *item = p->items->pdata[i];
      Item *first;

      if (!item->name)
        continue;
      first = find_named (p, item->name);
      if (!valid_name (item->name))
        problem (p, item->name_col,
            "stage name '%s' may hold only ASCII letters, digits, '_' and '-', "
            "as "
            "links name it",
            item->name);
      else if (first != item)
        problem (p, item->name_col,
            "a stage named '%s' is already declared at column %d", item->name,
            first->col);
    }
  for (guint i = 0; i < p->items->len; i++)
    {
      Item *item = p->items->pdata[i];
      gint bang = g_array_index (bangs, gint, i);

      if (!item->name)
        resolve_word (p, item);
      else if (names_reference (p, item->kind))
        /* it was an unknown stage kind 'name.' */
        problem (p, item->name_col,
            "'%s' is a reference to a named stage, which takes no name= of "
            "its own",
            item->kind);
      if (bang && prev >= 0)
        g_array_append_vals (
            p->links, &(Link){ .src = prev, .dst = i, .col = bang }, 1);
      prev = i;
    }
  name_stages (p);
}

static gint
yaml_col (Parser *p)
{
  const char *from = p->yaml->str + p->yaml_counted;
  const char *line = strrchr (from, '\n');

  /* in characters, as libyaml counts (bytes put a place after a
   * non-ASCII value that many columns too far); the YAML only grows */
  if (line)
    {
      p->yaml_col = 0;
      from = line + 1;
    }
  p->yaml_col += (gint)g_utf8_strlen (from, -1);
  p->yaml_counted = p->yaml->len;
  return p->yaml_col + 1;
}

static void
anchor (Parser *p, gint desc_col, gboolean verbatim)
{
  g_array_append_vals (p->anchors,
      &(Anchor){ .line = p->yaml_line,
          .col = yaml_col (p),
          .desc_col = desc_col,
          .verbatim = verbatim },
      1);
}

/* whether YAML reads @u back as itself, unescaped, inside double quotes:
 * printable, and not one of its own line breaks (U+2028 and U+2029 read
 * back as spaces, control characters were refused) */
static gboolean
yaml_takes_raw (gunichar u)
{
  return g_unichar_isprint (u) && u != 0x2028 && u != 0x2029 && u != 0xfeff;
}

/* a YAML scalar: plain where that reads back as the same text, else
 * double-quoted */
static gboolean
write_scalar (GString *out, const char *value)
{
  gboolean plain
      = *value && g_ascii_isalnum (*value) && !g_str_equal (value, "null")
        && !g_str_equal (value, "Null") && !g_str_equal (value, "NULL");

  for (const char *c = value; plain && *c; c++)
    plain = g_ascii_isalnum (*c) || strchr ("_-.+/%", *c) != NULL;
  if (plain)
    {
      g_string_append (out, value);
      return TRUE;
    }
  g_string_append_c (out, '"');
  for (const char *c = value; *c; c = g_utf8_next_char (c))
    {
      gunichar u = g_utf8_get_char (c);

      if (u == '"' || u == '\\')
        g_string_append_printf (out, "\\%c", *c);
      else if (yaml_takes_raw (u))
        g_string_append_len (out, c, g_utf8_next_char (c) - c);
      else if (u <= 0xff)
        g_string_append_printf (out, "\\x%02x", u);
      else if (u <= 0xffff)
        g_string_append_printf (out, "\\u%04x", u);
      else
        g_string_append_printf (out, "\\U%08x", u);
    }
  g_string_append_c (out, '"');
  return FALSE;
}

static void
newline (Parser *p)
{
  g_string_append_c (p->yaml, '\n');
  p->yaml_line++;
}

static void
write_stage (Parser *p, Item *item)
{
  GString *y = p->yaml;

  g_string_append (y, "  - ");
  anchor (p, item->col, FALSE);
  g_string_append (y, "{name: ");
  anchor (p, item->name_col, FALSE);
  write_scalar (y, item->name);
  g_string_append (y, ", kind: ");
  anchor (p, item->col, FALSE);
  write_scalar (y, item->kind);
  if (item->device)
    {
      g_string_append (y, ", device: ");
      anchor (p, item->device_col, FALSE);
      write_scalar (y, item->device);
    }
  if (item->props->len)
    {
      g_string_append (y, ", params: {");
      for (guint i = 0; i < item->props->len; i++)
        {
          Prop *prop = &g_array_index (item->props, Prop, i);
          guint before = p->anchors->len;

          if (i)
            g_string_append (y, ", ");
          anchor (p, prop->key_col, FALSE);
          write_scalar (y, prop->key);
          g_string_append (y, ": ");
          anchor (p, prop->value_col, FALSE);
          if (write_scalar (y, prop->value) && prop->verbatim)
            g_array_index (p->anchors, Anchor, before + 1).verbatim = TRUE;
        }
      g_string_append_c (y, '}');
    }
  g_string_append_c (y, '}');
  newline (p);
}

/* names and ports are checked (no quote in them): written as they are,
 * inside the link's quotes */
static void
write_end (Parser *p, Item *item)
{
  g_string_append (p->yaml, item->name);
  if (item->port)
    g_string_append_printf (p->yaml, ".%s", item->port);
}

static void
link_clear (gpointer data)
{
  g_free (((Link *)data)->dst_port);
}

/* the kind of the stage named @name, or NULL */
static const char *
kind_of (Parser *p, const char *name)
{
  for (guint i = 0; i < p->items->len; i++)
    {
      Item *item = p->items->pdata[i];
      if (item->kind && !g_strcmp0 (item->name, name))
        return item->kind;
    }
  return NULL;
}

/* whether input @port of the stage named @name is taken: by a reference
 * that names it, or picked already */
static gboolean
input_taken (Parser *p, const char *name, const char *port)
{
  for (guint i = 0; i < p->links->len; i++)
    {
      Link *link = &g_array_index (p->links, Link, i);
      Item *dst = p->items->pdata[link->dst];
      const char *taken = dst->port ? dst->port : link->dst_port;
      if (taken && !g_strcmp0 (dst->name, name) && !strcmp (taken, port))
        return TRUE;
    }
  return FALSE;
}

/* as gst-launch does: a link into a stage of several inputs that names no
 * port ("a ! blend." or "a ! realtime.blend") takes the stage's next input
 * not linked yet, in the kind's port order. Kinds the registry does not
 * know are left for the loader to report */
static void
pick_input_ports (Parser *p)
{
  AccelRegistry *registry = accel_registry_get_default ();

  for (guint i = 0; i < p->links->len; i++)
    {
      Link *link = &g_array_index (p->links, Link, i);
      Item *dst = p->items->pdata[link->dst];
      const char *kind = dst->port ? NULL : kind_of (p, dst->name);
      GType type = kind ? accel_registry_lookup (registry, kind) : 0;
      AccelStageClass *klass;
      g_autoptr (GPtrArray) ports = NULL;

      if (type == 0)
        continue;
      klass = g_type_class_ref (type);
      ports = accel_stage_class_get_ports (klass, ACCEL_PORT_INPUT);
      for (guint k = 0; ports && ports->len > 1 && k < ports->len; k++)
        {
          const AccelPortTemplate *t = ports->pdata[k];
          if (!input_taken (p, dst->name, t->name))
            {
              link->dst_port = g_strdup (t->name);
              break;
            }
        }
      g_type_class_unref (klass);
    }
}

static void
write_yaml (Parser *p)
{
  GString *y = p->yaml;

  g_string_append (y, "pipeline: description");
  newline (p);
  g_string_append (y, "stages:");
  newline (p);
  for (guint i = 0; i < p->items->len; i++)
    {
      Item *item = p->items->pdata[i];
      if (item->kind)
        write_stage (p, item);
    }
  if (!p->links->len)
    return;
  g_string_append (y, "links:");
  newline (p);
  for (guint i = 0; i < p->links->len; i++)
    {
      Link *link = &g_array_index (p->links, Link, i);
      Item *src = p->items->pdata[link->src];
      /* quoted where it starts with '-', which would begin a list */
      gboolean quoted = src->name[0] == '-';

      g_string_append (y, quoted ? "  - '" : "  - ");
      anchor (p, link->col, FALSE);
      write_end (p, src);
      g_string_append (y, " -> ");
      anchor (p, ((Item *)p->items->pdata[link->dst])->col, FALSE);
      write_end (p, p->items->pdata[link->dst]);
      if (link->dst_port)
        g_string_append_printf (y, ".%s", link->dst_port);
      if (quoted)
        g_string_append_c (y, '\'');
      newline (p);
    }
}

static void
parser_init (Parser *p, const char *description, const char *origin)
{
  p->text = description;
  p->origin = origin ? origin : "<description>";
  p->items = g_ptr_array_new_with_free_func (item_free);
  p->links = g_array_new (FALSE, FALSE, sizeof (Link));
  g_array_set_clear_func (p->links, link_clear);
  p->problems = g_string_new (NULL);
  p->yaml = g_string_new (NULL);
  p->yaml_line = 1;
  p->anchors = g_array_new (FALSE, FALSE, sizeof (Anchor));
}

static void
parser_clear (Parser *p)
{
  g_ptr_array_unref (p->items);
  g_array_unref (p->links);
  g_string_free (p->problems, TRUE);
  if (p->yaml)
    g_string_free (p->yaml, TRUE);
  g_array_unref (p->anchors);
}

/* a line of a message, by its column */
typedef struct
{
  gint col; /* G_MAXINT: none */
  guint seq;
  const char *text;
} Line;

static gint
compare_lines (gconstpointer a, gconstpointer b)
{
  const Line *la = a, *lb = b;

  if (la->col != lb->col)
    return la->col < lb->col ? -1 : 1;
  return la->seq < lb->seq ? -1 : la->seq > lb->seq;
}

/* @message's lines ("origin:1:COLUMN: ...") in the order of their columns,
 * as a file's problems are in the order of their lines (they were in the
 * order found: the syntax's before the names', a stage's before a link's
 * further left); a line with no column (a --set setting's) keeps its
 * place after them */
static gchar *
sort_by_column (Parser *p, const char *message)
{
  g_auto (GStrv) lines = g_strsplit (message, "\n", -1);
  g_autofree gchar *prefix = g_strconcat (p->origin, ":1:", NULL);
  g_autoptr (GArray) sorted = g_array_new (FALSE, FALSE, sizeof (Line));
  GString *out = g_string_new (NULL);

  for (guint i = 0; lines[i]; i++)
    {
      Line line = { G_MAXINT, i, lines[i] };
      gchar *end;
      gint64 col;

      if (g_str_has_prefix (lines[i], prefix)
          && (col = g_ascii_strtoll (lines[i] + strlen (prefix), &end, 10)) > 0
          && col < G_MAXINT && *end == ':')
        line.col = (gint)col;
      g_array_append_val (sorted, line);
    }
  g_array_sort (sorted, compare_lines);
  for (guint i = 0; i < sorted->len; i++)
    g_string_append_printf (
        out, "%s%s", i ? "\n" : "", g_array_index (sorted, Line, i).text);
  return g_string_free (out, FALSE);
}

/* parses and writes the YAML; FALSE with the problems in @error */
static gboolean
parse (Parser *p, GError **error)
{
  g_autoptr (GArray) bangs = g_array_new (FALSE, FALSE, sizeof (gint));
  const char *bad;

  if (!g_utf8_validate (p->text, -1, &bad))
    {
      /* the column of the first byte that is not, as every problem has */
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "%s:1:%d: the description is not UTF-8 text (byte 0x%02x)", p->origin,
          column_of (p, bad), (guint8)*bad);
      return FALSE;
    }
  tokenize (p, bangs);
  if (p->items->len == 0 && p->problems->len == 0)
    problem (p, 1,
        "the description is empty; expected stages such as "
        "'core.test-source ! core.null-sink'");
  resolve (p, bangs);
  if (p->problems->len)
    {
      g_autofree gchar *sorted = NULL;

      g_string_truncate (p->problems, p->problems->len - 1);
      sorted = sort_by_column (p, p->problems->str);
      g_string_assign (p->problems, sorted);
      if (p->n_problems > MAX_PROBLEMS)
        g_string_append_printf (p->problems, "\n%s: %u more problems not shown",
            p->origin, p->n_problems - MAX_PROBLEMS);
      g_set_error_literal (
          error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE, p->problems->str);
      return FALSE;
    }
  pick_input_ports (p);
  write_yaml (p);
  return TRUE;
}

/* the description's column of the YAML's line @line and column @col, or
 * 0 */
static gint
desc_column (Parser *p, gint64 line, gint64 col)
{
  const Anchor *best = NULL;

  for (guint a = 0; a < p->anchors->len; a++)
    {
      const Anchor *an = &g_array_index (p->anchors, Anchor, a);

      if (an->line == line && an->col <= col)
        best = an;
    }
  if (!best)
    return 0;
  return best->desc_col + (best->verbatim ? (gint)(col - best->col) : 0);
}

/* a place of the YAML a loader's message names besides its own (a first
 * declaration, a first link): the line's column, where it named a line of
 * a file the user never saw */
static gchar *
name_place (gsize line, gsize column, gpointer data)
{
  return g_strdup_printf (
      "column %d", MAX (desc_column (data, (gint64)line, (gint64)column), 1));
}

/* the loader's "origin:line:column:" of the YAML, read back as the
 * description's own column, in the order of the columns */
static gchar *
map_message (Parser *p, const char *message)
{
  g_auto (GStrv) lines = g_strsplit (message, "\n", -1);
  g_autofree gchar *prefix = g_strconcat (p->origin, ":", NULL);
  g_autoptr (GString) out = g_string_new (NULL);

  for (guint i = 0; lines[i]; i++)
    {
      const char *rest = lines[i] + strlen (prefix);
      gchar *end;
      gint64 line, col;

      if (i)
        g_string_append_c (out, '\n');
      if (!g_str_has_prefix (lines[i], prefix)
          || (line = g_ascii_strtoll (rest, &end, 10)) <= 0 || *end != ':'
          || (col = g_ascii_strtoll (end + 1, &end, 10)) <= 0 || *end != ':')
        {
          g_string_append (out, lines[i]);
          continue;
        }
      g_string_append_printf (out, "%s:1:%d:%s", p->origin,
          MAX (desc_column (p, line, col), 1), end + 1);
    }
  return sort_by_column (p, out->str);
}

/* each stage's place (accel_yaml_stage_get_place ()) at the description's
 * column */
static void
map_stage_places (Parser *p, AccelGraph *graph)
{
  GPtrArray *stages = accel_graph_get_stages (graph);

  for (guint i = 0; i < stages->len; i++)
    {
      const char *place = accel_yaml_stage_get_place (stages->pdata[i]);
      g_autofree gchar *line = NULL;
      gchar *mapped;

      if (!place)
        continue;
      /* a message's line, "origin:line:column:", read back */
      line = g_strconcat (place, ":", NULL);
      mapped = map_message (p, line);
      if (g_str_has_suffix (mapped, ":"))
        mapped[strlen (mapped) - 1] = '\0';
      accel_yaml_set_stage_place (stages->pdata[i], mapped);
    }
}

/**
 * accel_description_to_yaml:
 * @description: a graph in gst-launch syntax, such as
 *   `core.test-source num-buffers=10 ! core.scale scale=2 ! core.null-sink`
 * @origin: (nullable): what to call @description in messages, such as "-e"
 * @error: return location for a #GError, or %NULL
 *
 * Writes the pipeline file that declares the graph of @description: what
 * accel_graph_new_from_description() loads, and `accel-run --print-yaml`
 * prints. The syntax is gst-launch's (docs/yaml.md): stages are
 * `plugin.kind property=value ...`, `!` links two stages, `name=NAME` names
 * a stage (else it is called after its kind: `scale0`, `scale1`, ...),
 * `device=D` places it, and `NAME.` or `NAME.PORT` refers back to a named
 * stage to start a branch or to link a port. Values may be quoted ("..."
 * with backslash escapes, or '...'). As in gst-launch, a link into a stage
 * of several inputs that names no port (`a ! mix.`) takes the stage's next
 * input not linked yet, in the kind's port order (kinds looked up in the
 * default registry). Only the syntax is checked here;
 * kinds and parameters are checked when the YAML is loaded. Called from any
 * thread.
 *
 * Returns: (transfer full): the YAML text, or %NULL with
 * %ACCEL_ERROR_INVALID_PIPELINE, one line per problem, each starting with
 * `origin:1:column:`.
 */
gchar *
accel_description_to_yaml (
    const char *description, const char *origin, GError **error)
{
  Parser p = { 0 };
  gchar *yaml = NULL;

  g_return_val_if_fail (description != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  parser_init (&p, description, origin);
  if (parse (&p, error))
    yaml = g_string_free (g_steal_pointer (&p.yaml), FALSE);
  parser_clear (&p);
  return yaml;
}

/**
 * accel_graph_new_from_description_full:
 * @description: a graph in gst-launch syntax (see
 *   accel_description_to_yaml())
 * @origin: (nullable): what to call @description in messages, such as "-e"
 * @overrides: (array zero-terminated=1) (nullable): `stage.param=value`
 *   settings applied over the description's, as for
 *   accel_graph_new_from_yaml_string_full()
 * @error: return location for a #GError, or %NULL
 *
 * Builds and prepares the graph @description declares: the same graph as
 * the YAML accel_description_to_yaml() writes for it. Every problem is
 * reported, one line each, starting with `origin:1:column:` at the column
 * of @description it is about (the stage kind, the parameter's name or
 * value, the '!' of a link). Called from any thread.
 *
 * Returns: (transfer full): the prepared graph, or %NULL with
 * %ACCEL_ERROR_INVALID_PIPELINE.
 */
AccelGraph *
accel_graph_new_from_description_full (const char *description,
    const char *origin, const char *const *overrides, GError **error)
{
  Parser p = { 0 };
  AccelGraph *graph = NULL;
  g_autoptr (GError) load_error = NULL;
  g_autoptr (GString) warnings = g_string_new (NULL);

  g_return_val_if_fail (description != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  parser_init (&p, description, origin);
  if (!parse (&p, error))
    goto done;
  /* the loader's warnings point into the YAML: at the line's columns */
  accel_yaml_collect_warnings (warnings);
  accel_yaml_name_places (name_place, &p);
  graph = accel_graph_new_from_yaml_string_full (
      p.yaml->str, p.origin, overrides, &load_error);
  accel_yaml_name_places (NULL, NULL);
  accel_yaml_collect_warnings (NULL);
  if (warnings->len)
    {
      g_autofree gchar *mapped = NULL;

      g_string_truncate (warnings, warnings->len - 1);
      mapped = map_message (&p, warnings->str);
      g_printerr ("%s\n", mapped);
    }
  if (graph)
    map_stage_places (&p, graph);
  if (!graph)
    {
      g_autofree gchar *message = map_message (&p, load_error->message);
      g_set_error_literal (
          error, load_error->domain, load_error->code, message);
    }

done:
  parser_clear (&p);
  return graph;
}

/**
 * accel_graph_new_from_description:
 * @description: a graph in gst-launch syntax (see
 *   accel_description_to_yaml())
 * @error: return location for a #GError, or %NULL
 *
 * accel_graph_new_from_description_full() without overrides, with
 * messages about "description". Called from any thread.
 *
 * Returns: (transfer full): the prepared graph, or %NULL with
 * %ACCEL_ERROR_INVALID_PIPELINE.
 */
AccelGraph *
accel_graph_new_from_description (const char *description, GError **error)
{
  return accel_graph_new_from_description_full (
      description, "description", NULL, error);
}
