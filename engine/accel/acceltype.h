/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: port and buffer types */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/**
 * AccelKind:
 * @ACCEL_KIND_ANY: wildcard, only in port templates
 * @ACCEL_KIND_TENSOR: an n-dimensional array of one dtype
 * @ACCEL_KIND_IMAGE: an image of one #AccelFormat, dims are (height, width)
 * @ACCEL_KIND_PARTICLES: a particle system's state, dims are (count)
 * @ACCEL_KIND_BYTES: an opaque run of bytes, dims are (size)
 */
typedef enum
{
  ACCEL_KIND_ANY,
  ACCEL_KIND_TENSOR,
  ACCEL_KIND_IMAGE,
  ACCEL_KIND_PARTICLES,
  ACCEL_KIND_BYTES,
} AccelKind;

typedef enum
{
  ACCEL_DTYPE_ANY,
  ACCEL_DTYPE_U8,
  ACCEL_DTYPE_I8,
  ACCEL_DTYPE_U16,
  ACCEL_DTYPE_I16,
  ACCEL_DTYPE_U32,
  ACCEL_DTYPE_I32,
  ACCEL_DTYPE_U64,
  ACCEL_DTYPE_I64,
  ACCEL_DTYPE_F16,
  ACCEL_DTYPE_BF16,
  ACCEL_DTYPE_F32,
  ACCEL_DTYPE_F64,
  ACCEL_DTYPE_C64,
  ACCEL_DTYPE_C128,
} AccelDType;

typedef enum
{
  ACCEL_FORMAT_ANY,
  ACCEL_FORMAT_RGBA8,
  ACCEL_FORMAT_BGRA8,
  ACCEL_FORMAT_GRAY8,
  ACCEL_FORMAT_NV12,
  ACCEL_FORMAT_I420,
  ACCEL_FORMAT_RGBAF32,
} AccelFormat;

/**
 * AccelMemory:
 * @ACCEL_MEMORY_ANY: wildcard, only in port templates
 * @ACCEL_MEMORY_DEVICE: memory of the stage's device (host memory on the host
 * backend)
 * @ACCEL_MEMORY_PINNED: page-locked host memory, for fast copies
 * @ACCEL_MEMORY_HOST: ordinary host memory
 * @ACCEL_MEMORY_MANAGED: CUDA managed memory
 */
typedef enum
{
  ACCEL_MEMORY_ANY,
  ACCEL_MEMORY_DEVICE,
  ACCEL_MEMORY_PINNED,
  ACCEL_MEMORY_HOST,
  ACCEL_MEMORY_MANAGED,
} AccelMemory;

#define ACCEL_TYPE_MAX_DIMS 8
/* a dimension that is not fixed yet (templates) */
#define ACCEL_DIM_ANY (-1)
/* n_dims of a template that accepts any rank */
#define ACCEL_RANK_ANY (-1)

typedef struct _AccelType AccelType;

/**
 * AccelType:
 * @kind: what the data is
 * @dtype: element type (images: derived from @format)
 * @format: pixel format of an image, %ACCEL_FORMAT_ANY otherwise
 * @memory: where the data lives
 * @n_dims: number of dimensions, or %ACCEL_RANK_ANY in a template
 * @dims: the dimensions, outermost first; %ACCEL_DIM_ANY where not fixed
 *
 * The type of a port or a buffer. A plain value: copy it with `=`.
 * Concrete types (every field fixed) describe buffers; templates, with
 * wildcards, describe what a port accepts.
 */
struct _AccelType
{
  AccelKind kind;
  AccelDType dtype;
  AccelFormat format;
  AccelMemory memory;
  gint n_dims;
  gint64 dims[ACCEL_TYPE_MAX_DIMS];
};

#define ACCEL_TYPE_TYPE (accel_type_get_type ())
GType accel_type_get_type (void);

AccelType *accel_type_copy (const AccelType *type);
void accel_type_free (AccelType *type);

void accel_type_init_any (AccelType *type);
void accel_type_init_tensor (AccelType *type, AccelDType dtype,
    AccelMemory memory, gint n_dims, const gint64 *dims);
void accel_type_init_image (AccelType *type, AccelFormat format,
    AccelMemory memory, gint64 width, gint64 height);
void accel_type_init_bytes (AccelType *type, AccelMemory memory, gint64 size);

gboolean accel_type_is_fixed (const AccelType *type);
gsize accel_type_get_n_elements (const AccelType *type);
gsize accel_type_get_size (const AccelType *type);
gboolean accel_type_get_size_checked (const AccelType *type, gsize *size);
gboolean accel_type_equal (const AccelType *a, const AccelType *b);
gboolean accel_type_accepts (
    const AccelType *templ, const AccelType *type, gchar **reason);
gboolean accel_type_memory_compatible (
    AccelMemory have, AccelMemory want, gboolean host_backend);

gchar *accel_type_to_string (const AccelType *type);
gboolean accel_type_parse_dims (
    AccelType *type, const char *text, GError **error);

gsize accel_dtype_get_size (AccelDType dtype);
const char *accel_dtype_to_string (AccelDType dtype);
AccelDType accel_dtype_from_string (const char *str);
const char *accel_format_to_string (AccelFormat format);
AccelFormat accel_format_from_string (const char *str);
AccelDType accel_format_get_dtype (AccelFormat format);
gsize accel_format_get_frame_size (
    AccelFormat format, gint64 width, gint64 height);
const char *accel_memory_to_string (AccelMemory memory);
const char *accel_kind_to_string (AccelKind kind);

G_END_DECLS
