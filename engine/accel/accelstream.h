/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: streams and the policies that hand them to stages */
#pragma once

#include <glib-object.h>
#include <accel/acceldevice.h>

G_BEGIN_DECLS

typedef struct _AccelStream AccelStream;

#define ACCEL_TYPE_STREAM (accel_stream_get_type ())
GType accel_stream_get_type (void);

AccelStream *accel_stream_new (AccelDevice *device, GError **error);
AccelStream *accel_stream_ref (AccelStream *stream);
void accel_stream_unref (AccelStream *stream);
gpointer accel_stream_get_handle (AccelStream *stream);
AccelDevice *accel_stream_get_device (AccelStream *stream);
guint accel_stream_get_id (AccelStream *stream);
gboolean accel_stream_synchronize (AccelStream *stream, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AccelStream, accel_stream_unref)

/**
 * AccelStreamPolicy:
 * @ACCEL_STREAM_POLICY_PER_STAGE: each stage gets a stream of its own (default)
 * @ACCEL_STREAM_POLICY_SINGLE: all stages of a device share one stream
 * @ACCEL_STREAM_POLICY_POOLED: stages take streams round-robin from a pool
 */
typedef enum
{
  ACCEL_STREAM_POLICY_PER_STAGE,
  ACCEL_STREAM_POLICY_SINGLE,
  ACCEL_STREAM_POLICY_POOLED,
} AccelStreamPolicy;

#define ACCEL_TYPE_STREAM_POLICY (accel_stream_policy_get_type ())
GType accel_stream_policy_get_type (void);

#define ACCEL_TYPE_STREAM_ALLOCATOR (accel_stream_allocator_get_type ())
G_DECLARE_FINAL_TYPE (AccelStreamAllocator, accel_stream_allocator, ACCEL,
    STREAM_ALLOCATOR, GObject)

AccelStreamAllocator *accel_stream_allocator_new (
    AccelStreamPolicy policy, guint n_pooled);
AccelStreamPolicy accel_stream_allocator_get_policy (
    AccelStreamAllocator *self);
AccelStream *accel_stream_allocator_get (
    AccelStreamAllocator *self, AccelDevice *device, GError **error);

G_END_DECLS
