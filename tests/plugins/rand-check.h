/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the random source cases of the host and GPU tests: runs and checks of
 * the distribution by its moments and a Kolmogorov-Smirnov test */
#pragma once

#include <accel/accel.h>

typedef struct
{
  const char *kind; /* rand.uniform, rand.normal or rand.log-normal */
  const char *generator;
  const char *dtype;
  const char *shape;
  guint64 seed;
  double parameters[2]; /* (low, high) or (mean, stddev) */
} RandCase;

/* @c's first @n_frames frames, on the host or the default device; with
 * @state_dir, resumed from and committed to it; with @fault_sequence > 0,
 * the source takes an injected library fault there and restarts */
GPtrArray *rand_run (const RandCase *c, gboolean host, gint64 n_frames,
    const char *state_dir, guint64 fault_sequence, GArray **sequences);

/* asserts that the frames' values follow @c's distribution: mean and
 * variance within 6 standard errors, Kolmogorov-Smirnov statistic below
 * the critical value for alpha = 1e-6 */
void rand_check_distribution (const RandCase *c, GPtrArray *frames);
