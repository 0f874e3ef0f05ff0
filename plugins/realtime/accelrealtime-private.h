/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: helpers its stages share (not installed) */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

/* bit of @format in a set of formats */
#define ACCEL_REALTIME_FORMAT_BIT(format) (1u << (format))

/* the packed formats every filter stage takes */
#define ACCEL_REALTIME_FILTER_FORMATS                                          \
  (ACCEL_REALTIME_FORMAT_BIT (ACCEL_FORMAT_RGBA8)                              \
      | ACCEL_REALTIME_FORMAT_BIT (ACCEL_FORMAT_BGRA8)                         \
      | ACCEL_REALTIME_FORMAT_BIT (ACCEL_FORMAT_GRAY8)                         \
      | ACCEL_REALTIME_FORMAT_BIT (ACCEL_FORMAT_RGBAF32))

/* the four-channel 8-bit formats the effects, blend and analysis take */
#define ACCEL_REALTIME_RGBA_FORMATS                                            \
  (ACCEL_REALTIME_FORMAT_BIT (ACCEL_FORMAT_RGBA8)                              \
      | ACCEL_REALTIME_FORMAT_BIT (ACCEL_FORMAT_BGRA8))

/**
 * AccelRealtimeImage:
 * @format: pixel format, an #AccelFormat (the kernels' format numbers)
 * @data: the first byte
 * @pitch: bytes from one row to the next (buffers are tightly packed)
 * @width: width in pixels
 * @height: height in pixels
 *
 * A buffer as the image kernels take it.
 */
typedef struct
{
  int format;
  gpointer data;
  gsize pitch;
  int width;
  int height;
} AccelRealtimeImage;

void accel_realtime_image_init (AccelRealtimeImage *image, AccelBuffer *buffer);

gboolean accel_realtime_check_format (
    AccelStage *stage, const AccelType *type, guint formats, GError **error);

gboolean accel_realtime_host_check (
    AccelStage *stage, int status, GError **error);

void accel_realtime_class_add_image_ports (AccelStageClass *klass,
    const char *in_description, const char *out_description);

GBytes *accel_realtime_snapshot_block (
    AccelStage *stage, AccelBuffer *block, gsize size);
gboolean accel_realtime_restore_block (AccelStage *stage, AccelBuffer *block,
    gsize size, GBytes *state, const char *what, GError **error);

G_END_DECLS
