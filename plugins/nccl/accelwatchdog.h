/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: a GPU communicator's watchdog (see accelwatchdog.c) */
#pragma once

#include <accel/accel.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

G_BEGIN_DECLS

typedef struct _AccelWatchdog AccelWatchdog;

/* why a collective waits for nothing once accel_world_is_left() */
#define ACCEL_WATCHDOG_WORLD_LEFT                                              \
  "a rank began a later generation of the world, so this one's collectives "   \
  "cannot complete"

/**
 * AccelWatchdogExplain:
 * @data: the communicator's
 *
 * Why an operation waits for a peer that will not come, other than a lost
 * peer (a peer's stream ended first), or %NULL. Called on the watchdog's
 * thread.
 *
 * Returns: (transfer full) (nullable): the reason.
 */
typedef gchar *(*AccelWatchdogExplain) (gpointer data);

AccelWatchdog *accel_watchdog_new (ncclComm_t comm, AccelWorld *world,
    const char *who, AccelWatchdogExplain explain, gpointer explain_data,
    GError **error);
void accel_watchdog_free (AccelWatchdog *dog);
void accel_watchdog_enqueued (AccelWatchdog *dog, cudaStream_t stream);
gboolean accel_watchdog_check (AccelWatchdog *dog, GError **error);

gboolean accel_watchdog_wait_done (AccelWatchdog *dog);

G_END_DECLS
