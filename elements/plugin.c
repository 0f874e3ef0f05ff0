/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the GStreamer plugin */

#include "gstaccelanalysis.h"
#include "gstaccelblend.h"
#include "gstaccelboxblur.h"
#include "gstaccelcloth.h"
#include "gstaccelconvert.h"
#include "gstacceldownload.h"
#include "gstacceleffects.h"
#include "gstaccelfluid.h"
#include "gstaccelgaussianblur.h"
#include "gstaccelhistogram.h"
#include "gstaccelmedian.h"
#include "gstaccelparticles.h"
#include "gstaccelsobel.h"
#include "gstaccelthreshold.h"
#include "gstaccelunsharp.h"
#include "gstaccelupload.h"

static gboolean
plugin_init (GstPlugin *plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (accelupload, plugin);
  ret |= GST_ELEMENT_REGISTER (acceldownload, plugin);
  ret |= GST_ELEMENT_REGISTER (accelgaussianblur, plugin);
  ret |= GST_ELEMENT_REGISTER (accelsobel, plugin);
  ret |= GST_ELEMENT_REGISTER (accelboxblur, plugin);
  ret |= GST_ELEMENT_REGISTER (accelmedian, plugin);
  ret |= GST_ELEMENT_REGISTER (accelunsharp, plugin);
  ret |= GST_ELEMENT_REGISTER (accelthreshold, plugin);
  ret |= GST_ELEMENT_REGISTER (acceleffects, plugin);
  ret |= GST_ELEMENT_REGISTER (accelblend, plugin);
  ret |= GST_ELEMENT_REGISTER (accelanalysis, plugin);
  ret |= GST_ELEMENT_REGISTER (accelhistogram, plugin);
  ret |= GST_ELEMENT_REGISTER (accelfluid, plugin);
  ret |= GST_ELEMENT_REGISTER (accelconvert, plugin);
  ret |= GST_ELEMENT_REGISTER (accelparticles, plugin);
  ret |= GST_ELEMENT_REGISTER (accelcloth, plugin);

  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, accel,
    "realtime image kernels of the accel engine on CUDA memory", plugin_init,
    ACCEL_VERSION, "LGPL", GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
