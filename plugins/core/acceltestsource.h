/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel core plugin: core.test-source, deterministic tensors or images */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

#define ACCEL_TYPE_TEST_SOURCE (accel_test_source_get_type ())
G_DECLARE_FINAL_TYPE (
    AccelTestSource, accel_test_source, ACCEL, TEST_SOURCE, AccelStage)

G_END_DECLS
