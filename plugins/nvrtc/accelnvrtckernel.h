/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nvrtc plugin: nvrtc.kernel */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_NVRTC_KERNEL (accel_nvrtc_kernel_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelNvrtcKernel, accel_nvrtc_kernel, ACCEL, NVRTC_KERNEL, AccelStage)

G_END_DECLS
