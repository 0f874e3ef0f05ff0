/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: port and buffer types, and the rules for linking them. Types are
 * plain values: every function here works on what the caller passes and
 * touches no shared state, so all are MT safe */
#define G_LOG_DOMAIN "accel-type"

#include "accel-private.h"

#include <string.h>

/**
 * accel_type_get_type:
 *
 * Returns: the boxed #GType of #AccelType. MT safe.
 */
G_DEFINE_BOXED_TYPE (AccelType, accel_type, accel_type_copy, accel_type_free)

static const char *const dtype_names[] = {
  [ACCEL_DTYPE_ANY] = "any",
  [ACCEL_DTYPE_U8] = "u8",
  [ACCEL_DTYPE_I8] = "i8",
  [ACCEL_DTYPE_U16] = "u16",
  [ACCEL_DTYPE_I16] = "i16",
  [ACCEL_DTYPE_U32] = "u32",
  [ACCEL_DTYPE_I32] = "i32",
  [ACCEL_DTYPE_U64] = "u64",
  [ACCEL_DTYPE_I64] = "i64",
  [ACCEL_DTYPE_F16] = "f16",
  [ACCEL_DTYPE_BF16] = "bf16",
  [ACCEL_DTYPE_F32] = "f32",
  [ACCEL_DTYPE_F64] = "f64",
  [ACCEL_DTYPE_C64] = "c64",
  [ACCEL_DTYPE_C128] = "c128",
};

static const gsize dtype_sizes[] = {
  [ACCEL_DTYPE_ANY] = 0,
  [ACCEL_DTYPE_U8] = 1,
  [ACCEL_DTYPE_I8] = 1,
  [ACCEL_DTYPE_U16] = 2,
  [ACCEL_DTYPE_I16] = 2,
  [ACCEL_DTYPE_U32] = 4,
  [ACCEL_DTYPE_I32] = 4,
  [ACCEL_DTYPE_U64] = 8,
  [ACCEL_DTYPE_I64] = 8,
  [ACCEL_DTYPE_F16] = 2,
  [ACCEL_DTYPE_BF16] = 2,
  [ACCEL_DTYPE_F32] = 4,
  [ACCEL_DTYPE_F64] = 8,
  [ACCEL_DTYPE_C64] = 8,
  [ACCEL_DTYPE_C128] = 16,
};

static const char *const format_names[] = {
  [ACCEL_FORMAT_ANY] = "any",
  [ACCEL_FORMAT_RGBA8] = "RGBA8",
  [ACCEL_FORMAT_BGRA8] = "BGRA8",
  [ACCEL_FORMAT_GRAY8] = "GRAY8",
  [ACCEL_FORMAT_NV12] = "NV12",
  [ACCEL_FORMAT_I420] = "I420",
  [ACCEL_FORMAT_RGBAF32] = "RGBAF32",
};

static const char *const memory_names[] = {
  [ACCEL_MEMORY_ANY] = "any",
  [ACCEL_MEMORY_DEVICE] = "device",
  [ACCEL_MEMORY_PINNED] = "pinned",
  [ACCEL_MEMORY_HOST] = "host",
  [ACCEL_MEMORY_MANAGED] = "managed",
};

static const char *const kind_names[] = {
  [ACCEL_KIND_ANY] = "any",
  [ACCEL_KIND_TENSOR] = "tensor",
  [ACCEL_KIND_IMAGE] = "image",
  [ACCEL_KIND_PARTICLES] = "particles",
  [ACCEL_KIND_BYTES] = "bytes",
};

/**
 * accel_type_copy:
 * @type: a type
 *
 * Returns: (transfer full): a newly allocated copy of @type; free it with
 * accel_type_free(). MT safe.
 */
AccelType *
accel_type_copy (const AccelType *type)
{
  return g_memdup2 (type, sizeof (AccelType));
}

/**
 * accel_type_free:
 * @type: (transfer full): a type from accel_type_copy()
 *
 * MT safe.
 */
void
accel_type_free (AccelType *type)
{
  g_free (type);
}

