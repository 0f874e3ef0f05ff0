/* accel: the GStreamer plugin */

#include "gstaccelboxblur.h"
#include "gstaccelgaussianblur.h"
#include "gstaccelsobel.h"

static gboolean
plugin_init (GstPlugin *plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (accelgaussianblur, plugin);
  ret |= GST_ELEMENT_REGISTER (accelsobel, plugin);
  ret |= GST_ELEMENT_REGISTER (accelboxblur, plugin);

  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, accel,
    "realtime image kernels of the accel engine as video filters", plugin_init,
    ACCEL_VERSION, "LGPL", "accel", "accel")
