/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* video effects: the description parser, the colour matrix it composes and
 * the per-frame preparation both sides of the fused pass use */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "effects-pixel.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef enum
{
  FX_BRIGHTNESS,
  FX_CONTRAST,
  FX_SATURATION,
  FX_HUE,
  FX_SEPIA,
  FX_INVERT,
  FX_GAMMA,
  FX_VIGNETTE,
  FX_CHROMA_KEY,
  FX_DIFFERENCE,
  FX_ECHO,
  FX_N,
} FxKind;

typedef enum
{
  VALUE_REQUIRED,
  VALUE_NONE,
  VALUE_OPTIONAL,
} FxValue;

typedef struct
{
  const char *name;
  FxValue value;
  /* the first value's range; closed unless hi_open */
  float lo, hi;
  int hi_open;
  float def;         /* when bare (VALUE_OPTIONAL) */
  const char *usage; /* for a missing value */
} FxInfo;

static const FxInfo fx_info[FX_N] = {
  [FX_BRIGHTNESS] = { "brightness", VALUE_REQUIRED, -1.0f, 1.0f, 0, 0.0f,
      "brightness=B with B in [-1, 1]" },
  [FX_CONTRAST] = { "contrast", VALUE_REQUIRED, 0.0f, 4.0f, 0, 0.0f,
      "contrast=C with C in [0, 4]" },
  [FX_SATURATION] = { "saturation", VALUE_REQUIRED, 0.0f, 4.0f, 0, 0.0f,
      "saturation=S with S in [0, 4]" },
  [FX_HUE] = { "hue", VALUE_REQUIRED, -180.0f, 180.0f, 0, 0.0f,
      "hue=H with H in [-180, 180] degrees" },
  [FX_SEPIA] = { "sepia", VALUE_OPTIONAL, 0.0f, 1.0f, 0, 1.0f, NULL },
  [FX_INVERT] = { "invert", VALUE_NONE, 0.0f, 0.0f, 0, 0.0f, NULL },
  [FX_GAMMA] = { "gamma", VALUE_REQUIRED, 0.1f, 10.0f, 0, 0.0f,
      "gamma=G with G in [0.1, 10]" },
  [FX_VIGNETTE] = { "vignette", VALUE_OPTIONAL, 0.0f, 1.0f, 0, 0.5f, NULL },
  [FX_CHROMA_KEY] = { "chroma-key", VALUE_REQUIRED, 0.0f, 0.0f, 0, 0.0f,
      "chroma-key=#rrggbb[/tolerance[/softness]]" },
  [FX_DIFFERENCE] = { "difference", VALUE_NONE, 0.0f, 0.0f, 0, 0.0f, NULL },
  [FX_ECHO] = { "echo", VALUE_OPTIONAL, 0.0f, 1.0f, 0, 0.9f, NULL },
};

#define DEFAULT_VIGNETTE_RADIUS 0.5f
#define DEFAULT_KEY_TOLERANCE 0.3f
#define DEFAULT_KEY_SOFTNESS 0.1f
/* the most values an effect takes, '/' apart */
#define MAX_VALUES 3

/* the classic sepia tone matrix, rows R, G, B */
static const double sepia_tone[3][3] = {
  { 0.393, 0.769, 0.189 },
  { 0.349, 0.686, 0.168 },
  { 0.272, 0.534, 0.131 },
};

/**
 * accel_effects_params_init:
 * @effects: (out caller-allocates): the parameters to reset
 *
 * The identity: no effect on, an identity matrix and each effect's
 * defaults.
 */
void
accel_effects_params_init (AccelEffectsParams *effects)
{
  memset (effects, 0, sizeof (*effects));
  effects->matrix[0] = effects->matrix[5] = effects->matrix[10] = 1.0f;
  effects->gamma = 1.0f;
  effects->vignette_strength = fx_info[FX_VIGNETTE].def;
  effects->vignette_radius = DEFAULT_VIGNETTE_RADIUS;
  effects->key_tolerance = DEFAULT_KEY_TOLERANCE;
  effects->key_softness = DEFAULT_KEY_SOFTNESS;
  effects->echo_decay = fx_info[FX_ECHO].def;
}

static void set_message (char *message, size_t size, const char *format, ...)
    __attribute__ ((format (printf, 3, 4)));

