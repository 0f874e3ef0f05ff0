/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: which memory a filter's frames travel in on a GPU, CUDA or
 * system, as its caps say */
#pragma once

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

GstCaps *gst_accel_memory_transform_caps (
    GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps);
GstCaps *gst_accel_memory_keep (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *othercaps);

G_END_DECLS
