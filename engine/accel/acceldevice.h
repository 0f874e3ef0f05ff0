/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: CUDA devices and the host pseudo-device */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_DEVICE (accel_device_get_type ())
G_DECLARE_FINAL_TYPE (AccelDevice, accel_device, ACCEL, DEVICE, GObject)

/**
 * AccelBackend:
 * @ACCEL_BACKEND_HOST: run everything on the CPU
 * @ACCEL_BACKEND_CUDA: run on CUDA devices
 */
typedef enum
{
  ACCEL_BACKEND_HOST,
  ACCEL_BACKEND_CUDA,
} AccelBackend;

AccelBackend accel_backend_get_default (void);
gboolean accel_backend_set_default (AccelBackend backend, GError **error);

GPtrArray *accel_device_list (void);
AccelDevice *accel_device_get_default (void);
AccelDevice *accel_device_get_host (void);
AccelDevice *accel_device_get_cuda (gint index, GError **error);
guint accel_device_get_n_cuda (void);

gboolean accel_device_is_host (AccelDevice *device);
gint accel_device_get_index (AccelDevice *device);
const char *accel_device_get_name (AccelDevice *device);
guint64 accel_device_get_total_memory (AccelDevice *device);
void accel_device_get_compute_capability (
    AccelDevice *device, gint *major, gint *minor);
gboolean accel_device_can_access_peer (AccelDevice *device, AccelDevice *peer);
gboolean accel_device_enable_peer_access (
    AccelDevice *device, AccelDevice *peer, GError **error);
guint accel_device_get_generation (AccelDevice *device);
guint accel_device_bump_generation (AccelDevice *device);
gboolean accel_device_make_current (AccelDevice *device, GError **error);
void accel_device_global_call_begin (void);
void accel_device_global_call_end (void);
gboolean accel_device_get_memory_info (AccelDevice *device, guint64 *free_bytes,
    guint64 *total_bytes, GError **error);

G_END_DECLS
