/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: graphs declared in YAML, or in one line of gst-launch syntax
 * turned into that YAML. The loader is a library of its own,
 * libaccel-yaml-1.0 (pipelines/), on the engine's public API; pkg-config
 * accel-1.0 links it */
#pragma once

#include <accel/accelgraph.h>

G_BEGIN_DECLS

AccelGraph *accel_graph_new_from_yaml_file (const char *path, GError **error);
AccelGraph *accel_graph_new_from_yaml_string (
    const char *yaml, const char *origin, GError **error);
AccelGraph *accel_graph_new_from_yaml_file_full (
    const char *path, const char *const *overrides, GError **error);
AccelGraph *accel_graph_new_from_yaml_string_full (const char *yaml,
    const char *origin, const char *const *overrides, GError **error);

const char *accel_yaml_stage_get_place (AccelStage *stage);

gchar *accel_description_to_yaml (
    const char *description, const char *origin, GError **error);
AccelGraph *accel_graph_new_from_description (
    const char *description, GError **error);
AccelGraph *accel_graph_new_from_description_full (const char *description,
    const char *origin, const char *const *overrides, GError **error);

G_END_DECLS
