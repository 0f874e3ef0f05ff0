/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the YAML loader's scalars. A scalar into the value of a stage
 * parameter of any type, with its range or its choices in what went wrong;
 * durations; and the suggestion for a misspelt name */
#define G_LOG_DOMAIN "accel-yaml"

#include <accel/accel.h>

#include <errno.h>
#include <math.h>
#include <string.h>

#include "accelyaml-private.h"

/* edit-distance cells computed for suggestions in this document: past
 * MAX_SUGGEST_WORK there are no more suggestions, so that any input is
 * answered within seconds */
#define MAX_SUGGEST_WORK (50 * 1000 * 1000)
static _Thread_local guint64 suggest_work;

/* starts a document's budget of suggestions */
void
accel_yaml_suggestions_reset (void)
{
  suggest_work = 0;
}

/* " (did you mean 'x'?)" for the nearest of @names, or "" */
gchar *
accel_yaml_did_you_mean (const char *word, const char *const *names, guint n)
{
  const char *best = NULL;
  guint best_d = G_MAXUINT;
  gsize len = strlen (word), longest = 0;

  /* the distance costs length times length: a name far longer than any
   * candidate is no misspelling of one, and a document's suggestions share
   * one budget */
  for (guint i = 0; i < n && names[i]; i++)
    longest = MAX (longest, strlen (names[i]));
  if (len > MAX_NAME_BYTES || len > longest + 8
      || suggest_work > MAX_SUGGEST_WORK)
    return g_strdup ("");
  for (guint i = 0; i < n && names[i]; i++)
    {
      guint d;

      suggest_work += (guint64)(len + 1) * (strlen (names[i]) + 1);
      d = accel_str_edit_distance (word, names[i]);
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
out_of_range (const char *text, GParamSpec *pspec)
{
  g_autofree gchar *range = accel_param_spec_dup_range (pspec);

  if (!range)
    return g_strdup_printf ("is not a valid value: '%s'", text);
  return g_strdup_printf ("is out of range: %s is not in %s", text, range);
}

/* YAML's own spellings of infinity and NaN (.inf, -.Inf, .NAN ...): numbers,
 * and none of them finite */
static gboolean
is_yaml_special_float (const char *text)
{
  static const char *const special[]
      = { ".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN" };
  const char *t = text;

  if (*t == '+' || *t == '-')
    t++;
  for (guint i = 0; i < G_N_ELEMENTS (special); i++)
    if (g_str_equal (t, special[i]) && (t == text || i < 3))
      return TRUE;
  return FALSE;
}

/* @text without the "_" that group digits, as in 2_000_000 or 0xFF_FF */
static GString *
ungroup (const char *text)
{
  gboolean hex = text[0] == '0' && g_ascii_tolower (text[1]) == 'x';
  GString *s = g_string_new (NULL);

  for (const char *c = text; *c; c++)
    if (!(*c == '_' && c > text
            && (hex ? g_ascii_isxdigit (c[-1]) && g_ascii_isxdigit (c[1])
                    : g_ascii_isdigit (c[-1]) && g_ascii_isdigit (c[1]))))
      g_string_append_c (s, *c);
  return s;
}

/* a decimal with a point or an exponent ("1e6", "2.0", "1.5e3") that is a
 * whole number, as its exact magnitude; FALSE for a fraction or what is no
 * decimal. Through a double, 5.0000000000000001 was taken for 5 and
 * 9007199254740993.0 for ...992 */
static gboolean
parse_whole_decimal (const char *text, guint64 *magnitude, gboolean *overflow)
{
  g_autoptr (GString) digits = g_string_new (NULL);
  const char *c = text;
  gint64 point = -1, exponent = 0, whole;
  gsize first, last;

  for (; g_ascii_isdigit (*c) || (*c == '.' && point < 0); c++)
    if (*c == '.')
      point = (gint64)digits->len;
    else
      g_string_append_c (digits, *c);
  if (!digits->len)
    return FALSE;
  if (point < 0)
    point = (gint64)digits->len;
  if (*c == 'e' || *c == 'E')
    {
      gboolean minus = c[1] == '-';
      const char *e = c + 1 + (c[1] == '-' || c[1] == '+');

      if (!g_ascii_isdigit (*e))
        return FALSE;
      for (c = e; g_ascii_isdigit (*c); c++)
        exponent = MIN (exponent * 10 + (*c - '0'), 1000000);
      exponent = minus ? -exponent : exponent;
    }
  if (*c)
    return FALSE;
  *overflow = FALSE;
  *magnitude = 0;
  /* the significant digits, and how many of them stand before the point */
  for (first = 0; first < digits->len && digits->str[first] == '0'; first++)
    ;
  if (first == digits->len)
    return TRUE; /* zero */
  for (last = digits->len; digits->str[last - 1] == '0'; last--)
    ;
  whole = point + exponent - (gint64)first;
  if (whole < (gint64)(last - first))
    return FALSE; /* a digit after the point that is not 0 */
  if (whole > 20)
    {
      *overflow = TRUE;
      return TRUE;
    }
  g_string_truncate (digits, last);
  g_string_erase (digits, 0, first);
  while ((gint64)digits->len < whole)
    g_string_append_c (digits, '0');
  *overflow = !g_ascii_string_to_unsigned (
      digits->str, 10, 0, G_MAXUINT64, magnitude, NULL);
  return TRUE;
}

/* an integer as YAML writes it: 1920, -1, 2_000_000 or 1e6, as a sign and
 * a magnitude; @overflow when it is beyond 64 bits */
static gboolean
parse_integer (const char *text, gboolean *negative, guint64 *magnitude,
    gboolean *overflow)
{
  g_autoptr (GString) digits = NULL;
  const char *c = text;
  gboolean plain = TRUE;

  *negative = *c == '-';
  *overflow = FALSE;
  if (*c == '-' || *c == '+')
    c++;
  digits = ungroup (c);
  for (gsize i = 0; i < digits->len; i++)
    plain = plain && g_ascii_isdigit (digits->str[i]);
  if (!digits->len)
    return FALSE;
  if (plain)
    {
      /* all digits: only too many of them can fail */
      *overflow = !g_ascii_string_to_unsigned (
          digits->str, 10, 0, G_MAXUINT64, magnitude, NULL);
      return TRUE;
    }
  /* 0x...: exact, where a double keeps only 53 bits (0x20000000000001
   * read as 0x20000000000000) */
  if (digits->len > 2 && digits->str[0] == '0'
      && g_ascii_tolower (digits->str[1]) == 'x')
    {
      for (gsize i = 2; i < digits->len; i++)
        if (!g_ascii_isxdigit (digits->str[i]))
          return FALSE;
      *overflow = !g_ascii_string_to_unsigned (
          digits->str + 2, 16, 0, G_MAXUINT64, magnitude, NULL);
      return TRUE;
    }
  return parse_whole_decimal (digits->str, magnitude, overflow);
}

/* a scalar into a GValue of @pspec's type, checked against its range; on
 * failure @problem says what was expected, as the end of a sentence whose
 * subject is the parameter */
gboolean
accel_yaml_convert (
    const char *text, GParamSpec *pspec, GValue *value, gchar **problem)
{
  GType t = G_PARAM_SPEC_VALUE_TYPE (pspec);
  GType fundamental = G_TYPE_FUNDAMENTAL (t);

  g_value_init (value, t);
  switch (fundamental)
    {
    case G_TYPE_STRING:
      g_value_set_string (value, text);
      break;
    case G_TYPE_BOOLEAN:
      {
        static const char *const yes[] = { "true", "yes", "on", "y", NULL };
        static const char *const no[] = { "false", "no", "off", "n", NULL };
        g_autofree gchar *lower = g_ascii_strdown (text, -1);
        if (g_strv_contains (yes, lower))
          g_value_set_boolean (value, TRUE);
        else if (g_strv_contains (no, lower))
          g_value_set_boolean (value, FALSE);
        else
          {
            *problem
                = g_strdup_printf ("must be true or false, not '%s'", text);
            goto failed;
          }
        break;
      }
    case G_TYPE_INT:
    case G_TYPE_UINT:
    case G_TYPE_LONG:
    case G_TYPE_ULONG:
    case G_TYPE_INT64:
    case G_TYPE_UINT64:
      {
        gboolean neg, overflow;
        guint64 mag;
        gint64 sv;

        if (!parse_integer (text, &neg, &mag, &overflow))
          {
            *problem = g_strdup_printf ("must be an integer, not '%s'", text);
            goto failed;
          }
        if (overflow || (neg && mag > (guint64)G_MAXINT64 + 1))
          goto range;
        sv = !neg                             ? (gint64)MIN (mag, G_MAXINT64)
             : mag == (guint64)G_MAXINT64 + 1 ? G_MININT64
                                              : -(gint64)mag;
        switch (fundamental)
          {
          case G_TYPE_INT:
            if ((!neg && mag > G_MAXINT) || (neg && sv < G_MININT))
              goto range;
            g_value_set_int (value, (gint)sv);
            break;
          case G_TYPE_LONG:
            if ((!neg && mag > G_MAXLONG) || (neg && sv < G_MINLONG))
              goto range;
            g_value_set_long (value, (glong)sv);
            break;
          case G_TYPE_INT64:
            if (!neg && mag > G_MAXINT64)
              goto range;
            g_value_set_int64 (value, sv);
            break;
          case G_TYPE_UINT:
            if ((neg && mag) || mag > G_MAXUINT)
              goto range;
            g_value_set_uint (value, (guint)mag);
            break;
          case G_TYPE_ULONG:
            if ((neg && mag) || mag > G_MAXULONG)
              goto range;
            g_value_set_ulong (value, (gulong)mag);
            break;
          default:
            if (neg && mag)
              goto range;
            g_value_set_uint64 (value, mag);
            break;
          }
        break;
      }
    case G_TYPE_FLOAT:
    case G_TYPE_DOUBLE:
      {
        g_autoptr (GString) number = ungroup (text);
        gchar *end = NULL;
        gdouble v = g_ascii_strtod (number->str, &end);
        if (is_yaml_special_float (text))
          v = NAN;
        else if (!number->len || g_ascii_isspace (number->str[0]) || *end)
          {
            *problem = g_strdup_printf ("must be a number, not '%s'", text);
            goto failed;
          }
        if (!isfinite (v))
          {
            *problem
                = g_strdup_printf ("must be a finite number, not '%s'", text);
            goto failed;
          }
        if (fundamental == G_TYPE_FLOAT)
          {
            /* what rounds to the largest float is in range: the bound as
             * --describe prints it (3.4028235e+38) is a little above it */
            if (isinf ((gfloat)v))
              goto range;
            g_value_set_float (value, (gfloat)v);
          }
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
            g_autofree const char **nicks
                = g_new0 (const char *, ec->n_values + 1);
            g_autofree gchar *list = NULL, *hint = NULL;
            for (guint i = 0; i < ec->n_values; i++)
              nicks[i] = ec->values[i].value_nick;
            list = g_strjoinv (", ", (gchar **)nicks);
            hint = accel_yaml_did_you_mean (text, nicks, ec->n_values);
            *problem = g_strdup_printf (
                "must be one of %s, not '%s'%s", list, text, hint);
            goto failed;
          }
        g_value_set_enum (value, ev->value);
        break;
      }
    case G_TYPE_FLAGS:
      {
        GFlagsClass *fc = G_PARAM_SPEC_FLAGS (pspec)->flags_class;
        g_auto (GStrv) parts = g_strsplit_set (text, "+|,", -1);
        guint flags = 0;
        for (guint i = 0; parts[i]; i++)
          {
            const char *nick = g_strstrip (parts[i]);
            GFlagsValue *fv;
            if (!*nick && !parts[1])
              break;
            fv = g_flags_get_value_by_nick (fc, nick);
            if (!fv)
              {
                g_autoptr (GString) list = g_string_new (NULL);
                for (guint j = 0; j < fc->n_values; j++)
                  g_string_append_printf (
                      list, "%s%s", j ? ", " : "", fc->values[j].value_nick);
                *problem = g_strdup_printf (
                    "takes flags among %s joined with '+', not '%s'", list->str,
                    nick);
                goto failed;
              }
            flags |= fv->value;
          }
        g_value_set_flags (value, flags);
        break;
      }
    default:
      *problem
          = g_strdup_printf ("cannot be set from YAML (a %s)", g_type_name (t));
      goto failed;
    }

  /* validation changes a value that is out of the parameter's range */
  if (g_param_value_validate (pspec, value))
    goto range;
  return TRUE;

  /* ERRORS */
range:
  {
    *problem = out_of_range (text, pspec);
    goto failed;
  }
failed:
  {
    if (G_IS_VALUE (value))
      g_value_unset (value);
    return FALSE;
  }
}

/* a setting's value as the log shows it: an enum by its nick */
gchar *
accel_yaml_value_text (const GValue *value)
{
  if (G_VALUE_HOLDS_ENUM (value))
    {
      GEnumValue *ev = g_enum_get_value (
          g_type_class_peek (G_VALUE_TYPE (value)), g_value_get_enum (value));
      if (ev)
        return g_strdup (ev->value_nick);
    }
  return g_strdup_value_contents (value);
}

/* "10s", "500ms", "1.5min" or plain milliseconds (digits, a fraction,
 * a unit: no sign, exponent, hexadecimal or space), as a count of
 * milliseconds, a value under 1 ms but not 0 as 1; NULL when @text is
 * none of these. A whole count of milliseconds is kept digit for digit,
 * so the parameter's range, not a double's precision, decides what is
 * too large (9223372036854775ms, the largest, was "not a duration") */
gchar *
accel_yaml_duration_to_ms (const char *text)
{
  static const struct
  {
    const char *unit;
    double ms;
  } units[] = { { "ms", 1 }, { "min", 60000 }, { "s", 1000 }, { "", 1 } };
  const char *p = text;
  gchar *end;
  double v;

  if (!g_ascii_isdigit (*p))
    return NULL;
  while (g_ascii_isdigit (*p))
    p++;
  if (*p == '.')
    {
      if (!g_ascii_isdigit (*++p))
        return NULL;
      while (g_ascii_isdigit (*p))
        p++;
    }
  v = g_ascii_strtod (text, &end);
  if (end != p)
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (g_str_equal (p, units[i].unit))
      {
        double ms = v * units[i].ms;

        if (units[i].ms == 1 && !strchr (text, '.'))
          return g_strndup (text, (gsize)(p - text));
        if (!isfinite (ms))
          return NULL;
        return g_strdup_printf ("%.0f", ms > 0 && ms < 1 ? 1 : ms);
      }
  return NULL;
}
