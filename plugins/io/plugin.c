/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: sources and sinks (test patterns, raw files, PNG,
 * application push and pull, the GStreamer bridge) */
#define G_LOG_DOMAIN "accel-io"

#include <gmodule.h>

#include "accelappsink.h"
#include "accelappsource.h"
#include "accelpatternsource.h"
#include "accelrawfilesink.h"
#include "accelrawfilesource.h"
#ifdef ACCEL_IO_HAVE_PNG
#include "accelpngsink.h"
#endif
#ifdef ACCEL_IO_HAVE_GST
#include <gst/gst.h>

#include "accelgstsink.h"
#include "accelgstsource.h"
#endif

G_MODULE_EXPORT gboolean accel_plugin_register (
    AccelRegistry *registry, GError **error);

/**
 * accel_plugin_register:
 * @registry: the registry to add the stage kinds to
 * @error: return location for a #GError, or %NULL
 *
 * Registers the io.* stage kinds; all have a host implementation. The
 * GStreamer stages are left out when GStreamer cannot be initialised here
 * (the reason is logged). Called by the registry, once.
 *
 * Returns: %TRUE.
 */
G_MODULE_EXPORT gboolean
accel_plugin_register (AccelRegistry *registry, GError **error)
{
  accel_registry_register (registry, ACCEL_TYPE_PATTERN_SOURCE);
  accel_registry_register (registry, ACCEL_TYPE_RAW_FILE_SOURCE);
  accel_registry_register (registry, ACCEL_TYPE_RAW_FILE_SINK);
  accel_registry_register (registry, ACCEL_TYPE_APP_SOURCE);
  accel_registry_register (registry, ACCEL_TYPE_APP_SINK);
#ifdef ACCEL_IO_HAVE_PNG
  accel_registry_register (registry, ACCEL_TYPE_PNG_SINK);
#endif
#ifdef ACCEL_IO_HAVE_GST
  {
    g_autoptr (GError) gst_error = NULL;
    if (gst_init_check (NULL, NULL, &gst_error))
      {
        accel_registry_register (registry, ACCEL_TYPE_GST_SOURCE);
        accel_registry_register (registry, ACCEL_TYPE_GST_SINK);
      }
    else
      {
        g_debug ("GStreamer stages left out: %s", gst_error->message);
      }
  }
#endif
  return TRUE;
}
