/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: refcounted buffers that carry their own stream synchronization */
#pragma once

#include <glib-object.h>
#include <accel/acceltype.h>
#include <accel/acceldevice.h>
#include <accel/accelstream.h>

G_BEGIN_DECLS

typedef struct _AccelBuffer AccelBuffer;
typedef struct _AccelPool AccelPool;

#define ACCEL_TYPE_BUFFER (accel_buffer_get_type ())
GType accel_buffer_get_type (void);

AccelBuffer *accel_buffer_new (
    AccelDevice *device, const AccelType *type, GError **error);
AccelBuffer *accel_buffer_new_wrapped (AccelDevice *device,
    const AccelType *type, gpointer data, gsize size, GDestroyNotify notify,
    gpointer user_data);
AccelBuffer *accel_buffer_new_from_bytes (
    const AccelType *type, GBytes *bytes, GError **error);
GBytes *accel_buffer_dup_bytes (AccelBuffer *buffer, GError **error);
AccelBuffer *accel_buffer_ref (AccelBuffer *buffer);
void accel_buffer_unref (AccelBuffer *buffer);

gpointer accel_buffer_get_data (AccelBuffer *buffer);
gsize accel_buffer_get_size (AccelBuffer *buffer);
const AccelType *accel_buffer_peek_type (AccelBuffer *buffer);
AccelDevice *accel_buffer_get_device (AccelBuffer *buffer);
guint accel_buffer_get_generation (AccelBuffer *buffer);
AccelPool *accel_buffer_get_pool (AccelBuffer *buffer);
guint accel_buffer_get_refcount (AccelBuffer *buffer);

guint64 accel_buffer_get_sequence (AccelBuffer *buffer);
void accel_buffer_set_sequence (AccelBuffer *buffer, guint64 sequence);
gint64 accel_buffer_get_pts (AccelBuffer *buffer);
void accel_buffer_set_pts (AccelBuffer *buffer, gint64 pts);
gint64 accel_buffer_get_duration (AccelBuffer *buffer);
void accel_buffer_set_duration (AccelBuffer *buffer, gint64 duration);

AccelStream *accel_buffer_get_last_write_stream (AccelBuffer *buffer);
guint accel_buffer_get_n_read_fences (AccelBuffer *buffer);

gboolean accel_buffer_acquire_read (
    AccelBuffer *buffer, AccelStream *stream, GError **error);
gboolean accel_buffer_release_read (
    AccelBuffer *buffer, AccelStream *stream, GError **error);
gboolean accel_buffer_acquire_write (
    AccelBuffer *buffer, AccelStream *stream, GError **error);
gboolean accel_buffer_release_write (
    AccelBuffer *buffer, AccelStream *stream, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AccelBuffer, accel_buffer_unref)

G_END_DECLS
