/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the blend element, a layer blended over a base */
#pragma once

#include <gst/video/gstvideoaggregator.h>

G_BEGIN_DECLS

#define GST_TYPE_ACCEL_BLEND_MODE (gst_accel_blend_mode_get_type ())
GType gst_accel_blend_mode_get_type (void);

#define GST_TYPE_ACCEL_BLEND_PAD (gst_accel_blend_pad_get_type ())
G_DECLARE_FINAL_TYPE (GstAccelBlendPad, gst_accel_blend_pad, GST,
    ACCEL_BLEND_PAD, GstVideoAggregatorPad)

#define GST_TYPE_ACCEL_BLEND (gst_accel_blend_get_type ())
G_DECLARE_FINAL_TYPE (
    GstAccelBlend, gst_accel_blend, GST, ACCEL_BLEND, GstVideoAggregator)

GST_ELEMENT_REGISTER_DECLARE (accelblend);

G_END_DECLS