/**
 * accel_type_init_any:
 * @type: (out caller-allocates): the type to fill
 *
 * Makes @type a template that accepts every type. MT safe.
 */
void
accel_type_init_any (AccelType *type)
{
  g_return_if_fail (type != NULL);

  memset (type, 0, sizeof (*type));
  type->n_dims = ACCEL_RANK_ANY;
}

/**
 * accel_type_init_tensor:
 * @type: (out caller-allocates): the type to fill
 * @dtype: element type
 * @memory: where the data lives
 * @n_dims: rank, or %ACCEL_RANK_ANY
 * @dims: (array length=n_dims) (nullable): dimensions, outermost first,
 *   each at least 0 or %ACCEL_DIM_ANY; %NULL leaves every dimension
 *   %ACCEL_DIM_ANY
 *
 * MT safe.
 */
void
accel_type_init_tensor (AccelType *type, AccelDType dtype, AccelMemory memory,
    gint n_dims, const gint64 *dims)
{
  g_return_if_fail (type != NULL);
  g_return_if_fail (n_dims >= ACCEL_RANK_ANY && n_dims <= ACCEL_TYPE_MAX_DIMS);
  for (gint i = 0; dims && i < n_dims; i++)
    g_return_if_fail (dims[i] >= 0 || dims[i] == ACCEL_DIM_ANY);

  accel_type_init_any (type);
  type->kind = ACCEL_KIND_TENSOR;
  type->dtype = dtype;
  type->memory = memory;
  type->n_dims = n_dims;
  for (gint i = 0; i < n_dims; i++)
    type->dims[i] = dims ? dims[i] : ACCEL_DIM_ANY;
}

/**
 * accel_type_init_image:
 * @type: (out caller-allocates): the type to fill
 * @format: pixel format, or %ACCEL_FORMAT_ANY
 * @memory: where the data lives
 * @width: width in pixels, or %ACCEL_DIM_ANY
 * @height: height in pixels, or %ACCEL_DIM_ANY
 *
 * MT safe.
 */
void
accel_type_init_image (AccelType *type, AccelFormat format, AccelMemory memory,
    gint64 width, gint64 height)
{
  g_return_if_fail (type != NULL);

  accel_type_init_any (type);
  type->kind = ACCEL_KIND_IMAGE;
  type->format = format;
  type->dtype = accel_format_get_dtype (format);
  type->memory = memory;
  type->n_dims = 2;
  type->dims[0] = height;
  type->dims[1] = width;
}

/**
 * accel_type_init_bytes:
 * @type: (out caller-allocates): the type to fill
 * @memory: where the data lives
 * @size: size in bytes, or %ACCEL_DIM_ANY
 *
 * MT safe.
 */
void
accel_type_init_bytes (AccelType *type, AccelMemory memory, gint64 size)
{
  g_return_if_fail (type != NULL);

  accel_type_init_any (type);
  type->kind = ACCEL_KIND_BYTES;
  type->dtype = ACCEL_DTYPE_U8;
  type->memory = memory;
  type->n_dims = 1;
  type->dims[0] = size;
}

/**
 * accel_type_is_fixed:
 * @type: a type
 *
 * Returns: %TRUE when no field of @type is a wildcard, so buffers of it can
 * be allocated. MT safe.
 */
gboolean
accel_type_is_fixed (const AccelType *type)
{
  g_return_val_if_fail (type != NULL, FALSE);

  if (type->kind == ACCEL_KIND_ANY || type->dtype == ACCEL_DTYPE_ANY
      || type->memory == ACCEL_MEMORY_ANY || type->n_dims < 0)
    return FALSE;
  if (type->kind == ACCEL_KIND_IMAGE && type->format == ACCEL_FORMAT_ANY)
    return FALSE;
  for (gint i = 0; i < type->n_dims; i++)
    if (type->dims[i] < 0)
      return FALSE;
  return TRUE;
}

/* the product of @type's dimensions, FALSE when it overflows a gsize */
static gboolean
n_elements_checked (const AccelType *type, gsize *n)
{
  *n = 1;
  for (gint i = 0; i < type->n_dims; i++)
    if (!g_size_checked_mul (n, *n, (gsize)type->dims[i]))
      return FALSE;
  return TRUE;
}

