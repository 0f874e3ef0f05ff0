/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: a streaming dataflow engine for GPU pipelines */
#pragma once

#include <accel/accelerror.h>
#include <accel/acceltype.h>
#include <accel/acceldevice.h>
#include <accel/accelstream.h>
#include <accel/accelfence.h>
#include <accel/accelbuffer.h>
#include <accel/accelpool.h>
#include <accel/accelcompletion.h>
#include <accel/accelsupervision.h>
#include <accel/accelcommitlog.h>
#include <accel/accelsupervisor.h>
#include <accel/accelstore.h>
#include <accel/accelworld.h>
#include <accel/accelplacement.h>
#include <accel/accelstage.h>
#include <accel/accelfileoutput.h>
#include <accel/accelgraph.h>
#include <accel/accelmetrics.h>
#include <accel/accelyaml.h>
#include <accel/accelregistry.h>
#include <accel/accelbuiltins.h>
#include <accel/acceldebug.h>
#include <accel/accelutil.h>
#include <accel/accelversion.h>