static void
set_message (char *message, size_t size, const char *format, ...)
{
  va_list args;

  if (!message || size == 0)
    return;
  va_start (args, format);
  vsnprintf (message, size, format, args);
  va_end (args);
}

/* Levenshtein distance of @a (@la bytes, at most 63 are looked at) and
 * the name @b */
static size_t
edit_distance (const char *a, size_t la, const char *b)
{
  size_t lb = strlen (b), row[64];

  if (la > 63)
    la = 63;
  for (size_t j = 0; j <= lb; j++)
    row[j] = j;
  for (size_t i = 1; i <= la; i++)
    {
      size_t diag = row[0];
      row[0] = i;
      for (size_t j = 1; j <= lb; j++)
        {
          size_t up = row[j];
          size_t best = (row[j] < row[j - 1] ? row[j] : row[j - 1]) + 1;
          size_t subst = diag + (a[i - 1] != b[j - 1]);
          row[j] = best < subst ? best : subst;
          diag = up;
        }
    }
  return row[lb];
}

static int
lookup (const char *name, size_t len)
{
  for (int k = 0; k < FX_N; k++)
    if (strlen (fx_info[k].name) == len
        && strncmp (fx_info[k].name, name, len) == 0)
      return k;
  return -1;
}

/* the effect @name is a misspelling of, or NULL where none is near: at
 * most two edits, or a third of its length (the rule of the YAML loader's
 * suggestions); "blur" was taken for "hue", as was any unknown name */
static const char *
nearest (const char *name, size_t len)
{
  const char *best = NULL;
  size_t best_d = (size_t)-1;

  for (int k = 0; k < FX_N; k++)
    {
      size_t d = edit_distance (name, len, fx_info[k].name);
      if (d < best_d)
        {
          best_d = d;
          best = fx_info[k].name;
        }
    }
  return best_d <= (len / 3 > 2 ? len / 3 : 2) ? best : NULL;
}

/* the names of every effect, ", " apart, into @out (@size bytes) */
static void
list_effects (char *out, size_t size)
{
  size_t at = 0;

  out[0] = '\0';
  for (int k = 0; k < FX_N && at < size; k++)
    at += (size_t)snprintf (
        out + at, size - at, "%s%s", k ? ", " : "", fx_info[k].name);
}

/* a decimal number, "[+-]digits[.digits][(e|E)[+-]digits]", the whole of
 * @s (@len bytes), whatever the locale; 0 if it is not one. Up to 19
 * significant digits and powers of ten up to 22 the result is the double
 * nearest the text, rounded to float; past a float's range, +-3e38 */
static int
parse_number (const char *s, size_t len, float *out)
{
  static const double pow10[]
      = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
          1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
  const char *end = s + len;
  unsigned long long mant = 0;
  int neg = 0, digits = 0, exp10 = 0;
  double v;

  if (s < end && (*s == '+' || *s == '-'))
    neg = *s++ == '-';
  for (; s < end && *s >= '0' && *s <= '9'; s++, digits++)
    {
      if (mant < 1000000000000000000ull)
        mant = mant * 10 + (unsigned long long)(*s - '0');
      else
        exp10++;
    }
  if (s < end && *s == '.')
    for (s++; s < end && *s >= '0' && *s <= '9'; s++, digits++)
      if (mant < 1000000000000000000ull)
        {
          mant = mant * 10 + (unsigned long long)(*s - '0');
          exp10--;
        }
  if (digits == 0)
    return 0;
  if (s < end && (*s == 'e' || *s == 'E'))
    {
      int eneg = 0, e = 0, edigits = 0;
      s++;
      if (s < end && (*s == '+' || *s == '-'))
        eneg = *s++ == '-';
      for (; s < end && *s >= '0' && *s <= '9'; s++, edigits++)
        if (e < 10000)
          e = e * 10 + (*s - '0');
      if (edigits == 0)
        return 0;
      exp10 += eneg ? -e : e;
    }
  if (s != end)
    return 0;

  v = (double)mant;
  for (; exp10 > 22; exp10 -= 22)
    v *= 1e22;
  for (; exp10 < -22; exp10 += 22)
    v /= 1e22;
  v = exp10 >= 0 ? v * pow10[exp10] : v / pow10[-exp10];
  /* past a float's range: a number all the same, which the effect's own
   * range refuses saying so ("1e308" is no less a number than "1e30") */
  if (!isfinite (v) || v > 3.0e38)
    v = 3.0e38;
  *out = (float)(neg ? -v : v);
  return 1;
}