/* bytes of a tightly packed frame, FALSE when they overflow a gsize */
static gboolean
frame_size_checked (
    AccelFormat format, gint64 width, gint64 height, gsize *size)
{
  gsize w = (gsize)width, h = (gsize)height;
  gsize cw = w / 2 + w % 2, ch = h / 2 + h % 2;
  gsize luma, chroma;

  if (width < 0 || height < 0 || !g_size_checked_mul (&luma, w, h))
    return FALSE;
  switch (format)
    {
    case ACCEL_FORMAT_RGBA8:
    case ACCEL_FORMAT_BGRA8:
      return g_size_checked_mul (size, luma, 4);
    case ACCEL_FORMAT_GRAY8:
      *size = luma;
      return TRUE;
    case ACCEL_FORMAT_NV12:
    case ACCEL_FORMAT_I420:
      return g_size_checked_mul (&chroma, cw, ch)
             && g_size_checked_mul (&chroma, chroma, 2)
             && g_size_checked_add (size, luma, chroma);
    case ACCEL_FORMAT_RGBAF32:
      return g_size_checked_mul (size, luma, 16);
    default:
      return FALSE;
    }
}

/**
 * accel_type_get_size_checked:
 * @type: a fixed type
 * @size: (out): the bytes a buffer of @type holds
 *
 * accel_type_get_size() for a type that may come from the user: graph
 * preparation refuses every output type this fails for, so the types of
 * buffers always have a size.
 *
 * Returns: %FALSE, leaving @size alone, when the number of elements or of
 * bytes does not fit in a #gsize. MT safe.
 */
gboolean
accel_type_get_size_checked (const AccelType *type, gsize *size)
{
  gsize n, bytes;

  g_return_val_if_fail (type != NULL, FALSE);
  g_return_val_if_fail (size != NULL, FALSE);
  g_return_val_if_fail (accel_type_is_fixed (type), FALSE);

  if (!n_elements_checked (type, &n))
    return FALSE;
  if (type->kind == ACCEL_KIND_IMAGE)
    {
      if (!frame_size_checked (
              type->format, type->dims[1], type->dims[0], &bytes))
        return FALSE;
    }
  else if (!g_size_checked_mul (&bytes, n, accel_dtype_get_size (type->dtype)))
    return FALSE;
  *size = bytes;
  return TRUE;
}

/**
 * accel_type_get_n_elements:
 * @type: a fixed type whose size fits in a #gsize (see
 *   accel_type_get_size_checked())
 *
 * Returns: the product of the dimensions (pixels, for an image), or 0 with a
 * critical when it overflows. MT safe.
 */
gsize
accel_type_get_n_elements (const AccelType *type)
{
  gsize n;

  g_return_val_if_fail (type != NULL, 0);
  g_return_val_if_fail (accel_type_is_fixed (type), 0);
  g_return_val_if_fail (n_elements_checked (type, &n), 0);
  return n;
}

/**
 * accel_type_get_size:
 * @type: a fixed type whose size fits in a #gsize (see
 *   accel_type_get_size_checked())
 *
 * Returns: the bytes a buffer of @type holds (images: tightly packed), or 0
 * with a critical when they overflow. MT safe.
 */
gsize
accel_type_get_size (const AccelType *type)
{
  gsize size = 0;

  g_return_val_if_fail (type != NULL, 0);
  g_return_val_if_fail (accel_type_is_fixed (type), 0);
  g_return_val_if_fail (accel_type_get_size_checked (type, &size), 0);
  return size;
}

/**
 * accel_type_equal:
 * @a: a type
 * @b: another type
 *
 * Returns: %TRUE when @a and @b are the same type. MT safe.
 */
gboolean
accel_type_equal (const AccelType *a, const AccelType *b)
{
  g_return_val_if_fail (a != NULL, FALSE);
  g_return_val_if_fail (b != NULL, FALSE);

  if (a->kind != b->kind || a->dtype != b->dtype || a->format != b->format
      || a->memory != b->memory || a->n_dims != b->n_dims)
    return FALSE;
  for (gint i = 0; i < a->n_dims; i++)
    if (a->dims[i] != b->dims[i])
      return FALSE;
  return TRUE;
}

