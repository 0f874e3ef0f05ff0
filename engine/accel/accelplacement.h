/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: placing stages on GPUs by policy (`device: auto`) */
#pragma once

#include <accel/acceldevice.h>

G_BEGIN_DECLS

/**
 * AccelPlacement:
 * @ACCEL_PLACEMENT_FIRST: every stage on the first GPU
 * @ACCEL_PLACEMENT_ROUND_ROBIN: stage k on GPU k mod the number of GPUs
 * @ACCEL_PLACEMENT_LEAST_LOADED: each stage on the GPU that holds the
 *   fewest stages placed so far (the lowest index on a tie)
 * @ACCEL_PLACEMENT_MEMORY_FIT: each stage on the GPU with the most free
 *   memory (cudaMemGetInfo when the placer is made), less what the stages
 *   placed there already asked for
 *
 * How `device: auto` picks a GPU. On the host backend every stage runs on
 * the host, whatever the policy.
 */
typedef enum
{
  ACCEL_PLACEMENT_FIRST,
  ACCEL_PLACEMENT_ROUND_ROBIN,
  ACCEL_PLACEMENT_LEAST_LOADED,
  ACCEL_PLACEMENT_MEMORY_FIT,
} AccelPlacement;

#define ACCEL_TYPE_PLACEMENT (accel_placement_get_type ())
GType accel_placement_get_type (void);

typedef struct _AccelPlacer AccelPlacer;

guint accel_placement_pick (AccelPlacement policy, guint n_devices,
    guint n_placed_before, const guint *stages_on, const guint64 *free_bytes);

AccelPlacer *accel_placer_new (AccelPlacement policy);
AccelDevice *accel_placer_place (AccelPlacer *placer, guint64 bytes);
void accel_placer_free (AccelPlacer *placer);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AccelPlacer, accel_placer_free)

G_END_DECLS