/* "#rrggbb" */
static int
parse_colour (const char *s, size_t len, uint8_t *rgb)
{
  if (len != 7 || s[0] != '#')
    return 0;
  for (int i = 0; i < 3; i++)
    {
      int v = 0;
      for (int k = 1; k <= 2; k++)
        {
          char c = s[2 * i + k];
          int d = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
          if (d < 0)
            return 0;
          v = v * 16 + d;
        }
      rgb[i] = (uint8_t)v;
    }
  return 1;
}

/* a 3x4 matrix: rows R, G, B of (r, g, b, offset) */
typedef double Matrix[3][4];

static void
matrix_identity (Matrix m)
{
  memset (m, 0, sizeof (Matrix));
  m[0][0] = m[1][1] = m[2][2] = 1.0;
}

/* @m becomes @e after @m */
static void
matrix_then (Matrix m, Matrix e)
{
  Matrix r;

  for (int i = 0; i < 3; i++)
    {
      for (int j = 0; j < 4; j++)
        r[i][j] = e[i][0] * m[0][j] + e[i][1] * m[1][j] + e[i][2] * m[2][j];
      r[i][3] += e[i][3];
    }
  memcpy (m, r, sizeof (Matrix));
}

static void
effect_matrix (FxKind kind, double v, Matrix e)
{
  static const double luma[3] = { ACCEL_PX_KR, ACCEL_PX_KG, ACCEL_PX_KB };

  matrix_identity (e);
  switch (kind)
    {
    case FX_BRIGHTNESS:
      for (int i = 0; i < 3; i++)
        e[i][3] = 255.0 * v;
      break;
    case FX_CONTRAST:
      for (int i = 0; i < 3; i++)
        {
          e[i][i] = v;
          e[i][3] = 127.5 * (1.0 - v);
        }
      break;
    case FX_SATURATION:
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
          e[i][j] = (1.0 - v) * luma[j] + (i == j ? v : 0.0);
      break;
    case FX_HUE:
      {
        /* Rodrigues' rotation about the unit grey axis u = (1, 1, 1) / sqrt 3:
         * cos I + sin [u]x + (1 - cos) u u^T */
        static const double cross[3][3]
            = { { 0, -1, 1 }, { 1, 0, -1 }, { -1, 1, 0 } };
        double a = v * M_PI / 180.0, c = cos (a), s = sin (a) / sqrt (3.0);
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 3; j++)
            e[i][j] = (i == j ? c : 0.0) + s * cross[i][j] + (1.0 - c) / 3.0;
        break;
      }
    case FX_SEPIA:
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
          e[i][j] = (1.0 - v) * (i == j ? 1.0 : 0.0) + v * sepia_tone[i][j];
      break;
    case FX_INVERT:
      for (int i = 0; i < 3; i++)
        {
          e[i][i] = -1.0;
          e[i][3] = 255.0;
        }
      break;
    default:
      break;
    }
}

/* the text of one effect, for messages */
typedef struct
{
  const char *text;
  int len;
} Token;

static int
check_range (const Token *t, const char *what, float v, float lo, float hi,
    int hi_open, char *message, size_t size)
{
  if (v >= lo && (hi_open ? v < hi : v <= hi))
    return 1;
  set_message (message, size, "'%.*s': %s must be in [%g, %g%c", t->len,
      t->text, what, (double)lo, (double)hi, hi_open ? ')' : ']');
  return 0;
}

