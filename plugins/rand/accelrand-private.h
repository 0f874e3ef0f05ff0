/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel rand plugin: the random source base class and what its stages
 * share (not installed) */
#pragma once

#include <accel/accel.h>

#include "accelrandhost.h"

G_BEGIN_DECLS

#define ACCEL_TYPE_RAND_GENERATOR (accel_rand_generator_get_type ())
GType accel_rand_generator_get_type (void);

#define ACCEL_TYPE_RAND (accel_rand_get_type ())
G_DECLARE_DERIVABLE_TYPE (AccelRand, accel_rand, ACCEL, RAND, AccelStage)

/**
 * AccelRandClass:
 * @distribution: what the values follow
 *
 * rand.uniform, rand.normal and rand.log-normal differ in @distribution and
 * in the names of its two parameters.
 */
struct _AccelRandClass
{
  AccelStageClass parent_class;

  AccelRandDistribution distribution;
};

/* the distribution's two parameters: (low, high) of a uniform, (mean,
 * stddev) of a normal; set from the subclasses' properties */
void accel_rand_set_parameter (AccelRand *self, guint index, double value);
double accel_rand_get_parameter (AccelRand *self, guint index);

/**
 * accel_curand_check:
 * @stage: the stage making the call
 * @call: a cuRAND call (its `curandStatus_t` is checked)
 * @error: return location for a #GError, or %NULL
 *
 * Evaluates @call; on failure sets @error (%ACCEL_ERROR_LIBRARY) naming the
 * stage, the call, cuRAND's status and the file and line, logs the same,
 * and returns %FALSE.
 */
#define accel_curand_check(stage, call, error)                                 \
  accel_curand_check_full (                                                    \
      (stage), (int)(call), #call, __FILE__, __LINE__, (error))

gboolean accel_curand_check_full (AccelStage *stage, int status,
    const char *call, const char *file, int line, GError **error);
const char *accel_curand_status_name (int status);

G_END_DECLS
