/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: a world of processes, one per GPU, that run one pipeline together
 * (collective stages, send and receive between ranks) */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_WORLD (accel_world_get_type ())
G_DECLARE_FINAL_TYPE (AccelWorld, accel_world, ACCEL, WORLD, GObject)

/* how long a rank waits for the coordinator and the other ranks, unless
 * ACCEL_WORLD_TIMEOUT (ms) says otherwise */
#define ACCEL_WORLD_DEFAULT_TIMEOUT_MS 60000

gboolean accel_world_timeout_from_env (guint *timeout_ms, GError **error);

AccelWorld *accel_world_new (const char *coordinator, guint rank, guint size);
AccelWorld *accel_world_get_default (void);
void accel_world_set_default (AccelWorld *world);

guint accel_world_get_rank (AccelWorld *world);
guint accel_world_get_size (AccelWorld *world);
guint accel_world_get_generation (AccelWorld *world);
const char *accel_world_get_coordinator (AccelWorld *world);
const char *accel_world_get_local_host (AccelWorld *world);
guint accel_world_get_timeout_ms (AccelWorld *world);
void accel_world_set_timeout_ms (AccelWorld *world, guint timeout_ms);
void accel_world_set_same_pipeline (AccelWorld *world, gboolean same);
gboolean accel_world_get_same_pipeline (AccelWorld *world);

gboolean accel_world_join (
    AccelWorld *world, const char *pipeline, GError **error);
gboolean accel_world_set (
    AccelWorld *world, const char *key, GBytes *value, GError **error);
GBytes *accel_world_get (AccelWorld *world, const char *key, GError **error);
GBytes *accel_world_peek (AccelWorld *world, const char *key, GError **error);
gboolean accel_world_is_left (AccelWorld *world);
void accel_world_finish (AccelWorld *world);
void accel_world_refuse (AccelWorld *world, const char *why);
gboolean accel_world_agree_min (
    AccelWorld *world, const char *name, guint64 *value, GError **error);

gchar *accel_world_substitute (AccelWorld *world, const char *text);

const char *const *accel_world_get_worker_defaults (void);
gboolean accel_world_supervise (const char *const *argv, guint n_ranks,
    const char *pipeline, const char *coordinator, const char *state_dir,
    guint max_restarts, gint64 restart_window_ms, GError **error);

G_END_DECLS