/**
 * accel_type_memory_compatible:
 * @have: memory of the data
 * @want: memory a port accepts
 * @host_backend: whether the stage runs on the host backend, where device
 *   memory is host memory
 *
 * Returns: %TRUE when data in @have can be read where @want is asked for
 * without a copy. MT safe.
 */
gboolean
accel_type_memory_compatible (
    AccelMemory have, AccelMemory want, gboolean host_backend)
{
  if (have == want || want == ACCEL_MEMORY_ANY || have == ACCEL_MEMORY_ANY)
    return TRUE;
  /* managed memory is readable everywhere */
  if (have == ACCEL_MEMORY_MANAGED)
    return TRUE;
  /* pinned memory is host memory */
  if (have == ACCEL_MEMORY_PINNED && want == ACCEL_MEMORY_HOST)
    return TRUE;
  return host_backend;
}

/**
 * accel_type_accepts:
 * @templ: what a port accepts (may hold wildcards)
 * @type: a concrete type offered to the port
 * @reason: (out) (optional) (transfer full): which field differs
 *
 * Memory is not compared here: the graph inserts a copy where the memory
 * kinds differ and a copy is possible.
 *
 * Returns: %TRUE when a buffer of @type fits @templ; else %FALSE, with
 * @reason set when given. MT safe.
 */
gboolean
accel_type_accepts (
    const AccelType *templ, const AccelType *type, gchar **reason)
{
  g_return_val_if_fail (templ != NULL, FALSE);
  g_return_val_if_fail (type != NULL, FALSE);

  if (templ->kind != ACCEL_KIND_ANY && templ->kind != type->kind)
    {
      if (reason)
        *reason = g_strdup_printf ("kind %s is not %s",
            accel_kind_to_string (type->kind),
            accel_kind_to_string (templ->kind));
      return FALSE;
    }
  if (templ->dtype != ACCEL_DTYPE_ANY && templ->dtype != type->dtype)
    {
      if (reason)
        *reason = g_strdup_printf ("dtype %s is not %s",
            accel_dtype_to_string (type->dtype),
            accel_dtype_to_string (templ->dtype));
      return FALSE;
    }
  if (templ->format != ACCEL_FORMAT_ANY && templ->format != type->format)
    {
      if (reason)
        *reason = g_strdup_printf ("format %s is not %s",
            accel_format_to_string (type->format),
            accel_format_to_string (templ->format));
      return FALSE;
    }
  if (templ->n_dims == ACCEL_RANK_ANY)
    return TRUE;
  if (templ->n_dims != type->n_dims)
    {
      if (reason)
        *reason = g_strdup_printf (
            "rank %d is not %d", type->n_dims, templ->n_dims);
      return FALSE;
    }
  for (gint i = 0; i < templ->n_dims; i++)
    {
      if (templ->dims[i] != ACCEL_DIM_ANY && templ->dims[i] != type->dims[i])
        {
          if (reason)
            *reason = g_strdup_printf ("dimension %d is %" G_GINT64_FORMAT
                                       ", not %" G_GINT64_FORMAT,
                i, type->dims[i], templ->dims[i]);
          return FALSE;
        }
    }
  return TRUE;
}

/**
 * accel_type_to_string:
 * @type: a type
 *
 * Formats @type as, for example, `tensor<f32>[1024x64]@device` or
 * `image<RGBA8>[1080x1920]@device`; `?` marks a wildcard.
 *
 * Returns: (transfer full): the text. MT safe.
 */
