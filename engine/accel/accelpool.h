/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: bounded pools of buffers of one type */
#pragma once

#include <glib-object.h>
#include <accel/accelbuffer.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_POOL (accel_pool_get_type ())
G_DECLARE_FINAL_TYPE (AccelPool, accel_pool, ACCEL, POOL, GObject)

/* wait for a free buffer without a limit */
#define ACCEL_POOL_WAIT_FOREVER (-1)

AccelPool *accel_pool_new (
    AccelDevice *device, const AccelType *type, guint max_buffers);
const AccelType *accel_pool_peek_type (AccelPool *pool);
AccelDevice *accel_pool_get_device (AccelPool *pool);
void accel_pool_set_timeout (AccelPool *pool, gint64 timeout_us);
gint64 accel_pool_get_timeout (AccelPool *pool);
AccelBuffer *accel_pool_acquire (AccelPool *pool, GError **error);
void accel_pool_set_flushing (AccelPool *pool, gboolean flushing);
guint accel_pool_get_max_buffers (AccelPool *pool);
guint accel_pool_get_n_allocated (AccelPool *pool);
guint accel_pool_get_n_outstanding (AccelPool *pool);
guint accel_pool_get_peak_outstanding (AccelPool *pool);
guint64 accel_pool_get_n_waits (AccelPool *pool);
guint accel_pool_trim (AccelPool *pool);

G_END_DECLS