/* one effect, @name=@values: into @m (the matrix so far) or @effects */
static int
parse_effect (const Token *t, const char *name, size_t name_len,
    const char *value, size_t value_len, int has_value, Matrix m,
    AccelEffectsParams *effects, char *message, size_t size)
{
  int kind = lookup (name, name_len);
  const FxInfo *info;
  const char *parts[MAX_VALUES];
  size_t part_len[MAX_VALUES];
  float v[MAX_VALUES];
  int n = 0;
  int max_values = kind == FX_VIGNETTE     ? 2
                   : kind == FX_CHROMA_KEY ? MAX_VALUES
                                           : 1;

  if (kind < 0)
    {
      const char *near = nearest (name, name_len);
      char names[256];

      list_effects (names, sizeof names);
      if (near)
        set_message (message, size,
            "unknown effect '%.*s' (did you mean '%s'?)", (int)name_len, name,
            near);
      else
        set_message (message, size, "unknown effect '%.*s' (one of %s)",
            (int)name_len, name, names);
      return 0;
    }
  info = &fx_info[kind];

  if (info->value == VALUE_NONE && has_value)
    {
      set_message (message, size, "'%.*s': %s takes no value", t->len, t->text,
          info->name);
      return 0;
    }
  if (info->value == VALUE_REQUIRED && (!has_value || value_len == 0))
    {
      set_message (message, size, "'%.*s': %s needs a value: %s", t->len,
          t->text, info->name, info->usage);
      return 0;
    }

  /* the values, '/' apart */
  if (has_value)
    {
      const char *p = value, *end = value + value_len;
      for (;;)
        {
          const char *slash = memchr (p, '/', (size_t)(end - p));
          const char *stop = slash ? slash : end;
          if (n == max_values)
            {
              set_message (message, size, "'%.*s': %s takes at most %d value%s",
                  t->len, t->text, info->name, n, n == 1 ? "" : "s");
              return 0;
            }
          parts[n] = p;
          part_len[n] = (size_t)(stop - p);
          n++;
          if (!slash)
            break;
          p = slash + 1;
        }
      for (int i = kind == FX_CHROMA_KEY ? 1 : 0; i < n; i++)
        if (!parse_number (parts[i], part_len[i], &v[i]))
          {
            set_message (message, size, "'%.*s': '%.*s' is not a number",
                t->len, t->text, (int)part_len[i], parts[i]);
            return 0;
          }
    }

  /* effects that may appear once */
  if (kind >= FX_GAMMA)
    {
      static const unsigned bit[FX_N] = {
        [FX_GAMMA] = ACCEL_EFFECTS_GAMMA,
        [FX_VIGNETTE] = ACCEL_EFFECTS_VIGNETTE,
        [FX_CHROMA_KEY] = ACCEL_EFFECTS_CHROMA_KEY,
        [FX_DIFFERENCE] = ACCEL_EFFECTS_DIFFERENCE,
        [FX_ECHO] = ACCEL_EFFECTS_ECHO,
      };
      if (effects->flags & bit[kind])
        {
          set_message (message, size, "'%.*s': %s is given twice", t->len,
              t->text, info->name);
          return 0;
        }
      effects->flags |= bit[kind];
    }

  switch (kind)
    {
    case FX_GAMMA:
      if (!check_range (
              t, "the value", v[0], info->lo, info->hi, 0, message, size))
        return 0;
      effects->gamma = v[0];
      return 1;
    case FX_VIGNETTE:
      if (n >= 1
          && !check_range (
              t, "the strength", v[0], 0.0f, 1.0f, 0, message, size))
        return 0;
      if (n >= 2
          && !check_range (t, "the radius", v[1], 0.0f, 1.0f, 1, message, size))
        return 0;
      effects->vignette_strength = n >= 1 ? v[0] : info->def;
      effects->vignette_radius = n >= 2 ? v[1] : DEFAULT_VIGNETTE_RADIUS;
      return 1;
    case FX_CHROMA_KEY:
      if (!parse_colour (parts[0], part_len[0], effects->key))
        {
          set_message (message, size,
              "'%.*s': the key colour '%.*s' is not #rrggbb", t->len, t->text,
              (int)part_len[0], parts[0]);
          return 0;
        }
      if (n >= 2
          && !check_range (
              t, "the tolerance", v[1], 0.0f, 1.0f, 0, message, size))
        return 0;
      if (n >= 3
          && !check_range (
              t, "the softness", v[2], 0.0f, 1.0f, 0, message, size))
        return 0;
      effects->key_tolerance = n >= 2 ? v[1] : DEFAULT_KEY_TOLERANCE;
      effects->key_softness = n >= 3 ? v[2] : DEFAULT_KEY_SOFTNESS;
      return 1;
    case FX_DIFFERENCE:
      return 1;
    case FX_ECHO:
      if (n >= 1
          && !check_range (
              t, "the decay", v[0], info->lo, info->hi, 0, message, size))
        return 0;
      effects->echo_decay = n >= 1 ? v[0] : info->def;
      return 1;
    default:
      {
        /* the colour matrix effects */
        Matrix e;
        double value = n >= 1 ? (double)v[0] : (double)info->def;
        if (n >= 1
            && !check_range (
                t, "the value", v[0], info->lo, info->hi, 0, message, size))
          return 0;
        effect_matrix ((FxKind)kind, value, e);
        matrix_then (m, e);
        return 1;
      }
    }
}