gchar *
accel_type_to_string (const AccelType *type)
{
  GString *s;

  g_return_val_if_fail (type != NULL, NULL);
  s = g_string_new (accel_kind_to_string (type->kind));

  if (type->kind == ACCEL_KIND_IMAGE)
    g_string_append_printf (s, "<%s>",
        type->format == ACCEL_FORMAT_ANY
            ? "?"
            : accel_format_to_string (type->format));
  else if (type->kind != ACCEL_KIND_BYTES)
    g_string_append_printf (s, "<%s>",
        type->dtype == ACCEL_DTYPE_ANY ? "?"
                                       : accel_dtype_to_string (type->dtype));

  if (type->n_dims == ACCEL_RANK_ANY)
    {
      g_string_append (s, "[...]");
    }
  else
    {
      g_string_append_c (s, '[');
      for (gint i = 0; i < type->n_dims; i++)
        {
          if (i > 0)
            g_string_append_c (s, 'x');
          if (type->dims[i] < 0)
            g_string_append_c (s, '?');
          else
            g_string_append_printf (s, "%" G_GINT64_FORMAT, type->dims[i]);
        }
      g_string_append_c (s, ']');
    }
  g_string_append_printf (s, "@%s", accel_memory_to_string (type->memory));
  return g_string_free (s, FALSE);
}

/**
 * accel_dtype_get_size:
 * @dtype: an element type
 *
 * Returns: bytes per element, 0 for %ACCEL_DTYPE_ANY. MT safe.
 */
gsize
accel_dtype_get_size (AccelDType dtype)
{
  g_return_val_if_fail (dtype <= ACCEL_DTYPE_C128, 0);
  return dtype_sizes[dtype];
}

/**
 * accel_dtype_to_string:
 * @dtype: an element type
 *
 * Returns: (transfer none): its name, such as "f32" ("any" for
 * %ACCEL_DTYPE_ANY). MT safe.
 */
const char *
accel_dtype_to_string (AccelDType dtype)
{
  g_return_val_if_fail (dtype <= ACCEL_DTYPE_C128, NULL);
  return dtype_names[dtype];
}

/**
 * accel_dtype_from_string:
 * @str: a name such as "f32"
 *
 * Returns: the dtype, or %ACCEL_DTYPE_ANY when @str names none. MT safe.
 */
AccelDType
accel_dtype_from_string (const char *str)
{
  g_return_val_if_fail (str != NULL, ACCEL_DTYPE_ANY);

  for (guint i = 1; i < G_N_ELEMENTS (dtype_names); i++)
    if (g_ascii_strcasecmp (str, dtype_names[i]) == 0)
      return (AccelDType)i;
  return ACCEL_DTYPE_ANY;
}

/**
 * accel_format_to_string:
 * @format: a pixel format
 *
 * Returns: (transfer none): its name, such as "RGBA8" ("any" for
 * %ACCEL_FORMAT_ANY). MT safe.
 */
const char *
accel_format_to_string (AccelFormat format)
{
  g_return_val_if_fail (format <= ACCEL_FORMAT_RGBAF32, NULL);
  return format_names[format];
}

/**
 * accel_format_from_string:
 * @str: a name such as "RGBA8" (case does not matter)
 *
 * Returns: the format, or %ACCEL_FORMAT_ANY when @str names none.
 * MT safe.
 */
AccelFormat
accel_format_from_string (const char *str)
{
  g_return_val_if_fail (str != NULL, ACCEL_FORMAT_ANY);

  for (guint i = 1; i < G_N_ELEMENTS (format_names); i++)
    if (g_ascii_strcasecmp (str, format_names[i]) == 0)
      return (AccelFormat)i;
  return ACCEL_FORMAT_ANY;
}

/**
 * accel_format_get_dtype:
 * @format: a pixel format
 *
 * Returns: the element type of a channel of @format. MT safe.
 */
AccelDType
accel_format_get_dtype (AccelFormat format)
{
  switch (format)
    {
    case ACCEL_FORMAT_ANY:
      return ACCEL_DTYPE_ANY;
    case ACCEL_FORMAT_RGBAF32:
      return ACCEL_DTYPE_F32;
    default:
      return ACCEL_DTYPE_U8;
    }
}

/**
 * accel_format_get_frame_size:
 * @format: a pixel format
 * @width: width in pixels
 * @height: height in pixels
 *
 * Returns: bytes of a tightly packed frame; planar 4:2:0 formats round the
 * chroma planes up for odd sizes. 0 with a critical when they overflow a
 * #gsize. MT safe.
 */
