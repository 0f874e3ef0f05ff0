/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the analysis element: per-frame statistics, histograms and motion
 * energy as element messages, and histogram equalisation */
#pragma once

#include "gstaccelfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_ACCEL_EQUALIZE_MODE (gst_accel_equalize_mode_get_type ())
GType gst_accel_equalize_mode_get_type (void);

#define GST_TYPE_ACCEL_ANALYSIS (gst_accel_analysis_get_type ())
G_DECLARE_DERIVABLE_TYPE (
    GstAccelAnalysis, gst_accel_analysis, GST, ACCEL_ANALYSIS, GstAccelFilter)

/**
 * GstAccelAnalysisClass:
 *
 * Derivable only for accelhistogram, the same element with other defaults.
 */
struct _GstAccelAnalysisClass
{
  GstAccelFilterClass parent_class;
};

GST_ELEMENT_REGISTER_DECLARE (accelanalysis);

G_END_DECLS
