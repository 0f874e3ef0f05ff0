/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* a small strict JSON reader for the tests, enough to read accel-run's
 * --stats back */
#pragma once

#include "accel-test.h"

typedef enum
{
  JSON_NULL,
  JSON_BOOL,
  JSON_NUMBER,
  JSON_STRING,
  JSON_ARRAY,
  JSON_OBJECT,
} JsonType;

typedef struct
{
  JsonType type;
  gboolean boolean;
  gdouble number;
  gchar *string;
  GPtrArray *items;    /* Json*, arrays */
  GHashTable *members; /* name -> Json*, objects */
} Json;

static inline void
json_free (gpointer data)
{
  Json *j = data;

  if (!j)
    return;
  g_free (j->string);
  g_clear_pointer (&j->items, g_ptr_array_unref);
  g_clear_pointer (&j->members, g_hash_table_unref);
  g_free (j);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Json, json_free)

static inline Json *json_value (const char **p);

static inline void
json_space (const char **p)
{
  while (**p == ' ' || **p == '\n' || **p == '\r' || **p == '\t')
    (*p)++;
}

static inline gchar *
json_string_body (const char **p)
{
  g_autoptr (GString) s = g_string_new (NULL);

  if (**p != '"')
    return NULL;
  for ((*p)++; **p != '"'; (*p)++)
    {
      if ((guchar) * *p < 0x20)
        return NULL;
      if (**p != '\\')
        {
          g_string_append_c (s, **p);
          continue;
        }
      (*p)++;
      switch (**p)
        {
        case '"':
        case '\\':
        case '/':
          g_string_append_c (s, **p);
          break;
        case 'n':
          g_string_append_c (s, '\n');
          break;
        case 't':
          g_string_append_c (s, '\t');
          break;
        case 'r':
          g_string_append_c (s, '\r');
          break;
        case 'b':
          g_string_append_c (s, '\b');
          break;
        case 'f':
          g_string_append_c (s, '\f');
          break;
        case 'u':
          {
            gchar hex[5] = { 0 };
            guint64 code;
            for (guint i = 0; i < 4; i++)
              if (!g_ascii_isxdigit ((hex[i] = (*p)[i + 1])))
                return NULL;
            g_ascii_string_to_unsigned (hex, 16, 0, 0xffff, &code, NULL);
            g_string_append_unichar (s, (gunichar)code);
            *p += 4;
            break;
          }
        default:
          return NULL;
        }
    }
  (*p)++;
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static inline Json *
json_value (const char **p)
{
  g_autoptr (Json) j = g_new0 (Json, 1);

  json_space (p);
  if (**p == '{')
    {
      j->type = JSON_OBJECT;
      j->members
          = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, json_free);
      (*p)++;
      json_space (p);
      if (**p == '}')
        {
          (*p)++;
          return g_steal_pointer (&j);
        }
      for (;;)
        {
          g_autofree gchar *name = NULL;
          Json *v;
          json_space (p);
          if (!(name = json_string_body (p)))
            return NULL;
          json_space (p);
          if (**p != ':')
            return NULL;
          (*p)++;
          if (!(v = json_value (p)))
            return NULL;
          if (g_hash_table_contains (j->members, name))
            {
              json_free (v);
              return NULL;
            }
          g_hash_table_insert (j->members, g_steal_pointer (&name), v);
          json_space (p);
          if (**p == '}')
            break;
          if (**p != ',')
            return NULL;
          (*p)++;
        }
      (*p)++;
    }
  else if (**p == '[')
    {
      j->type = JSON_ARRAY;
      j->items = g_ptr_array_new_with_free_func (json_free);
      (*p)++;
      json_space (p);
      if (**p == ']')
        {
          (*p)++;
          return g_steal_pointer (&j);
        }
      for (;;)
        {
          Json *v = json_value (p);
          if (!v)
            return NULL;
          g_ptr_array_add (j->items, v);
          json_space (p);
          if (**p == ']')
            break;
          if (**p != ',')
            return NULL;
          (*p)++;
        }
      (*p)++;
    }
  else if (**p == '"')
    {
      j->type = JSON_STRING;
      if (!(j->string = json_string_body (p)))
        return NULL;
    }
  else if (g_str_has_prefix (*p, "true") || g_str_has_prefix (*p, "false"))
    {
      j->type = JSON_BOOL;
      j->boolean = **p == 't';
      *p += j->boolean ? 4 : 5;
    }
  else if (g_str_has_prefix (*p, "null"))
    {
      j->type = JSON_NULL;
      *p += 4;
    }
  else if (**p == '-' || g_ascii_isdigit (**p))
    {
      gchar *end;
      j->type = JSON_NUMBER;
      j->number = g_ascii_strtod (*p, &end);
      if (end == *p)
        return NULL;
      *p = end;
    }
  else
    return NULL;
  return g_steal_pointer (&j);
}

/* the whole of @text as one value, or NULL */
static inline Json *
json_parse (const char *text)
{
  const char *p = text;
  g_autoptr (Json) j = json_value (&p);

  if (!j)
    return NULL;
  json_space (&p);
  return *p ? NULL : g_steal_pointer (&j);
}

static inline Json *
json_member (Json *object, const char *name, JsonType type)
{
  Json *m;

  g_assert_nonnull (object);
  g_assert_cmpint (object->type, ==, JSON_OBJECT);
  m = g_hash_table_lookup (object->members, name);
  if (!m)
    g_test_message ("no member '%s'", name);
  g_assert_nonnull (m);
  g_assert_cmpint (m->type, ==, type);
  return m;
}