gsize
accel_format_get_frame_size (AccelFormat format, gint64 width, gint64 height)
{
  gsize size = 0;

  g_return_val_if_fail (format > ACCEL_FORMAT_ANY, 0);
  g_return_val_if_fail (format <= ACCEL_FORMAT_RGBAF32, 0);
  g_return_val_if_fail (width >= 0 && height >= 0, 0);
  g_return_val_if_fail (frame_size_checked (format, width, height, &size), 0);
  return size;
}

/**
 * accel_memory_to_string:
 * @memory: a memory kind
 *
 * Returns: (transfer none): its name, such as "device". MT safe.
 */
const char *
accel_memory_to_string (AccelMemory memory)
{
  g_return_val_if_fail (memory <= ACCEL_MEMORY_MANAGED, NULL);
  return memory_names[memory];
}

/**
 * accel_kind_to_string:
 * @kind: a data kind
 *
 * Returns: (transfer none): its name, such as "tensor". MT safe.
 */
const char *
accel_kind_to_string (AccelKind kind)
{
  g_return_val_if_fail (kind <= ACCEL_KIND_BYTES, NULL);
  return kind_names[kind];
}

/**
 * accel_memory_get_type:
 *
 * Returns: the enum #GType of #AccelMemory, whose nicks are the names of
 * accel_memory_to_string(). MT safe.
 */
GType
accel_memory_get_type (void)
{
  static gsize type;
  static const GEnumValue values[] = {
    { ACCEL_MEMORY_ANY, "ACCEL_MEMORY_ANY", "any" },
    { ACCEL_MEMORY_DEVICE, "ACCEL_MEMORY_DEVICE", "device" },
    { ACCEL_MEMORY_PINNED, "ACCEL_MEMORY_PINNED", "pinned" },
    { ACCEL_MEMORY_HOST, "ACCEL_MEMORY_HOST", "host" },
    { ACCEL_MEMORY_MANAGED, "ACCEL_MEMORY_MANAGED", "managed" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("AccelMemory", values));
  return (GType)type;
}

/**
 * accel_type_parse_dims:
 * @type: the type whose dimensions to set
 * @text: sizes outermost first, separated by 'x', such as "1024" or
 *   "480x640"
 * @error: return location for a #GError, or %NULL
 *
 * The one way stage parameters give a tensor's shape.
 *
 * Returns: %FALSE, leaving @type alone, with %ACCEL_ERROR_INVALID_PIPELINE
 * when @text is not 1 to %ACCEL_TYPE_MAX_DIMS positive sizes, or when their
 * product times the size of @type's dtype (if set) overflows. MT safe.
 */
gboolean
accel_type_parse_dims (AccelType *type, const char *text, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (text ? text : "", "x", -1);
  guint n = g_strv_length (parts);
  gint64 dims[ACCEL_TYPE_MAX_DIMS];
  gsize bytes;

  g_return_val_if_fail (type != NULL, FALSE);
  bytes = MAX (accel_dtype_get_size (type->dtype), 1);

  if (n == 0 || n > ACCEL_TYPE_MAX_DIMS)
    goto invalid;
  for (guint i = 0; i < n; i++)
    {
      guint64 v;
      if (!g_ascii_string_to_unsigned (parts[i], 10, 1, G_MAXINT32, &v, NULL))
        goto invalid;
      dims[i] = (gint64)v;
      if (!g_size_checked_mul (&bytes, bytes, (gsize)v))
        goto too_large;
    }
  type->n_dims = (gint)n;
  memcpy (type->dims, dims, n * sizeof (gint64));
  return TRUE;

  /* ERRORS */
invalid:
  {
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
        "shape '%s' is not a list of 1 to %d sizes from 1 to %d such as "
        "'1024' or '480x640'",
        text ? text : "", ACCEL_TYPE_MAX_DIMS, G_MAXINT32);
    return FALSE;
  }
too_large:
  {
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
        "shape '%s' is too large: its size in bytes overflows", text);
    return FALSE;
  }
}