static int
is_separator (char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',';
}

/**
 * accel_effects_parse:
 * @description: (nullable): the effects, as effects.h describes them; %NULL
 *   or blank for none
 * @effects: (out caller-allocates): the parameters
 * @message: (nullable): where the reason goes on failure
 * @size: bytes at @message
 *
 * Returns: 0, or ACCEL_IMAGE_INVALID_VALUE with @effects undefined.
 */
int
accel_effects_parse (const char *description, AccelEffectsParams *effects,
    char *message, size_t size)
{
  const char *p = description ? description : "";
  Matrix m;
  int identity = 1;

  accel_effects_params_init (effects);
  matrix_identity (m);
  set_message (message, size, "%s", "");

  for (;;)
    {
      Token t;
      const char *eq;

      while (*p && is_separator (*p))
        p++;
      if (!*p)
        break;
      t.text = p;
      while (*p && !is_separator (*p))
        p++;
      t.len = (int)(p - t.text);
      eq = memchr (t.text, '=', (size_t)t.len);
      if (!parse_effect (&t, t.text, eq ? (size_t)(eq - t.text) : (size_t)t.len,
              eq ? eq + 1 : NULL, eq ? (size_t)(t.text + t.len - eq - 1) : 0,
              eq != NULL, m, effects, message, size))
        return ACCEL_IMAGE_INVALID_VALUE;
    }

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++)
      {
        float f = (float)m[i][j];
        /* contrast=4 sixty-four times: infinities, then NaN, then black */
        if (!isfinite (f))
          {
            set_message (message, size,
                "the colour effects compose to a matrix past the range of "
                "a float; use fewer of them or milder values");
            return ACCEL_IMAGE_INVALID_VALUE;
          }
        effects->matrix[4 * i + j] = f;
        identity &= f == (j == i ? 1.0f : 0.0f);
      }
  if (!identity)
    effects->flags |= ACCEL_EFFECTS_MATRIX;
  return ACCEL_IMAGE_OK;
}

int
accel_effects_history_planes (const AccelEffectsParams *effects)
{
  return ((effects->flags & ACCEL_EFFECTS_DIFFERENCE) != 0)
         + ((effects->flags & ACCEL_EFFECTS_ECHO) != 0);
}

size_t
accel_effects_history_size (
    const AccelEffectsParams *effects, int width, int height)
{
  if (width <= 0 || height <= 0)
    return 0;
  return (size_t)accel_effects_history_planes (effects) * (size_t)width
         * (size_t)height * 4 * sizeof (float);
}

/**
 * accel_effects_pass_init:
 * @effects: the parameters
 * @width: frame width
 * @height: frame height
 * @pass: (out caller-allocates): what the pass reads per pixel
 *
 * Called by the launcher and the host reference alike, so both sides read
 * the same constants.
 */
void
accel_effects_pass_init (const AccelEffectsParams *effects, int width,
    int height, AccelEffectsPass *pass)
{
  float r2 = effects->vignette_radius * effects->vignette_radius;
  float kr = (float)effects->key[0], kg = (float)effects->key[1],
        kb = (float)effects->key[2];

  memset (pass, 0, sizeof (*pass));
  pass->flags = effects->flags;
  memcpy (pass->m, effects->matrix, sizeof (pass->m));
  pass->gamma_exponent = 1.0f / effects->gamma;
  pass->vx_scale = 2.0f / (float)width;
  pass->vy_scale = 2.0f / (float)height;
  pass->v_k = 1.0f / (1.0f - r2);
  pass->v_c = -r2 * pass->v_k;
  pass->v_strength = effects->vignette_strength;
  pass->key_u = accel_px_u (kr, kg, kb);
  pass->key_v = accel_px_v (kr, kg, kb);
  pass->key_tolerance = effects->key_tolerance;
  /* a hard key: any distance past the tolerance gives full alpha */
  pass->key_inv_softness
      = effects->key_softness > 0.0f ? 1.0f / effects->key_softness : 1e30f;
  pass->echo_decay = effects->echo_decay;
}
