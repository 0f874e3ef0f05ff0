/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <accel/accelgraph.h>

G_BEGIN_DECLS

gchar *accel_graph_metrics_to_prometheus (AccelGraph *graph);
gchar *accel_graph_metrics_to_json (AccelGraph *graph);
gchar *accel_json_quote (const char *text);
gchar *accel_utf8_escape_bytes (const char *text);

G_END_DECLS
