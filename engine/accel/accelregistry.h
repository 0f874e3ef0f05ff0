/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: stage kinds by name, from the engine and from plugin modules */
#pragma once

#include <glib-object.h>
#include <accel/accelstage.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_REGISTRY (accel_registry_get_type ())
G_DECLARE_FINAL_TYPE (AccelRegistry, accel_registry, ACCEL, REGISTRY, GObject)

/**
 * AccelPluginRegisterFunc:
 * @registry: the registry to add stage kinds to
 * @error: return location for a #GError, or %NULL
 *
 * Every plugin module exports `accel_plugin_register` of this type.
 *
 * Returns: %FALSE when the plugin cannot work here (the reason in @error).
 */
typedef gboolean (*AccelPluginRegisterFunc) (
    AccelRegistry *registry, GError **error);

AccelRegistry *accel_registry_get_default (void);
void accel_registry_register (AccelRegistry *registry, GType stage_type);
GType accel_registry_lookup (AccelRegistry *registry, const char *kind_name);
GPtrArray *accel_registry_list_kinds (AccelRegistry *registry);
GPtrArray *accel_registry_suggest (
    AccelRegistry *registry, const char *kind_name);
gboolean accel_registry_load_plugin (
    AccelRegistry *registry, const char *path, GError **error);
gchar *accel_registry_dup_load_error (
    AccelRegistry *registry, const char *kind_name);
gchar *accel_param_spec_dup_range (GParamSpec *pspec);
gchar *accel_registry_describe (
    AccelRegistry *registry, const char *kind_name, GError **error);

AccelStage *accel_stage_new (
    const char *kind_name, const char *name, GError **error);

G_END_DECLS
